//! The REST request hot path in process, for profiles: N requests through the
//! axum [`Router`](axum::Router) with `tower::ServiceExt::oneshot` (no
//! sockets), one after another on a current-thread runtime, against an
//! echo agent that answers like `a2a serve --agent echo`.
//!
//! ```text
//! cargo bench -p a2a-http-json --bench hotpath -- send-task 2000
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
use a2a_types::{A2aError, AgentCard, Message, Part, StreamResponse};
use axum::body::Body;
use http_body_util::BodyExt;
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

fn body(scenario: &str, n: u64) -> String {
    let metadata = if scenario == "send-message" {
        r#","metadata":{"reply":"message"}"#
    } else {
        ""
    };
    format!(
        r#"{{"message":{{"messageId":"bench-{n:012}","role":"ROLE_USER","content":[{{"text":"hello world"}}]}}{metadata}}}"#
    )
}

fn path(scenario: &str) -> &'static str {
    if scenario == "stream-task" {
        "/v1/message:stream"
    } else {
        "/v1/message:send"
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
    let router = a2a_http_json::router(Arc::new(handler));
    rt.block_on(async {
        for scenario in &scenarios {
            let mut total = std::time::Duration::ZERO;
            for i in 0..200 + n {
                let request = axum::http::Request::post(path(scenario))
                    .header("content-type", "application/json")
                    .header("host", "127.0.0.1")
                    .body(Body::from(body(scenario, i)))
                    .expect("request");
                let started = Instant::now();
                let response = router.clone().oneshot(request).await.expect("response");
                let bytes = response
                    .into_body()
                    .collect()
                    .await
                    .expect("body")
                    .to_bytes();
                if i >= 200 {
                    total += started.elapsed();
                }
                assert!(
                    !bytes.windows(7).any(|w| w == b"\"error\""),
                    "{}",
                    String::from_utf8_lossy(&bytes)
                );
                if i == 0 && std::env::var_os("HOTPATH_PRINT").is_some() {
                    println!("{}", String::from_utf8_lossy(&bytes));
                }
            }
            let per = total.as_nanos() / u128::from(n.max(1));
            println!("rest {scenario}: {n} requests, {per} ns/request");
        }
    });
}
