//! [`ServeConfig`], [`StoreSpec`] and [`ServeError`].

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::{InMemoryPushConfigStore, InMemoryTaskStore, PushConfigStore, TaskStore};

use crate::agents::Agent;
use crate::card::GrpcUrlStyle;

/// The default `--jsonrpc-addr`.
pub const DEFAULT_JSONRPC_ADDR: &str = "127.0.0.1:8080";
/// The default `--grpc-addr`.
pub const DEFAULT_GRPC_ADDR: &str = "127.0.0.1:50051";
/// The default `--rest-addr`.
pub const DEFAULT_REST_ADDR: &str = "127.0.0.1:8081";
/// How long [`Server::run`](crate::Server::run) waits for open connections
/// (e.g. event streams of long tasks) after the shutdown signal before it
/// drops them.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);

/// Everything [`run`](crate::run) needs besides the listeners.
///
/// Fields are public and more may be added: start from [`ServeConfig::new`]
/// (the `a2a serve` defaults) or [`ServeConfig::ephemeral`] (every listener
/// on a free port of 127.0.0.1) and assign.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServeConfig {
    /// The agent to serve.
    pub agent: Agent,
    /// Where [`Listeners::bind`](crate::Listeners::bind) binds the JSON-RPC
    /// listener: `HOST:PORT`, port 0 for a free port. JSON-RPC is always
    /// served: it is the card's preferred transport.
    pub jsonrpc_addr: String,
    /// Where the gRPC listener binds; `None` serves no gRPC (`--no-grpc`).
    pub grpc_addr: Option<String>,
    /// Where the HTTP+JSON (REST) listener binds; `None` serves no REST
    /// (`--no-rest`).
    pub rest_addr: Option<String>,
    /// How the card writes the gRPC interface's URL (`--grpc-url-style`).
    pub grpc_url_style: GrpcUrlStyle,
    /// The host written into the card's URLs (default: the bound IP).
    pub public_url_host: Option<String>,
    /// Where tasks and push configs are kept.
    pub store: StoreSpec,
    /// See [`DEFAULT_SHUTDOWN_TIMEOUT`].
    pub shutdown_timeout: Duration,
}

impl ServeConfig {
    /// The `a2a serve` defaults for `agent`: JSON-RPC on `127.0.0.1:8080`,
    /// gRPC on `127.0.0.1:50051`, REST on `127.0.0.1:8081`, the gRPC URL
    /// as bare `HOST:PORT` in the card, in-memory store.
    #[must_use]
    pub fn new(agent: Agent) -> Self {
        Self {
            agent,
            jsonrpc_addr: DEFAULT_JSONRPC_ADDR.to_owned(),
            grpc_addr: Some(DEFAULT_GRPC_ADDR.to_owned()),
            rest_addr: Some(DEFAULT_REST_ADDR.to_owned()),
            grpc_url_style: GrpcUrlStyle::default(),
            public_url_host: None,
            store: StoreSpec::Memory,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
        }
    }

    /// Like [`new`](Self::new), but every listener (JSON-RPC, gRPC, REST)
    /// on `127.0.0.1:0`, a free port each: what tests and embedders that
    /// read the ports back (from [`Server::endpoints`](crate::Server::endpoints)
    /// or the card) start from.
    #[must_use]
    pub fn ephemeral(agent: Agent) -> Self {
        const ANY_PORT: &str = "127.0.0.1:0";
        Self {
            jsonrpc_addr: ANY_PORT.to_owned(),
            grpc_addr: Some(ANY_PORT.to_owned()),
            rest_addr: Some(ANY_PORT.to_owned()),
            ..Self::new(agent)
        }
    }
}

/// Where tasks and push configs live: the `--store` value.
///
/// | `--store` | store |
/// |---|---|
/// | `memory` | in memory (lost on exit) |
/// | `sqlite:PATH` | a SQLite file (not available yet) |
/// | `postgres://…`, `postgresql://…` | PostgreSQL (not available yet) |
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum StoreSpec {
    /// In memory.
    #[default]
    Memory,
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL connection URL.
    Postgres(String),
}

