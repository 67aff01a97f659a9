//! Bodies: reading and checking them, the lenient pre-cleaning of what real
//! clients send, protobuf JSON (pbjson) both ways, and the `Z` timestamps.

use std::time::Duration;

use a2a_pb::v1;
use a2a_types::A2aError;
use axum::body::{Body, HttpBody as _};
use axum::http::HeaderMap;
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use bytes::Bytes;
use http_body_util::BodyExt;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// How long a rejected oversized body is still read (and discarded), so the
/// client reads the error instead of a reset connection.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Accepts `application/json` (any parameters), any `application/*+json`
/// and a missing `Content-Type`; anything else is
/// `ContentTypeNotSupportedError` (HTTP 415).
pub(crate) fn check_content_type(headers: &HeaderMap) -> Result<(), A2aError> {
    let Some(value) = headers.get(CONTENT_TYPE) else {
        return Ok(());
    };
    let essence = value
        .to_str()
        .unwrap_or_default()
        .split(';')
        .next()
        .unwrap_or_default()
        .trim();
    let json = essence.eq_ignore_ascii_case("application/json")
        || essence.split_once('/').is_some_and(|(ty, sub)| {
            ty.eq_ignore_ascii_case("application")
                && sub.len() > 5
                && sub[sub.len() - 5..].eq_ignore_ascii_case("+json")
        });
    if json {
        Ok(())
    } else {
        let shown: String = essence.chars().take(100).collect();
        Err(A2aError::content_type_not_supported(format!(
            "Content-Type must be application/json, got {shown:?}"
        )))
    }
}

fn payload_too_large(limit: usize) -> A2aError {
    A2aError::invalid_request(format!(
        "Payload too large: the request body exceeds {limit} bytes"
    ))
}

/// Reads the whole body, refusing more than `limit` bytes
/// (`InvalidRequestError`).
pub(crate) async fn read_body(
    mut body: Body,
    headers: &HeaderMap,
    limit: usize,
) -> Result<Bytes, A2aError> {
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        drain(body, limit).await;
        return Err(payload_too_large(limit));
    }
    let mut buf: Vec<u8> = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            A2aError::invalid_request(format!("could not read the request body: {e}"))
        })?;
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        if buf.len() + data.len() > limit {
            drain(body, limit).await;
            return Err(payload_too_large(limit));
        }
        if buf.is_empty() && body.is_end_stream() {
            return Ok(data); // one frame: no copy
        }
        buf.extend_from_slice(&data);
    }
    Ok(Bytes::from(buf))
}

/// Reads and discards up to `limit` more bytes, for at most [`DRAIN_TIMEOUT`].
async fn drain(mut body: Body, limit: usize) {
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, async {
        let mut seen = 0usize;
        while seen <= limit {
            match body.frame().await {
                Some(Ok(frame)) => seen += frame.data_ref().map_or(0, Bytes::len),
                _ => break,
            }
        }
    })
    .await;
}

/// Parses the body as JSON: `JSONParseError` (HTTP 400) when it is not.
pub(crate) fn parse_json(bytes: &[u8]) -> Result<Value, A2aError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(A2aError::json_parse(
            "Invalid JSON payload: the request body is empty",
        ));
    }
    serde_json::from_slice(bytes)
        .map_err(|e| A2aError::json_parse(format!("Invalid JSON payload: {e}")))
}

/// Decodes a protobuf-JSON message with pbjson (camelCase or snake_case
/// keys, enum names or numbers, unknown keys ignored). A body of the wrong
/// shape is `InvalidRequestError` (HTTP 400) naming the member at fault.
pub(crate) fn decode<T: DeserializeOwned>(value: Value, what: &str) -> Result<T, A2aError> {
    if !value.is_object() {
        return Err(A2aError::invalid_request(format!(
            "Invalid {what}: the body must be a JSON object"
        )));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let at = if path.is_empty() || path == "." {
            String::new()
        } else {
            format!(" at `{path}`")
        };
        A2aError::invalid_request(format!("Invalid {what}{at}: {}", e.into_inner()))
    })
}

