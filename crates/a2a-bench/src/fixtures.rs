//! The fixed responses the ceilings serve.
//!
//! [`Fixtures::load`] reads what `bench --mode capture` wrote (the exact
//! bodies of the real server, so the ceiling writes the same number of
//! bytes); a file that is missing falls back to a built-in body shaped like
//! the echo agent's answer (one completed task with one artifact and the
//! user message in its history, or one agent message).

use std::path::Path;

use a2a_pb::v1;
use bytes::Bytes;
use prost::Message as _;

use crate::fixture_file;
use crate::sse::SseCounter;

const TASK_ID: &str = "0b6f7c8e-2f1d-4d7a-9a4e-3c2b1a0f9e8d";
const CONTEXT_ID: &str = "5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b";
const MESSAGE_ID: &str = "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b";
const REPLY_ID: &str = "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d";
const ARTIFACT_ID: &str = "7c6b5a49-3827-4165-9f4e-3d2c1b0a9f8e";
const TIMESTAMP: &str = "2026-01-01T00:00:00.000000Z";
const TEXT: &str = "hello bench";

/// One binding's answers: the unary body (JSON-RPC, REST) and the stream's
/// events (each a complete SSE block, `data: …\n\n`), for a task reply and a
/// message reply.
#[derive(Debug, Clone)]
pub struct HttpFixture {
    /// Unary answer when the agent replies with a task.
    pub send_task: Bytes,
    /// Unary answer when the agent replies with a message.
    pub send_message: Bytes,
    /// Stream events when the agent replies with a task.
    pub stream_task: Vec<Bytes>,
    /// Stream events when the agent replies with a message.
    pub stream_message: Vec<Bytes>,
}

/// The gRPC answers, as messages (tonic encodes them per call, as the real
/// service does).
#[derive(Debug, Clone)]
pub struct GrpcFixture {
    /// `SendMessage` answer for a task reply.
    pub send_task: v1::SendMessageResponse,
    /// `SendMessage` answer for a message reply.
    pub send_message: v1::SendMessageResponse,
    /// `SendStreamingMessage` items for a task reply.
    pub stream_task: Vec<v1::StreamResponse>,
    /// `SendStreamingMessage` items for a message reply.
    pub stream_message: Vec<v1::StreamResponse>,
}

/// Every fixture, per binding.
#[derive(Debug, Clone)]
pub struct Fixtures {
    /// JSON-RPC (`POST /`).
    pub jsonrpc: HttpFixture,
    /// REST (`POST /v1/message:send`, `:stream`).
    pub rest: HttpFixture,
    /// gRPC.
    pub grpc: GrpcFixture,
    /// Which files were read (the rest are built in).
    pub loaded: Vec<String>,
}

impl Fixtures {
    /// For a ceiling's start-up line: the files read, or `built in`.
    #[must_use]
    pub fn source(&self) -> String {
        if self.loaded.is_empty() {
            "built in".to_owned()
        } else {
            self.loaded.join(", ")
        }
    }

    /// The built-in fixtures.
    #[must_use]
    pub fn builtin() -> Self {
        Self {
            jsonrpc: jsonrpc_builtin(),
            rest: rest_builtin(),
            grpc: grpc_builtin(),
            loaded: Vec::new(),
        }
    }

    /// The fixtures in `dir` (see [`fixture_file`]), built-in ones for the
    /// missing files.
    ///
    /// # Errors
    ///
    /// When a file exists but cannot be read or (gRPC) decoded.
    pub fn load(dir: Option<&Path>) -> std::io::Result<Self> {
        let mut f = Self::builtin();
        let Some(dir) = dir else { return Ok(f) };
        let mut read = |target: &str, reply: &str| -> std::io::Result<Option<Bytes>> {
            let name = fixture_file(target, reply);
            match std::fs::read(dir.join(&name)) {
                Ok(b) => {
                    f.loaded.push(name);
                    Ok(Some(Bytes::from(b)))
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e),
            }
        };
        let mut jsonrpc = jsonrpc_builtin();
        let mut rest = rest_builtin();
        let mut grpc = grpc_builtin();
        for (target, fx) in [("jsonrpc", &mut jsonrpc), ("rest", &mut rest)] {
            if let Some(b) = read(&format!("{target}-send"), "task")? {
                fx.send_task = b;
            }
            if let Some(b) = read(&format!("{target}-send"), "message")? {
                fx.send_message = b;
            }
            if let Some(b) = read(&format!("{target}-stream"), "task")? {
                fx.stream_task = blocks(&b);
            }
            if let Some(b) = read(&format!("{target}-stream"), "message")? {
                fx.stream_message = blocks(&b);
            }
        }
        let bad = |e: prost::DecodeError| std::io::Error::new(std::io::ErrorKind::InvalidData, e);
        if let Some(b) = read("grpc-send", "task")? {
            grpc.send_task = v1::SendMessageResponse::decode(b).map_err(bad)?;
        }
        if let Some(b) = read("grpc-send", "message")? {
            grpc.send_message = v1::SendMessageResponse::decode(b).map_err(bad)?;
        }
        if let Some(b) = read("grpc-stream", "task")? {
            grpc.stream_task = decode_delimited(b).map_err(bad)?;
        }
        if let Some(b) = read("grpc-stream", "message")? {
            grpc.stream_message = decode_delimited(b).map_err(bad)?;
        }
        f.jsonrpc = jsonrpc;
        f.rest = rest;
        f.grpc = grpc;
        Ok(f)
    }
}

