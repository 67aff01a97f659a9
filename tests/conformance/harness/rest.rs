//! The HTTP+JSON driver: protobuf-JSON literals on the routes of the
//! proto's `google.api.http` rules, answers read by hand (camelCase keys,
//! `TASK_STATE_*` names, `content` for message parts, no `kind` anywhere:
//! the Python SDK's client parses REST answers strictly).

use a2a_types::TaskState;
use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{Value, json};

use super::model::*;
use super::sse;
use super::{Driver, Kind};

pub(crate) struct Rest {
    base: String,
    http: reqwest::Client,
}

impl Rest {
    pub(crate) fn new(base: &str) -> Self {
        Self {
            base: base.to_owned(),
            http: reqwest::Client::new(),
        }
    }

    fn request(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
        headers: &[(String, String)],
    ) -> reqwest::RequestBuilder {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        for (name, value) in headers {
            request = request.header(name, value);
        }
        request
    }

    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, WireError> {
        self.call_with(method, path, body, &[]).await
    }

    async fn call_with(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
        headers: &[(String, String)],
    ) -> Result<Value, WireError> {
        let response = self
            .request(method, path, body.as_ref(), headers)
            .send()
            .await
            .expect("the REST listener answers");
        read(response).await
    }

    async fn sse(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
        headers: &[(String, String)],
    ) -> Result<Events, WireError> {
        let response = self
            .request(method, path, body.as_ref(), headers)
            .header("accept", "text/event-stream")
            .send()
            .await
            .expect("the REST listener answers");
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        assert!(
            content_type.starts_with("text/event-stream"),
            "a REST stream is text/event-stream, errors included (HTTP {status}): {content_type}"
        );
        let events = sse::events(response).map(move |item| {
            let item = item.unwrap_or_else(|e| panic!("{e}"));
            let v: Value = serde_json::from_str(&item.data).expect("JSON data");
            if item.event == "error" {
                return Err(error(&v, status));
            }
            assert_eq!(item.event, "", "only errors are named events");
            assert!((200..300).contains(&status), "an event after HTTP {status}");
            assert_pure_proto_json(&v);
            Ok(event(&v))
        });
        Events::open(events.boxed()).await
    }
}

async fn read(response: reqwest::Response) -> Result<Value, WireError> {
    let status = response.status().as_u16();
    let bytes = response.bytes().await.expect("a body");
    let v: Value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("a JSON body (HTTP {status}): {e}: {bytes:?}"));
    if !(200..300).contains(&status) {
        return Err(error(&v, status));
    }
    assert_pure_proto_json(&v);
    Ok(v)
}

/// The REST error body `{"error": name, "code": code, "message": …, "data"?}`.
fn error(v: &Value, status: u16) -> WireError {
    let name = v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("an error body names its error: {v}"));
    let code = v["code"]
        .as_i64()
        .and_then(|c| i32::try_from(c).ok())
        .unwrap_or_else(|| panic!("an error body carries its code: {v}"));
    let expected_name = a2a_types::A2aError::from_code(code, "", None).name();
    assert_eq!(name, expected_name, "the error name matches the code: {v}");
    WireError {
        code: Some(code),
        message: v["message"].as_str().expect("a message").to_owned(),
        data: v.get("data").cloned(),
        evidence: Evidence::Http(status),
    }
}

/// Proto JSON has no `kind` discriminators (the JSON-schema shape's).
fn assert_pure_proto_json(v: &Value) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                assert_ne!(k, "kind", "a REST answer is pure proto JSON");
                // `metadata` and data parts are free-form.
                if k != "metadata" && k != "data" {
                    assert_pure_proto_json(v);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(assert_pure_proto_json),
        _ => {}
    }
}

fn text(v: &Value) -> String {
    v.as_str()
        .unwrap_or_else(|| panic!("a string: {v}"))
        .to_owned()
}

fn opt_text(v: &Value) -> Option<String> {
    v.as_str().filter(|s| !s.is_empty()).map(str::to_owned)
}

