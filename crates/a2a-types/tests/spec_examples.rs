//! Every JSON example of `specification.md` §9 that is valid against the
//! JSON Schema parses into our types and re-serialises to equal JSON.
//!
//! The reference texts are read from `../shared/reference/a2a-v0.3.0/` beside
//! the repository (or `$A2A_REFERENCE_DIR`). Under `CI=true` a missing file is
//! a failure; elsewhere the test says that it was skipped.

use std::path::PathBuf;

use a2a_types::jsonrpc::{JsonRpcRequest, JsonRpcResponse};
use a2a_types::*;
use serde_json::Value;

fn reference_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("A2A_REFERENCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/reference/a2a-v0.3.0")
        });
    if dir.join("a2a.schema.json").exists() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "reference texts not found at {} (set A2A_REFERENCE_DIR)",
        dir.display()
    );
    eprintln!("SKIPPED: reference texts not found at {}", dir.display());
    None
}

/// A validator for one definition of the schema.
fn validator(schema: &Value, definition: &str) -> jsonschema::Validator {
    let mut s = schema.clone();
    s["$ref"] = Value::String(format!("#/definitions/{definition}"));
    jsonschema::validator_for(&s).expect("schema compiles")
}

/// The JSON blocks of §9, with SSE `data:` lines split into their own values.
fn section9_examples(spec: &str) -> Vec<(usize, Value)> {
    let start = spec.find("## 9. Common Workflows").expect("section 9");
    let end = spec[start..]
        .find("\n## 10.")
        .map_or(spec.len(), |e| start + e);
    let section = &spec[start..end];
    let mut out = Vec::new();
    let mut in_block = false;
    let mut block = String::new();
    let mut block_line = 0;
    for (i, line) in section.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") {
            if in_block {
                if block.lines().any(|l| l.trim_start().starts_with("data:")) {
                    // SSE: each `data:` line starts one JSON value that may
                    // span the following lines.
                    let mut chunks: Vec<String> = Vec::new();
                    for l in block.lines() {
                        match l.trim_start().strip_prefix("data:") {
                            Some(rest) => chunks.push(rest.to_owned()),
                            None => {
                                if let Some(c) = chunks.last_mut() {
                                    c.push('\n');
                                    c.push_str(l);
                                }
                            }
                        }
                    }
                    for c in chunks {
                        if let Ok(v) = serde_json::from_str::<Value>(&c) {
                            out.push((block_line, v));
                        }
                    }
                } else if let Ok(v) = serde_json::from_str::<Value>(&block) {
                    out.push((block_line, v));
                }
                block.clear();
                in_block = false;
            } else {
                in_block = true;
                block_line = i;
            }
        } else if in_block {
            block.push_str(line);
            block.push('\n');
        }
    }
    out
}

/// Parses a JSON-RPC request through the typed params of its method and
/// serialises it back.
fn round_trip_request(v: &Value) -> Value {
    let method = v["method"].as_str().expect("method");
    macro_rules! rt {
        ($t:ty) => {{
            let r: JsonRpcRequest<$t> = serde_json::from_value(v.clone()).expect(method);
            serde_json::to_value(&r).unwrap()
        }};
    }
    match method {
        "message/send" | "message/stream" => rt!(MessageSendParams),
        "tasks/get" => rt!(TaskQueryParams),
        "tasks/cancel" | "tasks/resubscribe" => rt!(TaskIdParams),
        "tasks/pushNotificationConfig/set" => rt!(TaskPushNotificationConfig),
        "tasks/pushNotificationConfig/get" => rt!(GetTaskPushNotificationConfigParams),
        "tasks/pushNotificationConfig/list" => rt!(ListTaskPushNotificationConfigParams),
        "tasks/pushNotificationConfig/delete" => rt!(DeleteTaskPushNotificationConfigParams),
        "agent/getAuthenticatedExtendedCard" => rt!(Value),
        other => panic!("unknown method {other}"),
    }
}

