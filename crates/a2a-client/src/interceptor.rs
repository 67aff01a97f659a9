//! Interceptors: code that runs before every call, on every transport alike,
//! to set headers (HTTP) or metadata (gRPC): credentials, the
//! `X-A2A-Extensions` list, trace context.
//!
//! An interceptor sees a [`CallMeta`]: the [`Operation`], the transport's
//! name, and the headers the call will carry. What it puts in
//! [`CallMeta::headers`] goes out as HTTP headers on JSON-RPC and HTTP+JSON,
//! and as ASCII metadata on gRPC (header names are lower case already, as
//! gRPC metadata keys must be). Interceptors run in the order they were
//! added, after the transport's own fixed headers were put in place, so
//! they can read or replace them.
//!
//! ```
//! use a2a_client::interceptor::{Credentials, Extensions, TraceContext, from_fn};
//! use a2a_client::Client;
//!
//! let builder = Client::builder()
//!     .interceptor(Credentials::bearer("secret-token"))
//!     .interceptor(Extensions::new(["urn:example:ext:1"]))
//!     .interceptor(TraceContext::new(|| {
//!         Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".to_owned())
//!     }))
//!     .interceptor(from_fn(|call| {
//!         call.headers.insert("x-request-source", http::HeaderValue::from_static("docs"));
//!         Ok(())
//!     }));
//! # let _ = builder;
//! ```
//!
//! Interceptors are deliberately narrow (like tonic's): they only shape the
//! request's metadata. Returning an error from [`CallInterceptor::before`]
//! stops the call before anything is sent; the caller gets that error.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use http::header::AUTHORIZATION;
use http::{HeaderMap, HeaderName, HeaderValue};

use crate::ClientError;

/// The header (HTTP) and metadata key (gRPC) listing the extensions a client
/// asks for, comma-separated.
pub const EXTENSIONS_HEADER: &str = "x-a2a-extensions";
/// The W3C trace-context header.
pub const TRACEPARENT_HEADER: &str = "traceparent";
/// The W3C trace-context vendor header.
pub const TRACESTATE_HEADER: &str = "tracestate";

/// The operation a call performs, whatever the transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operation {
    /// JSON-RPC `message/send` · gRPC `SendMessage` · REST `POST /v1/message:send`.
    SendMessage,
    /// JSON-RPC `message/stream` · gRPC `SendStreamingMessage` · REST `POST /v1/message:stream`.
    SendStreamingMessage,
    /// JSON-RPC `tasks/get` · gRPC `GetTask` · REST `GET /v1/tasks/{id}`.
    GetTask,
    /// JSON-RPC `tasks/cancel` · gRPC `CancelTask` · REST `POST /v1/tasks/{id}:cancel`.
    CancelTask,
    /// JSON-RPC `tasks/resubscribe` · gRPC `TaskSubscription` · REST `GET /v1/tasks/{id}:subscribe`.
    ResubscribeTask,
    /// JSON-RPC `tasks/pushNotificationConfig/set` · gRPC `CreateTaskPushNotificationConfig`.
    SetPushConfig,
    /// JSON-RPC `tasks/pushNotificationConfig/get` · gRPC `GetTaskPushNotificationConfig`.
    GetPushConfig,
    /// JSON-RPC `tasks/pushNotificationConfig/list` · gRPC `ListTaskPushNotificationConfig`.
    ListPushConfigs,
    /// JSON-RPC `tasks/pushNotificationConfig/delete` · gRPC `DeleteTaskPushNotificationConfig`.
    DeletePushConfig,
    /// JSON-RPC `agent/getAuthenticatedExtendedCard` · gRPC `GetAgentCard` · REST `GET /v1/card`.
    GetExtendedAgentCard,
    /// `GET /.well-known/agent-card.json` (card discovery, plain HTTP).
    GetAgentCard,
}

