//! The gRPC transport (`"GRPC"` in agent cards): the tonic client of
//! `a2a.v1.A2AService`, one HTTP/2 connection shared by every call.
//!
//! ```no_run
//! use a2a_client::Transport;
//! use a2a_client::grpc::{AsciiMetadataKey, AsciiMetadataValue, GrpcTransport};
//! use a2a_types::{Message, MessageSendParams};
//!
//! # async fn run() -> Result<(), a2a_client::ClientError> {
//! // The card's GRPC interface URL: `host:port` or `http://host:port`.
//! let agent = GrpcTransport::connect("127.0.0.1:50051")
//!     .await?
//!     .with_metadata(
//!         AsciiMetadataKey::from_static("x-a2a-extensions"),
//!         AsciiMetadataValue::from_static("urn:example:ext"),
//!     );
//! let reply = agent.send_message(MessageSendParams::new(Message::user_text("m-1", "hi"))).await?;
//! # let _ = reply; Ok(()) }
//! ```
//!
//! # URLs
//!
//! A bare `host:port` (what the Python SDK advertises and dials),
//! `http://host:port`, and `dns:///host:port` are accepted; a path
//! (`http://host:port/a2a`) is sent as a prefix of every method path, for
//! proxies that route gRPC by path. `https://` is refused with
//! [`ClientError::Unreachable`]: this build has no TLS for gRPC. For TLS,
//! custom timeouts or keep-alives, build a `tonic` channel yourself
//! ([`GrpcTransport::endpoint`] gives the parsed endpoint, [`tonic`] is
//! re-exported) and use [`GrpcTransport::from_channel`].
//!
//! # Requests
//!
//! The a2a-types params are converted with `a2a_pb::convert`. A
//! `MessageSendParams` without `configuration` is sent with a configuration
//! whose `blocking` is `true`: JSON-RPC reads an absent `blocking` as
//! blocking but proto3 cannot send an absent bool, and gRPC servers (the
//! Python SDK's included) read a request without configuration as
//! non-blocking. `GetAgentCard` has no params: over gRPC,
//! [`Transport::get_extended_agent_card`] returns whatever card the server
//! answers `GetAgentCard` with (our server and the Python SDK's answer the
//! public card).
//!
//! # Errors
//!
//! - A status carrying A2A error metadata, or any other status from the
//!   server, is [`ClientError::A2a`] decoded by
//!   `a2a_pb::grpc_status::from_status` (the same table as the server's):
//!   our server's errors come back exactly, Python SDK errors by their
//!   `"<ErrorName>: …"` message, anything else by its gRPC code.
//! - A failure to connect, a connection lost, a local timeout, or
//!   `UNAVAILABLE` is [`ClientError::Unreachable`].
//! - An answer that is not gRPC (an HTTP error without `grpc-status`), a
//!   body that is not the expected protobuf, or a message that does not
//!   convert to a2a-types (a malformed name, a missing required field) is
//!   [`ClientError::InvalidResponse`].
//!
//! # Streams
//!
//! `send_message_stream` and `resubscribe_task` wait for the first event,
//! so an error before it (task not found, streaming unsupported) is the
//! call's own error. A later error is the stream's last item. Dropping the
//! stream cancels the call; the agent keeps working on the task.

use std::error::Error as _;

use a2a_pb::grpc_status::{ERROR_CODE_KEY, from_status};
use a2a_pb::v1 as pb;
use a2a_pb::v1::a2a_service_client::A2aServiceClient;
use a2a_types::{
    AgentCard, DeleteTaskPushNotificationConfigParams, GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams, MessageSendConfiguration, MessageSendParams,
    SendMessageResult, StreamResponse, Task, TaskIdParams, TaskPushNotificationConfig,
    TaskQueryParams,
};
use async_trait::async_trait;
use futures::StreamExt;
use tonic::metadata::MetadataMap;
pub use tonic::metadata::{AsciiMetadataKey, AsciiMetadataValue};
use tonic::transport::{Channel, Endpoint, Uri};
use tonic::{Code, Status, Streaming};

use crate::interceptor::{CallInterceptor, Chain, Operation};
use crate::{ClientError, EventStream, Transport};

pub use tonic;

/// The metadata key listing the extensions a client asks for
/// (comma-separated), the gRPC form of the `X-A2A-Extensions` header.
pub const EXTENSIONS_METADATA: &str = "x-a2a-extensions";

