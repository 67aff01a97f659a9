//! The HTTP+JSON (REST) transport: the protobuf JSON of the `a2a.v1`
//! messages on the routes of the proto's `google.api.http` rules, under
//! `{base}/v1/…`, with Server-Sent Events for the two streams.
//!
//! ```no_run
//! use a2a_client::Transport;
//! use a2a_client::rest::RestTransport;
//! use a2a_types::{Message, MessageSendParams};
//!
//! # async fn run() -> Result<(), a2a_client::ClientError> {
//! // The `url` of the card's `HTTP+JSON` interface.
//! let agent = RestTransport::new("http://127.0.0.1:8081");
//! let reply = agent.send_message(MessageSendParams::new(Message::user_text("m-1", "hi"))).await?;
//! # let _ = reply; Ok(()) }
//! ```
//!
//! | operation | request |
//! |---|---|
//! | `send_message` | `POST /v1/message:send`, body `SendMessageRequest` |
//! | `send_message_stream` | `POST /v1/message:stream`, body `SendMessageRequest`, SSE answer |
//! | `get_task` | `GET /v1/tasks/{id}[?historyLength=N]` |
//! | `cancel_task` | `POST /v1/tasks/{id}:cancel`, body `CancelTaskRequest` `{"name":"tasks/{id}"}` |
//! | `resubscribe_task` | **`GET`** `/v1/tasks/{id}:subscribe`, SSE answer |
//! | `set_push_config` | `POST /v1/tasks/{id}/pushNotificationConfigs`, body: the whole `CreateTaskPushNotificationConfigRequest` `{parent, configId, config}` (as the Python SDK client; a missing config id is sent as the task id) |
//! | `get_push_config` | `GET /v1/tasks/{id}/pushNotificationConfigs/{configId}` (the task id when none is given) |
//! | `list_push_configs` | `GET /v1/tasks/{id}/pushNotificationConfigs` → `{"configs":[…]}` |
//! | `delete_push_config` | `DELETE /v1/tasks/{id}/pushNotificationConfigs/{configId}` (any 2xx body) |
//! | `get_extended_agent_card` | `GET /v1/card`, answer in the JSON-schema shape (what servers put there, the Python SDK's included) |
//!
//! Ids are percent-encoded in paths (everything but `A-Z a-z 0-9 - . _ ~`).
//! Bodies are written with pbjson (camelCase, enum names; a configuration
//! with an explicit `blocking` is always sent, `true` unless the params say
//! otherwise, like the Python SDK client, because a proto3 bool cannot be
//! absent and servers read a missing configuration as non-blocking); answers are read leniently (camelCase or snake_case, unknown
//! keys ignored, timestamps with any offset).
//!
//! # Errors
//!
//! A failure to connect, or a connection lost, is
//! [`ClientError::Unreachable`]. An error answer is read by
//! [`error_from_response`]: an `a2a-http-json` error body
//! `{"error":"TaskNotFoundError","code":-32001,"message":…}` gives back the
//! exact [`A2aError`]; any other body falls back to the HTTP status (the
//! reverse of the server's table: 404 → `TaskNotFound` (on `GET /v1/card`:
//! `AuthenticatedExtendedCardNotConfigured`), 400 → `InvalidRequest`, 405 →
//! `MethodNotFound`, 409 → `TaskNotCancelable`, 415 →
//! `ContentTypeNotSupported`, 422 → `InvalidParams`, 500 → `Internal`, 501 →
//! `UnsupportedOperation`, 502 → `InvalidAgentResponse`), with the body's
//! `message` (the Python SDK's `{"message":…}`). A 502, 503 or 504 whose
//! body is not JSON (a gateway) is [`ClientError::Unreachable`]; any other
//! status outside the table, and any answer that does not decode, is
//! [`ClientError::InvalidResponse`].
//!
//! # Streams
//!
//! The SSE parser tolerates `\r\n` line ends, comments (keep-alive pings)
//! and `data:` spread over several lines (the Python SDK server sends
//! indented JSON). Each event's data is one `StreamResponse`; an event named
//! `error`, or whose data is an error body, is an error and the stream's
//! last item. The streaming calls wait for the first event: an error sent
//! first (for example `TaskNotFoundError` on resubscribe) is returned by the
//! call itself, not inside the stream. A non-SSE answer is read as an error
//! (or, with a 2xx status, as a single `StreamResponse`).

