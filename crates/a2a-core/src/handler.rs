//! [`RequestHandler`]: one method per protocol operation, the interface every
//! transport adapter calls.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use a2a_types::{
    A2aError, AgentCard, DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams, ListTaskPushNotificationConfigParams, MessageSendParams,
    SendMessageResult, StreamResponse, Task, TaskIdParams, TaskPushNotificationConfig,
    TaskQueryParams,
};
use async_trait::async_trait;
use futures::stream::BoxStream;

/// A stream of protocol events: the answer of `message/stream` and
/// `tasks/resubscribe`. It starts with the `Task` (or the single `Message`)
/// and ends after a terminal or interrupted state.
pub type EventStream = BoxStream<'static, Result<StreamResponse, A2aError>>;

/// The header (HTTP) or metadata key (gRPC) that lists the extensions a
/// client asks for, in lower case.
const EXTENSIONS_HEADER: &str = "x-a2a-extensions";

/// Transport-neutral facts about one call, filled in by the adapter.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    /// Extension URIs the client asked for (`X-A2A-Extensions` header or
    /// `x-a2a-extensions` gRPC metadata).
    pub requested_extensions: Vec<String>,
    /// The authenticated principal, when an authentication layer set one.
    pub user: Option<String>,
    /// Request headers (HTTP) or metadata (gRPC), names in lower case.
    ///
    /// Shared: the engine hands the context to the agent's
    /// [`RequestContext`](crate::RequestContext) without copying a header.
    /// Build or change it with [`headers_mut`](Self::headers_mut).
    pub headers: Arc<HashMap<String, String>>,
}

impl CallContext {
    /// The headers, for writing (copied first only if they are shared).
    pub fn headers_mut(&mut self) -> &mut HashMap<String, String> {
        Arc::make_mut(&mut self.headers)
    }

    /// The context of a call that carried these headers (HTTP) or ASCII
    /// metadata (gRPC), in the order received, one pair per value.
    ///
    /// Names are stored in lower case; the values of a repeated name are
    /// joined with `", "`. Every `X-A2A-Extensions` value also fills
    /// [`requested_extensions`](Self::requested_extensions) (see
    /// [`add_requested_extensions`](Self::add_requested_extensions)). The
    /// adapter drops what cannot be a `&str` (non-UTF-8 header values,
    /// binary gRPC metadata) before handing the pairs over.
    pub fn from_headers<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let pairs = pairs.into_iter();
        let (lower, upper) = pairs.size_hint();
        let mut headers = HashMap::with_capacity(upper.unwrap_or(lower));
        let mut ctx = Self::default();
        for (name, value) in pairs {
            if name.eq_ignore_ascii_case(EXTENSIONS_HEADER) {
                ctx.add_requested_extensions(value);
            }
            match headers.entry(name.to_ascii_lowercase()) {
                Entry::Occupied(mut e) => {
                    let joined: &mut String = e.get_mut();
                    joined.push_str(", ");
                    joined.push_str(value);
                }
                Entry::Vacant(e) => {
                    e.insert(value.to_owned());
                }
            }
        }
        ctx.headers = Arc::new(headers);
        ctx
    }

    /// Parses a comma-separated `X-A2A-Extensions` value into the context.
    pub fn add_requested_extensions(&mut self, header_value: &str) {
        for uri in header_value
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            if !self.requested_extensions.iter().any(|e| e == uri) {
                self.requested_extensions.push(uri.to_owned());
            }
        }
    }
}

