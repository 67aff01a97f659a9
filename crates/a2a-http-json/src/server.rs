//! The router and its handlers: decode → `a2a_pb::convert` → call the
//! [`RequestHandler`] → convert → encode. The hot path skips the `a2a_pb`
//! messages: a `SendMessageRequest` body of the common shape is read
//! straight into the params ([`crate::proto_in`]), and the `Task`,
//! `SendMessageResponse` and `StreamResponse` answers are written as
//! protobuf JSON straight from a2a-types ([`crate::proto_out`]).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::{CallContext, EventStream, RequestHandler};
use a2a_pb::convert::{push_config_name, task_name};
use a2a_pb::v1;
use a2a_types::{A2aError, AgentCard, MessageSendParams, StreamResponse};
use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use bytes::Bytes;
use futures::{Stream, StreamExt};
use serde::Serialize;
use serde_json::Value;

use crate::codec::{self, CreateBody};
use crate::error::{ErrorBody, RestError, http_status};
use crate::path::{self, TaskOp};
use crate::{proto_in, proto_out};

/// The path of the agent card (A2A v0.3.0).
pub const AGENT_CARD_PATH: &str = "/.well-known/agent-card.json";
/// The legacy path of the agent card (A2A ≤ 0.2), still served.
pub const LEGACY_AGENT_CARD_PATH: &str = "/.well-known/agent.json";
/// The request header listing the extensions a client asks for.
pub const EXTENSIONS_HEADER: &str = "x-a2a-extensions";

/// Settings of [`router_with`].
///
/// ```
/// use std::time::Duration;
///
/// let config = a2a_http_json::RestConfig {
///     keep_alive: Duration::from_secs(5),
///     ..Default::default()
/// };
/// # let _ = config;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestConfig {
    /// The largest request body accepted, in bytes (default 10 MiB, as the
    /// Python SDK). A larger body is answered with `InvalidRequestError`
    /// (HTTP 400) `"Payload too large…"`.
    pub body_limit: usize,
    /// The interval of the SSE keep-alive comment (`: keep-alive`) on a
    /// stream with no event (default 15 s). Zero disables it.
    pub keep_alive: Duration,
}

impl Default for RestConfig {
    fn default() -> Self {
        Self {
            body_limit: 10 * 1024 * 1024,
            keep_alive: Duration::from_secs(15),
        }
    }
}

struct Shared {
    handler: Arc<dyn RequestHandler>,
    config: RestConfig,
}

/// The HTTP+JSON router with the default [`RestConfig`]; see the crate docs
/// for its routes.
pub fn router(handler: Arc<dyn RequestHandler>) -> Router {
    router_with(handler, RestConfig::default())
}

/// The HTTP+JSON router with the given settings: every route of the proto's
/// `google.api.http` rules under `/v1`, the agent-card routes, and a
/// fallback answering `MethodNotFoundError` (HTTP 501) for anything else.
///
/// Serve it on a listener of its own: it has a fallback (so it cannot be
/// [`merge`](Router::merge)d with another router that has one) and it serves
/// the well-known card paths, as the JSON-RPC router does.
pub fn router_with(handler: Arc<dyn RequestHandler>, config: RestConfig) -> Router {
    let shared = Arc::new(Shared { handler, config });
    Router::new()
        .route("/v1/message:send", post(send_message))
        .route("/v1/message:stream", post(send_message_stream))
        .route("/v1/tasks/{*rest}", any(tasks))
        .route("/v1/task/{*rest}", any(tasks))
        .route("/v1/card", get(extended_card))
        .route(AGENT_CARD_PATH, get(public_card))
        .route(LEGACY_AGENT_CARD_PATH, get(public_card))
        .fallback(no_route)
        .method_not_allowed_fallback(no_route)
        .with_state(shared)
}

