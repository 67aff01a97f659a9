//! The real `a2a` binary: `a2a serve` prints its listening lines, serves the
//! card and the three bindings, and stops on SIGTERM; the client commands
//! talk to it.

mod common;

use std::collections::BTreeMap;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use a2a_client::Transport;
use a2a_client::grpc::GrpcTransport;
use a2a_client::rest::RestTransport;
use a2a_types::{Message, MessageSendParams, SendMessageResult, TaskState};
use common::{listening_line, read_lines_until, spawn_with_stdout};

const BIN: &str = env!("CARGO_BIN_EXE_a2a");
const STARTUP: Duration = Duration::from_secs(20);

/// Every listener on a free port (the defaults are fixed ports, which
/// parallel tests would fight over).
const FREE_PORTS: [&str; 6] = [
    "--jsonrpc-addr",
    "127.0.0.1:0",
    "--grpc-addr",
    "127.0.0.1:0",
    "--rest-addr",
    "127.0.0.1:0",
];

/// A running `a2a serve`, killed on drop.
struct Serve {
    child: Child,
    /// The JSON-RPC URL from its `listening jsonrpc` line.
    url: String,
    /// Every `listening <name> <url>` line read so far, by name.
    lines: BTreeMap<String, String>,
    stdout: mpsc::Receiver<String>,
}

impl Serve {
    /// Starts `a2a serve ARGS` and reads stdout until the `listening` lines
    /// of every listener the args ask for (jsonrpc, plus grpc and http+json
    /// unless `--no-grpc` / `--no-rest`). Without `--store` in ARGS, with
    /// `--store memory`: the default SQLite file would land in the crate
    /// directory, shared by the parallel tests.
    fn start(args: &[&str]) -> Self {
        let memory: &[&str] = if args.contains(&"--store") {
            &[]
        } else {
            &["--store", "memory"]
        };
        let mut want = vec!["jsonrpc"];
        if !args.contains(&"--no-grpc") {
            want.push("grpc");
        }
        if !args.contains(&"--no-rest") {
            want.push("http+json");
        }
        let (mut child, rx) = spawn_with_stdout(
            Command::new(BIN)
                .arg("serve")
                .args(args)
                .args(memory)
                .env("RUST_LOG", "warn"),
        );
        let lines = read_lines_until(&mut child, &rx, &want, STARTUP, "a2a serve", listening_line);
        let url = lines["jsonrpc"].clone();
        Self {
            child,
            url,
            lines,
            stdout: rx,
        }
    }

