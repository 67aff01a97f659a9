//! The axum handlers: decode → call the [`RequestHandler`] → encode.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::{CallContext, EventStream, RequestHandler};
use a2a_types::A2aError;
use a2a_types::jsonrpc::{
    METHOD_GET_EXTENDED_CARD, METHOD_MESSAGE_SEND, METHOD_MESSAGE_STREAM,
    METHOD_PUSH_CONFIG_DELETE, METHOD_PUSH_CONFIG_GET, METHOD_PUSH_CONFIG_LIST,
    METHOD_PUSH_CONFIG_SET, METHOD_TASKS_CANCEL, METHOD_TASKS_GET, METHOD_TASKS_RESUBSCRIBE,
};
use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use bytes::Bytes;
use futures::{FutureExt, StreamExt};
use http_body_util::BodyExt;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::encode::{
    BODY_CAPACITY, error_body, push_error_event, push_success_event, success_body,
};
use crate::envelope::{self, Envelope};

/// The path of the agent card (A2A v0.3.0).
pub const AGENT_CARD_PATH: &str = "/.well-known/agent-card.json";
/// The legacy path of the agent card (A2A ≤ 0.2), still served.
pub const LEGACY_AGENT_CARD_PATH: &str = "/.well-known/agent.json";
/// The request header listing the extensions a client asks for.
pub const EXTENSIONS_HEADER: &str = "x-a2a-extensions";

/// How long a rejected oversized body is still read (and discarded) so the
/// client gets the error response instead of a connection reset.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Settings of [`router_with`].
///
/// ```
/// use std::time::Duration;
/// let config = a2a_jsonrpc::JsonRpcConfig {
///     path: "/a2a".to_owned(),
///     keep_alive: Duration::from_secs(5),
///     ..Default::default()
/// };
/// # let _ = config;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonRpcConfig {
    /// The largest request body accepted, in bytes (default 10 MiB, as the
    /// Python SDK). A larger body is answered with -32600 "Payload too
    /// large".
    pub body_limit: usize,
    /// The interval of the SSE keep-alive comment (`: keep-alive`) on a
    /// stream with no event (default 15 s). Zero disables it.
    pub keep_alive: Duration,
    /// The path of the JSON-RPC endpoint (default `/`). A missing leading
    /// `/` is added; braces are literal, not captures.
    pub path: String,
}

impl Default for JsonRpcConfig {
    fn default() -> Self {
        Self {
            body_limit: 10 * 1024 * 1024,
            keep_alive: Duration::from_secs(15),
            path: "/".to_owned(),
        }
    }
}

struct Shared {
    handler: Arc<dyn RequestHandler>,
    body_limit: usize,
    keep_alive: Duration,
}

/// The JSON-RPC router with the default [`JsonRpcConfig`]: `POST /` and the
/// two agent-card routes.
pub fn router(handler: Arc<dyn RequestHandler>) -> Router {
    router_with(handler, JsonRpcConfig::default())
}

/// The JSON-RPC router with the given settings: `POST {config.path}` and the
/// two agent-card routes (`GET /.well-known/agent-card.json`, `GET
/// /.well-known/agent.json`).
pub fn router_with(handler: Arc<dyn RequestHandler>, config: JsonRpcConfig) -> Router {
    let shared = Arc::new(Shared {
        handler,
        body_limit: config.body_limit,
        keep_alive: config.keep_alive,
    });
    let mut path = config.path;
    if !path.starts_with('/') {
        path.insert(0, '/');
    }
    let mut routes: Vec<(String, MethodRouter<Arc<Shared>>)> = Vec::with_capacity(3);
    for card_path in [AGENT_CARD_PATH, LEGACY_AGENT_CARD_PATH] {
        // The JSON-RPC path may coincide with a card path: one route, two verbs.
        let route = if path == card_path {
            get(card).post(rpc)
        } else {
            get(card)
        };
        routes.push((card_path.to_owned(), route));
    }
    if path != AGENT_CARD_PATH && path != LEGACY_AGENT_CARD_PATH {
        routes.push((path, post(rpc)));
    }
    let mut router = Router::new();
    for (path, route) in routes {
        // matchit treats `{…}` as a capture; `{{`/`}}` are literal braces.
        let literal = path.replace('{', "{{").replace('}', "}}");
        router = router.route(&literal, route);
    }
    router.with_state(shared)
}

