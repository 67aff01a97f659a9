//! The request hot path in process, for profiles: N requests through the
//! axum [`Router`](axum::Router) with `tower::ServiceExt::oneshot` (no
//! sockets), one after another on a current-thread runtime, against an
//! echo agent that answers like `a2a serve --agent echo`.
//!
//! ```text
//! cargo bench -p a2a-jsonrpc --bench hotpath -- send-task 2000
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
use axum::body::Body;
use http_body_util::BodyExt;
use tower::ServiceExt;

fn body(scenario: &str, n: u64) -> String {
    let method = if scenario == "stream-task" {
        "message/stream"
    } else {
        "message/send"
    };
    let metadata = if scenario == "send-message" {
        r#","metadata":{"reply":"message"}"#
    } else {
        ""
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{"message":{{"kind":"message","role":"user","messageId":"bench-{n:012}","parts":[{{"kind":"text","text":"hello world"}}]}}{metadata}}}}}"#
    )
}

pub(crate) fn main() {
    let handler = DefaultRequestHandler::builder(echo_card(), EchoExecutor).build();
    let router = a2a_jsonrpc::router(Arc::new(handler));
    let router = &router;
    hotpath(
        "jsonrpc",
        |scenario, i| {
            let request = axum::http::Request::post("/")
                .header("content-type", "application/json")
                .header("host", "127.0.0.1")
                .body(Body::from(body(scenario, i)))
                .expect("request");
            async move {
                let response = router.clone().oneshot(request).await.expect("response");
                response
                    .into_body()
                    .collect()
                    .await
                    .expect("body")
                    .to_bytes()
            }
        },
        |bytes, print| {
            assert!(
                bytes.windows(8).any(|w| w == b"\"result\""),
                "{}",
                String::from_utf8_lossy(bytes)
            );
            if print {
                println!("{}", String::from_utf8_lossy(bytes));
            }
        },
    );
}
