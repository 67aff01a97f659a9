//! The JSON-RPC 2.0 transport: one `POST` per call to the agent's URL,
//! Server-Sent Events for `message/stream` and `tasks/resubscribe`, and
//! [`fetch_agent_card`] for discovery.
//!
//! ```no_run
//! use a2a_client::Transport;
//! use a2a_client::jsonrpc::{JsonRpcTransport, fetch_agent_card};
//! use a2a_types::{Message, MessageSendParams};
//!
//! # async fn run() -> Result<(), a2a_client::ClientError> {
//! let card = fetch_agent_card("http://127.0.0.1:8080").await?;
//! let agent = JsonRpcTransport::new(card.url);
//! let reply = agent.send_message(MessageSendParams::new(Message::user_text("m-1", "hi"))).await?;
//! # let _ = reply; Ok(()) }
//! ```
//!
//! Errors: a JSON-RPC error object becomes [`ClientError::A2a`] with
//! [`A2aError::from_code`]; a failure to connect or a connection lost (and
//! HTTP 502/503/504 from a gateway) is [`ClientError::Unreachable`]; any other
//! answer that is not a JSON-RPC response (wrong status with a non-JSON-RPC
//! body, malformed JSON, a result of the wrong shape) is
//! [`ClientError::InvalidResponse`].
//!
//! Streams: the SSE parser tolerates `\r\n` line ends, comments (keep-alive
//! pings) and multi-line `data:`. The streaming calls wait for the first
//! event: an error sent as the first event (for example `TaskNotFoundError`
//! on resubscribe) is returned by the call itself, not inside the stream. A
//! later error event is the stream's last item. A server that answers a
//! streaming call with plain `application/json` (an error, or one result) is
//! understood too.

use std::sync::atomic::{AtomicI64, Ordering};

use a2a_types::jsonrpc::{JsonRpcRequest, Version};
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
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

use crate::card::CardResolver;
pub use crate::card::{AGENT_CARD_PATH, LEGACY_AGENT_CARD_PATH};
use crate::interceptor::{CallInterceptor, Chain, Operation};
use crate::util::{
    APPLICATION_JSON, HttpBase, TEXT_EVENT_STREAM, is_event_stream, is_gateway_error, read_body,
    sse_events,
};
use crate::{ClientError, EventStream, Transport};

/// The JSON-RPC 2.0 client transport (`"JSONRPC"` in agent cards).
///
/// Cheap to share behind an `Arc`; request ids are integers counting up from
/// 1 per transport.
#[derive(Debug)]
pub struct JsonRpcTransport {
    url: String,
    http: HttpBase,
    next_id: AtomicI64,
}

impl JsonRpcTransport {
    /// A transport posting to `url` (the card's `url`, or the `url` of its
    /// `JSONRPC` interface), with a default `reqwest::Client`.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            http: HttpBase::default(),
            next_id: AtomicI64::new(1),
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

    /// The URL requests are posted to.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    fn request_body<P: Serialize>(
        &self,
        method: &str,
        params: Option<&P>,
    ) -> Result<Vec<u8>, ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let request = JsonRpcRequest {
            jsonrpc: Version,
            id: Some(id.into()),
            method: method.to_owned(),
            params,
        };
        serde_json::to_vec(&request).map_err(|e| {
            ClientError::InvalidResponse(format!("could not encode the {method} request: {e}"))
        })
    }

    async fn post(
        &self,
        op: Operation,
        body: Vec<u8>,
        accept: &'static str,
    ) -> Result<reqwest::Response, ClientError> {
        self.http
            .send(
                op,
                a2a_types::TRANSPORT_JSONRPC,
                Method::POST,
                &self.url,
                accept,
                Some(body),
            )
            .await
    }

    /// One unary call.
    async fn call<P: Serialize, R: DeserializeOwned>(
        &self,
        op: Operation,
        params: Option<&P>,
    ) -> Result<R, ClientError> {
        let method = op.json_rpc_method();
        let body = self.request_body(method, params)?;
        let response = self.post(op, body, APPLICATION_JSON).await?;
        let status = response.status();
        let bytes = read_body(response).await?;
        decode_unary(method, status, &bytes)
    }

    /// One streaming call; waits for the first event (see the module docs).
    async fn stream<P: Serialize>(
        &self,
        op: Operation,
        params: &P,
    ) -> Result<EventStream, ClientError> {
        let method = op.json_rpc_method();
        let body = self.request_body(method, Some(params))?;
        let response = self.post(op, body, TEXT_EVENT_STREAM).await?;
        let status = response.status();
        let is_sse = is_event_stream(response.headers().get(CONTENT_TYPE));
        if !is_sse {
            let bytes = read_body(response).await?;
            let event: StreamResponse = decode_unary(method, status, &bytes)?;
            return Ok(Box::pin(futures::stream::once(async move { Ok(event) })));
        }
        if !status.is_success() {
            return Err(status_error(status, b""));
        }
        let mut events = sse_events(response, |event| decode_event(&event.data));
        match events.next().await {
            None => Ok(Box::pin(futures::stream::empty())),
            Some(Err(e)) => Err(e),
            Some(Ok(first)) => Ok(Box::pin(
                futures::stream::once(async move { Ok(first) }).chain(events),
            )),
        }
    }
}