use a2a_pb::v1;
use a2a_types::{
    A2aError, AgentCard, DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams, ListTaskPushNotificationConfigParams, MessageSendParams,
    SendMessageResult, StreamResponse, Task, TaskIdParams, TaskPushNotificationConfig,
    TaskQueryParams,
};
use async_trait::async_trait;
use futures::StreamExt;
use http::header::CONTENT_TYPE;
use http::{HeaderName, HeaderValue, Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::interceptor::{CallInterceptor, Chain, Operation};
use crate::util::{
    APPLICATION_JSON, HttpBase, TEXT_EVENT_STREAM, is_event_stream, read_body, sse_events,
};
use crate::{ClientError, EventStream, Transport};

/// The HTTP+JSON client transport (`"HTTP+JSON"` in agent cards).
///
/// Cheap to share behind an `Arc`.
#[derive(Debug, Clone)]
pub struct RestTransport {
    base: String,
    http: HttpBase,
}

impl RestTransport {
    /// A transport for the agent at `base_url` (the `url` of the card's
    /// `HTTP+JSON` interface; `/v1/…` is appended, a trailing `/` is
    /// dropped), with a default `reqwest::Client`.
    pub fn new(base_url: impl Into<String>) -> Self {
        let mut base = base_url.into();
        while base.ends_with('/') {
            base.pop();
        }
        Self {
            base,
            http: HttpBase::default(),
        }
    }

    /// Uses `client` (timeouts, TLS, proxies, connection pool) for every
    /// request.
    #[must_use]
    pub fn with_client(mut self, client: reqwest::Client) -> Self {
        self.http.client = client;
        self
    }

    /// Adds a header to every request, e.g. `Authorization` or
    /// `X-A2A-Extensions`. Repeating a name adds another value.
    #[must_use]
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.http.headers.append(name, value);
        self
    }

    /// Runs `interceptor` before every call (after the earlier ones); see
    /// [`interceptor`](crate::interceptor).
    #[must_use]
    pub fn with_interceptor(mut self, interceptor: impl CallInterceptor) -> Self {
        self.http
            .interceptors
            .push(std::sync::Arc::new(interceptor));
        self
    }

    pub(crate) fn with_chain(mut self, chain: &Chain) -> Self {
        self.http.interceptors.extend(chain);
        self
    }

    /// The base URL (without a trailing `/`).
    #[must_use]
    pub fn base_url(&self) -> &str {
        &self.base
    }

    async fn send(
        &self,
        op: Op,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
        accept: &'static str,
    ) -> Result<reqwest::Response, ClientError> {
        self.http
            .send(
                op.operation(),
                a2a_types::TRANSPORT_HTTP_JSON,
                method,
                &format!("{}{path}", self.base),
                accept,
                body,
            )
            .await
    }

    /// One unary call; the answer is decoded as `R`.
    async fn call<R: DeserializeOwned>(
        &self,
        op: Op,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<R, ClientError> {
        let response = self.send(op, method, path, body, APPLICATION_JSON).await?;
        let status = response.status();
        let bytes = read_body(response).await?;
        if !status.is_success() {
            return Err(error_for(op, status, &bytes));
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            ClientError::InvalidResponse(format!("malformed {} answer: {e}", op.name()))
        })
    }

    /// One streaming call; waits for the first event (see the module docs).
    async fn stream(
        &self,
        op: Op,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<EventStream, ClientError> {
        let response = self.send(op, method, path, body, TEXT_EVENT_STREAM).await?;
        let status = response.status();
        let is_sse = is_event_stream(response.headers().get(CONTENT_TYPE));
        if !is_sse {
            let bytes = read_body(response).await?;
            if !status.is_success() {
                return Err(error_for(op, status, &bytes));
            }
            let event = decode_event_data("", &String::from_utf8_lossy(&bytes))?;
            return Ok(Box::pin(futures::stream::once(async move { Ok(event) })));
        }
        let mut events = sse_events(response, |event| {
            decode_event_data(&event.event, &event.data)
        });
        match events.next().await {
            Some(Err(e)) => Err(e),
            _ if !status.is_success() => Err(error_for(op, status, b"")),
            None => Ok(Box::pin(futures::stream::empty())),
            Some(Ok(first)) => Ok(Box::pin(
                futures::stream::once(async move { Ok(first) }).chain(events),
            )),
        }
    }
}

/// The operation of a call, for error messages and the one status whose
/// meaning depends on the route (404 on `GET /v1/card`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    SendMessage,
    SendMessageStream,
    GetTask,
    CancelTask,
    Resubscribe,
    SetPushConfig,
    GetPushConfig,
    ListPushConfigs,
    DeletePushConfig,
    GetCard,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Self::SendMessage => "message:send",
            Self::SendMessageStream => "message:stream",
            Self::GetTask => "get task",
            Self::CancelTask => "cancel",
            Self::Resubscribe => "subscribe",
            Self::SetPushConfig => "create push config",
            Self::GetPushConfig => "get push config",
            Self::ListPushConfigs => "list push configs",
            Self::DeletePushConfig => "delete push config",
            Self::GetCard => "card",
        }
    }

    fn operation(self) -> Operation {
        match self {
            Self::SendMessage => Operation::SendMessage,
            Self::SendMessageStream => Operation::SendStreamingMessage,
            Self::GetTask => Operation::GetTask,
            Self::CancelTask => Operation::CancelTask,
            Self::Resubscribe => Operation::ResubscribeTask,
            Self::SetPushConfig => Operation::SetPushConfig,
            Self::GetPushConfig => Operation::GetPushConfig,
            Self::ListPushConfigs => Operation::ListPushConfigs,
            Self::DeletePushConfig => Operation::DeletePushConfig,
            Self::GetCard => Operation::GetExtendedAgentCard,
        }
    }
}