/// A captured SSE body split into its event blocks, keep-alive comments
/// dropped.
fn blocks(body: &[u8]) -> Vec<Bytes> {
    SseCounter::split_blocks(body)
        .into_iter()
        .filter(|b| !b.starts_with(b":"))
        .map(Bytes::copy_from_slice)
        .collect()
}

/// Length-delimited `StreamResponse`s, as `bench --mode capture` writes a
/// gRPC stream.
fn decode_delimited(mut b: Bytes) -> Result<Vec<v1::StreamResponse>, prost::DecodeError> {
    let mut out = Vec::new();
    while !b.is_empty() {
        out.push(v1::StreamResponse::decode_length_delimited(&mut b)?);
    }
    Ok(out)
}

/// Encodes `items` length-delimited (the inverse of the capture's reader).
#[must_use]
pub fn encode_delimited(items: &[v1::StreamResponse]) -> Vec<u8> {
    let mut out = Vec::new();
    for i in items {
        // Writing into a Vec cannot run out of space.
        let _ = i.encode_length_delimited(&mut out);
    }
    out
}

fn sse(json: &serde_json::Value) -> Bytes {
    Bytes::from(format!("data: {json}\n\n"))
}

fn jsonrpc_builtin() -> HttpFixture {
    use serde_json::json;
    let user = json!({"kind": "message", "role": "user", "messageId": MESSAGE_ID,
        "parts": [{"kind": "text", "text": TEXT}], "contextId": CONTEXT_ID, "taskId": TASK_ID});
    let artifact = json!({"artifactId": ARTIFACT_ID, "name": "echo",
        "parts": [{"kind": "text", "text": TEXT}]});
    let status = |state: &str| json!({"state": state, "timestamp": TIMESTAMP});
    let task = |state: &str, artifacts: bool| {
        let mut t = json!({"kind": "task", "id": TASK_ID, "contextId": CONTEXT_ID,
            "status": status(state), "history": [user.clone()]});
        if artifacts {
            t["artifacts"] = json!([artifact.clone()]);
        }
        t
    };
    let reply = json!({"kind": "message", "role": "agent", "messageId": REPLY_ID,
        "parts": [{"kind": "text", "text": TEXT}], "contextId": CONTEXT_ID});
    let rpc = |result: serde_json::Value| json!({"jsonrpc": "2.0", "id": 1, "result": result});
    let update = |state: &str, fin: bool| {
        json!({"kind": "status-update", "taskId": TASK_ID, "contextId": CONTEXT_ID,
            "status": status(state), "final": fin})
    };
    HttpFixture {
        send_task: Bytes::from(rpc(task("completed", true)).to_string()),
        send_message: Bytes::from(rpc(reply.clone()).to_string()),
        stream_task: vec![
            sse(&rpc(task("submitted", false))),
            sse(&rpc(update("working", false))),
            sse(&rpc(json!({"kind": "artifact-update", "taskId": TASK_ID,
                "contextId": CONTEXT_ID, "artifact": artifact.clone(), "lastChunk": true}))),
            sse(&rpc(update("completed", true))),
        ],
        stream_message: vec![sse(&rpc(reply))],
    }
}

fn pb_text(text: &str) -> v1::Part {
    v1::Part {
        part: Some(v1::part::Part::Text(text.to_owned())),
        metadata: None,
    }
}

fn pb_status(state: v1::TaskState) -> v1::TaskStatus {
    v1::TaskStatus {
        state: state.into(),
        update: None,
        timestamp: Some(pbjson_types::Timestamp {
            seconds: 1_767_225_600,
            nanos: 0,
        }),
    }
}

fn pb_artifact() -> v1::Artifact {
    v1::Artifact {
        artifact_id: ARTIFACT_ID.to_owned(),
        name: "echo".to_owned(),
        parts: vec![pb_text(TEXT)],
        ..Default::default()
    }
}

