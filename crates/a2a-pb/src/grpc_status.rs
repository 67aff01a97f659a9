//! [`A2aError`] ↔ [`tonic::Status`]: the one gRPC error table, read in both
//! directions (features `grpc-server` or `grpc-client`).
//!
//! A2A v0.3.0 defines no gRPC mapping; [`STATUS_TABLE`] follows the Python SDK
//! where it is sensible and the v1.0 specification where the Python SDK is
//! not (`TaskNotCancelableError` → `FAILED_PRECONDITION`,
//! `ContentTypeNotSupportedError` → `INVALID_ARGUMENT`,
//! `AuthenticatedExtendedCardNotConfiguredError` → `FAILED_PRECONDITION`,
//! `MethodNotFoundError` → `UNIMPLEMENTED`). Any other error (a JSON-RPC code
//! outside the spec's) is `UNKNOWN`.
//!
//! # Encoding ([`to_status`])
//!
//! - the gRPC code from [`STATUS_TABLE`];
//! - the message `"<ErrorName>: <message>"`, e.g.
//!   `"TaskNotFoundError: Task not found"` (the Python SDK's format);
//! - metadata `a2a-error-code` (the JSON-RPC code, e.g. `-32001`) and
//!   `a2a-error-name` (e.g. `TaskNotFoundError`), and `a2a-error-data-bin`
//!   (the JSON of `data`) when the error has data.
//!
//! # Decoding ([`from_status`])
//!
//! The first that applies:
//!
//! 1. `a2a-error-code` metadata: that exact error, with the message (without
//!    its `"<ErrorName>: "` prefix) and the `data`. This recovers every
//!    [`A2aError`] exactly.
//! 2. A message `"<ErrorName>: <message>"` naming a spec error: that error
//!    (how Python SDK servers report errors, e.g. their
//!    `UNIMPLEMENTED "TaskNotCancelableError: …"`).
//! 3. The gRPC code: the **first** row of [`STATUS_TABLE`] with that code
//!    (so `INVALID_ARGUMENT` reads as `InvalidParamsError`, `UNIMPLEMENTED`
//!    as `UnsupportedOperationError`), with the status message.
//! 4. Otherwise (`UNAVAILABLE`, `DEADLINE_EXCEEDED`, `UNAUTHENTICATED`, …):
//!    `InternalError` with message `"<Code>: <message>"`.

use a2a_types::A2aError;
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::{Code, Status};

/// Metadata key carrying the JSON-RPC error code, e.g. `-32001`.
pub const ERROR_CODE_KEY: &str = "a2a-error-code";
/// Metadata key carrying the spec error name, e.g. `TaskNotFoundError`.
pub const ERROR_NAME_KEY: &str = "a2a-error-name";
/// Binary metadata key carrying the JSON of the error's `data`, when present.
pub const ERROR_DATA_KEY: &str = "a2a-error-data-bin";

/// One row of [`STATUS_TABLE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusMapping {
    /// The JSON-RPC error code ([`A2aError::code`]).
    pub json_rpc_code: i32,
    /// The spec error name ([`A2aError::name`]).
    pub name: &'static str,
    /// The gRPC status code.
    pub grpc_code: Code,
}

const fn row(json_rpc_code: i32, name: &'static str, grpc_code: Code) -> StatusMapping {
    StatusMapping {
        json_rpc_code,
        name,
        grpc_code,
    }
}

/// The A2A error ↔ gRPC code table. Every spec error appears once. The order
/// matters when decoding by gRPC code alone: the first row with a code wins.
pub const STATUS_TABLE: &[StatusMapping] = &[
    row(-32001, "TaskNotFoundError", Code::NotFound),
    row(-32602, "InvalidParamsError", Code::InvalidArgument),
    row(-32600, "InvalidRequestError", Code::InvalidArgument),
    row(
        -32005,
        "ContentTypeNotSupportedError",
        Code::InvalidArgument,
    ),
    row(-32002, "TaskNotCancelableError", Code::FailedPrecondition),
    row(
        -32007,
        "AuthenticatedExtendedCardNotConfiguredError",
        Code::FailedPrecondition,
    ),
    row(-32004, "UnsupportedOperationError", Code::Unimplemented),
    row(
        -32003,
        "PushNotificationNotSupportedError",
        Code::Unimplemented,
    ),
    row(-32601, "MethodNotFoundError", Code::Unimplemented),
    row(-32603, "InternalError", Code::Internal),
    row(-32006, "InvalidAgentResponseError", Code::Internal),
    row(-32700, "JSONParseError", Code::Internal),
];

/// The gRPC code of an error: its [`STATUS_TABLE`] row, or `UNKNOWN` for a
/// code outside the spec's.
#[must_use]
pub fn grpc_code(err: &A2aError) -> Code {
    STATUS_TABLE
        .iter()
        .find(|r| r.json_rpc_code == err.code())
        .map_or(Code::Unknown, |r| r.grpc_code)
}

/// The gRPC status for an error (see the [module docs](self) for its
/// message and metadata).
///
/// ```
/// use a2a_types::A2aError;
/// use a2a_pb::grpc_status::{from_status, to_status};
///
/// let err = A2aError::task_not_found("Task not found: t-1");
/// let status = to_status(&err);
/// assert_eq!(status.code(), tonic::Code::NotFound);
/// assert_eq!(status.message(), "TaskNotFoundError: Task not found: t-1");
/// assert_eq!(from_status(&status), err);
/// ```
#[must_use]
pub fn to_status(err: &A2aError) -> Status {
    let mut metadata = MetadataMap::new();
    if let Ok(v) = err.code().to_string().parse() {
        metadata.insert(ERROR_CODE_KEY, v);
    }
    if let Ok(v) = err.name().parse() {
        metadata.insert(ERROR_NAME_KEY, v);
    }
    if let Some(json) = err.data().and_then(|d| serde_json::to_vec(d).ok()) {
        metadata.insert_bin(ERROR_DATA_KEY, MetadataValue::from_bytes(&json));
    }
    Status::with_metadata(
        grpc_code(err),
        format!("{}: {}", err.name(), err.message()),
        metadata,
    )
}

