//! The JSON-RPC binding on the wire: a real socket, raw HTTP with reqwest,
//! request bodies written as `json!` literals (never built from our serde
//! types, so a serde bug cannot hide on both sides), and every JSON object
//! the server emits (responses, SSE events, the card) checked against the
//! v0.3.0 JSON Schema.
//!
//! The schema is read from `../shared/reference/a2a-v0.3.0/a2a.schema.json`
//! beside the repository (or `$A2A_REFERENCE_DIR/a2a.schema.json`). Under
//! `CI=true` a missing file is a failure; elsewhere the schema checks print
//! `SKIPPED` and the wire checks still run.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use a2a_core::test_util::ScriptedExecutor;
use a2a_core::{DefaultRequestHandler, DefaultRequestHandlerBuilder, PushSender};
use a2a_jsonrpc::{JsonRpcConfig, router_with};
use a2a_types::{
    A2aError, AgentCard, Message, Part, PushNotificationConfig, StreamResponse, Task, TaskState,
    TaskStatus, TaskStatusUpdateEvent,
};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// The bound of every wait in this file.
const WAIT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------
// Schema
// ---------------------------------------------------------------------------

struct Schema {
    root: Value,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

fn schema() -> Option<&'static Schema> {
    static SCHEMA: OnceLock<Option<Schema>> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let dir = std::env::var_os("A2A_REFERENCE_DIR").map_or_else(
                || {
                    PathBuf::from(concat!(
                        env!("CARGO_MANIFEST_DIR"),
                        "/../../../shared/reference/a2a-v0.3.0"
                    ))
                },
                PathBuf::from,
            );
            let path = dir.join("a2a.schema.json");
            match std::fs::read_to_string(&path) {
                Ok(text) => Some(Schema {
                    root: serde_json::from_str(&text).expect("the schema is JSON"),
                    validators: Mutex::new(HashMap::new()),
                }),
                Err(e) => {
                    assert!(
                        std::env::var("CI").as_deref() != Ok("true"),
                        "JSON Schema not found at {} ({e}); set A2A_REFERENCE_DIR",
                        path.display()
                    );
                    eprintln!(
                        "SKIPPED: schema checks (JSON Schema not found at {})",
                        path.display()
                    );
                    None
                }
            }
        })
        .as_ref()
}

/// Asserts that `value` is valid against `#/definitions/{definition}`.
fn assert_schema(definition: &str, value: &Value) {
    let Some(schema) = schema() else { return };
    let validator = {
        let mut cache = schema.validators.lock().expect("lock");
        Arc::clone(cache.entry(definition.to_owned()).or_insert_with(|| {
            let mut s = schema.root.clone();
            s["$ref"] = Value::String(format!("#/definitions/{definition}"));
            Arc::new(jsonschema::validator_for(&s).expect("the schema compiles"))
        }))
    };
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{e} (at {})", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "not a valid {definition}: {errors:#?}\n{value:#}"
    );
}

fn success_definition(method: &str) -> Option<&'static str> {
    Some(match method {
        "message/send" => "SendMessageSuccessResponse",
        "message/stream" | "tasks/resubscribe" => "SendStreamingMessageSuccessResponse",
        "tasks/get" => "GetTaskSuccessResponse",
        "tasks/cancel" => "CancelTaskSuccessResponse",
        "tasks/pushNotificationConfig/set" => "SetTaskPushNotificationConfigSuccessResponse",
        "tasks/pushNotificationConfig/get" => "GetTaskPushNotificationConfigSuccessResponse",
        "tasks/pushNotificationConfig/list" => "ListTaskPushNotificationConfigSuccessResponse",
        "tasks/pushNotificationConfig/delete" => "DeleteTaskPushNotificationConfigSuccessResponse",
        "agent/getAuthenticatedExtendedCard" => "GetAuthenticatedExtendedCardSuccessResponse",
        _ => return None,
    })
}

fn error_definition(code: i64) -> &'static str {
    match code {
        -32700 => "JSONParseError",
        -32600 => "InvalidRequestError",
        -32601 => "MethodNotFoundError",
        -32602 => "InvalidParamsError",
        -32603 => "InternalError",
        -32001 => "TaskNotFoundError",
        -32002 => "TaskNotCancelableError",
        -32003 => "PushNotificationNotSupportedError",
        -32004 => "UnsupportedOperationError",
        -32005 => "ContentTypeNotSupportedError",
        -32006 => "InvalidAgentResponseError",
        -32007 => "AuthenticatedExtendedCardNotConfiguredError",
        _ => "JSONRPCError",
    }
}

/// Checks a JSON-RPC response against `JSONRPCResponse`, and against the
/// definition of its method's success response or of its error code.
fn assert_response(method: Option<&str>, v: &Value) {
    assert_schema("JSONRPCResponse", v);
    if let Some(error) = v.get("error") {
        assert!(v.get("result").is_none(), "both result and error: {v}");
        assert_schema("JSONRPCErrorResponse", v);
        let code = error["code"].as_i64().expect("an integer code");
        assert_schema(error_definition(code), error);
    } else if let Some(def) = method.and_then(success_definition) {
        assert_schema(def, v);
    }
}

// ---------------------------------------------------------------------------
// Agents
// ---------------------------------------------------------------------------

fn card_json(streaming: bool) -> Value {
    json!({
        "protocolVersion": "0.3.0",
        "name": "wire-agent",
        "description": "An agent scripted by the wire tests",
        "url": "http://127.0.0.1/",
        "preferredTransport": "JSONRPC",
        "version": "1.0.0",
        "capabilities": {"streaming": streaming},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain", "application/json"],
        "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["test"]}]
    })
}

fn card(streaming: bool) -> AgentCard {
    serde_json::from_value(card_json(streaming)).expect("a valid card")
}

