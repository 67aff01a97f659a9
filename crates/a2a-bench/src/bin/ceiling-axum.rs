//! `ceiling-axum`: the bare-axum reference the A2A HTTP bindings are measured
//! against. It does what any JSON-over-HTTP server must do and nothing
//! else: read the body, parse it into a `serde_json::Value`, look at the
//! method (and `metadata.reply`), and write a fixed body of the same size as
//! the real server's answer.
//!
//! | route | answer |
//! |---|---|
//! | `POST /` (JSON-RPC) `message/send` | the fixed `jsonrpc-send-{task,message}` body |
//! | `POST /` (JSON-RPC) `message/stream` | the fixed `jsonrpc-stream-…` events, one SSE chunk each |
//! | `POST /v1/message:send` (REST) | the fixed `rest-send-…` body |
//! | `POST /v1/message:stream` (REST) | the fixed `rest-stream-…` events |
//!
//! ```text
//! ceiling-axum [--addr 127.0.0.1:0] [--fixtures DIR]
//! ```
//!
//! Prints `listening jsonrpc http://HOST:PORT/` and `listening http+json
//! http://HOST:PORT` (one listener serves both) and flushes, as `a2a serve`
//! does. Loopback addresses only.

use std::convert::Infallible;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use a2a_bench::fixtures::{Fixtures, HttpFixture};
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::serve::ListenerExt;
use bytes::Bytes;
use clap::Parser;
use serde_json::Value;

/// A bare axum server answering the A2A send/stream requests with fixed
/// bodies.
#[derive(Debug, Parser)]
#[command(name = "ceiling-axum")]
struct Cli {
    /// Where to listen (loopback only; port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: std::net::SocketAddr,
    /// The directory `bench --mode capture` wrote the real answers to
    /// (missing files: built-in bodies).
    #[arg(long)]
    fixtures: Option<PathBuf>,
}

struct Shared {
    jsonrpc: HttpFixture,
    rest: HttpFixture,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    if !cli.addr.ip().is_loopback() {
        return Err(format!("{}: loopback addresses only", cli.addr).into());
    }
    let fixtures = Fixtures::load(cli.fixtures.as_deref())?;
    eprintln!(
        "ceiling-axum: fixtures {}; JSON-RPC task answer {} bytes, REST {} bytes",
        fixtures.source(),
        fixtures.jsonrpc.send_task.len(),
        fixtures.rest.send_task.len()
    );
    let shared = Arc::new(Shared {
        jsonrpc: fixtures.jsonrpc,
        rest: fixtures.rest,
    });
    let app = Router::new()
        .route("/", post(jsonrpc))
        .route("/v1/message:send", post(rest_send))
        .route("/v1/message:stream", post(rest_stream))
        .with_state(shared);
    let listener = tokio::net::TcpListener::bind(cli.addr).await?;
    let addr = listener.local_addr()?;
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening jsonrpc http://{addr}/")?;
        writeln!(out, "listening http+json http://{addr}")?;
        out.flush()?;
    }
    // As the A2A server: small SSE frames must not wait for delayed ACKs.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}

/// `metadata.reply == "message"` in `v` (the request params for JSON-RPC,
/// the whole body for REST).
fn wants_message(v: &Value) -> bool {
    v.get("metadata")
        .and_then(|m| m.get("reply"))
        .and_then(Value::as_str)
        == Some("message")
}

async fn jsonrpc(State(s): State<Arc<Shared>>, body: Bytes) -> Response {
    let Ok(v) = serde_json::from_slice::<Value>(&body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let message = v.get("params").is_some_and(wants_message);
    match v.get("method").and_then(Value::as_str) {
        Some("message/stream") => sse(pick_stream(&s.jsonrpc, message)),
        _ => json(pick_send(&s.jsonrpc, message)),
    }
}

async fn rest_send(State(s): State<Arc<Shared>>, body: Bytes) -> Response {
    let Ok(v) = serde_json::from_slice::<Value>(&body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    json(pick_send(&s.rest, wants_message(&v)))
}

async fn rest_stream(State(s): State<Arc<Shared>>, body: Bytes) -> Response {
    let Ok(v) = serde_json::from_slice::<Value>(&body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    sse(pick_stream(&s.rest, wants_message(&v)))
}

fn pick_send(f: &HttpFixture, message: bool) -> Bytes {
    if message {
        f.send_message.clone()
    } else {
        f.send_task.clone()
    }
}

fn pick_stream(f: &HttpFixture, message: bool) -> Vec<Bytes> {
    if message {
        f.stream_message.clone()
    } else {
        f.stream_task.clone()
    }
}

fn json(body: Bytes) -> Response {
    let mut r = Response::new(Body::from(body));
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

/// The events as separate body chunks, with the headers the A2A server
/// sends on a stream.
fn sse(events: Vec<Bytes>) -> Response {
    let body = Body::from_stream(futures::stream::iter(
        events.into_iter().map(Ok::<_, Infallible>),
    ));
    let mut r = Response::new(body);
    let h = r.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}