// ---------------------------------------------------------------------------
// Lenient pre-cleaning (NOTES §11): applied to the JSON before pbjson reads it
// ---------------------------------------------------------------------------

/// Cleans a `SendMessageRequest`: every part of `message.content` (or
/// `request.content`, the proto field name) goes through [`clean_part`].
pub(crate) fn clean_send_request(body: &mut Value) {
    let Some(obj) = body.as_object_mut() else {
        return;
    };
    for key in ["message", "request"] {
        if let Some(parts) = obj
            .get_mut(key)
            .and_then(|m| m.get_mut("content"))
            .and_then(Value::as_array_mut)
        {
            parts.iter_mut().for_each(clean_part);
        }
    }
}

/// A file part carrying both oneof members (what the TCK sends:
/// `{"file_with_uri":"","file_with_bytes":"…"}`) keeps the non-empty one
/// (bytes when both are non-empty). A data part whose `data` is not the
/// canonical `{"data":{…}}` wrapper (an object whose only key is `data`) is
/// taken as the payload itself and wrapped.
fn clean_part(part: &mut Value) {
    let Some(part) = part.as_object_mut() else {
        return;
    };
    if let Some(file) = part.get_mut("file").and_then(Value::as_object_mut) {
        let uri = ["fileWithUri", "file_with_uri"]
            .into_iter()
            .find(|k| file.contains_key(*k));
        let bytes = ["fileWithBytes", "file_with_bytes"]
            .into_iter()
            .find(|k| file.contains_key(*k));
        if let (Some(uri), Some(bytes)) = (uri, bytes) {
            let empty = |v: &Value| v.is_null() || v.as_str().is_some_and(str::is_empty);
            if file.get(bytes).is_some_and(empty) {
                file.remove(bytes);
            } else {
                file.remove(uri);
            }
        }
    }
    if let Some(Value::Object(data)) = part.get_mut("data") {
        let canonical = data.len() == 1
            && data
                .get("data")
                .is_some_and(|d| d.is_object() || d.is_null());
        if !canonical {
            let payload = std::mem::take(data);
            data.insert("data".to_owned(), Value::Object(payload));
        }
    }
}

/// The Python SDK client formats a missing config id as the literal `None`
/// (`configId: "None"` or a name ending in `/None`): both mean "no id".
fn is_python_none(v: Option<&Value>, whole: bool) -> bool {
    v.and_then(Value::as_str).is_some_and(|s| {
        if whole {
            s == "None"
        } else {
            s.ends_with("/None")
        }
    })
}

fn clean_config(config: &mut Map<String, Value>) {
    if is_python_none(config.get("name"), false) {
        config.remove("name");
    }
}

/// What the body of `POST /v1/tasks/{id}/pushNotificationConfigs` holds.
#[derive(Debug)]
pub(crate) enum CreateBody {
    /// The whole `CreateTaskPushNotificationConfigRequest` (`parent`,
    /// `configId`, `config`), as the Python SDK client and the TCK send it.
    Request(v1::CreateTaskPushNotificationConfigRequest),
    /// The bare `TaskPushNotificationConfig` (the proto's `body: "config"`).
    Config(v1::TaskPushNotificationConfig),
}

/// Decodes the create-config body in either shape: an object with a `parent`
/// or `config` key is the whole request; one with a `url` key and no
/// `pushNotificationConfig` is a bare `PushNotificationConfig`; anything
/// else is a `TaskPushNotificationConfig`. The Python SDK's `None` ids are
/// removed first.
pub(crate) fn decode_create_body(mut body: Value) -> Result<CreateBody, A2aError> {
    let Some(obj) = body.as_object_mut() else {
        return decode::<v1::TaskPushNotificationConfig>(body, "TaskPushNotificationConfig")
            .map(CreateBody::Config);
    };
    if obj.contains_key("parent") || obj.contains_key("config") {
        for key in ["configId", "config_id"] {
            if is_python_none(obj.get(key), true) {
                obj.remove(key);
            }
        }
        if let Some(Value::Object(config)) = obj.get_mut("config") {
            clean_config(config);
        }
        return decode(body, "CreateTaskPushNotificationConfigRequest").map(CreateBody::Request);
    }
    let wrapped = !obj.contains_key("pushNotificationConfig")
        && !obj.contains_key("push_notification_config");
    if wrapped && obj.contains_key("url") {
        let config: v1::PushNotificationConfig = decode(body, "PushNotificationConfig")?;
        return Ok(CreateBody::Config(v1::TaskPushNotificationConfig {
            name: String::new(),
            push_notification_config: Some(config),
        }));
    }
    clean_config(obj);
    decode(body, "TaskPushNotificationConfig").map(CreateBody::Config)
}

