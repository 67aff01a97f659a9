//! The A2A composition root: configuration, listeners, and the server loop
//! [`run`]`(config, listeners, shutdown)`; plus the `a2a` binary (`a2a serve`
//! and JSON-RPC client commands).
//!
//! One engine (`a2a_core::DefaultRequestHandler`) is served on up to three
//! listeners, one per binding: JSON-RPC (`a2a_jsonrpc::router`, always),
//! gRPC (`a2a_grpc::serve`: `A2AService` + health + reflection) and
//! HTTP+JSON/REST (`a2a_http_json::router`).
//!
//! Write an agent with [`AgentExecutor`](a2a_core::AgentExecutor), bind the
//! listeners (port 0 picks a free port), and serve it:
//!
//! ```
//! use a2a_core::{AgentExecutor, EventSink, RequestContext};
//! use a2a_server::{Agent, AgentDescription, Listeners, ServeConfig, Server};
//! use a2a_types::{A2aError, Part};
//!
//! struct Upper;
//!
//! #[async_trait::async_trait]
//! impl AgentExecutor for Upper {
//!     async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
//!         let task = ctx.updater(events);
//!         let text = ctx.user_text().to_uppercase();
//!         task.add_artifact(vec![Part::text(text)], "upper", Some("upper"), false, true).await?;
//!         task.complete(None).await
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let description = AgentDescription::new("upper", "Shouts your text back", "1.0.0");
//! // JSON-RPC, gRPC and REST, each on a free port of 127.0.0.1.
//! let mut config = ServeConfig::ephemeral(Agent::new(description, Upper));
//! config.rest_addr = None; // no REST listener, no HTTP+JSON interface in the card
//! let listeners = Listeners::bind(&config).await?;
//! let server = Server::new(config, listeners).await?;
//! let card = server.card();
//! assert_eq!(card.preferred_transport, "JSONRPC");
//! assert_eq!(card.additional_interfaces.as_ref().map(Vec::len), Some(2)); // JSONRPC, GRPC
//! // A real program passes `a2a_server::shutdown_signal()` (Ctrl-C, SIGTERM).
//! server.run(async {}).await?;
//! # Ok(()) }
//! ```
//!
//! # `a2a serve`
//!
//! | flag | default | what |
//! |---|---|---|
//! | `--agent demo\|conformance\|echo` | `demo` | the agent: [`agents::demo`], [`agents::conformance`] or [`agents::echo`] |
//! | `--jsonrpc-addr HOST:PORT` | `127.0.0.1:8080` | where the JSON-RPC listener binds; port 0 picks a free port |
//! | `--grpc-addr HOST:PORT` | `127.0.0.1:50051` | where the gRPC listener binds; port 0 picks a free port |
//! | `--no-grpc` | off | serve no gRPC: no listener, no `GRPC` interface, no `listening grpc` line (conflicts with `--grpc-addr`) |
//! | `--rest-addr HOST:PORT` | `127.0.0.1:8081` | where the HTTP+JSON (REST) listener binds; port 0 picks a free port |
//! | `--no-rest` | off | serve no REST: no listener, no `HTTP+JSON` interface, no `listening http+json` line (conflicts with `--rest-addr`) |
//! | `--grpc-url-style host-port\|http` | `host-port` | how the card writes the gRPC URL: bare `HOST:PORT` (what the official Python SDK's `grpc.aio.insecure_channel(url)` needs) or `http://HOST:PORT`; see [`GrpcUrlStyle`] |
//! | `--public-url-host HOST` | the bound IP | the host written into the card's URLs and the `listening` lines |
//! | `--store memory\|sqlite:PATH\|postgres://…` | `sqlite:DATA_DIR/a2a.db` | where tasks and push configs live: in memory (lost on exit), a SQLite file (created with its directory when missing) or a PostgreSQL database (`postgres://USER:PASSWORD@HOST:PORT/DB`, also `postgresql://`); see [`StoreSpec`]. Error messages and logs never show the password |
//! | `--data-dir DIR` | `./a2a-data` | the directory of the default store, created on first run; unused with `--store` |
//! | `--retain-tasks N` | all | keep at most N finished (terminal) tasks, the most recently finished; older ones are deleted with their push configs |
//! | `--retain-for DURATION` | forever | delete finished tasks this long after they finished: `NUMBER UNIT` pairs, units `ms`, `s`, `m`, `h`, `d` (`30s`, `10m`, `2h`, `1h30m`) |
//! | `--replica-id ID` | `HOSTNAME-PID-RANDOM` | with a `postgres://` store: this replica's unique id in the cluster of the servers sharing the database ([`ClusterConfig::replica_id`], [`default_replica_id`]); printed as `replica ID` after the `listening` lines |
//! | `--lease-ttl DURATION` | `15s` | with a `postgres://` store: how long a replica's lease on a task it runs lasts without renewal (renewed every third of it; at least [`MIN_LEASE_TTL`]); a dead replica's unfinished tasks are failed by another replica once their leases expire |
//!
//! Tasks that are not finished are never deleted; `--retain-tasks` and
//! `--retain-for` combine (whichever deletes first), see
//! [`a2a_core::Retention`]. A server restarted on the same SQLite file or
//! PostgreSQL database serves the tasks it had (`tasks/get`).
//!
//! With a PostgreSQL store every server on the same database is one replica
//! of a cluster ([`ServeConfig::cluster`], `a2a_store_sql::PgCluster`):
//! any replica serves any operation on any task (`tasks/get`,
//! `tasks/resubscribe` with the live events of an execution running
//! elsewhere, `tasks/cancel`, follow-up messages), and the unfinished tasks
//! of a replica that died are failed once its leases expire. `--replica-id`
//! and `--lease-ttl` tune it; with a memory or SQLite store (one process
//! only) they are refused at startup ([`ServeError::Config`], exit status 2).
//! `docs/operations.md` describes both deployments.
//!
//! The library's [`ServeConfig::new`] has the same defaults, except the
//! store: in memory (set [`ServeConfig::store`], e.g. to
//! [`StoreSpec::default_sqlite`]);
//! [`ServeConfig::ephemeral`] puts every listener on `127.0.0.1:0`, and a
//! `None` [`ServeConfig::grpc_addr`] / [`ServeConfig::rest_addr`] is
//! `--no-grpc` / `--no-rest` (handy when embedding the server beside other
//! services).
//!
//! ## The card and the `listening` lines
//!
//! On start it prints one line per listener on stdout, in this order, and
//! flushes:
//!
//! ```text
//! listening jsonrpc http://HOST:PORT/
//! listening grpc http://HOST:PORT
//! listening http+json http://HOST:PORT/
//! replica ID
//! ```
//!
//! (the `replica` line only with a PostgreSQL store; `HOST` is `--public-url-host` or the bound IP, IPv6 in brackets; `PORT`
//! the real port when 0 was asked for.) Scripts wait for these lines; the
//! listeners are bound before they are printed and accept connections from
//! then on. The agent card (`/.well-known/agent-card.json` on the JSON-RPC
//! and REST listeners, `GetAgentCard` over gRPC) says:
//!
//! | card field | value |
//! |---|---|
//! | `preferredTransport`, `url` | `JSONRPC`, `http://HOST:PORT/` (the JSON-RPC endpoint is the root) |
//! | `additionalInterfaces` | every served binding, in the order above: `JSONRPC` (the same URL), `GRPC` (`HOST:PORT`, or `http://HOST:PORT` with `--grpc-url-style http`), `HTTP+JSON` (the base `http://HOST:PORT`, to which clients append `/v1/…`) |
//!
//! Every URL of the card answers with the matching client transport: ours
//! (`a2a_client::{jsonrpc::JsonRpcTransport, grpc::GrpcTransport,
//! rest::RestTransport}`) and the official Python SDK's (its REST client,
//! like ours, drops a trailing `/` and appends `/v1/…`).
//!
//! Logs go to stderr (`RUST_LOG`, default `info`). SIGINT and SIGTERM stop
//! it gracefully: every listener stops accepting, open requests and streams
//! get up to [`DEFAULT_SHUTDOWN_TIMEOUT`] to finish.
//!
//! The client commands (`a2a card|send|get|cancel|resubscribe URL …`) are
//! described in [`cli`].
//!
//! # Adding a listener
//!
//! A binding is one more slot in [`Listeners`] (bound by [`Listeners::bind`]
//! from a new [`ServeConfig`] field, set by a `with_…` method), one more
//! [`Endpoint`] in [`Listeners::endpoints`] (so the card's
//! `additionalInterfaces` and the `listening` lines name it), and one more
//! server spawned in [`Server::run`] on its `JoinSet` under the same stop
//! token (so graceful shutdown and its timeout cover it). gRPC and REST are
//! done this way.

pub mod agents;
mod card;
pub mod cli;
mod config;
mod push;
mod server;

pub use agents::{Agent, AgentDescription, AgentKind};
pub use card::{Endpoint, GrpcUrlStyle, Protocol, build_card};
pub use config::{
    ClusterConfig, DEFAULT_DATA_DIR, DEFAULT_DB_FILE, DEFAULT_GRPC_ADDR, DEFAULT_JSONRPC_ADDR,
    DEFAULT_REST_ADDR, DEFAULT_SHUTDOWN_TIMEOUT, MIN_LEASE_TTL, ServeConfig, ServeError, StoreSpec,
    Stores, default_replica_id,
};
pub use push::{DEFAULT_PUSH_TIMEOUT, HttpPushSender, NOTIFICATION_TOKEN_HEADER};
pub use server::{Listeners, Server, run, shutdown_signal};