fn builder(executor: ScriptedExecutor) -> DefaultRequestHandlerBuilder {
    DefaultRequestHandler::builder(card(true), executor)
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

/// Answers with a direct Message, no task.
fn replier() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx, events| async move {
        let mut reply =
            Message::agent_text(a2a_core::new_id(), format!("you said {}", ctx.user_text()));
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

/// Replies with what the call context saw.
fn context_reporter() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx, events| async move {
        let text = format!(
            "{}|{}",
            ctx.call.requested_extensions.join(","),
            ctx.call.headers.get("x-custom").map_or("-", String::as_str)
        );
        let mut reply = Message::agent_text(a2a_core::new_id(), text);
        reply.context_id = Some(ctx.context_id.clone());
        events.publish(StreamResponse::Message(reply)).await
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
    url: String,
    http: reqwest::Client,
    next_id: AtomicI64,
}

/// A parsed SSE body.
#[derive(Debug)]
struct Sse {
    /// The `data:` payloads, each one JSON-RPC response.
    events: Vec<Value>,
    /// How many comment lines were seen.
    comments: usize,
}

impl Agent {
    async fn start(handler: DefaultRequestHandler) -> Self {
        Self::start_with(handler, JsonRpcConfig::default()).await
    }

    async fn start_with(handler: DefaultRequestHandler, config: JsonRpcConfig) -> Self {
        let path = config.path.clone();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("local addr");
        let app = router_with(Arc::new(handler), config);
        tokio::spawn(async move { axum::serve(listener, app).await });
        let base = format!("http://{addr}");
        Self {
            url: format!("{base}/{}", path.trim_start_matches('/')),
            base,
            http: reqwest::Client::new(),
            next_id: AtomicI64::new(1),
        }
    }

    fn id(&self) -> i64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    async fn post(
        &self,
        body: impl Into<reqwest::Body>,
        content_type: Option<&str>,
    ) -> reqwest::Response {
        let mut request = self.http.post(&self.url).body(body);
        if let Some(ct) = content_type {
            request = request.header("content-type", ct);
        }
        tokio::time::timeout(WAIT, request.send())
            .await
            .expect("answered in time")
            .expect("HTTP request")
    }

    /// Posts `body` and returns the JSON-RPC response (HTTP 200, JSON,
    /// schema-checked).
    async fn raw(&self, body: impl Into<reqwest::Body>, method: Option<&str>) -> Value {
        let response = self.post(body, Some("application/json")).await;
        read_json_response(response, method).await
    }

    /// Calls `method` with `params`; returns the whole response.
    async fn call(&self, method: &str, params: Value) -> Value {
        let id = self.id();
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let v = self.raw(body.to_string(), Some(method)).await;
        assert_eq!(v["id"], json!(id), "the id is echoed: {v}");
        v
    }

    /// Calls `method` and returns its result.
    async fn ok(&self, method: &str, params: Value) -> Value {
        let v = self.call(method, params).await;
        assert!(v.get("error").is_none(), "{method} failed: {v}");
        v.get("result").cloned().expect("a result member")
    }

    /// Calls `method` and returns its error `(code, message)`.
    async fn err(&self, method: &str, params: Value) -> (i64, String) {
        let v = self.call(method, params).await;
        error_of(&v)
    }

    /// Calls a streaming method and reads the whole SSE body.
    async fn stream(&self, method: &str, params: Value) -> Sse {
        let (id, response) = self.open_stream(method, params).await;
        let text = tokio::time::timeout(WAIT, response.text())
            .await
            .expect("the stream ends in time")
            .expect("the body");
        let sse = parse_sse(&text);
        for e in &sse.events {
            assert_eq!(e["id"], json!(id), "every event echoes the id: {e}");
            assert_response(Some(method), e);
        }
        sse
    }

    /// Opens a stream; checks status and headers.
    async fn open_stream(&self, method: &str, params: Value) -> (i64, reqwest::Response) {
        let id = self.id();
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = self.post(body.to_string(), Some("application/json")).await;
        assert_eq!(response.status(), 200);
        let h = response.headers();
        assert_eq!(h["content-type"], "text/event-stream");
        assert_eq!(h["cache-control"], "no-store");
        assert_eq!(h["x-accel-buffering"], "no");
        (id, response)
    }

    async fn get(&self, path: &str) -> reqwest::Response {
        tokio::time::timeout(WAIT, self.http.get(format!("{}{path}", self.base)).send())
            .await
            .expect("answered in time")
            .expect("HTTP request")
    }
}

async fn read_json_response(response: reqwest::Response, method: Option<&str>) -> Value {
    assert_eq!(response.status(), 200, "JSON-RPC answers are HTTP 200");
    assert_eq!(response.headers()["content-type"], "application/json");
    let text = tokio::time::timeout(WAIT, response.text())
        .await
        .expect("body in time")
        .expect("body");
    let v: Value = serde_json::from_str(&text).expect("a JSON body");
    assert_eq!(v["jsonrpc"], "2.0");
    assert_response(method, &v);
    v
}

fn error_of(v: &Value) -> (i64, String) {
    let error = v
        .get("error")
        .unwrap_or_else(|| panic!("expected an error: {v}"));
    (
        error["code"].as_i64().expect("code"),
        error["message"].as_str().expect("message").to_owned(),
    )
}

/// Parses an SSE body as this server writes it: events separated by a blank
/// line, each with exactly one `data:` line and nothing else; comments are
/// counted.
fn parse_sse(text: &str) -> Sse {
    let mut sse = Sse {
        events: Vec::new(),
        comments: 0,
    };
    assert!(
        text.is_empty() || text.ends_with("\n\n"),
        "the body ends at an event boundary: {text:?}"
    );
    for block in text.split("\n\n").filter(|b| !b.is_empty()) {
        let mut data_lines = 0;
        for line in block.lines() {
            if line.starts_with(':') {
                sse.comments += 1;
            } else if let Some(data) = line.strip_prefix("data: ") {
                data_lines += 1;
                let v: Value = serde_json::from_str(data).expect("data is one JSON value");
                // Compact: as long as its compact re-encoding (key order aside).
                assert_eq!(
                    data.len(),
                    serde_json::to_string(&v).expect("json").len(),
                    "data is compact JSON: {data}"
                );
                sse.events.push(v);
            } else {
                panic!("unexpected SSE line {line:?}");
            }
        }
        assert!(data_lines <= 1, "one data line per event: {block:?}");
    }
    sse
}

static MESSAGE_IDS: AtomicI64 = AtomicI64::new(1);

fn user_message(text: &str) -> Value {
    let n = MESSAGE_IDS.fetch_add(1, Ordering::Relaxed);
    json!({
        "kind": "message",
        "role": "user",
        "messageId": format!("msg-{n}"),
        "parts": [{"kind": "text", "text": text}]
    })
}

fn kinds(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["result"]["kind"].as_str().unwrap_or("error").to_owned())
        .collect()
}

/// Polls `tasks/get` until the task reaches `state` (bounded).
async fn wait_for_state(agent: &Agent, task_id: &str, state: &str) -> Value {
    for _ in 0..500 {
        let task = agent.ok("tasks/get", json!({"id": task_id})).await;
        if task["status"]["state"] == state {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {task_id} never reached {state}");
}

/// Starts a gated task with a non-blocking send; returns its id.
async fn start_gated(agent: &Agent) -> String {
    let task = agent
        .ok(
            "message/send",
            json!({"message": user_message("wait"), "configuration": {"blocking": false}}),
        )
        .await;
    assert_eq!(task["kind"], "task");
    let state = task["status"]["state"].as_str().expect("state");
    assert!(
        ["submitted", "working"].contains(&state),
        "a non-blocking send returns before completion: {task}"
    );
    task["id"].as_str().expect("id").to_owned()
}

// ---------------------------------------------------------------------------
// Card routes
// ---------------------------------------------------------------------------

#[tokio::test]
async fn agent_card_is_served_at_both_paths() {
    let agent = Agent::start(builder(echo()).build()).await;
    for path in ["/.well-known/agent-card.json", "/.well-known/agent.json"] {
        let response = agent.get(path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.headers()["content-type"], "application/json");
        let card: Value = response.json().await.expect("JSON card");
        assert_schema("AgentCard", &card);
        assert_eq!(card["name"], "wire-agent");
        assert_eq!(card["protocolVersion"], "0.3.0");
        assert_eq!(card["capabilities"]["streaming"], true);
        assert_eq!(card["capabilities"]["pushNotifications"], false);
    }
    // JSON-RPC is POST only.
    assert_eq!(agent.get("/").await.status(), 405);
}

#[tokio::test]
async fn custom_path_serves_json_rpc_there() {
    let config = JsonRpcConfig {
        path: "a2a/v1".to_owned(),
        ..Default::default()
    };
    let agent = Agent::start_with(builder(echo()).build(), config).await;
    assert_eq!(agent.url, format!("{}/a2a/v1", agent.base));
    assert_eq!(agent.get("/").await.status(), 404);
    let task = agent
        .ok("message/send", json!({"message": user_message("x")}))
        .await;
    assert_eq!(task["status"]["state"], "completed");
    assert_eq!(
        agent.get("/.well-known/agent-card.json").await.status(),
        200
    );
}

// ---------------------------------------------------------------------------
// Envelope errors
// ---------------------------------------------------------------------------

#[tokio::test]
async fn invalid_json_is_a_parse_error_with_null_id() {
    let agent = Agent::start(builder(echo()).build()).await;
    for body in [
        &br#"{"jsonrpc": "2.0", "id": 1, "method": "#[..],
        b"",
        b"{'jsonrpc': '2.0'}",
        b"\xff\xfe{}",
        br#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}} trailing"#,
        br#"[{"jsonrpc":"2.0"},"#,
    ] {
        let v = agent.raw(body.to_vec(), None).await;
        assert_eq!(error_of(&v).0, -32700, "{}", String::from_utf8_lossy(body));
        assert_eq!(v["id"], Value::Null);
    }
    // Deep nesting is refused, not a crash: a (valid) array is not a request,
    // an unclosed one is not JSON, and deep params do not decode.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(error_of(&agent.raw(deep, None).await).0, -32600);
    let unclosed = "[".repeat(100_000);
    assert_eq!(error_of(&agent.raw(unclosed, None).await).0, -32700);
    let deep_params = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{{"id":"t","metadata":{}1{}}}}}"#,
        r#"{"a":"#.repeat(10_000),
        "}".repeat(10_000)
    );
    let v = agent.raw(deep_params, Some("tasks/get")).await;
    assert_eq!(error_of(&v).0, -32602);
    let deep_member = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tasks/get","x":{}1{}}}"#,
        r#"{"a":"#.repeat(10_000),
        "}".repeat(10_000)
    );
    let v = agent.raw(deep_member, None).await;
    assert!([-32700, -32602].contains(&error_of(&v).0), "{v}");
}