/// The gRPC client transport (`"GRPC"` in agent cards).
///
/// Cheap to clone: clones share the connection.
#[derive(Debug, Clone)]
pub struct GrpcTransport {
    client: A2aServiceClient<Channel>,
    metadata: MetadataMap,
    interceptors: Chain,
    target: String,
}

impl GrpcTransport {
    /// Connects to `url` (see the [module docs](self) for the accepted
    /// forms) and returns the transport once the HTTP/2 connection is up.
    ///
    /// # Errors
    ///
    /// [`ClientError::Unreachable`] for a URL that cannot be used (`https`,
    /// not a URL) or a server that cannot be reached.
    pub async fn connect(url: &str) -> Result<Self, ClientError> {
        let (endpoint, origin) = parse(url)?;
        let channel = endpoint.connect().await.map_err(|e| {
            ClientError::Unreachable(format!("cannot connect to {origin}: {}", error_chain(&e)))
        })?;
        Ok(Self::with_origin(channel, origin))
    }

    /// Like [`connect`](Self::connect), but connects on the first call (and
    /// reconnects after a lost connection, as every transport does). Must
    /// be called within a Tokio runtime.
    ///
    /// # Errors
    ///
    /// [`ClientError::Unreachable`] for a URL that cannot be used.
    pub fn connect_lazy(url: &str) -> Result<Self, ClientError> {
        let (endpoint, origin) = parse(url)?;
        Ok(Self::with_origin(endpoint.connect_lazy(), origin))
    }

    /// The tonic endpoint for `url` (see the [module docs](self)), to tune
    /// (timeouts, keep-alive, TLS with tonic's TLS features) before
    /// connecting it and passing the channel to
    /// [`from_channel`](Self::from_channel). A path in `url` is not part of
    /// the endpoint: use [`from_channel_with_origin`](Self::from_channel_with_origin)
    /// to keep it.
    ///
    /// # Errors
    ///
    /// [`ClientError::Unreachable`] for a URL that cannot be used.
    pub fn endpoint(url: &str) -> Result<Endpoint, ClientError> {
        parse(url).map(|(endpoint, _)| endpoint)
    }

    /// A transport over a channel you built.
    #[must_use]
    pub fn from_channel(channel: Channel) -> Self {
        Self {
            client: A2aServiceClient::new(channel),
            metadata: MetadataMap::new(),
            interceptors: Chain::default(),
            target: String::new(),
        }
    }

    /// A transport over a channel you built, sending to `url`, whose path
    /// (if any) prefixes every method path.
    ///
    /// # Errors
    ///
    /// [`ClientError::Unreachable`] for a URL that cannot be used.
    pub fn from_channel_with_origin(channel: Channel, url: &str) -> Result<Self, ClientError> {
        let (_, origin) = parse(url)?;
        Ok(Self::with_origin(channel, origin))
    }

    fn with_origin(channel: Channel, origin: Uri) -> Self {
        Self {
            target: origin.to_string(),
            client: A2aServiceClient::with_origin(channel, origin),
            metadata: MetadataMap::new(),
            interceptors: Chain::default(),
        }
    }

    /// Adds a metadata entry to every call, e.g. `authorization` or
    /// [`EXTENSIONS_METADATA`]. Repeating a key adds another value.
    #[must_use]
    pub fn with_metadata(mut self, key: AsciiMetadataKey, value: AsciiMetadataValue) -> Self {
        self.metadata.append(key, value);
        self
    }

    /// Runs `interceptor` before every call (after the earlier ones); what
    /// it puts in [`CallMeta::headers`](crate::interceptor::CallMeta::headers)
    /// is sent as metadata. See [`interceptor`](crate::interceptor).
    #[must_use]
    pub fn with_interceptor(mut self, interceptor: impl CallInterceptor) -> Self {
        self.interceptors.push(std::sync::Arc::new(interceptor));
        self
    }

    pub(crate) fn with_chain(mut self, chain: &Chain) -> Self {
        self.interceptors.extend(chain);
        self
    }

    /// The URL calls go to (`http://host:port[/prefix]`), empty for
    /// [`from_channel`](Self::from_channel).
    #[must_use]
    pub fn target(&self) -> &str {
        &self.target
    }

    /// A request carrying the fixed metadata, then what the interceptors
    /// set.
    async fn request<T>(
        &self,
        op: Operation,
        message: T,
    ) -> Result<tonic::Request<T>, ClientError> {
        let base = self.metadata.clone().into_headers();
        let headers = self
            .interceptors
            .headers(op, a2a_types::TRANSPORT_GRPC, &base)
            .await?;
        let mut request = tonic::Request::new(message);
        *request.metadata_mut() = metadata_from_headers(headers);
        Ok(request)
    }

