//! Test helpers: a server on 127.0.0.1:0 run by the same `Server::run` the
//! binary uses, and raw JSON-RPC over reqwest (requests are `json!`
//! literals, responses are `serde_json::Value`).

#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use a2a_server::{Agent, Listeners, ServeConfig, ServeError, Server};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// How long any single wait in a test may take.
pub const WAIT: Duration = Duration::from_secs(15);

/// A running server.
pub struct TestServer {
    /// The JSON-RPC URL (`http://127.0.0.1:PORT/`), as the card declares it.
    pub url: String,
    /// What `Server::announce` wrote.
    pub announced: String,
    http: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), ServeError>>>,
    next_id: AtomicI64,
}

impl TestServer {
    /// Serves `agent` on a fresh 127.0.0.1:0 listener.
    pub async fn start(agent: Agent) -> Self {
        Self::start_with(ServeConfig::new(agent)).await
    }

    /// Serves `config` on a fresh 127.0.0.1:0 listener (the config's
    /// address is ignored).
    pub async fn start_with(config: ServeConfig) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let server = Server::new(config, Listeners::new(listener))
            .await
            .expect("server");
        let mut announced = Vec::new();
        server.announce(&mut announced).expect("announce");
        let url = server.endpoints()[0].url.clone();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(server.run(async move {
            let _ = stopped.await;
        }));
        Self {
            url,
            announced: String::from_utf8(announced).expect("utf-8"),
            http: reqwest::Client::new(),
            stop: Some(stop),
            task: Some(task),
            next_id: AtomicI64::new(1),
        }
    }

    /// The HTTP client the helpers use.
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// Signals shutdown and waits (bounded) for `run` to return.
    pub async fn stop(mut self) -> Result<(), ServeError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let task = self.task.take().expect("running");
        tokio::time::timeout(WAIT, task)
            .await
            .expect("server stopped within the wait")
            .expect("server task did not panic")
    }

    /// Fetches the agent card.
    pub async fn card(&self) -> Value {
        let url = format!("{}.well-known/agent-card.json", self.url);
        let resp = self.http.get(url).send().await.expect("card request");
        assert!(resp.status().is_success(), "card: HTTP {}", resp.status());
        resp.json().await.expect("card JSON")
    }

    /// A JSON-RPC request object with a fresh id.
    pub fn request(&self, method: &str, params: Value) -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": self.next_id.fetch_add(1, Ordering::Relaxed),
            "method": method,
            "params": params,
        })
    }

    /// Posts a JSON-RPC request; returns the whole response object.
    pub async fn rpc(&self, method: &str, params: Value) -> Value {
        let body = self.request(method, params);
        let resp = tokio::time::timeout(WAIT, self.http.post(&self.url).json(&body).send())
            .await
            .expect("response within the wait")
            .expect("request sent");
        assert_eq!(resp.status(), 200, "JSON-RPC answers HTTP 200");
        let v: Value = resp.json().await.expect("JSON body");
        assert_eq!(v["jsonrpc"], "2.0");
        assert_eq!(v["id"], body["id"]);
        v
    }

    /// Posts a JSON-RPC request and returns its `result`, failing on an error.
    pub async fn result(&self, method: &str, params: Value) -> Value {
        let v = self.rpc(method, params).await;
        assert!(v.get("error").is_none(), "{method} failed: {v}");
        v["result"].clone()
    }

    /// Posts a JSON-RPC request and returns its `error.code`.
    pub async fn error_code(&self, method: &str, params: Value) -> i64 {
        let v = self.rpc(method, params).await;
        v["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("{method}: expected an error, got {v}"))
    }

    /// Opens an SSE stream for a streaming method.
    pub async fn open_stream(&self, method: &str, params: Value) -> Sse {
        let body = self.request(method, params);
        let resp = tokio::time::timeout(
            WAIT,
            self.http
                .post(&self.url)
                .header("Accept", "text/event-stream")
                .json(&body)
                .send(),
        )
        .await
        .expect("response within the wait")
        .expect("request sent");
        assert_eq!(resp.status(), 200);
        let ct = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        assert!(ct.starts_with("text/event-stream"), "content-type {ct}");
        Sse {
            resp,
            buf: String::new(),
            ended: false,
        }
    }

    /// Collects every event of a stream that ends by itself (at most 500),
    /// returning each event's `result`; fails on an error event.
    pub async fn stream(&self, method: &str, params: Value) -> Vec<Value> {
        let mut sse = self.open_stream(method, params).await;
        let mut out = Vec::new();
        while let Some(ev) = sse.next().await {
            assert!(ev.get("error").is_none(), "error event: {ev}");
            out.push(ev["result"].clone());
            assert!(out.len() < 500, "runaway stream");
        }
        out
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// An SSE response being read.
pub struct Sse {
    resp: reqwest::Response,
    buf: String,
    ended: bool,
}

impl Sse {
    /// The next event's JSON (the whole JSON-RPC response object), or
    /// `None` when the stream ended. Panics when nothing arrives within
    /// [`WAIT`].
    pub async fn next(&mut self) -> Option<Value> {
        self.next_within(WAIT).await.expect("event within the wait")
    }

    /// Like [`next`](Self::next), `Err(())` on timeout.
    pub async fn next_within(&mut self, wait: Duration) -> Result<Option<Value>, ()> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(ev) = self.take_event() {
                return Ok(Some(ev));
            }
            if self.ended {
                return Ok(None);
            }
            match tokio::time::timeout_at(deadline, self.resp.chunk()).await {
                Err(_) => return Err(()),
                Ok(Ok(Some(bytes))) => {
                    self.buf
                        .push_str(&String::from_utf8_lossy(&bytes).replace("\r\n", "\n"));
                }
                Ok(Ok(None)) => self.ended = true,
                Ok(Err(e)) => panic!("stream read failed: {e}"),
            }
        }
    }

    fn take_event(&mut self) -> Option<Value> {
        loop {
            let end = self.buf.find("\n\n")?;
            let block: String = self.buf.drain(..end + 2).collect();
            let data: Vec<&str> = block
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            if data.is_empty() {
                continue; // a comment (keep-alive) or an empty block
            }
            return Some(serde_json::from_str(&data.join("\n")).expect("event data is JSON"));
        }
    }
}

