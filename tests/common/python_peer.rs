//! The official A2A Python SDK peer (`tests/interop/python_agent.py`, a2a-sdk
//! 0.3.26) for the interop tests: the interpreter from `A2A_INTEROP_PYTHON`,
//! the peer started on port 0 for all three bindings, and its listening URLs.
//!
//! Included by each test crate that needs it with
//! `#[path = "common/python_peer.rs"] mod python_peer;`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long the peer may take to announce its listeners (Python imports are
/// slow).
const STARTUP: Duration = Duration::from_secs(90);

/// The running peer; killed (by its own id) and reaped when dropped.
pub(crate) struct PythonPeer {
    child: Child,
    /// What each `listening <binding> <url>` line announced, by binding.
    listening: BTreeMap<String, String>,
}

impl Drop for PythonPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl PythonPeer {
    /// The address the peer announced for `binding` (`jsonrpc`, `http+json`
    /// or `grpc`), as printed: `http://127.0.0.1:P/`, `http://127.0.0.1:P`,
    /// `127.0.0.1:P`.
    pub(crate) fn url(&self, binding: &str) -> &str {
        self.listening
            .get(binding)
            .unwrap_or_else(|| panic!("the peer announced no `listening {binding}` line"))
    }
}

/// The interpreter from `A2A_INTEROP_PYTHON` (a relative path is taken from
/// the repository root when it does not exist as given), or `None` after
/// printing `SKIPPED: {test} …` when it is unset. Unset under `CI=true` fails.
pub(crate) fn python(test: &str) -> Option<PathBuf> {
    let Some(value) = std::env::var_os("A2A_INTEROP_PYTHON").filter(|v| !v.is_empty()) else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "A2A_INTEROP_PYTHON is not set under CI=true: run `bash tests/interop/setup.sh` and set \
             A2A_INTEROP_PYTHON=tests/interop/.venv/bin/python"
        );
        eprintln!(
            "SKIPPED: {test} (set A2A_INTEROP_PYTHON=tests/interop/.venv/bin/python \
             after `bash tests/interop/setup.sh`)"
        );
        return None;
    };
    let path = PathBuf::from(value);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = if path.is_relative() && !path.exists() {
        root.join(path)
    } else {
        path
    };
    assert!(
        path.exists(),
        "A2A_INTEROP_PYTHON={} does not exist",
        path.display()
    );
    Some(path)
}

/// Starts `python_agent.py` with `python` on port 0 for JSON-RPC, HTTP+JSON
/// and gRPC, and waits (bounded, blocking) until all three listeners
/// announced themselves.
pub(crate) fn start(python: &Path) -> PythonPeer {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/python_agent.py");
    let mut child = Command::new(python)
        .arg(&script)
        .args([
            "--host",
            "127.0.0.1",
            "--jsonrpc-port",
            "0",
            "--rest-port",
            "0",
            "--grpc-port",
            "0",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "could not start {} {}: {e}",
                python.display(),
                script.display()
            )
        });
    let stdout = child.stdout.take().expect("piped stdout");
    let (lines, rx) = mpsc::channel::<String>();
    // Reads stdout to its end, so the peer never blocks on a full pipe.
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            // Once nobody listens any more, keep draining.
            let _ = lines.send(line);
        }
    });
    let mut peer = PythonPeer {
        child,
        listening: BTreeMap::new(),
    };
    let deadline = Instant::now() + STARTUP;
    while peer.listening.len() < 3 {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = match rx.recv_timeout(left) {
            Ok(line) => line,
            Err(e) => {
                let status = peer.child.try_wait().ok().flatten();
                panic!(
                    "the Python peer did not announce its three listeners within {STARTUP:?} \
                     ({e}; exit status {status:?}; announced {:?})",
                    peer.listening
                );
            }
        };
        eprintln!("python_agent: {line}");
        if let Some((binding, url)) = line
            .strip_prefix("listening ")
            .and_then(|rest| rest.split_once(' '))
        {
            peer.listening
                .insert(binding.to_owned(), url.trim().to_owned());
        }
    }
    peer
}