/// `GET /.well-known/agent-card.json` and the legacy path.
async fn card(State(shared): State<Arc<Shared>>) -> Response {
    match serde_json::to_vec(&*shared.handler.agent_card()) {
        Ok(body) => json_response(body),
        Err(e) => {
            tracing::error!(error = %e, "could not encode the agent card");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// `POST {path}`: one JSON-RPC request.
async fn rpc(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Err(e) = check_content_type(&parts.headers) {
        return json_response(error_body(RawValue::NULL, &e));
    }
    let bytes = match read_body(body, &parts.headers, shared.body_limit).await {
        Ok(b) => b,
        Err(e) => return json_response(error_body(RawValue::NULL, &e)),
    };
    let env = match envelope::parse(&bytes) {
        Ok(env) => env,
        Err(r) => return json_response(error_body(r.id, &r.error)),
    };
    let call = call_context(&parts.headers);
    dispatch(&shared, &call, env).await
}

async fn dispatch(shared: &Shared, call: &CallContext, env: Envelope<'_>) -> Response {
    let h = &*shared.handler;
    let Envelope { id, method, params } = env;
    let method = &*method;
    match method {
        METHOD_MESSAGE_SEND => unary(
            id,
            async { h.send_message(call, decode(method, params)?).await }.await,
        ),
        METHOD_MESSAGE_STREAM => stream(
            shared,
            id,
            async { h.send_message_stream(call, decode(method, params)?).await }.await,
        ),
        METHOD_TASKS_GET => unary(
            id,
            async { h.get_task(call, decode(method, params)?).await }.await,
        ),
        METHOD_TASKS_CANCEL => unary(
            id,
            async { h.cancel_task(call, decode(method, params)?).await }.await,
        ),
        METHOD_TASKS_RESUBSCRIBE => stream(
            shared,
            id,
            async { h.resubscribe_task(call, decode(method, params)?).await }.await,
        ),
        METHOD_PUSH_CONFIG_SET => unary(
            id,
            async { h.set_push_config(call, decode(method, params)?).await }.await,
        ),
        METHOD_PUSH_CONFIG_GET => unary(
            id,
            async { h.get_push_config(call, decode(method, params)?).await }.await,
        ),
        METHOD_PUSH_CONFIG_LIST => unary(
            id,
            async { h.list_push_configs(call, decode(method, params)?).await }.await,
        ),
        METHOD_PUSH_CONFIG_DELETE => unary(
            id,
            async { h.delete_push_config(call, decode(method, params)?).await }.await,
        ),
        // Takes no params; any that are sent are ignored.
        METHOD_GET_EXTENDED_CARD => unary(id, h.get_extended_agent_card(call).await),
        _ => {
            let shown: String = method.chars().take(100).collect();
            let err = A2aError::method_not_found(format!("Method not found: {shown}"));
            json_response(error_body(id, &err))
        }
    }
}

/// Deserializes `params`; a failure is -32602 naming the member at fault.
fn decode<P: DeserializeOwned>(method: &str, params: Option<&RawValue>) -> Result<P, A2aError> {
    let Some(raw) = params.filter(|p| p.get() != "null") else {
        return Err(A2aError::invalid_params(format!(
            "Invalid parameters: `params` is required for {method}"
        )));
    };
    serde_json::from_str(raw.get()).map_err(|_| {
        // Only on failure: decode again, tracking where it failed.
        let de = &mut serde_json::Deserializer::from_str(raw.get());
        let (path, reason) = match serde_path_to_error::deserialize::<_, P>(de) {
            Ok(_) => (String::new(), "could not be decoded".to_owned()),
            Err(e) => (
                e.path().to_string(),
                strip_position(&e.into_inner().to_string()),
            ),
        };
        let at = if path.is_empty() || path == "." {
            "params".to_owned()
        } else {
            format!("params.{path}")
        };
        A2aError::invalid_params(format!("Invalid parameters for {method}: {at}: {reason}"))
    })
}

/// `serde_json` errors end in " at line L column C"; the path says more.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}

fn unary<R: Serialize>(id: &RawValue, result: Result<R, A2aError>) -> Response {
    json_response(match result {
        Ok(r) => success_body(id, &r),
        Err(e) => error_body(id, &e),
    })
}

fn json_response(body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The answer of a streaming method: always `text/event-stream`. Every event
/// is one JSON-RPC response on one `data:` line; an error (before or during
/// the stream) is one error response event, after which the stream ends.
///
/// Every event that is ready when the body is polled goes into the same
/// body frame (at most [`MAX_FRAME`] bytes): a fast agent's `Task`, status
/// and artifact events reach the socket in one write instead of one write
/// each, and nothing waits for a batch to fill. While the agent is quiet, a
/// `: keep-alive` comment is written every `keep_alive` (zero: never).
fn stream(shared: &Shared, id: &RawValue, events: Result<EventStream, A2aError>) -> Response {
    let id: Box<RawValue> = id.to_owned();
    let body = match events {
        Ok(events) => {
            let feed = Feed {
                events,
                id,
                period: shared.keep_alive,
                keep_alive: (!shared.keep_alive.is_zero())
                    .then(|| Box::pin(tokio::time::sleep(shared.keep_alive))),
            };
            Body::from_stream(futures::stream::unfold(Some(feed), next_frame))
        }
        Err(e) => {
            let mut frame = Vec::with_capacity(BODY_CAPACITY);
            push_error_event(&mut frame, &id, &e);
            Body::from(frame)
        }
    };
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(X_ACCEL_BUFFERING, HeaderValue::from_static("no"));
    response
}

/// Tells a buffering reverse proxy (nginx) to pass events on at once; built
/// at compile time (`from_static` at run time validates it on every stream).
const X_ACCEL_BUFFERING: HeaderName = HeaderName::from_static("x-accel-buffering");

/// The most bytes of events gathered into one SSE body frame.
const MAX_FRAME: usize = 64 * 1024;

/// An open SSE answer: the handler's events and the keep-alive timer.
struct Feed {
    events: EventStream,
    id: Box<RawValue>,
    period: Duration,
    keep_alive: Option<Pin<Box<tokio::time::Sleep>>>,
}

/// The next body frame of a [`Feed`]: every event ready now (at least one),
/// or a keep-alive comment; `None` once the stream has ended.
async fn next_frame(state: Option<Feed>) -> Option<(Result<Bytes, Infallible>, Option<Feed>)> {
    let mut feed = state?;
    // `None`: the keep-alive period passed first.
    let woke = match feed.keep_alive.as_mut() {
        None => Some(feed.events.next().await),
        Some(timer) => tokio::select! {
            biased;
            item = feed.events.next() => Some(item),
            () = timer.as_mut() => None,
        },
    };
    let first = match woke {
        None => {
            feed.rearm();
            return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), Some(feed)));
        }
        Some(None) => return None,
        Some(Some(item)) => item,
    };
    let mut frame = Vec::with_capacity(BODY_CAPACITY);
    let mut open = feed.push(&mut frame, first);
    while open && frame.len() < MAX_FRAME {
        match feed.events.next().now_or_never() {
            Some(Some(item)) => open = feed.push(&mut frame, item),
            Some(None) => open = false,
            None => break,
        }
    }
    if open {
        feed.rearm();
    }
    Some((Ok(Bytes::from(frame)), open.then_some(feed)))
}

impl Feed {
    /// Appends one event; `false` when it ends the stream (an error).
    fn push(&self, frame: &mut Vec<u8>, item: Result<a2a_types::StreamResponse, A2aError>) -> bool {
        match item {
            Ok(event) => {
                push_success_event(frame, &self.id, &event);
                true
            }
            Err(e) => {
                push_error_event(frame, &self.id, &e);
                false
            }
        }
    }

    /// Restarts the keep-alive period after a write.
    fn rearm(&mut self) {
        if let Some(timer) = self.keep_alive.as_mut() {
            timer
                .as_mut()
                .reset(tokio::time::Instant::now() + self.period);
        }
    }
}

/// Accepts `application/json` (any parameters, e.g. `charset`), any
/// `application/*+json`, and a missing `Content-Type`; anything else is
/// -32600. Refusing form and `text/plain` bodies keeps browsers from posting
/// cross-site requests without a CORS preflight.
fn check_content_type(headers: &HeaderMap) -> Result<(), A2aError> {
    let Some(value) = headers.get(CONTENT_TYPE) else {
        return Ok(());
    };
    let essence = value
        .to_str()
        .unwrap_or_default()
        .split(';')
        .next()
        .unwrap_or_default()
        .trim();
    let ok = essence.eq_ignore_ascii_case("application/json")
        || essence.split_once('/').is_some_and(|(ty, sub)| {
            ty.eq_ignore_ascii_case("application")
                && sub.len() > 5
                && sub.as_bytes()[sub.len() - 5..].eq_ignore_ascii_case(b"+json")
        });
    if ok {
        Ok(())
    } else {
        let shown: String = essence.chars().take(100).collect();
        Err(A2aError::invalid_request(format!(
            "Invalid request: Content-Type must be application/json, got {shown:?}"
        )))
    }
}

fn payload_too_large() -> A2aError {
    A2aError::invalid_request("Payload too large")
}

/// Reads the whole body, refusing more than `limit` bytes. A single-frame
/// body (the common case) is returned without a copy.
async fn read_body(mut body: Body, headers: &HeaderMap, limit: usize) -> Result<Bytes, A2aError> {
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        drain(body, limit).await;
        return Err(payload_too_large());
    }
    let mut chunks: Vec<Bytes> = Vec::new();
    let mut total = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            A2aError::invalid_request(format!("Invalid request: could not read the body: {e}"))
        })?;
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        total = total.saturating_add(data.len());
        if total > limit {
            drain(body, limit).await;
            return Err(payload_too_large());
        }
        chunks.push(data);
    }
    Ok(match chunks.len() {
        0 => Bytes::new(),
        1 => chunks.pop().unwrap_or_default(),
        _ => {
            let mut all = Vec::with_capacity(total);
            for c in &chunks {
                all.extend_from_slice(c);
            }
            Bytes::from(all)
        }
    })
}

