//! The JSON-RPC driver: `json!` request literals over reqwest, answers read
//! from `serde_json::Value` by hand (JSON-schema shape: `kind`
//! discriminators, lower-case states, `parts`).

use std::sync::atomic::{AtomicI64, Ordering};

use a2a_types::TaskState;
use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{Value, json};

use super::model::*;
use super::sse;
use super::{Driver, Kind};

pub(crate) struct JsonRpc {
    url: String,
    http: reqwest::Client,
    next_id: AtomicI64,
}

impl JsonRpc {
    pub(crate) fn new(url: &str) -> Self {
        Self {
            url: url.to_owned(),
            http: reqwest::Client::new(),
            next_id: AtomicI64::new(1),
        }
    }

    fn envelope(&self, method: &str, params: Option<Value>) -> (i64, Value) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut body = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(p) = params {
            body["params"] = p;
        }
        (id, body)
    }

    fn post(&self, body: &Value, headers: &[(String, String)]) -> reqwest::RequestBuilder {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .body(body.to_string());
        for (name, value) in headers {
            request = request.header(name, value);
        }
        request
    }

    /// One unary call: the `result`, or the error.
    async fn rpc(&self, method: &str, params: Option<Value>) -> Result<Value, WireError> {
        self.rpc_with(method, params, &[]).await
    }

    async fn rpc_with(
        &self,
        method: &str,
        params: Option<Value>,
        headers: &[(String, String)],
    ) -> Result<Value, WireError> {
        let (id, body) = self.envelope(method, params);
        let response = self
            .post(&body, headers)
            .send()
            .await
            .expect("the JSON-RPC listener answers");
        let status = response.status().as_u16();
        let reply: Value = response.json().await.expect("a JSON body");
        assert_eq!(
            status, 200,
            "JSON-RPC answers every call with HTTP 200: {reply}"
        );
        assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
        assert_eq!(reply["id"], json!(id), "the id is echoed: {reply}");
        decode_reply(&reply, status)
    }

    /// A raw body; the error of the answer.
    async fn raw(&self, body: &str) -> WireError {
        let response = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
            .await
            .expect("the JSON-RPC listener answers");
        let status = response.status().as_u16();
        let reply: Value = response.json().await.expect("a JSON body");
        decode_reply(&reply, status).expect_err("an error answer")
    }

    async fn sse(
        &self,
        method: &str,
        params: Value,
        headers: &[(String, String)],
    ) -> Result<Events, WireError> {
        let (id, body) = self.envelope(method, Some(params));
        let response = self
            .post(&body, headers)
            .header("accept", "text/event-stream")
            .send()
            .await
            .expect("the JSON-RPC listener answers");
        let status = response.status().as_u16();
        assert_eq!(status, 200, "JSON-RPC streams answer HTTP 200");
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        assert!(
            content_type.starts_with("text/event-stream"),
            "a stream is text/event-stream, errors included: {content_type}"
        );
        let events = sse::events(response).map(move |item| {
            let item = item.unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(item.event, "", "JSON-RPC SSE events have no `event:` name");
            let reply: Value = serde_json::from_str(&item.data).expect("JSON data");
            assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
            assert_eq!(
                reply["id"],
                json!(id),
                "every event echoes the request id: {reply}"
            );
            decode_reply(&reply, status).map(|r| event(&r))
        });
        Events::open(events.boxed()).await
    }
}

fn decode_reply(reply: &Value, status: u16) -> Result<Value, WireError> {
    if let Some(e) = reply.get("error") {
        assert!(
            reply.get("result").is_none(),
            "result and error are exclusive: {reply}"
        );
        return Err(WireError {
            code: Some(
                e["code"]
                    .as_i64()
                    .and_then(|c| i32::try_from(c).ok())
                    .expect("an integer code"),
            ),
            message: e["message"].as_str().expect("a message").to_owned(),
            data: e.get("data").cloned(),
            evidence: Evidence::Http(status),
        });
    }
    Ok(reply
        .get("result")
        .unwrap_or_else(|| panic!("a result or an error: {reply}"))
        .clone())
}

