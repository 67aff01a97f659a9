//! [`Client`]: every A2A operation through one API, over whichever
//! transport the agent card and the client agree on.

use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use a2a_types::{
    A2aError, AgentCard, AgentInterface, DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams, ListTaskPushNotificationConfigParams, MessageSendParams,
    SendMessageResult, StreamResponse, TRANSPORT_GRPC, TRANSPORT_HTTP_JSON, TRANSPORT_JSONRPC,
    Task, TaskIdParams, TaskPushNotificationConfig, TaskQueryParams,
};
use async_trait::async_trait;
use tokio::sync::OnceCell;

use crate::card::CardResolver;
use crate::interceptor::{CallInterceptor, Chain};
use crate::{ClientError, EventStream, Transport};

/// The default of [`ClientBuilder::connect_timeout`].
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The transports compiled into this build (features `jsonrpc`, `grpc`,
/// `rest`), in the default preference order: JSON-RPC, gRPC, HTTP+JSON.
#[must_use]
pub fn compiled_transports() -> Vec<&'static str> {
    let all = [
        (TRANSPORT_JSONRPC, cfg!(feature = "jsonrpc")),
        (TRANSPORT_GRPC, cfg!(feature = "grpc")),
        (TRANSPORT_HTTP_JSON, cfg!(feature = "rest")),
    ];
    all.into_iter()
        .filter(|(_, on)| *on)
        .map(|(t, _)| t)
        .collect()
}

/// The canonical name of a transport this build has, matched without
/// regard to case.
fn compiled(name: &str) -> Option<&'static str> {
    compiled_transports()
        .into_iter()
        .find(|t| t.eq_ignore_ascii_case(name.trim()))
}

/// Builds a [`Client`]: the transports it may use and in which order, the
/// interceptors, the HTTP client, and how the card is found.
#[derive(Debug, Clone)]
pub struct ClientBuilder {
    transports: Vec<&'static str>,
    client_preference: bool,
    fallback: bool,
    interceptors: Chain,
    http: Option<reqwest::Client>,
    connect_timeout: Option<Duration>,
    card_path: Option<String>,
    extended_card: bool,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        Self {
            transports: compiled_transports(),
            client_preference: false,
            fallback: true,
            interceptors: Chain::default(),
            http: None,
            connect_timeout: Some(DEFAULT_CONNECT_TIMEOUT),
            card_path: None,
            extended_card: false,
        }
    }
}

impl ClientBuilder {
    /// The transports the client may use, in its order of preference
    /// (default: every compiled one, JSON-RPC, gRPC, HTTP+JSON). Names are
    /// the card's (`"JSONRPC"`, `"GRPC"`, `"HTTP+JSON"`, any case); a
    /// transport not compiled into this build is ignored.
    #[must_use]
    pub fn transports<I, S>(mut self, transports: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.transports.clear();
        for t in transports {
            if let Some(t) = compiled(t.as_ref())
                && !self.transports.contains(&t)
            {
                self.transports.push(t);
            }
        }
        self
    }

    /// `false` (the default, spec §5.6.3): the card's `preferredTransport`
    /// at its main `url` comes first when the client supports it, then the
    /// other declared interfaces in the client's order. `true`: the
    /// client's order decides alone.
    #[must_use]
    pub fn client_preference(mut self, yes: bool) -> Self {
        self.client_preference = yes;
        self
    }

    /// Whether a call that finds its transport unreachable is retried on
    /// the next declared one (default `true`).
    #[must_use]
    pub fn fallback(mut self, yes: bool) -> Self {
        self.fallback = yes;
        self
    }

    /// Runs `interceptor` before every call, card discovery included, on
    /// every transport; see [`interceptor`](crate::interceptor).
    #[must_use]
    pub fn interceptor(mut self, interceptor: impl CallInterceptor) -> Self {
        self.interceptors.push(Arc::new(interceptor));
        self
    }

