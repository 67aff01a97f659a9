//! [`ServeConfig`], [`StoreSpec`] and [`ServeError`].

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::{InMemoryPushConfigStore, InMemoryTaskStore, PushConfigStore, Retention, TaskStore};
use a2a_store_sql::{PostgresStore, SqliteStore, redact_url};

use crate::agents::Agent;
use crate::card::GrpcUrlStyle;

/// The default `--jsonrpc-addr`.
pub const DEFAULT_JSONRPC_ADDR: &str = "127.0.0.1:8080";
/// The default `--grpc-addr`.
pub const DEFAULT_GRPC_ADDR: &str = "127.0.0.1:50051";
/// The default `--rest-addr`.
pub const DEFAULT_REST_ADDR: &str = "127.0.0.1:8081";
/// The default `--data-dir`: where the default `--store` (a SQLite file
/// named [`DEFAULT_DB_FILE`]) lives. Created on first run.
pub const DEFAULT_DATA_DIR: &str = "./a2a-data";
/// The file name of the default `--store` in `--data-dir`.
pub const DEFAULT_DB_FILE: &str = "a2a.db";
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
    /// Where tasks and push configs are kept. [`ServeConfig::new`] keeps
    /// them in memory; `a2a serve` defaults to a SQLite file (see
    /// [`StoreSpec::default_sqlite`]).
    pub store: StoreSpec,
    /// How long finished tasks are kept (`--retain-tasks`, `--retain-for`);
    /// the default keeps them all.
    pub retention: Retention,
    /// See [`DEFAULT_SHUTDOWN_TIMEOUT`].
    pub shutdown_timeout: Duration,
}

impl ServeConfig {
    /// The `a2a serve` defaults for `agent`: JSON-RPC on `127.0.0.1:8080`,
    /// gRPC on `127.0.0.1:50051`, REST on `127.0.0.1:8081`, the gRPC URL
    /// as bare `HOST:PORT` in the card, every finished task kept; unlike
    /// `a2a serve`, an in-memory store (an embedder chooses where files go).
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
            retention: Retention::default(),
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
/// | `sqlite:PATH` (also `sqlite://PATH`) | a SQLite file ([`SqliteStore`]), created with its directory when missing |
/// | `postgres://…`, `postgresql://…` | a PostgreSQL database ([`PostgresStore`]) |
///
/// `Display` and `Debug` never show a PostgreSQL password
/// ([`redact_url`]).
#[derive(Clone, PartialEq, Eq, Default)]
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
    /// The `a2a serve` default: the SQLite file [`DEFAULT_DB_FILE`] in
    /// `data_dir`.
    #[must_use]
    pub fn default_sqlite(data_dir: impl Into<PathBuf>) -> Self {
        Self::Sqlite(data_dir.into().join(DEFAULT_DB_FILE))
    }

    /// Opens the stores: one [`SqliteStore`] or [`PostgresStore`] serves
    /// as both the task and the push-config store; their migrations run on
    /// open, so a new file or an empty database is ready at once.
    ///
    /// # Errors
    ///
    /// [`ServeError::Store`] when the SQLite file (or its directory) cannot
    /// be created or opened, the PostgreSQL URL is invalid, the server
    /// cannot be reached or refuses the login, or a migration fails. The
    /// message names the store without its password.
    pub async fn open(&self) -> Result<Stores, ServeError> {
        let failed =
            |e: a2a_types::A2aError| ServeError::Store(format!("--store {self}: {}", e.message()));
        match self {
            Self::Memory => Ok(Stores {
                tasks: Arc::new(InMemoryTaskStore::new()),
                push_configs: Arc::new(InMemoryPushConfigStore::new()),
            }),
            Self::Sqlite(path) => {
                let store = Arc::new(SqliteStore::open(path).await.map_err(failed)?);
                Ok(Stores {
                    tasks: Arc::clone(&store) as Arc<dyn TaskStore>,
                    push_configs: store,
                })
            }
            Self::Postgres(url) => {
                let store = Arc::new(PostgresStore::connect(url).await.map_err(failed)?);
                Ok(Stores {
                    tasks: Arc::clone(&store) as Arc<dyn TaskStore>,
                    push_configs: store,
                })
            }
        }
    }
}

impl std::fmt::Display for StoreSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Memory => f.write_str("memory"),
            Self::Sqlite(p) => write!(f, "sqlite:{}", p.display()),
            Self::Postgres(url) => f.write_str(&redact_url(url)),
        }
    }
}

impl std::fmt::Debug for StoreSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Memory => f.write_str("Memory"),
            Self::Sqlite(p) => f.debug_tuple("Sqlite").field(p).finish(),
            Self::Postgres(url) => f.debug_tuple("Postgres").field(&redact_url(url)).finish(),
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
    /// The store could not be opened (the message names it, without its
    /// password, and says why).
    #[error("{0}")]
    Store(String),
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

    #[test]
    fn store_specs_never_show_a_password() {
        let spec: StoreSpec = "postgres://a2a:s3cret@db:5432/a2a?password=s3cret"
            .parse()
            .unwrap();
        let shown = spec.to_string();
        assert_eq!(shown, "postgres://a2a@db:5432/a2a?password=***");
        let debug = format!("{spec:?}");
        assert!(
            !debug.contains("s3cret") && debug.contains("db:5432"),
            "{debug}"
        );
        assert_eq!(StoreSpec::Memory.to_string(), "memory");
        assert_eq!(format!("{:?}", StoreSpec::Memory), "Memory");
        assert_eq!(
            StoreSpec::Sqlite("a/b.db".into()).to_string(),
            "sqlite:a/b.db"
        );
    }

    #[tokio::test]
    async fn stores_open() {
        assert!(StoreSpec::Memory.open().await.is_ok());

        // A fresh directory (created by the open) under the system's temp dir.
        let dir = std::env::temp_dir().join(format!(
            "a2a-server-config-{}-{}",
            std::process::id(),
            a2a_core::new_id()
        ));
        let spec = StoreSpec::default_sqlite(dir.join("data"));
        assert_eq!(spec, StoreSpec::Sqlite(dir.join("data").join("a2a.db")));
        let stores = spec.open().await.expect("sqlite opens");
        assert!(stores.tasks.get("none").await.unwrap().is_none());
        assert!(dir.join("data/a2a.db").is_file());
        drop(stores);

        // A file where the directory should be: a `Store` error naming it.
        let err = StoreSpec::Sqlite(dir.join("data/a2a.db/x.db"))
            .open()
            .await
            .unwrap_err();
        assert!(matches!(err, ServeError::Store(_)), "{err:?}");
        assert!(err.to_string().contains("a2a.db/x.db"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();

        // An invalid URL fails at once, without showing the password.
        let err = StoreSpec::Postgres("postgres://u:s3cret@h:notaport/db".into())
            .open()
            .await
            .unwrap_err();
        assert!(matches!(err, ServeError::Store(_)), "{err:?}");
        let err = err.to_string();
        assert!(
            err.contains("postgres://u@h:notaport/db") && !err.contains("s3cret"),
            "{err}"
        );
    }
}
