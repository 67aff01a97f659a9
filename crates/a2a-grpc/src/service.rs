//! The tonic `A2aService` implementation: decode → call the
//! [`RequestHandler`] → encode. Nothing else happens here: every protocol
//! rule lives in the handler, every conversion in [`a2a_pb::convert`], every
//! error code in [`a2a_pb::grpc_status`].

use std::sync::Arc;

use a2a_core::{CallContext, EventStream, RequestHandler};
use a2a_pb::grpc_status::to_status;
use a2a_pb::v1 as pb;
use a2a_pb::v1::a2a_service_server::{A2aService, A2aServiceServer};
use a2a_types::{
    A2aError, DeleteTaskPushNotificationConfigParams, GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams, MessageSendParams, TaskIdParams,
    TaskPushNotificationConfig, TaskQueryParams,
};
use futures::StreamExt;
use futures::stream::BoxStream;
use tonic::metadata::{KeyAndValueRef, MetadataMap};
use tonic::{Request, Response, Status};

/// The metadata key listing the extensions a client asks for
/// (comma-separated, repeatable), the gRPC form of the `X-A2A-Extensions`
/// header.
pub const EXTENSIONS_METADATA: &str = "x-a2a-extensions";

/// The stream type of the two server-streaming RPCs: protocol events, ended
/// by the first error.
pub type GrpcEventStream = BoxStream<'static, Result<pb::StreamResponse, Status>>;

/// The A2A gRPC service for a [`RequestHandler`], ready for
/// `tonic::transport::Server::add_service` (it is a tonic `NamedService`
/// named `a2a.v1.A2AService`).
///
/// The returned server can be tuned before it is mounted, e.g.
/// `.max_decoding_message_size(16 << 20)` or `.accept_compressed(…)`.
pub fn service(handler: Arc<dyn RequestHandler>) -> A2aServiceServer<GrpcService> {
    A2aServiceServer::new(GrpcService::new(handler))
}

/// The implementation of the generated `A2aService` trait over a
/// [`RequestHandler`]; see [`service`] and the [crate docs](crate).
#[derive(Clone)]
pub struct GrpcService {
    handler: Arc<dyn RequestHandler>,
}

impl std::fmt::Debug for GrpcService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GrpcService")
            .field("agent", &self.handler.agent_card().name)
            .finish()
    }
}

impl GrpcService {
    /// A service answering every RPC with `handler`.
    pub fn new(handler: Arc<dyn RequestHandler>) -> Self {
        Self { handler }
    }

    /// The handler behind the service.
    #[must_use]
    pub fn handler(&self) -> &Arc<dyn RequestHandler> {
        &self.handler
    }
}

/// Splits a request into its call context and its message, decoded into the
/// a2a-types params (`InvalidParamsError` → `INVALID_ARGUMENT` on failure).
fn decode<M, P>(request: Request<M>) -> Result<(CallContext, P), Status>
where
    P: TryFrom<M, Error = A2aError>,
{
    let (metadata, _, message) = request.into_parts();
    let ctx = call_context(&metadata);
    let params = P::try_from(message).map_err(|e| error(&e))?;
    Ok((ctx, params))
}

/// The one error path of this crate: [`a2a_pb::grpc_status::to_status`].
fn error(e: &A2aError) -> Status {
    tracing::debug!(code = e.code(), error = %e, "A2A error");
    to_status(e)
}

/// The ASCII metadata as headers (lower-case names; repeated keys joined
/// with `", "`; values that are not visible ASCII skipped; binary `-bin`
/// keys skipped) and the extensions of `x-a2a-extensions`.
fn call_context(metadata: &MetadataMap) -> CallContext {
    CallContext::from_headers(metadata.iter().filter_map(|entry| match entry {
        KeyAndValueRef::Ascii(key, value) => Some((key.as_str(), value.to_str().ok()?)),
        KeyAndValueRef::Binary(..) => None,
    }))
}

/// Maps each event to its protobuf form; an error becomes the stream's
/// final `Status` (nothing is read from the handler's stream after it).
/// Dropping the returned stream (the client went away) drops the handler's
/// stream, which only ends that subscription.
fn encode_stream(events: EventStream) -> GrpcEventStream {
    Box::pin(futures::stream::unfold(Some(events), |state| async move {
        let mut events = state?;
        match events.next().await? {
            Ok(event) => Some((Ok(pb::StreamResponse::from(event)), Some(events))),
            Err(e) => Some((Err(error(&e)), None)),
        }
    }))
}

#[tonic::async_trait]
impl A2aService for GrpcService {
    async fn send_message(
        &self,
        request: Request<pb::SendMessageRequest>,
    ) -> Result<Response<pb::SendMessageResponse>, Status> {
        let (ctx, params): (_, MessageSendParams) = decode(request)?;
        let result = self
            .handler
            .send_message(&ctx, params)
            .await
            .map_err(|e| error(&e))?;
        Ok(Response::new(result.into()))
    }

    type SendStreamingMessageStream = GrpcEventStream;

    async fn send_streaming_message(
        &self,
        request: Request<pb::SendMessageRequest>,
    ) -> Result<Response<Self::SendStreamingMessageStream>, Status> {
        let (ctx, params): (_, MessageSendParams) = decode(request)?;
        let events = self
            .handler
            .send_message_stream(&ctx, params)
            .await
            .map_err(|e| error(&e))?;
        Ok(Response::new(encode_stream(events)))
    }