    /// The HTTP client of card discovery, JSON-RPC and HTTP+JSON (timeouts,
    /// TLS, proxies, connection pool). Default: one `reqwest::Client` shared
    /// by them.
    #[must_use]
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = Some(client);
        self
    }

    /// How long a transport may take to connect before it counts as
    /// unreachable (and the client falls back to the next interface).
    /// Default [`DEFAULT_CONNECT_TIMEOUT`]; `None`: the operating system's.
    /// Applies to gRPC, and to the HTTP transports unless
    /// [`http_client`](Self::http_client) gave a client of your own.
    #[must_use]
    pub fn connect_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.connect_timeout = timeout;
        self
    }

    fn http(&self) -> reqwest::Client {
        self.http.clone().unwrap_or_else(|| {
            let mut builder = reqwest::Client::builder();
            if let Some(t) = self.connect_timeout {
                builder = builder.connect_timeout(t);
            }
            builder.build().unwrap_or_default()
        })
    }

    /// [`connect`](Self::connect) fetches the card from this path (relative
    /// to the URL) instead of `/.well-known/agent-card.json` and the legacy
    /// `/.well-known/agent.json`.
    #[must_use]
    pub fn card_path(mut self, path: impl Into<String>) -> Self {
        self.card_path = Some(path.into());
        self
    }

    /// When `true`, [`connect`](Self::connect) also fetches the
    /// authenticated extended card when the public card declares
    /// `supportsAuthenticatedExtendedCard`, and uses it as the client's card
    /// (the interfaces stay those of the public card). Default `false`.
    #[must_use]
    pub fn extended_card(mut self, yes: bool) -> Self {
        self.extended_card = yes;
        self
    }

    /// The client for the agent at `url`: discovers its card (see
    /// [`CardResolver`]), then [`build`](Self::build)s.
    ///
    /// # Errors
    ///
    /// Card discovery's errors, [`build`](Self::build)'s, and the extended
    /// card's when asked for.
    pub async fn connect(self, url: &str) -> Result<Client, ClientError> {
        let http = self.http();
        let mut resolver = CardResolver::new(url)
            .with_client(http.clone())
            .with_chain(&self.interceptors);
        if let Some(path) = &self.card_path {
            resolver = resolver.with_path(path.clone());
        }
        let card = resolver.resolve().await?;
        let extended = self.extended_card;
        let client = self.http_client(http).build(card)?;
        if extended && client.card().supports_authenticated_extended_card == Some(true) {
            client.get_extended_agent_card().await?;
        }
        Ok(client)
    }

    /// The client for `card`. No connection is made yet: each transport is
    /// set up on its first call.
    ///
    /// # Errors
    ///
    /// [`ClientError::NoTransport`] when the card declares no interface
    /// with a transport the client may use.
    pub fn build(self, card: AgentCard) -> Result<Client, ClientError> {
        let plan = select_interfaces(&card, &self.transports, self.client_preference);
        if plan.is_empty() {
            let declared: Vec<String> = declared_interfaces(&card)
                .into_iter()
                .map(|i| format!("{} {}", i.transport, i.url))
                .collect();
            return Err(ClientError::NoTransport(format!(
                "the card declares [{}]; this client uses [{}]",
                declared.join(", "),
                self.transports.join(", ")
            )));
        }
        let candidates = plan
            .into_iter()
            .filter_map(|i| {
                compiled(&i.transport).map(|transport| Candidate {
                    transport,
                    url: i.url,
                    built: OnceCell::new(),
                })
            })
            .collect();
        Ok(Client {
            card: RwLock::new(Arc::new(card)),
            candidates,
            current: AtomicUsize::new(0),
            fallback: self.fallback,
            http: self.http(),
            connect_timeout: self.connect_timeout,
            interceptors: self.interceptors,
        })
    }
}