#[tokio::test]
async fn bad_envelopes_are_invalid_requests() {
    let agent = Agent::start(builder(echo()).build()).await;
    let cases: &[(&str, Value)] = &[
        ("[]", Value::Null),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}]"#,
            Value::Null,
        ),
        ("42", Value::Null),
        ("null", Value::Null),
        (r#""message/send""#, Value::Null),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tasks/get","params":{"id":"x"}}"#,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"tasks/get","params":{"id":"x"}}"#,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"tasks/get","params":{"id":"x"}}"#,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"1.0","id":7,"method":"tasks/get","params":{"id":"x"}}"#,
            json!(7),
        ),
        (
            r#"{"jsonrpc":2.0,"id":"s","method":"tasks/get","params":{"id":"x"}}"#,
            json!("s"),
        ),
        (
            r#"{"id":8,"method":"tasks/get","params":{"id":"x"}}"#,
            json!(8),
        ),
        (r#"{"jsonrpc":"2.0","id":9,"method":42}"#, json!(9)),
        (r#"{"jsonrpc":"2.0","id":10,"method":null}"#, json!(10)),
        (r#"{"jsonrpc":"2.0","id":11}"#, json!(11)),
    ];
    for (body, id) in cases {
        let v = agent.raw(*body, None).await;
        let (code, message) = error_of(&v);
        assert_eq!(code, -32600, "{body}: {message}");
        assert_eq!(&v["id"], id, "{body}");
    }
}

#[tokio::test]
async fn ids_are_echoed_verbatim() {
    let agent = Agent::start(builder(echo()).build()).await;
    for (id_text, id) in [
        (r#""req-1""#, json!("req-1")),
        (
            r#""with \"quotes\" and \u00e9""#,
            json!("with \"quotes\" and é"),
        ),
        ("42", json!(42)),
        ("-7", json!(-7)),
        ("0", json!(0)),
        (
            "12345678901234567890",
            json!(12_345_678_901_234_567_890_u64),
        ),
        ("null", Value::Null),
    ] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id_text},"method":"tasks/get","params":{{"id":"nope"}}}}"#
        );
        let v = agent.raw(body, Some("tasks/get")).await;
        assert_eq!(v["id"], id, "{id_text}");
        assert_eq!(error_of(&v).0, -32001);
    }
    // No id at all: answered, with a null id.
    let v = agent
        .raw(
            r#"{"jsonrpc":"2.0","method":"tasks/get","params":{"id":"nope"}}"#,
            None,
        )
        .await;
    assert_eq!(v["id"], Value::Null);
    assert_eq!(error_of(&v).0, -32001);
}

#[tokio::test]
async fn unknown_method_is_method_not_found() {
    let agent = Agent::start(builder(echo()).build()).await;
    let v = agent
        .raw(
            r#"{"jsonrpc":"2.0","id":"abc","method":"tasks/list","params":{}}"#,
            None,
        )
        .await;
    assert_eq!(v["id"], "abc");
    let (code, message) = error_of(&v);
    assert_eq!(code, -32601);
    assert!(message.contains("tasks/list"), "{message}");
    // Checked before params: bad params on an unknown method are still -32601.
    assert_eq!(agent.err("message/sendd", json!("garbage")).await.0, -32601);
}

