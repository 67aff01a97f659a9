//! The one error table of this binding ([`A2aError`] ↔ HTTP status) and the
//! one JSON error body ([`ErrorBody`]).

use a2a_types::A2aError;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The table: each A2A error code and its HTTP status, in order. Both
/// directions read it: [`http_status`] finds a code's row, and
/// [`error_for_status`] takes the **first** row with a status (so the order
/// says which error a bare status means).
const TABLE: &[(i32, StatusCode)] = &[
    (-32001, StatusCode::NOT_FOUND),              // TaskNotFoundError
    (-32007, StatusCode::NOT_FOUND),              // AuthenticatedExtendedCardNotConfiguredError
    (-32600, StatusCode::BAD_REQUEST),            // InvalidRequestError
    (-32700, StatusCode::BAD_REQUEST),            // JSONParseError
    (-32602, StatusCode::UNPROCESSABLE_ENTITY),   // InvalidParamsError
    (-32002, StatusCode::CONFLICT),               // TaskNotCancelableError
    (-32004, StatusCode::NOT_IMPLEMENTED),        // UnsupportedOperationError
    (-32003, StatusCode::NOT_IMPLEMENTED),        // PushNotificationNotSupportedError
    (-32601, StatusCode::NOT_IMPLEMENTED),        // MethodNotFoundError
    (-32005, StatusCode::UNSUPPORTED_MEDIA_TYPE), // ContentTypeNotSupportedError
    (-32006, StatusCode::BAD_GATEWAY),            // InvalidAgentResponseError
    (-32603, StatusCode::INTERNAL_SERVER_ERROR),  // InternalError
];

/// The HTTP status of an error (see the crate docs for the table). Codes
/// outside the spec ([`A2aError::Other`]) are `500`.
///
/// ```
/// use a2a_types::A2aError;
/// use axum::http::StatusCode;
///
/// assert_eq!(a2a_http_json::http_status(&A2aError::task_not_found("t")), StatusCode::NOT_FOUND);
/// assert_eq!(a2a_http_json::http_status(&A2aError::invalid_params("x")), StatusCode::UNPROCESSABLE_ENTITY);
/// ```
#[must_use]
pub fn http_status(err: &A2aError) -> StatusCode {
    let code = err.code();
    TABLE
        .iter()
        .find(|(c, _)| *c == code)
        .map_or(StatusCode::INTERNAL_SERVER_ERROR, |(_, s)| *s)
}

/// The reverse direction: the error a bare HTTP status stands for, when the
/// body does not say (a peer that does not send [`ErrorBody`], such as the
/// Python SDK's `{"message": …}`). `None` for a status outside the table.
///
/// ```
/// use axum::http::StatusCode;
///
/// let e = a2a_http_json::error_for_status(StatusCode::CONFLICT, "no").unwrap();
/// assert_eq!(e.name(), "TaskNotCancelableError");
/// assert!(a2a_http_json::error_for_status(StatusCode::IM_A_TEAPOT, "x").is_none());
/// ```
#[must_use]
pub fn error_for_status(status: StatusCode, message: impl Into<String>) -> Option<A2aError> {
    TABLE
        .iter()
        .find(|(_, s)| *s == status)
        .map(|(code, _)| A2aError::from_code(*code, message, None))
}

/// The JSON body of every error answer of this binding:
/// `{"error":"TaskNotFoundError","code":-32001,"message":"…","data":…}`
/// (`data` only when the error has some).
///
/// `error` is the spec's class name (what the A2A TCK reads), `code` the
/// JSON-RPC code: together they give back the exact [`A2aError`]
/// ([`ErrorBody::into_error`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The spec name of the error, e.g. `TaskNotFoundError`
    /// (`JSONRPCError` for a code outside the spec).
    pub error: String,
    /// The JSON-RPC error code, e.g. -32001.
    pub code: i32,
    /// The message of this occurrence (the spec's default message when the
    /// error has none).
    pub message: String,
    /// Optional structured detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl From<&A2aError> for ErrorBody {
    fn from(err: &A2aError) -> Self {
        let message = match err.message() {
            "" => A2aError::default_message(err.code()).unwrap_or("Error"),
            m => m,
        };
        Self {
            error: err.name().to_owned(),
            code: err.code(),
            message: message.to_owned(),
            data: err.data().cloned(),
        }
    }
}

impl ErrorBody {
    /// The error this body describes: by `code` (the exact variant, or
    /// [`A2aError::Other`] for a code outside the spec).
    #[must_use]
    pub fn into_error(self) -> A2aError {
        A2aError::from_code(self.code, self.message, self.data)
    }

    /// The body as JSON bytes.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_else(|_| {
            br#"{"error":"InternalError","code":-32603,"message":"Internal error"}"#.to_vec()
        })
    }
}

/// An [`A2aError`] as an axum response: the status of [`http_status`] and an
/// [`ErrorBody`] as `application/json`. Every failure of this binding's
/// unary routes is answered this way.
#[derive(Debug, Clone, PartialEq)]
pub struct RestError(pub A2aError);

impl From<A2aError> for RestError {
    fn from(err: A2aError) -> Self {
        Self(err)
    }
}

impl IntoResponse for RestError {
    fn into_response(self) -> Response {
        let status = http_status(&self.0);
        if status.is_server_error() {
            tracing::warn!(code = self.0.code(), error = %self.0, "request failed");
        } else {
            tracing::debug!(code = self.0.code(), error = %self.0, "request refused");
        }
        let mut response = (status, ErrorBody::from(&self.0).to_bytes()).into_response();
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spec_code_has_a_row_and_the_body_round_trips() {
        for &code in a2a_types::SPEC_ERROR_CODES {
            assert!(TABLE.iter().any(|(c, _)| *c == code), "{code} has no row");
            let e = A2aError::from_code(code, "m", Some(serde_json::json!({"k": 1})));
            let body: ErrorBody =
                serde_json::from_slice(&ErrorBody::from(&e).to_bytes()).expect("json");
            assert_eq!(body.error, e.name());
            assert_eq!(body.into_error(), e);
            // The reverse direction gives back an error with the same status.
            let back = error_for_status(http_status(&e), "m").expect("a row");
            assert_eq!(http_status(&back), http_status(&e));
        }
        assert_eq!(TABLE.len(), a2a_types::SPEC_ERROR_CODES.len());
        let other = A2aError::from_code(-32050, "x", None);
        assert_eq!(http_status(&other), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(ErrorBody::from(&other).into_error(), other);
        assert_eq!(
            ErrorBody::from(&A2aError::internal("")).message,
            "Internal error"
        );
    }

    #[test]
    fn bare_statuses_read_back_as_the_first_row() {
        let name = |s| error_for_status(s, "m").map(|e| e.name());
        assert_eq!(name(StatusCode::NOT_FOUND), Some("TaskNotFoundError"));
        assert_eq!(name(StatusCode::BAD_REQUEST), Some("InvalidRequestError"));
        assert_eq!(
            name(StatusCode::UNPROCESSABLE_ENTITY),
            Some("InvalidParamsError")
        );
        assert_eq!(
            name(StatusCode::NOT_IMPLEMENTED),
            Some("UnsupportedOperationError")
        );
        assert_eq!(
            name(StatusCode::BAD_GATEWAY),
            Some("InvalidAgentResponseError")
        );
        assert_eq!(name(StatusCode::OK), None);
    }
}