/// The interfaces a card declares: its main `url` with `preferredTransport`,
/// then `additionalInterfaces`, without repeats (URLs compared without a
/// trailing `/`).
fn declared_interfaces(card: &AgentCard) -> Vec<AgentInterface> {
    let main = (!card.url.trim().is_empty()).then(|| AgentInterface {
        transport: card.preferred_transport.clone(),
        url: card.url.clone(),
    });
    let mut out: Vec<AgentInterface> = Vec::new();
    for i in main
        .into_iter()
        .chain(card.additional_interfaces.iter().flatten().cloned())
    {
        let same = |o: &AgentInterface| {
            o.transport.eq_ignore_ascii_case(&i.transport)
                && o.url.trim().trim_end_matches('/') == i.url.trim().trim_end_matches('/')
        };
        if !i.url.trim().is_empty() && !out.iter().any(same) {
            out.push(i);
        }
    }
    out
}

/// The order in which a client tries a card's interfaces (spec §5.6.3):
/// only transports in `transports` (the client's, in its order of
/// preference); with `client_preference` false the card's main `url` comes
/// first when its `preferredTransport` is one of them, then the others by
/// the client's order (declaration order among equals); with
/// `client_preference` true the client's order alone decides.
///
/// ```
/// use a2a_client::select_interfaces;
///
/// let card: a2a_types::AgentCard = serde_json::from_value(serde_json::json!({
///     "protocolVersion": "0.3.0", "name": "a", "description": "d", "version": "1",
///     "url": "http://h:1/", "preferredTransport": "JSONRPC",
///     "additionalInterfaces": [
///         {"transport": "JSONRPC", "url": "http://h:1/"},
///         {"transport": "HTTP+JSON", "url": "http://h:2"},
///         {"transport": "GRPC", "url": "h:3"}
///     ],
///     "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []
/// })).unwrap();
/// let order = |prefs: &[&str], client_first| -> Vec<String> {
///     select_interfaces(&card, prefs, client_first).into_iter().map(|i| i.url).collect()
/// };
/// // The agent's preference first, then the client's order.
/// assert_eq!(order(&["GRPC", "HTTP+JSON", "JSONRPC"], false), ["http://h:1/", "h:3", "http://h:2"]);
/// // The client's order only.
/// assert_eq!(order(&["GRPC", "HTTP+JSON", "JSONRPC"], true), ["h:3", "http://h:2", "http://h:1/"]);
/// // A client without JSON-RPC.
/// assert_eq!(order(&["HTTP+JSON"], false), ["http://h:2"]);
/// ```
#[must_use]
pub fn select_interfaces(
    card: &AgentCard,
    transports: &[&str],
    client_preference: bool,
) -> Vec<AgentInterface> {
    let rank = |t: &str| transports.iter().position(|p| p.eq_ignore_ascii_case(t));
    let main_url = card.url.trim().trim_end_matches('/');
    let is_main = |i: &AgentInterface| {
        i.transport.eq_ignore_ascii_case(&card.preferred_transport)
            && i.url.trim().trim_end_matches('/') == main_url
    };
    let mut ranked: Vec<(bool, usize, usize, AgentInterface)> = declared_interfaces(card)
        .into_iter()
        .enumerate()
        .filter_map(|(order, i)| {
            let r = rank(&i.transport)?;
            let first = !client_preference && is_main(&i);
            Some((!first, r, order, i))
        })
        .collect();
    ranked.sort_by_key(|(not_first, r, order, _)| (*not_first, *r, *order));
    ranked.into_iter().map(|(_, _, _, i)| i).collect()
}

struct Candidate {
    transport: &'static str,
    url: String,
    built: OnceCell<Arc<dyn Transport>>,
}

