//! The A2A v0.3.0 **HTTP+JSON (REST) binding** as an [axum] [`Router`]: any
//! [`RequestHandler`] served on the routes of the proto's `google.api.http`
//! rules, with protobuf-JSON bodies and SSE streams.
//!
//! Every handler only decodes the request, converts it with
//! [`a2a_pb::convert`], calls the [`RequestHandler`], converts the answer
//! back and encodes it; every protocol rule lives in the handler (usually
//! `a2a_core::DefaultRequestHandler`). On the hot path the conversions are
//! skipped, with the same bytes: the common `SendMessageRequest` body is
//! read straight into the params, and `Task`, `SendMessageResponse` and
//! `StreamResponse` answers are written as protobuf JSON straight from the
//! a2a-types values (tests hold both to the pbjson path).
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
//!     // Bind first: the card can then name the real port.
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//!     let url = format!("http://{}", listener.local_addr()?);
//!     let card: AgentCard = serde_json::from_value(serde_json::json!({
//!         "protocolVersion": "0.3.0", "name": "echo", "description": "Echoes the user's text",
//!         "url": url, "preferredTransport": "HTTP+JSON", "version": "1.0.0",
//!         "capabilities": {"streaming": true},
//!         "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
//!         "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["echo"]}]
//!     }))?;
//!     let handler = DefaultRequestHandler::builder(card, Echo).build();
//!     let app = a2a_http_json::router(Arc::new(handler));
//!     // Stops accepting when the signal fires, then lets open requests (and
//!     // streams) finish.
//!     let shutdown = async { let _ = tokio::signal::ctrl_c().await; };
//! #   let shutdown = async {}; // the doctest stops at once
//!     println!("listening http+json {url}");
//!     axum::serve(listener, app).with_graceful_shutdown(shutdown).await?;
//!     Ok(())
//! }
//! ```
//!
//! Serve the router **on a listener of its own** (it has a fallback route and
//! serves the well-known card paths, like the JSON-RPC router); clients
//! append `/v1/…` to the base URL, which is the `url` of the card's
//! `HTTP+JSON` interface.
//!
//! # Routes
//!
//! | route | request | answer | gRPC |
//! |---|---|---|---|
//! | `POST /v1/message:send` | `SendMessageRequest` | `SendMessageResponse` `{"task":…}` or `{"message":…}` | `SendMessage` |
//! | `POST /v1/message:stream` | `SendMessageRequest` | SSE of `StreamResponse` | `SendStreamingMessage` |
//! | `GET /v1/tasks/{id}` | query `historyLength` or `history_length` (0 or absent: all) | `Task` | `GetTask` |
//! | `POST /v1/tasks/{id}:cancel` | any body, or none (not read) | `Task` | `CancelTask` |
//! | `GET` or `POST /v1/tasks/{id}:subscribe` | none (a body is not read) | SSE: the task snapshot, then live events | `TaskSubscription` |
//! | `POST /v1/tasks/{id}/pushNotificationConfigs` | the whole `CreateTaskPushNotificationConfigRequest`, or the bare `TaskPushNotificationConfig` (see below) | `TaskPushNotificationConfig` | `CreateTaskPushNotificationConfig` |
//! | `GET /v1/tasks/{id}/pushNotificationConfigs` | — | `ListTaskPushNotificationConfigResponse` `{"configs":[…]}` | `ListTaskPushNotificationConfig` |
//! | `GET /v1/tasks/{id}/pushNotificationConfigs/{configId}` | — | `TaskPushNotificationConfig` | `GetTaskPushNotificationConfig` |
//! | `DELETE /v1/tasks/{id}/pushNotificationConfigs/{configId}` | — | `{}` (`google.protobuf.Empty`) | `DeleteTaskPushNotificationConfig` |
//! | `GET /v1/card` | — | the extended card if the handler has one, else the public card (**JSON-schema shape**) | `GetAgentCard` |
//! | `GET /.well-known/agent-card.json` | — | [`RequestHandler::agent_card`] (JSON-schema shape) | — |
//! | `GET /.well-known/agent.json` | — | the same card (legacy path, A2A ≤ 0.2) | — |
//! | anything else | — | `MethodNotFoundError` (501) | — |
//!
//! `/v1/task/{id}/…` (the v0.3.0 proto's typo in the create-config rule,
//! fixed upstream) is served as an alias of `/v1/tasks/{id}/…`. Ids in paths
//! are percent-decoded segment by segment, after the `{id}:{verb}` split, so
//! an id containing `:` must be sent as `%3A`. axum 0.8 cannot route a
//! capture with a static suffix (`{id}:cancel`), so the router captures
//! `/v1/tasks/{*rest}` and one module (`path`) parses it.
//!
//! # Bodies
//!
//! Requests and answers are the **protobuf JSON** of the `a2a.v1` messages
//! ([`a2a_pb::v1`], serde by pbjson); the agent card is the exception
//! (below).
//!
//! Accepted:
//!
//! - `Content-Type: application/json` (any parameters), any
//!   `application/*+json`, or none; anything else is
//!   `ContentTypeNotSupportedError` (415). Bodies over
//!   [`RestConfig::body_limit`] are `InvalidRequestError` (400).
//! - camelCase and snake_case keys (`messageId` and `message_id`), enum names
//!   and numbers (`"ROLE_USER"` and `1`); unknown keys are ignored (`kind`,
//!   `metadata` on an old proto…).
//! - A file part with **both** oneof members (the TCK sends
//!   `{"file_with_uri":"","file_with_bytes":"…"}`): the non-empty one is
//!   kept, bytes when both are non-empty. The JSON is cleaned before pbjson
//!   reads it (pbjson refuses two members of a oneof).
//! - A data part: the canonical `{"data":{"data":{…}}}`; a `data` object that
//!   is not exactly `{"data":{…}}` is taken as the payload itself
//!   (`{"data":{"k":1}}` means the payload `{"k":1}`).
//! - Create config: an object with a `parent` or `config` key is the whole
//!   `CreateTaskPushNotificationConfigRequest` (what the Python SDK client
//!   and the TCK send); its `parent` must name the task of the path
//!   (`tasks/{id}`, `task/{id}`, optionally followed by
//!   `/pushNotificationConfigs`) or be empty. Otherwise the body is the bare
//!   `TaskPushNotificationConfig` (the proto's `body: "config"`), or even a
//!   bare `PushNotificationConfig` (`{"url":…}`). The task always comes from
//!   the path. A `configId` of `"None"` and a config `name` ending in
//!   `/None` (what the Python SDK client sends when no id is set) mean "no
//!   id": the server assigns one (the engine uses the task id). `GET
//!   …/pushNotificationConfigs/None` asks for the task's default config.
//! - **`blocking`**: a proto3 bool has no presence. A request **without
//!   `configuration`** uses the engine default, which is **blocking** (as
//!   JSON-RPC). A request **with** a `configuration` but no `blocking` key is
//!   **non-blocking**, because that is how the Python SDK client writes
//!   `blocking: false` (its `MessageToDict` omits default values; it always
//!   sets `blocking`, true unless polling). Both follow `a2a_pb::convert`.
//!
//! Emitted: canonical camelCase proto JSON with nothing else (the Python SDK
//! REST client parses strictly, so no `kind`), enum names, default values
//! omitted, `TaskStatus.timestamp` in UTC ending in `Z` (pbjson writes
//! `+00:00`; this binding rewrites it). A message reply to `message:send` is
//! `{"message":{…}}`.
//!
//! Failures before the handler is called: malformed JSON (or an empty body
//! where one is needed) is `JSONParseError` (400); JSON of the wrong shape
//! (`"content": "hi"`, an unknown enum name, a non-object body) is
//! `InvalidRequestError` (400) naming the member at fault; a body that
//! decodes but is invalid (a missing message, a bad resource name, role
//! unspecified) is `InvalidParamsError` (422).
//!
//! # The agent card
//!
//! `GET /v1/card` and the well-known paths serve the card in the **JSON
//! Schema shape** of [`a2a_types::AgentCard`] (`securitySchemes` tagged by
//! `type`, `additionalInterfaces`…), not as the protobuf `AgentCard`: that is
//! what the Python SDK serves there and what its REST client parses
//! (`AgentCard.model_validate`). `GET /v1/card` answers the public card when
//! no extended card is configured (`AuthenticatedExtendedCardNotConfigured`
//! is not an error on this route).
//!
//! # Streams
//!
//! `message:stream` and `:subscribe` answer `Content-Type:
//! text/event-stream` (with `Cache-Control: no-store` and
//! `X-Accel-Buffering: no`), **errors included**, because SSE clients such
//! as the Python SDK's `httpx-sse` reject any other content type. Each event
//! is one `data:` line holding one compact `StreamResponse`:
//! `{"task":…}`, `{"message":…}`, `{"statusUpdate":…}` or
//! `{"artifactUpdate":…}` (no `id:` fields). The stream starts with the task
//! (or the single message) and ends after a final event. While no event is
//! due, a `: keep-alive` comment is sent every [`RestConfig::keep_alive`].
//!
//! An error is one event named `error` whose data is the [`ErrorBody`],
//! after which the stream ends:
//!
//! ```text
//! event: error
//! data: {"error":"TaskNotFoundError","code":-32001,"message":"Task not found: t-9"}
//! ```
//!
//! An error before the first event (bad body, unknown task, streaming not
//! supported) also sets the HTTP status of the table below; an error after
//! the first event comes after a `200`. A client that disconnects only drops
//! its subscription; the task runs on.
//!
//! # Errors
//!
//! Every failure of a unary route is the HTTP status of [`http_status`] with
//! an [`ErrorBody`] (`application/json`):
//! `{"error":"TaskNotFoundError","code":-32001,"message":"…","data":…}`
//! (`data` only when present; `error` is what the A2A TCK reads). The table
//! is read in both directions: [`http_status`] maps an error to its status,
//! [`error_for_status`] maps a bare status back (the first row with that
//! status wins), for peers whose error body is not an [`ErrorBody`] (the
//! Python SDK answers `{"message":…}` only). With an [`ErrorBody`],
//! [`ErrorBody::into_error`] gives back the exact error.
//!
//! | `A2aError` | code | HTTP status | a bare status reads back as |
//! |---|---|---|---|
//! | `TaskNotFound` | -32001 | 404 Not Found | **404** → `TaskNotFound` |
//! | `AuthenticatedExtendedCardNotConfigured` | -32007 | 404 Not Found | |
//! | `InvalidRequest` | -32600 | 400 Bad Request | **400** → `InvalidRequest` |
//! | `JsonParse` | -32700 | 400 Bad Request | |
//! | `InvalidParams` | -32602 | 422 Unprocessable Entity (as the Python SDK) | **422** → `InvalidParams` |
//! | `TaskNotCancelable` | -32002 | 409 Conflict | **409** → `TaskNotCancelable` |
//! | `UnsupportedOperation` | -32004 | 501 Not Implemented | **501** → `UnsupportedOperation` |
//! | `PushNotificationNotSupported` | -32003 | 501 Not Implemented | |
//! | `MethodNotFound` | -32601 | 501 Not Implemented (also any unknown route) | |
//! | `ContentTypeNotSupported` | -32005 | 415 Unsupported Media Type (also a wrong `Content-Type`) | **415** → `ContentTypeNotSupported` |
//! | `InvalidAgentResponse` | -32006 | 502 Bad Gateway | **502** → `InvalidAgentResponse` |
//! | `Internal` | -32603 | 500 Internal Server Error | **500** → `Internal` |
//! | `Other { code }` | `code` | 500 Internal Server Error | |
//!
//! # Serving
//!
//! The composition root binds the REST listener (port 0 in tests, so the card
//! can name the real port), then serves the router on it under the shared
//! shutdown signal. Graceful shutdown stops accepting and waits for open
//! requests, open SSE streams included, so bound the wait (for example with
//! `tokio::time::timeout` around the serve future after the signal).
//!
//! ```no_run
//! # use std::future::Future;
//! # use std::sync::Arc;
//! async fn serve_rest(
//!     listener: tokio::net::TcpListener,
//!     handler: Arc<dyn a2a_core::RequestHandler>,
//!     shutdown: impl Future<Output = ()> + Send + 'static,
//! ) -> std::io::Result<()> {
//!     axum::serve(listener, a2a_http_json::router(handler))
//!         .with_graceful_shutdown(shutdown)
//!         .await
//! }
//! ```
//!
//! [`Router`]: axum::Router
//! [`RequestHandler`]: a2a_core::RequestHandler
//! [`RequestHandler::agent_card`]: a2a_core::RequestHandler::agent_card

mod codec;
mod error;
mod path;
mod proto_in;
mod proto_out;
mod server;

pub use error::{ErrorBody, RestError, error_for_status, http_status};
pub use server::{
    AGENT_CARD_PATH, EXTENSIONS_HEADER, LEGACY_AGENT_CARD_PATH, RestConfig, router, router_with,
};
