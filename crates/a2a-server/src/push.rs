//! [`HttpPushSender`]: delivers push notifications over HTTP with reqwest.

use std::time::Duration;

use a2a_core::PushSender;
use a2a_types::{A2aError, PushNotificationConfig, Task};
use async_trait::async_trait;

/// The header carrying the config's token.
pub const NOTIFICATION_TOKEN_HEADER: &str = "X-A2A-Notification-Token";
/// The default timeout of one delivery.
pub const DEFAULT_PUSH_TIMEOUT: Duration = Duration::from_secs(10);

/// Delivers a task to a webhook: `POST <config.url>` with the task in its
/// JSON-RPC shape (`{"kind":"task",…}`) as the body, the
/// `X-A2A-Notification-Token: <token>` header when the config has a token,
/// and `Authorization: Bearer <credentials>` when `authentication.schemes`
/// names `Bearer` and credentials are set. Each delivery times out after
/// [`DEFAULT_PUSH_TIMEOUT`]; a non-2xx answer is an error (the engine logs
/// it; there is no retry).
#[derive(Debug, Clone)]
pub struct HttpPushSender {
    client: reqwest::Client,
    timeout: Duration,
}

impl Default for HttpPushSender {
    fn default() -> Self {
        Self::new()
    }
}

impl HttpPushSender {
    /// A sender with its own client (which does not follow redirects, so
    /// the token never travels to another URL) and the default timeout.
    #[must_use]
    pub fn new() -> Self {
        Self::with_client(
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap_or_default(),
        )
    }

    /// A sender using `client` (connection pool, proxies, TLS settings).
    #[must_use]
    pub fn with_client(client: reqwest::Client) -> Self {
        Self {
            client,
            timeout: DEFAULT_PUSH_TIMEOUT,
        }
    }

    /// Sets the timeout of one delivery.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

#[async_trait]
impl PushSender for HttpPushSender {
    async fn send(&self, config: &PushNotificationConfig, task: &Task) -> Result<(), A2aError> {
        let mut request = self
            .client
            .post(&config.url)
            .timeout(self.timeout)
            .json(task);
        if let Some(token) = config.token.as_deref().filter(|t| !t.is_empty()) {
            request = request.header(NOTIFICATION_TOKEN_HEADER, token);
        }
        if let Some(auth) = &config.authentication
            && auth
                .schemes
                .iter()
                .any(|s| s.trim().eq_ignore_ascii_case("bearer"))
            && let Some(credentials) = auth.credentials.as_deref().filter(|c| !c.is_empty())
        {
            request = request.bearer_auth(credentials);
        }
        let response = request.send().await.map_err(|e| {
            A2aError::internal(format!("push notification to {} failed: {e}", config.url))
        })?;
        let status = response.status();
        if status.is_success() {
            Ok(())
        } else {
            Err(A2aError::internal(format!(
                "push notification to {} was answered with HTTP {status}",
                config.url
            )))
        }
    }
}