/// One A2A client over JSON-RPC, gRPC and HTTP+JSON, chosen from the agent
/// card.
///
/// ```no_run
/// use a2a_client::Client;
/// use a2a_client::interceptor::Credentials;
/// use a2a_types::{Message, MessageSendParams, TaskIdParams};
///
/// # async fn run() -> Result<(), a2a_client::ClientError> {
/// let client = Client::builder()
///     .transports(["GRPC", "JSONRPC", "HTTP+JSON"])
///     .interceptor(Credentials::bearer("secret"))
///     .connect("http://127.0.0.1:8080")
///     .await?;
/// println!("talking {} at {}", client.transport(), client.url());
///
/// let reply = client
///     .send_message(MessageSendParams::new(Message::user_text("m-1", "hello")))
///     .await?;
///
/// let events = client
///     .send_message_stream(MessageSendParams::new(Message::user_text("m-2", "stream me")))
///     .await?;
/// let task = a2a_client::fold_task(events).await?;
/// let again = client.get_task(a2a_types::TaskQueryParams {
///     id: task.id.clone(), history_length: Some(1), metadata: None,
/// }).await?;
/// # let _ = (reply, again); Ok(()) }
/// ```
///
/// # Transport selection (spec §5.6.3)
///
/// The card's interfaces are its main `url` with `preferredTransport` and
/// its `additionalInterfaces`. The client keeps those whose transport it
/// may use ([`ClientBuilder::transports`]) and orders them with
/// [`select_interfaces`]: the agent's preferred transport at the main URL
/// first, then the client's order. Each call uses the URL declared for its
/// transport.
///
/// # Fallback
///
/// A call that fails with [`ClientError::Unreachable`] (connection refused,
/// DNS, TLS, a gateway's 502/503/504, a connection lost before the answer)
/// is made again on the next interface, and so on; the first that answers
/// becomes the client's transport for the next calls (see
/// [`transport`](Self::transport)). Any other error, the agent's A2A errors
/// included, is returned as is: the transport worked. The official SDKs do
/// not fall back; turn it off with [`ClientBuilder::fallback`]. A message
/// whose connection broke after it was sent may reach the agent twice;
/// streams are retried only until their first event.
///
/// # Streams
///
/// [`send_message_stream`](Self::send_message_stream) and
/// [`resubscribe_task`](Self::resubscribe_task) give a `Stream` of typed
/// events, the task first; [`fold_task`](crate::fold_task) folds one into
/// the final task. When the card does not declare `capabilities.streaming`,
/// `send_message_stream` sends a plain message and yields its result as the
/// one event (as the official SDK does), and `resubscribe_task` is
/// `UnsupportedOperationError` without a call.
///
/// # Errors
///
/// The same [`A2aError`] whatever the transport, in [`ClientError::A2a`].
pub struct Client {
    card: RwLock<Arc<AgentCard>>,
    candidates: Vec<Candidate>,
    current: AtomicUsize,
    fallback: bool,
    http: reqwest::Client,
    connect_timeout: Option<Duration>,
    interceptors: Chain,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("agent", &self.card().name)
            .field("transport", &self.transport())
            .field("url", &self.url())
            .field("interfaces", &self.candidates.len())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A [`ClientBuilder`] with the defaults.
    #[must_use]
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// The client for the agent at `url`, with the defaults (card from
    /// `/.well-known/agent-card.json` or the legacy path).
    ///
    /// # Errors
    ///
    /// See [`ClientBuilder::connect`].
    pub async fn connect(url: &str) -> Result<Self, ClientError> {
        Self::builder().connect(url).await
    }

    /// The client for `card`, with the defaults.
    ///
    /// # Errors
    ///
    /// See [`ClientBuilder::build`].
    pub fn from_card(card: AgentCard) -> Result<Self, ClientError> {
        Self::builder().build(card)
    }

    /// A client over one transport you built (a custom transport, a tuned
    /// channel), for the agent described by `card`. No fallback.
    pub fn with_transport(card: AgentCard, transport: Arc<dyn Transport>) -> Self {
        Self {
            candidates: vec![Candidate {
                transport: transport.name(),
                url: String::new(),
                built: OnceCell::new_with(Some(transport)),
            }],
            card: RwLock::new(Arc::new(card)),
            current: AtomicUsize::new(0),
            fallback: false,
            http: reqwest::Client::new(),
            connect_timeout: None,
            interceptors: Chain::default(),
        }
    }