    fn client(&self) -> A2aServiceClient<Channel> {
        self.client.clone()
    }

    /// A streaming call's events, the first one awaited (see the module
    /// docs).
    async fn events(
        call: Result<tonic::Response<Streaming<pb::StreamResponse>>, Status>,
    ) -> Result<EventStream, ClientError> {
        let mut stream = call.map_err(|s| status_error(&s))?.into_inner();
        let first = match stream.message().await {
            Ok(Some(first)) => decode_event(first)?,
            Ok(None) => return Ok(Box::pin(futures::stream::empty())),
            Err(s) => return Err(status_error(&s)),
        };
        let rest = futures::stream::unfold(Some(stream), |state| async move {
            let mut stream = state?;
            match stream.message().await {
                Ok(Some(event)) => match decode_event(event) {
                    Ok(event) => Some((Ok(event), Some(stream))),
                    Err(e) => Some((Err(e), None)),
                },
                Ok(None) => None,
                Err(s) => Some((Err(status_error(&s)), None)),
            }
        });
        Ok(Box::pin(
            futures::stream::once(async move { Ok(first) }).chain(rest),
        ))
    }
}

/// Headers as gRPC metadata: names are lower case already; reserved names
/// and values that cannot be ASCII metadata are dropped.
fn metadata_from_headers(headers: http::HeaderMap) -> MetadataMap {
    let mut metadata = MetadataMap::with_capacity(headers.len());
    for (name, value) in &headers {
        let key = name.as_str();
        if matches!(key, "content-type" | "te" | "host" | "user-agent") || key.starts_with("grpc-")
        {
            continue;
        }
        if key.ends_with("-bin") {
            if let Ok(key) = tonic::metadata::BinaryMetadataKey::from_bytes(key.as_bytes()) {
                metadata.append_bin(
                    key,
                    tonic::metadata::BinaryMetadataValue::from_bytes(value.as_bytes()),
                );
            }
            continue;
        }
        let (Ok(key), Ok(value)) = (
            AsciiMetadataKey::from_bytes(key.as_bytes()),
            AsciiMetadataValue::try_from(value.as_bytes()),
        ) else {
            continue;
        };
        metadata.append(key, value);
    }
    metadata
}

/// The endpoint and the full origin (with its path prefix, if any) of a
/// gRPC URL.
fn parse(url: &str) -> Result<(Endpoint, Uri), ClientError> {
    let trimmed = url.trim();
    let bad = |why: &str| ClientError::Unreachable(format!("unusable gRPC URL {url:?}: {why}"));
    let (scheme, rest) = match trimmed.split_once("://") {
        Some((scheme, rest)) => (scheme.to_ascii_lowercase(), rest),
        None => ("http".to_owned(), trimmed),
    };
    let rest = match scheme.as_str() {
        "http" => rest,
        // gRPC name-resolver syntax, `dns:///host:port`.
        "dns" => rest.trim_start_matches('/'),
        "https" | "grpcs" => {
            return Err(bad(
                "TLS is not supported by this gRPC transport; use http://host:port (plaintext, \
                 e.g. behind a TLS-terminating proxy) or build a TLS channel with tonic and use \
                 GrpcTransport::from_channel",
            ));
        }
        other => return Err(bad(&format!("unsupported scheme {other:?}"))),
    };
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    if authority.is_empty() {
        return Err(bad("no host"));
    }
    let path = path.trim_end_matches('/');
    let origin = if path.is_empty() {
        format!("http://{authority}")
    } else {
        format!("http://{authority}/{path}")
    };
    let origin: Uri = origin.parse().map_err(|e| bad(&format!("{e}")))?;
    let endpoint =
        Endpoint::from_shared(format!("http://{authority}")).map_err(|e| bad(&error_chain(&e)))?;
    Ok((endpoint, origin))
}

/// An error and its causes, `": "`-joined (tonic's own messages rarely say
/// why).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut msg = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !msg.ends_with(&text) {
            msg.push_str(": ");
            msg.push_str(&text);
        }
        source = s.source();
    }
    msg
}

