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
use std::time::Instant;

use a2a_core::{AgentExecutor, DefaultRequestHandler, EventSink, RequestContext, new_id};
use a2a_pb::v1 as pb;
use a2a_types::{A2aError, AgentCard, Message, Part, StreamResponse};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use tower::ServiceExt;

/// The echo agent of `a2a serve --agent echo`: one artifact update, then
/// `completed`; a Message when the metadata says `"reply": "message"`.
struct Echo;

#[async_trait::async_trait]
impl AgentExecutor for Echo {
    async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
        let text = ctx.user_text();
        let wants_message = ctx
            .metadata
            .as_ref()
            .is_some_and(|m| m.get("reply").and_then(|v| v.as_str()) == Some("message"));
        if ctx.task.is_none() && wants_message {
            let mut reply = Message::agent_text(new_id(), text);
            reply.context_id = Some(ctx.context_id.clone());
            return events.publish(StreamResponse::Message(reply)).await;
        }
        let task = ctx.updater(events);
        task.add_artifact(vec![Part::text(text)], "echo", Some("echo"), false, true)
            .await?;
        task.complete(None).await
    }
}

fn card() -> AgentCard {
    serde_json::from_value(serde_json::json!({
        "protocolVersion": "0.3.0",
        "name": "bench",
        "description": "echo",
        "url": "http://127.0.0.1/",
        "preferredTransport": "JSONRPC",
        "version": "1.0.0",
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["echo"]}]
    }))
    .expect("a valid card")
}

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
    let mut args = std::env::args().skip(1).filter(|a| !a.starts_with("--"));
    let scenario = args.next();
    let n: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(20);
    let scenarios: Vec<String> = match scenario {
        Some(s) => vec![s],
        None => ["send-task", "send-message", "stream-task"]
            .map(str::to_owned)
            .to_vec(),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let handler = DefaultRequestHandler::builder(card(), Echo).build();
    let router = a2a_grpc::service(Arc::new(handler));
    rt.block_on(async {
        for scenario in &scenarios {
            let mut total = std::time::Duration::ZERO;
            for i in 0..200 + n {
                let request = http::Request::post(path(scenario))
                    .header("content-type", "application/grpc")
                    .header("te", "trailers")
                    .body(Full::new(body(scenario, i)))
                    .expect("request");
                let started = Instant::now();
                let response = router.clone().oneshot(request).await.expect("response");
                let collected = response.into_body().collect().await.expect("body");
                let status = collected
                    .trailers()
                    .and_then(|t| t.get("grpc-status"))
                    .map(|v| v.as_bytes().to_vec());
                let bytes = collected.to_bytes();
                if i >= 200 {
                    total += started.elapsed();
                }
                assert_eq!(status.as_deref(), Some(&b"0"[..]), "{bytes:?}");
                if i == 0 && std::env::var_os("HOTPATH_PRINT").is_some() {
                    println!("{}", String::from_utf8_lossy(&bytes));
                }
            }
            let per = total.as_nanos() / u128::from(n.max(1));
            println!("grpc {scenario}: {n} requests, {per} ns/request");
        }
    });
}
