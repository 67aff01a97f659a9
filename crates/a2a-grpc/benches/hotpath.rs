//! The gRPC request hot path in process, for profiles: N requests through the
//! tonic `A2aServiceServer` with `tower::ServiceExt::oneshot` (no sockets,
//! gRPC-framed protobuf bodies), one after another on a current-thread runtime, against an
//! echo agent that answers like `a2a serve --agent echo`.
//!
//! ```text
//! cargo bench -p a2a-grpc --bench hotpath -- send-task 2000
//! ```
//!
//! Scenarios: `send-task`, `send-message`, `stream-task`. The second
//! argument is the number of measured requests (after 200 warm-up ones). It
//! prints the mean time per request; for repeatable numbers run it twice with
//! different N under `perf stat -e instructions:u` or
//! `valgrind --tool=dhat` and divide the difference by the difference of N.
//! Without arguments (as `cargo test --benches` runs it) it is a smoke test.

use std::sync::Arc;

use a2a_core::DefaultRequestHandler;
use a2a_core::test_util::{EchoExecutor, echo_card, hotpath};
use a2a_pb::v1 as pb;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use tower::ServiceExt;

fn body(scenario: &str, n: u64) -> Bytes {
    use prost::Message as _;
    let metadata = (scenario == "send-message").then(|| pbjson_types::Struct {
        fields: [(
            "reply".to_owned(),
            pbjson_types::Value {
                kind: Some(pbjson_types::value::Kind::StringValue("message".to_owned())),
            },
        )]
        .into(),
    });
    let request = pb::SendMessageRequest {
        request: Some(pb::Message {
            message_id: format!("bench-{n:012}"),
            role: pb::Role::User.into(),
            content: vec![pb::Part {
                part: Some(pb::part::Part::Text("hello world".to_owned())),
                metadata: None,
            }],
            ..Default::default()
        }),
        configuration: None,
        metadata,
    };
    let encoded = request.encode_to_vec();
    let mut framed = Vec::with_capacity(encoded.len() + 5);
    framed.push(0);
    framed.extend_from_slice(&u32::try_from(encoded.len()).expect("small").to_be_bytes());
    framed.extend_from_slice(&encoded);
    Bytes::from(framed)
}

fn path(scenario: &str) -> &'static str {
    if scenario == "stream-task" {
        "/a2a.v1.A2AService/SendStreamingMessage"
    } else {
        "/a2a.v1.A2AService/SendMessage"
    }
}

fn main() {
    let handler = DefaultRequestHandler::builder(echo_card(), EchoExecutor).build();
    let router = a2a_grpc::service(Arc::new(handler));
    let router = &router;
    hotpath(
        "grpc",
        |scenario, i| {
            let request = http::Request::post(path(scenario))
                .header("content-type", "application/grpc")
                .header("te", "trailers")
                .body(Full::new(body(scenario, i)))
                .expect("request");
            async move {
                let response = router.clone().oneshot(request).await.expect("response");
                let collected = response.into_body().collect().await.expect("body");
                let status = collected
                    .trailers()
                    .and_then(|t| t.get("grpc-status"))
                    .map(|v| v.as_bytes().to_vec());
                (status, collected.to_bytes())
            }
        },
        |(status, bytes), print| {
            assert_eq!(status.as_deref(), Some(&b"0"[..]), "{bytes:?}");
            if print {
                println!("{}", String::from_utf8_lossy(bytes));
            }
        },
    );
}