    async fn get_task(
        &self,
        request: Request<pb::GetTaskRequest>,
    ) -> Result<Response<pb::Task>, Status> {
        let (ctx, params): (_, TaskQueryParams) = decode(request)?;
        let task = self
            .handler
            .get_task(&ctx, params)
            .await
            .map_err(|e| error(&e))?;
        Ok(Response::new(task.into()))
    }

    async fn cancel_task(
        &self,
        request: Request<pb::CancelTaskRequest>,
    ) -> Result<Response<pb::Task>, Status> {
        let (ctx, params): (_, TaskIdParams) = decode(request)?;
        let task = self
            .handler
            .cancel_task(&ctx, params)
            .await
            .map_err(|e| error(&e))?;
        Ok(Response::new(task.into()))
    }

    type TaskSubscriptionStream = GrpcEventStream;

    async fn task_subscription(
        &self,
        request: Request<pb::TaskSubscriptionRequest>,
    ) -> Result<Response<Self::TaskSubscriptionStream>, Status> {
        let (ctx, params): (_, TaskIdParams) = decode(request)?;
        let events = self
            .handler
            .resubscribe_task(&ctx, params)
            .await
            .map_err(|e| error(&e))?;
        Ok(Response::new(encode_stream(events)))
    }

    async fn create_task_push_notification_config(
        &self,
        request: Request<pb::CreateTaskPushNotificationConfigRequest>,
    ) -> Result<Response<pb::TaskPushNotificationConfig>, Status> {
        let (ctx, params): (_, TaskPushNotificationConfig) = decode(request)?;
        let config = self
            .handler
            .set_push_config(&ctx, params)
            .await
            .map_err(|e| error(&e))?;
        Ok(Response::new(config.into()))
    }

    async fn get_task_push_notification_config(
        &self,
        request: Request<pb::GetTaskPushNotificationConfigRequest>,
    ) -> Result<Response<pb::TaskPushNotificationConfig>, Status> {
        let (ctx, params): (_, GetTaskPushNotificationConfigParams) = decode(request)?;
        let config = self
            .handler
            .get_push_config(&ctx, params)
            .await
            .map_err(|e| error(&e))?;
        Ok(Response::new(config.into()))
    }

    async fn list_task_push_notification_config(
        &self,
        request: Request<pb::ListTaskPushNotificationConfigRequest>,
    ) -> Result<Response<pb::ListTaskPushNotificationConfigResponse>, Status> {
        let (ctx, params): (_, ListTaskPushNotificationConfigParams) = decode(request)?;
        let configs = self
            .handler
            .list_push_configs(&ctx, params)
            .await
            .map_err(|e| error(&e))?;
        Ok(Response::new(configs.into()))
    }

    /// The **public** card ([`RequestHandler::agent_card`]); see the crate
    /// docs for why.
    async fn get_agent_card(
        &self,
        _request: Request<pb::GetAgentCardRequest>,
    ) -> Result<Response<pb::AgentCard>, Status> {
        let card = self.handler.agent_card();
        Ok(Response::new(pb::AgentCard::from((*card).clone())))
    }

    async fn delete_task_push_notification_config(
        &self,
        request: Request<pb::DeleteTaskPushNotificationConfigRequest>,
    ) -> Result<Response<pbjson_types::Empty>, Status> {
        let (ctx, params): (_, DeleteTaskPushNotificationConfigParams) = decode(request)?;
        self.handler
            .delete_push_config(&ctx, params)
            .await
            .map_err(|e| error(&e))?;
        Ok(Response::new(pbjson_types::Empty {}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_context_from_metadata() {
        let mut m = MetadataMap::new();
        m.append(EXTENSIONS_METADATA, "urn:a, urn:b".parse().expect("ascii"));
        m.append(EXTENSIONS_METADATA, "urn:c,urn:a".parse().expect("ascii"));
        m.append("x-custom", "1".parse().expect("ascii"));
        m.append_bin(
            "x-blob-bin",
            tonic::metadata::MetadataValue::from_bytes(b"\xff"),
        );
        let ctx = call_context(&m);
        assert_eq!(ctx.requested_extensions, ["urn:a", "urn:b", "urn:c"]);
        assert_eq!(ctx.headers["x-a2a-extensions"], "urn:a, urn:b, urn:c,urn:a");
        assert_eq!(ctx.headers["x-custom"], "1");
        assert!(!ctx.headers.contains_key("x-blob-bin"));
        assert_eq!(ctx.user, None);
    }

    #[tokio::test]
    async fn a_stream_ends_at_its_first_error() {
        let events: EventStream = Box::pin(futures::stream::iter([
            Ok(a2a_types::StreamResponse::Task(a2a_types::Task::new(
                "t",
                "c",
                a2a_types::TaskState::Working,
            ))),
            Err(A2aError::internal("boom")),
            Ok(a2a_types::StreamResponse::Task(a2a_types::Task::new(
                "t",
                "c",
                a2a_types::TaskState::Completed,
            ))),
        ]));
        let out: Vec<_> = encode_stream(events).collect().await;
        assert_eq!(out.len(), 2);
        assert!(out[0].is_ok());
        let status = out[1].as_ref().expect_err("the error");
        assert_eq!(status.code(), tonic::Code::Internal);
        assert_eq!(status.message(), "InternalError: boom");
    }
}
