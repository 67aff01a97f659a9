//! The server loop: [`Listeners`], [`Server`], [`run`].

use std::future::Future;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::{DefaultRequestHandler, RequestHandler};
use a2a_types::AgentCard;
use axum::serve::ListenerExt;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::card::{Endpoint, GrpcUrlStyle, Protocol, build_card};
use crate::config::{ClusterConfig, ServeConfig, ServeError};
use crate::push::HttpPushSender;

/// The bound listeners, one per served binding. Bind them first (port 0 in
/// tests), then hand them to [`run`] or [`Server::new`]: the ports are known
/// before anything is served, so the card can name them.
///
/// JSON-RPC is always there (the card's preferred transport); gRPC and
/// HTTP+JSON (REST) are optional, each on a listener of its own.
#[derive(Debug)]
pub struct Listeners {
    jsonrpc: TcpListener,
    grpc: Option<TcpListener>,
    rest: Option<TcpListener>,
}

impl Listeners {
    /// Listeners made of an already bound JSON-RPC listener (no gRPC, no
    /// REST; add them with [`with_grpc`](Self::with_grpc) and
    /// [`with_rest`](Self::with_rest)).
    #[must_use]
    pub fn new(jsonrpc: TcpListener) -> Self {
        Self {
            jsonrpc,
            grpc: None,
            rest: None,
        }
    }

    /// Adds (or replaces) the gRPC listener.
    #[must_use]
    pub fn with_grpc(mut self, grpc: TcpListener) -> Self {
        self.grpc = Some(grpc);
        self
    }

    /// Adds (or replaces) the HTTP+JSON (REST) listener.
    #[must_use]
    pub fn with_rest(mut self, rest: TcpListener) -> Self {
        self.rest = Some(rest);
        self
    }

    /// Binds every listener the config asks for: JSON-RPC, and gRPC and
    /// REST unless their address is `None`.
    ///
    /// # Errors
    ///
    /// [`ServeError::Bind`] naming the listener and address.
    pub async fn bind(config: &ServeConfig) -> Result<Self, ServeError> {
        let jsonrpc = bind("jsonrpc", &config.jsonrpc_addr).await?;
        let grpc = match &config.grpc_addr {
            Some(addr) => Some(bind("grpc", addr).await?),
            None => None,
        };
        let rest = match &config.rest_addr {
            Some(addr) => Some(bind("http+json", addr).await?),
            None => None,
        };
        Ok(Self {
            jsonrpc,
            grpc,
            rest,
        })
    }

    /// The bound JSON-RPC listener.
    #[must_use]
    pub fn jsonrpc(&self) -> &TcpListener {
        &self.jsonrpc
    }

    /// The bound gRPC listener, if any.
    #[must_use]
    pub fn grpc(&self) -> Option<&TcpListener> {
        self.grpc.as_ref()
    }

    /// The bound HTTP+JSON (REST) listener, if any.
    #[must_use]
    pub fn rest(&self) -> Option<&TcpListener> {
        self.rest.as_ref()
    }

    /// The endpoints in card order: JSON-RPC (preferred) first, then gRPC
    /// and HTTP+JSON when bound, with URLs whose host is `public_host` or
    /// the bound IP, and the gRPC card URL in `grpc_url_style`.
    ///
    /// # Errors
    ///
    /// When a listener's local address cannot be read.
    pub fn endpoints(
        &self,
        public_host: Option<&str>,
        grpc_url_style: GrpcUrlStyle,
    ) -> std::io::Result<Vec<Endpoint>> {
        let mut endpoints = vec![Endpoint::new(
            Protocol::JsonRpc,
            self.jsonrpc.local_addr()?,
            public_host,
        )];
        if let Some(grpc) = &self.grpc {
            endpoints.push(
                Endpoint::new(Protocol::Grpc, grpc.local_addr()?, public_host)
                    .with_grpc_url_style(grpc_url_style),
            );
        }
        if let Some(rest) = &self.rest {
            endpoints.push(Endpoint::new(
                Protocol::HttpJson,
                rest.local_addr()?,
                public_host,
            ));
        }
        Ok(endpoints)
    }
}

