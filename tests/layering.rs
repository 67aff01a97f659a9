//! Architecture invariants, stated as absences and checked on the manifests
//! (`cargo metadata`): layers point down only.

use std::collections::BTreeMap;
use std::process::Command;

/// Normal (non-dev) dependencies of each workspace crate.
fn dependencies() -> BTreeMap<String, Vec<String>> {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut map = BTreeMap::new();
    for p in meta["packages"].as_array().unwrap() {
        let deps = p["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"].is_null() || d["kind"] == "build")
            .map(|d| d["name"].as_str().unwrap().to_owned())
            .collect();
        map.insert(p["name"].as_str().unwrap().to_owned(), deps);
    }
    map
}

fn assert_absent(deps: &BTreeMap<String, Vec<String>>, krate: &str, forbidden: &[&str]) {
    let Some(list) = deps.get(krate) else { return };
    for f in forbidden {
        assert!(
            !list.iter().any(|d| d == f),
            "{krate} must not depend on {f} (layers point down only)"
        );
    }
}

#[test]
fn layers_point_down_only() {
    let deps = dependencies();
    assert!(deps.contains_key("a2a-types") && deps.contains_key("a2a-core"));
    // a2a-types is an API boundary: no runtime, no I/O, no wire crates.
    assert_absent(
        &deps,
        "a2a-types",
        &[
            "tokio", "axum", "tonic", "prost", "reqwest", "hyper", "a2a-core",
        ],
    );
    // a2a-core knows nothing about HTTP, JSON-RPC framing, gRPC or protobuf.
    assert_absent(
        &deps,
        "a2a-core",
        &[
            "axum", "hyper", "http", "tonic", "prost", "pbjson", "reqwest", "a2a-pb",
        ],
    );
    // The client never depends on the engine or a server crate.
    assert_absent(
        &deps,
        "a2a-client",
        &[
            "a2a-core",
            "a2a-server",
            "a2a-jsonrpc",
            "a2a-grpc",
            "a2a-http-json",
            "axum",
        ],
    );
    // Adapters do not depend on each other, nor on the composition root.
    let adapters = ["a2a-jsonrpc", "a2a-grpc", "a2a-http-json"];
    for a in adapters {
        let others: Vec<&str> = adapters
            .iter()
            .copied()
            .filter(|o| *o != a)
            .chain(["a2a-server", "a2a-client"])
            .collect();
        assert_absent(&deps, a, &others);
    }
    assert_absent(&deps, "a2a-jsonrpc", &["tonic", "a2a-pb"]);
    assert_absent(&deps, "a2a-http-json", &["tonic"]);
    assert_absent(&deps, "a2a-pb", &["a2a-core", "axum"]);
    // Storage knows the engine's traits, not the wire.
    assert_absent(
        &deps,
        "a2a-store-sql",
        &[
            "axum",
            "tonic",
            "a2a-pb",
            "a2a-jsonrpc",
            "a2a-grpc",
            "a2a-http-json",
            "a2a-server",
        ],
    );
    assert_absent(&deps, "a2a-core", &["sqlx"]);
}