    /// Sends `signal` (`TERM`, `INT`) and waits (bounded) for the exit.
    fn signal(&mut self, signal: &str) -> std::process::ExitStatus {
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
                "a2a serve did not exit on SIG{signal}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// After the exit: the stdout lines not read yet (bounded wait for the
    /// reader thread to see the end of the pipe).
    fn rest_of_stdout(&self) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stdout.recv_timeout(left) {
                Ok(line) => out.push(line),
                Err(mpsc::RecvTimeoutError::Disconnected) => return out,
                Err(mpsc::RecvTimeoutError::Timeout) => panic!("stdout did not close"),
            }
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
    let mut serve = Serve::start(&FREE_PORTS);
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
    let mut serve = Serve::start(&[&FREE_PORTS[..], &["--agent", "conformance"]].concat());
    let status = serve.signal("INT");
    assert!(status.success(), "exit status after SIGINT: {status}");
}

/// A fresh directory under the system's temp dir, deleted on drop.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "a2a-server-{name}-{}-{}",
            std::process::id(),
            a2a_core::new_id()
        ));
        std::fs::create_dir_all(&dir).expect("create the temp dir");
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn serve_refuses_stores_it_cannot_open() {
    let tmp = TempDir::new("refuse");
    // A regular file where the SQLite file's directory should be.
    std::fs::write(tmp.0.join("file"), b"x").unwrap();
    let store = format!("sqlite:{}", tmp.0.join("file/a.db").display());
    let postgres = "postgres://a2a:s3cret@localhost:notaport/a2a";
    for store in [store.as_str(), postgres] {
        let out = a2a(&[
            "serve",
            "--jsonrpc-addr",
            "127.0.0.1:0",
            "--no-grpc",
            "--no-rest",
            "--store",
            store,
        ]);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("error: --store "), "{stderr}");
        assert!(!stderr.contains("s3cret"), "{stderr}");
        assert!(out.stdout.is_empty(), "nothing on stdout: {:?}", out.stdout);
    }

    let out = a2a(&["serve", "--store", "redis://x"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown store"), "{stderr}");
}

/// One JSON-RPC call with a raw HTTP client: the `result`.
async fn rpc(url: &str, method: &str, params: serde_json::Value) -> serde_json::Value {
    let response: serde_json::Value = reqwest::Client::new()
        .post(url)
        .json(&serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .expect("JSON-RPC call")
        .json()
        .await
        .expect("JSON-RPC response");
    assert!(response["error"].is_null(), "{method}: {response}");
    response["result"].clone()
}

#[tokio::test]
async fn a_task_survives_a_kill_9_on_sqlite() {
    let tmp = TempDir::new("restart");
    let store = format!("sqlite:{}", tmp.0.join("a.db").display());
    let args = [
        "--agent",
        "echo",
        "--store",
        &store,
        "--jsonrpc-addr",
        "127.0.0.1:0",
        "--no-grpc",
        "--no-rest",
    ];

    let mut first = Serve::start(&args);
    let task = rpc(
        &first.url,
        "message/send",
        serde_json::json!({
            "message": {
                "kind": "message",
                "messageId": "m-1",
                "role": "user",
                "parts": [{"kind": "text", "text": "remember me"}]
            }
        }),
    )
    .await;
    assert_eq!(task["kind"], "task");
    assert_eq!(task["status"]["state"], "completed");
    let id = task["id"].as_str().expect("task id").to_owned();
    // SIGKILL: no graceful shutdown, no chance to flush anything more.
    first.child.kill().expect("kill -9");
    let status = first.child.wait().expect("wait");
    assert!(!status.success(), "killed: {status}");
    drop(first);

    let second = Serve::start(&args);
    let got = rpc(&second.url, "tasks/get", serde_json::json!({"id": id})).await;
    assert_eq!(got["id"], id.as_str());
    assert_eq!(got["contextId"], task["contextId"]);
    assert_eq!(got["status"]["state"], "completed");
    let history = got["history"].as_array().expect("history");
    assert!(
        history
            .iter()
            .any(|m| m["messageId"] == "m-1" && m["parts"][0]["text"] == "remember me"),
        "{got}"
    );
    assert_eq!(got["artifacts"], task["artifacts"]);
    assert_eq!(got["artifacts"][0]["parts"][0]["text"], "remember me");
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
    let serve = Serve::start(&[
        "--jsonrpc-addr",
        "127.0.0.1:0",
        "--no-grpc",
        "--no-rest",
        "--agent",
        "demo",
    ]);
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

/// The `url` of the card's interface for `transport`.
fn interface_url(card: &serde_json::Value, transport: &str) -> Option<String> {
    card["additionalInterfaces"]
        .as_array()?
        .iter()
        .find(|i| i["transport"] == transport)
        .map(|i| i["url"].as_str().unwrap().to_owned())
}

async fn fetch_card(url: &str) -> serde_json::Value {
    reqwest::get(format!("{url}.well-known/agent-card.json"))
        .await
        .expect("card")
        .json()
        .await
        .expect("card JSON")
}

async fn assert_echoes(transport: &dyn Transport) {
    let params = MessageSendParams::new(Message::user_text("m-1", "hello binary"));
    let reply = tokio::time::timeout(STARTUP, transport.send_message(params))
        .await
        .expect("answer in time")
        .expect("message/send");
    let SendMessageResult::Task(task) = reply else {
        panic!("expected a task: {reply:?}")
    };
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(task.artifacts.unwrap()[0].text(), "hello binary");
}

#[tokio::test]
async fn serve_prints_three_listening_lines_and_the_card_names_them() {
    let mut serve = Serve::start(&[&FREE_PORTS[..], &["--agent", "echo"]].concat());
    let names: Vec<&str> = serve.lines.keys().map(String::as_str).collect();
    assert_eq!(names, ["grpc", "http+json", "jsonrpc"]);
    let grpc_line = serve.lines["grpc"].clone();
    let rest_line = serve.lines["http+json"].clone();
    assert!(
        grpc_line.starts_with("http://127.0.0.1:") && !grpc_line.ends_with('/'),
        "{grpc_line}"
    );
    assert!(
        rest_line.starts_with("http://127.0.0.1:") && rest_line.ends_with('/'),
        "{rest_line}"
    );

    let card = fetch_card(&serve.url).await;
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert_eq!(card["url"], serve.url.as_str());
    let transports: Vec<&str> = card["additionalInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["transport"].as_str().unwrap())
        .collect();
    assert_eq!(transports, ["JSONRPC", "GRPC", "HTTP+JSON"]);
    assert_eq!(interface_url(&card, "JSONRPC").unwrap(), serve.url);
    // Default `--grpc-url-style host-port`: the line's URL without scheme.
    let grpc_url = interface_url(&card, "GRPC").unwrap();
    assert_eq!(grpc_url, grpc_line["http://".len()..]);
    // REST: the base, without the line's trailing slash.
    let rest_url = interface_url(&card, "HTTP+JSON").unwrap();
    assert_eq!(rest_url, rest_line.trim_end_matches('/'));

    assert_echoes(&GrpcTransport::connect(&grpc_url).await.expect("connect")).await;
    assert_echoes(&RestTransport::new(&rest_url)).await;
    // The REST listener serves the card too, at the line's URL.
    assert_eq!(fetch_card(&rest_line).await, card);

    let status = serve.signal("TERM");
    assert!(status.success(), "exit status after SIGTERM: {status}");
}

#[tokio::test]
async fn grpc_url_style_http_writes_the_scheme() {
    let mut serve = Serve::start(&[
        "--jsonrpc-addr",
        "127.0.0.1:0",
        "--grpc-addr",
        "127.0.0.1:0",
        "--no-rest",
        "--agent",
        "echo",
        "--grpc-url-style",
        "http",
    ]);
    let card = fetch_card(&serve.url).await;
    let grpc_url = interface_url(&card, "GRPC").unwrap();
    assert_eq!(grpc_url, serve.lines["grpc"]);
    assert!(grpc_url.starts_with("http://"), "{grpc_url}");
    assert_echoes(&GrpcTransport::connect(&grpc_url).await.expect("connect")).await;
    assert!(serve.signal("TERM").success());
}

#[tokio::test]
async fn no_grpc_and_no_rest_omit_the_interface_and_the_line() {
    for (off, on_addr, gone_line, gone_transport) in [
        ("--no-grpc", "--rest-addr", "grpc", "GRPC"),
        ("--no-rest", "--grpc-addr", "http+json", "HTTP+JSON"),
    ] {
        let mut serve = Serve::start(&[
            "--jsonrpc-addr",
            "127.0.0.1:0",
            on_addr,
            "127.0.0.1:0",
            "--agent",
            "echo",
            off,
        ]);
        let card = fetch_card(&serve.url).await;
        assert!(interface_url(&card, gone_transport).is_none(), "{card}");
        assert_eq!(card["additionalInterfaces"].as_array().unwrap().len(), 2);
        assert!(serve.signal("TERM").success());
        let late = serve.rest_of_stdout();
        assert!(
            !serve.lines.contains_key(gone_line)
                && !late.iter().any(|l| l.starts_with("listening ")),
            "{off}: {:?} then {late:?}",
            serve.lines
        );
    }

    let mut serve = Serve::start(&["--jsonrpc-addr", "127.0.0.1:0", "--no-grpc", "--no-rest"]);
    let card = fetch_card(&serve.url).await;
    assert_eq!(
        card["additionalInterfaces"],
        serde_json::json!([{"transport": "JSONRPC", "url": serve.url}])
    );
    assert!(serve.signal("TERM").success());
    assert!(serve.rest_of_stdout().is_empty());
    assert_eq!(serve.lines.len(), 1);
}

#[test]
fn a_binding_cannot_be_both_off_and_addressed() {
    for args in [
        ["serve", "--no-grpc", "--grpc-addr", "127.0.0.1:0"],
        ["serve", "--no-rest", "--rest-addr", "127.0.0.1:0"],
    ] {
        let out = a2a(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("cannot be used with"), "{stderr}");
    }
}
