//! Shared pieces of the A2A benchmark binaries (loopback only):
//!
//! - `bench`: the load generator (JSON-RPC, REST and gRPC; fixed duration
//!   and connection count; A/B comparison in alternating slices; idle SSE
//!   subscribers; soak with RSS samples; memory per retained task);
//! - `ceiling-axum`: a bare axum server that parses the same JSON request
//!   and writes a fixed response of the same size as the A2A server's;
//! - `ceiling-tonic`: a bare tonic `A2AService` answering `SendMessage`
//!   (and `SendStreamingMessage`) with a fixed response.
//!
//! The fixed responses are *fixtures*: the exact bodies the real server
//! returned, captured by `bench --mode capture` into a directory
//! ([`fixture_file`] names them); without a directory the ceilings serve
//! built-in bodies of a representative size ([`fixtures`]).
//!
//! See `docs/performance.md` for the method and `run.sh` for the suite.

pub mod fixtures;
pub mod procfs;
pub mod sse;

use std::time::Duration;

/// The file name of a captured fixture: `{target}-{reply}.{ext}`, e.g.
/// `jsonrpc-send-task.json`, `rest-stream-task.sse`, `grpc-send-message.pb`.
#[must_use]
pub fn fixture_file(target: &str, reply: &str) -> String {
    let ext = if target.starts_with("grpc") {
        "pb"
    } else if target.ends_with("stream") {
        "sse"
    } else {
        "json"
    };
    format!("{target}-{reply}.{ext}")
}

/// Parses `10s`, `500ms`, `2m`, `1h` or a bare number of seconds (`1.5`).
///
/// # Errors
///
/// A message naming the accepted forms.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(i) => s.split_at(i),
        None => (s, "s"),
    };
    let n: f64 = num
        .parse()
        .map_err(|_| format!("bad duration {s:?}: expected e.g. 10s, 500ms, 2m"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" | "min" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("bad duration unit in {s:?}: use ms, s, m or h")),
    };
    if !secs.is_finite() || secs < 0.0 {
        return Err(format!("bad duration {s:?}"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// The first `listening <name> <url>` line of `name` in `text`, as printed
/// by `a2a serve` and the ceilings.
#[must_use]
pub fn listening_url<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        let mut w = l.split_whitespace();
        (w.next() == Some("listening") && w.next() == Some(name))
            .then(|| w.next())
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("x").is_err());
        assert!(parse_duration("3d").is_err());
    }

    #[test]
    fn names() {
        assert_eq!(
            fixture_file("jsonrpc-send", "task"),
            "jsonrpc-send-task.json"
        );
        assert_eq!(fixture_file("rest-stream", "task"), "rest-stream-task.sse");
        assert_eq!(fixture_file("grpc-send", "message"), "grpc-send-message.pb");
        let text = "x\nlistening jsonrpc http://127.0.0.1:1/\nlistening grpc http://127.0.0.1:2\n";
        assert_eq!(listening_url(text, "grpc"), Some("http://127.0.0.1:2"));
        assert_eq!(listening_url(text, "http+json"), None);
    }
}