fn state(v: &Value) -> TaskState {
    match v.as_str().unwrap_or("TASK_STATE_UNSPECIFIED") {
        "TASK_STATE_SUBMITTED" => TaskState::Submitted,
        "TASK_STATE_WORKING" => TaskState::Working,
        "TASK_STATE_INPUT_REQUIRED" => TaskState::InputRequired,
        "TASK_STATE_COMPLETED" => TaskState::Completed,
        "TASK_STATE_CANCELLED" => TaskState::Canceled,
        "TASK_STATE_FAILED" => TaskState::Failed,
        "TASK_STATE_REJECTED" => TaskState::Rejected,
        "TASK_STATE_AUTH_REQUIRED" => TaskState::AuthRequired,
        "TASK_STATE_UNSPECIFIED" => TaskState::Unknown,
        other => panic!("not a proto task state name: {other:?}"),
    }
}

/// A proto `bytes` field: base64 in proto JSON. Our file bytes convention
/// (the Python SDK's): the field holds the ASCII of the base64 text.
fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::STANDARD
}

/// A path segment, percent-encoded (all but RFC 3986 unreserved characters).
fn seg(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A `google.protobuf.Struct` as JSON numbers compare: proto JSON prints
/// every Struct number as a double (`2.0`), which is the number 2.
#[allow(clippy::cast_possible_truncation)] // integral and small: exact
fn by_value(v: &Value) -> Value {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 9e15 => json!(f as i64),
            _ => v.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(by_value).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), by_value(v))).collect())
        }
        _ => v.clone(),
    }
}

fn part(p: &Value) -> PartView {
    use base64::Engine;
    let metadata = p.get("metadata").map(by_value);
    if let Some(t) = p.get("text") {
        PartView::Text {
            text: text(t),
            metadata,
        }
    } else if let Some(f) = p.get("file") {
        PartView::File {
            name: opt_text(&f["name"]),
            mime_type: opt_text(&f["mimeType"]),
            uri: opt_text(&f["fileWithUri"]),
            bytes: f["fileWithBytes"].as_str().map(|b| {
                let raw = b64().decode(b).expect("proto-JSON bytes are base64");
                String::from_utf8(raw).expect("the field holds base64 text")
            }),
            metadata,
        }
    } else if let Some(d) = p.get("data") {
        let keys: Vec<&String> = d.as_object().expect("a DataPart").keys().collect();
        assert_eq!(keys, ["data"], "a DataPart is {{\"data\": Struct}}: {p}");
        PartView::Data {
            data: by_value(&d["data"]),
            metadata,
        }
    } else {
        panic!("not a Part: {p}")
    }
}

fn part_json(p: &PartView) -> Value {
    use base64::Engine;
    let (mut v, metadata) = match p {
        PartView::Text { text, metadata } => (json!({"text": text}), metadata),
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
                file["fileWithUri"] = json!(u);
            }
            if let Some(b) = bytes {
                file["fileWithBytes"] = json!(b64().encode(b.as_bytes()));
            }
            (json!({"file": file}), metadata)
        }
        PartView::Data { data, metadata } => (json!({"data": {"data": data}}), metadata),
    };
    if let Some(m) = metadata {
        v["metadata"] = m.clone();
    }
    v
}

fn message(v: &Value) -> MsgView {
    assert!(
        v.get("parts").is_none(),
        "proto messages have `content`: {v}"
    );
    let role = match v["role"].as_str() {
        Some("ROLE_USER") => "user",
        Some("ROLE_AGENT") => "agent",
        other => panic!("not a proto role: {other:?}"),
    };
    let parts = v
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(part)
        .collect();
    MsgView::new(
        role,
        parts,
        v.get("metadata").map(by_value),
        text(&v["messageId"]),
        opt_text(&v["taskId"]),
        opt_text(&v["contextId"]),
    )
}

fn artifact(v: &Value) -> ArtifactView {
    ArtifactView::new(
        text(&v["artifactId"]),
        opt_text(&v["name"]),
        v.get("parts")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(part)
            .collect(),
    )
}