/// Parses a JSON-RPC response, choosing the result type from its shape.
fn round_trip_response(v: &Value) -> Value {
    if v.get("error").is_some() {
        let r: JsonRpcResponse<Value> = serde_json::from_value(v.clone()).unwrap();
        return serde_json::to_value(&r).unwrap();
    }
    let result = &v["result"];
    macro_rules! rt {
        ($t:ty) => {{
            let r: JsonRpcResponse<$t> = serde_json::from_value(v.clone()).unwrap();
            serde_json::to_value(&r).unwrap()
        }};
    }
    if result.get("kind").is_some() {
        rt!(StreamResponse)
    } else if result.get("protocolVersion").is_some() {
        rt!(AgentCard)
    } else if result.get("pushNotificationConfig").is_some() {
        rt!(TaskPushNotificationConfig)
    } else if result.is_array() {
        rt!(Vec<TaskPushNotificationConfig>)
    } else {
        rt!(Value)
    }
}

#[test]
fn section9_examples_round_trip() {
    let Some(dir) = reference_dir() else { return };
    let spec = std::fs::read_to_string(dir.join("specification.md")).unwrap();
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("a2a.schema.json")).unwrap())
            .unwrap();
    let requests = validator(&schema, "A2ARequest");
    let responses = validator(&schema, "JSONRPCResponse");
    let stream_responses = validator(&schema, "SendStreamingMessageResponse");
    let tasks = validator(&schema, "Task");

    let examples = section9_examples(&spec);
    assert!(
        examples.len() >= 12,
        "expected many examples in §9, found {}",
        examples.len()
    );
    let (mut checked, mut invalid) = (0, Vec::new());
    for (line, v) in &examples {
        let again = if v.get("method").is_some() {
            if !requests.is_valid(v) {
                invalid.push(*line);
                continue;
            }
            round_trip_request(v)
        } else if v.get("jsonrpc").is_some() {
            if !responses.is_valid(v) && !stream_responses.is_valid(v) {
                invalid.push(*line);
                continue;
            }
            round_trip_response(v)
        } else if v.get("kind").and_then(Value::as_str) == Some("task") {
            // A push-notification payload: the bare Task.
            if !tasks.is_valid(v) {
                invalid.push(*line);
                continue;
            }
            let t: Task = serde_json::from_value(v.clone()).unwrap();
            serde_json::to_value(&t).unwrap()
        } else {
            invalid.push(*line);
            continue;
        };
        pretty_assertions::assert_eq!(&again, v, "example at §9 block line {line}");
        checked += 1;
    }
    eprintln!(
        "checked {checked} examples; {} not schema-valid or not A2A objects (lines {invalid:?})",
        invalid.len()
    );
    assert!(
        checked >= 5,
        "too few schema-valid examples checked: {checked}"
    );
}

#[test]
fn state_and_kind_names() {
    let t = Task::new("t", "c", TaskState::InputRequired);
    let v = serde_json::to_value(&t).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"kind":"task","id":"t","contextId":"c","status":{"state":"input-required"}})
    );
    // `kind` is optional on input for a typed object; a part without kind is inferred.
    let p: Part = serde_json::from_value(serde_json::json!({"text":"x"})).unwrap();
    assert_eq!(p, Part::text("x"));
    let bad = serde_json::from_value::<Part>(
        serde_json::json!({"kind":"file","file":{"bytes":"AA==","uri":"http://x"}}),
    );
    assert!(bad.is_err());
    let ev: StreamResponse = serde_json::from_value(serde_json::json!({
        "kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"},"final":false})).unwrap();
    assert!(matches!(ev, StreamResponse::StatusUpdate(_)));
    assert!(!ev.is_final());
    // Lenient like the Python SDK: a message without `kind` is accepted.
    let m: Message = serde_json::from_value(
        serde_json::json!({"role":"user","parts":[{"kind":"text","text":"x"}],"messageId":"m"}),
    )
    .unwrap();
    assert_eq!(m.text(), "x");
    assert_eq!(serde_json::to_value(&m).unwrap()["kind"], "message");
    let unknown: Result<StreamResponse, _> =
        serde_json::from_value(serde_json::json!({"kind":"nope"}));
    assert!(unknown.is_err());
}
