//! The HTTP+JSON binding on the wire: a real socket, raw HTTP with reqwest,
//! request bodies written as `json!` literals in protobuf JSON (never built
//! with our converters, so a conversion bug cannot hide on both sides), and
//! the answers checked key by key.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_core::test_util::ScriptedExecutor;
use a2a_core::{DefaultRequestHandler, DefaultRequestHandlerBuilder, PushSender};
use a2a_http_json::{RestConfig, router_with};
use a2a_types::{
    A2aError, AgentCard, FileContent, Message, Part, PushNotificationConfig, StreamResponse, Task,
    TaskState, TaskStatus, TaskStatusUpdateEvent,
};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::sync::Notify;

/// The bound of every wait in this file.
const WAIT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------
// Agents
// ---------------------------------------------------------------------------

fn card_json(name: &str, streaming: bool) -> Value {
    json!({
        "protocolVersion": "0.3.0",
        "name": name,
        "description": "An agent scripted by the REST wire tests",
        "url": "http://127.0.0.1/",
        "preferredTransport": "HTTP+JSON",
        "version": "1.0.0",
        "capabilities": {"streaming": streaming},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain", "application/json"],
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
        "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["test"]}]
    })
}

fn card(name: &str, streaming: bool) -> AgentCard {
    serde_json::from_value(card_json(name, streaming)).expect("a valid card")
}

fn builder(executor: ScriptedExecutor) -> DefaultRequestHandlerBuilder {
    DefaultRequestHandler::builder(card("wire-agent", true), executor)
}

/// Works, adds an artifact with the user's text, completes.
fn echo() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx, events| async move {
        let task = ctx.updater(events);
        task.start_work(None).await?;
        task.add_artifact(
            vec![Part::text(ctx.user_text())],
            "a-1",
            Some("echo"),
            false,
            true,
        )
        .await?;
        task.complete(None).await
    })
}

/// Answers with a direct Message describing what it received: every part,
/// the requested extensions and the `x-custom` header.
fn describer() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx, events| async move {
        let mut lines = Vec::new();
        for part in ctx
            .message
            .as_ref()
            .map(|m| m.parts.clone())
            .unwrap_or_default()
        {
            lines.push(match part {
                Part::Text(t) => format!("text:{}", t.text),
                Part::File(f) => match f.file {
                    FileContent::Bytes(b) => {
                        format!("bytes:{}:{}", b.bytes, b.mime_type.unwrap_or_default())
                    }
                    FileContent::Uri(u) => {
                        format!("uri:{}:{}", u.uri, u.mime_type.unwrap_or_default())
                    }
                },
                Part::Data(d) => format!("data:{}", Value::Object(d.data)),
            });
        }
        lines.push(format!("ext:{}", ctx.call.requested_extensions.join(",")));
        lines.push(format!(
            "custom:{}",
            ctx.call.headers.get("x-custom").map_or("-", String::as_str)
        ));
        let mut reply = Message::agent_text(a2a_core::new_id(), lines.join("\n"));
        reply.context_id = Some(ctx.context_id.clone());
        events.publish(StreamResponse::Message(reply)).await
    })
}

/// Asks a question on the first turn, completes on the second.
fn multi_turn() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx, events| async move {
        let task = ctx.updater(events);
        if ctx.task.is_none() {
            task.requires_input(task.agent_text("which one?")).await
        } else {
            task.add_artifact(
                vec![Part::text(ctx.user_text())],
                "answer",
                None,
                false,
                true,
            )
            .await?;
            task.complete(Some(task.agent_text("done"))).await
        }
    })
}

/// Works, then waits for `gate` (or a cancel) before completing.
fn gated(gate: Arc<Notify>) -> ScriptedExecutor {
    ScriptedExecutor::new(move |ctx, events| {
        let gate = Arc::clone(&gate);
        async move {
            let task = ctx.updater(events);
            task.start_work(None).await?;
            tokio::select! {
                () = gate.notified() => {}
                () = ctx.cancellation.cancelled() => return Ok(()),
                () = tokio::time::sleep(WAIT) => return task.fail(None).await,
            }
            task.add_artifact(vec![Part::text("late")], "a-1", None, false, true)
                .await?;
            task.complete(None).await
        }
    })
}

/// Publishes an event for another task: the engine refuses it.
fn wrong_task_id() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx, events| async move {
        events
            .publish(StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                task_id: "not-my-task".to_owned(),
                context_id: ctx.context_id.clone(),
                status: TaskStatus::new(TaskState::Working),
                is_final: false,
                metadata: None,
            }))
            .await
    })
}

/// A push sender that records what it was asked to deliver.
#[derive(Default)]
struct Recorder {
    sent: Mutex<Vec<(String, String, TaskState)>>,
}