    /// The agent card in use (the extended card once fetched).
    #[must_use]
    pub fn card(&self) -> Arc<AgentCard> {
        Arc::clone(&self.card.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// The transport of the next call: the first interface, or the last
    /// one that answered.
    #[must_use]
    pub fn transport(&self) -> &'static str {
        self.candidates[self.current.load(Ordering::Relaxed)].transport
    }

    /// The URL of [`transport`](Self::transport), as declared in the card.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.candidates[self.current.load(Ordering::Relaxed)].url
    }

    /// Every interface the client may use, in the order it tries them.
    #[must_use]
    pub fn interfaces(&self) -> Vec<AgentInterface> {
        self.candidates
            .iter()
            .map(|c| AgentInterface {
                transport: c.transport.to_owned(),
                url: c.url.clone(),
            })
            .collect()
    }

    fn streaming(&self) -> bool {
        self.card().capabilities.streaming == Some(true)
    }

    async fn transport_of(&self, c: &Candidate) -> Result<Arc<dyn Transport>, ClientError> {
        c.built
            .get_or_try_init(|| async { self.build_transport(c.transport, &c.url) })
            .await
            .cloned()
    }

    fn build_transport(
        &self,
        transport: &'static str,
        url: &str,
    ) -> Result<Arc<dyn Transport>, ClientError> {
        // Unused when no transport feature is on.
        let _ = (&self.http, &self.interceptors, self.connect_timeout, url);
        match transport {
            #[cfg(feature = "jsonrpc")]
            TRANSPORT_JSONRPC => Ok(Arc::new(
                crate::jsonrpc::JsonRpcTransport::new(url)
                    .with_client(self.http.clone())
                    .with_chain(&self.interceptors),
            )),
            #[cfg(feature = "rest")]
            TRANSPORT_HTTP_JSON => Ok(Arc::new(
                crate::rest::RestTransport::new(url)
                    .with_client(self.http.clone())
                    .with_chain(&self.interceptors),
            )),
            #[cfg(feature = "grpc")]
            TRANSPORT_GRPC => {
                let mut endpoint = crate::grpc::GrpcTransport::endpoint(url)?;
                if let Some(t) = self.connect_timeout {
                    endpoint = endpoint.connect_timeout(t);
                }
                let transport = crate::grpc::GrpcTransport::from_channel_with_origin(
                    endpoint.connect_lazy(),
                    url,
                )?;
                Ok(Arc::new(transport.with_chain(&self.interceptors)))
            }
            other => Err(ClientError::NoTransport(format!(
                "transport {other} is not compiled into this client"
            ))),
        }
    }

    /// Runs `call` on the current interface, falling back on the next ones
    /// while they are unreachable (see the type's docs).
    async fn route<T, F, Fut>(&self, call: F) -> Result<T, ClientError>
    where
        F: Fn(Arc<dyn Transport>) -> Fut,
        Fut: Future<Output = Result<T, ClientError>>,
    {
        let start = self.current.load(Ordering::Relaxed);
        let others = (0..self.candidates.len()).filter(|i| *i != start);
        let tries = if self.fallback {
            self.candidates.len()
        } else {
            1
        };
        let mut failures = Vec::new();
        for i in std::iter::once(start).chain(others).take(tries) {
            let c = &self.candidates[i];
            let result = match self.transport_of(c).await {
                Ok(t) => call(t).await,
                Err(e) => Err(e),
            };
            match result {
                Err(ClientError::Unreachable(why)) => {
                    tracing::debug!(transport = c.transport, url = %c.url, error = %why, "unreachable; trying the next interface");
                    failures.push(format!("{} {}: {why}", c.transport, c.url));
                }
                Err(e @ (ClientError::Interceptor(_) | ClientError::NoTransport(_))) => {
                    return Err(e);
                }
                answered => {
                    self.current.store(i, Ordering::Relaxed);
                    return answered;
                }
            }
        }
        Err(ClientError::Unreachable(failures.join("; ")))
    }