/// Binds `addr`, naming `what` in the error.
async fn bind(what: &'static str, addr: &str) -> Result<TcpListener, ServeError> {
    TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind {
            what,
            addr: addr.to_owned(),
            source,
        })
}

/// A server ready to run: stores opened, card built from the bound
/// listeners, handler wired with the [`HttpPushSender`].
///
/// [`run`] is `Server::new(config, listeners).await?.run(shutdown)`; the
/// binary uses the two steps to print the `listening` lines in between.
pub struct Server {
    handler: Arc<DefaultRequestHandler>,
    listeners: Listeners,
    endpoints: Vec<Endpoint>,
    replica_id: Option<String>,
    shutdown_timeout: Duration,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("endpoints", &self.endpoints)
            .field("replica_id", &self.replica_id)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Opens the stores and builds the card and the handler. With a
    /// PostgreSQL store the handler joins the cluster of the replicas on
    /// the same database (see [`ServeConfig::cluster`]).
    ///
    /// # Errors
    ///
    /// [`ServeError::Config`] when [`ServeConfig::cluster`] is set for a
    /// store that replicas cannot share (memory, SQLite) or its lease
    /// time-to-live is under [`MIN_LEASE_TTL`](crate::MIN_LEASE_TTL) or its
    /// replica id is empty; [`ServeError::Store`] when the store cannot be
    /// opened; or an I/O error reading a listener's address.
    pub async fn new(config: ServeConfig, listeners: Listeners) -> Result<Self, ServeError> {
        if let Some(cluster) = &config.cluster {
            check_cluster(&config, cluster)?;
        }
        let cluster = config.cluster.clone().unwrap_or_default();
        let stores = config.store.open_as(cluster.replica_id.as_deref()).await?;
        tracing::info!(store = %config.store, retention = ?config.retention, "store opened");
        let replica_id = stores.cluster.as_ref().map(|c| c.replica_id().to_owned());
        if let Some(id) = &replica_id {
            tracing::info!(replica_id = %id, lease_ttl = ?cluster.timing.lease_ttl, "joined the cluster of the replicas sharing the store");
        }
        let endpoints =
            listeners.endpoints(config.public_url_host.as_deref(), config.grpc_url_style)?;
        for e in &endpoints {
            if e.local_addr.ip().is_unspecified() && config.public_url_host.is_none() {
                tracing::warn!(url = %e.url, "bound to an unspecified address; the card names it literally, set --public-url-host");
            }
        }
        let interfaces: Vec<_> = endpoints.iter().map(Endpoint::interface).collect();
        let card = build_card(&config.agent.description, &interfaces);
        let mut builder = DefaultRequestHandler::builder_shared(card, config.agent.executor)
            .task_store(stores.tasks)
            .push_config_store(stores.push_configs)
            .push_sender(Arc::new(HttpPushSender::new()))
            .retention(config.retention);
        if let Some(link) = stores.cluster {
            builder = builder.cluster(link, cluster.timing);
        }
        Ok(Self {
            handler: Arc::new(builder.build()),
            listeners,
            endpoints,
            replica_id,
            shutdown_timeout: config.shutdown_timeout,
        })
    }

    /// This server's replica id when it runs as one replica of a cluster
    /// (a PostgreSQL store), else `None`.
    #[must_use]
    pub fn replica_id(&self) -> Option<&str> {
        self.replica_id.as_deref()
    }

    /// The served endpoints, preferred first.
    #[must_use]
    pub fn endpoints(&self) -> &[Endpoint] {
        &self.endpoints
    }

    /// The public agent card.
    #[must_use]
    pub fn card(&self) -> Arc<AgentCard> {
        self.handler.agent_card()
    }

    /// The engine every listener serves.
    #[must_use]
    pub fn handler(&self) -> &Arc<DefaultRequestHandler> {
        &self.handler
    }

    /// Writes one `listening <name> <url>` line per endpoint, then, when it
    /// runs as one replica of a cluster, `replica <ID>`, and flushes.
    ///
    /// # Errors
    ///
    /// When writing fails.
    pub fn announce(&self, out: &mut impl Write) -> std::io::Result<()> {
        for e in &self.endpoints {
            writeln!(out, "{}", e.listening_line())?;
        }
        if let Some(id) = &self.replica_id {
            writeln!(out, "replica {id}")?;
        }
        out.flush()
    }

