//! [`ServeConfig`], [`StoreSpec`] and [`ServeError`].

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::{
    Cluster, ClusterTiming, InMemoryPushConfigStore, InMemoryTaskStore, PushConfigStore, Retention,
    TaskStore,
};
use a2a_store_sql::{PgCluster, PgClusterOptions, PostgresStore, SqliteStore, redact_url};

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

/// The shortest lease time-to-live a replica accepts (`--lease-ttl`): a
/// replica renews its leases every third of it, and a shorter one would
/// fail live tasks whenever a renewal is a little late.
pub const MIN_LEASE_TTL: Duration = Duration::from_secs(1);

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
    /// How this server runs as one replica of a cluster (`--replica-id`,
    /// `--lease-ttl`). Only a PostgreSQL [`store`](Self::store) is shared
    /// by replicas: with it, the server always joins the cluster of the
    /// replicas on the same database, with these settings or, when `None`,
    /// the [`ClusterConfig::default`] ones. With a memory or SQLite store a
    /// single replica is the only mode, and `Some` is refused by
    /// [`Server::new`](crate::Server::new) ([`ServeError::Config`]).
    pub cluster: Option<ClusterConfig>,
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
            cluster: None,
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
#[non_exhaustive]
pub struct Stores {
    /// Tasks.
    pub tasks: Arc<dyn TaskStore>,
    /// Push-notification configs.
    pub push_configs: Arc<dyn PushConfigStore>,
    /// The link to the other replicas sharing the store: a [`PgCluster`] on
    /// the PostgreSQL store's pool; `None` for the memory and SQLite stores
    /// (one process only). Pass it to the handler with
    /// `DefaultRequestHandler::builder(…).cluster(cluster, timing)`.
    pub cluster: Option<Arc<dyn Cluster>>,
}

impl std::fmt::Debug for Stores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stores")
            .field(
                "replica_id",
                &self.cluster.as_ref().map(|c| c.replica_id().to_owned()),
            )
            .finish_non_exhaustive()
    }
}

/// How a server runs as one replica of a cluster sharing a PostgreSQL
/// store: [`ServeConfig::cluster`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ClusterConfig {
    /// This replica's id (`--replica-id`), unique among the replicas of the
    /// database: it names the owner of a lease, and a replica ignores the
    /// messages published under its own id. `None`: a fresh
    /// [`default_replica_id`].
    pub replica_id: Option<String>,
    /// The lease time-to-live (`--lease-ttl`) and how long a remote cancel
    /// waits; see [`ClusterTiming`].
    pub timing: ClusterTiming,
}

impl ClusterConfig {
    /// Sets the replica id.
    #[must_use]
    pub fn replica_id(mut self, id: impl Into<String>) -> Self {
        self.replica_id = Some(id.into());
        self
    }

    /// Sets the lease time-to-live.
    #[must_use]
    pub fn lease_ttl(mut self, ttl: Duration) -> Self {
        self.timing = self.timing.lease_ttl(ttl);
        self
    }
}

/// A replica id unique per process: `HOSTNAME-PID-RANDOM` (8 hex digits of
/// a random UUID), e.g. `web-1-4242-9f86d081`. The host name comes from
/// `/proc/sys/kernel/hostname` or `$HOSTNAME`, else `a2a`.
#[must_use]
pub fn default_replica_id() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "a2a".to_owned());
    let random: String = a2a_core::new_id()
        .chars()
        .filter(char::is_ascii_hexdigit)
        .take(8)
        .collect();
    format!("{host}-{}-{random}", std::process::id())
}

impl StoreSpec {
    /// The `a2a serve` default: the SQLite file [`DEFAULT_DB_FILE`] in
    /// `data_dir`.
    #[must_use]
    pub fn default_sqlite(data_dir: impl Into<PathBuf>) -> Self {
        Self::Sqlite(data_dir.into().join(DEFAULT_DB_FILE))
    }

    /// Whether several processes (replicas) may share this store: true for
    /// PostgreSQL only.
    #[must_use]
    pub fn is_shared(&self) -> bool {
        matches!(self, Self::Postgres(_))
    }

