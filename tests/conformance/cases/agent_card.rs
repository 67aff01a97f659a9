//! Card discovery, the declared interfaces, the extended card.

use crate::harness::*;

pub(crate) async fn card_is_discovered_and_declares_every_interface(t: &Target) {
    let card = t.card().await.expect("the card");
    assert_eq!(card.name, "conformance-agent");
    assert_eq!(card.protocol_version, "0.3.0");
    assert_eq!(card.preferred_transport, "JSONRPC");
    assert!(card.streaming, "streaming is declared");
    assert!(card.push_notifications, "push notifications are declared");
    assert!(card.extended, "the extended card is declared");
    assert_eq!(card.skills, ["script"]);
    let transports: Vec<&str> = card.interfaces.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(transports, ["JSONRPC", "GRPC", "HTTP+JSON"]);
    // The main URL is the preferred transport's interface.
    assert!(
        card.interfaces
            .contains(&("JSONRPC".to_owned(), card.url.clone())),
        "{card:?}"
    );
    // This transport is declared at the URL it is really served on.
    if let (Some(name), Some(url)) = (t.main.kind().card_name(), t.main.url()) {
        assert!(
            card.interfaces.contains(&(name.to_owned(), url.clone())),
            "{name} at {url} is declared: {card:?}"
        );
    }
    // The bare agent declares what it lacks.
    let bare = t.bare.card().await.expect("the bare card");
    assert_eq!(bare.name, "conformance-agent-bare");
    assert!(
        !bare.streaming && !bare.push_notifications && !bare.extended,
        "{bare:?}"
    );
}

pub(crate) async fn extended_card_is_served_when_configured(t: &Target) {
    let card = t.extended_card().await.expect("the extended card");
    match t.main.kind() {
        // v0.3.0 gRPC has one card RPC, `GetAgentCard`, which our server
        // (like the Python SDK's) answers with the public card.
        Kind::Grpc => {
            assert_eq!(card.name, "conformance-agent");
            assert_eq!(card.skills, ["script"]);
        }
        _ => {
            assert_eq!(card.name, "conformance-agent (extended)");
            assert_eq!(card.skills, ["script", "secret"]);
            assert!(card.extended);
        }
    }
}

pub(crate) async fn extended_card_not_configured(t: &Target) {
    let result = t.bare.extended_card().await;
    match t.main.kind() {
        Kind::JsonRpc | Kind::InProcess => {
            let e = assert_code(result, -32007, "agent/getAuthenticatedExtendedCard");
            assert!(!e.message.is_empty());
        }
        // `GET /v1/card` and `GetAgentCard` fall back to the public card.
        Kind::Rest | Kind::Grpc => {
            let card = result.expect("the public card");
            assert_eq!(card.name, "conformance-agent-bare");
        }
    }
}
