//! JSON-RPC throughput and latency, loopback only.
//!
//! `cargo bench -p a2a-server --bench jsonrpc` starts the server in-process
//! on 127.0.0.1:0 with an agent that answers at once (a completed Task with
//! one artifact, or a single Message), then drives `message/send` and
//! `message/stream` from a fixed number of concurrent connections for a
//! fixed time per scenario, and prints requests/s and p50/p99 latency.
//!
//! | env | default | what |
//! |---|---|---|
//! | `A2A_BENCH_SECS` | `5` | seconds per scenario |
//! | `A2A_BENCH_CONCURRENCY` | `32` | concurrent connections |
//!
//! Without `--bench` (e.g. `cargo test --benches`) every scenario runs for
//! 0.2 s, as a smoke test.

use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a_core::{AgentExecutor, EventSink, RequestContext, now_rfc3339};
use a2a_server::{Agent, AgentDescription, Listeners, ServeConfig, Server};
use a2a_types::{A2aError, Artifact, Message, Part, StreamResponse, Task, TaskState};
use serde_json::json;

/// Answers at once: a Message when the text is `message`, else a completed
/// Task with one artifact.
struct Immediate;

#[async_trait::async_trait]
impl AgentExecutor for Immediate {
    async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
        let text = ctx.user_text();
        if text == "message" {
            let mut m = Message::agent_text(a2a_core::new_id(), text);
            m.context_id = Some(ctx.context_id.clone());
            return events.publish(StreamResponse::Message(m)).await;
        }
        let mut task = Task::new(&ctx.task_id, &ctx.context_id, TaskState::Completed);
        task.status.timestamp = Some(now_rfc3339());
        task.artifacts = Some(vec![Artifact::new("answer", vec![Part::text(text)])]);
        events.publish(StreamResponse::Task(task)).await
    }
}

#[derive(Clone, Copy)]
struct Scenario {
    name: &'static str,
    method: &'static str,
    text: &'static str,
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "message/send -> Task",
        method: "message/send",
        text: "task",
    },
    Scenario {
        name: "message/send -> Message",
        method: "message/send",
        text: "message",
    },
    Scenario {
        name: "message/stream -> Task",
        method: "message/stream",
        text: "task",
    },
    Scenario {
        name: "message/stream -> Message",
        method: "message/stream",
        text: "message",
    },
];

#[derive(Default)]
struct Outcome {
    latencies_us: Vec<u64>,
    errors: u64,
}

/// One request, read to the end; `Ok(())` when it looks like a success.
async fn one(http: &reqwest::Client, url: &str, s: Scenario, n: u64) -> Result<(), String> {
    let body = json!({
        "jsonrpc": "2.0", "id": n, "method": s.method,
        "params": {"message": {
            "kind": "message", "role": "user", "messageId": format!("bench-{n}"),
            "parts": [{"kind": "text", "text": s.text}]
        }}
    });
    let resp = http
        .post(url)
        .json(&body)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !resp.status().is_success() {
        return Err(format!("HTTP {}", resp.status()));
    }
    let text = resp.text().await.map_err(|e| e.to_string())?;
    let ok = if s.method == "message/stream" {
        text.contains("data:") && !text.contains("\"error\"")
    } else {
        text.contains("\"result\"")
    };
    if ok { Ok(()) } else { Err(text) }
}

async fn worker(url: String, s: Scenario, until: Instant, seed: u64) -> Outcome {
    // One client per worker: one connection each.
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client");
    let mut out = Outcome::default();
    let mut n = seed * 1_000_000_000;
    let mut first_error = None;
    // At least one request per worker, even when building the client took
    // the whole (smoke-test) duration.
    loop {
        n += 1;
        let started = Instant::now();
        match one(&http, &url, s, n).await {
            Ok(()) => out
                .latencies_us
                .push(u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX)),
            Err(e) => {
                out.errors += 1;
                first_error.get_or_insert(e);
            }
        }
        if Instant::now() >= until {
            break;
        }
    }
    if let Some(e) = first_error {
        eprintln!("  {}: first error: {e}", s.name);
    }
    out
}

fn percentile(sorted: &[u64], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    // Nearest-rank percentile over a small sorted sample; the casts are exact
    // for any realistic sample size.
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Duration::from_micros(sorted[rank.clamp(1, sorted.len()) - 1])
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let secs: f64 = if bench {
        env_or("A2A_BENCH_SECS", 5.0)
    } else {
        0.2
    };
    let duration = Duration::from_secs_f64(secs.clamp(0.05, 600.0));
    let concurrency: u64 = env_or("A2A_BENCH_CONCURRENCY", 32).clamp(1, 1024);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let agent = Agent::new(
            AgentDescription::new("bench", "answers at once", "1"),
            Immediate,
        );
        let server = Server::new(ServeConfig::new(agent), Listeners::new(listener))
            .await
            .expect("server");
        let url = server.endpoints()[0].url.clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let running = tokio::spawn(server.run(async move {
            let _ = stopped.await;
        }));

        println!(
            "jsonrpc bench: {url}, {concurrency} connections, {:.1} s per scenario",
            duration.as_secs_f64()
        );
        println!(
            "{:<28} {:>9} {:>10} {:>10} {:>10} {:>7}",
            "scenario", "requests", "req/s", "p50", "p99", "errors"
        );
        let url = Arc::new(url);
        for &s in SCENARIOS {
            let started = Instant::now();
            let until = started + duration;
            let workers: Vec<_> = (0..concurrency)
                .map(|i| tokio::spawn(worker(url.to_string(), s, until, i)))
                .collect();
            let mut all = Outcome::default();
            for w in workers {
                let o = w.await.expect("worker");
                all.latencies_us.extend(o.latencies_us);
                all.errors += o.errors;
            }
            let elapsed = started.elapsed().as_secs_f64();
            all.latencies_us.sort_unstable();
            let count = all.latencies_us.len();
            #[allow(clippy::cast_precision_loss)]
            let rate = count as f64 / elapsed;
            println!(
                "{:<28} {:>9} {:>10.0} {:>10.2?} {:>10.2?} {:>7}",
                s.name,
                count,
                rate,
                percentile(&all.latencies_us, 50.0),
                percentile(&all.latencies_us, 99.0),
                all.errors
            );
            assert!(count > 0, "{}: no successful request", s.name);
        }

        let _ = stop.send(());
        let _ = tokio::time::timeout(Duration::from_secs(15), running).await;
    });
}
