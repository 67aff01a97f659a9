//! The A2A v0.3.0 **JSON-RPC 2.0 binding** as an [axum] [`Router`]: any
//! [`RequestHandler`] served over HTTP, with SSE streams and the agent-card
//! routes.
//!
//! The router only decodes, calls the handler and encodes; every protocol
//! rule lives in the handler (usually `a2a_core::DefaultRequestHandler`).
//!
//! ```
//! use std::sync::Arc;
//!
//! use a2a_core::{AgentExecutor, DefaultRequestHandler, EventSink, RequestContext};
//! use a2a_types::{A2aError, AgentCard, Part};
//!
//! struct Echo;
//!
//! #[async_trait::async_trait]
//! impl AgentExecutor for Echo {
//!     async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
//!         let task = ctx.updater(events);
//!         task.add_artifact(vec![Part::text(ctx.user_text())], "echo", Some("echo"), false, true).await?;
//!         task.complete(None).await
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//!     let url = format!("http://{}/", listener.local_addr()?);
//!     let card: AgentCard = serde_json::from_value(serde_json::json!({
//!         "protocolVersion": "0.3.0", "name": "echo", "description": "Echoes the user's text",
//!         "url": url, "preferredTransport": "JSONRPC", "version": "1.0.0",
//!         "capabilities": {"streaming": true},
//!         "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
//!         "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["echo"]}]
//!     }))?;
//!     let handler = DefaultRequestHandler::builder(card, Echo).build();
//!     let app = a2a_jsonrpc::router(Arc::new(handler));
//!     println!("serving {url}");
//!     axum::serve(listener, app)
//! #       .with_graceful_shutdown(async {}) // the doctest stops at once
//!         .await?;
//!     Ok(())
//! }
//! ```
//!
//! # Routes
//!
//! | route | answer |
//! |---|---|
//! | `POST {path}` (default `/`, see [`JsonRpcConfig`]) | one JSON-RPC request → `application/json` response, or `text/event-stream` for the streaming methods |
//! | `GET /.well-known/agent-card.json` | [`RequestHandler::agent_card`] in the JSON-schema shape |
//! | `GET /.well-known/agent.json` | the same card (legacy path, A2A ≤ 0.2) |
//!
//! # Methods
//!
//! | JSON-RPC method | params | result | gRPC | REST |
//! |---|---|---|---|---|
//! | `message/send` | `MessageSendParams` | `Task` or `Message` | `SendMessage` | `POST /v1/message:send` |
//! | `message/stream` | `MessageSendParams` | SSE: `Task`/`Message`, then `status-update`/`artifact-update` events | `SendStreamingMessage` | `POST /v1/message:stream` |
//! | `tasks/get` | `TaskQueryParams` `{id, historyLength?}` | `Task` | `GetTask` | `GET /v1/tasks/{id}` |
//! | `tasks/cancel` | `TaskIdParams` `{id}` | `Task` | `CancelTask` | `POST /v1/tasks/{id}:cancel` |
//! | `tasks/resubscribe` | `TaskIdParams` `{id}` | SSE: the task snapshot, then live events | `TaskSubscription` | `GET /v1/tasks/{id}:subscribe` |
//! | `tasks/pushNotificationConfig/set` | `TaskPushNotificationConfig` `{taskId, pushNotificationConfig}` | `TaskPushNotificationConfig` | `CreateTaskPushNotificationConfig` | `POST /v1/tasks/{id}/pushNotificationConfigs` |
//! | `tasks/pushNotificationConfig/get` | `{id}` or `{id, pushNotificationConfigId}` | `TaskPushNotificationConfig` | `GetTaskPushNotificationConfig` | `GET /v1/tasks/{id}/pushNotificationConfigs/{configId}` |
//! | `tasks/pushNotificationConfig/list` | `{id}` | array of `TaskPushNotificationConfig` | `ListTaskPushNotificationConfig` | `GET /v1/tasks/{id}/pushNotificationConfigs` |
//! | `tasks/pushNotificationConfig/delete` | `{id, pushNotificationConfigId}` | `null` | `DeleteTaskPushNotificationConfig` | `DELETE /v1/tasks/{id}/pushNotificationConfigs/{configId}` |
//! | `agent/getAuthenticatedExtendedCard` | none (ignored) | `AgentCard` | `GetAgentCard` | `GET /v1/card` |
//!
//! # Requests
//!
//! Every answer to `POST {path}` has HTTP status **200**; failures are
//! JSON-RPC error objects. Checks, in order:
//!
//! 1. `Content-Type`: `application/json` (any parameters, e.g. `charset`),
//!    any `application/*+json`, or none at all is accepted; anything else
//!    (`text/plain`, forms) is -32600, which also keeps browsers from posting
//!    cross-site requests without a CORS preflight.
//! 2. Body size: more than [`JsonRpcConfig::body_limit`] bytes is -32600
//!    `"Payload too large"` (id `null`).
//! 3. JSON: invalid JSON is -32700 (id `null`).
//! 4. Envelope: not an object (a batch array included), an `id` that is not a
//!    string, an integer or `null` (id `null`), `jsonrpc` not `"2.0"`, or a
//!    `method` that is not a string: -32600, echoing the id when it is valid.
//!    A request without `id` is answered with `"id": null`.
//! 5. Method: an unknown name is -32601.
//! 6. Params: params that do not decode (missing `messageId` or `role`,
//!    wrong types, `params` absent) are -32602, with a message naming the
//!    member at fault, e.g. `params.message: missing field `messageId``.
//!
//! The handler then applies the protocol rules (empty `parts`, negative
//! `historyLength`, unknown tasks…) and its errors are encoded with the table
//! below. Request headers are copied into [`CallContext::headers`]
//! (lower-case names) and `X-A2A-Extensions` (comma-separated, repeatable)
//! into [`CallContext::requested_extensions`].
//!
//! # Streams
//!
//! `message/stream` and `tasks/resubscribe` always answer `200` with
//! `Content-Type: text/event-stream`, `Cache-Control: no-store` and
//! `X-Accel-Buffering: no` — errors included, because SSE clients such as
//! the Python SDK's `httpx-sse` reject any other content type. Each event is
//! a single `data:` line holding one compact JSON-RPC response
//! `{"jsonrpc":"2.0","id":…,"result":…}` (no `event:` or `id:` fields). An
//! error — before the first event (bad params, task not found, streaming not
//! supported) or after it — is one `data:` event holding a JSON-RPC error
//! response, after which the stream ends. While no event is due, a
//! `: keep-alive` comment is sent every [`JsonRpcConfig::keep_alive`]. A
//! client that disconnects only drops its subscription; the task runs on.
//!
//! # Errors
//!
//! [`error_object`] is the one mapping from [`A2aError`] to a JSON-RPC error
//! object. It is the identity on codes; `message` is the error's own message
//! (the default below when empty) and `data` is passed through.
//!
//! | `A2aError` | code | schema name | default message |
//! |---|---|---|---|
//! | `JsonParse` | -32700 | `JSONParseError` | Invalid JSON payload |
//! | `InvalidRequest` | -32600 | `InvalidRequestError` | Request payload validation error |
//! | `MethodNotFound` | -32601 | `MethodNotFoundError` | Method not found |
//! | `InvalidParams` | -32602 | `InvalidParamsError` | Invalid parameters |
//! | `Internal` | -32603 | `InternalError` | Internal error |
//! | `TaskNotFound` | -32001 | `TaskNotFoundError` | Task not found |
//! | `TaskNotCancelable` | -32002 | `TaskNotCancelableError` | Task cannot be canceled |
//! | `PushNotificationNotSupported` | -32003 | `PushNotificationNotSupportedError` | Push Notification is not supported |
//! | `UnsupportedOperation` | -32004 | `UnsupportedOperationError` | This operation is not supported |
//! | `ContentTypeNotSupported` | -32005 | `ContentTypeNotSupportedError` | Incompatible content types |
//! | `InvalidAgentResponse` | -32006 | `InvalidAgentResponseError` | Invalid agent response |
//! | `AuthenticatedExtendedCardNotConfigured` | -32007 | `AuthenticatedExtendedCardNotConfiguredError` | Authenticated Extended Card is not configured |
//! | `Other { code }` | `code` | `JSONRPCError` | — |
//!
//! [`Router`]: axum::Router
//! [`RequestHandler`]: a2a_core::RequestHandler
//! [`RequestHandler::agent_card`]: a2a_core::RequestHandler::agent_card
//! [`CallContext::headers`]: a2a_core::CallContext::headers
//! [`CallContext::requested_extensions`]: a2a_core::CallContext::requested_extensions
//! [`A2aError`]: a2a_types::A2aError

mod encode;
mod envelope;
mod server;

pub use encode::error_object;
pub use server::{
    AGENT_CARD_PATH, EXTENSIONS_HEADER, JsonRpcConfig, LEGACY_AGENT_CARD_PATH, router, router_with,
};