/// A user message with one text part.
pub fn user_text(text: &str) -> Value {
    json!({
        "kind": "message",
        "role": "user",
        "messageId": a2a_core::new_id(),
        "parts": [{"kind": "text", "text": text}],
    })
}

/// `{"message": …}` params.
pub fn send_params(message: Value) -> Value {
    json!({ "message": message })
}

/// The `kind` of a stream event or result.
pub fn kind(v: &Value) -> &str {
    v["kind"].as_str().unwrap_or_default()
}

/// `status.state` of a task or status update.
pub fn state(v: &Value) -> &str {
    v["status"]["state"].as_str().unwrap_or_default()
}

/// Each event as `kind:state` (`artifact-update:` for an artifact): a
/// stream's shape at a glance.
pub fn shape(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| format!("{}:{}", kind(e), state(e)))
        .collect()
}

/// The concatenated text of the text parts of `parts`.
pub fn parts_text(parts: &Value) -> String {
    parts
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["text"].as_str())
        .collect()
}

/// The PostgreSQL test database's URL from `A2A_TEST_POSTGRES_URL`, or `None`
/// (after printing `{test}: SKIPPED`) when it is unset; unset under
/// `CI=true` fails.
pub fn postgres_url(test: &str) -> Option<String> {
    match std::env::var("A2A_TEST_POSTGRES_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url.trim().to_owned()),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "{test}: A2A_TEST_POSTGRES_URL is not set (required when CI=true)"
            );
            eprintln!("{test}: SKIPPED (set A2A_TEST_POSTGRES_URL to run it)");
            None
        }
    }
}

/// Spawns `command` (an `a2a serve`) with stdin closed, stdout piped and
/// stderr inherited, and a thread that forwards every stdout line (and keeps
/// draining the pipe) until it closes.
pub fn spawn_with_stdout(command: &mut Command) -> (Child, mpsc::Receiver<String>) {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn a2a serve");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    // Forwards every line (and keeps draining stdout) until it closes.
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line);
        }
    });
    (child, rx)
}

/// A `listening <name> <url>` line as `(name, url)`.
pub fn listening_line(line: &str) -> Option<(String, String)> {
    let mut words = line.splitn(3, ' ');
    match (words.next(), words.next(), words.next()) {
        (Some("listening"), Some(name), Some(url)) => Some((name.to_owned(), url.to_owned())),
        _ => None,
    }
}

/// Reads `stdout` until what `parse` made of its lines has every key in
/// `want`, within `startup`; otherwise kills and reaps `child` and panics
/// (naming `what`).
pub fn read_lines_until(
    child: &mut Child,
    stdout: &mpsc::Receiver<String>,
    want: &[&str],
    startup: Duration,
    what: &str,
    parse: impl Fn(&str) -> Option<(String, String)>,
) -> BTreeMap<String, String> {
    let deadline = Instant::now() + startup;
    let mut lines = BTreeMap::new();
    while !want.iter().all(|w| lines.contains_key(*w)) {
        let left = deadline.saturating_duration_since(Instant::now());
        match stdout.recv_timeout(left) {
            Ok(line) => {
                if let Some((name, value)) = parse(&line) {
                    lines.insert(name, value);
                }
            }
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{what}: no lines for {want:?} within {startup:?} (got {lines:?}): {e}");
            }
        }
    }
    lines
}