impl Operation {
    /// The JSON-RPC method name (`agent/getAuthenticatedExtendedCard` for
    /// both card operations).
    #[must_use]
    pub fn json_rpc_method(self) -> &'static str {
        use a2a_types::jsonrpc as m;
        match self {
            Self::SendMessage => m::METHOD_MESSAGE_SEND,
            Self::SendStreamingMessage => m::METHOD_MESSAGE_STREAM,
            Self::GetTask => m::METHOD_TASKS_GET,
            Self::CancelTask => m::METHOD_TASKS_CANCEL,
            Self::ResubscribeTask => m::METHOD_TASKS_RESUBSCRIBE,
            Self::SetPushConfig => m::METHOD_PUSH_CONFIG_SET,
            Self::GetPushConfig => m::METHOD_PUSH_CONFIG_GET,
            Self::ListPushConfigs => m::METHOD_PUSH_CONFIG_LIST,
            Self::DeletePushConfig => m::METHOD_PUSH_CONFIG_DELETE,
            Self::GetExtendedAgentCard | Self::GetAgentCard => m::METHOD_GET_EXTENDED_CARD,
        }
    }

    /// The gRPC method name of `a2a.v1.A2AService` (`GetAgentCard` for both
    /// card operations).
    #[must_use]
    pub fn grpc_method(self) -> &'static str {
        match self {
            Self::SendMessage => "SendMessage",
            Self::SendStreamingMessage => "SendStreamingMessage",
            Self::GetTask => "GetTask",
            Self::CancelTask => "CancelTask",
            Self::ResubscribeTask => "TaskSubscription",
            Self::SetPushConfig => "CreateTaskPushNotificationConfig",
            Self::GetPushConfig => "GetTaskPushNotificationConfig",
            Self::ListPushConfigs => "ListTaskPushNotificationConfig",
            Self::DeletePushConfig => "DeleteTaskPushNotificationConfig",
            Self::GetExtendedAgentCard | Self::GetAgentCard => "GetAgentCard",
        }
    }
}

/// What an interceptor sees of a call, and may change.
#[derive(Debug)]
pub struct CallMeta {
    operation: Operation,
    transport: &'static str,
    /// The headers (HTTP) or metadata (gRPC) of the call. On gRPC, entries
    /// whose value is not visible ASCII are not sent (they cannot be
    /// ASCII metadata), and `content-type`, `te`, `host`, `user-agent` and
    /// `grpc-*` are reserved by gRPC and dropped.
    pub headers: HeaderMap,
}

impl CallMeta {
    /// A call of `operation` over `transport` (`"JSONRPC"`, `"GRPC"`,
    /// `"HTTP+JSON"`, or `"HTTP"` for card discovery) with `headers`.
    #[must_use]
    pub fn new(operation: Operation, transport: &'static str, headers: HeaderMap) -> Self {
        Self {
            operation,
            transport,
            headers,
        }
    }

    /// The operation.
    #[must_use]
    pub fn operation(&self) -> Operation {
        self.operation
    }

    /// The transport name as written in agent cards, or `"HTTP"` for card
    /// discovery.
    #[must_use]
    pub fn transport(&self) -> &'static str {
        self.transport
    }
}

/// Runs before every call; see the [module docs](self).
#[async_trait]
pub trait CallInterceptor: Send + Sync + 'static {
    /// Shapes the call's headers, or refuses the call with an error (which
    /// the caller then receives; nothing is sent).
    async fn before(&self, call: &mut CallMeta) -> Result<(), ClientError>;
}

/// The interceptors of a transport, in order; cheap to clone.
#[derive(Clone, Default)]
pub(crate) struct Chain(Vec<Arc<dyn CallInterceptor>>);

impl fmt::Debug for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{} interceptor(s)]", self.0.len())
    }
}

impl Chain {
    pub(crate) fn push(&mut self, interceptor: Arc<dyn CallInterceptor>) {
        self.0.push(interceptor);
    }

    pub(crate) fn extend(&mut self, other: &Self) {
        self.0.extend(other.0.iter().cloned());
    }

    /// The headers of one call: `base`, then every interceptor in order.
    pub(crate) async fn headers(
        &self,
        operation: Operation,
        transport: &'static str,
        base: &HeaderMap,
    ) -> Result<HeaderMap, ClientError> {
        let mut call = CallMeta::new(operation, transport, base.clone());
        for interceptor in &self.0 {
            interceptor.before(&mut call).await?;
        }
        Ok(call.headers)
    }
}

/// An interceptor from a closure (like tower's `service_fn`).
///
/// ```
/// use a2a_client::interceptor::{Operation, from_fn};
///
/// let only_reads = from_fn(|call| {
///     if call.operation() == Operation::SendMessage {
///         return Err(a2a_client::ClientError::Interceptor("read-only client".to_owned()));
///     }
///     Ok(())
/// });
/// # let _ = only_reads;
/// ```
pub fn from_fn<F>(f: F) -> FnInterceptor<F>
where
    F: Fn(&mut CallMeta) -> Result<(), ClientError> + Send + Sync + 'static,
{
    FnInterceptor(f)
}

/// See [`from_fn`].
#[derive(Clone)]
pub struct FnInterceptor<F>(F);

impl<F> fmt::Debug for FnInterceptor<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FnInterceptor")
    }
}

