//! The JSON-RPC 2.0 envelope: requests, responses, error objects, method
//! names. Shared by the JSON-RPC server adapter and the client transport.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::A2aError;

/// `message/send` (gRPC `SendMessage`, REST `POST /v1/message:send`).
pub const METHOD_MESSAGE_SEND: &str = "message/send";
/// `message/stream` (gRPC `SendStreamingMessage`, REST `POST /v1/message:stream`).
pub const METHOD_MESSAGE_STREAM: &str = "message/stream";
/// `tasks/get` (gRPC `GetTask`, REST `GET /v1/tasks/{id}`).
pub const METHOD_TASKS_GET: &str = "tasks/get";
/// `tasks/cancel` (gRPC `CancelTask`, REST `POST /v1/tasks/{id}:cancel`).
pub const METHOD_TASKS_CANCEL: &str = "tasks/cancel";
/// `tasks/resubscribe` (gRPC `TaskSubscription`, REST `GET|POST /v1/tasks/{id}:subscribe`).
pub const METHOD_TASKS_RESUBSCRIBE: &str = "tasks/resubscribe";
/// `tasks/pushNotificationConfig/set` (gRPC `CreateTaskPushNotificationConfig`).
pub const METHOD_PUSH_CONFIG_SET: &str = "tasks/pushNotificationConfig/set";
/// `tasks/pushNotificationConfig/get` (gRPC `GetTaskPushNotificationConfig`).
pub const METHOD_PUSH_CONFIG_GET: &str = "tasks/pushNotificationConfig/get";
/// `tasks/pushNotificationConfig/list` (gRPC `ListTaskPushNotificationConfig`).
pub const METHOD_PUSH_CONFIG_LIST: &str = "tasks/pushNotificationConfig/list";
/// `tasks/pushNotificationConfig/delete` (gRPC `DeleteTaskPushNotificationConfig`).
pub const METHOD_PUSH_CONFIG_DELETE: &str = "tasks/pushNotificationConfig/delete";
/// `agent/getAuthenticatedExtendedCard` (gRPC `GetAgentCard`, REST `GET /v1/card`).
pub const METHOD_GET_EXTENDED_CARD: &str = "agent/getAuthenticatedExtendedCard";

/// Every method of the A2A JSON-RPC binding.
pub const METHODS: &[&str] = &[
    METHOD_MESSAGE_SEND,
    METHOD_MESSAGE_STREAM,
    METHOD_TASKS_GET,
    METHOD_TASKS_CANCEL,
    METHOD_TASKS_RESUBSCRIBE,
    METHOD_PUSH_CONFIG_SET,
    METHOD_PUSH_CONFIG_GET,
    METHOD_PUSH_CONFIG_LIST,
    METHOD_PUSH_CONFIG_DELETE,
    METHOD_GET_EXTENDED_CARD,
];

/// A JSON-RPC request id: a string, an integer or `null`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// A string id.
    String(String),
    /// An integer id.
    Number(i64),
    /// An explicit `null`.
    #[default]
    Null,
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        Self::Number(n)
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        Self::String(s)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        Self::String(s.to_owned())
    }
}

/// The `"2.0"` version marker; (de)serialises only as that exact string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Version;

impl Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str("2.0")
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        if v == "2.0" {
            Ok(Self)
        } else {
            Err(serde::de::Error::custom(format!(
                "jsonrpc must be \"2.0\", got {v:?}"
            )))
        }
    }
}

fn none<T>() -> Option<T> {
    None
}

/// A JSON-RPC request with typed params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcRequest<P> {
    /// Always `"2.0"`.
    pub jsonrpc: Version,
    /// The id (absent for notifications).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// The method name.
    pub method: String,
    /// The parameters.
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

impl<P> JsonRpcRequest<P> {
    /// A request with the given id, method and params.
    pub fn new(id: impl Into<RequestId>, method: impl Into<String>, params: P) -> Self {
        Self {
            jsonrpc: Version,
            id: Some(id.into()),
            method: method.into(),
            params: Some(params),
        }
    }
}

/// The `error` member of a JSON-RPC error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcError {
    /// The error code.
    pub code: i32,
    /// A short description.
    pub message: String,
    /// Optional detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl From<&A2aError> for JsonRpcError {
    fn from(e: &A2aError) -> Self {
        Self {
            code: e.code(),
            message: e.message().to_owned(),
            data: e.data().cloned(),
        }
    }
}

impl From<A2aError> for JsonRpcError {
    fn from(e: A2aError) -> Self {
        Self::from(&e)
    }
}

impl From<JsonRpcError> for A2aError {
    fn from(e: JsonRpcError) -> Self {
        A2aError::from_code(e.code, e.message, e.data)
    }
}

/// A JSON-RPC response: exactly one of `result` or `error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JsonRpcResponse<R> {
    /// A success response.
    Success {
        /// Always `"2.0"`.
        jsonrpc: Version,
        /// The request's id.
        id: RequestId,
        /// The result.
        result: R,
    },
    /// An error response.
    Error {
        /// Always `"2.0"`.
        jsonrpc: Version,
        /// The request's id, or `null` when it could not be read.
        id: RequestId,
        /// The error.
        error: JsonRpcError,
    },
}

impl<R> JsonRpcResponse<R> {
    /// A success response.
    pub fn success(id: RequestId, result: R) -> Self {
        Self::Success {
            jsonrpc: Version,
            id,
            result,
        }
    }

    /// An error response.
    pub fn error(id: RequestId, error: impl Into<JsonRpcError>) -> Self {
        Self::Error {
            jsonrpc: Version,
            id,
            error: error.into(),
        }
    }

    /// The result, or the error as an [`A2aError`].
    pub fn into_result(self) -> Result<R, A2aError> {
        match self {
            Self::Success { result, .. } => Ok(result),
            Self::Error { error, .. } => Err(error.into()),
        }
    }
}