// ---------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------

// The pbjson reference: what `proto_out` (the hot answers) is held to in
// the tests. pbjson writes `TaskStatus.timestamp` as `+00:00`; the binding
// answers `Z`, so the reference rewrites it. Push-config answers (no
// timestamp) are served by `serde_json` over pbjson directly.

/// A protobuf message this binding answers with, and where its
/// `TaskStatus` objects are (their `timestamp` is rewritten to end in `Z`).
#[cfg(test)]
pub(crate) trait ProtoJson: serde::Serialize {
    /// The paths of the objects holding a `TaskStatus.timestamp`.
    const STATUS_AT: &'static [&'static [&'static str]];
}

#[cfg(test)]
impl ProtoJson for v1::Task {
    const STATUS_AT: &'static [&'static [&'static str]] = &[&["status"]];
}

#[cfg(test)]
impl ProtoJson for v1::SendMessageResponse {
    const STATUS_AT: &'static [&'static [&'static str]] = &[&["task", "status"]];
}

#[cfg(test)]
impl ProtoJson for v1::StreamResponse {
    const STATUS_AT: &'static [&'static [&'static str]] =
        &[&["task", "status"], &["statusUpdate", "status"]];
}

/// The canonical protobuf JSON of `msg` (pbjson: camelCase, enum names,
/// default values omitted) as compact bytes, with `TaskStatus.timestamp` in
/// UTC ending in `Z` (pbjson writes `+00:00`): serialized straight into the
/// buffer, then each status timestamp is found by walking the compact JSON
/// along its path (no `Value` tree) and rewritten in place.
#[cfg(test)]
pub(crate) fn to_json_bytes<T: ProtoJson>(msg: &T) -> Result<Vec<u8>, A2aError> {
    let mut buf = Vec::with_capacity(1024);
    serde_json::to_writer(&mut buf, msg)
        .map_err(|e| A2aError::internal(format!("could not encode the answer: {e}")))?;
    for path in T::STATUS_AT {
        let mut at = Some(0);
        for key in *path {
            at = at.and_then(|start| json_scan::member(&buf, start, key));
        }
        if let Some(start) = at
            && let Some(ts_start) = json_scan::member(&buf, start, "timestamp")
            && buf[ts_start] == b'"'
            && let Some(ts_end) = json_scan::skip_value(&buf, ts_start)
            && buf[..ts_end].ends_with(b"+00:00\"")
        {
            buf.splice(ts_end - 7..ts_end, *b"Z\"");
        }
    }
    Ok(buf)
}

/// Just enough of a JSON reader to find a member in compact, valid JSON
/// (what `serde_json` writes): byte ranges, no allocation.
#[cfg(test)]
mod json_scan {
    /// Where the value of member `key` of the object starting at `start`
    /// starts, if `start` is an object holding that (literal) key. Only the
    /// members before it are skipped.
    pub(super) fn member(buf: &[u8], start: usize, key: &str) -> Option<usize> {
        if buf.get(start) != Some(&b'{') {
            return None;
        }
        let mut i = start + 1;
        loop {
            match buf.get(i)? {
                b'}' => return None,
                b',' => i += 1,
                b'"' => {
                    let key_end = skip_value(buf, i)?;
                    let name = &buf[i + 1..key_end - 1];
                    if buf.get(key_end) != Some(&b':') {
                        return None;
                    }
                    let value_start = key_end + 1;
                    if name == key.as_bytes() {
                        return Some(value_start);
                    }
                    i = skip_value(buf, value_start)?;
                }
                _ => return None,
            }
        }
    }

