//! The agent card, built from an [`AgentDescription`] and the list of
//! interfaces (transport + URL) the server really serves.

use std::net::{IpAddr, SocketAddr};

use a2a_types::{
    AgentCapabilities, AgentCard, AgentInterface, PROTOCOL_VERSION, TRANSPORT_GRPC,
    TRANSPORT_HTTP_JSON, TRANSPORT_JSONRPC,
};

use crate::agents::AgentDescription;

/// A wire binding the server can listen for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Protocol {
    /// JSON-RPC 2.0 over HTTP, SSE streams (`a2a-jsonrpc`).
    JsonRpc,
    /// gRPC (`a2a-grpc`).
    Grpc,
    /// The HTTP+JSON/REST binding (`a2a-http-json`).
    HttpJson,
}

impl Protocol {
    /// The transport name in agent cards: `JSONRPC`, `GRPC`, `HTTP+JSON`.
    #[must_use]
    pub fn transport(self) -> &'static str {
        match self {
            Self::JsonRpc => TRANSPORT_JSONRPC,
            Self::Grpc => TRANSPORT_GRPC,
            Self::HttpJson => TRANSPORT_HTTP_JSON,
        }
    }

    /// The name in the `listening <name> <url>` line: `jsonrpc`, `grpc`,
    /// `http+json`.
    #[must_use]
    pub fn line_name(self) -> &'static str {
        match self {
            Self::JsonRpc => "jsonrpc",
            Self::Grpc => "grpc",
            Self::HttpJson => "http+json",
        }
    }

    /// The URL of this binding served at `host:port`, as the `listening`
    /// line prints it: JSON-RPC and REST are `http://HOST:PORT/`, gRPC is
    /// `http://HOST:PORT`. IPv6 hosts are bracketed. The card's URL can
    /// differ (see [`Endpoint::url`]).
    #[must_use]
    pub fn url(self, host: &str, port: u16) -> String {
        let host = url_host(host);
        match self {
            Self::JsonRpc | Self::HttpJson => format!("http://{host}:{port}/"),
            Self::Grpc => format!("http://{host}:{port}"),
        }
    }
}

/// How the card writes the URL of the gRPC interface (`--grpc-url-style`).
///
/// gRPC has no URL scheme of its own, and clients disagree on what they
/// dial: the official Python SDK passes the card's URL verbatim to the
/// stock `grpc.aio.insecure_channel(url)`, which takes `HOST:PORT` (or
/// `dns:///HOST:PORT`) and fails on `http://HOST:PORT`. Our own
/// `GrpcTransport` takes both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, clap::ValueEnum)]
#[non_exhaustive]
pub enum GrpcUrlStyle {
    /// Bare `HOST:PORT` (`[::1]:50051` for IPv6): what the Python SDK's
    /// gRPC client dials.
    #[default]
    HostPort,
    /// `http://HOST:PORT`.
    Http,
}

/// `::1` → `[::1]`; names and IPv4 addresses unchanged.
fn url_host(host: &str) -> String {
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V6(v6)) => format!("[{v6}]"),
        _ => host.to_owned(),
    }
}

/// A served interface: the binding, the address its listener is bound to,
/// the URL the card advertises and the URL the `listening` line prints.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Endpoint {
    /// The binding.
    pub protocol: Protocol,
    /// The bound address (the real port when port 0 was asked for).
    pub local_addr: SocketAddr,
    /// The URL in the card (`url` of its `additionalInterfaces` entry, and
    /// the card's `url` for the preferred one): JSON-RPC
    /// `http://HOST:PORT/`; REST the base `http://HOST:PORT`, to which
    /// clients append `/v1/…`; gRPC `HOST:PORT` or `http://HOST:PORT`
    /// ([`GrpcUrlStyle`]).
    pub url: String,
    /// The URL in the `listening` line, always with its scheme:
    /// [`Protocol::url`].
    pub listening_url: String,
}

impl Endpoint {
    /// The endpoint of `protocol` bound at `local_addr`; the URLs' host is
    /// `public_host` when given, else the bound IP. A gRPC endpoint's card
    /// URL has the default style ([`GrpcUrlStyle::HostPort`]); see
    /// [`with_grpc_url_style`](Self::with_grpc_url_style).
    #[must_use]
    pub fn new(protocol: Protocol, local_addr: SocketAddr, public_host: Option<&str>) -> Self {
        let ip = local_addr.ip().to_string();
        let host = public_host.filter(|h| !h.is_empty()).unwrap_or(&ip);
        let listening_url = protocol.url(host, local_addr.port());
        let endpoint = Self {
            protocol,
            local_addr,
            url: listening_url.clone(),
            listening_url,
        };
        endpoint.with_grpc_url_style(GrpcUrlStyle::default())
    }