    /// Sends a message; the task (blocking: once it is terminal or
    /// interrupted) or the agent's direct reply.
    ///
    /// JSON-RPC `message/send` · gRPC `SendMessage` · REST `POST /v1/message:send`.
    ///
    /// # Errors
    ///
    /// The agent's [`A2aError`], or a transport failure.
    pub async fn send_message(
        &self,
        params: MessageSendParams,
    ) -> Result<SendMessageResult, ClientError> {
        self.route(|t| {
            let p = params.clone();
            async move { t.send_message(p).await }
        })
        .await
    }

    /// Sends a message and streams the task's events (see the type's docs
    /// for agents without streaming).
    ///
    /// JSON-RPC `message/stream` · gRPC `SendStreamingMessage` · REST `POST /v1/message:stream`.
    ///
    /// # Errors
    ///
    /// The agent's [`A2aError`] before the first event, or a transport
    /// failure; later errors are the stream's last item.
    pub async fn send_message_stream(
        &self,
        params: MessageSendParams,
    ) -> Result<EventStream, ClientError> {
        if !self.streaming() {
            let event = match self.send_message(params).await? {
                SendMessageResult::Task(t) => StreamResponse::Task(t),
                SendMessageResult::Message(m) => StreamResponse::Message(m),
            };
            return Ok(Box::pin(futures::stream::once(async move { Ok(event) })));
        }
        self.route(|t| {
            let p = params.clone();
            async move { t.send_message_stream(p).await }
        })
        .await
    }

    /// A task, its history trimmed to `historyLength` (0 or absent: all).
    ///
    /// JSON-RPC `tasks/get` · gRPC `GetTask` · REST `GET /v1/tasks/{id}`.
    ///
    /// # Errors
    ///
    /// The agent's [`A2aError`] (`TaskNotFoundError`…), or a transport failure.
    pub async fn get_task(&self, params: TaskQueryParams) -> Result<Task, ClientError> {
        self.route(|t| {
            let p = params.clone();
            async move { t.get_task(p).await }
        })
        .await
    }

    /// Cancels a task; the task in its new state.
    ///
    /// JSON-RPC `tasks/cancel` · gRPC `CancelTask` · REST `POST /v1/tasks/{id}:cancel`.
    ///
    /// # Errors
    ///
    /// The agent's [`A2aError`] (`TaskNotCancelableError`…), or a transport failure.
    pub async fn cancel_task(&self, params: TaskIdParams) -> Result<Task, ClientError> {
        self.route(|t| {
            let p = params.clone();
            async move { t.cancel_task(p).await }
        })
        .await
    }

    /// Streams a task's events again: its current snapshot, then live
    /// events until a final one.
    ///
    /// JSON-RPC `tasks/resubscribe` · gRPC `TaskSubscription` · REST `GET /v1/tasks/{id}:subscribe`.
    ///
    /// # Errors
    ///
    /// `UnsupportedOperationError` when the card does not declare
    /// streaming; the agent's [`A2aError`]; a transport failure.
    pub async fn resubscribe_task(&self, params: TaskIdParams) -> Result<EventStream, ClientError> {
        if !self.streaming() {
            return Err(ClientError::A2a(A2aError::unsupported_operation(
                "the agent card does not declare capabilities.streaming",
            )));
        }
        self.route(|t| {
            let p = params.clone();
            async move { t.resubscribe_task(p).await }
        })
        .await
    }

