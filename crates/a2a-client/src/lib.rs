//! The A2A client: one [`Client`] for every operation, over JSON-RPC, gRPC
//! or HTTP+JSON, chosen from the agent card.
//!
//! ```no_run
//! use a2a_client::Client;
//! use a2a_types::{Message, MessageSendParams, SendMessageResult};
//!
//! # async fn run() -> Result<(), a2a_client::ClientError> {
//! // Discover the card (`/.well-known/agent-card.json`, then the legacy
//! // `/.well-known/agent.json`) and pick a transport it declares.
//! let client = Client::connect("http://127.0.0.1:8080").await?;
//! let params = MessageSendParams::new(Message::user_text("m-1", "hello"));
//! match client.send_message(params).await? {
//!     SendMessageResult::Task(task) => println!("task {} is {}", task.id, task.status.state),
//!     SendMessageResult::Message(reply) => println!("{}", reply.text()),
//! }
//! # Ok(()) }
//! ```
//!
//! - [`Client`] / [`ClientBuilder`]: every operation (send, stream, get,
//!   cancel, resubscribe, push-config set/get/list/delete, extended card);
//!   transport selection per spec §5.6.3 ([`select_interfaces`]) with
//!   fallback to the next declared transport when one is unreachable.
//! - [`card::CardResolver`]: card discovery (well-known path, legacy path,
//!   custom path).
//! - [`interceptor`]: headers and metadata for every call on every
//!   transport alike (credentials, `X-A2A-Extensions`, trace context).
//! - [`fold_task`], [`fold_stream`], [`TaskAccumulator`]: a stream of events
//!   folded into the task it describes.
//! - [`Transport`]: the client-side mirror of the server's
//!   `RequestHandler`, one implementation per wire binding, usable alone.
//!
//! Errors are [`ClientError`]; [`ClientError::A2a`] carries the same
//! [`a2a_types::A2aError`] whatever the transport.
//!
//! | feature | what | default |
//! |---|---|---|
//! | `jsonrpc` | [`jsonrpc::JsonRpcTransport`]: JSON-RPC 2.0 over HTTP, SSE streams | yes |
//! | `rest` | `rest::RestTransport`: HTTP+JSON (REST), protobuf JSON over HTTP, SSE streams | no |
//! | `grpc` | `grpc::GrpcTransport`: gRPC (tonic), server-streaming calls for streams | no |
//!
//! A [`Client`] uses the transports compiled in ([`compiled_transports`]).

pub mod card;
mod client;
mod fold;
pub mod interceptor;
mod transport;
mod util;

#[cfg(feature = "grpc")]
pub mod grpc;
#[cfg(feature = "jsonrpc")]
pub mod jsonrpc;
#[cfg(feature = "rest")]
pub mod rest;

pub use client::{
    Client, ClientBuilder, DEFAULT_CONNECT_TIMEOUT, compiled_transports, select_interfaces,
};
pub use fold::{TaskAccumulator, fold_stream, fold_task};
pub use transport::{ClientError, EventStream, Transport};