/// `POST /v1/message:send`: `SendMessageRequest` → `SendMessageResponse`.
async fn send_message(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let call = call_context(&parts.headers);
    bytes_response(
        async {
            let req = decode_send(&shared, &parts.headers, body).await?;
            let reply = shared.handler.send_message(&call, req).await?;
            proto_out::send_response(&reply)
        }
        .await,
    )
}

/// `POST /v1/message:stream`: `SendMessageRequest` → SSE of `StreamResponse`.
async fn send_message_stream(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let call = call_context(&parts.headers);
    let events = async {
        let req = decode_send(&shared, &parts.headers, body).await?;
        shared.handler.send_message_stream(&call, req).await
    }
    .await;
    stream(&shared.config, events)
}

/// Everything under `/v1/tasks/` (and the `/v1/task/` alias): the operation
/// comes from [`path::task_op`].
async fn tasks(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let op = match path::task_op(&parts.method, parts.uri.path()) {
        Ok(op) => op,
        Err(e) => return RestError(e).into_response(),
    };
    let call = call_context(&parts.headers);
    let h = &*shared.handler;
    match op {
        TaskOp::Get(id) => bytes_response(
            async {
                let req = v1::GetTaskRequest {
                    name: task_name(&id),
                    history_length: path::history_length(parts.uri.query())?,
                };
                proto_out::task(&h.get_task(&call, req.try_into()?).await?)
            }
            .await,
        ),
        // The body (`{"name": …}`, empty, or anything) is not read: the path
        // names the task.
        TaskOp::Cancel(id) => bytes_response(
            async {
                let req = v1::CancelTaskRequest {
                    name: task_name(&id),
                };
                proto_out::task(&h.cancel_task(&call, req.try_into()?).await?)
            }
            .await,
        ),
        TaskOp::Subscribe(id) => {
            let events = async {
                let req = v1::TaskSubscriptionRequest {
                    name: task_name(&id),
                };
                h.resubscribe_task(&call, req.try_into()?).await
            }
            .await;
            stream(&shared.config, events)
        }
        TaskOp::CreateConfig(id) => unary(
            async {
                let value = read_json(&shared, &parts.headers, body).await?;
                let req = match codec::decode_create_body(value)? {
                    CreateBody::Request(mut req) => {
                        path::check_parent(&req.parent, &id)?;
                        req.parent = task_name(&id);
                        req
                    }
                    CreateBody::Config(config) => v1::CreateTaskPushNotificationConfigRequest {
                        parent: task_name(&id),
                        config_id: String::new(),
                        config: Some(config),
                    },
                };
                let config = h.set_push_config(&call, req.try_into()?).await?;
                Ok(v1::TaskPushNotificationConfig::from(config))
            }
            .await,
        ),
        TaskOp::ListConfigs(id) => unary(
            async {
                let req = v1::ListTaskPushNotificationConfigRequest {
                    parent: task_name(&id),
                    page_size: 0,
                    page_token: String::new(),
                };
                let configs = h.list_push_configs(&call, req.try_into()?).await?;
                Ok(v1::ListTaskPushNotificationConfigResponse::from(configs))
            }
            .await,
        ),
        TaskOp::GetConfig(id, config_id) => unary(
            async {
                // The Python SDK client asks for `…/None` when it has no id:
                // the task's default config.
                let name = if config_id == "None" {
                    task_name(&id)
                } else {
                    push_config_name(&id, &config_id)
                };
                let req = v1::GetTaskPushNotificationConfigRequest { name };
                let config = h.get_push_config(&call, req.try_into()?).await?;
                Ok(v1::TaskPushNotificationConfig::from(config))
            }
            .await,
        ),
        TaskOp::DeleteConfig(id, config_id) => {
            let result = async {
                let req = v1::DeleteTaskPushNotificationConfigRequest {
                    name: push_config_name(&id, &config_id),
                };
                h.delete_push_config(&call, req.try_into()?).await
            }
            .await;
            match result {
                // `google.protobuf.Empty`.
                Ok(()) => json_response(b"{}".to_vec()),
                Err(e) => RestError(e).into_response(),
            }
        }
    }
}

