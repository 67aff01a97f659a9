//! The A2A v0.3.0 **gRPC binding** as a [tonic] service: any
//! [`RequestHandler`] served as `a2a.v1.A2AService`, plus the standard gRPC
//! health and server-reflection services so `grpcurl` works without the
//! proto file.
//!
//! The service only decodes (with [`a2a_pb::convert`]), calls the handler
//! and encodes; every protocol rule lives in the handler (usually
//! `a2a_core::DefaultRequestHandler`).
//!
//! ```
//! use std::sync::Arc;
//!
//! use a2a_core::{AgentExecutor, DefaultRequestHandler, EventSink, RequestContext};
//! use a2a_pb::v1::a2a_service_client::A2aServiceClient;
//! use a2a_pb::v1::{Message, Part, Role, SendMessageRequest, TaskState, part, send_message_response};
//! use a2a_types::{A2aError, AgentCard};
//!
//! struct Echo;
//!
//! #[async_trait::async_trait]
//! impl AgentExecutor for Echo {
//!     async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
//!         let task = ctx.updater(events);
//!         task.add_artifact(vec![a2a_types::Part::text(ctx.user_text())], "echo", Some("echo"), false, true).await?;
//!         task.complete(None).await
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // Bind first: the card can name the real port.
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//!     let addr = listener.local_addr()?;
//!     let card: AgentCard = serde_json::from_value(serde_json::json!({
//!         "protocolVersion": "0.3.0", "name": "echo", "description": "Echoes the user's text",
//!         // Bare host:port: what gRPC clients (the Python SDK's included) dial.
//!         "url": addr.to_string(), "preferredTransport": "GRPC", "version": "1.0.0",
//!         "capabilities": {"streaming": true},
//!         "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
//!         "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["echo"]}]
//!     }))?;
//!     let handler = Arc::new(DefaultRequestHandler::builder(card, Echo).build());
//!
//!     // A2AService + health + reflection, until `stop` fires.
//!     let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//!     let server = tokio::spawn(a2a_grpc::serve(listener, handler, async {
//!         let _ = stopped.await;
//!     }));
//!
//!     // Any gRPC client can call it; here the generated tonic client.
//!     let mut client = A2aServiceClient::connect(format!("http://{addr}")).await?;
//!     let request = SendMessageRequest {
//!         request: Some(Message {
//!             message_id: "m-1".to_owned(),
//!             role: Role::User.into(),
//!             content: vec![Part { part: Some(part::Part::Text("hi".to_owned())), metadata: None }],
//!             ..Default::default()
//!         }),
//!         ..Default::default()
//!     };
//!     let reply = client.send_message(request).await?.into_inner();
//!     let Some(send_message_response::Payload::Task(task)) = reply.payload else {
//!         panic!("expected a task: {reply:?}")
//!     };
//!     assert_eq!(task.status.unwrap_or_default().state(), TaskState::Completed);
//!
//!     drop(client);
//!     let _ = stop.send(()); // graceful shutdown: in-flight calls finish first
//!     server.await??;
//!     Ok(())
//! }
//! ```
//!
//! # Serving
//!
//! - [`serve`]: the whole server on a listener you bound — `A2AService`,
//!   `grpc.health.v1.Health` (with `a2a.v1.A2AService` and `""` reported
//!   `SERVING`, `NOT_SERVING` once shutdown starts) and server reflection
//!   (`grpc.reflection.v1` and `v1alpha`), with graceful shutdown. This is
//!   what the `a2a` binary runs.
//! - [`service`]: only the `A2AService`, a tonic `NamedService` to mount
//!   beside your own services on one `tonic::transport::Server` (see
//!   `examples/mount_beside_own_service.rs`), with [`health_service`] and
//!   [`reflection_service`] / [`reflection_service_v1alpha`] if you want them:
//!
//! ```no_run
//! # async fn run(handler: std::sync::Arc<dyn a2a_core::RequestHandler>) -> Result<(), Box<dyn std::error::Error>> {
//! let (_health_reporter, health) = a2a_grpc::health_service().await;
//! tonic::transport::Server::builder()
//!     .add_service(a2a_grpc::service(handler))
//!     .add_service(health)
//!     .add_service(a2a_grpc::reflection_service())
//!     .add_service(a2a_grpc::reflection_service_v1alpha())
//!     // .add_service(your_own_service)
//!     .serve("127.0.0.1:50051".parse()?)
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! With reflection, `grpcurl` needs no `.proto`:
//!
//! ```text
//! grpcurl -plaintext 127.0.0.1:50051 list
//! grpcurl -plaintext 127.0.0.1:50051 describe a2a.v1.A2AService
//! grpcurl -plaintext -d '{"message":{"messageId":"m-1","role":"ROLE_USER","content":[{"text":"hi"}]}}' \
//!     127.0.0.1:50051 a2a.v1.A2AService/SendMessage
//! grpcurl -plaintext -d '{"service":"a2a.v1.A2AService"}' 127.0.0.1:50051 grpc.health.v1.Health/Check
//! ```
//!
//! # RPCs
//!
//! Every call of `a2a.v1.A2AService` maps to one [`RequestHandler`] method,
//! which is also what the other bindings call:
//!
//! | gRPC RPC | request → response | `RequestHandler` | JSON-RPC | REST |
//! |---|---|---|---|---|
//! | `SendMessage` | `SendMessageRequest` → `SendMessageResponse` (`task` or `msg`) | `send_message` | `message/send` | `POST /v1/message:send` |
//! | `SendStreamingMessage` | `SendMessageRequest` → stream of `StreamResponse` | `send_message_stream` | `message/stream` | `POST /v1/message:stream` |
//! | `GetTask` | `GetTaskRequest` → `Task` | `get_task` | `tasks/get` | `GET /v1/tasks/{id}` |
//! | `CancelTask` | `CancelTaskRequest` → `Task` | `cancel_task` | `tasks/cancel` | `POST /v1/tasks/{id}:cancel` |
//! | `TaskSubscription` | `TaskSubscriptionRequest` → stream of `StreamResponse` | `resubscribe_task` | `tasks/resubscribe` | `GET /v1/tasks/{id}:subscribe` |
//! | `CreateTaskPushNotificationConfig` | `CreateTaskPushNotificationConfigRequest` → `TaskPushNotificationConfig` | `set_push_config` | `tasks/pushNotificationConfig/set` | `POST /v1/tasks/{id}/pushNotificationConfigs` |
//! | `GetTaskPushNotificationConfig` | `GetTaskPushNotificationConfigRequest` → `TaskPushNotificationConfig` | `get_push_config` | `tasks/pushNotificationConfig/get` | `GET /v1/tasks/{id}/pushNotificationConfigs/{configId}` |
//! | `ListTaskPushNotificationConfig` | `ListTaskPushNotificationConfigRequest` → `ListTaskPushNotificationConfigResponse` | `list_push_configs` | `tasks/pushNotificationConfig/list` | `GET /v1/tasks/{id}/pushNotificationConfigs` |
//! | `DeleteTaskPushNotificationConfig` | `DeleteTaskPushNotificationConfigRequest` → `google.protobuf.Empty` | `delete_push_config` | `tasks/pushNotificationConfig/delete` | `DELETE /v1/tasks/{id}/pushNotificationConfigs/{configId}` |
//! | `GetAgentCard` | `GetAgentCardRequest` → `AgentCard` | `agent_card` (the **public** card) | (`/.well-known/agent-card.json`) | `GET /v1/card` |
//!
//! **`GetAgentCard` returns the public card** ([`RequestHandler::agent_card`]),
//! never calls `get_extended_agent_card`, and so never fails. The v0.3.0
//! proto documents it as "the agent card" and the Python SDK's gRPC server
//! returns its public card too; a gRPC client has no other way to read the
//! card, so failing with `AuthenticatedExtendedCardNotConfiguredError` for
//! an agent without an extended card would leave it with none. The
//! authenticated extended card stays available over JSON-RPC
//! (`agent/getAuthenticatedExtendedCard`) and REST (`GET /v1/card`).
//!
//! # Requests
//!
//! Messages are converted with [`a2a_pb::convert`] (`TryFrom`); anything it
//! rejects — a malformed resource name (`task/x`, `tasks/`, `tasks/a/b`, an
//! empty name), a missing `message`, `config` or `push_notification_config`,
//! `ROLE_UNSPECIFIED` — is `INVALID_ARGUMENT` (`InvalidParamsError`,
//! -32602), never a panic. The handler then applies the protocol rules
//! (empty `content`, negative `history_length`, unknown tasks…). Two proto3
//! facts, decided in `a2a-pb`:
//!
//! - **`blocking`**: a request **without** `configuration` blocks (the
//!   JSON-RPC default); a present `configuration` is read as proto3 reads
//!   it, so an unset `blocking` there means **non-blocking** (as the Python
//!   SDK's gRPC server does). The Python SDK's client always sends
//!   `blocking` explicitly (`true` unless polling).
//! - **`history_length = 0`** means no limit (the SDK's gRPC client always
//!   sends the field, 0 when unset).
//!
//! Request metadata fills [`CallContext`]: every ASCII entry goes into
//! [`CallContext::headers`] (lower-case keys, repeated keys joined with
//! `", "`, binary `-bin` entries skipped), and `x-a2a-extensions`
//! (comma-separated, repeatable) into
//! [`CallContext::requested_extensions`].
//!
//! # Streams
//!
//! `SendStreamingMessage` and `TaskSubscription` send each event of the
//! handler's stream as a `StreamResponse` (`task`, `msg`, `status_update`,
//! `artifact_update`): the `Task` (or the single `Message`) first, then
//! updates, ending after a final state; `TaskSubscription` starts with the
//! task's current snapshot. An error before the first event is the call's
//! status; an error after it ends the stream with that status. A client that
//! goes away (or cancels the call) only drops its subscription: the agent
//! keeps executing, and `GetTask`/`TaskSubscription` see the outcome.
//!
//! # Errors
//!
//! Every failure is an [`A2aError`] encoded by [`a2a_pb::grpc_status::to_status`],
//! the one table shared with the gRPC client
//! ([`a2a_pb::grpc_status::STATUS_TABLE`]): the status code below, the
//! message `"<ErrorName>: <message>"` (e.g. `"TaskNotFoundError: Task not
//! found: t-1"`, the Python SDK's format), and metadata `a2a-error-code`
//! (the JSON-RPC code), `a2a-error-name` and, when the error has data,
//! `a2a-error-data-bin` (its JSON), from which a client recovers the exact
//! error.
//!
//! | `A2aError` | JSON-RPC code | gRPC status |
//! |---|---|---|
//! | `TaskNotFoundError` | -32001 | `NOT_FOUND` |
//! | `InvalidParamsError` | -32602 | `INVALID_ARGUMENT` |
//! | `InvalidRequestError` | -32600 | `INVALID_ARGUMENT` |
//! | `ContentTypeNotSupportedError` | -32005 | `INVALID_ARGUMENT` |
//! | `TaskNotCancelableError` | -32002 | `FAILED_PRECONDITION` |
//! | `AuthenticatedExtendedCardNotConfiguredError` | -32007 | `FAILED_PRECONDITION` |
//! | `UnsupportedOperationError` | -32004 | `UNIMPLEMENTED` |
//! | `PushNotificationNotSupportedError` | -32003 | `UNIMPLEMENTED` |
//! | `MethodNotFoundError` | -32601 | `UNIMPLEMENTED` |
//! | `InternalError` | -32603 | `INTERNAL` |
//! | `InvalidAgentResponseError` | -32006 | `INTERNAL` |
//! | `JSONParseError` | -32700 | `INTERNAL` |
//! | any other code | that code | `UNKNOWN` |
//!
//! # Features
//!
//! | feature | what | default |
//! |---|---|---|
//! | `health` | [`health_service`] (tonic-health), served by [`serve`] | yes |
//! | `reflection` | [`reflection_service`], [`reflection_service_v1alpha`] (tonic-reflection) over [`a2a_pb::FILE_DESCRIPTOR_SET`], served by [`serve`] | yes |
//!
//! Without them [`serve`] serves the `A2AService` alone. TLS is not built
//! in: terminate it in front, or mount [`service`] on a
//! `tonic::transport::Server` configured with tonic's own TLS features.
//!
//! [`RequestHandler`]: a2a_core::RequestHandler
//! [`RequestHandler::agent_card`]: a2a_core::RequestHandler::agent_card
//! [`CallContext`]: a2a_core::CallContext
//! [`CallContext::headers`]: a2a_core::CallContext::headers
//! [`CallContext::requested_extensions`]: a2a_core::CallContext::requested_extensions
//! [`A2aError`]: a2a_types::A2aError

