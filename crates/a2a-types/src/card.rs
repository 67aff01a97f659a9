//! The agent card and its parts: skills, capabilities, interfaces and
//! security schemes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol version this crate implements, written into every card.
pub const PROTOCOL_VERSION: &str = "0.3.0";

/// The transport name of JSON-RPC 2.0 over HTTP (`"JSONRPC"`).
pub const TRANSPORT_JSONRPC: &str = "JSONRPC";
/// The transport name of gRPC (`"GRPC"`).
pub const TRANSPORT_GRPC: &str = "GRPC";
/// The transport name of the HTTP+JSON/REST binding (`"HTTP+JSON"`).
pub const TRANSPORT_HTTP_JSON: &str = "HTTP+JSON";

/// A self-describing manifest of an agent, served at
/// `/.well-known/agent-card.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCard {
    /// The protocol version, `"0.3.0"`.
    pub protocol_version: String,
    /// Human-readable name.
    pub name: String,
    /// What the agent does.
    pub description: String,
    /// The URL of the preferred interface.
    pub url: String,
    /// The transport at `url`: `"JSONRPC"`, `"GRPC"` or `"HTTP+JSON"`.
    #[serde(default = "default_transport")]
    pub preferred_transport: String,
    /// Every interface (transport + URL) the agent serves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_interfaces: Option<Vec<AgentInterface>>,
    /// An icon for the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon_url: Option<String>,
    /// Who provides the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<AgentProvider>,
    /// The agent's own version.
    pub version: String,
    /// Where its documentation is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation_url: Option<String>,
    /// Optional capabilities.
    pub capabilities: AgentCapabilities,
    /// Security schemes by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security_schemes: Option<BTreeMap<String, SecurityScheme>>,
    /// Security requirements: OR of ANDs of scheme names with scopes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security: Option<Vec<BTreeMap<String, Vec<String>>>>,
    /// Default input MIME types.
    pub default_input_modes: Vec<String>,
    /// Default output MIME types.
    pub default_output_modes: Vec<String>,
    /// What the agent can do.
    pub skills: Vec<AgentSkill>,
    /// True when `agent/getAuthenticatedExtendedCard` returns a fuller card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_authenticated_extended_card: Option<bool>,
    /// JWS signatures of the card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signatures: Option<Vec<AgentCardSignature>>,
}

fn default_transport() -> String {
    TRANSPORT_JSONRPC.to_owned()
}

/// A transport and the URL where it is served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentInterface {
    /// `"JSONRPC"`, `"GRPC"` or `"HTTP+JSON"` (or another, custom name).
    pub transport: String,
    /// The URL.
    pub url: String,
}

/// The organization that provides an agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentProvider {
    /// Organization name.
    pub organization: String,
    /// Organization URL.
    pub url: String,
}

/// Optional capabilities of an agent.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    /// Supports `message/stream` and `tasks/resubscribe`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<bool>,
    /// Sends push notifications.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notifications: Option<bool>,
    /// Keeps a history of state transitions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_transition_history: Option<bool>,
    /// Protocol extensions supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<AgentExtension>>,
}

/// A protocol extension an agent supports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentExtension {
    /// The extension's URI.
    pub uri: String,
    /// How the agent uses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether clients must understand it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Extension-specific parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<serde_json::Map<String, Value>>,
}

/// A capability of an agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSkill {
    /// Unique id.
    pub id: String,
    /// Human-readable name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Keywords.
    pub tags: Vec<String>,
    /// Example prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub examples: Option<Vec<String>>,
    /// Input MIME types, overriding the card's defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_modes: Option<Vec<String>>,
    /// Output MIME types, overriding the card's defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_modes: Option<Vec<String>>,
    /// Security requirements of this skill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security: Option<Vec<BTreeMap<String, Vec<String>>>>,
}

/// A JWS signature of an agent card (RFC 7515 JSON serialization).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCardSignature {
    /// Base64url protected header.
    pub protected: String,
    /// Base64url signature.
    pub signature: String,
    /// Unprotected header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<serde_json::Map<String, Value>>,
}

/// A security scheme, tagged by `type` (OpenAPI 3.0 style).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
#[allow(
    clippy::large_enum_variant,
    reason = "card data, built once; boxing would only complicate construction"
)]
pub enum SecurityScheme {
    /// `type: "apiKey"`.
    #[serde(rename = "apiKey")]
    ApiKey(ApiKeySecurityScheme),
    /// `type: "http"`.
    #[serde(rename = "http")]
    Http(HttpAuthSecurityScheme),
    /// `type: "oauth2"`.
    #[serde(rename = "oauth2")]
    OAuth2(OAuth2SecurityScheme),
    /// `type: "openIdConnect"`.
    #[serde(rename = "openIdConnect")]
    OpenIdConnect(OpenIdConnectSecurityScheme),
    /// `type: "mutualTLS"`.
    #[serde(rename = "mutualTLS")]
    MutualTls(MutualTlsSecurityScheme),
}

/// An API key in a header, query parameter or cookie.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeySecurityScheme {
    /// `"header"`, `"query"` or `"cookie"` (proto `location`).
    #[serde(rename = "in")]
    pub location: String,
    /// The header, parameter or cookie name.
    pub name: String,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// HTTP authentication (e.g. `Bearer`, `Basic`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpAuthSecurityScheme {
    /// The scheme name (RFC 7235).
    pub scheme: String,
    /// A hint about the bearer token format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_format: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// OAuth 2.0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuth2SecurityScheme {
    /// The flows supported.
    pub flows: OAuthFlows,
    /// RFC 8414 metadata URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2_metadata_url: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// OpenID Connect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenIdConnectSecurityScheme {
    /// The discovery URL.
    pub open_id_connect_url: String,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Mutual TLS.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MutualTlsSecurityScheme {
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The OAuth 2.0 flows an agent supports (several may be set).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthFlows {
    /// Authorization code flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_code: Option<AuthorizationCodeOAuthFlow>,
    /// Client credentials flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_credentials: Option<ClientCredentialsOAuthFlow>,
    /// Implicit flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implicit: Option<ImplicitOAuthFlow>,
    /// Resource owner password flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<PasswordOAuthFlow>,
}

/// OAuth authorization code flow.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizationCodeOAuthFlow {
    /// Authorization URL.
    pub authorization_url: String,
    /// Token URL.
    pub token_url: String,
    /// Refresh URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_url: Option<String>,
    /// Scopes and their descriptions.
    pub scopes: BTreeMap<String, String>,
}

/// OAuth client credentials flow.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCredentialsOAuthFlow {
    /// Token URL.
    pub token_url: String,
    /// Refresh URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_url: Option<String>,
    /// Scopes and their descriptions.
    pub scopes: BTreeMap<String, String>,
}

/// OAuth implicit flow.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImplicitOAuthFlow {
    /// Authorization URL.
    pub authorization_url: String,
    /// Refresh URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_url: Option<String>,
    /// Scopes and their descriptions.
    pub scopes: BTreeMap<String, String>,
}

/// OAuth resource owner password flow.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PasswordOAuthFlow {
    /// Token URL.
    pub token_url: String,
    /// Refresh URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_url: Option<String>,
    /// Scopes and their descriptions.
    pub scopes: BTreeMap<String, String>,
}