#[async_trait]
impl<F> CallInterceptor for FnInterceptor<F>
where
    F: Fn(&mut CallMeta) -> Result<(), ClientError> + Send + Sync + 'static,
{
    async fn before(&self, call: &mut CallMeta) -> Result<(), ClientError> {
        (self.0)(call)
    }
}

/// Fixed headers on every call (added to what is there; a repeated name
/// adds another value).
#[derive(Debug, Clone, Default)]
pub struct StaticHeaders(HeaderMap);

impl StaticHeaders {
    /// No headers yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a header.
    #[must_use]
    pub fn with(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.0.append(name, value);
        self
    }
}

#[async_trait]
impl CallInterceptor for StaticHeaders {
    async fn before(&self, call: &mut CallMeta) -> Result<(), ClientError> {
        for (name, value) in &self.0 {
            call.headers.append(name.clone(), value.clone());
        }
        Ok(())
    }
}

/// Credentials on every call, replacing any earlier value of the header.
///
/// Matches the card's security schemes: `http` `bearer` →
/// [`Credentials::bearer`]; `apiKey` in `header` → [`Credentials::api_key`]
/// with the scheme's `name`.
#[derive(Clone)]
pub struct Credentials {
    name: HeaderName,
    value: HeaderValue,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the secret.
        f.debug_struct("Credentials")
            .field("header", &self.name)
            .finish_non_exhaustive()
    }
}

impl Credentials {
    /// `Authorization: Bearer <token>` (gRPC: `authorization` metadata).
    ///
    /// # Panics
    ///
    /// If `token` holds characters that cannot be in a header (control
    /// characters); use [`Credentials::header`] to handle that as an error.
    #[must_use]
    pub fn bearer(token: &str) -> Self {
        Self::header(AUTHORIZATION, &format!("Bearer {token}"))
            .expect("a bearer token without control characters")
    }

    /// An API key in the header `name` (e.g. `X-API-Key`).
    ///
    /// # Panics
    ///
    /// If `name` is not a valid header name or `key` cannot be a header
    /// value; use [`Credentials::header`] to handle that as an error.
    #[must_use]
    pub fn api_key(name: &str, key: &str) -> Self {
        let name = HeaderName::from_bytes(name.as_bytes()).expect("a valid header name");
        Self::header(name, key).expect("an API key without control characters")
    }

    /// Any credential header.
    ///
    /// # Errors
    ///
    /// [`ClientError::Interceptor`] when `value` cannot be a header value.
    pub fn header(name: HeaderName, value: &str) -> Result<Self, ClientError> {
        let mut value = HeaderValue::from_str(value).map_err(|_| {
            ClientError::Interceptor(format!("the {name} credential is not a valid header value"))
        })?;
        value.set_sensitive(true);
        Ok(Self { name, value })
    }
}

#[async_trait]
impl CallInterceptor for Credentials {
    async fn before(&self, call: &mut CallMeta) -> Result<(), ClientError> {
        call.headers.insert(self.name.clone(), self.value.clone());
        Ok(())
    }
}

/// Asks for extensions: `X-A2A-Extensions: uri1, uri2` (gRPC:
/// `x-a2a-extensions` metadata). URIs already asked for by an earlier
/// header are kept, duplicates dropped.
#[derive(Debug, Clone)]
pub struct Extensions(Vec<String>);

impl Extensions {
    /// The extension URIs to ask for.
    pub fn new<I, S>(uris: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self(uris.into_iter().map(Into::into).collect())
    }
}

#[async_trait]
impl CallInterceptor for Extensions {
    async fn before(&self, call: &mut CallMeta) -> Result<(), ClientError> {
        let name = HeaderName::from_static(EXTENSIONS_HEADER);
        let mut uris: Vec<String> = Vec::new();
        for value in call.headers.get_all(&name) {
            let Ok(text) = value.to_str() else { continue };
            for uri in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                if !uris.iter().any(|u| u == uri) {
                    uris.push(uri.to_owned());
                }
            }
        }
        for uri in &self.0 {
            if !uris.iter().any(|u| u == uri) {
                uris.push(uri.clone());
            }
        }
        if uris.is_empty() {
            return Ok(());
        }
        let value = HeaderValue::from_str(&uris.join(", ")).map_err(|_| {
            ClientError::Interceptor("an extension URI is not a valid header value".to_owned())
        })?;
        call.headers.insert(name, value);
        Ok(())
    }
}

type TraceSource = dyn Fn() -> Option<String> + Send + Sync;

/// W3C trace context: `traceparent` (and `tracestate`) from the caller's
/// current span, asked for on every call, so calls join the caller's trace
/// on every transport.
#[derive(Clone)]
pub struct TraceContext {
    traceparent: Arc<TraceSource>,
    tracestate: Option<Arc<TraceSource>>,
}