mod service;

use std::future::Future;
use std::sync::Arc;

use a2a_core::RequestHandler;
pub use a2a_pb::v1::SERVICE_NAME;
pub use service::{EXTENSIONS_METADATA, GrpcEventStream, GrpcService, service};
use tonic::transport::server::TcpIncoming;

/// Serves the A2A gRPC server on an already bound `listener` until
/// `shutdown` completes: `a2a.v1.A2AService` for `handler`, plus (with the
/// default features) `grpc.health.v1.Health` and server reflection.
///
/// Bind first (port 0 in tests), so the agent card can carry the real
/// address. Accepted connections get `TCP_NODELAY` (streams of small
/// events are not held back by Nagle's algorithm).
///
/// When `shutdown` completes, the health status of `a2a.v1.A2AService`
/// turns `NOT_SERVING`, the listener is closed, and the server waits for
/// the in-flight calls to finish (open streams included: a subscription to
/// a long task holds the shutdown until the task reaches a final state, so
/// bound the wait with a timeout if that matters).
///
/// # Errors
///
/// The transport error that stopped the server.
pub async fn serve(
    listener: tokio::net::TcpListener,
    handler: Arc<dyn RequestHandler>,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    let router = tonic::transport::Server::builder().add_service(service(handler));

    #[cfg(feature = "reflection")]
    let router = router
        .add_service(reflection_service())
        .add_service(reflection_service_v1alpha());

    #[cfg(feature = "health")]
    let (router, shutdown) = {
        let (reporter, health) = health_service().await;
        let shutdown = async move {
            shutdown.await;
            reporter
                .set_service_status(SERVICE_NAME, tonic_health::ServingStatus::NotServing)
                .await;
        };
        (router.add_service(health), shutdown)
    };

    router
        .serve_with_incoming_shutdown(incoming, shutdown)
        .await
}

