//! The A2A composition root: configuration, listeners, and the server loop
//! [`run`]`(config, listeners, shutdown)`; plus the `a2a` binary (`a2a serve`
//! and JSON-RPC client commands).
//!
//! Write an agent with [`AgentExecutor`](a2a_core::AgentExecutor), bind the
//! listeners (port 0 picks a free port), and serve it:
//!
//! ```
//! use a2a_core::{AgentExecutor, EventSink, RequestContext};
//! use a2a_server::{Agent, AgentDescription, Listeners, ServeConfig};
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
//! let mut config = ServeConfig::new(Agent::new(description, Upper));
//! config.jsonrpc_addr = "127.0.0.1:0".into();
//! let listeners = Listeners::bind(&config).await?;
//! // A real program passes `a2a_server::shutdown_signal()` (Ctrl-C, SIGTERM).
//! a2a_server::run(config, listeners, async {}).await?;
//! # Ok(()) }
//! ```
//!
//! # `a2a serve`
//!
//! | flag | default | what |
//! |---|---|---|
//! | `--agent demo\|conformance` | `demo` | the agent: [`agents::demo`] or [`agents::conformance`] |
//! | `--jsonrpc-addr HOST:PORT` | `127.0.0.1:8080` | where the JSON-RPC listener binds; port 0 picks a free port |
//! | `--public-url-host HOST` | the bound IP | the host written into the card's URLs |
//! | `--store memory` | `memory` | where tasks live; `sqlite:PATH` and `postgres://…` are recognised and refused (not available yet) |
//!
//! On start it prints one line per listener on stdout, exactly
//! `listening jsonrpc http://HOST:PORT/` (the URL the card declares), and
//! flushes. Logs go to stderr (`RUST_LOG`, default `info`). SIGINT and
//! SIGTERM stop it gracefully: no new connections, open requests get up to
//! [`DEFAULT_SHUTDOWN_TIMEOUT`] to finish.
//!
//! The client commands (`a2a card|send|get|cancel|resubscribe URL …`) are
//! described in [`cli`].
//!
//! # Adding a listener
//!
//! A binding (gRPC, REST) is one more slot in [`Listeners`] (bound by
//! [`Listeners::bind`] from a new [`ServeConfig`] field), one more
//! [`Endpoint`] in [`Listeners::endpoints`] (so the card's
//! `additionalInterfaces` and the `listening` lines name it), and one more
//! server spawned in [`Server::run`] under the same shutdown token.

pub mod agents;
mod card;
pub mod cli;
mod config;
mod push;
mod server;

pub use agents::{Agent, AgentDescription, AgentKind};
pub use card::{Endpoint, Protocol, build_card};
pub use config::{
    DEFAULT_JSONRPC_ADDR, DEFAULT_SHUTDOWN_TIMEOUT, ServeConfig, ServeError, StoreSpec, Stores,
};
pub use push::{DEFAULT_PUSH_TIMEOUT, HttpPushSender, NOTIFICATION_TOKEN_HEADER};
pub use server::{Listeners, Server, run, shutdown_signal};