#[async_trait]
impl Transport for JsonRpcTransport {
    fn name(&self) -> &'static str {
        a2a_types::TRANSPORT_JSONRPC
    }

    async fn send_message(
        &self,
        params: MessageSendParams,
    ) -> Result<SendMessageResult, ClientError> {
        self.call(Operation::SendMessage, Some(&params)).await
    }

    async fn send_message_stream(
        &self,
        params: MessageSendParams,
    ) -> Result<EventStream, ClientError> {
        self.stream(Operation::SendStreamingMessage, &params).await
    }

    async fn get_task(&self, params: TaskQueryParams) -> Result<Task, ClientError> {
        self.call(Operation::GetTask, Some(&params)).await
    }

    async fn cancel_task(&self, params: TaskIdParams) -> Result<Task, ClientError> {
        self.call(Operation::CancelTask, Some(&params)).await
    }

    async fn resubscribe_task(&self, params: TaskIdParams) -> Result<EventStream, ClientError> {
        self.stream(Operation::ResubscribeTask, &params).await
    }

    async fn set_push_config(
        &self,
        params: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, ClientError> {
        self.call(Operation::SetPushConfig, Some(&params)).await
    }

    async fn get_push_config(
        &self,
        params: GetTaskPushNotificationConfigParams,
    ) -> Result<TaskPushNotificationConfig, ClientError> {
        self.call(Operation::GetPushConfig, Some(&params)).await
    }

    async fn list_push_configs(
        &self,
        params: ListTaskPushNotificationConfigParams,
    ) -> Result<Vec<TaskPushNotificationConfig>, ClientError> {
        self.call(Operation::ListPushConfigs, Some(&params)).await
    }

    async fn delete_push_config(
        &self,
        params: DeleteTaskPushNotificationConfigParams,
    ) -> Result<(), ClientError> {
        // The result is `null`; any result is accepted, and so is a success
        // response without `result` (the Python SDK server drops the
        // `"result": null` member).
        let op = Operation::DeletePushConfig;
        let method = op.json_rpc_method();
        let body = self.request_body(method, Some(&params))?;
        let response = self.post(op, body, APPLICATION_JSON).await?;
        let status = response.status();
        let bytes = read_body(response).await?;
        if status.is_success() && is_result_less_success(&bytes) {
            return Ok(());
        }
        let IgnoredAny = decode_unary(method, status, &bytes)?;
        Ok(())
    }

    async fn get_extended_agent_card(&self) -> Result<AgentCard, ClientError> {
        self.call(Operation::GetExtendedAgentCard, None::<&()>)
            .await
    }
}

/// Fetches the agent card from `base_url`: `{base_url}/.well-known/agent-card.json`,
/// then the legacy `{base_url}/.well-known/agent.json` when the first is
/// missing. A `base_url` ending in `.json` is fetched as is. See
/// [`CardResolver`] for custom paths, headers and interceptors.
pub async fn fetch_agent_card(base_url: &str) -> Result<AgentCard, ClientError> {
    CardResolver::new(base_url).resolve().await
}

/// [`fetch_agent_card`] with a given `reqwest::Client`.
pub async fn fetch_agent_card_with(
    client: &reqwest::Client,
    base_url: &str,
) -> Result<AgentCard, ClientError> {
    CardResolver::new(base_url)
        .with_client(client.clone())
        .resolve()
        .await
}

/// A non-2xx answer that carries no JSON-RPC error.
fn status_error(status: StatusCode, body: &[u8]) -> ClientError {
    if is_gateway_error(status) {
        return ClientError::Unreachable(format!("HTTP {status}"));
    }
    let text = String::from_utf8_lossy(body);
    let snippet: String = text.chars().take(200).collect();
    ClientError::InvalidResponse(format!("HTTP {status}: {snippet}"))
}