fn error_for(op: Op, status: StatusCode, body: &[u8]) -> ClientError {
    let error = error_from_response(status, body);
    match error {
        // A server without an extended card may have no `/v1/card` route.
        ClientError::A2a(A2aError::TaskNotFound { message, data })
            if op == Op::GetCard && error_body(body).is_none() =>
        {
            ClientError::A2a(A2aError::AuthenticatedExtendedCardNotConfigured { message, data })
        }
        other => other,
    }
}

/// Always sends a configuration, so that `blocking` keeps its JSON-RPC
/// default: a proto3 bool cannot be absent, and servers (the Python SDK's
/// included) read a request without configuration as non-blocking.
fn send_request(mut params: MessageSendParams) -> v1::SendMessageRequest {
    params
        .configuration
        .get_or_insert_with(a2a_types::MessageSendConfiguration::default);
    params.into()
}

fn pb_body<T: Serialize>(msg: &T) -> Result<Vec<u8>, ClientError> {
    serde_json::to_vec(msg)
        .map_err(|e| ClientError::InvalidResponse(format!("could not encode the request: {e}")))
}

/// A decoded answer that does not convert (a missing field, a bad name) is
/// the server's fault: [`ClientError::InvalidResponse`].
fn convert<P, T>(op: Op, msg: P) -> Result<T, ClientError>
where
    T: TryFrom<P, Error = A2aError>,
{
    T::try_from(msg).map_err(|e| {
        ClientError::InvalidResponse(format!("malformed {} answer: {}", op.name(), e.message()))
    })
}