#[async_trait::async_trait]
impl PushSender for Recorder {
    async fn send(&self, config: &PushNotificationConfig, task: &Task) -> Result<(), A2aError> {
        self.sent.lock().expect("lock").push((
            config.url.clone(),
            task.id.clone(),
            task.status.state,
        ));
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// The test client
// ---------------------------------------------------------------------------

struct Agent {
    base: String,
    http: reqwest::Client,
}

/// One answer: status, headers, body text and (if JSON) the body.
#[derive(Debug)]
struct Answer {
    status: StatusCode,
    content_type: String,
    json: Value,
}

/// One SSE event as this server writes it.
#[derive(Debug, Clone)]
struct SseEvent {
    /// The `event:` field, if any.
    name: Option<String>,
    /// The JSON of the single `data:` line.
    data: Value,
}

impl Agent {
    async fn start(handler: DefaultRequestHandler) -> Self {
        Self::start_with(handler, RestConfig::default()).await
    }

    async fn start_with(handler: DefaultRequestHandler, config: RestConfig) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("local addr");
        let app = router_with(Arc::new(handler), config);
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self {
            base: format!("http://{addr}"),
            http: reqwest::Client::new(),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Answer {
        let response = tokio::time::timeout(WAIT, request.send())
            .await
            .expect("answered in time")
            .expect("HTTP request");
        let status = response.status();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let text = tokio::time::timeout(WAIT, response.text())
            .await
            .expect("body in time")
            .expect("body");
        let json = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Answer {
            status,
            content_type,
            json,
        }
    }

    async fn post(&self, path: &str, body: &Value) -> Answer {
        self.send(
            self.http
                .post(self.url(path))
                .header("content-type", "application/json")
                .body(body.to_string()),
        )
        .await
    }

    async fn post_raw(&self, path: &str, body: &str, content_type: Option<&str>) -> Answer {
        let mut request = self.http.post(self.url(path)).body(body.to_owned());
        if let Some(ct) = content_type {
            request = request.header("content-type", ct);
        }
        self.send(request).await
    }

    async fn get(&self, path: &str) -> Answer {
        self.send(self.http.get(self.url(path))).await
    }

    async fn delete(&self, path: &str) -> Answer {
        self.send(self.http.delete(self.url(path))).await
    }

    /// A successful JSON answer's body.
    async fn ok_post(&self, path: &str, body: &Value) -> Value {
        let a = self.post(path, body).await;
        assert_eq!(a.status, 200, "POST {path}: {a:?}");
        assert_eq!(a.content_type, "application/json");
        assert_pure(&a.json);
        a.json
    }

    async fn ok_get(&self, path: &str) -> Value {
        let a = self.get(path).await;
        assert_eq!(a.status, 200, "GET {path}: {a:?}");
        assert_eq!(a.content_type, "application/json");
        a.json
    }

    /// Sends `text` and returns the task of the answer.
    async fn send_text(&self, text: &str, configuration: Value) -> Value {
        let mut body = json!({"message": user_message(text)});
        if !configuration.is_null() {
            body["configuration"] = configuration;
        }
        let answer = self.ok_post("/v1/message:send", &body).await;
        answer["task"].clone()
    }

    /// Opens a stream (`method` is GET or POST) and checks its headers.
    async fn open_stream(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
    ) -> SseReader {
        let mut request = self
            .http
            .request(method, self.url(path))
            .header("accept", "text/event-stream");
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        let response = tokio::time::timeout(WAIT, request.send())
            .await
            .expect("answered in time")
            .expect("HTTP request");
        let h = response.headers();
        assert_eq!(h["content-type"], "text/event-stream");
        assert_eq!(h["cache-control"], "no-store");
        assert_eq!(h["x-accel-buffering"], "no");
        SseReader {
            status: response.status(),
            response,
            buf: String::new(),
            comments: 0,
        }
    }
}

/// Reads SSE events one at a time from a live response.
struct SseReader {
    status: StatusCode,
    response: reqwest::Response,
    buf: String,
    comments: usize,
}

impl SseReader {
    /// The next event, or `None` at the end of the body.
    async fn next(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                let mut name = None;
                let mut data = Vec::new();
                for line in block.lines() {
                    if line.starts_with(':') {
                        self.comments += 1;
                    } else if let Some(v) = line.strip_prefix("event:") {
                        name = Some(v.trim().to_owned());
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push(v.trim_start().to_owned());
                    } else if !line.is_empty() {
                        panic!("unexpected SSE line {line:?}");
                    }
                }
                if data.is_empty() {
                    continue; // a comment-only block
                }
                assert_eq!(data.len(), 1, "one data line per event: {block:?}");
                let data: Value = serde_json::from_str(&data[0]).expect("JSON data");
                assert_pure(&data);
                return Some(SseEvent { name, data });
            }
            let chunk = tokio::time::timeout(WAIT, self.response.chunk())
                .await
                .expect("an event in time")
                .expect("the body");
            match chunk {
                Some(bytes) => self
                    .buf
                    .push_str(std::str::from_utf8(&bytes).expect("UTF-8")),
                None => {
                    assert!(self.buf.trim().is_empty(), "trailing bytes {:?}", self.buf);
                    return None;
                }
            }
        }
    }

    /// Every remaining event, until the server ends the stream.
    async fn rest(&mut self) -> Vec<SseEvent> {
        let mut out = Vec::new();
        for _ in 0..1000 {
            match self.next().await {
                Some(e) => out.push(e),
                None => return out,
            }
        }
        panic!("the stream did not end")
    }
}

fn user_message(text: &str) -> Value {
    json!({"messageId": a2a_core::new_id(), "role": "ROLE_USER", "content": [{"text": text}]})
}

/// Pure protobuf JSON: no JSON-RPC `kind`, no snake_case keys (the tests
/// use no snake_case metadata keys).
fn assert_pure(v: &Value) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                assert!(k != "kind", "`kind` in {map:?}");
                assert!(!k.contains('_'), "snake_case key {k:?} emitted");
                assert_pure(v);
            }
        }
        Value::Array(items) => items.iter().for_each(assert_pure),
        _ => {}
    }
}