/// The error a gRPC status reports (see the [module docs](self) for the
/// order of the rules). Never fails: an unrecognized status is an
/// `InternalError`.
#[must_use]
pub fn from_status(status: &Status) -> A2aError {
    let message = status.message();
    let metadata = status.metadata();

    if let Some(code) = metadata
        .get(ERROR_CODE_KEY)
        .and_then(|v| v.to_str().ok())
        .and_then(|s| s.trim().parse::<i32>().ok())
    {
        let name = metadata
            .get(ERROR_NAME_KEY)
            .and_then(|v| v.to_str().ok())
            .map_or_else(
                || A2aError::from_code(code, "", None).name().to_owned(),
                str::to_owned,
            );
        let message = message
            .strip_prefix(name.as_str())
            .and_then(|m| m.strip_prefix(": "))
            .unwrap_or(message);
        let data = metadata
            .get_bin(ERROR_DATA_KEY)
            .and_then(|v| v.to_bytes().ok())
            .and_then(|b| serde_json::from_slice(&b).ok());
        return A2aError::from_code(code, message, data);
    }

    if let Some(err) = message
        .split_once(": ")
        .and_then(|(name, rest)| A2aError::from_name(name, rest, None))
    {
        return err;
    }

    match STATUS_TABLE.iter().find(|r| r.grpc_code == status.code()) {
        Some(r) => A2aError::from_code(r.json_rpc_code, message, None),
        None => A2aError::internal(format!("{:?}: {message}", status.code())),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn every_spec_error() -> Vec<A2aError> {
        a2a_types::SPEC_ERROR_CODES
            .iter()
            .map(|&code| A2aError::from_code(code, "something went wrong ✗", None))
            .collect()
    }

    /// What a client sees: the status written to headers and read back.
    fn over_the_wire(status: &Status) -> Status {
        let mut headers = http::HeaderMap::new();
        status.add_header(&mut headers).expect("encodable status");
        Status::from_header_map(&headers).expect("a grpc-status header")
    }

    #[test]
    fn table_covers_every_spec_error_once_with_its_name() {
        let mut codes: Vec<i32> = STATUS_TABLE.iter().map(|r| r.json_rpc_code).collect();
        codes.sort_unstable();
        let mut spec = a2a_types::SPEC_ERROR_CODES.to_vec();
        spec.sort_unstable();
        assert_eq!(codes, spec);
        for r in STATUS_TABLE {
            assert_eq!(
                A2aError::from_code(r.json_rpc_code, "", None).name(),
                r.name
            );
        }
    }

    #[test]
    fn every_error_round_trips_exactly_over_the_wire() {
        let mut errors = every_spec_error();
        errors.push(A2aError::from_code(
            -32050,
            "custom",
            Some(json!({"retry": 3})),
        ));
        errors.push(A2aError::task_not_found("gone").with_data(json!(["a", 1])));
        for err in errors {
            let status = over_the_wire(&to_status(&err));
            assert_eq!(status.code(), grpc_code(&err));
            assert_eq!(from_status(&status), err);
        }
    }

    #[test]
    fn documented_codes() {
        let code = |e: A2aError| grpc_code(&e);
        assert_eq!(code(A2aError::task_not_found("")), Code::NotFound);
        assert_eq!(code(A2aError::invalid_params("")), Code::InvalidArgument);
        assert_eq!(code(A2aError::invalid_request("")), Code::InvalidArgument);
        assert_eq!(
            code(A2aError::task_not_cancelable("")),
            Code::FailedPrecondition
        );
        assert_eq!(
            code(A2aError::push_notification_not_supported("")),
            Code::Unimplemented
        );
        assert_eq!(
            code(A2aError::unsupported_operation("")),
            Code::Unimplemented
        );
        assert_eq!(code(A2aError::method_not_found("")), Code::Unimplemented);
        assert_eq!(
            code(A2aError::content_type_not_supported("")),
            Code::InvalidArgument
        );
        assert_eq!(code(A2aError::invalid_agent_response("")), Code::Internal);
        assert_eq!(code(A2aError::internal("")), Code::Internal);
        assert_eq!(code(A2aError::json_parse("")), Code::Internal);
        assert_eq!(
            code(A2aError::extended_card_not_configured("")),
            Code::FailedPrecondition
        );
        assert_eq!(code(A2aError::from_code(-32099, "", None)), Code::Unknown);
    }

    #[test]
    fn python_sdk_statuses_are_recognized_by_name() {
        let status = Status::unimplemented("TaskNotCancelableError: Task cannot be canceled");
        assert_eq!(
            from_status(&status),
            A2aError::task_not_cancelable("Task cannot be canceled")
        );
        let status = Status::not_found("TaskNotFoundError: Task not found");
        assert_eq!(
            from_status(&status),
            A2aError::task_not_found("Task not found")
        );
    }

    #[test]
    fn bare_statuses_fall_back_to_the_first_row_or_internal() {
        assert_eq!(
            from_status(&Status::invalid_argument("bad")),
            A2aError::invalid_params("bad")
        );
        assert_eq!(
            from_status(&Status::unimplemented("no such method")),
            A2aError::unsupported_operation("no such method")
        );
        assert_eq!(
            from_status(&Status::unavailable("connection refused")),
            A2aError::internal("Unavailable: connection refused")
        );
    }
}