#[tokio::test]
async fn content_type_is_checked_leniently() {
    let agent = Agent::start(builder(echo()).build()).await;
    let body = || {
        json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": user_message("x")}}).to_string()
    };
    for ct in [
        None,
        Some("application/json; charset=utf-8"),
        Some("application/jsonrpc+json"),
    ] {
        let response = agent.post(body(), ct).await;
        let v = read_json_response(response, Some("message/send")).await;
        assert_eq!(v["result"]["status"]["state"], "completed", "{ct:?}");
    }
    for ct in ["text/plain", "application/x-www-form-urlencoded"] {
        let response = agent.post(body(), Some(ct)).await;
        let v = read_json_response(response, None).await;
        let (code, message) = error_of(&v);
        assert_eq!(code, -32600, "{ct}");
        assert!(message.contains("Content-Type"), "{message}");
        assert_eq!(v["id"], Value::Null);
    }
}

#[tokio::test]
async fn oversized_bodies_are_refused() {
    let config = JsonRpcConfig {
        body_limit: 1024,
        ..Default::default()
    };
    let agent = Agent::start_with(builder(echo()).build(), config).await;
    // Exactly at the limit: accepted (padding in an ignored member).
    let prefix = r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"},"pad":""#;
    let at_limit = format!("{prefix}{}\"}}", "x".repeat(1024 - prefix.len() - 2));
    assert_eq!(at_limit.len(), 1024);
    let v = agent.raw(at_limit, Some("tasks/get")).await;
    assert_eq!(error_of(&v).0, -32001);
    // One byte more, with a Content-Length: refused.
    let over = format!("{prefix}{}\"}}", "x".repeat(1024 - prefix.len() - 1));
    let v = agent.raw(over, None).await;
    assert_eq!(error_of(&v), (-32600, "Payload too large".to_owned()));
    assert_eq!(v["id"], Value::Null);
    // Chunked, without a Content-Length: refused while reading.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        (0..8).map(|_| Ok(vec![b' '; 512])).collect();
    let body = reqwest::Body::wrap_stream(futures::stream::iter(chunks));
    let v = agent.raw(body, None).await;
    assert_eq!(error_of(&v), (-32600, "Payload too large".to_owned()));
}

#[tokio::test]
async fn default_body_limit_is_ten_mebibytes() {
    let agent = Agent::start(builder(echo()).build()).await;
    let prefix = r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"},"pad":""#;
    let limit = 10 * 1024 * 1024;
    let over = format!("{prefix}{}\"}}", "x".repeat(limit - prefix.len() - 1));
    assert_eq!(over.len(), limit + 1);
    let v = agent.raw(over, None).await;
    assert_eq!(error_of(&v), (-32600, "Payload too large".to_owned()));
    let at_limit = format!("{prefix}{}\"}}", "x".repeat(limit - prefix.len() - 2));
    let v = agent.raw(at_limit, Some("tasks/get")).await;
    assert_eq!(error_of(&v).0, -32001);
}

// ---------------------------------------------------------------------------
// Invalid params
// ---------------------------------------------------------------------------

#[tokio::test]
async fn invalid_params_name_the_member_at_fault() {
    let agent = Agent::start(builder(echo()).build()).await;
    let no_id =
        json!({"kind": "message", "role": "user", "parts": [{"kind": "text", "text": "x"}]});
    let no_role =
        json!({"kind": "message", "messageId": "m", "parts": [{"kind": "text", "text": "x"}]});
    let bad_role = json!({"kind": "message", "role": "robot", "messageId": "m", "parts": [{"kind": "text", "text": "x"}]});
    let empty_parts = json!({"kind": "message", "role": "user", "messageId": "m", "parts": []});
    let bad_parts = json!({"kind": "message", "role": "user", "messageId": "m", "parts": "x"});
    let bad_part =
        json!({"kind": "message", "role": "user", "messageId": "m", "parts": [{"kind": "text"}]});
    let agent_role = json!({"kind": "message", "role": "agent", "messageId": "m", "parts": [{"kind": "text", "text": "x"}]});
    let cases: Vec<(&str, Value, &str)> = vec![
        ("message/send", json!({}), "message"),
        ("message/send", json!({"message": no_id}), "messageId"),
        ("message/send", json!({"message": no_role}), "role"),
        ("message/send", json!({"message": bad_role}), "role"),
        ("message/send", json!({"message": empty_parts}), "parts"),
        ("message/send", json!({"message": bad_parts}), "parts"),
        ("message/send", json!({"message": bad_part}), "text"),
        ("message/send", json!({"message": agent_role}), "role"),
        (
            "message/send",
            json!({"message": user_message("x"), "configuration": {"historyLength": -1}}),
            "historyLength",
        ),
        (
            "message/send",
            json!({"message": user_message("x"), "configuration": {"blocking": "yes"}}),
            "blocking",
        ),
        ("message/send", json!("a string"), "params"),
        ("message/send", Value::Null, "params"),
        ("tasks/get", json!({}), "id"),
        ("tasks/get", json!({"id": 5}), "id"),
        (
            "tasks/get",
            json!({"id": "t", "historyLength": -1}),
            "historyLength",
        ),
        (
            "tasks/get",
            json!({"id": "t", "historyLength": "all"}),
            "historyLength",
        ),
        ("tasks/cancel", json!({}), "id"),
        ("tasks/cancel", json!({"id": ["t"]}), "id"),
        (
            "tasks/pushNotificationConfig/set",
            json!({"taskId": "t"}),
            "pushNotificationConfig",
        ),
        (
            "tasks/pushNotificationConfig/set",
            json!({"taskId": "t", "pushNotificationConfig": {}}),
            "url",
        ),
        (
            "tasks/pushNotificationConfig/set",
            json!({"pushNotificationConfig": {"url": "http://x/"}}),
            "taskId",
        ),
        ("tasks/pushNotificationConfig/get", json!({}), "id"),
        (
            "tasks/pushNotificationConfig/get",
            json!({"id": "t", "pushNotificationConfigId": 3}),
            "pushNotificationConfigId",
        ),
        ("tasks/pushNotificationConfig/list", json!({}), "id"),
        (
            "tasks/pushNotificationConfig/delete",
            json!({"id": "t"}),
            "pushNotificationConfigId",
        ),
        (
            "tasks/pushNotificationConfig/delete",
            json!({"pushNotificationConfigId": "c"}),
            "id",
        ),
    ];
    for (method, params, field) in cases {
        let (code, message) = agent.err(method, params.clone()).await;
        assert_eq!(code, -32602, "{method} {params}: {message}");
        assert!(
            message.contains(field),
            "{method} {params}: {message:?} should name {field}"
        );
    }
    // Params left out entirely.
    let v = agent
        .raw(
            r#"{"jsonrpc":"2.0","id":3,"method":"tasks/get"}"#,
            Some("tasks/get"),
        )
        .await;
    let (code, message) = error_of(&v);
    assert_eq!(code, -32602);
    assert!(message.contains("params"), "{message}");
    // The streaming methods answer the same errors as an SSE event.
    for (method, params, field) in [
        (
            "message/stream",
            json!({"message": no_id_message()}),
            "messageId",
        ),
        (
            "message/stream",
            json!({"message": {"kind": "message", "role": "user", "messageId": "m", "parts": []}}),
            "parts",
        ),
        ("tasks/resubscribe", json!({}), "id"),
    ] {
        let sse = agent.stream(method, params).await;
        assert_eq!(sse.events.len(), 1, "{method}");
        let (code, message) = error_of(&sse.events[0]);
        assert_eq!(code, -32602, "{method}: {message}");
        assert!(message.contains(field), "{method}: {message}");
    }
}