impl fmt::Debug for TraceContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TraceContext").finish_non_exhaustive()
    }
}

impl TraceContext {
    /// `traceparent` from `current` (e.g. read from your OpenTelemetry
    /// context); `None` sends no header.
    pub fn new(current: impl Fn() -> Option<String> + Send + Sync + 'static) -> Self {
        Self {
            traceparent: Arc::new(current),
            tracestate: None,
        }
    }

    /// Also sends `tracestate` from `current`.
    #[must_use]
    pub fn with_tracestate(
        mut self,
        current: impl Fn() -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.tracestate = Some(Arc::new(current));
        self
    }
}

#[async_trait]
impl CallInterceptor for TraceContext {
    async fn before(&self, call: &mut CallMeta) -> Result<(), ClientError> {
        let set = |call: &mut CallMeta, name: &'static str, value: Option<String>| {
            let Some(value) = value else { return Ok(()) };
            let value = HeaderValue::from_str(&value).map_err(|_| {
                ClientError::Interceptor(format!("{name} is not a valid header value"))
            })?;
            call.headers.insert(HeaderName::from_static(name), value);
            Ok::<(), ClientError>(())
        };
        set(call, TRACEPARENT_HEADER, (self.traceparent)())?;
        if let Some(state) = &self.tracestate {
            set(call, TRACESTATE_HEADER, state())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(interceptor: impl CallInterceptor, base: HeaderMap) -> HeaderMap {
        let mut chain = Chain::default();
        chain.push(Arc::new(interceptor));
        chain
            .headers(Operation::GetTask, "JSONRPC", &base)
            .await
            .expect("headers")
    }

    #[tokio::test]
    async fn built_in_interceptors() {
        let h = run(Credentials::bearer("t0k"), HeaderMap::new()).await;
        assert_eq!(h["authorization"], "Bearer t0k");
        assert!(h["authorization"].is_sensitive());
        assert!(!format!("{:?}", Credentials::bearer("t0k")).contains("t0k"));
        let h = run(Credentials::api_key("X-API-Key", "k"), HeaderMap::new()).await;
        assert_eq!(h["x-api-key"], "k");

        let mut base = HeaderMap::new();
        base.append(EXTENSIONS_HEADER, HeaderValue::from_static("urn:a, urn:b"));
        let h = run(Extensions::new(["urn:b", "urn:c"]), base).await;
        assert_eq!(h[EXTENSIONS_HEADER], "urn:a, urn:b, urn:c");
        let h = run(Extensions::new(Vec::<String>::new()), HeaderMap::new()).await;
        assert!(h.is_empty());

        let h = run(
            TraceContext::new(|| Some("00-abc-def-01".to_owned()))
                .with_tracestate(|| Some("k=v".to_owned())),
            HeaderMap::new(),
        )
        .await;
        assert_eq!(h[TRACEPARENT_HEADER], "00-abc-def-01");
        assert_eq!(h[TRACESTATE_HEADER], "k=v");
        let h = run(TraceContext::new(|| None), HeaderMap::new()).await;
        assert!(h.is_empty());

        let h = run(
            StaticHeaders::new()
                .with(
                    HeaderName::from_static("x-a"),
                    HeaderValue::from_static("1"),
                )
                .with(
                    HeaderName::from_static("x-a"),
                    HeaderValue::from_static("2"),
                ),
            HeaderMap::new(),
        )
        .await;
        assert_eq!(h.get_all("x-a").iter().count(), 2);
    }

    #[tokio::test]
    async fn an_interceptor_can_refuse_and_sees_the_call() {
        let mut chain = Chain::default();
        chain.push(Arc::new(from_fn(|call| {
            assert_eq!(call.transport(), "GRPC");
            if call.operation() == Operation::CancelTask {
                Err(ClientError::Interceptor("no".to_owned()))
            } else {
                Ok(())
            }
        })));
        assert!(
            chain
                .headers(Operation::GetTask, "GRPC", &HeaderMap::new())
                .await
                .is_ok()
        );
        assert_eq!(
            chain
                .headers(Operation::CancelTask, "GRPC", &HeaderMap::new())
                .await,
            Err(ClientError::Interceptor("no".to_owned()))
        );
    }

    #[test]
    fn operation_names() {
        assert_eq!(
            Operation::ResubscribeTask.json_rpc_method(),
            "tasks/resubscribe"
        );
        assert_eq!(Operation::ResubscribeTask.grpc_method(), "TaskSubscription");
        assert_eq!(
            Operation::GetExtendedAgentCard.json_rpc_method(),
            "agent/getAuthenticatedExtendedCard"
        );
    }
}