#[async_trait]
impl Transport for RestTransport {
    fn name(&self) -> &'static str {
        a2a_types::TRANSPORT_HTTP_JSON
    }

    async fn send_message(
        &self,
        params: MessageSendParams,
    ) -> Result<SendMessageResult, ClientError> {
        let body = pb_body(&send_request(params))?;
        let answer: v1::SendMessageResponse = self
            .call(
                Op::SendMessage,
                Method::POST,
                "/v1/message:send",
                Some(body),
            )
            .await?;
        convert(Op::SendMessage, answer)
    }

    async fn send_message_stream(
        &self,
        params: MessageSendParams,
    ) -> Result<EventStream, ClientError> {
        let body = pb_body(&send_request(params))?;
        self.stream(
            Op::SendMessageStream,
            Method::POST,
            "/v1/message:stream",
            Some(body),
        )
        .await
    }

    async fn get_task(&self, params: TaskQueryParams) -> Result<Task, ClientError> {
        let mut path = format!("/v1/tasks/{}", encode_segment(&params.id));
        if let Some(n) = params.history_length {
            path.push_str(&format!("?historyLength={n}"));
        }
        let answer: v1::Task = self.call(Op::GetTask, Method::GET, &path, None).await?;
        convert(Op::GetTask, answer)
    }

    async fn cancel_task(&self, params: TaskIdParams) -> Result<Task, ClientError> {
        let path = format!("/v1/tasks/{}:cancel", encode_segment(&params.id));
        let body = pb_body(&v1::CancelTaskRequest::from(params))?;
        let answer: v1::Task = self
            .call(Op::CancelTask, Method::POST, &path, Some(body))
            .await?;
        convert(Op::CancelTask, answer)
    }

    async fn resubscribe_task(&self, params: TaskIdParams) -> Result<EventStream, ClientError> {
        let path = format!("/v1/tasks/{}:subscribe", encode_segment(&params.id));
        self.stream(Op::Resubscribe, Method::GET, &path, None).await
    }

    async fn set_push_config(
        &self,
        params: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, ClientError> {
        let path = format!(
            "/v1/tasks/{}/pushNotificationConfigs",
            encode_segment(&params.task_id)
        );
        let body = pb_body(&v1::CreateTaskPushNotificationConfigRequest::from(params))?;
        let answer: v1::TaskPushNotificationConfig = self
            .call(Op::SetPushConfig, Method::POST, &path, Some(body))
            .await?;
        convert(Op::SetPushConfig, answer)
    }

    async fn get_push_config(
        &self,
        params: GetTaskPushNotificationConfigParams,
    ) -> Result<TaskPushNotificationConfig, ClientError> {
        let name = v1::GetTaskPushNotificationConfigRequest::from(params).name;
        let answer: v1::TaskPushNotificationConfig = self
            .call(Op::GetPushConfig, Method::GET, &name_path(&name), None)
            .await?;
        convert(Op::GetPushConfig, answer)
    }

    async fn list_push_configs(
        &self,
        params: ListTaskPushNotificationConfigParams,
    ) -> Result<Vec<TaskPushNotificationConfig>, ClientError> {
        let path = format!(
            "/v1/tasks/{}/pushNotificationConfigs",
            encode_segment(&params.id)
        );
        let answer: v1::ListTaskPushNotificationConfigResponse = self
            .call(Op::ListPushConfigs, Method::GET, &path, None)
            .await?;
        convert(Op::ListPushConfigs, answer)
    }

    async fn delete_push_config(
        &self,
        params: DeleteTaskPushNotificationConfigParams,
    ) -> Result<(), ClientError> {
        let name = v1::DeleteTaskPushNotificationConfigRequest::from(params).name;
        // The answer is `{}` (google.protobuf.Empty); any body is accepted.
        let response = self
            .send(
                Op::DeletePushConfig,
                Method::DELETE,
                &name_path(&name),
                None,
                APPLICATION_JSON,
            )
            .await?;
        let status = response.status();
        let bytes = read_body(response).await?;
        if status.is_success() {
            Ok(())
        } else {
            Err(error_for(Op::DeletePushConfig, status, &bytes))
        }
    }

    async fn get_extended_agent_card(&self) -> Result<AgentCard, ClientError> {
        self.call(Op::GetCard, Method::GET, "/v1/card", None).await
    }
}

/// `/v1/{name}` with every segment of the resource name percent-encoded.
fn name_path(name: &str) -> String {
    let mut path = String::from("/v1");
    for segment in name.split('/') {
        path.push('/');
        path.push_str(&encode_segment(segment));
    }
    path
}

/// Percent-encodes everything but the unreserved characters (RFC 3986).
fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The reverse of the server's status table (`a2a_http_json::http_status`),
/// for bodies that do not name the error; the first row with a status wins,
/// in the server's order. 405 (not in the server's table) is what the
/// Python SDK answers for a route it lacks.
const STATUS_TABLE: &[(u16, i32)] = &[
    (404, -32001), // TaskNotFoundError
    (400, -32600), // InvalidRequestError
    (422, -32602), // InvalidParamsError
    (409, -32002), // TaskNotCancelableError
    (501, -32004), // UnsupportedOperationError
    (415, -32005), // ContentTypeNotSupportedError
    (502, -32006), // InvalidAgentResponseError
    (500, -32603), // InternalError
    (405, -32601), // MethodNotFoundError
];