fn no_id_message() -> Value {
    json!({"kind": "message", "role": "user", "parts": [{"kind": "text", "text": "x"}]})
}

#[tokio::test]
async fn garbage_never_breaks_the_server() {
    let agent = Agent::start(builder(echo()).build()).await;
    let methods = [
        "message/send",
        "tasks/get",
        "tasks/cancel",
        "tasks/pushNotificationConfig/set",
        "tasks/pushNotificationConfig/get",
        "tasks/pushNotificationConfig/list",
        "tasks/pushNotificationConfig/delete",
        "agent/getAuthenticatedExtendedCard",
    ];
    let params = [
        json!(null),
        json!(0),
        json!(-1.5e300),
        json!("x"),
        json!([]),
        json!([1, 2, 3]),
        json!({"id": null}),
        json!({"id": "\u{0}\u{ffff}"}),
        json!({"message": {"parts": [{"kind": "file", "file": {}}]}}),
        json!({"message": {"kind": "task", "role": "user", "messageId": "m", "parts": [{"kind": "data", "data": []}]}}),
        json!({"message": {"role": "user", "messageId": "m", "parts": [{"kind": "file", "file": {"bytes": "x", "uri": "y"}}]}}),
        json!({"id": "t", "historyLength": 99_999_999_999_i64}),
        json!({"taskId": "t", "pushNotificationConfig": {"url": "x", "authentication": {"schemes": "Bearer"}}}),
    ];
    for method in methods {
        for p in &params {
            let v = agent.call(method, p.clone()).await;
            if let Some(error) = v.get("error") {
                let code = error["code"].as_i64().expect("code");
                assert!(
                    [-32602, -32001, -32003, -32007].contains(&code),
                    "{method} {p}: {v}"
                );
            }
        }
    }
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"method":"\ud800","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":"\ud800","method":"tasks/get","params":{"id":"t"}}"#,
        r#"{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"method":"tasks/get","params":{"id":"t"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t","id":"u"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"},"extra":[{"deep":[1,2,{"x":null}]}]}"#,
    ] {
        let v = agent.raw(body, None).await;
        assert!(
            v.get("error").is_some() || v.get("result").is_some(),
            "{body}: {v}"
        );
    }
    // Still serving.
    let task = agent
        .ok("message/send", json!({"message": user_message("alive")}))
        .await;
    assert_eq!(task["status"]["state"], "completed");
}

// ---------------------------------------------------------------------------
// message/send
// ---------------------------------------------------------------------------

#[tokio::test]
async fn blocking_send_returns_the_completed_task() {
    let agent = Agent::start(builder(echo()).build()).await;
    let task = agent
        .ok("message/send", json!({"message": user_message("hello")}))
        .await;
    assert_eq!(task["kind"], "task");
    assert_eq!(task["status"]["state"], "completed");
    assert_eq!(task["artifacts"][0]["artifactId"], "a-1");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "hello");
    assert_eq!(task["history"][0]["role"], "user");
    assert_eq!(task["history"][0]["parts"][0]["text"], "hello");
    // Explicitly blocking: the same.
    let task = agent
        .ok(
            "message/send",
            json!({"message": user_message("again"), "configuration": {"blocking": true, "acceptedOutputModes": ["text/plain"]}}),
        )
        .await;
    assert_eq!(task["status"]["state"], "completed");
}

#[tokio::test]
async fn non_blocking_send_returns_at_once() {
    let gate = Arc::new(Notify::new());
    let agent = Agent::start(builder(gated(Arc::clone(&gate))).build()).await;
    let task_id = start_gated(&agent).await;
    let task = agent.ok("tasks/get", json!({"id": task_id})).await;
    assert_ne!(task["status"]["state"], "completed");
    gate.notify_one();
    let task = wait_for_state(&agent, &task_id, "completed").await;
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "late");
}

#[tokio::test]
async fn a_message_reply_has_no_task() {
    let agent = Agent::start(builder(replier()).build()).await;
    let reply = agent
        .ok("message/send", json!({"message": user_message("hi")}))
        .await;
    assert_eq!(reply["kind"], "message");
    assert_eq!(reply["role"], "agent");
    assert_eq!(reply["parts"][0]["text"], "you said hi");
    assert!(reply.get("taskId").is_none(), "{reply}");
    // The same over a stream: one event, then the end.
    let sse = agent
        .stream("message/stream", json!({"message": user_message("yo")}))
        .await;
    assert_eq!(kinds(&sse.events), ["message"]);
    assert_eq!(sse.events[0]["result"]["parts"][0]["text"], "you said yo");
}