    /// Serves every listener (JSON-RPC with `a2a_jsonrpc::router`, gRPC
    /// with `a2a_grpc::serve`, REST with `a2a_http_json::router`, each
    /// spawned on a `JoinSet` under one stop token) until `shutdown`
    /// completes (or one of them fails), then stops all of them from
    /// accepting, lets open requests and streams finish for up to the
    /// configured shutdown timeout, and returns. Connections still open
    /// then are not waited for; they run on in the tasks axum and tonic
    /// spawned for them until the Tokio runtime is dropped (the `a2a`
    /// binary exits right after `run` returns, which closes them).
    ///
    /// # Errors
    ///
    /// [`ServeError::Serve`] when a listener fails.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let stop = CancellationToken::new();
        let handler: Arc<dyn RequestHandler> = self.handler;
        let mut servers: JoinSet<Result<(), ServeError>> = JoinSet::new();

        let Listeners {
            jsonrpc,
            grpc,
            rest,
        } = self.listeners;

        let app = a2a_jsonrpc::router(Arc::clone(&handler));
        let token = stop.clone();
        servers.spawn(async move {
            axum::serve(with_nodelay(jsonrpc), app)
                .with_graceful_shutdown(token.cancelled_owned())
                .await
                .map_err(|source| ServeError::Serve {
                    what: "jsonrpc",
                    source,
                })
        });

        if let Some(listener) = grpc {
            // `a2a_grpc::serve` sets TCP_NODELAY itself, and reports
            // NOT_SERVING on the health service once `stop` fires.
            let handler = Arc::clone(&handler);
            let token = stop.clone();
            servers.spawn(async move {
                a2a_grpc::serve(listener, handler, token.cancelled_owned())
                    .await
                    .map_err(|e| ServeError::Serve {
                        what: "grpc",
                        source: std::io::Error::other(e),
                    })
            });
        }

        if let Some(listener) = rest {
            // A listener of its own: the REST router has a fallback route.
            let app = a2a_http_json::router(Arc::clone(&handler));
            let token = stop.clone();
            servers.spawn(async move {
                axum::serve(with_nodelay(listener), app)
                    .with_graceful_shutdown(token.cancelled_owned())
                    .await
                    .map_err(|source| ServeError::Serve {
                        what: "http+json",
                        source,
                    })
            });
        }

        for e in &self.endpoints {
            tracing::info!(protocol = e.protocol.line_name(), url = %e.listening_url, card_url = %e.url, "listening");
        }

        let mut result = Ok(());
        tokio::select! {
            () = shutdown => tracing::info!("shutdown signal received; stopping"),
            Some(done) = servers.join_next() => {
                result = flatten(done);
                tracing::error!("a listener stopped unexpectedly; stopping the others");
            }
        }
        stop.cancel();
        let drain = async {
            while let Some(done) = servers.join_next().await {
                if let Err(e) = flatten(done) {
                    tracing::error!(error = %e, "listener failed while stopping");
                    if result.is_ok() {
                        result = Err(e);
                    }
                }
            }
        };
        if tokio::time::timeout(self.shutdown_timeout, drain)
            .await
            .is_err()
        {
            tracing::warn!(
                timeout = ?self.shutdown_timeout,
                "open connections did not finish in time; dropping them"
            );
            servers.shutdown().await;
        }
        tracing::info!("stopped");
        result
    }
}

/// Refuses cluster settings the store cannot honour.
fn check_cluster(config: &ServeConfig, cluster: &ClusterConfig) -> Result<(), ServeError> {
    if !config.store.is_shared() {
        return Err(ServeError::Config(format!(
            "--replica-id and --lease-ttl need a store that replicas share (--store postgres://…); \
             with --store {} a single replica is the only mode: drop these flags",
            config.store
        )));
    }
    if cluster
        .replica_id
        .as_deref()
        .is_some_and(|id| id.trim().is_empty())
    {
        return Err(ServeError::Config(
            "--replica-id must not be empty".to_owned(),
        ));
    }
    if cluster.timing.lease_ttl < crate::config::MIN_LEASE_TTL {
        return Err(ServeError::Config(format!(
            "--lease-ttl {:?} is too short: at least {:?} (leases are renewed every third of it)",
            cluster.timing.lease_ttl,
            crate::config::MIN_LEASE_TTL
        )));
    }
    Ok(())
}

