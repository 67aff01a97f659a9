//! Every error code, as each wire carries it: the same A2A code, message
//! and data everywhere, with each transport's own status from its one
//! table (written out here, not taken from the adapters).

use tonic::Code;

use crate::harness::*;

/// `(A2A code, REST HTTP status, gRPC status)`, as documented by
/// `a2a-http-json` and `a2a-grpc`.
const TABLE: &[(i32, u16, Code)] = &[
    (-32700, 400, Code::Internal),
    (-32600, 400, Code::InvalidArgument),
    (-32601, 501, Code::Unimplemented),
    (-32602, 422, Code::InvalidArgument),
    (-32603, 500, Code::Internal),
    (-32001, 404, Code::NotFound),
    (-32002, 409, Code::FailedPrecondition),
    (-32003, 501, Code::Unimplemented),
    (-32004, 501, Code::Unimplemented),
    (-32005, 415, Code::InvalidArgument),
    (-32006, 502, Code::Internal),
    (-32007, 404, Code::FailedPrecondition),
    // A server-defined code outside the spec's.
    (-32050, 500, Code::Unknown),
];

/// Checks the transport's own evidence for an A2A error `code`.
#[track_caller]
fn assert_evidence(kind: Kind, e: &WireError, code: i32) {
    let (_, http, grpc) = TABLE
        .iter()
        .find(|(c, _, _)| *c == code)
        .unwrap_or_else(|| panic!("code {code} is in the table"));
    match kind {
        Kind::JsonRpc => assert_eq!(e.evidence, Evidence::Http(200), "{code}: {e:?}"),
        Kind::Rest => assert_eq!(e.evidence, Evidence::Http(*http), "{code}: {e:?}"),
        Kind::Grpc => assert_eq!(e.evidence, Evidence::Grpc(*grpc), "{code}: {e:?}"),
        Kind::InProcess => assert_eq!(e.evidence, Evidence::None),
    }
}

pub(crate) async fn every_error_code_reaches_the_wire(t: &Target) {
    for &(code, _, _) in TABLE {
        let e = assert_code(
            t.send(&UserMessage::text(&format!("error {code}"))).await,
            code,
            &format!("send, error {code}"),
        );
        assert_eq!(e.message, "scripted error", "{code}");
        assert_eq!(
            e.data,
            Some(serde_json::json!({"scripted": true})),
            "{code}"
        );
        assert_evidence(t.main.kind(), &e, code);
    }
}

pub(crate) async fn natural_errors_carry_the_transport_status(t: &Target) {
    let kind = t.main.kind();
    let e = assert_code(t.get(&fresh("no-such-task"), None).await, -32001, "get");
    assert_evidence(kind, &e, -32001);
    let done = t
        .send(&UserMessage::text("echo x"))
        .await
        .expect("send")
        .task();
    let e = assert_code(t.cancel(&done.id).await, -32002, "cancel");
    assert_evidence(kind, &e, -32002);
    let e = assert_code(t.get(&done.id, Some(-1)).await, -32602, "get");
    assert_evidence(kind, &e, -32602);
    let e = assert_code(
        t.bare.list_push(&done.id).await,
        -32003,
        "list on the bare agent",
    );
    assert_evidence(kind, &e, -32003);
    let e = assert_code(
        t.bare.stream(&UserMessage::text("echo x")).await,
        -32004,
        "stream on the bare agent",
    );
    // A stream's error before the first event: the same status as unary
    // calls, except JSON-RPC and REST, which put it in an SSE event.
    assert_evidence(kind, &e, -32004);
}

pub(crate) async fn message_without_parts_is_invalid_params(t: &Target) {
    let mut send = UserMessage::text("");
    send.parts.clear();
    assert_code(t.send(&send).await, -32602, "a message without parts");
}

pub(crate) async fn unaccepted_output_modes_are_content_type_not_supported(t: &Target) {
    let mut send = UserMessage::text("echo x");
    send.accepted_output_modes = vec!["application/x-nothing".to_owned()];
    let e = assert_code(t.send(&send).await, -32005, "acceptedOutputModes");
    assert_evidence(t.main.kind(), &e, -32005);
    // A matching mode is fine.
    send.accepted_output_modes = vec!["text/*".to_owned()];
    t.send(&send).await.expect("a matching mode");
}

pub(crate) async fn invalid_agent_response_is_reported(t: &Target) {
    let e = assert_code(t.send(&UserMessage::text("invalid")).await, -32006, "send");
    assert_evidence(t.main.kind(), &e, -32006);
}

/// Requests broken below the A2A level. What each transport can express
/// differs; each answers with its own framing error.
pub(crate) async fn framing_errors_map_to_the_transport_codes(t: &Target) {
    let kind = t.main.kind();
    for framing in [
        Framing::MalformedPayload,
        Framing::UnknownMethod,
        Framing::InvalidRequest,
        Framing::MissingMessage,
    ] {
        let got = t.framing(framing).await;
        let expected: Option<(Option<i32>, Evidence)> = match (kind, framing) {
            (Kind::InProcess, _) | (Kind::Grpc, Framing::InvalidRequest) => None,
            (Kind::JsonRpc, Framing::MalformedPayload) => Some((Some(-32700), Evidence::Http(200))),
            (Kind::JsonRpc, Framing::UnknownMethod) => Some((Some(-32601), Evidence::Http(200))),
            (Kind::JsonRpc, Framing::InvalidRequest) => Some((Some(-32600), Evidence::Http(200))),
            (Kind::JsonRpc, Framing::MissingMessage) => Some((Some(-32602), Evidence::Http(200))),
            (Kind::Rest, Framing::MalformedPayload) => Some((Some(-32700), Evidence::Http(400))),
            (Kind::Rest, Framing::UnknownMethod) => Some((Some(-32601), Evidence::Http(501))),
            (Kind::Rest, Framing::InvalidRequest) => Some((Some(-32600), Evidence::Http(400))),
            (Kind::Rest, Framing::MissingMessage) => Some((Some(-32602), Evidence::Http(422))),
            // tonic itself answers these, without A2A metadata.
            (Kind::Grpc, Framing::MalformedPayload) => Some((None, Evidence::Grpc(Code::Internal))),
            (Kind::Grpc, Framing::UnknownMethod) => {
                Some((None, Evidence::Grpc(Code::Unimplemented)))
            }
            (Kind::Grpc, Framing::MissingMessage) => {
                Some((Some(-32602), Evidence::Grpc(Code::InvalidArgument)))
            }
        };
        let got = got.map(|e| (e.code, e.evidence));
        assert_eq!(got, expected, "{framing:?}");
    }
}
