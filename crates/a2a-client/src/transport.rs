//! The [`Transport`] trait: the client-side mirror of the server's
//! `RequestHandler`, one implementation per wire binding.

use a2a_types::{
    A2aError, AgentCard, DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams, ListTaskPushNotificationConfigParams, MessageSendParams,
    SendMessageResult, StreamResponse, Task, TaskIdParams, TaskPushNotificationConfig,
    TaskQueryParams,
};
use async_trait::async_trait;
use futures::stream::BoxStream;

/// A stream of events from `message/stream` or `tasks/resubscribe`.
pub type EventStream = BoxStream<'static, Result<StreamResponse, ClientError>>;

/// What can go wrong on the client side.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The agent answered with an A2A error: the same value whatever the
    /// transport.
    #[error("{0}")]
    A2a(#[from] A2aError),
    /// The agent could not be reached (connection refused, DNS, TLS, timeout
    /// before any answer). A client with several transports falls back to the
    /// next one on this error.
    #[error("agent unreachable: {0}")]
    Unreachable(String),
    /// The agent answered something that is not valid for the protocol
    /// (malformed body, wrong content type, unexpected status).
    #[error("invalid response from the agent: {0}")]
    InvalidResponse(String),
    /// The agent card declares no interface this client can use (no
    /// transport in common, or none compiled in).
    #[error("no usable transport: {0}")]
    NoTransport(String),
    /// An interceptor refused the call; nothing was sent.
    #[error("refused by an interceptor: {0}")]
    Interceptor(String),
}

impl ClientError {
    /// The A2A error, if the agent answered with one.
    #[must_use]
    pub fn as_a2a(&self) -> Option<&A2aError> {
        match self {
            Self::A2a(e) => Some(e),
            _ => None,
        }
    }

    /// The JSON-RPC code of the A2A error, if the agent answered with one.
    #[must_use]
    pub fn code(&self) -> Option<i32> {
        self.as_a2a().map(A2aError::code)
    }

    /// True for [`ClientError::Unreachable`]: the one error on which a
    /// [`Client`](crate::Client) falls back to the next transport.
    #[must_use]
    pub fn is_unreachable(&self) -> bool {
        matches!(self, Self::Unreachable(_))
    }
}

/// One wire binding, client side. Every method names its three wire forms
/// like the server's `RequestHandler` does.
#[async_trait]
pub trait Transport: Send + Sync + 'static {
    /// The transport name as written in agent cards (`"JSONRPC"`, `"GRPC"`,
    /// `"HTTP+JSON"`).
    fn name(&self) -> &'static str;

    /// JSON-RPC `message/send` · gRPC `SendMessage` · REST `POST /v1/message:send`.
    async fn send_message(
        &self,
        params: MessageSendParams,
    ) -> Result<SendMessageResult, ClientError>;

    /// JSON-RPC `message/stream` · gRPC `SendStreamingMessage` · REST `POST /v1/message:stream`.
    async fn send_message_stream(
        &self,
        params: MessageSendParams,
    ) -> Result<EventStream, ClientError>;

    /// JSON-RPC `tasks/get` · gRPC `GetTask` · REST `GET /v1/tasks/{id}`.
    async fn get_task(&self, params: TaskQueryParams) -> Result<Task, ClientError>;

    /// JSON-RPC `tasks/cancel` · gRPC `CancelTask` · REST `POST /v1/tasks/{id}:cancel`.
    async fn cancel_task(&self, params: TaskIdParams) -> Result<Task, ClientError>;

    /// JSON-RPC `tasks/resubscribe` · gRPC `TaskSubscription` · REST `GET /v1/tasks/{id}:subscribe`.
    async fn resubscribe_task(&self, params: TaskIdParams) -> Result<EventStream, ClientError>;

    /// JSON-RPC `tasks/pushNotificationConfig/set` · gRPC `CreateTaskPushNotificationConfig` ·
    /// REST `POST /v1/tasks/{id}/pushNotificationConfigs`.
    async fn set_push_config(
        &self,
        params: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, ClientError>;

    /// JSON-RPC `tasks/pushNotificationConfig/get` · gRPC `GetTaskPushNotificationConfig` ·
    /// REST `GET /v1/tasks/{id}/pushNotificationConfigs/{configId}`.
    async fn get_push_config(
        &self,
        params: GetTaskPushNotificationConfigParams,
    ) -> Result<TaskPushNotificationConfig, ClientError>;

    /// JSON-RPC `tasks/pushNotificationConfig/list` · gRPC `ListTaskPushNotificationConfig` ·
    /// REST `GET /v1/tasks/{id}/pushNotificationConfigs`.
    async fn list_push_configs(
        &self,
        params: ListTaskPushNotificationConfigParams,
    ) -> Result<Vec<TaskPushNotificationConfig>, ClientError>;

    /// JSON-RPC `tasks/pushNotificationConfig/delete` · gRPC `DeleteTaskPushNotificationConfig` ·
    /// REST `DELETE /v1/tasks/{id}/pushNotificationConfigs/{configId}`.
    async fn delete_push_config(
        &self,
        params: DeleteTaskPushNotificationConfigParams,
    ) -> Result<(), ClientError>;

    /// JSON-RPC `agent/getAuthenticatedExtendedCard` · gRPC `GetAgentCard` · REST `GET /v1/card`.
    async fn get_extended_agent_card(&self) -> Result<AgentCard, ClientError>;
}
