//! `--mode idle-sse`: many concurrent, (nearly) idle JSON-RPC SSE streams
//! held open on one server; errors, the server's RSS per subscriber, and
//! (for `tasks/resubscribe`) how long the final event takes to reach them
//! all.
//!
//! The engine keeps a stream open only while an execution of its task is
//! running (a subscription to a task whose execution has returned gets the
//! snapshot and ends, whatever the task's state). So the streams need an
//! execution that keeps running without publishing: `a2a serve --agent
//! echo` with request metadata `"hold": true` publishes `working` and then
//! waits for `tasks/cancel` (at most an hour). The subscribers are truly
//! idle: after their first events nothing but the server's keep-alive
//! comments, if any, arrives.
//!
//! 10,000 client connections to one server port: each opening is spread
//! over `--source-ips` loopback source addresses (127.0.0.1, .2, …), so no
//! single source IP's ephemeral port range (and its `TIME_WAIT`s from an
//! earlier run) is a limit; both processes need `ulimit -n` above the
//! subscriber count (`run.sh` raises it).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use a2a_bench::procfs;
use a2a_bench::sse::SseCounter;
use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE, HOST};
use http::{HeaderValue, Method, Request};
use http_body_util::{BodyExt, Full};
use tokio::sync::{Semaphore, watch};

use crate::load::count_f64;
use crate::target::Target;

/// The phases the subscribers are told about.
const HOLD: u8 = 0;
const CANCELING: u8 = 1;
const STOP: u8 = 2;

/// How each idle stream is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum IdleMethod {
    /// One long task (created first with a non-blocking `message/send`),
    /// N `tasks/resubscribe` streams on it: the cost of a subscriber alone.
    /// Canceling the task at the end measures the fan-out of its final
    /// event.
    Resubscribe,
    /// N `message/stream` calls, each starting a long task of its own: the
    /// cost of a subscriber plus its task and execution.
    Stream,
}

#[derive(Default)]
struct Counters {
    established: AtomicU64,
    failed_open: AtomicU64,
    dropped: AtomicU64,
    ended_after_final: AtomicU64,
    events: AtomicU64,
    comments: AtomicU64,
    first_error: std::sync::Mutex<Option<String>>,
}

impl Counters {
    fn error(&self, counter: &AtomicU64, e: String) {
        counter.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut first) = self.first_error.lock() {
            first.get_or_insert(e);
        }
    }
}

/// The idle-SSE settings.
pub(crate) struct IdleArgs {
    pub(crate) subscribers: usize,
    pub(crate) hold: Duration,
    pub(crate) method: IdleMethod,
    pub(crate) open_concurrency: usize,
    pub(crate) md_row: Option<String>,
    /// Loopback source IPs the connections are spread over (IPv4 targets).
    pub(crate) source_ips: u8,
    /// Each stream's open (connect, request, first event) time limit.
    pub(crate) open_timeout: Duration,
}

/// The echo agent's switch that keeps a task `working` (and its streams
/// open) until it is canceled.
fn held_message(id: String) -> serde_json::Value {
    serde_json::json!({"kind": "message", "role": "user", "messageId": id,
        "parts": [{"kind": "text", "text": "idle"}], "metadata": {"hold": true}})
}

fn rpc_request(target: &Target, body: serde_json::Value, stream: bool) -> Request<Full<Bytes>> {
    let mut req = Request::new(Full::new(Bytes::from(body.to_string())));
    *req.method_mut() = Method::POST;
    *req.uri_mut() = target_path(target);
    let h = req.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&target.addr.to_string()) {
        h.insert(HOST, v);
    }
    h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if stream {
        h.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
    }
    req
}

fn target_path(target: &Target) -> http::Uri {
    target
        .url
        .parse::<http::Uri>()
        .ok()
        .and_then(|u| u.path().parse().ok())
        .unwrap_or_else(|| http::Uri::from_static("/"))
}