fn pb_task(state: v1::TaskState, artifacts: bool) -> v1::Task {
    v1::Task {
        id: TASK_ID.to_owned(),
        context_id: CONTEXT_ID.to_owned(),
        status: Some(pb_status(state)),
        artifacts: if artifacts {
            vec![pb_artifact()]
        } else {
            Vec::new()
        },
        history: vec![v1::Message {
            message_id: MESSAGE_ID.to_owned(),
            context_id: CONTEXT_ID.to_owned(),
            task_id: TASK_ID.to_owned(),
            role: v1::Role::User.into(),
            content: vec![pb_text(TEXT)],
            ..Default::default()
        }],
        metadata: None,
    }
}

fn pb_reply() -> v1::Message {
    v1::Message {
        message_id: REPLY_ID.to_owned(),
        context_id: CONTEXT_ID.to_owned(),
        role: v1::Role::Agent.into(),
        content: vec![pb_text(TEXT)],
        ..Default::default()
    }
}

fn pb_stream_task() -> Vec<v1::StreamResponse> {
    use v1::stream_response::Payload;
    let update = |state, fin| {
        Payload::StatusUpdate(v1::TaskStatusUpdateEvent {
            task_id: TASK_ID.to_owned(),
            context_id: CONTEXT_ID.to_owned(),
            status: Some(pb_status(state)),
            r#final: fin,
            metadata: None,
        })
    };
    [
        Payload::Task(pb_task(v1::TaskState::Submitted, false)),
        update(v1::TaskState::Working, false),
        Payload::ArtifactUpdate(v1::TaskArtifactUpdateEvent {
            task_id: TASK_ID.to_owned(),
            context_id: CONTEXT_ID.to_owned(),
            artifact: Some(pb_artifact()),
            append: false,
            last_chunk: true,
            metadata: None,
        }),
        update(v1::TaskState::Completed, true),
    ]
    .into_iter()
    .map(|p| v1::StreamResponse { payload: Some(p) })
    .collect()
}

fn grpc_builtin() -> GrpcFixture {
    use v1::send_message_response::Payload;
    GrpcFixture {
        send_task: v1::SendMessageResponse {
            payload: Some(Payload::Task(pb_task(v1::TaskState::Completed, true))),
        },
        send_message: v1::SendMessageResponse {
            payload: Some(Payload::Msg(pb_reply())),
        },
        stream_task: pb_stream_task(),
        stream_message: vec![v1::StreamResponse {
            payload: Some(v1::stream_response::Payload::Msg(pb_reply())),
        }],
    }
}

fn proto_json<T: serde::Serialize>(v: &T) -> Bytes {
    Bytes::from(serde_json::to_vec(v).unwrap_or_default())
}

fn rest_builtin() -> HttpFixture {
    let g = grpc_builtin();
    let sse_pb = |items: &[v1::StreamResponse]| {
        items
            .iter()
            .map(|i| {
                let mut b = b"data: ".to_vec();
                b.extend_from_slice(&proto_json(i));
                b.extend_from_slice(b"\n\n");
                Bytes::from(b)
            })
            .collect()
    };
    HttpFixture {
        send_task: proto_json(&g.send_task),
        send_message: proto_json(&g.send_message),
        stream_task: sse_pb(&g.stream_task),
        stream_message: sse_pb(&g.stream_message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_have_the_expected_shape() {
        let f = Fixtures::builtin();
        assert_eq!(f.jsonrpc.stream_task.len(), 4);
        assert_eq!(f.rest.stream_task.len(), 4);
        assert_eq!(f.grpc.stream_task.len(), 4);
        let v: serde_json::Value = serde_json::from_slice(&f.jsonrpc.send_task).unwrap();
        assert_eq!(v["result"]["status"]["state"], "completed");
        let v: serde_json::Value = serde_json::from_slice(&f.rest.send_task).unwrap();
        assert!(v["task"]["status"]["state"].is_string(), "{v}");
        let round = decode_delimited(Bytes::from(encode_delimited(&f.grpc.stream_task))).unwrap();
        assert_eq!(round, f.grpc.stream_task);
    }

    #[test]
    fn loads_a_directory() {
        let dir = std::env::temp_dir().join(format!("a2a-bench-fx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("jsonrpc-send-task.json"), b"{\"x\":1}").unwrap();
        std::fs::write(
            dir.join("jsonrpc-stream-task.sse"),
            b": keep-alive\n\ndata: 1\n\ndata: 2\n\n",
        )
        .unwrap();
        let f = Fixtures::load(Some(&dir)).unwrap();
        assert_eq!(&f.jsonrpc.send_task[..], b"{\"x\":1}");
        assert_eq!(f.jsonrpc.stream_task.len(), 2);
        assert_eq!(f.loaded.len(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