/// A JSON-RPC response, borrowed from the body: `result` is kept raw so that
/// it is decoded once, into its final type.
#[derive(Deserialize)]
struct RawReply<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<RawError>,
}

#[derive(Deserialize)]
struct RawError {
    code: i64,
    #[serde(default)]
    message: String,
    #[serde(default)]
    data: Option<serde_json::Value>,
}

/// `Some` for a present member, `null` included (the delete result).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

enum Reply<'a> {
    Result(&'a RawValue),
    Error(A2aError),
}

fn parse_reply(body: &[u8]) -> Result<Reply<'_>, String> {
    let reply: RawReply<'_> =
        serde_json::from_slice(body).map_err(|e| format!("not a JSON-RPC response: {e}"))?;
    match (reply.error, reply.result) {
        (Some(e), _) => {
            let code =
                i32::try_from(e.code).map_err(|_| format!("error code {} out of range", e.code))?;
            Ok(Reply::Error(A2aError::from_code(code, e.message, e.data)))
        }
        (None, Some(result)) => Ok(Reply::Result(result)),
        (None, None) => Err("a JSON-RPC response with neither `result` nor `error`".to_owned()),
    }
}

/// A JSON-RPC response object with neither `result` nor `error`: a `null`
/// result whose member was left out.
fn is_result_less_success(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(body).is_ok_and(|m| {
        m.get("jsonrpc").and_then(serde_json::Value::as_str) == Some("2.0")
            && !m.contains_key("result")
            && !m.contains_key("error")
    })
}

fn decode_unary<R: DeserializeOwned>(
    method: &str,
    status: StatusCode,
    body: &[u8],
) -> Result<R, ClientError> {
    match parse_reply(body) {
        Ok(Reply::Error(e)) => Err(ClientError::A2a(e)),
        Ok(Reply::Result(_)) | Err(_) if !status.is_success() => Err(status_error(status, body)),
        Ok(Reply::Result(raw)) => serde_json::from_str(raw.get())
            .map_err(|e| ClientError::InvalidResponse(format!("malformed {method} result: {e}"))),
        Err(msg) => Err(ClientError::InvalidResponse(msg)),
    }
}

fn decode_event(data: &str) -> Result<StreamResponse, ClientError> {
    match parse_reply(data.as_bytes()) {
        Ok(Reply::Error(e)) => Err(ClientError::A2a(e)),
        Ok(Reply::Result(raw)) => serde_json::from_str(raw.get())
            .map_err(|e| ClientError::InvalidResponse(format!("malformed stream event: {e}"))),
        Err(msg) => Err(ClientError::InvalidResponse(msg)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies() {
        let ok = br#"{"jsonrpc":"2.0","id":1,"result":null}"#;
        assert!(matches!(parse_reply(ok), Ok(Reply::Result(r)) if r.get() == "null"));
        let err = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"gone"}}"#;
        let Ok(Reply::Error(e)) = parse_reply(err) else {
            panic!("expected an error")
        };
        assert_eq!(e, A2aError::task_not_found("gone"));
        assert!(parse_reply(br#"{"jsonrpc":"2.0","id":1}"#).is_err());
        assert!(is_result_less_success(br#"{"jsonrpc":"2.0","id":1}"#));
        assert!(!is_result_less_success(
            br#"{"jsonrpc":"2.0","id":1,"result":null}"#
        ));
        assert!(!is_result_less_success(br#"{"id":1}"#));
        assert!(parse_reply(b"[]").is_err());
        assert!(parse_reply(br#"{"error":{"code":99999999999,"message":"x"}}"#).is_err());

        let e =
            decode_unary::<Task>("tasks/get", StatusCode::NOT_FOUND, b"<html>").expect_err("404");
        assert!(matches!(e, ClientError::InvalidResponse(m) if m.contains("404")));
        let e = decode_unary::<Task>("tasks/get", StatusCode::BAD_GATEWAY, b"").expect_err("502");
        assert!(matches!(e, ClientError::Unreachable(_)));
        let e = decode_unary::<Task>("tasks/get", StatusCode::UNAUTHORIZED, err).expect_err("401");
        assert_eq!(e.code(), Some(-32001));
        let e = decode_unary::<Task>(
            "tasks/get",
            StatusCode::OK,
            br#"{"result":{"kind":"message"}}"#,
        )
        .expect_err("shape");
        assert!(matches!(e, ClientError::InvalidResponse(_)));
    }
}