    /// The end (exclusive) of the value starting at `i`.
    pub(super) fn skip_value(buf: &[u8], mut i: usize) -> Option<usize> {
        match buf.get(i)? {
            b'"' => {
                i += 1;
                loop {
                    i += memchr::memchr2(b'"', b'\\', buf.get(i..)?)?;
                    match buf[i] {
                        b'\\' => i += 2,
                        _ => return Some(i + 1),
                    }
                }
            }
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match buf.get(i)? {
                        b'{' | b'[' => {
                            depth += 1;
                            i += 1;
                        }
                        b'}' | b']' => {
                            depth -= 1;
                            i += 1;
                            if depth == 0 {
                                return Some(i);
                            }
                        }
                        b'"' => i = skip_value(buf, i)?,
                        _ => i += 1,
                    }
                }
            }
            _ => {
                while !matches!(buf.get(i), None | Some(b',' | b'}' | b']')) {
                    i += 1;
                }
                Some(i)
            }
        }
    }
}

/// The `Value` form of [`to_json_bytes`] (what it is checked against).
#[cfg(test)]
pub(crate) fn to_json<T: ProtoJson>(msg: &T) -> Result<Value, A2aError> {
    let mut value = serde_json::to_value(msg)
        .map_err(|e| A2aError::internal(format!("could not encode the answer: {e}")))?;
    for path in T::STATUS_AT {
        let mut at = Some(&mut value);
        for key in *path {
            at = at.and_then(|v| v.get_mut(*key));
        }
        if let Some(Value::String(ts)) = at.and_then(|status| status.get_mut("timestamp"))
            && let Some(utc) = ts.strip_suffix("+00:00")
        {
            *ts = format!("{utc}Z");
        }
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn both_file_members_keep_the_non_empty_one() {
        let mut body = json!({"message": {"content": [
            {"file": {"file_with_uri": "", "file_with_bytes": "aGk=", "mime_type": "text/plain"}},
            {"file": {"fileWithUri": "http://x/y", "fileWithBytes": ""}},
            {"file": {"fileWithUri": "http://x/y", "fileWithBytes": "aGk="}},
            {"text": "hi"}
        ]}});
        clean_send_request(&mut body);
        let parts = &body["message"]["content"];
        assert_eq!(
            parts[0]["file"],
            json!({"file_with_bytes": "aGk=", "mime_type": "text/plain"})
        );
        assert_eq!(parts[1]["file"], json!({"fileWithUri": "http://x/y"}));
        assert_eq!(parts[2]["file"], json!({"fileWithBytes": "aGk="}));
        assert_eq!(parts[3], json!({"text": "hi"}));
    }

    #[test]
    fn data_parts_are_wrapped_when_not_canonical() {
        let mut body = json!({"request": {"content": [
            {"data": {"data": {"a": 1}}},
            {"data": {"a": 1}},
            {"data": {"data": 5, "b": 2}}
        ]}});
        clean_send_request(&mut body);
        let parts = &body["request"]["content"];
        assert_eq!(parts[0], json!({"data": {"data": {"a": 1}}}));
        assert_eq!(parts[1], json!({"data": {"data": {"a": 1}}}));
        assert_eq!(parts[2], json!({"data": {"data": {"data": 5, "b": 2}}}));
    }

    #[test]
    fn create_bodies() {
        let req = decode_create_body(json!({
            "parent": "tasks/t", "configId": "None",
            "config": {"name": "tasks/t/pushNotificationConfigs/None",
                       "pushNotificationConfig": {"url": "http://h/"}}
        }))
        .expect("request");
        let CreateBody::Request(r) = req else {
            panic!("a request")
        };
        assert_eq!((r.parent.as_str(), r.config_id.as_str()), ("tasks/t", ""));
        assert_eq!(r.config.expect("config").name, "");

        let CreateBody::Config(c) = decode_create_body(
            json!({"push_notification_config": {"url": "http://h/", "id": "c"}}),
        )
        .expect("config") else {
            panic!("a config")
        };
        assert_eq!(c.push_notification_config.expect("pnc").id, "c");

        let CreateBody::Config(c) =
            decode_create_body(json!({"url": "http://h/", "token": "tok"})).expect("bare")
        else {
            panic!("a config")
        };
        assert_eq!(c.push_notification_config.expect("pnc").token, "tok");
        assert_eq!(
            decode_create_body(json!([1]))
                .map(|_| ())
                .map_err(|e| e.code()),
            Err(-32600)
        );
    }

    #[test]
    fn bytes_and_value_encodings_agree() {
        use a2a_pb::convert::timestamp_from_rfc3339;
        let status = |state: v1::TaskState, with_message: bool| v1::TaskStatus {
            state: state as i32,
            update: with_message.then(|| v1::Message {
                message_id: "m".to_owned(),
                content: vec![v1::Part {
                    part: Some(v1::part::Part::Text(
                        r#"a "timestamp":"2025-07-31T08:00:00+00:00" {[\"#.to_owned(),
                    )),
                    metadata: None,
                }],
                metadata: Some(a2a_pb::convert::struct_from_json(
                    json!({"timestamp": "2025-07-31T08:00:00.500+00:00", "x": [1, {"y": null}]})
                        .as_object()
                        .cloned()
                        .unwrap_or_default(),
                )),
                ..Default::default()
            }),
            timestamp: timestamp_from_rfc3339("2025-07-31T10:00:00.5+02:00"),
        };
        let task = v1::Task {
            id: "t".to_owned(),
            context_id: "c".to_owned(),
            status: Some(status(v1::TaskState::Completed, true)),
            ..Default::default()
        };
        let check = |bytes: Vec<u8>, value: Value| {
            let parsed: Value = serde_json::from_slice(&bytes).expect("valid JSON");
            assert_eq!(parsed, value);
        };
        check(
            to_json_bytes(&task).expect("bytes"),
            to_json(&task).expect("value"),
        );
        let response = v1::SendMessageResponse {
            payload: Some(v1::send_message_response::Payload::Task(task.clone())),
        };
        let bytes = to_json_bytes(&response).expect("bytes");
        assert!(
            String::from_utf8_lossy(&bytes).contains(r#""timestamp":"2025-07-31T08:00:00.500Z""#)
        );
        check(bytes, to_json(&response).expect("value"));
        for payload in [
            v1::stream_response::Payload::Task(task),
            v1::stream_response::Payload::StatusUpdate(v1::TaskStatusUpdateEvent {
                task_id: "t".to_owned(),
                context_id: "c".to_owned(),
                status: Some(status(v1::TaskState::Working, true)),
                r#final: false,
                metadata: None,
            }),
            v1::stream_response::Payload::StatusUpdate(v1::TaskStatusUpdateEvent {
                status: Some(v1::TaskStatus {
                    timestamp: None,
                    ..status(v1::TaskState::Working, false)
                }),
                ..Default::default()
            }),
        ] {
            let event = v1::StreamResponse {
                payload: Some(payload),
            };
            check(
                to_json_bytes(&event).expect("bytes"),
                to_json(&event).expect("value"),
            );
        }
    }

    #[test]
    fn timestamps_end_in_z() {
        let task = v1::Task {
            id: "t".to_owned(),
            status: Some(v1::TaskStatus {
                state: v1::TaskState::Completed as i32,
                update: None,
                timestamp: a2a_pb::convert::timestamp_from_rfc3339("2025-07-31T10:00:00.5+02:00"),
            }),
            ..Default::default()
        };
        let v = to_json(&task).expect("json");
        assert_eq!(v["status"]["timestamp"], "2025-07-31T08:00:00.500Z");
        assert_eq!(v["status"]["state"], "TASK_STATE_COMPLETED");
        let event = v1::StreamResponse {
            payload: Some(v1::stream_response::Payload::Task(task)),
        };
        let v = to_json(&event).expect("json");
        assert_eq!(v["task"]["status"]["timestamp"], "2025-07-31T08:00:00.500Z");
    }
}