/// `GET /v1/card`: the authenticated extended card when the handler has one,
/// otherwise the public card; in the JSON-schema shape (as the Python SDK
/// serves and reads it), not protobuf JSON.
async fn extended_card(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let call = call_context(&headers);
    match shared.handler.get_extended_agent_card(&call).await {
        Ok(card) => card_response(&card),
        Err(A2aError::AuthenticatedExtendedCardNotConfigured { .. }) => {
            card_response(&shared.handler.agent_card())
        }
        Err(e) => RestError(e).into_response(),
    }
}

/// `GET /.well-known/agent-card.json` and the legacy path.
async fn public_card(State(shared): State<Arc<Shared>>) -> Response {
    card_response(&shared.handler.agent_card())
}

/// Any other method or path: `MethodNotFoundError` (HTTP 501).
async fn no_route(method: Method, uri: Uri) -> Response {
    RestError(path::no_route(&method, uri.path())).into_response()
}

/// Checks the content type and reads a body, within the body limit.
async fn read_bytes(shared: &Shared, headers: &HeaderMap, body: Body) -> Result<Bytes, A2aError> {
    codec::check_content_type(headers)?;
    codec::read_body(body, headers, shared.config.body_limit).await
}

/// Reads, checks and parses a JSON body.
async fn read_json(shared: &Shared, headers: &HeaderMap, body: Body) -> Result<Value, A2aError> {
    codec::parse_json(&read_bytes(shared, headers, body).await?)
}

/// Reads a `SendMessageRequest` body: the common shape straight into the
/// params ([`proto_in`]), anything else through pbjson and
/// `a2a_pb::convert`.
async fn decode_send(
    shared: &Shared,
    headers: &HeaderMap,
    body: Body,
) -> Result<MessageSendParams, A2aError> {
    let bytes = read_bytes(shared, headers, body).await?;
    if let Some(params) = proto_in::decode_send(&bytes) {
        return Ok(params);
    }
    decode_send_general(&bytes)?.try_into()
}

/// The pbjson decoding of a `SendMessageRequest` body (after the lenient
/// cleaning): what [`proto_in`] is held to.
pub(crate) fn decode_send_general(bytes: &[u8]) -> Result<v1::SendMessageRequest, A2aError> {
    let mut value = codec::parse_json(bytes)?;
    codec::clean_send_request(&mut value);
    codec::decode(value, "SendMessageRequest")
}

/// A push-config answer: its protobuf JSON (pbjson), which holds no
/// timestamp to rewrite.
fn unary<T: serde::Serialize>(result: Result<T, A2aError>) -> Response {
    bytes_response(result.and_then(|msg| {
        serde_json::to_vec(&msg)
            .map_err(|e| A2aError::internal(format!("could not encode the answer: {e}")))
    }))
}

/// The JSON answer of an encoded body, or the error's.
fn bytes_response(body: Result<Vec<u8>, A2aError>) -> Response {
    match body {
        Ok(body) => json_response(body),
        Err(e) => RestError(e).into_response(),
    }
}

fn card_response(card: &AgentCard) -> Response {
    match serde_json::to_vec(card) {
        Ok(body) => json_response(body),
        Err(e) => RestError(A2aError::internal(format!(
            "could not encode the agent card: {e}"
        )))
        .into_response(),
    }
}