/// The client error for a failed call (see the module docs).
fn status_error(status: &Status) -> ClientError {
    if status.metadata().contains_key(ERROR_CODE_KEY) {
        return ClientError::A2a(from_status(status));
    }
    // A status with a source was made here from a transport error
    // (connect, reset, timeout); the server's statuses come from trailers.
    if status.source().is_some() || status.code() == Code::Unavailable {
        return ClientError::Unreachable(format!("{:?}: {}", status.code(), error_chain(status)));
    }
    let message = status.message();
    if message.starts_with("grpc-status header missing")
        || message.starts_with("protocol error: missing grpc-status")
        || message.starts_with("failed to decode Protobuf message")
    {
        return ClientError::InvalidResponse(format!("{:?}: {message}", status.code()));
    }
    ClientError::A2a(from_status(status))
}

fn decode<P, T>(rpc: &str, message: P) -> Result<T, ClientError>
where
    T: TryFrom<P, Error = a2a_types::A2aError>,
{
    T::try_from(message).map_err(|e| {
        ClientError::InvalidResponse(format!("malformed {rpc} response: {}", e.message()))
    })
}

fn decode_event(event: pb::StreamResponse) -> Result<StreamResponse, ClientError> {
    decode("stream event", event)
}

/// Always sends a configuration, so that `blocking` keeps its JSON-RPC
/// default (see the module docs).
fn send_request(mut params: MessageSendParams) -> pb::SendMessageRequest {
    params
        .configuration
        .get_or_insert_with(MessageSendConfiguration::default);
    params.into()
}

