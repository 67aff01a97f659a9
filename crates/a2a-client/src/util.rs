//! Helpers shared by the HTTP-based transports and card discovery.

use a2a_types::StreamResponse;
use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures::StreamExt;
use http::header::{ACCEPT, CONTENT_TYPE};
use http::{HeaderMap, Method, StatusCode};

use crate::interceptor::{Chain, Operation};
use crate::{ClientError, EventStream};

pub(crate) const APPLICATION_JSON: &str = "application/json";
pub(crate) const TEXT_EVENT_STREAM: &str = "text/event-stream";

/// What an HTTP transport (or the card resolver) sends every request with:
/// the `reqwest` client, the fixed headers and the interceptors.
#[derive(Debug, Clone, Default)]
pub(crate) struct HttpBase {
    pub(crate) client: reqwest::Client,
    pub(crate) headers: HeaderMap,
    pub(crate) interceptors: Chain,
}

impl HttpBase {
    /// The headers of one call: the fixed ones, then what the interceptors
    /// set.
    pub(crate) async fn call_headers(
        &self,
        op: Operation,
        transport: &'static str,
    ) -> Result<HeaderMap, ClientError> {
        self.interceptors
            .headers(op, transport, &self.headers)
            .await
    }

    /// Sends `method url` with `headers`, `Accept: accept` and, when given,
    /// a JSON `body`. A failure to connect is [`ClientError::Unreachable`].
    pub(crate) async fn send_with(
        &self,
        headers: HeaderMap,
        method: Method,
        url: &str,
        accept: &'static str,
        body: Option<Vec<u8>>,
    ) -> Result<reqwest::Response, ClientError> {
        let mut request = self
            .client
            .request(method, url)
            .headers(headers)
            .header(ACCEPT, accept);
        if let Some(body) = body {
            request = request.header(CONTENT_TYPE, APPLICATION_JSON).body(body);
        }
        request.send().await.map_err(|e| unreachable(&e))
    }

    /// One call: runs the interceptors for `op`, then
    /// [`send_with`](Self::send_with) their headers.
    #[cfg_attr(not(any(feature = "jsonrpc", feature = "rest")), allow(dead_code))]
    pub(crate) async fn send(
        &self,
        op: Operation,
        transport: &'static str,
        method: Method,
        url: &str,
        accept: &'static str,
        body: Option<Vec<u8>>,
    ) -> Result<reqwest::Response, ClientError> {
        let headers = self.call_headers(op, transport).await?;
        self.send_with(headers, method, url, accept, body).await
    }
}

/// The whole body of `response`; a connection lost while reading is
/// [`ClientError::Unreachable`].
pub(crate) async fn read_body(response: reqwest::Response) -> Result<bytes::Bytes, ClientError> {
    response.bytes().await.map_err(|e| unreachable(&e))
}

/// A connection-level failure, with the causes (reqwest's own message
/// rarely says why).
pub(crate) fn unreachable(e: &reqwest::Error) -> ClientError {
    let mut msg = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    ClientError::Unreachable(msg)
}

/// 502, 503 and 504: a gateway could not reach the agent.
pub(crate) fn is_gateway_error(status: StatusCode) -> bool {
    matches!(
        status,
        StatusCode::BAD_GATEWAY | StatusCode::SERVICE_UNAVAILABLE | StatusCode::GATEWAY_TIMEOUT
    )
}

/// True when a `Content-Type` value is `text/event-stream` (any parameters).
#[cfg_attr(not(any(feature = "jsonrpc", feature = "rest")), allow(dead_code))]
pub(crate) fn is_event_stream(content_type: Option<&http::HeaderValue>) -> bool {
    content_type
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| {
            ct.trim_start()
                .get(..TEXT_EVENT_STREAM.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(TEXT_EVENT_STREAM))
        })
}

/// The events of an SSE body, each decoded by `decode`; events without data
/// are skipped, and the stream ends after its first error.
#[cfg_attr(not(any(feature = "jsonrpc", feature = "rest")), allow(dead_code))]
pub(crate) fn sse_events(
    response: reqwest::Response,
    decode: fn(&Event) -> Result<StreamResponse, ClientError>,
) -> EventStream {
    let sse = Box::pin(response.bytes_stream().eventsource());
    Box::pin(futures::stream::unfold(
        Some(sse),
        move |state| async move {
            let mut sse = state?;
            loop {
                return match sse.next().await? {
                    Ok(event) if event.data.trim().is_empty() => continue,
                    Ok(event) => match decode(&event) {
                        Ok(r) => Some((Ok(r), Some(sse))),
                        Err(e) => Some((Err(e), None)),
                    },
                    Err(EventStreamError::Transport(e)) => Some((Err(unreachable(&e)), None)),
                    Err(e) => Some((
                        Err(ClientError::InvalidResponse(format!(
                            "malformed event stream: {e}"
                        ))),
                        None,
                    )),
                };
            }
        },
    ))
}