/// Asserts our error body and status.
fn assert_error(a: &Answer, status: u16, name: &str, code: i64) {
    assert_eq!(a.status, status, "{a:?}");
    assert_eq!(a.content_type, "application/json", "{a:?}");
    assert_eq!(a.json["error"], name, "{a:?}");
    assert_eq!(a.json["code"], code, "{a:?}");
    assert!(
        a.json["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{a:?}"
    );
}

fn state(v: &Value) -> &str {
    v["status"]["state"].as_str().unwrap_or_default()
}

fn id_of(task: &Value) -> String {
    task["id"].as_str().expect("a task id").to_owned()
}

// ---------------------------------------------------------------------------
// Cards and routing
// ---------------------------------------------------------------------------

#[tokio::test]
async fn cards_are_served_in_the_json_schema_shape() {
    let agent = Agent::start(builder(echo()).build()).await;
    for path in [
        "/.well-known/agent-card.json",
        "/.well-known/agent.json",
        "/v1/card",
    ] {
        let card = agent.ok_get(path).await;
        assert_eq!(card["name"], "wire-agent", "{path}");
        assert_eq!(card["protocolVersion"], "0.3.0");
        assert_eq!(card["preferredTransport"], "HTTP+JSON");
        // The schema shape (type-tagged schemes), not the proto's oneof.
        assert_eq!(card["securitySchemes"]["key"]["type"], "apiKey");
        assert_eq!(card["securitySchemes"]["key"]["in"], "header");
        assert_eq!(card["capabilities"]["streaming"], true);
    }
}

#[tokio::test]
async fn v1_card_is_the_extended_card_when_configured() {
    let handler = builder(echo())
        .extended_agent_card(card("wire-agent-extended", true))
        .build();
    let agent = Agent::start(handler).await;
    let public = agent.ok_get("/.well-known/agent-card.json").await;
    assert_eq!(public["name"], "wire-agent");
    assert_eq!(public["supportsAuthenticatedExtendedCard"], true);
    let extended = agent.ok_get("/v1/card").await;
    assert_eq!(extended["name"], "wire-agent-extended");
}

#[tokio::test]
async fn unknown_routes_and_methods_are_method_not_found() {
    let agent = Agent::start(builder(echo()).build()).await;
    assert_error(
        &agent.get("/v1/tasks").await,
        501,
        "MethodNotFoundError",
        -32601,
    );
    assert_error(
        &agent.get("/nowhere").await,
        501,
        "MethodNotFoundError",
        -32601,
    );
    assert_error(
        &agent.delete("/v1/message:send").await,
        501,
        "MethodNotFoundError",
        -32601,
    );
    assert_error(
        &agent.get("/v1/tasks/t-1:cancel").await,
        501,
        "MethodNotFoundError",
        -32601,
    );
    assert_error(
        &agent.delete("/v1/tasks/t-1").await,
        501,
        "MethodNotFoundError",
        -32601,
    );
    assert_error(
        &agent.get("/v1/tasks/t-1/other").await,
        501,
        "MethodNotFoundError",
        -32601,
    );
}

// ---------------------------------------------------------------------------
// message:send
// ---------------------------------------------------------------------------

#[tokio::test]
async fn send_returns_the_completed_task_in_pure_proto_json() {
    let agent = Agent::start(builder(echo()).build()).await;
    let answer = agent
        .ok_post(
            "/v1/message:send",
            &json!({
                "message": {"messageId": "m-1", "role": "ROLE_USER", "content": [{"text": "hello"}]},
                "configuration": {"blocking": true, "acceptedOutputModes": ["text/plain"]}
            }),
        )
        .await;
    let keys: Vec<&String> = answer.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["task"]);
    let task = &answer["task"];
    assert_eq!(state(task), "TASK_STATE_COMPLETED");
    assert!(task["contextId"].as_str().is_some_and(|c| !c.is_empty()));
    let ts = task["status"]["timestamp"].as_str().expect("a timestamp");
    assert!(ts.ends_with('Z'), "{ts}");
    assert_eq!(task["artifacts"][0]["artifactId"], "a-1");
    assert_eq!(task["artifacts"][0]["name"], "echo");
    assert_eq!(task["artifacts"][0]["parts"], json!([{"text": "hello"}]));
    let first = &task["history"][0];
    assert_eq!(first["messageId"], "m-1");
    assert_eq!(first["role"], "ROLE_USER");
    assert_eq!(first["content"], json!([{"text": "hello"}]));
    assert_eq!(first["taskId"], task["id"]);
}

#[tokio::test]
async fn send_without_configuration_blocks_and_with_configuration_without_blocking_does_not() {
    let gate = Arc::new(Notify::new());
    let agent = Agent::start(builder(gated(Arc::clone(&gate))).build()).await;

    // A configuration without `blocking` (how the Python SDK writes `false`):
    // the answer comes before the agent finishes.
    let task = agent
        .send_text("wait", json!({"acceptedOutputModes": ["text/plain"]}))
        .await;
    assert!(
        ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"].contains(&state(&task)),
        "{task}"
    );
    let id = id_of(&task);
    gate.notify_one();
    let mut done = Value::Null;
    for _ in 0..200 {
        done = agent.ok_get(&format!("/v1/tasks/{id}")).await;
        if state(&done) == "TASK_STATE_COMPLETED" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(state(&done), "TASK_STATE_COMPLETED");

    // No configuration at all: blocking, the engine default. The gate is
    // opened while the call is waiting.
    let opener = {
        let gate = Arc::clone(&gate);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            gate.notify_one();
        })
    };
    let task = agent.send_text("wait", Value::Null).await;
    assert_eq!(state(&task), "TASK_STATE_COMPLETED");
    opener.await.expect("opener");

    // `blocking: false` explicitly.
    let task = agent.send_text("wait", json!({"blocking": false})).await;
    assert_ne!(state(&task), "TASK_STATE_COMPLETED");
    gate.notify_one();
}