/// The standard gRPC health service (`grpc.health.v1.Health`), with the
/// server (`""`) and `a2a.v1.A2AService` reported `SERVING`, and its
/// reporter to change that (e.g. `set_not_serving` while draining, or to
/// report your own services).
#[cfg(feature = "health")]
pub async fn health_service() -> (
    tonic_health::server::HealthReporter,
    tonic_health::pb::health_server::HealthServer<tonic_health::server::HealthService>,
) {
    let reporter = tonic_health::server::HealthReporter::new();
    reporter
        .set_service_status(SERVICE_NAME, tonic_health::ServingStatus::Serving)
        .await;
    let service = tonic_health::server::HealthService::from_health_reporter(reporter.clone());
    (
        reporter,
        tonic_health::pb::health_server::HealthServer::new(service),
    )
}

/// gRPC server reflection, `grpc.reflection.v1`, describing
/// `a2a.v1.A2AService` (from [`a2a_pb::FILE_DESCRIPTOR_SET`]), the reflection
/// service itself and, with the `health` feature, `grpc.health.v1.Health`.
///
/// # Panics
///
/// Never in practice: only if the embedded descriptor sets did not decode,
/// which the tests of this crate and of `a2a-pb` rule out.
#[cfg(feature = "reflection")]
#[must_use]
pub fn reflection_service() -> tonic_reflection::server::v1::ServerReflectionServer<
    impl tonic_reflection::server::v1::ServerReflection,