/// Reads and discards up to `limit` more bytes (for at most
/// [`DRAIN_TIMEOUT`]), so that a client still sending its oversized body
/// reads the error instead of a reset connection.
async fn drain(mut body: Body, limit: usize) {
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, async {
        let mut seen = 0usize;
        while seen <= limit {
            match body.frame().await {
                Some(Ok(frame)) => seen += frame.data_ref().map_or(0, Bytes::len),
                _ => break,
            }
        }
    })
    .await;
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

    fn feed(events: EventStream, keep_alive: Duration) -> Feed {
        Feed {
            events,
            id: serde_json::value::to_raw_value(&1).expect("id"),
            period: keep_alive,
            keep_alive: Some(Box::pin(tokio::time::sleep(keep_alive))),
        }
    }

    fn status(state: a2a_types::TaskState) -> Result<a2a_types::StreamResponse, A2aError> {
        Ok(a2a_types::StreamResponse::StatusUpdate(
            a2a_types::TaskStatusUpdateEvent {
                task_id: "t".into(),
                context_id: "c".into(),
                status: a2a_types::TaskStatus::new(state),
                is_final: false,
                metadata: None,
            },
        ))
    }

    #[tokio::test]
    async fn ready_events_share_one_frame_and_an_error_ends_the_stream() {
        use a2a_types::TaskState::{Completed, Working};
        let events = futures::stream::iter([
            status(Working),
            status(Completed),
            Err(A2aError::internal("boom")),
            status(Working),
        ])
        .boxed();
        let (frame, rest) = next_frame(Some(feed(events, Duration::from_secs(60))))
            .await
            .expect("a frame");
        let frame = frame.expect("bytes");
        let text = std::str::from_utf8(&frame).expect("utf-8");
        assert_eq!(text.matches("data: ").count(), 3, "{text}");
        assert!(text.ends_with("\n\n") && text.contains("boom"), "{text}");
        assert!(rest.is_none(), "the error ended the stream");
    }

    #[tokio::test]
    async fn a_quiet_stream_gets_keep_alive_comments_then_its_event() {
        let (tx, rx) = tokio::sync::mpsc::channel(1);
        let events = tokio_stream_like(rx);
        let (frame, state) = next_frame(Some(feed(events, Duration::from_millis(50))))
            .await
            .expect("a frame");
        assert_eq!(&frame.expect("bytes")[..], b": keep-alive\n\n");
        tx.send(status(a2a_types::TaskState::Working))
            .await
            .expect("send");
        drop(tx);
        let (frame, state) = next_frame(state).await.expect("the event");
        assert!(frame.expect("bytes").starts_with(b"data: {"));
        assert!(next_frame(state).await.is_none(), "ended with its events");
    }

    fn tokio_stream_like(
        rx: tokio::sync::mpsc::Receiver<Result<a2a_types::StreamResponse, A2aError>>,
    ) -> EventStream {
        futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|e| (e, rx)) })
            .boxed()
    }

    #[test]
    fn content_types() {
        let mut h = HeaderMap::new();
        assert!(check_content_type(&h).is_ok());
        for ok in [
            "application/json",
            "Application/JSON; charset=utf-8",
            "application/json-seq+json",
        ] {
            h.insert(CONTENT_TYPE, HeaderValue::from_static(ok));
            assert!(check_content_type(&h).is_ok(), "{ok}");
        }
        for bad in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data",
            "+json",
            "",
        ] {
            h.insert(CONTENT_TYPE, HeaderValue::from_static(bad));
            assert_eq!(
                check_content_type(&h).map_err(|e| e.code()),
                Err(-32600),
                "{bad}"
            );
        }
    }

    #[test]
    fn call_context_from_headers() {
        let mut h = HeaderMap::new();
        h.append(EXTENSIONS_HEADER, HeaderValue::from_static("urn:a, urn:b"));
        h.append(EXTENSIONS_HEADER, HeaderValue::from_static("urn:c,urn:a"));
        h.append("x-custom", HeaderValue::from_static("1"));
        let ctx = call_context(&h);
        assert_eq!(ctx.requested_extensions, ["urn:a", "urn:b", "urn:c"]);
        assert_eq!(ctx.headers["x-a2a-extensions"], "urn:a, urn:b, urn:c,urn:a");
        assert_eq!(ctx.headers["x-custom"], "1");
    }

    #[test]
    fn params_errors_name_the_member() {
        let raw = serde_json::from_str::<&RawValue>(
            r#"{"message":{"kind":"message","role":"user","parts":[]}}"#,
        )
        .expect("raw");
        let e = decode::<a2a_types::MessageSendParams>("message/send", Some(raw)).expect_err("bad");
        assert_eq!(e.code(), -32602);
        assert!(e.message().contains("messageId"), "{}", e.message());
        let e = decode::<a2a_types::TaskIdParams>("tasks/cancel", None).expect_err("missing");
        assert!(
            e.message().contains("`params` is required"),
            "{}",
            e.message()
        );
    }
}