/// The error an HTTP error answer stands for.
///
/// - An `a2a-http-json` error body `{"error": "<spec name>", "code": <code>,
///   "message": …, "data"?: …}` is the exact [`A2aError`] (by `code`; by
///   `error` when `code` is missing).
/// - Otherwise the status decides, through the reverse of the server's
///   table (see the module docs), with the body's `message` (or `detail`,
///   or its text) as the message.
/// - A 502, 503 or 504 with a body that is not JSON (a gateway) is
///   [`ClientError::Unreachable`]; any other status is
///   [`ClientError::InvalidResponse`].
///
/// ```
/// use a2a_client::rest::error_from_response;
/// use http::StatusCode;
///
/// let ours = br#"{"error":"TaskNotCancelableError","code":-32002,"message":"done"}"#;
/// assert_eq!(error_from_response(StatusCode::CONFLICT, ours).code(), Some(-32002));
/// let python = br#"{"message":"Task not found"}"#;
/// assert_eq!(error_from_response(StatusCode::NOT_FOUND, python).code(), Some(-32001));
/// ```
#[must_use]
pub fn error_from_response(status: StatusCode, body: &[u8]) -> ClientError {
    if let Some(e) = error_body(body) {
        return ClientError::A2a(e);
    }
    let json: Option<Value> = serde_json::from_slice(body).ok();
    if json.is_none()
        && matches!(
            status,
            StatusCode::BAD_GATEWAY | StatusCode::SERVICE_UNAVAILABLE | StatusCode::GATEWAY_TIMEOUT
        )
    {
        return ClientError::Unreachable(format!("HTTP {status}"));
    }
    let text = String::from_utf8_lossy(body);
    let message = json
        .as_ref()
        .and_then(|v| {
            ["message", "detail", "error"]
                .iter()
                .find_map(|k| v.get(*k).and_then(Value::as_str))
        })
        .map(str::to_owned)
        .unwrap_or_else(|| {
            let snippet: String = text.trim().chars().take(200).collect();
            if snippet.is_empty() {
                status.canonical_reason().unwrap_or("error").to_owned()
            } else {
                snippet
            }
        });
    match STATUS_TABLE.iter().find(|(s, _)| *s == status.as_u16()) {
        Some((_, code)) => ClientError::A2a(A2aError::from_code(*code, message, None)),
        None => ClientError::InvalidResponse(format!("HTTP {status}: {message}")),
    }
}

/// An `a2a-http-json` error body: a JSON object with a string `error` and
/// an integer `code` (or a spec name in `error` alone).
fn error_body(body: &[u8]) -> Option<A2aError> {
    let v: Value = serde_json::from_slice(body).ok()?;
    error_from_value(&v)
}

fn error_from_value(v: &Value) -> Option<A2aError> {
    let name = v.get("error")?.as_str()?;
    let message = v
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let data = v.get("data").filter(|d| !d.is_null()).cloned();
    match v.get("code").and_then(Value::as_i64) {
        Some(code) => {
            let code = i32::try_from(code).ok()?;
            Some(A2aError::from_code(code, message, data))
        }
        None => A2aError::from_name(name, message, data),
    }
}

