//! The real `a2a` binary: `a2a serve` prints its listening line, serves the
//! card, and stops on SIGTERM; the client commands talk to it.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_a2a");
const STARTUP: Duration = Duration::from_secs(20);

/// A running `a2a serve`, killed on drop.
struct Serve {
    child: Child,
    url: String,
}

impl Serve {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(BIN)
            .arg("serve")
            .args(args)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn a2a serve");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        // Reads lines until the listening line, then keeps draining stdout.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + STARTUP;
        let url = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    if let Some(url) = line.strip_prefix("listening jsonrpc ") {
                        break url.to_owned();
                    }
                }
                Err(e) => {
                    let _ = child.kill();
                    panic!("no `listening jsonrpc` line within {STARTUP:?}: {e}");
                }
            }
        };
        Self { child, url }
    }

    /// Sends `signal` (`TERM`, `INT`) and waits (bounded) for the exit.
    fn signal(mut self, signal: &str) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status()
            .expect("run kill");
        assert!(sent.success());
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "a2a serve did not exit on SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn a2a(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .expect("run a2a")
}

#[tokio::test]
async fn serve_prints_the_listening_line_and_serves_the_card() {
    let serve = Serve::start(&["--jsonrpc-addr", "127.0.0.1:0"]);
    let url = serve.url.clone();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with('/'),
        "{url}"
    );
    assert!(!url.ends_with(":0/"), "the real port: {url}");
    let card: serde_json::Value = reqwest::get(format!("{url}.well-known/agent-card.json"))
        .await
        .expect("card")
        .json()
        .await
        .expect("card JSON");
    assert_eq!(card["url"], url.as_str());
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert_eq!(card["capabilities"]["pushNotifications"], true);
    let status = serve.signal("TERM");
    assert!(status.success(), "exit status after SIGTERM: {status}");
}

#[test]
fn serve_stops_gracefully_on_sigint_right_after_the_line() {
    let serve = Serve::start(&["--jsonrpc-addr", "127.0.0.1:0", "--agent", "conformance"]);
    let status = serve.signal("INT");
    assert!(status.success(), "exit status after SIGINT: {status}");
}

#[test]
fn serve_refuses_stores_it_cannot_open() {
    let out = a2a(&[
        "serve",
        "--jsonrpc-addr",
        "127.0.0.1:0",
        "--store",
        "sqlite:/tmp/a2a.db",
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not available yet"), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing on stdout: {:?}", out.stdout);

    let out = a2a(&["serve", "--store", "redis://x"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown store"), "{stderr}");
}

fn stdout_json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "status {}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

#[test]
fn client_commands_against_a_served_agent() {
    let serve = Serve::start(&["--jsonrpc-addr", "127.0.0.1:0", "--agent", "demo"]);
    let url = serve.url.clone();
    let url = url.as_str();

    let card = stdout_json(&a2a(&["card", url]));
    assert_eq!(card["url"], url);

    let task = stdout_json(&a2a(&["send", url, "hello from the cli"]));
    assert_eq!(task["kind"], "task");
    assert_eq!(task["status"]["state"], "completed");
    let text: String = task["artifacts"][0]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "hello from the cli");
    let id = task["id"].as_str().unwrap();

    let got = stdout_json(&a2a(&["get", url, id, "--history-length", "1"]));
    assert_eq!(got["id"], id);
    assert_eq!(got["history"].as_array().unwrap().len(), 1);

    // A stream: one compact JSON event per line, Task first, completed last.
    let out = a2a(&["send", url, "two words", "--stream"]);
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON event per line"))
        .collect();
    assert_eq!(lines.first().unwrap()["kind"], "task");
    assert_eq!(lines.last().unwrap()["status"]["state"], "completed");
    assert_eq!(
        lines.len(),
        5,
        "task, working, 2 chunks, completed: {lines:?}"
    );

    // Interview over two commands, continuing the task.
    let asked = stdout_json(&a2a(&["send", url, "interview"]));
    assert_eq!(asked["status"]["state"], "input-required");
    let (tid, cid) = (
        asked["id"].as_str().unwrap(),
        asked["contextId"].as_str().unwrap(),
    );
    let done = stdout_json(&a2a(&[
        "send",
        url,
        "Lin",
        "--task-id",
        tid,
        "--context-id",
        cid,
    ]));
    assert_eq!(done["status"]["state"], "completed");

    // Non-blocking countdown, resubscribe sees it, cancel ends it.
    let cd = stdout_json(&a2a(&["send", url, "countdown 2", "--no-blocking"]));
    let cd_id = cd["id"].as_str().unwrap();
    let out = a2a(&["resubscribe", url, cd_id]);
    assert!(out.status.success());
    let events: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events[0]["kind"], "task");
    assert_eq!(events.last().unwrap()["status"]["state"], "completed");

    // Errors: `error <code> <name>: <message>` on stderr, non-zero exit.
    let out = a2a(&["cancel", url, cd_id]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error -32002 TaskNotCancelableError: "),
        "{stderr}"
    );
    let out = a2a(&["get", url, "no-such-task"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error -32001 TaskNotFoundError: "),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());

    // An unreachable agent is a different failure.
    drop(serve);
    let out = a2a(&["get", url, "x"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "));
}