    /// Stores a push-notification config for a task.
    ///
    /// JSON-RPC `tasks/pushNotificationConfig/set` · gRPC `CreateTaskPushNotificationConfig` ·
    /// REST `POST /v1/tasks/{id}/pushNotificationConfigs`.
    ///
    /// # Errors
    ///
    /// The agent's [`A2aError`], or a transport failure.
    pub async fn set_push_config(
        &self,
        params: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, ClientError> {
        self.route(|t| {
            let p = params.clone();
            async move { t.set_push_config(p).await }
        })
        .await
    }

    /// One push-notification config of a task.
    ///
    /// JSON-RPC `tasks/pushNotificationConfig/get` · gRPC `GetTaskPushNotificationConfig` ·
    /// REST `GET /v1/tasks/{id}/pushNotificationConfigs/{configId}`.
    ///
    /// # Errors
    ///
    /// The agent's [`A2aError`], or a transport failure.
    pub async fn get_push_config(
        &self,
        params: GetTaskPushNotificationConfigParams,
    ) -> Result<TaskPushNotificationConfig, ClientError> {
        self.route(|t| {
            let p = params.clone();
            async move { t.get_push_config(p).await }
        })
        .await
    }

    /// The push-notification configs of a task.
    ///
    /// JSON-RPC `tasks/pushNotificationConfig/list` · gRPC `ListTaskPushNotificationConfig` ·
    /// REST `GET /v1/tasks/{id}/pushNotificationConfigs`.
    ///
    /// # Errors
    ///
    /// The agent's [`A2aError`], or a transport failure.
    pub async fn list_push_configs(
        &self,
        params: ListTaskPushNotificationConfigParams,
    ) -> Result<Vec<TaskPushNotificationConfig>, ClientError> {
        self.route(|t| {
            let p = params.clone();
            async move { t.list_push_configs(p).await }
        })
        .await
    }

    /// Deletes one push-notification config of a task.
    ///
    /// JSON-RPC `tasks/pushNotificationConfig/delete` · gRPC `DeleteTaskPushNotificationConfig` ·
    /// REST `DELETE /v1/tasks/{id}/pushNotificationConfigs/{configId}`.
    ///
    /// # Errors
    ///
    /// The agent's [`A2aError`], or a transport failure.
    pub async fn delete_push_config(
        &self,
        params: DeleteTaskPushNotificationConfigParams,
    ) -> Result<(), ClientError> {
        self.route(|t| {
            let p = params.clone();
            async move { t.delete_push_config(p).await }
        })
        .await
    }

    /// The authenticated extended card, which then becomes the client's
    /// [`card`](Self::card). Only asked for when the card declares
    /// `supportsAuthenticatedExtendedCard`; send the credentials with an
    /// interceptor. Over gRPC, `GetAgentCard` answers what the server
    /// chooses (ours and the Python SDK's: the public card).
    ///
    /// JSON-RPC `agent/getAuthenticatedExtendedCard` · gRPC `GetAgentCard` · REST `GET /v1/card`.
    ///
    /// # Errors
    ///
    /// `AuthenticatedExtendedCardNotConfiguredError` without a call when the
    /// card does not declare it; the agent's [`A2aError`]; a transport
    /// failure.
    pub async fn get_extended_agent_card(&self) -> Result<AgentCard, ClientError> {
        if self.card().supports_authenticated_extended_card != Some(true) {
            return Err(ClientError::A2a(A2aError::extended_card_not_configured(
                "the agent card does not declare supportsAuthenticatedExtendedCard",
            )));
        }
        let card = self
            .route(|t| async move { t.get_extended_agent_card().await })
            .await?;
        *self.card.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(card.clone());
        Ok(card)
    }
}

/// The client is a transport too: code written against [`Transport`] works
/// with it; [`Transport::name`] is the current transport.
#[async_trait]
impl Transport for Client {
    fn name(&self) -> &'static str {
        self.transport()
    }

    async fn send_message(
        &self,
        params: MessageSendParams,
    ) -> Result<SendMessageResult, ClientError> {
        Client::send_message(self, params).await
    }

    async fn send_message_stream(
        &self,
        params: MessageSendParams,
    ) -> Result<EventStream, ClientError> {
        Client::send_message_stream(self, params).await
    }

    async fn get_task(&self, params: TaskQueryParams) -> Result<Task, ClientError> {
        Client::get_task(self, params).await
    }

    async fn cancel_task(&self, params: TaskIdParams) -> Result<Task, ClientError> {
        Client::cancel_task(self, params).await
    }

    async fn resubscribe_task(&self, params: TaskIdParams) -> Result<EventStream, ClientError> {
        Client::resubscribe_task(self, params).await
    }

