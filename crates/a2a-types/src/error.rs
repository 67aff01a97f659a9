//! The one error type of the protocol, [`A2aError`].
//!
//! Every transport maps it with exactly one table of its own: JSON-RPC carries
//! [`A2aError::code`] as the `error.code`, gRPC maps it to a status code (in
//! `a2a-pb`), REST maps it to an HTTP status (in `a2a-http-json`).

use serde_json::Value;

macro_rules! a2a_errors {
    ($(
        $(#[$doc:meta])*
        $variant:ident = ($code:expr, $name:literal, $default:literal, $ctor:ident)
    ),* $(,)?) => {
        /// An A2A protocol error: the JSON-RPC standard errors (-32700…-32603)
        /// and the A2A-specific ones (-32001…-32007), each with a message and an
        /// optional free-form `data` payload.
        ///
        /// The JSON-RPC code, the spec name and the default message of each
        /// variant are defined in one table (this enum's definition); every
        /// transport maps the variants with one table of its own.
        #[derive(Debug, Clone, PartialEq, thiserror::Error)]
        #[non_exhaustive]
        pub enum A2aError {
            $(
                $(#[$doc])*
                #[error("{message}")]
                $variant {
                    /// Human-readable description of this occurrence.
                    message: String,
                    /// Optional structured detail.
                    data: Option<Value>,
                },
            )*
            /// Any other JSON-RPC error code, such as the server-defined range
            /// -32000…-32099, received from a peer. Never produced by this
            /// implementation's own server.
            #[error("{message}")]
            Other {
                /// The JSON-RPC error code.
                code: i32,
                /// Human-readable description.
                message: String,
                /// Optional structured detail.
                data: Option<Value>,
            },
        }

        impl A2aError {
            /// The JSON-RPC error code of this error (e.g. -32001).
            #[must_use]
            pub fn code(&self) -> i32 {
                match self {
                    $(Self::$variant { .. } => $code,)*
                    Self::Other { code, .. } => *code,
                }
            }

            /// The spec name of the error (e.g. `TaskNotFoundError`).
            #[must_use]
            pub fn name(&self) -> &'static str {
                match self {
                    $(Self::$variant { .. } => $name,)*
                    Self::Other { .. } => "JSONRPCError",
                }
            }

            /// The human-readable message of this occurrence.
            #[must_use]
            pub fn message(&self) -> &str {
                match self {
                    $(Self::$variant { message, .. })|* | Self::Other { message, .. } => message,
                }
            }

            /// The optional `data` payload.
            #[must_use]
            pub fn data(&self) -> Option<&Value> {
                match self {
                    $(Self::$variant { data, .. })|* | Self::Other { data, .. } => data.as_ref(),
                }
            }

            /// Returns this error with `data` set.
            #[must_use]
            pub fn with_data(mut self, value: Value) -> Self {
                match &mut self {
                    $(Self::$variant { data, .. })|* | Self::Other { data, .. } => *data = Some(value),
                }
                self
            }

            /// Builds the error that a peer reported with `code`, `message` and
            /// `data`. Unknown codes become [`A2aError::Other`].
            #[must_use]
            pub fn from_code(code: i32, message: impl Into<String>, data: Option<Value>) -> Self {
                let message = message.into();
                match code {
                    $($code => Self::$variant { message, data },)*
                    _ => Self::Other { code, message, data },
                }
            }

            /// Builds the error with the given spec name (e.g. `TaskNotFoundError`),
            /// or `None` when the name is not one of the spec's.
            #[must_use]
            pub fn from_name(name: &str, message: impl Into<String>, data: Option<Value>) -> Option<Self> {
                let message = message.into();
                match name {
                    $($name => Some(Self::$variant { message, data }),)*
                    _ => None,
                }
            }

            /// The schema's default message for a JSON-RPC `code`, if it is one
            /// of the spec's codes.
            #[must_use]
            pub fn default_message(code: i32) -> Option<&'static str> {
                match code {
                    $($code => Some($default),)*
                    _ => None,
                }
            }

            $(
                #[doc = concat!("Builds a `", $name, "` (", stringify!($code), ") with the given message.")]
                #[must_use]
                pub fn $ctor(message: impl Into<String>) -> Self {
                    Self::$variant { message: message.into(), data: None }
                }
            )*
        }

        /// Every JSON-RPC code defined by the spec, in table order.
        pub const SPEC_ERROR_CODES: &[i32] = &[$($code),*];
    };
}

a2a_errors! {
    /// -32700: the request body is not valid JSON.
    JsonParse = (-32700, "JSONParseError", "Invalid JSON payload", json_parse),
    /// -32600: the JSON is not a valid JSON-RPC request.
    InvalidRequest = (-32600, "InvalidRequestError", "Request payload validation error", invalid_request),
    /// -32601: the method does not exist or is not available.
    MethodNotFound = (-32601, "MethodNotFoundError", "Method not found", method_not_found),
    /// -32602: the method parameters are invalid.
    InvalidParams = (-32602, "InvalidParamsError", "Invalid parameters", invalid_params),
    /// -32603: an internal error on the server.
    Internal = (-32603, "InternalError", "Internal error", internal),
    /// -32001: the task id does not exist (or has expired).
    TaskNotFound = (-32001, "TaskNotFoundError", "Task not found", task_not_found),
    /// -32002: the task cannot be canceled, e.g. it is already terminal.
    TaskNotCancelable = (-32002, "TaskNotCancelableError", "Task cannot be canceled", task_not_cancelable),
    /// -32003: the agent does not support push notifications.
    PushNotificationNotSupported = (-32003, "PushNotificationNotSupportedError", "Push Notification is not supported", push_notification_not_supported),
    /// -32004: the operation is not supported by this agent.
    UnsupportedOperation = (-32004, "UnsupportedOperationError", "This operation is not supported", unsupported_operation),
    /// -32005: the requested or sent content types are not supported.
    ContentTypeNotSupported = (-32005, "ContentTypeNotSupportedError", "Incompatible content types", content_type_not_supported),
    /// -32006: the agent produced a response that breaks the protocol.
    InvalidAgentResponse = (-32006, "InvalidAgentResponseError", "Invalid agent response", invalid_agent_response),
    /// -32007: the agent has no authenticated extended card configured.
    AuthenticatedExtendedCardNotConfigured = (-32007, "AuthenticatedExtendedCardNotConfiguredError", "Authenticated Extended Card is not configured", extended_card_not_configured),
}

impl A2aError {
    /// `TaskNotFoundError` naming the task id.
    #[must_use]
    pub fn task_not_found_id(task_id: &str) -> Self {
        Self::task_not_found(format!("Task not found: {task_id}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_names_and_round_trip() {
        for &code in SPEC_ERROR_CODES {
            let e = A2aError::from_code(code, "m", None);
            assert_eq!(e.code(), code);
            assert!(!matches!(e, A2aError::Other { .. }));
            let again = A2aError::from_name(e.name(), "m", None).expect("known name");
            assert_eq!(again, e);
            assert!(A2aError::default_message(code).is_some());
        }
        assert_eq!(A2aError::task_not_found("x").code(), -32001);
        assert_eq!(A2aError::task_not_found("x").name(), "TaskNotFoundError");
        let other = A2aError::from_code(-32050, "custom", Some(serde_json::json!({"a":1})));
        assert_eq!(other.code(), -32050);
        assert_eq!(other.data(), Some(&serde_json::json!({"a":1})));
        assert_eq!(SPEC_ERROR_CODES.len(), 12);
    }
}
