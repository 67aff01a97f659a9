//! Agent card discovery: [`CardResolver`].
//!
//! ```no_run
//! use a2a_client::card::CardResolver;
//!
//! # async fn run() -> Result<(), a2a_client::ClientError> {
//! // `/.well-known/agent-card.json`, then the legacy `/.well-known/agent.json`.
//! let card = CardResolver::new("http://127.0.0.1:8080").resolve().await?;
//! // A card served somewhere else: that path only.
//! let other = CardResolver::new("http://127.0.0.1:8080")
//!     .with_path("/agents/echo/card.json")
//!     .resolve()
//!     .await?;
//! # let _ = (card, other); Ok(()) }
//! ```

use a2a_types::AgentCard;
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};

use crate::ClientError;
use crate::interceptor::{CallInterceptor, Chain, Operation};
use crate::util::{APPLICATION_JSON, HttpBase, is_gateway_error, read_body};

/// The path of the agent card (A2A v0.3.0), relative to the agent's base URL.
pub const AGENT_CARD_PATH: &str = "/.well-known/agent-card.json";
/// The legacy path of the agent card (A2A ≤ 0.2), tried second.
pub const LEGACY_AGENT_CARD_PATH: &str = "/.well-known/agent.json";

/// The transport name interceptors see for card discovery.
pub const CARD_DISCOVERY_TRANSPORT: &str = "HTTP";

/// Fetches an agent card over HTTP.
///
/// - By default from `{base}/.well-known/agent-card.json`, then, when that
///   answers an error status (404…), from the legacy
///   `{base}/.well-known/agent.json`.
/// - A `base` ending in `.json` is fetched as is.
/// - [`with_path`](Self::with_path): from `{base}{path}` only (an absolute
///   `http(s)://` path is used as is).
///
/// Interceptors run with [`Operation::GetAgentCard`] and transport
/// [`CARD_DISCOVERY_TRANSPORT`], so credentials reach a card endpoint that
/// needs them.
///
/// Errors: no answer is [`ClientError::Unreachable`] (as a 502/503/504 from a
/// gateway); no card at any path tried, or a body that is not a card, is
/// [`ClientError::InvalidResponse`] naming the URLs and statuses.
#[derive(Debug, Clone)]
pub struct CardResolver {
    base: String,
    path: Option<String>,
    http: HttpBase,
}

impl CardResolver {
    /// A resolver for the agent at `base_url` (a trailing `/` is dropped).
    pub fn new(base_url: impl Into<String>) -> Self {
        let mut base = base_url.into().trim().to_owned();
        while base.ends_with('/') {
            base.pop();
        }
        Self {
            base,
            path: None,
            http: HttpBase::default(),
        }
    }

    /// Fetches the card from this path (relative to the base URL) instead
    /// of the well-known paths.
    #[must_use]
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// Uses `client` (timeouts, TLS, proxies) for the request.
    #[must_use]
    pub fn with_client(mut self, client: reqwest::Client) -> Self {
        self.http.client = client;
        self
    }

    /// Adds a header to the request.
    #[must_use]
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.http.headers.append(name, value);
        self
    }

    /// Runs `interceptor` before the request.
    #[must_use]
    pub fn with_interceptor(mut self, interceptor: impl CallInterceptor) -> Self {
        self.http
            .interceptors
            .push(std::sync::Arc::new(interceptor));
        self
    }

    pub(crate) fn with_chain(mut self, chain: &Chain) -> Self {
        self.http.interceptors.extend(chain);
        self
    }

    /// The URLs tried, in order.
    #[must_use]
    pub fn urls(&self) -> Vec<String> {
        let base = &self.base;
        match &self.path {
            Some(p) if p.starts_with("http://") || p.starts_with("https://") => vec![p.clone()],
            Some(p) => vec![format!("{base}/{}", p.trim_start_matches('/'))],
            None if base.ends_with(".json") => vec![base.clone()],
            None => vec![
                format!("{base}{AGENT_CARD_PATH}"),
                format!("{base}{LEGACY_AGENT_CARD_PATH}"),
            ],
        }
    }

    /// Fetches the card (see the type's docs).
    ///
    /// # Errors
    ///
    /// See the type's docs.
    pub async fn resolve(&self) -> Result<AgentCard, ClientError> {
        let headers = self
            .http
            .call_headers(Operation::GetAgentCard, CARD_DISCOVERY_TRANSPORT)
            .await?;
        let urls = self.urls();
        let mut missing = Vec::with_capacity(urls.len());
        for url in &urls {
            match get_card(&self.http, &headers, url).await? {
                CardFetch::Found(card) => return Ok(*card),
                CardFetch::Missing(status) => missing.push(format!("{url} (HTTP {status})")),
            }
        }
        Err(ClientError::InvalidResponse(format!(
            "no agent card at {}",
            missing.join(" nor at ")
        )))
    }
}

enum CardFetch {
    Found(Box<AgentCard>),
    Missing(StatusCode),
}

async fn get_card(
    http: &HttpBase,
    headers: &HeaderMap,
    url: &str,
) -> Result<CardFetch, ClientError> {
    let response = http
        .send_with(headers.clone(), Method::GET, url, APPLICATION_JSON, None)
        .await?;
    let status = response.status();
    if is_gateway_error(status) {
        return Err(ClientError::Unreachable(format!("HTTP {status}")));
    }
    if !status.is_success() {
        return Ok(CardFetch::Missing(status));
    }
    let bytes = read_body(response).await?;
    serde_json::from_slice(&bytes)
        .map(|card| CardFetch::Found(Box::new(card)))
        .map_err(|e| ClientError::InvalidResponse(format!("malformed agent card at {url}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_tried() {
        assert_eq!(
            CardResolver::new("http://h:1/").urls(),
            [
                "http://h:1/.well-known/agent-card.json",
                "http://h:1/.well-known/agent.json"
            ]
        );
        assert_eq!(
            CardResolver::new("http://h:1/a2a").urls()[0],
            "http://h:1/a2a/.well-known/agent-card.json"
        );
        assert_eq!(
            CardResolver::new("http://h:1/x/card.json").urls(),
            ["http://h:1/x/card.json"]
        );
        assert_eq!(
            CardResolver::new("http://h:1/")
                .with_path("/agents/a.json")
                .urls(),
            ["http://h:1/agents/a.json"]
        );
        assert_eq!(
            CardResolver::new("http://h:1")
                .with_path("https://cards.example/a.json")
                .urls(),
            ["https://cards.example/a.json"]
        );
    }
}