#[tokio::test]
async fn multi_turn_input_required_then_completed() {
    let agent = Agent::start(builder(multi_turn()).build()).await;
    let first = agent
        .ok(
            "message/send",
            json!({"message": user_message("order a pizza")}),
        )
        .await;
    assert_eq!(first["status"]["state"], "input-required");
    assert_eq!(first["status"]["message"]["parts"][0]["text"], "which one?");
    let task_id = first["id"].as_str().expect("id");
    let context_id = first["contextId"].as_str().expect("contextId");

    let mut follow_up = user_message("margherita");
    follow_up["taskId"] = json!(task_id);
    follow_up["contextId"] = json!(context_id);
    let second = agent
        .ok("message/send", json!({"message": follow_up}))
        .await;
    assert_eq!(second["id"], task_id);
    assert_eq!(second["contextId"], context_id);
    assert_eq!(second["status"]["state"], "completed");
    assert_eq!(second["artifacts"][0]["parts"][0]["text"], "margherita");

    // The full history, then trimmed by historyLength.
    let task = agent.ok("tasks/get", json!({"id": task_id})).await;
    let history = task["history"].as_array().expect("history");
    let texts: Vec<&str> = history
        .iter()
        .map(|m| m["parts"][0]["text"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(texts, ["order a pizza", "which one?", "margherita"]);
    let roles: Vec<&str> = history
        .iter()
        .map(|m| m["role"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(roles, ["user", "agent", "user"]);
    let trimmed = agent
        .ok("tasks/get", json!({"id": task_id, "historyLength": 1}))
        .await;
    assert_eq!(trimmed["history"].as_array().map(Vec::len), Some(1));
    assert_eq!(trimmed["history"][0]["parts"][0]["text"], "margherita");
    let all = agent
        .ok("tasks/get", json!({"id": task_id, "historyLength": 0}))
        .await;
    assert_eq!(all["history"].as_array().map(Vec::len), Some(3));
    let send_trimmed = {
        let mut m = user_message("another");
        m["contextId"] = json!(context_id);
        agent
            .ok(
                "message/send",
                json!({"message": m, "configuration": {"historyLength": 1}}),
            )
            .await
    };
    assert_eq!(send_trimmed["status"]["state"], "input-required");

    // A completed task takes no more messages.
    let mut late = user_message("one more");
    late["taskId"] = json!(task_id);
    let (code, _) = agent.err("message/send", json!({"message": late})).await;
    assert_eq!(code, -32602);
}

#[tokio::test]
async fn unknown_tasks_are_task_not_found() {
    let agent = Agent::start(
        builder(echo())
            .push_sender(Arc::new(Recorder::default()))
            .build(),
    )
    .await;
    for (method, params) in [
        ("tasks/get", json!({"id": "nope"})),
        ("tasks/cancel", json!({"id": "nope"})),
        (
            "tasks/pushNotificationConfig/set",
            json!({"taskId": "nope", "pushNotificationConfig": {"url": "http://127.0.0.1:9/hook"}}),
        ),
        ("tasks/pushNotificationConfig/get", json!({"id": "nope"})),
        ("tasks/pushNotificationConfig/list", json!({"id": "nope"})),
        (
            "tasks/pushNotificationConfig/delete",
            json!({"id": "nope", "pushNotificationConfigId": "c"}),
        ),
    ] {
        let (code, message) = agent.err(method, params).await;
        assert_eq!(code, -32001, "{method}: {message}");
    }
    let mut m = user_message("x");
    m["taskId"] = json!("nope");
    assert_eq!(
        agent.err("message/send", json!({"message": m})).await.0,
        -32001
    );
    // Before the stream starts, and still as SSE.
    let sse = agent
        .stream("tasks/resubscribe", json!({"id": "nope"}))
        .await;
    assert_eq!(sse.events.len(), 1);
    assert_eq!(error_of(&sse.events[0]).0, -32001);
}

#[tokio::test]
async fn accepted_output_modes_must_match_the_agent() {
    let agent = Agent::start(builder(echo()).build()).await;
    let params = json!({"message": user_message("x"), "configuration": {"acceptedOutputModes": ["image/png"]}});
    assert_eq!(agent.err("message/send", params.clone()).await.0, -32005);
    let sse = agent.stream("message/stream", params).await;
    assert_eq!(sse.events.len(), 1);
    assert_eq!(error_of(&sse.events[0]).0, -32005);
    // A wildcard matches.
    let ok =
        json!({"message": user_message("x"), "configuration": {"acceptedOutputModes": ["text/*"]}});
    assert_eq!(
        agent.ok("message/send", ok).await["status"]["state"],
        "completed"
    );
}

#[tokio::test]
async fn an_agent_publishing_a_wrong_task_id_is_an_invalid_agent_response() {
    let agent = Agent::start(builder(wrong_task_id()).build()).await;
    let (code, message) = agent
        .err("message/send", json!({"message": user_message("x")}))
        .await;
    assert_eq!(code, -32006, "{message}");
    // Over a stream the error arrives as an event, then the stream ends.
    let sse = agent
        .stream("message/stream", json!({"message": user_message("x")}))
        .await;
    assert_eq!(sse.events.len(), 1, "{sse:?}");
    assert_eq!(error_of(&sse.events[0]).0, -32006);
}

// ---------------------------------------------------------------------------
// tasks/cancel
// ---------------------------------------------------------------------------

#[tokio::test]
async fn cancel_a_running_task_then_again() {
    let gate = Arc::new(Notify::new());
    let agent = Agent::start(builder(gated(Arc::clone(&gate))).build()).await;
    let task_id = start_gated(&agent).await;
    let canceled = agent.ok("tasks/cancel", json!({"id": task_id})).await;
    assert_eq!(canceled["id"], task_id);
    assert_eq!(canceled["status"]["state"], "canceled");
    let (code, message) = agent.err("tasks/cancel", json!({"id": task_id})).await;
    assert_eq!(code, -32002, "{message}");
    let task = agent.ok("tasks/get", json!({"id": task_id})).await;
    assert_eq!(task["status"]["state"], "canceled");
}

#[tokio::test]
async fn cancel_a_completed_task_is_not_cancelable() {
    let agent = Agent::start(builder(echo()).build()).await;
    let task = agent
        .ok("message/send", json!({"message": user_message("x")}))
        .await;
    let (code, _) = agent.err("tasks/cancel", json!({"id": task["id"]})).await;
    assert_eq!(code, -32002);
}

// ---------------------------------------------------------------------------
// Push notification configs
// ---------------------------------------------------------------------------

#[tokio::test]
async fn push_configs_without_a_push_sender_are_not_supported() {
    let agent = Agent::start(builder(echo()).build()).await;
    let task = agent
        .ok("message/send", json!({"message": user_message("x")}))
        .await;
    let id = task["id"].clone();
    for (method, params) in [
        (
            "tasks/pushNotificationConfig/set",
            json!({"taskId": id, "pushNotificationConfig": {"url": "http://127.0.0.1:9/hook"}}),
        ),
        ("tasks/pushNotificationConfig/get", json!({"id": id})),
        (
            "tasks/pushNotificationConfig/get",
            json!({"id": id, "pushNotificationConfigId": "c"}),
        ),
        ("tasks/pushNotificationConfig/list", json!({"id": id})),
        (
            "tasks/pushNotificationConfig/delete",
            json!({"id": id, "pushNotificationConfigId": "c"}),
        ),
    ] {
        let (code, message) = agent.err(method, params).await;
        assert_eq!(code, -32003, "{method}: {message}");
    }
    let params = json!({"message": user_message("x"), "configuration": {"pushNotificationConfig": {"url": "http://127.0.0.1:9/hook"}}});
    assert_eq!(agent.err("message/send", params).await.0, -32003);
}

#[tokio::test]
async fn push_config_set_get_list_delete() {
    let gate = Arc::new(Notify::new());
    let recorder = Arc::new(Recorder::default());
    let handler = builder(gated(Arc::clone(&gate)))
        .push_sender(Arc::clone(&recorder) as Arc<dyn PushSender>)
        .build();
    let agent = Agent::start(handler).await;
    let card: Value = agent
        .get("/.well-known/agent-card.json")
        .await
        .json()
        .await
        .expect("card");
    assert_eq!(card["capabilities"]["pushNotifications"], true);
    let task_id = start_gated(&agent).await;

    let set = agent
        .ok(
            "tasks/pushNotificationConfig/set",
            json!({"taskId": task_id, "pushNotificationConfig": {"url": "http://127.0.0.1:9/hook", "token": "tok"}}),
        )
        .await;
    assert_eq!(set["taskId"], task_id);
    assert_eq!(
        set["pushNotificationConfig"]["id"], task_id,
        "the id defaults to the task id"
    );
    assert_eq!(set["pushNotificationConfig"]["token"], "tok");
    let second = agent
        .ok(
            "tasks/pushNotificationConfig/set",
            json!({"taskId": task_id, "pushNotificationConfig": {"id": "second", "url": "http://127.0.0.1:9/other",
                   "authentication": {"schemes": ["Bearer"], "credentials": "secret"}}}),
        )
        .await;
    assert_eq!(second["pushNotificationConfig"]["id"], "second");

    // get: by task id only (TaskIdParams), and with a config id.
    let got = agent
        .ok("tasks/pushNotificationConfig/get", json!({"id": task_id}))
        .await;
    assert_eq!(
        got["pushNotificationConfig"]["url"],
        "http://127.0.0.1:9/hook"
    );
    let got = agent
        .ok(
            "tasks/pushNotificationConfig/get",
            json!({"id": task_id, "pushNotificationConfigId": "second"}),
        )
        .await;
    assert_eq!(
        got["pushNotificationConfig"]["url"],
        "http://127.0.0.1:9/other"
    );
    assert_eq!(
        got["pushNotificationConfig"]["authentication"]["schemes"],
        json!(["Bearer"])
    );

    // list: a bare array.
    let list = agent
        .ok("tasks/pushNotificationConfig/list", json!({"id": task_id}))
        .await;
    let list = list.as_array().expect("a bare array");
    assert_eq!(list.len(), 2);
    assert!(list.iter().all(|c| c["taskId"] == task_id));

    // delete: a null result.
    let v = agent
        .call(
            "tasks/pushNotificationConfig/delete",
            json!({"id": task_id, "pushNotificationConfigId": "second"}),
        )
        .await;
    assert!(v.get("error").is_none(), "{v}");
    assert_eq!(
        v.get("result"),
        Some(&Value::Null),
        "delete returns a null result: {v}"
    );
    let list = agent
        .ok("tasks/pushNotificationConfig/list", json!({"id": task_id}))
        .await;
    assert_eq!(list.as_array().map(Vec::len), Some(1));
    let (code, _) = agent
        .err(
            "tasks/pushNotificationConfig/get",
            json!({"id": task_id, "pushNotificationConfigId": "second"}),
        )
        .await;
    assert_eq!(code, -32602);
    let (code, _) = agent
        .err(
            "tasks/pushNotificationConfig/set",
            json!({"taskId": task_id, "pushNotificationConfig": {"url": "ftp://x"}}),
        )
        .await;
    assert_eq!(code, -32602);

    // The remaining config is notified when the task completes.
    gate.notify_one();
    wait_for_state(&agent, &task_id, "completed").await;
    let mut delivered = false;
    for _ in 0..500 {
        delivered = recorder
            .sent
            .lock()
            .expect("lock")
            .iter()
            .any(|(url, id, state)| {
                url == "http://127.0.0.1:9/hook" && *id == task_id && *state == TaskState::Completed
            });
        if delivered {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(delivered, "{:?}", recorder.sent.lock().expect("lock"));
    assert!(
        !recorder
            .sent
            .lock()
            .expect("lock")
            .iter()
            .any(|(url, ..)| url.ends_with("/other")),
        "a deleted config is not notified after its deletion"
    );

    // A config given with message/send is stored for the new task.
    let task = agent
        .ok(
            "message/send",
            json!({"message": user_message("x"), "configuration": {"blocking": false, "pushNotificationConfig": {"url": "http://127.0.0.1:9/inline"}}}),
        )
        .await;
    let list = agent
        .ok(
            "tasks/pushNotificationConfig/list",
            json!({"id": task["id"]}),
        )
        .await;
    assert_eq!(
        list[0]["pushNotificationConfig"]["url"],
        "http://127.0.0.1:9/inline"
    );
    gate.notify_one();
}

// ---------------------------------------------------------------------------
// Extended card
// ---------------------------------------------------------------------------

#[tokio::test]
async fn extended_card_not_configured() {
    let agent = Agent::start(builder(echo()).build()).await;
    let (code, _) = agent
        .err("agent/getAuthenticatedExtendedCard", json!({}))
        .await;
    assert_eq!(code, -32007);
    // Without params too.
    let v = agent
        .raw(
            r#"{"jsonrpc":"2.0","id":1,"method":"agent/getAuthenticatedExtendedCard"}"#,
            None,
        )
        .await;
    assert_eq!(error_of(&v).0, -32007);
}

#[tokio::test]
async fn extended_card_configured() {
    let mut extended = card(true);
    extended.name = "wire-agent (extended)".to_owned();
    let agent = Agent::start(builder(echo()).extended_agent_card(extended).build()).await;
    let card = agent
        .ok("agent/getAuthenticatedExtendedCard", json!({}))
        .await;
    assert_eq!(card["name"], "wire-agent (extended)");
    let public: Value = agent
        .get("/.well-known/agent-card.json")
        .await
        .json()
        .await
        .expect("card");
    assert_schema("AgentCard", &public);
    assert_eq!(public["supportsAuthenticatedExtendedCard"], true);
}

// ---------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------

#[tokio::test]
async fn stream_events_arrive_in_order_and_the_stream_ends() {
    let agent = Agent::start(builder(echo()).build()).await;
    let sse = agent
        .stream(
            "message/stream",
            json!({"message": user_message("streamed")}),
        )
        .await;
    assert_eq!(
        kinds(&sse.events),
        ["task", "status-update", "artifact-update", "status-update"],
        "{sse:?}"
    );
    let task = &sse.events[0]["result"];
    assert_eq!(task["status"]["state"], "submitted");
    let working = &sse.events[1]["result"];
    assert_eq!(working["status"]["state"], "working");
    assert_eq!(working["final"], false);
    assert_eq!(working["taskId"], task["id"]);
    let artifact = &sse.events[2]["result"];
    assert_eq!(artifact["artifact"]["parts"][0]["text"], "streamed");
    assert_eq!(artifact["lastChunk"], true);
    let done = &sse.events[3]["result"];
    assert_eq!(done["status"]["state"], "completed");
    assert_eq!(done["final"], true);
    assert_eq!(done["contextId"], task["contextId"]);
    // The stored task agrees.
    let stored = agent.ok("tasks/get", json!({"id": task["id"]})).await;
    assert_eq!(stored["status"]["state"], "completed");
}

#[tokio::test]
async fn multi_turn_over_streams_ends_at_input_required() {
    let agent = Agent::start(builder(multi_turn()).build()).await;
    let sse = agent
        .stream("message/stream", json!({"message": user_message("order")}))
        .await;
    assert_eq!(kinds(&sse.events), ["task", "status-update"]);
    let question = &sse.events[1]["result"];
    assert_eq!(question["status"]["state"], "input-required");
    assert_eq!(question["final"], true);
    let mut follow_up = user_message("that one");
    follow_up["taskId"] = question["taskId"].clone();
    let sse = agent
        .stream("message/stream", json!({"message": follow_up}))
        .await;
    let kinds = kinds(&sse.events);
    assert_eq!(kinds.first().map(String::as_str), Some("task"), "{kinds:?}");
    let last = &sse.events.last().expect("events")["result"];
    assert_eq!(last["status"]["state"], "completed");
    assert_eq!(last["final"], true);
}

#[tokio::test]
async fn keep_alive_comments_while_the_agent_is_quiet() {
    let gate = Arc::new(Notify::new());
    let config = JsonRpcConfig {
        keep_alive: Duration::from_millis(50),
        ..Default::default()
    };
    let agent = Agent::start_with(builder(gated(Arc::clone(&gate))).build(), config).await;
    let (_, mut response) = agent
        .open_stream("message/stream", json!({"message": user_message("slow")}))
        .await;
    let mut text = String::new();
    for _ in 0..200 {
        let chunk = tokio::time::timeout(WAIT, response.chunk())
            .await
            .expect("a chunk in time")
            .expect("the body")
            .expect("more body");
        text.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
        if text.contains(": keep-alive\n\n") {
            break;
        }
    }
    assert!(text.contains(": keep-alive\n\n"), "{text:?}");
    gate.notify_one();
    let rest = tokio::time::timeout(WAIT, response.text())
        .await
        .expect("the end in time")
        .expect("the body");
    text.push_str(&rest);
    for line in text.lines() {
        assert!(
            line.is_empty()
                || line == ": keep-alive"
                || line.starts_with("data: {\"jsonrpc\":\"2.0\""),
            "unexpected line {line:?}"
        );
    }
    let sse = parse_sse(&text);
    assert!(sse.comments >= 1);
    for e in &sse.events {
        assert_response(Some("message/stream"), e);
    }
    let last = &sse.events.last().expect("events")["result"];
    assert_eq!(last["status"]["state"], "completed");
}

#[tokio::test]
async fn resubscribe_sends_the_snapshot_then_live_events() {
    let gate = Arc::new(Notify::new());
    let agent = Agent::start(builder(gated(Arc::clone(&gate))).build()).await;
    let task_id = start_gated(&agent).await;
    // Wait until the task is working, so the snapshot is deterministic.
    wait_for_state(&agent, &task_id, "working").await;
    let (id, mut response) = agent
        .open_stream("tasks/resubscribe", json!({"id": task_id}))
        .await;
    let mut text = String::new();
    for _ in 0..200 {
        if text.contains("\n\n") {
            break;
        }
        let chunk = tokio::time::timeout(WAIT, response.chunk())
            .await
            .expect("a chunk in time")
            .expect("the body")
            .expect("more body");
        text.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
    }
    let first = parse_sse(&text[..text.find("\n\n").expect("one event") + 2]);
    assert_eq!(kinds(&first.events), ["task"]);
    assert_eq!(first.events[0]["result"]["status"]["state"], "working");
    gate.notify_one();
    let rest = tokio::time::timeout(WAIT, response.text())
        .await
        .expect("the end in time")
        .expect("the body");
    text.push_str(&rest);
    let sse = parse_sse(&text);
    for e in &sse.events {
        assert_eq!(e["id"], json!(id));
        assert_response(Some("tasks/resubscribe"), e);
    }
    assert_eq!(
        kinds(&sse.events),
        ["task", "artifact-update", "status-update"],
        "no duplicate, no gap"
    );
    let last = &sse.events[2]["result"];
    assert_eq!(last["status"]["state"], "completed");
    assert_eq!(last["final"], true);

    // A finished task: its snapshot, then the end.
    let sse = agent
        .stream("tasks/resubscribe", json!({"id": task_id}))
        .await;
    assert_eq!(kinds(&sse.events), ["task"]);
    assert_eq!(sse.events[0]["result"]["status"]["state"], "completed");
}

#[tokio::test]
async fn streaming_disabled_is_unsupported() {
    let handler = DefaultRequestHandler::builder(card(false), echo()).build();
    let agent = Agent::start(handler).await;
    let public: Value = agent
        .get("/.well-known/agent-card.json")
        .await
        .json()
        .await
        .expect("card");
    assert_eq!(public["capabilities"]["streaming"], false);
    let sse = agent
        .stream("message/stream", json!({"message": user_message("x")}))
        .await;
    assert_eq!(sse.events.len(), 1);
    assert_eq!(error_of(&sse.events[0]).0, -32004);
    let task = agent
        .ok("message/send", json!({"message": user_message("x")}))
        .await;
    let sse = agent
        .stream("tasks/resubscribe", json!({"id": task["id"]}))
        .await;
    assert_eq!(sse.events.len(), 1);
    assert_eq!(error_of(&sse.events[0]).0, -32004);
}

// ---------------------------------------------------------------------------
// Call context
// ---------------------------------------------------------------------------

#[tokio::test]
async fn extensions_and_headers_reach_the_agent() {
    let agent = Agent::start(builder(context_reporter()).build()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": user_message("x")}});
    let response = tokio::time::timeout(
        WAIT,
        agent
            .http
            .post(&agent.url)
            .header("content-type", "application/json")
            .header("X-A2A-Extensions", "urn:ext:a, urn:ext:b")
            .header("X-A2A-Extensions", "urn:ext:c")
            .header("X-Custom", "42")
            .body(body.to_string())
            .send(),
    )
    .await
    .expect("in time")
    .expect("request");
    let v = read_json_response(response, Some("message/send")).await;
    assert_eq!(
        v["result"]["parts"][0]["text"],
        "urn:ext:a,urn:ext:b,urn:ext:c|42"
    );
}

#[test]
fn schema_checks_are_not_vacuous() {
    if schema().is_none() {
        return;
    }
    let bad = [
        (
            "JSONRPCResponse",
            json!({"jsonrpc": "1.0", "id": 1, "result": {}}),
        ),
        (
            "JSONRPCErrorResponse",
            json!({"jsonrpc": "2.0", "id": 1.5, "error": {"code": -32001, "message": "x"}}),
        ),
        ("TaskNotFoundError", json!({"code": -32002, "message": "x"})),
        (
            "GetTaskSuccessResponse",
            json!({"jsonrpc": "2.0", "id": 1, "result": {"kind": "task", "id": "t"}}),
        ),
        ("AgentCard", json!({"name": "x"})),
    ];
    for (definition, value) in bad {
        let caught = std::panic::catch_unwind(|| assert_schema(definition, &value));
        assert!(caught.is_err(), "{definition} accepted {value}");
    }
}