    async fn set_push_config(
        &self,
        params: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, ClientError> {
        Client::set_push_config(self, params).await
    }

    async fn get_push_config(
        &self,
        params: GetTaskPushNotificationConfigParams,
    ) -> Result<TaskPushNotificationConfig, ClientError> {
        Client::get_push_config(self, params).await
    }

    async fn list_push_configs(
        &self,
        params: ListTaskPushNotificationConfigParams,
    ) -> Result<Vec<TaskPushNotificationConfig>, ClientError> {
        Client::list_push_configs(self, params).await
    }

    async fn delete_push_config(
        &self,
        params: DeleteTaskPushNotificationConfigParams,
    ) -> Result<(), ClientError> {
        Client::delete_push_config(self, params).await
    }

    async fn get_extended_agent_card(&self) -> Result<AgentCard, ClientError> {
        Client::get_extended_agent_card(self).await
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn card(preferred: &str, url: &str, extra: serde_json::Value) -> AgentCard {
        serde_json::from_value(json!({
            "protocolVersion": "0.3.0", "name": "a", "description": "d", "version": "1",
            "url": url, "preferredTransport": preferred,
            "additionalInterfaces": extra,
            "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []
        }))
        .expect("a card")
    }

    fn urls(card: &AgentCard, prefs: &[&str], client_first: bool) -> Vec<String> {
        select_interfaces(card, prefs, client_first)
            .into_iter()
            .map(|i| format!("{} {}", i.transport, i.url))
            .collect()
    }

    #[test]
    fn selection_follows_the_card_then_the_client() {
        let c = card(
            "GRPC",
            "h:1",
            json!([
                {"transport": "HTTP+JSON", "url": "http://h:2"},
                {"transport": "GRPC", "url": "h:1"},
                {"transport": "JSONRPC", "url": "http://h:3/"},
                {"transport": "JSONRPC", "url": "http://h:4/"},
                {"transport": "CUSTOM", "url": "x://h"}
            ]),
        );
        let all = ["JSONRPC", "GRPC", "HTTP+JSON"];
        assert_eq!(
            urls(&c, &all, false),
            [
                "GRPC h:1",
                "JSONRPC http://h:3/",
                "JSONRPC http://h:4/",
                "HTTP+JSON http://h:2"
            ]
        );
        assert_eq!(
            urls(&c, &all, true),
            [
                "JSONRPC http://h:3/",
                "JSONRPC http://h:4/",
                "GRPC h:1",
                "HTTP+JSON http://h:2"
            ]
        );
        // The preferred transport is not the client's: the client's order.
        assert_eq!(
            urls(&c, &["HTTP+JSON", "JSONRPC"], false),
            [
                "HTTP+JSON http://h:2",
                "JSONRPC http://h:3/",
                "JSONRPC http://h:4/"
            ]
        );
        // Case does not matter; URLs differing only by a trailing `/` are one.
        let c = card(
            "jsonrpc",
            "http://h:1/",
            json!([{"transport": "JSONRPC", "url": "http://h:1"}]),
        );
        assert_eq!(urls(&c, &all, false), ["jsonrpc http://h:1/"]);
        // Nothing in common.
        assert!(urls(&c, &["GRPC"], false).is_empty());
    }

    #[test]
    fn builder_keeps_only_compiled_transports() {
        let b = Client::builder().transports(["grpc", "nope", "JSONRPC", "jsonrpc"]);
        let mut expected = Vec::new();
        if cfg!(feature = "grpc") {
            expected.push("GRPC");
        }
        if cfg!(feature = "jsonrpc") {
            expected.push("JSONRPC");
        }
        assert_eq!(b.transports, expected);
        let c = card("CUSTOM", "x://h", json!([]));
        let e = Client::from_card(c).expect_err("nothing in common");
        assert!(
            matches!(&e, ClientError::NoTransport(m) if m.contains("CUSTOM x://h")),
            "{e:?}"
        );
    }
}