fn flatten(done: Result<Result<(), ServeError>, tokio::task::JoinError>) -> Result<(), ServeError> {
    match done {
        Ok(r) => r,
        Err(e) => Err(ServeError::Io(std::io::Error::other(e))),
    }
}

/// `listener` with `TCP_NODELAY` on every accepted connection: small SSE
/// frames must not wait for delayed ACKs (Nagle).
fn with_nodelay(listener: TcpListener) -> impl axum::serve::Listener<Addr = SocketAddr> {
    listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "cannot set TCP_NODELAY");
        }
    })
}

/// Builds the server for `config` on the bound `listeners` and serves until
/// `shutdown` completes; see [`Server::run`].
///
/// # Errors
///
/// See [`Server::new`] and [`Server::run`].
pub async fn run(
    config: ServeConfig,
    listeners: Listeners,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    Server::new(config, listeners).await?.run(shutdown).await
}

/// A future that completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
///
/// The handlers are installed when this function is called (it must be
/// called inside a Tokio runtime), so call it before announcing the
/// listeners: a signal sent right after the `listening` lines is never lost.
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt());
        let terminate = signal(SignalKind::terminate());
        async move {
            let wait = |s: std::io::Result<tokio::signal::unix::Signal>, name: &'static str| async move {
                match s {
                    Ok(mut s) => {
                        s.recv().await;
                        tracing::info!(signal = name, "signal received");
                    }
                    Err(e) => {
                        tracing::error!(signal = name, error = %e, "cannot listen for the signal");
                        std::future::pending::<()>().await;
                    }
                }
            };
            tokio::select! {
                () = wait(interrupt, "SIGINT") => {},
                () = wait(terminate, "SIGTERM") => {},
            }
        }
    }
    #[cfg(not(unix))]
    async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::Agent;
    use crate::config::StoreSpec;

    #[tokio::test]
    async fn cluster_settings_need_a_shared_store() {
        for store in [
            StoreSpec::Memory,
            StoreSpec::Sqlite("never-created/a2a.db".into()),
        ] {
            let mut config = ServeConfig::ephemeral(Agent::echo());
            config.store = store.clone();
            config.cluster = Some(ClusterConfig::default().replica_id("a"));
            let listeners = Listeners::bind(&config).await.unwrap();
            let err = Server::new(config, listeners).await.unwrap_err();
            assert!(matches!(err, ServeError::Config(_)), "{err:?}");
            let err = err.to_string();
            assert!(err.contains(&format!("--store {store}")), "{err}");
        }
        assert!(!std::path::Path::new("never-created").exists());

        // Refused before connecting (nothing listens on port 1).
        for (cluster, why) in [
            (
                ClusterConfig::default().lease_ttl(Duration::from_millis(100)),
                "too short",
            ),
            (
                ClusterConfig::default().replica_id(" "),
                "must not be empty",
            ),
        ] {
            let mut config = ServeConfig::ephemeral(Agent::echo());
            config.store = StoreSpec::Postgres("postgres://u@127.0.0.1:1/db".into());
            config.cluster = Some(cluster);
            let listeners = Listeners::bind(&config).await.unwrap();
            let err = Server::new(config, listeners).await.unwrap_err();
            assert!(
                matches!(err, ServeError::Config(_)) && err.to_string().contains(why),
                "{err:?}"
            );
        }

        // No cluster settings: a single replica, no `replica` line.
        let config = ServeConfig::ephemeral(Agent::echo());
        let listeners = Listeners::bind(&config).await.unwrap();
        let server = Server::new(config, listeners).await.unwrap();
        assert_eq!(server.replica_id(), None);
        let mut out = Vec::new();
        server.announce(&mut out).unwrap();
        assert!(!String::from_utf8(out).unwrap().contains("replica"));
    }
}