/// The A2A operations, transport-neutral. Every adapter decodes its wire
/// format, calls one of these methods and encodes the result; errors are
/// [`A2aError`] values that each transport maps with its own table.
///
/// [`DefaultRequestHandler`](crate::DefaultRequestHandler) implements it on
/// top of an [`AgentExecutor`](crate::AgentExecutor); cross-cutting behaviour
/// (auth, tracing, limits) can wrap any implementation once for all
/// transports.
#[async_trait]
pub trait RequestHandler: Send + Sync + 'static {
    /// The public agent card, served at `/.well-known/agent-card.json`.
    fn agent_card(&self) -> Arc<AgentCard>;

    /// Sends a message and returns the task (or the agent's direct message).
    ///
    /// JSON-RPC `message/send` · gRPC `SendMessage` · REST `POST /v1/message:send`.
    async fn send_message(
        &self,
        ctx: &CallContext,
        params: MessageSendParams,
    ) -> Result<SendMessageResult, A2aError>;

    /// Sends a message and streams the task's events.
    ///
    /// JSON-RPC `message/stream` · gRPC `SendStreamingMessage` · REST `POST /v1/message:stream`.
    async fn send_message_stream(
        &self,
        ctx: &CallContext,
        params: MessageSendParams,
    ) -> Result<EventStream, A2aError>;

    /// Returns a task, its history trimmed to `historyLength`.
    ///
    /// JSON-RPC `tasks/get` · gRPC `GetTask` · REST `GET /v1/tasks/{id}`.
    async fn get_task(&self, ctx: &CallContext, params: TaskQueryParams) -> Result<Task, A2aError>;

    /// Cancels a task and returns it in its new state.
    ///
    /// JSON-RPC `tasks/cancel` · gRPC `CancelTask` · REST `POST /v1/tasks/{id}:cancel`.
    async fn cancel_task(&self, ctx: &CallContext, params: TaskIdParams) -> Result<Task, A2aError>;

    /// Streams a task's current snapshot, then its live events.
    ///
    /// JSON-RPC `tasks/resubscribe` · gRPC `TaskSubscription` · REST `GET|POST /v1/tasks/{id}:subscribe`.
    async fn resubscribe_task(
        &self,
        ctx: &CallContext,
        params: TaskIdParams,
    ) -> Result<EventStream, A2aError>;

    /// Stores a push-notification config for a task (the server assigns an
    /// id when none is given).
    ///
    /// JSON-RPC `tasks/pushNotificationConfig/set` · gRPC `CreateTaskPushNotificationConfig` ·
    /// REST `POST /v1/tasks/{id}/pushNotificationConfigs`.
    async fn set_push_config(
        &self,
        ctx: &CallContext,
        params: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2aError>;

    /// Returns one push-notification config of a task.
    ///
    /// JSON-RPC `tasks/pushNotificationConfig/get` · gRPC `GetTaskPushNotificationConfig` ·
    /// REST `GET /v1/tasks/{id}/pushNotificationConfigs/{configId}`.
    async fn get_push_config(
        &self,
        ctx: &CallContext,
        params: GetTaskPushNotificationConfigParams,
    ) -> Result<TaskPushNotificationConfig, A2aError>;

    /// Lists the push-notification configs of a task.
    ///
    /// JSON-RPC `tasks/pushNotificationConfig/list` · gRPC `ListTaskPushNotificationConfig` ·
    /// REST `GET /v1/tasks/{id}/pushNotificationConfigs`.
    async fn list_push_configs(
        &self,
        ctx: &CallContext,
        params: ListTaskPushNotificationConfigParams,
    ) -> Result<Vec<TaskPushNotificationConfig>, A2aError>;

    /// Deletes one push-notification config of a task.
    ///
    /// JSON-RPC `tasks/pushNotificationConfig/delete` · gRPC `DeleteTaskPushNotificationConfig` ·
    /// REST `DELETE /v1/tasks/{id}/pushNotificationConfigs/{configId}`.
    async fn delete_push_config(
        &self,
        ctx: &CallContext,
        params: DeleteTaskPushNotificationConfigParams,
    ) -> Result<(), A2aError>;

    /// Returns the authenticated extended agent card.
    ///
    /// JSON-RPC `agent/getAuthenticatedExtendedCard` · gRPC `GetAgentCard` · REST `GET /v1/card`.
    async fn get_extended_agent_card(&self, ctx: &CallContext) -> Result<AgentCard, A2aError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_context_from_headers() {
        let ctx = CallContext::from_headers([
            ("X-A2A-Extensions", "urn:a, urn:b"),
            ("x-custom", "1"),
            ("x-a2a-extensions", "urn:c,urn:a"),
            ("X-Custom", "2"),
        ]);
        assert_eq!(ctx.requested_extensions, ["urn:a", "urn:b", "urn:c"]);
        assert_eq!(ctx.headers["x-a2a-extensions"], "urn:a, urn:b, urn:c,urn:a");
        assert_eq!(ctx.headers["x-custom"], "1, 2");
        assert_eq!(ctx.headers.len(), 2);
        assert_eq!(ctx.user, None);
        assert!(CallContext::from_headers([]).headers.is_empty());
    }
}