    /// Opens the stores: [`open_as`](Self::open_as) with a fresh
    /// [`default_replica_id`].
    ///
    /// # Errors
    ///
    /// As [`open_as`](Self::open_as).
    pub async fn open(&self) -> Result<Stores, ServeError> {
        self.open_as(None).await
    }

    /// Opens the stores: one [`SqliteStore`] or [`PostgresStore`] serves
    /// as both the task and the push-config store; their migrations run on
    /// open, so a new file or an empty database is ready at once. A
    /// PostgreSQL store also joins the cluster of the replicas sharing the
    /// database as `replica_id` (`None`: a fresh [`default_replica_id`]):
    /// [`Stores::cluster`] is a [`PgCluster`] on the store's pool (it holds
    /// one of its connections for `LISTEN`). Memory and SQLite ignore
    /// `replica_id` and have no cluster.
    ///
    /// # Errors
    ///
    /// [`ServeError::Store`] when the SQLite file (or its directory) cannot
    /// be created or opened, the PostgreSQL URL is invalid, the server
    /// cannot be reached or refuses the login, or a migration or the
    /// cluster's `LISTEN` fails. The message names the store without its
    /// password.
    pub async fn open_as(&self, replica_id: Option<&str>) -> Result<Stores, ServeError> {
        let failed =
            |e: a2a_types::A2aError| ServeError::Store(format!("--store {self}: {}", e.message()));
        match self {
            Self::Memory => Ok(Stores {
                tasks: Arc::new(InMemoryTaskStore::new()),
                push_configs: Arc::new(InMemoryPushConfigStore::new()),
                cluster: None,
            }),
            Self::Sqlite(path) => {
                let store = Arc::new(SqliteStore::open(path).await.map_err(failed)?);
                Ok(Stores {
                    tasks: Arc::clone(&store) as Arc<dyn TaskStore>,
                    push_configs: store,
                    cluster: None,
                })
            }
            Self::Postgres(url) => {
                let store = Arc::new(PostgresStore::connect(url).await.map_err(failed)?);
                let id = replica_id.map_or_else(default_replica_id, str::to_owned);
                let cluster = PgCluster::from_pool(
                    store.pool().clone(),
                    Some(id),
                    PgClusterOptions::default(),
                )
                .await
                .map_err(failed)?;
                Ok(Stores {
                    tasks: Arc::clone(&store) as Arc<dyn TaskStore>,
                    push_configs: store,
                    cluster: Some(Arc::new(cluster)),
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
    /// The configuration contradicts itself (e.g. cluster settings with a
    /// store replicas cannot share); the message says what to change.
    #[error("{0}")]
    Config(String),
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

    #[test]
    fn replica_ids_are_unique_per_call() {
        let (a, b) = (default_replica_id(), default_replica_id());
        assert_ne!(a, b);
        let pid = format!("-{}-", std::process::id());
        assert!(a.contains(&pid), "{a}");
        let random = a.rsplit('-').next().unwrap();
        assert_eq!(random.len(), 8, "{a}");
        assert!(!a.contains(char::is_whitespace), "{a}");
    }

    #[test]
    fn only_postgres_is_shared() {
        assert!(StoreSpec::Postgres("postgres://h/db".into()).is_shared());
        assert!(!StoreSpec::Memory.is_shared());
        assert!(!StoreSpec::Sqlite("x.db".into()).is_shared());
        let c = ClusterConfig::default()
            .replica_id("a")
            .lease_ttl(Duration::from_secs(3));
        assert_eq!(c.replica_id.as_deref(), Some("a"));
        assert_eq!(
            c.timing,
            ClusterTiming::default().lease_ttl(Duration::from_secs(3))
        );
    }

    #[tokio::test]
    async fn stores_open() {
        let memory = StoreSpec::Memory.open_as(Some("ignored")).await.unwrap();
        assert!(memory.cluster.is_none(), "one process only: {memory:?}");

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
        assert!(stores.cluster.is_none());
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