fn json_response(body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The answer of a streaming route: always `text/event-stream`. Each event
/// is one `data:` line holding a compact `StreamResponse`. An error is one
/// `event: error` whose data is the [`ErrorBody`], after which the stream
/// ends; an error before the first event also sets the HTTP status of the
/// error table.
fn stream(config: &RestConfig, events: Result<EventStream, A2aError>) -> Response {
    match events {
        Ok(events) => {
            let body = futures::stream::unfold(Some(events), |state| async move {
                let mut events = state?;
                match events.next().await? {
                    Ok(event) => match stream_event(event) {
                        Ok(sse) => Some((Ok::<_, Infallible>(sse), Some(events))),
                        Err(e) => Some((Ok(error_event(&e)), None)),
                    },
                    Err(e) => Some((Ok(error_event(&e)), None)),
                }
            });
            sse_response(config.keep_alive, StatusCode::OK, body)
        }
        Err(e) => {
            let status = http_status(&e);
            let event = error_event(&e);
            sse_response(
                config.keep_alive,
                status,
                futures::stream::once(async move { Ok::<_, Infallible>(event) }),
            )
        }
    }
}

fn stream_event(event: StreamResponse) -> Result<Event, A2aError> {
    let bytes = proto_out::stream_response(&event)?;
    // Compact JSON has no raw line break: one `data:` line.
    let data = std::str::from_utf8(&bytes)
        .map_err(|e| A2aError::internal(format!("could not encode the event: {e}")))?;
    Ok(Event::default().data(data))
}

/// `event: error` with the [`ErrorBody`] as data.
fn error_event(err: &A2aError) -> Event {
    tracing::debug!(code = err.code(), error = %err, "stream error");
    json_event(Event::default().event("error"), &ErrorBody::from(err)).unwrap_or_else(|_| {
        Event::default()
            .event("error")
            .data(r#"{"error":"InternalError","code":-32603,"message":"Internal error"}"#)
    })
}

fn json_event<T: Serialize>(event: Event, data: &T) -> Result<Event, A2aError> {
    event
        .json_data(data)
        .map_err(|e| A2aError::internal(format!("could not encode the event: {e}")))
}

fn sse_response<S>(keep_alive: Duration, status: StatusCode, events: S) -> Response
where
    S: Stream<Item = Result<Event, Infallible>> + Send + 'static,
{
    let mut response = if keep_alive.is_zero() {
        Sse::new(events).into_response()
    } else {
        Sse::new(events)
            .keep_alive(KeepAlive::new().interval(keep_alive).text("keep-alive"))
            .into_response()
    };
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        HeaderName::from_static("x-accel-buffering"),
        HeaderValue::from_static("no"),
    );
    response
}

/// The transport-neutral call facts: every header (lower-case names;
/// repeated headers joined with `", "`; non-UTF-8 values skipped) and the
/// extensions asked for in `X-A2A-Extensions` (comma-separated, repeatable).
fn call_context(headers: &HeaderMap) -> CallContext {
    CallContext::from_headers(
        headers
            .iter()
            .filter_map(|(name, value)| Some((name.as_str(), value.to_str().ok()?))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_context_from_headers() {
        let mut h = HeaderMap::new();
        h.append(EXTENSIONS_HEADER, HeaderValue::from_static("urn:a, urn:b"));
        h.append(EXTENSIONS_HEADER, HeaderValue::from_static("urn:c,urn:a"));
        h.append("x-custom", HeaderValue::from_static("1"));
        let ctx = call_context(&h);
        assert_eq!(ctx.requested_extensions, ["urn:a", "urn:b", "urn:c"]);
        assert_eq!(ctx.headers["x-custom"], "1");
    }

    #[test]
    fn the_router_builds() {
        // axum panics at registration on a route it cannot parse.
        struct Never;
        #[async_trait::async_trait]
        impl a2a_core::AgentExecutor for Never {
            async fn execute(
                &self,
                _: a2a_core::RequestContext,
                _: a2a_core::EventSink,
            ) -> Result<(), A2aError> {
                Ok(())
            }
        }
        let card: AgentCard = serde_json::from_value(serde_json::json!({
            "protocolVersion": "0.3.0", "name": "n", "description": "d", "url": "http://127.0.0.1/",
            "version": "1", "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []
        }))
        .expect("card");
        let handler = a2a_core::DefaultRequestHandler::builder(card, Never).build();
        let _ = router(Arc::new(handler));
    }
}