/// One event's data: an error body (or any data of an `error` event) is
/// the error; anything else must be a `StreamResponse`.
fn decode_event_data(event: &str, data: &str) -> Result<StreamResponse, ClientError> {
    let value: Value = serde_json::from_str(data)
        .map_err(|e| ClientError::InvalidResponse(format!("malformed stream event: {e}")))?;
    if let Some(e) = error_from_value(&value) {
        return Err(ClientError::A2a(e));
    }
    if event == "error" {
        let snippet: String = data.chars().take(200).collect();
        return Err(ClientError::InvalidResponse(format!(
            "unrecognised error event: {snippet}"
        )));
    }
    let pb: v1::StreamResponse = serde_json::from_value(value)
        .map_err(|e| ClientError::InvalidResponse(format!("malformed stream event: {e}")))?;
    convert(Op::SendMessageStream, pb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_and_statuses() {
        let ours =
            br#"{"error":"TaskNotFoundError","code":-32001,"message":"gone","data":{"id":"t"}}"#;
        assert_eq!(
            error_from_response(StatusCode::NOT_FOUND, ours),
            ClientError::A2a(
                A2aError::task_not_found("gone").with_data(serde_json::json!({"id": "t"}))
            )
        );
        // The body wins over the status.
        assert_eq!(
            error_from_response(StatusCode::IM_A_TEAPOT, ours).code(),
            Some(-32001)
        );
        let other = br#"{"error":"JSONRPCError","code":-32050,"message":"x"}"#;
        assert_eq!(
            error_from_response(StatusCode::INTERNAL_SERVER_ERROR, other).code(),
            Some(-32050)
        );
        let name_only = br#"{"error":"TaskNotCancelableError","message":"x"}"#;
        assert_eq!(
            error_from_response(StatusCode::CONFLICT, name_only).code(),
            Some(-32002)
        );
        // Not ours: the status decides, with the body's message.
        let python = br#"{"message":"Task not found"}"#;
        let e = error_from_response(StatusCode::NOT_FOUND, python);
        assert_eq!(
            e,
            ClientError::A2a(A2aError::task_not_found("Task not found"))
        );
        let fastapi = br#"{"detail":"Method Not Allowed"}"#;
        assert_eq!(
            error_from_response(StatusCode::METHOD_NOT_ALLOWED, fastapi).code(),
            Some(-32601)
        );
        assert_eq!(
            error_from_response(StatusCode::UNPROCESSABLE_ENTITY, b"").code(),
            Some(-32602)
        );
        assert_eq!(
            error_from_response(StatusCode::BAD_GATEWAY, br#"{"message":"m"}"#).code(),
            Some(-32006)
        );
        assert!(matches!(
            error_from_response(StatusCode::BAD_GATEWAY, b"<html>bad gateway</html>"),
            ClientError::Unreachable(_)
        ));
        assert!(matches!(
            error_from_response(StatusCode::UNAUTHORIZED, b"no"),
            ClientError::InvalidResponse(m) if m.contains("401")
        ));
        // A card route that does not exist: no extended card.
        let e = error_for(
            Op::GetCard,
            StatusCode::NOT_FOUND,
            br#"{"detail":"Not Found"}"#,
        );
        assert_eq!(e.code(), Some(-32007));
    }

    #[test]
    fn send_requests_always_carry_blocking() {
        let params = MessageSendParams::new(a2a_types::Message::user_text("m", "hi"));
        let body = serde_json::to_value(send_request(params.clone())).expect("json");
        assert_eq!(body["configuration"]["blocking"], true, "{body}");
        let mut polling = params;
        polling.configuration = Some(a2a_types::MessageSendConfiguration {
            blocking: Some(false),
            ..Default::default()
        });
        let body = serde_json::to_value(send_request(polling)).expect("json");
        assert_ne!(body["configuration"]["blocking"], true, "{body}");
    }

    #[test]
    fn paths_are_percent_encoded() {
        assert_eq!(encode_segment("a:b/c d✓"), "a%3Ab%2Fc%20d%E2%9C%93");
        assert_eq!(encode_segment("A-z_0.9~"), "A-z_0.9~");
        assert_eq!(
            name_path("tasks/t:1/pushNotificationConfigs/c 1"),
            "/v1/tasks/t%3A1/pushNotificationConfigs/c%201"
        );
        assert_eq!(RestTransport::new("http://h:1/").base_url(), "http://h:1");
    }

    #[test]
    fn event_data() {
        let event = decode_event_data("", r#"{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}"#)
            .expect("an event");
        assert!(matches!(event, StreamResponse::StatusUpdate(e) if e.task_id == "t"));
        // Indented, as the Python SDK sends it (joined data lines).
        let indented = "{\n  \"task\": {\n    \"id\": \"t\",\n    \"contextId\": \"c\",\n    \"status\": {\"state\": \"TASK_STATE_SUBMITTED\"}\n  }\n}";
        assert!(
            matches!(decode_event_data("", indented), Ok(StreamResponse::Task(t)) if t.id == "t")
        );
        let err = decode_event_data(
            "error",
            r#"{"error":"TaskNotFoundError","code":-32001,"message":"m"}"#,
        );
        assert_eq!(err.map(|_| ()).map_err(|e| e.code()), Err(Some(-32001)));
        assert!(matches!(
            decode_event_data("error", "{}"),
            Err(ClientError::InvalidResponse(_))
        ));
        assert!(matches!(
            decode_event_data("", "{"),
            Err(ClientError::InvalidResponse(_))
        ));
        assert!(matches!(
            decode_event_data("", "{}"),
            Err(ClientError::InvalidResponse(_))
        ));
    }
}