/// One unary JSON-RPC call (at most 30 s); the `result` member.
async fn unary(
    target: &Target,
    method: &str,
    params: serde_json::Value,
) -> Result<serde_json::Value, String> {
    tokio::time::timeout(Duration::from_secs(30), unary_once(target, method, params))
        .await
        .map_err(|_| format!("{method}: no answer within 30 s"))?
}

async fn unary_once(
    target: &Target,
    method: &str,
    params: serde_json::Value,
) -> Result<serde_json::Value, String> {
    let mut s = target.connect_http().await?;
    s.ready().await.map_err(|e| e.to_string())?;
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let resp = s
        .send_request(rpc_request(target, body, false))
        .await
        .map_err(|e| e.to_string())?;
    let bytes = resp
        .into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    let mut v: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    if v.get("result").is_none() {
        return Err(format!("{method}: {v}"));
    }
    Ok(v["result"].take())
}

fn rss(pid: Option<u32>) -> Option<u64> {
    pid.and_then(|p| procfs::rss_kib(p).ok())
}

/// Runs the idle-SSE measurement and prints its report.
#[allow(clippy::too_many_lines)]
pub(crate) async fn run(target: Target, args: IdleArgs) -> Result<bool, String> {
    let target = Arc::new(target);
    let pid = target.server_pid;
    check_nofile(args.subscribers);
    let task_id = match args.method {
        IdleMethod::Resubscribe => {
            let r = unary(
                &target,
                "message/send",
                serde_json::json!({"message": held_message(format!("idle-{}", target.run)),
                    "configuration": {"blocking": false}}),
            )
            .await?;
            let id = r["id"]
                .as_str()
                .ok_or("message/send answered no task id")?
                .to_owned();
            let state = r["status"]["state"].as_str().unwrap_or_default().to_owned();
            println!(
                "task {id} ({state}): {} subscribers will resubscribe",
                args.subscribers
            );
            Some(id)
        }
        IdleMethod::Stream => None,
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss0 = rss(pid);
    let counters = Arc::new(Counters::default());
    let (stop_tx, stop_rx) = watch::channel(HOLD);
    let gate = Arc::new(Semaphore::new(args.open_concurrency.max(1)));
    let opened = Instant::now();
    let mut handles = Vec::with_capacity(args.subscribers);
    for i in 0..args.subscribers {
        let body = match &task_id {
            Some(id) => serde_json::json!({"jsonrpc": "2.0", "id": 1,
                "method": "tasks/resubscribe", "params": {"id": id}}),
            None => serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "message/stream",
                "params": {"message": held_message(
                    crate::target::message_id(target.run, 0, i as u64))}}),
        };
        let req = rpc_request(&target, body, true);
        handles.push(tokio::spawn(subscriber(
            Arc::clone(&target),
            source_ip(&target, i, args.source_ips),
            req,
            Arc::clone(&gate),
            Arc::clone(&counters),
            stop_rx.clone(),
            args.open_timeout,
        )));
    }
    // Wait until every stream is open or failed (at most 3 minutes).
    let n = args.subscribers as u64;
    let open_deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let done = counters.established.load(Ordering::Relaxed)
            + counters.failed_open.load(Ordering::Relaxed);
        if done >= n || Instant::now() >= open_deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let open_time = opened.elapsed();
    let established = counters.established.load(Ordering::Relaxed);
    println!(
        "opened {established}/{n} streams in {:.2} s ({} failed)",
        open_time.as_secs_f64(),
        counters.failed_open.load(Ordering::Relaxed)
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss1 = rss(pid);
    let per_sub = match (rss0, rss1) {
        (Some(a), Some(b)) if established > 0 => {
            Some(count_f64(b.saturating_sub(a)) * 1024.0 / count_f64(established))
        }
        _ => None,
    };
    if let (Some(a), Some(b)) = (rss0, rss1) {
        println!(
            "server RSS {a} KiB -> {b} KiB: {} KiB for {established} streams = {:.0} bytes/subscriber",
            b.saturating_sub(a),
            per_sub.unwrap_or(0.0)
        );
    }
    // Hold, watching for errors and keep-alives.
    let hold_until = Instant::now() + args.hold;
    while Instant::now() < hold_until {
        let step = hold_until
            .saturating_duration_since(Instant::now())
            .min(Duration::from_secs(5));
        tokio::time::sleep(step).await;
        println!(
            "  hold: {} open, {} dropped, {} keep-alives, server RSS {} KiB",
            established - counters.dropped.load(Ordering::Relaxed),
            counters.dropped.load(Ordering::Relaxed),
            counters.comments.load(Ordering::Relaxed),
            rss(pid).map_or_else(|| "?".to_owned(), |r| r.to_string())
        );
    }
    let rss_hold = rss(pid);
    // Fan-out of the final event: cancel the task, wait for every stream
    // to end.
    let mut fanout = None;
    if let Some(id) = &task_id {
        let before = counters.ended_after_final.load(Ordering::Relaxed);
        let started = Instant::now();
        let _ = stop_tx.send(CANCELING);
        match unary(&target, "tasks/cancel", serde_json::json!({"id": id})).await {
            Ok(t) => {
                let expect = established - counters.dropped.load(Ordering::Relaxed);
                let deadline = Instant::now() + Duration::from_secs(60);
                while counters.ended_after_final.load(Ordering::Relaxed) - before < expect
                    && Instant::now() < deadline
                {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                let got = counters.ended_after_final.load(Ordering::Relaxed) - before;
                let took = started.elapsed();
                println!(
                    "tasks/cancel -> {}: the final event reached {got}/{expect} streams in {:.1} ms",
                    t["status"]["state"].as_str().unwrap_or("?"),
                    took.as_secs_f64() * 1e3
                );
                fanout = Some((got, expect, took));
            }
            Err(e) => println!("tasks/cancel failed: {e}"),
        }
    }
    let _ = stop_tx.send(STOP);
    // Every subscriber returns on STOP (its open is bounded by the open
    // timeout); abort what is left after 30 s anyway.
    let close_deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    for mut h in handles {
        if tokio::time::timeout_at(close_deadline, &mut h)
            .await
            .is_err()
        {
            h.abort();
        }
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss2 = rss(pid);
    let dropped = counters.dropped.load(Ordering::Relaxed);
    let failed = counters.failed_open.load(Ordering::Relaxed);
    println!(
        "closed: server RSS {} KiB (peak {} KiB); {} events, {} keep-alive comments received",
        rss2.map_or_else(|| "?".to_owned(), |r| r.to_string()),
        pid.and_then(|p| procfs::peak_rss_kib(p).ok())
            .map_or_else(|| "?".to_owned(), |r| r.to_string()),
        counters.events.load(Ordering::Relaxed),
        counters.comments.load(Ordering::Relaxed)
    );
    let first = counters.first_error.lock().ok().and_then(|e| e.clone());
    if let Some(e) = &first {
        println!("first error: {e}");
    }
    let errors = failed + dropped;
    let ok = errors == 0 && established == n;
    if let Some(name) = &args.md_row {
        let kib = |v: Option<u64>| {
            v.map_or_else(
                || "?".to_owned(),
                |r| format!("{:.1}", count_f64(r) / 1024.0),
            )
        };
        println!(
            "MD| {name} | {established}/{n} open in {:.1} s | {} errors | {} B/subscriber (RSS {} → {} → {} MiB, after close {}) | {} | {} |",
            open_time.as_secs_f64(),
            errors,
            per_sub.map_or_else(|| "?".to_owned(), |b| format!("{b:.0}")),
            kib(rss0),
            kib(rss1),
            kib(rss_hold),
            kib(rss2),
            fanout.map_or_else(
                || "—".to_owned(),
                |(got, expect, took)| format!(
                    "final event to {got}/{expect} in {:.0} ms",
                    took.as_secs_f64() * 1e3
                )
            ),
            if ok { "✅" } else { "❌" }
        );
    }
    Ok(ok)
}

/// The source IP of subscriber `i`: 127.0.0.1 + (i mod `n`) for an IPv4
/// loopback target and `n` > 1, else the kernel's choice.
fn source_ip(target: &Target, i: usize, n: u8) -> Option<std::net::IpAddr> {
    if n <= 1 || !target.addr.is_ipv4() {
        return None;
    }
    let k = u8::try_from(i % usize::from(n)).unwrap_or(0);
    Some(std::net::Ipv4Addr::new(127, 0, 0, 1 + k).into())
}

/// Opens one stream and reads it until its first event (the snapshot:
/// the subscription is live).
async fn open(
    target: &Target,
    src: Option<std::net::IpAddr>,
    req: Request<Full<Bytes>>,
) -> Result<(hyper::body::Incoming, SseCounter), String> {
    let mut sender = target.connect_http_from(src).await?;
    sender.ready().await.map_err(|e| e.to_string())?;
    let resp = sender
        .send_request(req)
        .await
        .map_err(|e| format!("request: {e}"))?;
    if !resp.status().is_success() {
        return Err(format!("HTTP {}", resp.status()));
    }
    let mut body = resp.into_body();
    let mut counter = SseCounter::default();
    while counter.events == 0 {
        match body.frame().await {
            Some(Ok(f)) => {
                if let Some(d) = f.data_ref() {
                    if memchr::memmem::find(d, b"\"error\"").is_some() {
                        return Err(format!(
                            "error event: {}",
                            String::from_utf8_lossy(d).trim()
                        ));
                    }
                    counter.feed(d);
                }
            }
            Some(Err(e)) => return Err(format!("body: {e}")),
            None => return Err("stream ended before its first event".to_owned()),
        }
    }
    Ok((body, counter))
}

/// One idle stream: open it (under the gate, within `open_timeout`), then
/// read until `stop`.
async fn subscriber(
    target: Arc<Target>,
    src: Option<std::net::IpAddr>,
    req: Request<Full<Bytes>>,
    gate: Arc<Semaphore>,
    c: Arc<Counters>,
    mut stop: watch::Receiver<u8>,
    open_timeout: Duration,
) {
    let permit = gate.acquire_owned().await;
    let (mut body, counter) =
        match tokio::time::timeout(open_timeout, open(&target, src, req)).await {
            Ok(Ok(b)) => b,
            Ok(Err(e)) => return c.error(&c.failed_open, e),
            Err(_) => {
                return c.error(&c.failed_open, format!("not open within {open_timeout:?}"));
            }
        };
    let mut counter = counter;
    drop(permit);
    c.established.fetch_add(1, Ordering::Relaxed);
    let mut seen_events = counter.events;
    let mut seen_comments = counter.comments;
    c.events.fetch_add(seen_events, Ordering::Relaxed);
    loop {
        tokio::select! {
            changed = stop.changed() => {
                if changed.is_err() || *stop.borrow() == STOP {
                    return;
                }
            }
            frame = body.frame() => match frame {
                Some(Ok(f)) => {
                    if let Some(d) = f.data_ref() {
                        counter.feed(d);
                        c.events.fetch_add(counter.events - seen_events, Ordering::Relaxed);
                        c.comments.fetch_add(counter.comments - seen_comments, Ordering::Relaxed);
                        seen_events = counter.events;
                        seen_comments = counter.comments;
                    }
                }
                Some(Err(e)) => return c.error(&c.dropped, format!("body: {e}")),
                None => {
                    // A stream ends after its final event: expected only
                    // once the task is being canceled.
                    if *stop.borrow() == CANCELING {
                        c.ended_after_final.fetch_add(1, Ordering::Relaxed);
                    } else {
                        c.error(&c.dropped, "stream ended while idle".to_owned());
                    }
                    // Park until stop so the connection count stays honest.
                    let _ = stop.wait_for(|s| *s == STOP).await;
                    return;
                }
            }
        }
    }
}

/// Warns when this process may run out of file descriptors.
fn check_nofile(n: usize) {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let soft = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|v| v.parse::<usize>().ok());
    if let Some(soft) = soft
        && soft < n + 64
    {
        eprintln!(
            "warning: the open-file limit is {soft}, below {n} streams + slack; raise it (ulimit -n) for this process and the server"
        );
    }
}
