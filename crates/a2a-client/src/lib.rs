//! The A2A client.
//!
//! Every wire binding implements [`Transport`], the client-side mirror of the
//! server's `RequestHandler`; errors are [`ClientError`], whose
//! [`ClientError::A2a`] carries the same [`a2a_types::A2aError`] whatever the
//! transport.
//!
//! | feature | what | default |
//! |---|---|---|
//! | `jsonrpc` | [`jsonrpc::JsonRpcTransport`]: JSON-RPC 2.0 over HTTP, SSE streams | yes |
//! | `rest` | `rest::RestTransport`: HTTP+JSON (REST), protobuf JSON over HTTP, SSE streams | no |
//! | `grpc` | `grpc::GrpcTransport`: gRPC (tonic), server-streaming calls for streams | no |

mod transport;

#[cfg(feature = "grpc")]
pub mod grpc;
#[cfg(feature = "jsonrpc")]
pub mod jsonrpc;
#[cfg(feature = "rest")]
pub mod rest;

pub use transport::{ClientError, EventStream, Transport};