/// The stores a [`StoreSpec`] opens.
#[derive(Clone)]
pub struct Stores {
    /// Tasks.
    pub tasks: Arc<dyn TaskStore>,
    /// Push-notification configs.
    pub push_configs: Arc<dyn PushConfigStore>,
}

impl std::fmt::Debug for Stores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stores").finish_non_exhaustive()
    }
}

impl StoreSpec {
    /// Opens the stores.
    ///
    /// # Errors
    ///
    /// [`ServeError::UnsupportedStore`] for the kinds this build cannot open
    /// yet.
    pub async fn open(&self) -> Result<Stores, ServeError> {
        match self {
            Self::Memory => Ok(Stores {
                tasks: Arc::new(InMemoryTaskStore::new()),
                push_configs: Arc::new(InMemoryPushConfigStore::new()),
            }),
            Self::Sqlite(_) | Self::Postgres(_) => Err(ServeError::UnsupportedStore(format!(
                "--store {self}: the {} store is not available yet in this build; use --store memory",
                match self {
                    Self::Sqlite(_) => "SQLite",
                    _ => "PostgreSQL",
                }
            ))),
        }
    }
}

impl std::fmt::Display for StoreSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Memory => f.write_str("memory"),
            Self::Sqlite(p) => write!(f, "sqlite:{}", p.display()),
            Self::Postgres(url) => f.write_str(url),
        }
    }
}

impl FromStr for StoreSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s == "memory" {
            Ok(Self::Memory)
        } else if let Some(path) = s.strip_prefix("sqlite:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                Err("sqlite store needs a path: sqlite:PATH".to_owned())
            } else {
                Ok(Self::Sqlite(PathBuf::from(path)))
            }
        } else if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            Ok(Self::Postgres(s.to_owned()))
        } else {
            Err(format!(
                "unknown store {s:?}: expected `memory`, `sqlite:PATH` or `postgres://…`"
            ))
        }
    }
}

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// A listener could not be bound.
    #[error("cannot bind the {what} listener on {addr}: {source}")]
    Bind {
        /// Which listener (`jsonrpc`, `grpc`, `http+json`).
        what: &'static str,
        /// The address asked for.
        addr: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The store kind cannot be opened by this build.
    #[error("{0}")]
    UnsupportedStore(String),
    /// A listener failed while serving.
    #[error("the {what} server failed: {source}")]
    Serve {
        /// Which listener.
        what: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// Any other I/O error (reading a bound address, writing the
    /// `listening` lines).
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_specs() {
        assert_eq!("memory".parse::<StoreSpec>(), Ok(StoreSpec::Memory));
        assert_eq!(
            "sqlite:a2a.db".parse::<StoreSpec>(),
            Ok(StoreSpec::Sqlite("a2a.db".into()))
        );
        assert_eq!(
            "sqlite:///tmp/x.db".parse::<StoreSpec>(),
            Ok(StoreSpec::Sqlite("/tmp/x.db".into()))
        );
        assert_eq!(
            "postgres://u@h/db".parse::<StoreSpec>(),
            Ok(StoreSpec::Postgres("postgres://u@h/db".into()))
        );
        assert!("redis://x".parse::<StoreSpec>().is_err());
        assert!("sqlite:".parse::<StoreSpec>().is_err());
    }

    #[tokio::test]
    async fn only_memory_opens() {
        assert!(StoreSpec::Memory.open().await.is_ok());
        let err = StoreSpec::Sqlite("x.db".into()).open().await.unwrap_err();
        assert!(err.to_string().contains("not available yet"), "{err}");
        let err = StoreSpec::Postgres("postgres://h/db".into())
            .open()
            .await
            .unwrap_err();
        assert!(err.to_string().contains("PostgreSQL"), "{err}");
    }
}