fn task(v: &Value) -> TaskView {
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

fn event(v: &Value) -> Event {
    let keys: Vec<&String> = v.as_object().expect("an object").keys().collect();
    assert_eq!(keys.len(), 1, "a StreamResponse holds one payload: {v}");
    if let Some(t) = v.get("task") {
        Event::Task(task(t))
    } else if let Some(m) = v.get("message") {
        Event::Message(message(m))
    } else if let Some(e) = v.get("statusUpdate") {
        Event::Status {
            task_id: text(&e["taskId"]),
            context_id: text(&e["contextId"]),
            state: state(&e["status"]["state"]),
            text: e["status"].get("message").map(|m| message(m).text),
            is_final: e["final"].as_bool().unwrap_or(false),
        }
    } else if let Some(e) = v.get("artifactUpdate") {
        Event::Artifact {
            task_id: text(&e["taskId"]),
            context_id: text(&e["contextId"]),
            artifact: artifact(&e["artifact"]),
            append: e["append"].as_bool().unwrap_or(false),
            last_chunk: e["lastChunk"].as_bool().unwrap_or(false),
        }
    } else {
        panic!("not a StreamResponse: {v}")
    }
}

/// `tasks/{t}/pushNotificationConfigs/{c}` → `(t, c)`.
fn config_name(name: &str) -> (String, String) {
    let rest = name
        .strip_prefix("tasks/")
        .unwrap_or_else(|| panic!("a config name: {name}"));
    let (task, config) = rest
        .split_once("/pushNotificationConfigs/")
        .unwrap_or_else(|| panic!("a config name: {name}"));
    (task.to_owned(), config.to_owned())
}

fn push(v: &Value) -> PushView {
    let (task_id, id) = config_name(&text(&v["name"]));
    let c = &v["pushNotificationConfig"];
    if let Some(inner) = opt_text(&c["id"]) {
        assert_eq!(inner, id, "the name and the config agree: {v}");
    }
    PushView {
        task_id,
        id,
        url: text(&c["url"]),
        token: opt_text(&c["token"]),
    }
}

fn message_json(s: &UserMessage) -> Value {
    let content: Vec<Value> = s
        .parts
        .iter()
        .map(|t| json!({"text": t}))
        .chain(s.extra.iter().map(part_json))
        .collect();
    let mut message = json!({
        "messageId": s.message_id,
        "role": "ROLE_USER",
        "content": content,
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
    message
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

fn send_body(s: &UserMessage) -> Value {
    let mut configuration = json!({"blocking": s.blocking});
    if let Some(n) = s.history_length {
        configuration["historyLength"] = json!(n);
    }
    if !s.accepted_output_modes.is_empty() {
        configuration["acceptedOutputModes"] = json!(s.accepted_output_modes);
    }
    if let Some(p) = &s.push {
        configuration["pushNotification"] = push_config(p);
    }
    json!({"message": message_json(s), "configuration": configuration})
}

#[async_trait]
impl Driver for Rest {
    fn kind(&self) -> Kind {
        Kind::Rest
    }

    fn url(&self) -> Option<String> {
        Some(self.base.clone())
    }

    async fn card(&self) -> Result<CardView, WireError> {
        let response = self
            .request(
                reqwest::Method::GET,
                "/.well-known/agent-card.json",
                None,
                &[],
            )
            .send()
            .await
            .expect("the card route answers");
        assert_eq!(response.status(), 200);
        let v: Value = response.json().await.expect("a JSON card");
        Ok(super::jsonrpc::card(&v))
    }

    async fn extended_card(&self) -> Result<CardView, WireError> {
        let response = self
            .request(reqwest::Method::GET, "/v1/card", None, &[])
            .send()
            .await
            .expect("the card route answers");
        let status = response.status().as_u16();
        let v: Value = response.json().await.expect("a JSON body");
        if !(200..300).contains(&status) {
            return Err(error(&v, status));
        }
        // The card is in the JSON-schema shape, as the Python SDK serves it.
        Ok(super::jsonrpc::card(&v))
    }

    async fn send(&self, s: &UserMessage) -> Result<Reply, WireError> {
        let v = self
            .call_with(
                reqwest::Method::POST,
                "/v1/message:send",
                Some(send_body(s)),
                &s.headers,
            )
            .await?;
        let keys: Vec<&String> = v.as_object().expect("an object").keys().collect();
        assert_eq!(
            keys.len(),
            1,
            "a SendMessageResponse holds one payload: {v}"
        );
        if let Some(t) = v.get("task") {
            Ok(Reply::Task(task(t)))
        } else if let Some(m) = v.get("message") {
            Ok(Reply::Message(message(m)))
        } else {
            panic!("not a SendMessageResponse: {v}")
        }
    }

    async fn stream(&self, s: &UserMessage) -> Result<Events, WireError> {
        self.sse(
            reqwest::Method::POST,
            "/v1/message:stream",
            Some(send_body(s)),
            &s.headers,
        )
        .await
    }

    async fn get(&self, task_id: &str, history_length: Option<i32>) -> Result<TaskView, WireError> {
        let mut path = format!("/v1/tasks/{}", seg(task_id));
        if let Some(n) = history_length {
            path.push_str(&format!("?historyLength={n}"));
        }
        self.call(reqwest::Method::GET, &path, None)
            .await
            .map(|v| task(&v))
    }

    async fn cancel(&self, task_id: &str) -> Result<TaskView, WireError> {
        let body = json!({"name": format!("tasks/{task_id}")});
        self.call(
            reqwest::Method::POST,
            &format!("/v1/tasks/{}:cancel", seg(task_id)),
            Some(body),
        )
        .await
        .map(|v| task(&v))
    }

    async fn resubscribe(&self, task_id: &str) -> Result<Events, WireError> {
        self.sse(
            reqwest::Method::GET,
            &format!("/v1/tasks/{}:subscribe", seg(task_id)),
            None,
            &[],
        )
        .await
    }

    async fn set_push(&self, task_id: &str, p: &PushSpec) -> Result<PushView, WireError> {
        // The whole CreateTaskPushNotificationConfigRequest, as the Python
        // SDK's client sends it.
        let mut body = json!({
            "parent": format!("tasks/{task_id}"),
            "config": {"pushNotificationConfig": push_config(p)},
        });
        if let Some(id) = &p.id {
            body["configId"] = json!(id);
            body["config"]["name"] = json!(format!("tasks/{task_id}/pushNotificationConfigs/{id}"));
        }
        self.call(
            reqwest::Method::POST,
            &format!("/v1/tasks/{}/pushNotificationConfigs", seg(task_id)),
            Some(body),
        )
        .await
        .map(|v| push(&v))
    }

    async fn get_push(&self, task_id: &str, config_id: &str) -> Result<PushView, WireError> {
        self.call(
            reqwest::Method::GET,
            &format!(
                "/v1/tasks/{}/pushNotificationConfigs/{}",
                seg(task_id),
                seg(config_id)
            ),
            None,
        )
        .await
        .map(|v| push(&v))
    }

    async fn list_push(&self, task_id: &str) -> Result<Vec<PushView>, WireError> {
        let v = self
            .call(
                reqwest::Method::GET,
                &format!("/v1/tasks/{}/pushNotificationConfigs", seg(task_id)),
                None,
            )
            .await?;
        Ok(v.get("configs")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(push)
            .collect())
    }

    async fn delete_push(&self, task_id: &str, config_id: &str) -> Result<(), WireError> {
        let v = self
            .call(
                reqwest::Method::DELETE,
                &format!(
                    "/v1/tasks/{}/pushNotificationConfigs/{}",
                    seg(task_id),
                    seg(config_id)
                ),
                None,
            )
            .await?;
        assert_eq!(v, json!({}), "DELETE answers google.protobuf.Empty");
        Ok(())
    }

    async fn framing(&self, framing: Framing) -> Option<WireError> {
        let (method, path, body) = match framing {
            Framing::MalformedPayload => {
                (reqwest::Method::POST, "/v1/message:send", r#"{"message": "#)
            }
            Framing::UnknownMethod => (reqwest::Method::POST, "/v1/frobnicate", "{}"),
            Framing::InvalidRequest => (
                reqwest::Method::POST,
                "/v1/message:send",
                r#"{"message": {"messageId": "m", "role": "ROLE_USER", "content": "hi"}}"#,
            ),
            Framing::MissingMessage => (
                reqwest::Method::POST,
                "/v1/message:send",
                r#"{"configuration": {"blocking": true}}"#,
            ),
        };
        let response = self
            .http
            .request(method, format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .expect("the REST listener answers");
        Some(read(response).await.expect_err("an error answer"))
    }
}