#[tokio::test]
async fn send_accepts_snake_case_enum_numbers_and_unknown_fields() {
    let agent = Agent::start(builder(echo()).build()).await;
    let answer = agent
        .ok_post(
            "/v1/message:send",
            &json!({
                "request": {
                    "message_id": "m-snake", "context_id": "ctx-1", "role": 1,
                    "content": [{"text": "snake", "metadata": {"k": "v"}}],
                    "kind": "message", "referenceTaskIds": ["x"], "unknownKey": {"deep": [1, 2]}
                },
                "configuration": {"accepted_output_modes": ["text/plain"], "history_length": 1, "blocking": true},
                "metadata": {"trace": "t-1"},
                "extra": true
            }),
        )
        .await;
    let task = &answer["task"];
    assert_eq!(state(task), "TASK_STATE_COMPLETED");
    assert_eq!(task["contextId"], "ctx-1");
    assert_eq!(task["history"].as_array().map(Vec::len), Some(1));
    assert_eq!(task["history"][0]["messageId"], "m-snake");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "snake");
}

#[tokio::test]
async fn send_accepts_both_file_members_and_nested_or_bare_data_parts() {
    let agent = Agent::start(builder(describer()).build()).await;
    let answer = agent
        .ok_post(
            "/v1/message:send",
            &json!({"message": {"message_id": "m-f", "role": "ROLE_USER", "content": [
                {"file": {"mime_type": "text/plain", "file_with_uri": "", "file_with_bytes": "aGk="}},
                {"file": {"mimeType": "image/png", "fileWithUri": "https://x/y.png", "fileWithBytes": ""}},
                {"data": {"data": {"n": 1, "s": "x"}}},
                {"data": {"bare": true}},
                {"text": "t"}
            ]}}),
        )
        .await;
    let message = &answer["message"];
    assert_eq!(message["role"], "ROLE_AGENT");
    let text = message["content"][0]["text"].as_str().expect("text");
    let lines: Vec<&str> = text.lines().collect();
    // The bytes arrive as the base64 text (the Python SDK's convention).
    assert_eq!(lines[0], "bytes:aGk=:text/plain");
    assert_eq!(lines[1], "uri:https://x/y.png:image/png");
    assert_eq!(lines[2], r#"data:{"n":1,"s":"x"}"#);
    assert_eq!(lines[3], r#"data:{"bare":true}"#);
    assert_eq!(lines[4], "text:t");
}

#[tokio::test]
async fn send_passes_extensions_and_headers_to_the_call_context() {
    let agent = Agent::start(builder(describer()).build()).await;
    let a = agent
        .send(
            agent
                .http
                .post(agent.url("/v1/message:send"))
                .header("content-type", "application/json; charset=utf-8")
                .header("x-a2a-extensions", "urn:a, urn:b")
                .header("x-custom", "42")
                .body(json!({"message": user_message("x")}).to_string()),
        )
        .await;
    assert_eq!(a.status, 200, "{a:?}");
    let text = a.json["message"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(text.contains("ext:urn:a,urn:b"), "{text}");
    assert!(text.contains("custom:42"), "{text}");
}

#[tokio::test]
async fn a_message_reply_is_a_message_payload() {
    let agent = Agent::start(builder(describer()).build()).await;
    let answer = agent
        .ok_post("/v1/message:send", &json!({"message": user_message("hi")}))
        .await;
    let keys: Vec<&String> = answer.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["message"]);
    assert_eq!(answer["message"]["role"], "ROLE_AGENT");
    assert!(answer["message"]["contextId"].as_str().is_some());
}

#[tokio::test]
async fn multi_turn_continues_the_same_task() {
    let agent = Agent::start(builder(multi_turn()).build()).await;
    let first = agent.send_text("start", json!({"blocking": true})).await;
    assert_eq!(state(&first), "TASK_STATE_INPUT_REQUIRED");
    assert_eq!(
        first["status"]["message"]["content"][0]["text"],
        "which one?"
    );
    let id = id_of(&first);
    let answer = agent
        .ok_post(
            "/v1/message:send",
            &json!({
                "message": {"messageId": "m-2", "role": "ROLE_USER", "taskId": id,
                            "contextId": first["contextId"], "content": [{"text": "the blue one"}]},
                "configuration": {"blocking": true}
            }),
        )
        .await;
    let second = &answer["task"];
    assert_eq!(second["id"], first["id"]);
    assert_eq!(state(second), "TASK_STATE_COMPLETED");
    assert_eq!(second["artifacts"][0]["parts"][0]["text"], "the blue one");
    let history = second["history"].as_array().expect("history");
    assert!(history.len() >= 3, "{history:?}");

    // A terminal task takes no more messages.
    let again = agent
        .post(
            "/v1/message:send",
            &json!({"message": {"messageId": "m-3", "role": "ROLE_USER", "taskId": id, "content": [{"text": "more"}]}}),
        )
        .await;
    assert_error(&again, 422, "InvalidParamsError", -32602);
    // An unknown task id is TaskNotFound.
    let unknown = agent
        .post(
            "/v1/message:send",
            &json!({"message": {"messageId": "m-4", "role": "ROLE_USER", "taskId": "nope", "content": [{"text": "x"}]}}),
        )
        .await;
    assert_error(&unknown, 404, "TaskNotFoundError", -32001);
}

#[tokio::test]
async fn malformed_bodies_are_400_and_wrong_content_types_415() {
    let agent = Agent::start(builder(echo()).build()).await;
    let path = "/v1/message:send";
    let a = agent
        .post_raw(path, "{not json", Some("application/json"))
        .await;
    assert_error(&a, 400, "JSONParseError", -32700);
    assert!(
        a.json["message"]
            .as_str()
            .is_some_and(|m| m.contains("Invalid JSON"))
    );
    assert_error(
        &agent.post_raw(path, "", Some("application/json")).await,
        400,
        "JSONParseError",
        -32700,
    );
    assert_error(
        &agent.post_raw(path, "[1,2]", None).await,
        400,
        "InvalidRequestError",
        -32600,
    );
    let wrong_shape = agent
        .post(
            path,
            &json!({"message": {"messageId": "m", "role": "ROLE_USER", "content": "hi"}}),
        )
        .await;
    assert_error(&wrong_shape, 400, "InvalidRequestError", -32600);
    assert!(
        wrong_shape.json["message"]
            .as_str()
            .is_some_and(|m| m.contains("content")),
        "names the member: {wrong_shape:?}"
    );
    let bad_enum = agent
        .post(path, &json!({"message": {"messageId": "m", "role": "ROLE_KING", "content": [{"text": "x"}]}}))
        .await;
    assert_error(&bad_enum, 400, "InvalidRequestError", -32600);
    // Valid shape, invalid values: 422.
    assert_error(
        &agent.post(path, &json!({})).await,
        422,
        "InvalidParamsError",
        -32602,
    );
    let no_role = agent
        .post(
            path,
            &json!({"message": {"messageId": "m", "content": [{"text": "x"}]}}),
        )
        .await;
    assert_error(&no_role, 422, "InvalidParamsError", -32602);
    let agent_role = agent
        .post(
            path,
            &json!({"message": {"messageId": "m", "role": 2, "content": [{"text": "x"}]}}),
        )
        .await;
    assert_error(&agent_role, 422, "InvalidParamsError", -32602);
    // Content types.
    let body = json!({"message": user_message("x")}).to_string();
    assert_error(
        &agent.post_raw(path, &body, Some("text/plain")).await,
        415,
        "ContentTypeNotSupportedError",
        -32005,
    );
    assert_error(
        &agent
            .post_raw(path, &body, Some("application/x-www-form-urlencoded"))
            .await,
        415,
        "ContentTypeNotSupportedError",
        -32005,
    );
    let ok = agent.post_raw(path, &body, None).await;
    assert_eq!(ok.status, 200, "no Content-Type is accepted: {ok:?}");
    let ok = agent
        .post_raw(path, &body, Some("application/a2a+json"))
        .await;
    assert_eq!(ok.status, 200, "{ok:?}");
}

#[tokio::test]
async fn oversized_bodies_are_refused() {
    let config = RestConfig {
        body_limit: 256,
        ..Default::default()
    };
    let agent = Agent::start_with(builder(echo()).build(), config).await;
    let body = json!({"message": user_message(&"x".repeat(1000))});
    let a = agent.post("/v1/message:send", &body).await;
    assert_error(&a, 400, "InvalidRequestError", -32600);
    assert!(
        a.json["message"]
            .as_str()
            .is_some_and(|m| m.contains("Payload too large"))
    );
}

#[tokio::test]
async fn an_agent_publishing_a_wrong_task_id_is_502() {
    let agent = Agent::start(builder(wrong_task_id()).build()).await;
    let a = agent
        .post("/v1/message:send", &json!({"message": user_message("x")}))
        .await;
    assert_error(&a, 502, "InvalidAgentResponseError", -32006);
}

// ---------------------------------------------------------------------------
// tasks/{id}, :cancel
// ---------------------------------------------------------------------------

#[tokio::test]
async fn get_task_honours_both_history_length_spellings() {
    let agent = Agent::start(builder(multi_turn()).build()).await;
    let first = agent.send_text("one", json!({"blocking": true})).await;
    let id = id_of(&first);
    agent
        .ok_post(
            "/v1/message:send",
            &json!({"message": {"messageId": "m-2", "role": "ROLE_USER", "taskId": id, "content": [{"text": "two"}]},
                    "configuration": {"blocking": true}}),
        )
        .await;
    let all = agent.ok_get(&format!("/v1/tasks/{id}")).await;
    let n = all["history"].as_array().expect("history").len();
    assert!(n >= 3, "{all}");
    let zero = agent
        .ok_get(&format!("/v1/tasks/{id}?historyLength=0"))
        .await;
    assert_eq!(
        zero["history"].as_array().map(Vec::len),
        Some(n),
        "0 means all"
    );
    let one = agent
        .ok_get(&format!("/v1/tasks/{id}?historyLength=1"))
        .await;
    assert_eq!(one["history"].as_array().map(Vec::len), Some(1));
    let two = agent
        .ok_get(&format!("/v1/tasks/{id}?history_length=2"))
        .await;
    assert_eq!(two["history"].as_array().map(Vec::len), Some(2));
    assert_eq!(two["id"], json!(id));
    assert!(
        two["status"]["timestamp"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z'))
    );
    assert_pure(&two);

    assert_error(
        &agent
            .get(&format!("/v1/tasks/{id}?historyLength=abc"))
            .await,
        422,
        "InvalidParamsError",
        -32602,
    );
    assert_error(
        &agent.get(&format!("/v1/tasks/{id}?historyLength=-1")).await,
        422,
        "InvalidParamsError",
        -32602,
    );
    let missing = agent.get("/v1/tasks/a%3Ab").await;
    assert_error(&missing, 404, "TaskNotFoundError", -32001);
    assert!(
        missing.json["message"]
            .as_str()
            .is_some_and(|m| m.contains("a:b")),
        "{missing:?}"
    );
}

#[tokio::test]
async fn cancel_accepts_any_body_and_a_terminal_task_is_409() {
    let gate = Arc::new(Notify::new());
    let agent = Agent::start(builder(gated(Arc::clone(&gate))).build()).await;
    let task = agent.send_text("wait", json!({"blocking": false})).await;
    let id = id_of(&task);

    // No body and no Content-Type, as the TCK sends it.
    let canceled = agent
        .send(
            agent
                .http
                .post(agent.url(&format!("/v1/tasks/{id}:cancel"))),
        )
        .await;
    assert_eq!(canceled.status, 200, "{canceled:?}");
    assert_eq!(state(&canceled.json), "TASK_STATE_CANCELLED");
    assert_pure(&canceled.json);
    let got = agent.ok_get(&format!("/v1/tasks/{id}")).await;
    assert_eq!(state(&got), "TASK_STATE_CANCELLED");

    // The Python SDK's body, and garbage: both ignored; the task is terminal.
    let again = agent
        .post(
            &format!("/v1/tasks/{id}:cancel"),
            &json!({"name": format!("tasks/{id}")}),
        )
        .await;
    assert_error(&again, 409, "TaskNotCancelableError", -32002);
    let garbage = agent
        .post_raw(&format!("/v1/tasks/{id}:cancel"), "{{{", Some("text/plain"))
        .await;
    assert_error(&garbage, 409, "TaskNotCancelableError", -32002);
    assert_error(
        &agent.post("/v1/tasks/nope:cancel", &json!({})).await,
        404,
        "TaskNotFoundError",
        -32001,
    );
}

// ---------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------

#[tokio::test]
async fn stream_sends_task_then_updates_and_ends_after_the_final_event() {
    let agent = Agent::start(builder(echo()).build()).await;
    let mut sse = agent
        .open_stream(
            reqwest::Method::POST,
            "/v1/message:stream",
            Some(&json!({"message": user_message("streamed")})),
        )
        .await;
    assert_eq!(sse.status, 200);
    let events = sse.rest().await;
    let kinds: Vec<String> = events
        .iter()
        .map(|e| {
            assert!(e.name.is_none(), "{e:?}");
            let keys: Vec<&String> = e.data.as_object().expect("object").keys().collect();
            assert_eq!(keys.len(), 1, "{e:?}");
            keys[0].clone()
        })
        .collect();
    assert_eq!(
        kinds,
        ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]
    );
    let task_id = events[0].data["task"]["id"].clone();
    assert_eq!(state(&events[0].data["task"]), "TASK_STATE_SUBMITTED");
    assert_eq!(
        events[1].data["statusUpdate"]["status"]["state"],
        "TASK_STATE_WORKING"
    );
    assert_eq!(events[1].data["statusUpdate"]["taskId"], task_id);
    let artifact = &events[2].data["artifactUpdate"];
    assert_eq!(artifact["artifact"]["parts"], json!([{"text": "streamed"}]));
    assert_eq!(artifact["lastChunk"], true);
    let last = &events[3].data["statusUpdate"];
    assert_eq!(last["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(last["final"], true);
    assert!(
        last["status"]["timestamp"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z'))
    );
}

#[tokio::test]
async fn stream_of_a_message_reply_is_one_event() {
    let agent = Agent::start(builder(describer()).build()).await;
    let mut sse = agent
        .open_stream(
            reqwest::Method::POST,
            "/v1/message:stream",
            Some(&json!({"message": user_message("hi")})),
        )
        .await;
    let events = sse.rest().await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].data["message"]["role"], "ROLE_AGENT");
}

#[tokio::test]
async fn stream_errors_are_sse_error_events_with_the_table_status() {
    let agent = Agent::start(builder(echo()).build()).await;
    let mut sse = agent
        .open_stream(
            reqwest::Method::POST,
            "/v1/message:stream",
            Some(&json!({"message": {"messageId": "m", "role": "ROLE_USER", "taskId": "nope", "content": [{"text": "x"}]}})),
        )
        .await;
    assert_eq!(sse.status, 404);
    let events = sse.rest().await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].name.as_deref(), Some("error"));
    assert_eq!(events[0].data["error"], "TaskNotFoundError");
    assert_eq!(events[0].data["code"], -32001);

    let mut sse = agent
        .open_stream(reqwest::Method::POST, "/v1/message:stream", None)
        .await;
    assert_eq!(sse.status, 400);
    let events = sse.rest().await;
    assert_eq!(events[0].data["error"], "JSONParseError");

    let mut sse = agent
        .open_stream(reqwest::Method::GET, "/v1/tasks/nope:subscribe", None)
        .await;
    assert_eq!(sse.status, 404);
    assert_eq!(sse.rest().await[0].data["code"], -32001);

    // Streaming switched off in the card: UnsupportedOperation.
    let handler = DefaultRequestHandler::builder(card("no-stream", false), echo()).build();
    let agent = Agent::start(handler).await;
    let mut sse = agent
        .open_stream(
            reqwest::Method::POST,
            "/v1/message:stream",
            Some(&json!({"message": user_message("x")})),
        )
        .await;
    assert_eq!(sse.status, 501);
    let events = sse.rest().await;
    assert_eq!(events[0].data["error"], "UnsupportedOperationError");
}

#[tokio::test]
async fn an_error_during_a_stream_is_its_last_event() {
    let agent = Agent::start(builder(wrong_task_id()).build()).await;
    let mut sse = agent
        .open_stream(
            reqwest::Method::POST,
            "/v1/message:stream",
            Some(&json!({"message": user_message("x")})),
        )
        .await;
    let events = sse.rest().await;
    let last = events.last().expect("an event");
    assert_eq!(last.name.as_deref(), Some("error"), "{events:?}");
    assert_eq!(last.data["code"], -32006);
}

#[tokio::test]
async fn subscribe_with_get_and_post_sends_the_snapshot_then_live_events() {
    for method in [reqwest::Method::GET, reqwest::Method::POST] {
        let gate = Arc::new(Notify::new());
        let config = RestConfig {
            keep_alive: Duration::from_millis(50),
            ..Default::default()
        };
        let agent = Agent::start_with(builder(gated(Arc::clone(&gate))).build(), config).await;
        let task = agent.send_text("wait", json!({"blocking": false})).await;
        let id = id_of(&task);

        let mut sse = agent
            .open_stream(method.clone(), &format!("/v1/tasks/{id}:subscribe"), None)
            .await;
        assert_eq!(sse.status, 200);
        let first = sse.next().await.expect("the snapshot");
        assert_eq!(first.data["task"]["id"], json!(id), "{method}");
        assert_eq!(state(&first.data["task"]), "TASK_STATE_WORKING");
        // Idle long enough for a keep-alive comment.
        tokio::time::sleep(Duration::from_millis(150)).await;
        gate.notify_one();
        let rest = sse.rest().await;
        assert!(sse.comments >= 1, "a keep-alive comment");
        let kinds: Vec<&str> = rest
            .iter()
            .map(|e| {
                e.data
                    .as_object()
                    .expect("object")
                    .keys()
                    .next()
                    .expect("key")
                    .as_str()
            })
            .collect();
        assert_eq!(kinds, ["artifactUpdate", "statusUpdate"], "{method}");
        assert_eq!(rest[1].data["statusUpdate"]["final"], true);

        // A terminal task: the snapshot alone.
        let mut sse = agent
            .open_stream(method.clone(), &format!("/v1/tasks/{id}:subscribe"), None)
            .await;
        let events = sse.rest().await;
        assert_eq!(events.len(), 1);
        assert_eq!(state(&events[0].data["task"]), "TASK_STATE_COMPLETED");
    }
}

// ---------------------------------------------------------------------------
// Push notification configs
// ---------------------------------------------------------------------------

#[tokio::test]
async fn push_config_operations_without_a_sender_are_501() {
    let agent = Agent::start(builder(multi_turn()).build()).await;
    let task = agent.send_text("start", json!({"blocking": true})).await;
    let id = id_of(&task);
    let base = format!("/v1/tasks/{id}/pushNotificationConfigs");
    let create = agent
        .post(
            &base,
            &json!({"pushNotificationConfig": {"url": "http://127.0.0.1:9/hook"}}),
        )
        .await;
    assert_error(&create, 501, "PushNotificationNotSupportedError", -32003);
    assert_error(
        &agent.get(&base).await,
        501,
        "PushNotificationNotSupportedError",
        -32003,
    );
    assert_error(
        &agent.get(&format!("{base}/c")).await,
        501,
        "PushNotificationNotSupportedError",
        -32003,
    );
    assert_error(
        &agent.delete(&format!("{base}/c")).await,
        501,
        "PushNotificationNotSupportedError",
        -32003,
    );
    // In the send configuration too.
    let send = agent
        .post(
            "/v1/message:send",
            &json!({"message": user_message("x"),
                    "configuration": {"pushNotification": {"url": "http://127.0.0.1:9/hook"}}}),
        )
        .await;
    assert_error(&send, 501, "PushNotificationNotSupportedError", -32003);
}

#[tokio::test]
async fn push_configs_in_every_body_shape_and_path() {
    let recorder = Arc::new(Recorder::default());
    let handler = builder(multi_turn())
        .push_sender(Arc::clone(&recorder) as Arc<dyn PushSender>)
        .build();
    let agent = Agent::start(handler).await;
    let task = agent.send_text("start", json!({"blocking": true})).await;
    let id = id_of(&task);
    let base = format!("/v1/tasks/{id}/pushNotificationConfigs");

    // 1. The bare TaskPushNotificationConfig (the proto's `body: "config"`).
    let a = agent
        .ok_post(
            &base,
            &json!({"pushNotificationConfig": {"id": "bare", "url": "http://127.0.0.1:9/bare", "token": "tok"}}),
        )
        .await;
    assert_eq!(
        a["name"],
        format!("tasks/{id}/pushNotificationConfigs/bare")
    );
    assert_eq!(a["pushNotificationConfig"]["id"], "bare");
    assert_eq!(a["pushNotificationConfig"]["token"], "tok");

    // 2. The whole request, camelCase, as the Python SDK client sends it.
    let b = agent
        .ok_post(
            &base,
            &json!({"parent": format!("tasks/{id}"), "configId": "full",
                    "config": {"name": format!("tasks/{id}/pushNotificationConfigs/full"),
                               "pushNotificationConfig": {"url": "http://127.0.0.1:9/full",
                                   "authentication": {"schemes": ["Bearer"], "credentials": "c"}}}}),
        )
        .await;
    assert_eq!(
        b["name"],
        format!("tasks/{id}/pushNotificationConfigs/full")
    );
    assert_eq!(
        b["pushNotificationConfig"]["authentication"]["schemes"],
        json!(["Bearer"])
    );

    // 3. The whole request in snake_case (the TCK), on the typo path.
    let c = agent
        .ok_post(
            &format!("/v1/task/{id}/pushNotificationConfigs"),
            &json!({"parent": format!("tasks/{id}"), "config_id": "snake",
                    "config": {"name": "", "push_notification_config": {"url": "http://127.0.0.1:9/snake"}}}),
        )
        .await;
    assert_eq!(c["pushNotificationConfig"]["id"], "snake");

    // 4. The Python SDK without an id: `None` is not an id; the server assigns one.
    let d = agent
        .ok_post(
            &base,
            &json!({"parent": format!("tasks/{id}"),
                    "config": {"name": format!("tasks/{id}/pushNotificationConfigs/None"),
                               "pushNotificationConfig": {"url": "http://127.0.0.1:9/none"}}}),
        )
        .await;
    let assigned = d["pushNotificationConfig"]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    assert!(!assigned.is_empty() && assigned != "None", "{d}");
    assert_eq!(
        d["name"],
        format!("tasks/{id}/pushNotificationConfigs/{assigned}")
    );

    // 5. A bare PushNotificationConfig.
    let e = agent
        .ok_post(
            &base,
            &json!({"id": "plain", "url": "http://127.0.0.1:9/plain"}),
        )
        .await;
    assert_eq!(
        e["pushNotificationConfig"]["url"],
        "http://127.0.0.1:9/plain"
    );

    // Get, list, delete.
    let got = agent.ok_get(&format!("{base}/full")).await;
    assert_eq!(
        got["pushNotificationConfig"]["url"],
        "http://127.0.0.1:9/full"
    );
    let default = agent.ok_get(&format!("{base}/None")).await;
    assert_eq!(default["pushNotificationConfig"]["id"], json!(assigned));
    let list = agent.ok_get(&base).await;
    let keys: Vec<&String> = list.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["configs"]);
    let mut ids: Vec<&str> = list["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .map(|c| c["pushNotificationConfig"]["id"].as_str().expect("id"))
        .collect();
    ids.sort_unstable();
    let mut expected = vec!["bare", "full", "snake", "plain", assigned.as_str()];
    expected.sort_unstable();
    assert_eq!(ids, expected);
    let deleted = agent.delete(&format!("{base}/bare")).await;
    assert_eq!(deleted.status, 200, "{deleted:?}");
    assert_eq!(deleted.json, json!({}));
    assert_error(
        &agent.get(&format!("{base}/bare")).await,
        422,
        "InvalidParamsError",
        -32602,
    );
    assert_error(
        &agent.delete(&format!("{base}/bare")).await,
        422,
        "InvalidParamsError",
        -32602,
    );
    let list = agent.ok_get(&base).await;
    assert_eq!(list["configs"].as_array().map(Vec::len), Some(4));

    // Errors: another task in `parent`, an unknown task, a bad URL, bad JSON.
    let other = agent
        .post(&base, &json!({"parent": "tasks/other", "config": {"pushNotificationConfig": {"url": "http://h/"}}}))
        .await;
    assert_error(&other, 422, "InvalidParamsError", -32602);
    let unknown = agent
        .post(
            "/v1/tasks/nope/pushNotificationConfigs",
            &json!({"pushNotificationConfig": {"url": "http://h/"}}),
        )
        .await;
    assert_error(&unknown, 404, "TaskNotFoundError", -32001);
    assert_error(
        &agent.get("/v1/tasks/nope/pushNotificationConfigs").await,
        404,
        "TaskNotFoundError",
        -32001,
    );
    let bad_url = agent
        .post(
            &base,
            &json!({"pushNotificationConfig": {"url": "ftp://h/"}}),
        )
        .await;
    assert_error(&bad_url, 422, "InvalidParamsError", -32602);
    assert_error(
        &agent.post_raw(&base, "{", Some("application/json")).await,
        400,
        "JSONParseError",
        -32700,
    );
    assert_error(
        &agent.post_raw(&base, "{}", Some("text/plain")).await,
        415,
        "ContentTypeNotSupportedError",
        -32005,
    );

    // The configs are used: the follow-up's updates are pushed to each URL.
    agent
        .ok_post(
            "/v1/message:send",
            &json!({"message": {"messageId": "m-2", "role": "ROLE_USER", "taskId": id, "content": [{"text": "go"}]},
                    "configuration": {"blocking": true}}),
        )
        .await;
    let mut delivered = false;
    for _ in 0..200 {
        let sent = recorder.sent.lock().expect("lock").clone();
        delivered = sent.iter().any(|(url, task, state)| {
            url == "http://127.0.0.1:9/full" && *task == id && *state == TaskState::Completed
        });
        if delivered {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        delivered,
        "the completed task was pushed to the `full` config"
    );
}