> {
    reflection_builder()
        .build_v1()
        .expect("the embedded descriptor sets are valid")
}

/// The same as [`reflection_service`], as the older `grpc.reflection.v1alpha`
/// service (still the only one some tools ask for).
///
/// # Panics
///
/// As [`reflection_service`].
#[cfg(feature = "reflection")]
#[must_use]
pub fn reflection_service_v1alpha() -> tonic_reflection::server::v1alpha::ServerReflectionServer<
    impl tonic_reflection::server::v1alpha::ServerReflection,
> {
    reflection_builder()
        .build_v1alpha()
        .expect("the embedded descriptor sets are valid")
}

#[cfg(feature = "reflection")]
fn reflection_builder() -> tonic_reflection::server::Builder<'static> {
    let builder = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(a2a_pb::FILE_DESCRIPTOR_SET);
    #[cfg(feature = "health")]
    let builder =
        builder.register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET);
    builder
}

#[cfg(test)]
mod tests {
    use a2a_pb::grpc_status::STATUS_TABLE;
    use tonic::Code;

    fn code_name(code: Code) -> &'static str {
        match code {
            Code::NotFound => "NOT_FOUND",
            Code::InvalidArgument => "INVALID_ARGUMENT",
            Code::FailedPrecondition => "FAILED_PRECONDITION",
            Code::Unimplemented => "UNIMPLEMENTED",
            Code::Internal => "INTERNAL",
            other => panic!("add {other:?} to the crate docs"),
        }
    }

    /// The error table in the crate docs is `STATUS_TABLE`, row by row.
    #[test]
    fn documented_error_table_is_the_status_table() {
        let docs = include_str!("lib.rs");
        let documented: Vec<&str> = docs
            .lines()
            .filter_map(|l| l.strip_prefix("//! | `"))
            .filter(|l| l.contains("Error` | -32"))
            .collect();
        let expected: Vec<String> = STATUS_TABLE
            .iter()
            .map(|r| {
                format!(
                    "{}` | {} | `{}` |",
                    r.name,
                    r.json_rpc_code,
                    code_name(r.grpc_code)
                )
            })
            .collect();
        assert_eq!(documented, expected);
    }

    #[cfg(feature = "reflection")]
    #[test]
    fn reflection_services_build() {
        let _ = super::reflection_service();
        let _ = super::reflection_service_v1alpha();
    }
}
