//! Helpers shared by the HTTP-based transports and card discovery.

use http::StatusCode;

use crate::ClientError;

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
    const TEXT_EVENT_STREAM: &str = "text/event-stream";
    content_type
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| {
            ct.trim_start()
                .get(..TEXT_EVENT_STREAM.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(TEXT_EVENT_STREAM))
        })
}