fn text(v: &Value) -> String {
    v.as_str()
        .unwrap_or_else(|| panic!("a string: {v}"))
        .to_owned()
}

fn opt_text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

pub(crate) fn state(v: &Value) -> TaskState {
    match v.as_str().unwrap_or_else(|| panic!("a state: {v}")) {
        "submitted" => TaskState::Submitted,
        "working" => TaskState::Working,
        "input-required" => TaskState::InputRequired,
        "completed" => TaskState::Completed,
        "canceled" => TaskState::Canceled,
        "failed" => TaskState::Failed,
        "rejected" => TaskState::Rejected,
        "auth-required" => TaskState::AuthRequired,
        "unknown" => TaskState::Unknown,
        other => panic!("not a JSON-RPC task state: {other:?}"),
    }
}

fn part(p: &Value) -> PartView {
    let metadata = p.get("metadata").cloned();
    match p["kind"].as_str() {
        Some("text") => PartView::Text {
            text: text(&p["text"]),
            metadata,
        },
        Some("file") => {
            let f = &p["file"];
            PartView::File {
                name: opt_text(&f["name"]),
                mime_type: opt_text(&f["mimeType"]),
                uri: opt_text(&f["uri"]),
                bytes: opt_text(&f["bytes"]),
                metadata,
            }
        }
        Some("data") => PartView::Data {
            data: p["data"].clone(),
            metadata,
        },
        other => panic!("not a part kind: {other:?}: {p}"),
    }
}

fn part_json(p: &PartView) -> Value {
    let (mut v, metadata) = match p {
        PartView::Text { text, metadata } => (json!({"kind": "text", "text": text}), metadata),
        PartView::File {
            name,
            mime_type,
            uri,
            bytes,
            metadata,
        } => {
            let mut file = json!({});
            if let Some(n) = name {
                file["name"] = json!(n);
            }
            if let Some(m) = mime_type {
                file["mimeType"] = json!(m);
            }
            if let Some(u) = uri {
                file["uri"] = json!(u);
            }
            if let Some(b) = bytes {
                file["bytes"] = json!(b);
            }
            (json!({"kind": "file", "file": file}), metadata)
        }
        PartView::Data { data, metadata } => (json!({"kind": "data", "data": data}), metadata),
    };
    if let Some(m) = metadata {
        v["metadata"] = m.clone();
    }
    v
}

pub(crate) fn message(v: &Value) -> MsgView {
    assert_eq!(v["kind"], "message", "{v}");
    let parts = v["parts"]
        .as_array()
        .unwrap_or_else(|| panic!("parts: {v}"))
        .iter()
        .map(part)
        .collect();
    MsgView::new(
        &text(&v["role"]),
        parts,
        v.get("metadata").cloned(),
        text(&v["messageId"]),
        opt_text(&v["taskId"]),
        opt_text(&v["contextId"]),
    )
}

fn artifact(v: &Value) -> ArtifactView {
    ArtifactView::new(
        text(&v["artifactId"]),
        opt_text(&v["name"]),
        v["parts"]
            .as_array()
            .unwrap_or_else(|| panic!("parts: {v}"))
            .iter()
            .map(part)
            .collect(),
    )
}

