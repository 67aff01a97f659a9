//! The benchmark binaries work end to end, briefly: `bench` drives the bare
//! ceilings over real loopback sockets (JSON-RPC, REST, SSE, gRPC, and two
//! targets alternately with their ratio), counts no errors, and refuses
//! anything that is not loopback. The real numbers come from `run.sh` in
//! release mode; this only keeps the tools honest in `cargo test`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};

const BENCH: &str = env!("CARGO_BIN_EXE_bench");

/// A ceiling server on port 0, killed on drop.
struct Server {
    child: Child,
    urls: Vec<(String, String)>,
}

impl Server {
    /// Starts `bin` and reads its `listening KIND URL` lines (`lines` of them).
    fn start(bin: &str, lines: usize) -> Self {
        let mut child = Command::new(bin)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the ceiling");
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut urls = Vec::new();
        for _ in 0..lines {
            let mut line = String::new();
            out.read_line(&mut line).expect("a listening line");
            let mut words = line.split_whitespace();
            assert_eq!(words.next(), Some("listening"), "{line:?}");
            let kind = words.next().expect("kind").to_owned();
            let url = words.next().expect("url").to_owned();
            urls.push((kind, url));
        }
        Self { child, urls }
    }

    fn url(&self, kind: &str) -> &str {
        &self
            .urls
            .iter()
            .find(|(k, _)| k == kind)
            .unwrap_or_else(|| panic!("no {kind} listener in {:?}", self.urls))
            .1
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn bench(args: &[&str]) -> Output {
    Command::new(BENCH)
        .args(args)
        .args(["--duration", "1s", "--warmup", "0s", "--connections", "4"])
        .stdin(Stdio::null())
        .output()
        .expect("run bench")
}

/// The `requests N  errors E` figures of every report block in `text`.
fn counts(text: &str) -> Vec<(u64, u64)> {
    text.lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some("requests")).then(|| {
                let requests = w.next()?.parse().ok()?;
                (w.next() == Some("errors")).then_some(())?;
                Some((requests, w.next()?.parse().ok()?))
            })?
        })
        .collect()
}

fn assert_ran(out: &Output, blocks: usize) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    let counts = counts(&text);
    assert_eq!(counts.len(), blocks, "{text}");
    for (requests, errors) in counts {
        assert!(requests > 0, "{text}");
        assert_eq!(errors, 0, "{text}");
    }
    text
}

#[test]
fn bench_drives_the_http_ceiling_unary_and_streaming() {
    let axum = Server::start(env!("CARGO_BIN_EXE_ceiling-axum"), 2);
    let rpc = axum.url("jsonrpc").to_owned();
    let rest = axum.url("http+json").to_owned();
    assert_ran(&bench(&["--target", "jsonrpc-send", "--url", &rpc]), 1);
    let text = assert_ran(
        &bench(&["--target", "jsonrpc-stream", "--working", "--url", &rpc]),
        1,
    );
    assert!(text.contains("events/s"), "{text}");
    assert_ran(&bench(&["--target", "rest-send", "--url", &rest]), 1);
    assert_ran(&bench(&["--target", "rest-stream", "--url", &rest]), 1);
    // Two targets alternately: both reported, then their ratio.
    let compare = format!("--target rest-send --url {rest}");
    let text = assert_ran(
        &bench(&[
            "--target",
            "jsonrpc-send",
            "--url",
            &rpc,
            "--rounds",
            "2",
            "--compare",
            &compare,
        ]),
        2,
    );
    assert!(text.contains("ratio target/reference:"), "{text}");
}

#[test]
fn bench_drives_the_grpc_ceiling() {
    let tonic = Server::start(env!("CARGO_BIN_EXE_ceiling-tonic"), 1);
    let url = tonic.url("grpc").to_owned();
    assert_ran(&bench(&["--target", "grpc-send", "--url", &url]), 1);
    assert_ran(&bench(&["--target", "grpc-stream", "--url", &url]), 1);
}

#[test]
fn bench_refuses_anything_but_loopback() {
    let out = bench(&["--target", "jsonrpc-send", "--url", "http://10.0.0.1:8080/"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("loopback only"), "{stderr}");
}