    /// Sets the style of a gRPC endpoint's card URL (no effect on the
    /// other bindings).
    #[must_use]
    pub fn with_grpc_url_style(mut self, style: GrpcUrlStyle) -> Self {
        self.url = match self.protocol {
            Protocol::JsonRpc => self.listening_url.clone(),
            Protocol::HttpJson => self.listening_url.trim_end_matches('/').to_owned(),
            Protocol::Grpc => match style {
                GrpcUrlStyle::Http => self.listening_url.clone(),
                GrpcUrlStyle::HostPort => {
                    self.listening_url.trim_start_matches("http://").to_owned()
                }
            },
        };
        self
    }

    /// The card's view of it.
    #[must_use]
    pub fn interface(&self) -> AgentInterface {
        AgentInterface {
            transport: self.protocol.transport().to_owned(),
            url: self.url.clone(),
        }
    }

    /// `listening <name> <url>`, the line `a2a serve` prints on stdout.
    #[must_use]
    pub fn listening_line(&self) -> String {
        format!(
            "listening {} {}",
            self.protocol.line_name(),
            self.listening_url
        )
    }
}

/// Builds the card: the first interface is the preferred one (`url`,
/// `preferredTransport`), and `additionalInterfaces` lists all of them
/// (including the preferred one, as the spec recommends).
/// `capabilities.streaming` is true; `pushNotifications` is set by the
/// engine from whether a push sender is configured.
///
/// # Panics
///
/// When `interfaces` is empty: a card must declare where the agent answers.
#[must_use]
pub fn build_card(description: &AgentDescription, interfaces: &[AgentInterface]) -> AgentCard {
    let preferred = interfaces
        .first()
        .expect("a card needs at least one interface");
    AgentCard {
        protocol_version: PROTOCOL_VERSION.to_owned(),
        name: description.name.clone(),
        description: description.description.clone(),
        url: preferred.url.clone(),
        preferred_transport: preferred.transport.clone(),
        additional_interfaces: Some(interfaces.to_vec()),
        icon_url: None,
        provider: None,
        version: description.version.clone(),
        documentation_url: None,
        capabilities: AgentCapabilities {
            streaming: Some(true),
            push_notifications: None,
            state_transition_history: None,
            extensions: None,
        },
        security_schemes: None,
        security: None,
        default_input_modes: description.default_input_modes.clone(),
        default_output_modes: description.default_output_modes.clone(),
        skills: description.skills.clone(),
        supports_authenticated_extended_card: None,
        signatures: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let a: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        assert_eq!(
            Endpoint::new(Protocol::JsonRpc, a, None).url,
            "http://127.0.0.1:8080/"
        );
        assert_eq!(
            Endpoint::new(Protocol::JsonRpc, a, Some("agent.example")).listening_line(),
            "listening jsonrpc http://agent.example:8080/"
        );
        let v6: SocketAddr = "[::1]:9".parse().unwrap();
        let grpc = Endpoint::new(Protocol::Grpc, v6, None);
        assert_eq!(grpc.url, "[::1]:9");
        assert_eq!(grpc.listening_line(), "listening grpc http://[::1]:9");
        let grpc = grpc.with_grpc_url_style(GrpcUrlStyle::Http);
        assert_eq!(grpc.url, "http://[::1]:9");
        assert_eq!(grpc.listening_line(), "listening grpc http://[::1]:9");
        let grpc = Endpoint::new(Protocol::Grpc, a, Some("agent.example"));
        assert_eq!(grpc.url, "agent.example:8080");
        let rest =
            Endpoint::new(Protocol::HttpJson, a, None).with_grpc_url_style(GrpcUrlStyle::Http);
        assert_eq!(rest.url, "http://127.0.0.1:8080");
        assert_eq!(
            rest.listening_line(),
            "listening http+json http://127.0.0.1:8080/"
        );
        assert_eq!(Protocol::HttpJson.url("::1", 1), "http://[::1]:1/");
    }

    #[test]
    fn card_lists_every_interface() {
        let d = crate::agents::demo::description();
        let ifaces = vec![
            AgentInterface {
                transport: "JSONRPC".into(),
                url: "http://h:1/".into(),
            },
            AgentInterface {
                transport: "GRPC".into(),
                url: "http://h:2".into(),
            },
        ];
        let card = build_card(&d, &ifaces);
        assert_eq!(card.url, "http://h:1/");
        assert_eq!(card.preferred_transport, "JSONRPC");
        assert_eq!(card.additional_interfaces.as_deref(), Some(&ifaces[..]));
        assert_eq!(card.protocol_version, "0.3.0");
    }
}