pub(crate) fn task(v: &Value) -> TaskView {
    assert_eq!(v["kind"], "task", "{v}");
    let list = |key: &str| {
        v.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    TaskView {
        id: text(&v["id"]),
        context_id: text(&v["contextId"]),
        state: state(&v["status"]["state"]),
        status_text: v["status"].get("message").map(|m| message(m).text),
        timestamp: opt_text(&v["status"]["timestamp"]),
        history: list("history").iter().map(message).collect(),
        artifacts: list("artifacts").iter().map(artifact).collect(),
    }
}

fn reply(v: &Value) -> Reply {
    match v["kind"].as_str() {
        Some("task") => Reply::Task(task(v)),
        Some("message") => Reply::Message(message(v)),
        other => panic!("a send result is a task or a message, got kind {other:?}: {v}"),
    }
}

fn event(v: &Value) -> Event {
    match v["kind"].as_str() {
        Some("task") => Event::Task(task(v)),
        Some("message") => Event::Message(message(v)),
        Some("status-update") => Event::Status {
            task_id: text(&v["taskId"]),
            context_id: text(&v["contextId"]),
            state: state(&v["status"]["state"]),
            text: v["status"].get("message").map(|m| message(m).text),
            is_final: v["final"].as_bool().expect("`final` is required"),
        },
        Some("artifact-update") => Event::Artifact {
            task_id: text(&v["taskId"]),
            context_id: text(&v["contextId"]),
            artifact: artifact(&v["artifact"]),
            append: v["append"].as_bool().unwrap_or(false),
            last_chunk: v["lastChunk"].as_bool().unwrap_or(false),
        },
        other => panic!("not a stream event kind: {other:?}: {v}"),
    }
}

fn push(v: &Value) -> PushView {
    let c = &v["pushNotificationConfig"];
    PushView {
        task_id: text(&v["taskId"]),
        id: text(&c["id"]),
        url: text(&c["url"]),
        token: opt_text(&c["token"]),
    }
}

pub(crate) fn card(v: &Value) -> CardView {
    CardView {
        name: text(&v["name"]),
        protocol_version: text(&v["protocolVersion"]),
        url: text(&v["url"]),
        preferred_transport: text(&v["preferredTransport"]),
        interfaces: v["additionalInterfaces"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|i| (text(&i["transport"]), text(&i["url"])))
            .collect(),
        streaming: v["capabilities"]["streaming"].as_bool().unwrap_or(false),
        push_notifications: v["capabilities"]["pushNotifications"]
            .as_bool()
            .unwrap_or(false),
        extended: v["supportsAuthenticatedExtendedCard"]
            .as_bool()
            .unwrap_or(false),
        skills: v["skills"]
            .as_array()
            .expect("skills")
            .iter()
            .map(|s| text(&s["id"]))
            .collect(),
    }
}

fn push_config(p: &PushSpec) -> Value {
    let mut c = json!({"url": p.url});
    if let Some(id) = &p.id {
        c["id"] = json!(id);
    }
    if let Some(token) = &p.token {
        c["token"] = json!(token);
    }
    c
}

fn send_params(s: &UserMessage) -> Value {
    let parts: Vec<Value> = s
        .parts
        .iter()
        .map(|t| json!({"kind": "text", "text": t}))
        .chain(s.extra.iter().map(part_json))
        .collect();
    let mut message = json!({
        "kind": "message",
        "messageId": s.message_id,
        "role": "user",
        "parts": parts,
    });
    if let Some(t) = &s.task_id {
        message["taskId"] = json!(t);
    }
    if let Some(c) = &s.context_id {
        message["contextId"] = json!(c);
    }
    if let Some(m) = &s.metadata {
        message["metadata"] = m.clone();
    }
    let mut configuration = json!({"blocking": s.blocking});
    if let Some(n) = s.history_length {
        configuration["historyLength"] = json!(n);
    }
    if !s.accepted_output_modes.is_empty() {
        configuration["acceptedOutputModes"] = json!(s.accepted_output_modes);
    }
    if let Some(p) = &s.push {
        configuration["pushNotificationConfig"] = push_config(p);
    }
    json!({"message": message, "configuration": configuration})
}

#[async_trait]
impl Driver for JsonRpc {
    fn kind(&self) -> Kind {
        Kind::JsonRpc
    }

    fn url(&self) -> Option<String> {
        Some(self.url.clone())
    }

    async fn card(&self) -> Result<CardView, WireError> {
        let url = format!("{}.well-known/agent-card.json", self.url);
        let response = self
            .http
            .get(&url)
            .send()
            .await
            .expect("the card route answers");
        assert_eq!(response.status(), 200, "GET {url}");
        let v: Value = response.json().await.expect("a JSON card");
        // The legacy path serves the same card.
        let legacy: Value = self
            .http
            .get(format!("{}.well-known/agent.json", self.url))
            .send()
            .await
            .expect("the legacy card route answers")
            .json()
            .await
            .expect("a JSON card");
        assert_eq!(legacy, v, "the legacy path serves the same card");
        Ok(card(&v))
    }

    async fn extended_card(&self) -> Result<CardView, WireError> {
        self.rpc("agent/getAuthenticatedExtendedCard", None)
            .await
            .map(|v| card(&v))
    }

    async fn send(&self, s: &UserMessage) -> Result<Reply, WireError> {
        self.rpc_with("message/send", Some(send_params(s)), &s.headers)
            .await
            .map(|v| reply(&v))
    }

    async fn stream(&self, s: &UserMessage) -> Result<Events, WireError> {
        self.sse("message/stream", send_params(s), &s.headers).await
    }

    async fn get(&self, task_id: &str, history_length: Option<i32>) -> Result<TaskView, WireError> {
        let mut params = json!({"id": task_id});
        if let Some(n) = history_length {
            params["historyLength"] = json!(n);
        }
        self.rpc("tasks/get", Some(params)).await.map(|v| task(&v))
    }

    async fn cancel(&self, task_id: &str) -> Result<TaskView, WireError> {
        self.rpc("tasks/cancel", Some(json!({"id": task_id})))
            .await
            .map(|v| task(&v))
    }

    async fn resubscribe(&self, task_id: &str) -> Result<Events, WireError> {
        self.sse("tasks/resubscribe", json!({"id": task_id}), &[])
            .await
    }

    async fn set_push(&self, task_id: &str, p: &PushSpec) -> Result<PushView, WireError> {
        let params = json!({"taskId": task_id, "pushNotificationConfig": push_config(p)});
        self.rpc("tasks/pushNotificationConfig/set", Some(params))
            .await
            .map(|v| push(&v))
    }

    async fn get_push(&self, task_id: &str, config_id: &str) -> Result<PushView, WireError> {
        let params = json!({"id": task_id, "pushNotificationConfigId": config_id});
        self.rpc("tasks/pushNotificationConfig/get", Some(params))
            .await
            .map(|v| push(&v))
    }

    async fn list_push(&self, task_id: &str) -> Result<Vec<PushView>, WireError> {
        let v = self
            .rpc(
                "tasks/pushNotificationConfig/list",
                Some(json!({"id": task_id})),
            )
            .await?;
        Ok(v.as_array()
            .unwrap_or_else(|| panic!("the list result is an array: {v}"))
            .iter()
            .map(push)
            .collect())
    }

    async fn delete_push(&self, task_id: &str, config_id: &str) -> Result<(), WireError> {
        let params = json!({"id": task_id, "pushNotificationConfigId": config_id});
        let v = self
            .rpc("tasks/pushNotificationConfig/delete", Some(params))
            .await?;
        assert_eq!(v, Value::Null, "the delete result is null");
        Ok(())
    }

    async fn framing(&self, framing: Framing) -> Option<WireError> {
        let e = match framing {
            Framing::MalformedPayload => self.raw(r#"{"jsonrpc": "2.0", "id": 1, "method": "#).await,
            Framing::UnknownMethod => {
                self.raw(r#"{"jsonrpc": "2.0", "id": 1, "method": "tasks/frobnicate", "params": {}}"#)
                    .await
            }
            Framing::InvalidRequest => {
                self.raw(r#"{"jsonrpc": "1.0", "id": 1, "method": "tasks/get", "params": {"id": "x"}}"#)
                    .await
            }
            Framing::MissingMessage => {
                self.raw(r#"{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"configuration": {"blocking": true}}}"#)
                    .await
            }
        };
        Some(e)
    }
}