#[async_trait]
impl Transport for GrpcTransport {
    fn name(&self) -> &'static str {
        a2a_types::TRANSPORT_GRPC
    }

    async fn send_message(
        &self,
        params: MessageSendParams,
    ) -> Result<SendMessageResult, ClientError> {
        let reply = self
            .client()
            .send_message(
                self.request(Operation::SendMessage, send_request(params))
                    .await?,
            )
            .await
            .map_err(|s| status_error(&s))?;
        decode("SendMessage", reply.into_inner())
    }

    async fn send_message_stream(
        &self,
        params: MessageSendParams,
    ) -> Result<EventStream, ClientError> {
        let call = self
            .client()
            .send_streaming_message(
                self.request(Operation::SendStreamingMessage, send_request(params))
                    .await?,
            )
            .await;
        Self::events(call).await
    }

    async fn get_task(&self, params: TaskQueryParams) -> Result<Task, ClientError> {
        let reply = self
            .client()
            .get_task(
                self.request(Operation::GetTask, pb::GetTaskRequest::from(params))
                    .await?,
            )
            .await
            .map_err(|s| status_error(&s))?;
        decode("GetTask", reply.into_inner())
    }

    async fn cancel_task(&self, params: TaskIdParams) -> Result<Task, ClientError> {
        let reply = self
            .client()
            .cancel_task(
                self.request(Operation::CancelTask, pb::CancelTaskRequest::from(params))
                    .await?,
            )
            .await
            .map_err(|s| status_error(&s))?;
        decode("CancelTask", reply.into_inner())
    }

    async fn resubscribe_task(&self, params: TaskIdParams) -> Result<EventStream, ClientError> {
        let call = self
            .client()
            .task_subscription(
                self.request(
                    Operation::ResubscribeTask,
                    pb::TaskSubscriptionRequest::from(params),
                )
                .await?,
            )
            .await;
        Self::events(call).await
    }

    async fn set_push_config(
        &self,
        params: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, ClientError> {
        let reply = self
            .client()
            .create_task_push_notification_config(
                self.request(
                    Operation::SetPushConfig,
                    pb::CreateTaskPushNotificationConfigRequest::from(params),
                )
                .await?,
            )
            .await
            .map_err(|s| status_error(&s))?;
        decode("CreateTaskPushNotificationConfig", reply.into_inner())
    }

    async fn get_push_config(
        &self,
        params: GetTaskPushNotificationConfigParams,
    ) -> Result<TaskPushNotificationConfig, ClientError> {
        let reply = self
            .client()
            .get_task_push_notification_config(
                self.request(
                    Operation::GetPushConfig,
                    pb::GetTaskPushNotificationConfigRequest::from(params),
                )
                .await?,
            )
            .await
            .map_err(|s| status_error(&s))?;
        decode("GetTaskPushNotificationConfig", reply.into_inner())
    }

    async fn list_push_configs(
        &self,
        params: ListTaskPushNotificationConfigParams,
    ) -> Result<Vec<TaskPushNotificationConfig>, ClientError> {
        let reply = self
            .client()
            .list_task_push_notification_config(
                self.request(
                    Operation::ListPushConfigs,
                    pb::ListTaskPushNotificationConfigRequest::from(params),
                )
                .await?,
            )
            .await
            .map_err(|s| status_error(&s))?;
        decode("ListTaskPushNotificationConfig", reply.into_inner())
    }

    async fn delete_push_config(
        &self,
        params: DeleteTaskPushNotificationConfigParams,
    ) -> Result<(), ClientError> {
        self.client()
            .delete_task_push_notification_config(
                self.request(
                    Operation::DeletePushConfig,
                    pb::DeleteTaskPushNotificationConfigRequest::from(params),
                )
                .await?,
            )
            .await
            .map_err(|s| status_error(&s))?;
        Ok(())
    }

    async fn get_extended_agent_card(&self) -> Result<AgentCard, ClientError> {
        let reply = self
            .client()
            .get_agent_card(
                self.request(Operation::GetExtendedAgentCard, pb::GetAgentCardRequest {})
                    .await?,
            )
            .await
            .map_err(|s| status_error(&s))?;
        decode("GetAgentCard", reply.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use a2a_types::A2aError;

    use super::*;

    #[test]
    fn url_forms() {
        let origin = |url: &str| parse(url).map(|(_, o)| o.to_string());
        assert_eq!(
            origin("127.0.0.1:50051").unwrap(),
            "http://127.0.0.1:50051/"
        );
        assert_eq!(
            origin(" http://127.0.0.1:50051/ ").unwrap(),
            "http://127.0.0.1:50051/"
        );
        assert_eq!(origin("HTTP://localhost:1").unwrap(), "http://localhost:1/");
        assert_eq!(origin("dns:///localhost:1").unwrap(), "http://localhost:1/");
        assert_eq!(origin("[::1]:50051").unwrap(), "http://[::1]:50051/");
        assert_eq!(
            origin("http://h:1/a2a/grpc/").unwrap(),
            "http://h:1/a2a/grpc"
        );
        for bad in [
            "https://h:1",
            "grpcs://h:1",
            "ftp://h",
            "",
            "http://",
            "http:///x",
            "h: 1",
        ] {
            let e = origin(bad).expect_err(bad);
            assert!(matches!(e, ClientError::Unreachable(_)), "{bad}: {e:?}");
        }
        let e = origin("https://agent.example/a2a").expect_err("tls");
        assert!(e.to_string().contains("TLS is not supported"), "{e}");
    }

    #[test]
    fn statuses() {
        let a2a = a2a_pb::grpc_status::to_status(&A2aError::task_not_found("gone"));
        assert_eq!(
            status_error(&a2a),
            ClientError::A2a(A2aError::task_not_found("gone"))
        );
        // A Python SDK status: by name.
        let py = Status::unimplemented("TaskNotCancelableError: Task cannot be canceled");
        assert_eq!(status_error(&py).code(), Some(-32002));
        // A bare status: by code.
        assert_eq!(
            status_error(&Status::invalid_argument("bad")).code(),
            Some(-32602)
        );
        assert!(matches!(
            status_error(&Status::unavailable("connection refused")),
            ClientError::Unreachable(_)
        ));
        let not_grpc =
            Status::unimplemented("grpc-status header missing, mapped from HTTP status code 404");
        assert!(matches!(
            status_error(&not_grpc),
            ClientError::InvalidResponse(_)
        ));
        let garbage = Status::internal("failed to decode Protobuf message: buffer underflow");
        assert!(matches!(
            status_error(&garbage),
            ClientError::InvalidResponse(_)
        ));
        let local = Status::from_error(Box::new(std::io::Error::other("reset")));
        assert!(matches!(status_error(&local), ClientError::Unreachable(_)));
    }

    #[test]
    fn send_requests_always_carry_blocking() {
        let params = MessageSendParams::new(a2a_types::Message::user_text("m", "hi"));
        let request = send_request(params.clone());
        assert!(request.configuration.expect("a configuration").blocking);
        let mut non_blocking = params;
        non_blocking.configuration = Some(MessageSendConfiguration {
            blocking: Some(false),
            ..Default::default()
        });
        assert!(
            !send_request(non_blocking)
                .configuration
                .expect("kept")
                .blocking
        );
    }

    #[test]
    fn malformed_responses_are_invalid() {
        let e = decode::<_, Task>("GetTask", pb::Task::default()).expect_err("no status");
        assert!(
            matches!(&e, ClientError::InvalidResponse(m) if m.contains("GetTask")),
            "{e:?}"
        );
    }
}
