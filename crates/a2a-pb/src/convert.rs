//! Conversions between the [`a2a_types`] data model (the JSON-RPC / JSON
//! Schema shape) and the protobuf messages of [`crate::v1`].
//!
//! - **types → pb** is `From`: every value has a protobuf form.
//! - **pb → types** is `TryFrom`, with error [`A2aError`] (always
//!   `InvalidParamsError`, with a message naming the field) for a malformed
//!   resource name, a missing required field, or an unspecified or unknown
//!   enum value where one is required. It never panics.
//!
//! | a2a-types | protobuf |
//! |---|---|
//! | [`a2a_types::Task`], [`Message`](a2a_types::Message), [`Part`](a2a_types::Part), [`Artifact`](a2a_types::Artifact), [`TaskStatus`](a2a_types::TaskStatus), the two update events | the messages of the same names |
//! | [`a2a_types::TaskState`], [`Role`](a2a_types::Role) | [`v1::TaskState`], [`v1::Role`] |
//! | [`a2a_types::AgentCard`] and its parts, [`SecurityScheme`](a2a_types::SecurityScheme), [`OAuthFlows`](a2a_types::OAuthFlows) | the messages of the same names |
//! | [`a2a_types::PushNotificationConfig`], [`TaskPushNotificationConfig`](a2a_types::TaskPushNotificationConfig) | the messages of the same names |
//! | [`a2a_types::MessageSendParams`] | [`v1::SendMessageRequest`] |
//! | [`a2a_types::TaskQueryParams`] | [`v1::GetTaskRequest`] |
//! | [`a2a_types::TaskIdParams`] | [`v1::CancelTaskRequest`], [`v1::TaskSubscriptionRequest`] |
//! | [`a2a_types::TaskPushNotificationConfig`] (`…/set` params) | [`v1::CreateTaskPushNotificationConfigRequest`] |
//! | [`a2a_types::GetTaskPushNotificationConfigParams`] | [`v1::GetTaskPushNotificationConfigRequest`] |
//! | [`a2a_types::ListTaskPushNotificationConfigParams`] | [`v1::ListTaskPushNotificationConfigRequest`] |
//! | [`a2a_types::DeleteTaskPushNotificationConfigParams`] | [`v1::DeleteTaskPushNotificationConfigRequest`] |
//! | `Vec<a2a_types::TaskPushNotificationConfig>` (`…/list` result) | [`v1::ListTaskPushNotificationConfigResponse`] |
//! | [`a2a_types::SendMessageResult`] | [`v1::SendMessageResponse`] |
//! | [`a2a_types::StreamResponse`] | [`v1::StreamResponse`] |
//!
//! # Where the models differ
//!
//! - **Resource names.** Protobuf names tasks `tasks/{task_id}` and push
//!   configs `tasks/{task_id}/pushNotificationConfigs/{config_id}`; JSON-RPC
//!   uses plain ids. See [`task_name`], [`parse_task_name`],
//!   [`push_config_name`], [`parse_push_config_name`]. Ids containing `/`
//!   cannot be named. A missing push config id is defaulted to the task id
//!   (as the Python SDK does), so `id: None` comes back as `Some(task_id)`.
//! - **Enums.** `TaskState` maps name by name, `canceled` ↔
//!   `TASK_STATE_CANCELLED` and `unknown` ↔ `TASK_STATE_UNSPECIFIED`; a value
//!   this crate does not know also reads as `unknown`. `Role` has no unknown
//!   variant: `ROLE_UNSPECIFIED` (or an unknown value) is an error.
//! - **Absent vs empty.** Proto3 scalars have no presence. An empty string
//!   reads as `None`, an empty list as `None`, `false` as `None` and
//!   `history_length == 0` as `None` (the JSON-RPC meaning of absent is the
//!   same in each case). The exception is `blocking`, below.
//! - **`blocking`.** JSON-RPC treats an absent `blocking` as `true`; a proto3
//!   bool cannot be absent. So types → pb writes `blocking: true` for `None`,
//!   and pb → types always yields `Some(blocking)` when the configuration is
//!   present (a proto peer that leaves it unset means non-blocking, as in the
//!   Python SDK). An absent configuration stays absent.
//! - **Metadata** (`google.protobuf.Struct` ↔ `serde_json::Map`): Struct
//!   numbers are doubles, so integers beyond ±2^53 lose precision, and a
//!   double with an integral value reads back as an integer (`1.0` → `1`).
//!   Non-finite doubles read as `null`. See [`struct_from_json`],
//!   [`json_from_struct`].
//! - **Timestamps** (RFC 3339 string ↔ `google.protobuf.Timestamp`): the
//!   instant is kept, the spelling is not: pb → types writes UTC with `Z` and
//!   0, 3, 6 or 9 fraction digits. A string that is not RFC 3339 is dropped
//!   (types → pb). See [`timestamp_from_rfc3339`], [`rfc3339_from_timestamp`].
//! - **File bytes.** JSON-RPC carries base64 text. Following the Python SDK
//!   (NOTES §5), the *ASCII bytes of that base64 text* go into
//!   `FilePart.file_with_bytes`, not the decoded bytes. Reading, bytes that are
//!   valid base64 text are taken as is; any other bytes (a peer that put the
//!   raw content there) are base64-encoded. See [`file_bytes_to_pb`],
//!   [`file_bytes_from_pb`].
//! - **OAuth flows.** JSON allows several flows in one `OAuthFlows`; the proto
//!   has a oneof. types → pb keeps only the **first** present in the order
//!   `authorizationCode`, `clientCredentials`, `implicit`, `password`; the
//!   others are lost.
//! - **Fields only one side has** (lost in conversion):
//!   `Message.referenceTaskIds` and `AgentCapabilities.stateTransitionHistory`
//!   (JSON-RPC only); the `metadata` of `TaskQueryParams`, `TaskIdParams` and
//!   the push-config params (JSON-RPC only); `page_size`/`page_token` of the
//!   list request and `next_page_token` of its response (proto only).
//! - **`preferredTransport`**: an empty proto value reads as `"JSONRPC"`, as
//!   the proto documents.

use std::collections::{BTreeMap, HashMap};

use a2a_types as t;
use a2a_types::A2aError;
use base64::Engine as _;
use pbjson_types::value::Kind;
use serde_json::{Map, Number, Value};

use crate::v1;

// ---------------------------------------------------------------------------
// Resource names
// ---------------------------------------------------------------------------

const TASKS_PREFIX: &str = "tasks/";
const CONFIGS_SEGMENT: &str = "/pushNotificationConfigs/";

/// The resource name of a task: `tasks/{task_id}`.
///
/// ```
/// assert_eq!(a2a_pb::convert::task_name("t-1"), "tasks/t-1");
/// ```
#[must_use]
pub fn task_name(task_id: &str) -> String {
    format!("{TASKS_PREFIX}{task_id}")
}

/// The resource name of a push notification config:
/// `tasks/{task_id}/pushNotificationConfigs/{config_id}`.
///
/// ```
/// assert_eq!(
///     a2a_pb::convert::push_config_name("t-1", "c-1"),
///     "tasks/t-1/pushNotificationConfigs/c-1"
/// );
/// ```
#[must_use]
pub fn push_config_name(task_id: &str, config_id: &str) -> String {
    format!("{TASKS_PREFIX}{task_id}{CONFIGS_SEGMENT}{config_id}")
}

/// The task id of a task resource name `tasks/{task_id}`.
///
/// # Errors
///
/// `InvalidParamsError` when `name` is not exactly `tasks/` followed by a
/// non-empty id without `/`.
///
/// ```
/// use a2a_pb::convert::parse_task_name;
///
/// assert_eq!(parse_task_name("tasks/t-1").unwrap(), "t-1");
/// assert_eq!(parse_task_name("task/t-1").unwrap_err().code(), -32602);
/// ```
pub fn parse_task_name(name: &str) -> Result<&str, A2aError> {
    name.strip_prefix(TASKS_PREFIX)
        .filter(|id| is_segment(id))
        .ok_or_else(|| {
            A2aError::invalid_params(format!(
                "invalid task name `{name}`: expected `tasks/{{task_id}}`"
            ))
        })
}

/// The `(task_id, config_id)` of a push notification config resource name
/// `tasks/{task_id}/pushNotificationConfigs/{config_id}`.
///
/// # Errors
///
/// `InvalidParamsError` when `name` does not have that exact shape with two
/// non-empty ids without `/`.
///
/// ```
/// use a2a_pb::convert::parse_push_config_name;
///
/// assert_eq!(
///     parse_push_config_name("tasks/t-1/pushNotificationConfigs/c-1").unwrap(),
///     ("t-1", "c-1")
/// );
/// assert!(parse_push_config_name("tasks/t-1").is_err());
/// ```
pub fn parse_push_config_name(name: &str) -> Result<(&str, &str), A2aError> {
    name.strip_prefix(TASKS_PREFIX)
        .and_then(|rest| rest.split_once(CONFIGS_SEGMENT))
        .filter(|(task_id, config_id)| is_segment(task_id) && is_segment(config_id))
        .ok_or_else(|| {
            A2aError::invalid_params(format!(
                "invalid push notification config name `{name}`: expected \
                 `tasks/{{task_id}}/pushNotificationConfigs/{{config_id}}`"
            ))
        })
}

fn is_segment(s: &str) -> bool {
    !s.is_empty() && !s.contains('/')
}

// ---------------------------------------------------------------------------
// Struct, Timestamp, bytes
// ---------------------------------------------------------------------------

/// A JSON object as a `google.protobuf.Struct`. Numbers become doubles.
#[must_use]
pub fn struct_from_json(map: Map<String, Value>) -> pbjson_types::Struct {
    pbjson_types::Struct {
        fields: map
            .into_iter()
            .map(|(k, v)| (k, value_from_json(v)))
            .collect(),
    }
}

/// A `google.protobuf.Struct` as a JSON object. A double with an integral
/// value within ±2^53 becomes a JSON integer; a non-finite double becomes
/// `null`.
#[must_use]
pub fn json_from_struct(s: pbjson_types::Struct) -> Map<String, Value> {
    let mut fields: Vec<(String, pbjson_types::Value)> = s.fields.into_iter().collect();
    // A HashMap has no order; sort so the output is deterministic.
    fields.sort_by(|a, b| a.0.cmp(&b.0));
    fields
        .into_iter()
        .map(|(k, v)| (k, json_from_value(v)))
        .collect()
}

/// A JSON value as a `google.protobuf.Value`.
#[must_use]
pub fn value_from_json(v: Value) -> pbjson_types::Value {
    let kind = match v {
        Value::Null => Kind::NullValue(0),
        Value::Bool(b) => Kind::BoolValue(b),
        Value::Number(n) => Kind::NumberValue(n.as_f64().unwrap_or(0.0)),
        Value::String(s) => Kind::StringValue(s),
        Value::Array(a) => Kind::ListValue(pbjson_types::ListValue {
            values: a.into_iter().map(value_from_json).collect(),
        }),
        Value::Object(o) => Kind::StructValue(struct_from_json(o)),
    };
    pbjson_types::Value { kind: Some(kind) }
}

/// A `google.protobuf.Value` as a JSON value (see [`json_from_struct`] for
/// numbers). An empty `Value` reads as `null`.
#[must_use]
pub fn json_from_value(v: pbjson_types::Value) -> Value {
    match v.kind {
        None | Some(Kind::NullValue(_)) => Value::Null,
        Some(Kind::BoolValue(b)) => Value::Bool(b),
        Some(Kind::NumberValue(n)) => json_number(n),
        Some(Kind::StringValue(s)) => Value::String(s),
        Some(Kind::ListValue(l)) => {
            Value::Array(l.values.into_iter().map(json_from_value).collect())
        }
        Some(Kind::StructValue(s)) => Value::Object(json_from_struct(s)),
    }
}

/// The largest integer a double holds exactly, 2^53.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_992.0;

/// The JSON number a `google.protobuf.Value` double stands for: an integer
/// when it is integral and within ±2^53 (so `3` stays `3`, not `3.0`),
/// otherwise the double (`null` when it is not finite).
#[allow(clippy::cast_possible_truncation)] // integral and within ±2^53: exact
#[must_use]
pub fn json_number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER {
        Value::Number(Number::from(n as i64))
    } else {
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

/// An RFC 3339 timestamp as a `google.protobuf.Timestamp`, or `None` when the
/// string is not RFC 3339 (or is outside the proto range, years 1–9999).
///
/// ```
/// let ts = a2a_pb::convert::timestamp_from_rfc3339("2025-07-31T10:00:00.5+02:00").unwrap();
/// assert_eq!((ts.seconds, ts.nanos), (1_753_948_800, 500_000_000));
/// ```
#[must_use]
pub fn timestamp_from_rfc3339(s: &str) -> Option<pbjson_types::Timestamp> {
    let dt = chrono::DateTime::parse_from_rfc3339(s).ok()?;
    let seconds = dt.timestamp();
    if !(MIN_TIMESTAMP_SECONDS..=MAX_TIMESTAMP_SECONDS).contains(&seconds) {
        return None;
    }
    Some(pbjson_types::Timestamp {
        seconds,
        nanos: i32::try_from(dt.timestamp_subsec_nanos()).ok()?,
    })
}

/// 0001-01-01T00:00:00Z, the smallest valid `google.protobuf.Timestamp`.
const MIN_TIMESTAMP_SECONDS: i64 = -62_135_596_800;
/// 9999-12-31T23:59:59Z, the largest valid `google.protobuf.Timestamp`.
const MAX_TIMESTAMP_SECONDS: i64 = 253_402_300_799;

/// A `google.protobuf.Timestamp` as RFC 3339 in UTC with `Z` and 0, 3, 6 or 9
/// fraction digits (e.g. `2025-07-31T08:00:00.500Z`).
///
/// # Errors
///
/// `InvalidParamsError` when `nanos` is outside `0..1_000_000_000` or the
/// seconds are outside years 1–9999.
///
/// ```
/// let ts = pbjson_types::Timestamp { seconds: 1_753_948_800, nanos: 0 };
/// assert_eq!(a2a_pb::convert::rfc3339_from_timestamp(&ts).unwrap(), "2025-07-31T08:00:00Z");
/// ```
pub fn rfc3339_from_timestamp(ts: &pbjson_types::Timestamp) -> Result<String, A2aError> {
    let invalid = || {
        A2aError::invalid_params(format!(
            "invalid timestamp (seconds {}, nanos {})",
            ts.seconds, ts.nanos
        ))
    };
    if !(MIN_TIMESTAMP_SECONDS..=MAX_TIMESTAMP_SECONDS).contains(&ts.seconds) {
        return Err(invalid());
    }
    let nanos = u32::try_from(ts.nanos)
        .ok()
        .filter(|n| *n < 1_000_000_000)
        .ok_or_else(invalid)?;
    let dt = chrono::DateTime::from_timestamp(ts.seconds, nanos).ok_or_else(invalid)?;
    Ok(dt.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

/// The `FilePart.file_with_bytes` value for a JSON-RPC `bytes` (base64) string:
/// the string's own ASCII bytes, as the Python SDK writes them.
#[must_use]
pub fn file_bytes_to_pb(base64_text: String) -> Vec<u8> {
    base64_text.into_bytes()
}

/// The JSON-RPC `bytes` (base64) string for a `FilePart.file_with_bytes` value.
///
/// Bytes that are UTF-8 base64 text (what the Python SDK and
/// [`file_bytes_to_pb`] write) are returned as that text. Any other bytes are
/// taken as the raw file content and base64-encoded (standard alphabet, with
/// padding). Raw content that happens to be valid base64 text is ambiguous and
/// read as base64 text.
///
/// ```
/// use a2a_pb::convert::file_bytes_from_pb;
///
/// assert_eq!(file_bytes_from_pb(b"aGk=".to_vec()), "aGk=");
/// assert_eq!(file_bytes_from_pb(vec![0xff, 0x00]), "/wA=");
/// ```
#[must_use]
pub fn file_bytes_from_pb(bytes: Vec<u8>) -> String {
    let b64 = base64::engine::general_purpose::STANDARD;
    match String::from_utf8(bytes) {
        Ok(text) if b64.decode(&text).is_ok() => text,
        Ok(text) => b64.encode(text.as_bytes()),
        Err(e) => b64.encode(e.as_bytes()),
    }
}

// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

fn missing(field: &str) -> A2aError {
    A2aError::invalid_params(format!("missing required field `{field}`"))
}

fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

fn non_empty_vec<T>(v: Vec<T>) -> Option<Vec<T>> {
    (!v.is_empty()).then_some(v)
}

fn true_or_none(b: bool) -> Option<bool> {
    b.then_some(true)
}

fn non_zero(n: i32) -> Option<i32> {
    (n != 0).then_some(n)
}

fn metadata_to_pb(m: Option<t::Metadata>) -> Option<pbjson_types::Struct> {
    m.map(struct_from_json)
}

fn metadata_from_pb(s: Option<pbjson_types::Struct>) -> Option<t::Metadata> {
    s.map(json_from_struct)
}

fn try_vec<P, T>(v: Vec<P>) -> Result<Vec<T>, A2aError>
where
    T: TryFrom<P, Error = A2aError>,
{
    v.into_iter().map(T::try_from).collect()
}

fn try_opt_vec<P, T>(v: Vec<P>) -> Result<Option<Vec<T>>, A2aError>
where
    T: TryFrom<P, Error = A2aError>,
{
    try_vec(v).map(non_empty_vec)
}

fn into_vec<T, P: From<T>>(v: Option<Vec<T>>) -> Vec<P> {
    v.unwrap_or_default().into_iter().map(P::from).collect()
}

// ---------------------------------------------------------------------------
// Enums
// ---------------------------------------------------------------------------

impl From<t::TaskState> for v1::TaskState {
    fn from(s: t::TaskState) -> Self {
        match s {
            t::TaskState::Submitted => Self::Submitted,
            t::TaskState::Working => Self::Working,
            t::TaskState::InputRequired => Self::InputRequired,
            t::TaskState::Completed => Self::Completed,
            t::TaskState::Canceled => Self::Cancelled,
            t::TaskState::Failed => Self::Failed,
            t::TaskState::Rejected => Self::Rejected,
            t::TaskState::AuthRequired => Self::AuthRequired,
            t::TaskState::Unknown => Self::Unspecified,
        }
    }
}

impl From<v1::TaskState> for t::TaskState {
    fn from(s: v1::TaskState) -> Self {
        match s {
            v1::TaskState::Submitted => Self::Submitted,
            v1::TaskState::Working => Self::Working,
            v1::TaskState::InputRequired => Self::InputRequired,
            v1::TaskState::Completed => Self::Completed,
            v1::TaskState::Cancelled => Self::Canceled,
            v1::TaskState::Failed => Self::Failed,
            v1::TaskState::Rejected => Self::Rejected,
            v1::TaskState::AuthRequired => Self::AuthRequired,
            v1::TaskState::Unspecified => Self::Unknown,
        }
    }
}

/// The a2a-types state of a raw proto enum value; unknown values are `unknown`.
fn task_state_from_i32(v: i32) -> t::TaskState {
    v1::TaskState::try_from(v).map_or(t::TaskState::Unknown, t::TaskState::from)
}

impl From<t::Role> for v1::Role {
    fn from(r: t::Role) -> Self {
        match r {
            t::Role::User => Self::User,
            t::Role::Agent => Self::Agent,
        }
    }
}

impl TryFrom<v1::Role> for t::Role {
    type Error = A2aError;

    fn try_from(r: v1::Role) -> Result<Self, A2aError> {
        match r {
            v1::Role::User => Ok(Self::User),
            v1::Role::Agent => Ok(Self::Agent),
            v1::Role::Unspecified => Err(A2aError::invalid_params(
                "`Message.role` is ROLE_UNSPECIFIED: expected ROLE_USER or ROLE_AGENT",
            )),
        }
    }
}

fn role_from_i32(v: i32) -> Result<t::Role, A2aError> {
    v1::Role::try_from(v)
        .map_err(|_| {
            A2aError::invalid_params(format!(
                "`Message.role` has unknown value {v}: expected ROLE_USER or ROLE_AGENT"
            ))
        })
        .and_then(t::Role::try_from)
}

// ---------------------------------------------------------------------------
// Messages and parts
// ---------------------------------------------------------------------------

impl From<t::Part> for v1::Part {
    fn from(p: t::Part) -> Self {
        let (part, metadata) = match p {
            t::Part::Text(p) => (v1::part::Part::Text(p.text), p.metadata),
            t::Part::File(p) => (v1::part::Part::File(p.file.into()), p.metadata),
            t::Part::Data(p) => (
                v1::part::Part::Data(v1::DataPart {
                    data: Some(struct_from_json(p.data)),
                }),
                p.metadata,
            ),
        };
        Self {
            part: Some(part),
            metadata: metadata_to_pb(metadata),
        }
    }
}

impl TryFrom<v1::Part> for t::Part {
    type Error = A2aError;

    fn try_from(p: v1::Part) -> Result<Self, A2aError> {
        let metadata = metadata_from_pb(p.metadata);
        Ok(
            match p
                .part
                .ok_or_else(|| missing("Part.part (text, file or data)"))?
            {
                v1::part::Part::Text(text) => Self::Text(t::TextPart { text, metadata }),
                v1::part::Part::File(file) => Self::File(t::FilePart {
                    file: file.try_into()?,
                    metadata,
                }),
                v1::part::Part::Data(data) => Self::Data(t::DataPart {
                    data: data.data.map(json_from_struct).unwrap_or_default(),
                    metadata,
                }),
            },
        )
    }
}

impl From<t::FileContent> for v1::FilePart {
    fn from(f: t::FileContent) -> Self {
        match f {
            t::FileContent::Bytes(f) => Self {
                file: Some(v1::file_part::File::FileWithBytes(file_bytes_to_pb(
                    f.bytes,
                ))),
                mime_type: f.mime_type.unwrap_or_default(),
                name: f.name.unwrap_or_default(),
            },
            t::FileContent::Uri(f) => Self {
                file: Some(v1::file_part::File::FileWithUri(f.uri)),
                mime_type: f.mime_type.unwrap_or_default(),
                name: f.name.unwrap_or_default(),
            },
        }
    }
}

impl TryFrom<v1::FilePart> for t::FileContent {
    type Error = A2aError;

    fn try_from(f: v1::FilePart) -> Result<Self, A2aError> {
        let name = non_empty(f.name);
        let mime_type = non_empty(f.mime_type);
        Ok(
            match f
                .file
                .ok_or_else(|| missing("FilePart.file (file_with_uri or file_with_bytes)"))?
            {
                v1::file_part::File::FileWithUri(uri) => Self::Uri(t::FileWithUri {
                    uri,
                    name,
                    mime_type,
                }),
                v1::file_part::File::FileWithBytes(bytes) => Self::Bytes(t::FileWithBytes {
                    bytes: file_bytes_from_pb(bytes),
                    name,
                    mime_type,
                }),
            },
        )
    }
}

/// Lossy: `reference_task_ids` has no proto field and is dropped.
impl From<t::Message> for v1::Message {
    fn from(m: t::Message) -> Self {
        Self {
            message_id: m.message_id,
            context_id: m.context_id.unwrap_or_default(),
            task_id: m.task_id.unwrap_or_default(),
            role: v1::Role::from(m.role).into(),
            content: m.parts.into_iter().map(Into::into).collect(),
            metadata: metadata_to_pb(m.metadata),
            extensions: m.extensions.unwrap_or_default(),
        }
    }
}

impl TryFrom<v1::Message> for t::Message {
    type Error = A2aError;

    fn try_from(m: v1::Message) -> Result<Self, A2aError> {
        Ok(Self {
            role: role_from_i32(m.role)?,
            parts: try_vec(m.content)?,
            message_id: m.message_id,
            task_id: non_empty(m.task_id),
            context_id: non_empty(m.context_id),
            reference_task_ids: None,
            extensions: non_empty_vec(m.extensions),
            metadata: metadata_from_pb(m.metadata),
        })
    }
}

// ---------------------------------------------------------------------------
// Tasks, artifacts, events
// ---------------------------------------------------------------------------

impl From<t::TaskStatus> for v1::TaskStatus {
    fn from(s: t::TaskStatus) -> Self {
        Self {
            state: v1::TaskState::from(s.state).into(),
            update: s.message.map(Into::into),
            timestamp: s.timestamp.as_deref().and_then(timestamp_from_rfc3339),
        }
    }
}

impl TryFrom<v1::TaskStatus> for t::TaskStatus {
    type Error = A2aError;

    fn try_from(s: v1::TaskStatus) -> Result<Self, A2aError> {
        Ok(Self {
            state: task_state_from_i32(s.state),
            message: s.update.map(TryInto::try_into).transpose()?,
            timestamp: s
                .timestamp
                .as_ref()
                .map(rfc3339_from_timestamp)
                .transpose()?,
        })
    }
}

impl From<t::Artifact> for v1::Artifact {
    fn from(a: t::Artifact) -> Self {
        Self {
            artifact_id: a.artifact_id,
            name: a.name.unwrap_or_default(),
            description: a.description.unwrap_or_default(),
            parts: a.parts.into_iter().map(Into::into).collect(),
            metadata: metadata_to_pb(a.metadata),
            extensions: a.extensions.unwrap_or_default(),
        }
    }
}

impl TryFrom<v1::Artifact> for t::Artifact {
    type Error = A2aError;

    fn try_from(a: v1::Artifact) -> Result<Self, A2aError> {
        Ok(Self {
            artifact_id: a.artifact_id,
            name: non_empty(a.name),
            description: non_empty(a.description),
            parts: try_vec(a.parts)?,
            metadata: metadata_from_pb(a.metadata),
            extensions: non_empty_vec(a.extensions),
        })
    }
}

impl From<t::Task> for v1::Task {
    fn from(task: t::Task) -> Self {
        Self {
            id: task.id,
            context_id: task.context_id,
            status: Some(task.status.into()),
            artifacts: into_vec(task.artifacts),
            history: into_vec(task.history),
            metadata: metadata_to_pb(task.metadata),
        }
    }
}

impl TryFrom<v1::Task> for t::Task {
    type Error = A2aError;

    fn try_from(task: v1::Task) -> Result<Self, A2aError> {
        Ok(Self {
            status: task
                .status
                .ok_or_else(|| missing("Task.status"))?
                .try_into()?,
            id: task.id,
            context_id: task.context_id,
            history: try_opt_vec(task.history)?,
            artifacts: try_opt_vec(task.artifacts)?,
            metadata: metadata_from_pb(task.metadata),
        })
    }
}

impl From<t::TaskStatusUpdateEvent> for v1::TaskStatusUpdateEvent {
    fn from(e: t::TaskStatusUpdateEvent) -> Self {
        Self {
            task_id: e.task_id,
            context_id: e.context_id,
            status: Some(e.status.into()),
            r#final: e.is_final,
            metadata: metadata_to_pb(e.metadata),
        }
    }
}

impl TryFrom<v1::TaskStatusUpdateEvent> for t::TaskStatusUpdateEvent {
    type Error = A2aError;

    fn try_from(e: v1::TaskStatusUpdateEvent) -> Result<Self, A2aError> {
        Ok(Self {
            status: e
                .status
                .ok_or_else(|| missing("TaskStatusUpdateEvent.status"))?
                .try_into()?,
            task_id: e.task_id,
            context_id: e.context_id,
            is_final: e.r#final,
            metadata: metadata_from_pb(e.metadata),
        })
    }
}

impl From<t::TaskArtifactUpdateEvent> for v1::TaskArtifactUpdateEvent {
    fn from(e: t::TaskArtifactUpdateEvent) -> Self {
        Self {
            task_id: e.task_id,
            context_id: e.context_id,
            artifact: Some(e.artifact.into()),
            append: e.append.unwrap_or(false),
            last_chunk: e.last_chunk.unwrap_or(false),
            metadata: metadata_to_pb(e.metadata),
        }
    }
}

impl TryFrom<v1::TaskArtifactUpdateEvent> for t::TaskArtifactUpdateEvent {
    type Error = A2aError;

    fn try_from(e: v1::TaskArtifactUpdateEvent) -> Result<Self, A2aError> {
        Ok(Self {
            artifact: e
                .artifact
                .ok_or_else(|| missing("TaskArtifactUpdateEvent.artifact"))?
                .try_into()?,
            task_id: e.task_id,
            context_id: e.context_id,
            append: true_or_none(e.append),
            last_chunk: true_or_none(e.last_chunk),
            metadata: metadata_from_pb(e.metadata),
        })
    }
}

impl From<t::SendMessageResult> for v1::SendMessageResponse {
    fn from(r: t::SendMessageResult) -> Self {
        let payload = match r {
            t::SendMessageResult::Task(task) => {
                v1::send_message_response::Payload::Task(task.into())
            }
            t::SendMessageResult::Message(m) => v1::send_message_response::Payload::Msg(m.into()),
        };
        Self {
            payload: Some(payload),
        }
    }
}

impl TryFrom<v1::SendMessageResponse> for t::SendMessageResult {
    type Error = A2aError;

    fn try_from(r: v1::SendMessageResponse) -> Result<Self, A2aError> {
        Ok(
            match r
                .payload
                .ok_or_else(|| missing("SendMessageResponse.payload (task or message)"))?
            {
                v1::send_message_response::Payload::Task(task) => Self::Task(task.try_into()?),
                v1::send_message_response::Payload::Msg(m) => Self::Message(m.try_into()?),
            },
        )
    }
}

impl From<t::StreamResponse> for v1::StreamResponse {
    fn from(r: t::StreamResponse) -> Self {
        use v1::stream_response::Payload;
        let payload = match r {
            t::StreamResponse::Task(task) => Payload::Task(task.into()),
            t::StreamResponse::Message(m) => Payload::Msg(m.into()),
            t::StreamResponse::StatusUpdate(e) => Payload::StatusUpdate(e.into()),
            t::StreamResponse::ArtifactUpdate(e) => Payload::ArtifactUpdate(e.into()),
        };
        Self {
            payload: Some(payload),
        }
    }
}

impl TryFrom<v1::StreamResponse> for t::StreamResponse {
    type Error = A2aError;

    fn try_from(r: v1::StreamResponse) -> Result<Self, A2aError> {
        use v1::stream_response::Payload;
        Ok(
            match r.payload.ok_or_else(|| {
                missing("StreamResponse.payload (task, message, status_update or artifact_update)")
            })? {
                Payload::Task(task) => Self::Task(task.try_into()?),
                Payload::Msg(m) => Self::Message(m.try_into()?),
                Payload::StatusUpdate(e) => Self::StatusUpdate(e.try_into()?),
                Payload::ArtifactUpdate(e) => Self::ArtifactUpdate(e.try_into()?),
            },
        )
    }
}

// ---------------------------------------------------------------------------
// Push notification configs
// ---------------------------------------------------------------------------

impl From<t::PushNotificationAuthenticationInfo> for v1::AuthenticationInfo {
    fn from(a: t::PushNotificationAuthenticationInfo) -> Self {
        Self {
            schemes: a.schemes,
            credentials: a.credentials.unwrap_or_default(),
        }
    }
}

impl From<v1::AuthenticationInfo> for t::PushNotificationAuthenticationInfo {
    fn from(a: v1::AuthenticationInfo) -> Self {
        Self {
            schemes: a.schemes,
            credentials: non_empty(a.credentials),
        }
    }
}

impl From<t::PushNotificationConfig> for v1::PushNotificationConfig {
    fn from(c: t::PushNotificationConfig) -> Self {
        Self {
            id: c.id.unwrap_or_default(),
            url: c.url,
            token: c.token.unwrap_or_default(),
            authentication: c.authentication.map(Into::into),
        }
    }
}

impl From<v1::PushNotificationConfig> for t::PushNotificationConfig {
    fn from(c: v1::PushNotificationConfig) -> Self {
        Self {
            id: non_empty(c.id),
            url: c.url,
            token: non_empty(c.token),
            authentication: c.authentication.map(Into::into),
        }
    }
}

/// `name` is built from the task id and the config id, which defaults to the
/// task id (the config's `id` is set to the same value).
impl From<t::TaskPushNotificationConfig> for v1::TaskPushNotificationConfig {
    fn from(c: t::TaskPushNotificationConfig) -> Self {
        let config_id = c
            .push_notification_config
            .id
            .clone()
            .unwrap_or_else(|| c.task_id.clone());
        let mut push_notification_config =
            v1::PushNotificationConfig::from(c.push_notification_config);
        push_notification_config.id.clone_from(&config_id);
        Self {
            name: push_config_name(&c.task_id, &config_id),
            push_notification_config: Some(push_notification_config),
        }
    }
}

/// The task id comes from `name`; the config id is the config's `id`, or the
/// one in `name` when that is empty.
impl TryFrom<v1::TaskPushNotificationConfig> for t::TaskPushNotificationConfig {
    type Error = A2aError;

    fn try_from(c: v1::TaskPushNotificationConfig) -> Result<Self, A2aError> {
        let (task_id, config_id) = parse_push_config_name(&c.name)?;
        let mut push_notification_config: t::PushNotificationConfig = c
            .push_notification_config
            .ok_or_else(|| missing("TaskPushNotificationConfig.push_notification_config"))?
            .into();
        if push_notification_config.id.is_none() {
            push_notification_config.id = Some(config_id.to_owned());
        }
        Ok(Self {
            task_id: task_id.to_owned(),
            push_notification_config,
        })
    }
}

/// The `…/list` result. Lossy: `next_page_token` is empty (JSON-RPC has no
/// pagination).
impl From<Vec<t::TaskPushNotificationConfig>> for v1::ListTaskPushNotificationConfigResponse {
    fn from(configs: Vec<t::TaskPushNotificationConfig>) -> Self {
        Self {
            configs: configs.into_iter().map(Into::into).collect(),
            next_page_token: String::new(),
        }
    }
}

/// Lossy: `next_page_token` is dropped.
impl TryFrom<v1::ListTaskPushNotificationConfigResponse> for Vec<t::TaskPushNotificationConfig> {
    type Error = A2aError;

    fn try_from(r: v1::ListTaskPushNotificationConfigResponse) -> Result<Self, A2aError> {
        try_vec(r.configs)
    }
}

// ---------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------

/// `blocking: None` (JSON-RPC: blocking) is written as `blocking: true`.
impl From<t::MessageSendConfiguration> for v1::SendMessageConfiguration {
    fn from(c: t::MessageSendConfiguration) -> Self {
        Self {
            accepted_output_modes: c.accepted_output_modes.unwrap_or_default(),
            push_notification: c.push_notification_config.map(Into::into),
            history_length: c.history_length.unwrap_or(0),
            blocking: c.blocking.unwrap_or(true),
        }
    }
}

/// `blocking` is always `Some`: an unset proto bool means non-blocking.
impl From<v1::SendMessageConfiguration> for t::MessageSendConfiguration {
    fn from(c: v1::SendMessageConfiguration) -> Self {
        Self {
            accepted_output_modes: non_empty_vec(c.accepted_output_modes),
            history_length: non_zero(c.history_length),
            push_notification_config: c.push_notification.map(Into::into),
            blocking: Some(c.blocking),
        }
    }
}

impl From<t::MessageSendParams> for v1::SendMessageRequest {
    fn from(p: t::MessageSendParams) -> Self {
        Self {
            request: Some(p.message.into()),
            configuration: p.configuration.map(Into::into),
            metadata: metadata_to_pb(p.metadata),
        }
    }
}

impl TryFrom<v1::SendMessageRequest> for t::MessageSendParams {
    type Error = A2aError;

    fn try_from(r: v1::SendMessageRequest) -> Result<Self, A2aError> {
        Ok(Self {
            message: r
                .request
                .ok_or_else(|| missing("SendMessageRequest.message"))?
                .try_into()?,
            configuration: r.configuration.map(Into::into),
            metadata: metadata_from_pb(r.metadata),
        })
    }
}

/// Lossy: `metadata` has no proto field.
impl From<t::TaskQueryParams> for v1::GetTaskRequest {
    fn from(p: t::TaskQueryParams) -> Self {
        Self {
            name: task_name(&p.id),
            history_length: p.history_length.unwrap_or(0),
        }
    }
}

impl TryFrom<v1::GetTaskRequest> for t::TaskQueryParams {
    type Error = A2aError;

    fn try_from(r: v1::GetTaskRequest) -> Result<Self, A2aError> {
        Ok(Self {
            id: parse_task_name(&r.name)?.to_owned(),
            history_length: non_zero(r.history_length),
            metadata: None,
        })
    }
}

/// Lossy: `metadata` has no proto field.
impl From<t::TaskIdParams> for v1::CancelTaskRequest {
    fn from(p: t::TaskIdParams) -> Self {
        Self {
            name: task_name(&p.id),
        }
    }
}

impl TryFrom<v1::CancelTaskRequest> for t::TaskIdParams {
    type Error = A2aError;

    fn try_from(r: v1::CancelTaskRequest) -> Result<Self, A2aError> {
        Ok(Self::new(parse_task_name(&r.name)?))
    }
}

/// Lossy: `metadata` has no proto field.
impl From<t::TaskIdParams> for v1::TaskSubscriptionRequest {
    fn from(p: t::TaskIdParams) -> Self {
        Self {
            name: task_name(&p.id),
        }
    }
}

impl TryFrom<v1::TaskSubscriptionRequest> for t::TaskIdParams {
    type Error = A2aError;

    fn try_from(r: v1::TaskSubscriptionRequest) -> Result<Self, A2aError> {
        Ok(Self::new(parse_task_name(&r.name)?))
    }
}

/// The `tasks/pushNotificationConfig/set` params as a create request:
/// `parent` is `tasks/{task_id}`, `config_id` the config's `id` (defaulting to
/// the task id), `config` the full [`v1::TaskPushNotificationConfig`].
impl From<t::TaskPushNotificationConfig> for v1::CreateTaskPushNotificationConfigRequest {
    fn from(c: t::TaskPushNotificationConfig) -> Self {
        let parent = task_name(&c.task_id);
        let config = v1::TaskPushNotificationConfig::from(c);
        let config_id = config
            .push_notification_config
            .as_ref()
            .map(|p| p.id.clone())
            .unwrap_or_default();
        Self {
            parent,
            config_id,
            config: Some(config),
        }
    }
}

/// The task id comes from `parent` (required, `tasks/{task_id}`). The config
/// id is the first non-empty of `config_id`, `config.push_notification_config.id`
/// and the config id in `config.name`; if all are empty it stays `None` (the
/// server assigns one). `config.name` is otherwise ignored.
impl TryFrom<v1::CreateTaskPushNotificationConfigRequest> for t::TaskPushNotificationConfig {
    type Error = A2aError;

    fn try_from(r: v1::CreateTaskPushNotificationConfigRequest) -> Result<Self, A2aError> {
        let task_id = parse_task_name(&r.parent)?.to_owned();
        let config = r
            .config
            .ok_or_else(|| missing("CreateTaskPushNotificationConfigRequest.config"))?;
        // The Python SDK's clients write `str(None)` into the name when the
        // config has no id (`tasks/{t}/pushNotificationConfigs/None`): that
        // means "no id", so the server assigns one.
        let name_config_id = parse_push_config_name(&config.name)
            .ok()
            .map(|(_, config_id)| config_id)
            .filter(|id| *id != "None")
            .map(str::to_owned);
        let mut push_notification_config: t::PushNotificationConfig = config
            .push_notification_config
            .ok_or_else(|| {
                missing("CreateTaskPushNotificationConfigRequest.config.push_notification_config")
            })?
            .into();
        push_notification_config.id = non_empty(r.config_id)
            .or(push_notification_config.id)
            .or(name_config_id);
        Ok(Self {
            task_id,
            push_notification_config,
        })
    }
}

/// A missing config id asks for the task's default config, whose id is the
/// task id. Lossy: `metadata` has no proto field.
impl From<t::GetTaskPushNotificationConfigParams> for v1::GetTaskPushNotificationConfigRequest {
    fn from(p: t::GetTaskPushNotificationConfigParams) -> Self {
        let config_id = p.push_notification_config_id.as_deref().unwrap_or(&p.id);
        Self {
            name: push_config_name(&p.id, config_id),
        }
    }
}

/// Accepts `tasks/{task_id}/pushNotificationConfigs/{config_id}` and, leniently,
/// `tasks/{task_id}` (no config id: the task's default config).
impl TryFrom<v1::GetTaskPushNotificationConfigRequest> for t::GetTaskPushNotificationConfigParams {
    type Error = A2aError;

    fn try_from(r: v1::GetTaskPushNotificationConfigRequest) -> Result<Self, A2aError> {
        let (id, push_notification_config_id) = match parse_push_config_name(&r.name) {
            Ok((task_id, config_id)) => (task_id, Some(config_id.to_owned())),
            Err(e) => (parse_task_name(&r.name).map_err(|_| e)?, None),
        };
        Ok(Self {
            id: id.to_owned(),
            push_notification_config_id,
            metadata: None,
        })
    }
}

/// Lossy: `metadata` has no proto field.
impl From<t::ListTaskPushNotificationConfigParams> for v1::ListTaskPushNotificationConfigRequest {
    fn from(p: t::ListTaskPushNotificationConfigParams) -> Self {
        Self {
            parent: task_name(&p.id),
            page_size: 0,
            page_token: String::new(),
        }
    }
}

/// Lossy: `page_size` and `page_token` have no JSON-RPC field.
impl TryFrom<v1::ListTaskPushNotificationConfigRequest>
    for t::ListTaskPushNotificationConfigParams
{
    type Error = A2aError;

    fn try_from(r: v1::ListTaskPushNotificationConfigRequest) -> Result<Self, A2aError> {
        Ok(Self {
            id: parse_task_name(&r.parent)?.to_owned(),
            metadata: None,
        })
    }
}

/// Lossy: `metadata` has no proto field.
impl From<t::DeleteTaskPushNotificationConfigParams>
    for v1::DeleteTaskPushNotificationConfigRequest
{
    fn from(p: t::DeleteTaskPushNotificationConfigParams) -> Self {
        Self {
            name: push_config_name(&p.id, &p.push_notification_config_id),
        }
    }
}

impl TryFrom<v1::DeleteTaskPushNotificationConfigRequest>
    for t::DeleteTaskPushNotificationConfigParams
{
    type Error = A2aError;

    fn try_from(r: v1::DeleteTaskPushNotificationConfigRequest) -> Result<Self, A2aError> {
        let (task_id, config_id) = parse_push_config_name(&r.name)?;
        Ok(Self {
            id: task_id.to_owned(),
            push_notification_config_id: config_id.to_owned(),
            metadata: None,
        })
    }
}

// ---------------------------------------------------------------------------
// Agent card
// ---------------------------------------------------------------------------

fn security_to_pb(reqs: Option<Vec<BTreeMap<String, Vec<String>>>>) -> Vec<v1::Security> {
    reqs.unwrap_or_default()
        .into_iter()
        .map(|req| v1::Security {
            schemes: req
                .into_iter()
                .map(|(name, list)| (name, v1::StringList { list }))
                .collect(),
        })
        .collect()
}

fn security_from_pb(reqs: Vec<v1::Security>) -> Option<Vec<BTreeMap<String, Vec<String>>>> {
    non_empty_vec(
        reqs.into_iter()
            .map(|req| {
                req.schemes
                    .into_iter()
                    .map(|(name, scopes)| (name, scopes.list))
                    .collect()
            })
            .collect(),
    )
}

fn scopes_to_pb(scopes: BTreeMap<String, String>) -> HashMap<String, String> {
    scopes.into_iter().collect()
}

fn scopes_from_pb(scopes: HashMap<String, String>) -> BTreeMap<String, String> {
    scopes.into_iter().collect()
}

impl From<t::AgentCard> for v1::AgentCard {
    fn from(c: t::AgentCard) -> Self {
        Self {
            protocol_version: c.protocol_version,
            name: c.name,
            description: c.description,
            url: c.url,
            preferred_transport: c.preferred_transport,
            additional_interfaces: into_vec(c.additional_interfaces),
            provider: c.provider.map(Into::into),
            version: c.version,
            documentation_url: c.documentation_url.unwrap_or_default(),
            capabilities: Some(c.capabilities.into()),
            security_schemes: c
                .security_schemes
                .unwrap_or_default()
                .into_iter()
                .map(|(name, scheme)| (name, scheme.into()))
                .collect(),
            security: security_to_pb(c.security),
            default_input_modes: c.default_input_modes,
            default_output_modes: c.default_output_modes,
            skills: c.skills.into_iter().map(Into::into).collect(),
            supports_authenticated_extended_card: c
                .supports_authenticated_extended_card
                .unwrap_or(false),
            signatures: into_vec(c.signatures),
            icon_url: c.icon_url.unwrap_or_default(),
        }
    }
}

/// A missing `capabilities` reads as no capabilities; an empty
/// `preferred_transport` as `"JSONRPC"`.
impl TryFrom<v1::AgentCard> for t::AgentCard {
    type Error = A2aError;

    fn try_from(c: v1::AgentCard) -> Result<Self, A2aError> {
        let security_schemes = c
            .security_schemes
            .into_iter()
            .map(|(name, scheme)| Ok((name, scheme.try_into()?)))
            .collect::<Result<BTreeMap<_, _>, A2aError>>()?;
        Ok(Self {
            protocol_version: c.protocol_version,
            name: c.name,
            description: c.description,
            url: c.url,
            preferred_transport: non_empty(c.preferred_transport)
                .unwrap_or_else(|| t::TRANSPORT_JSONRPC.to_owned()),
            additional_interfaces: non_empty_vec(
                c.additional_interfaces
                    .into_iter()
                    .map(Into::into)
                    .collect(),
            ),
            icon_url: non_empty(c.icon_url),
            provider: c.provider.map(Into::into),
            version: c.version,
            documentation_url: non_empty(c.documentation_url),
            capabilities: c.capabilities.map(Into::into).unwrap_or_default(),
            security_schemes: (!security_schemes.is_empty()).then_some(security_schemes),
            security: security_from_pb(c.security),
            default_input_modes: c.default_input_modes,
            default_output_modes: c.default_output_modes,
            skills: c.skills.into_iter().map(Into::into).collect(),
            supports_authenticated_extended_card: true_or_none(
                c.supports_authenticated_extended_card,
            ),
            signatures: non_empty_vec(c.signatures.into_iter().map(Into::into).collect()),
        })
    }
}

impl From<t::AgentInterface> for v1::AgentInterface {
    fn from(i: t::AgentInterface) -> Self {
        Self {
            url: i.url,
            transport: i.transport,
        }
    }
}

impl From<v1::AgentInterface> for t::AgentInterface {
    fn from(i: v1::AgentInterface) -> Self {
        Self {
            transport: i.transport,
            url: i.url,
        }
    }
}

impl From<t::AgentProvider> for v1::AgentProvider {
    fn from(p: t::AgentProvider) -> Self {
        Self {
            url: p.url,
            organization: p.organization,
        }
    }
}

impl From<v1::AgentProvider> for t::AgentProvider {
    fn from(p: v1::AgentProvider) -> Self {
        Self {
            organization: p.organization,
            url: p.url,
        }
    }
}

/// Lossy: `state_transition_history` has no proto field.
impl From<t::AgentCapabilities> for v1::AgentCapabilities {
    fn from(c: t::AgentCapabilities) -> Self {
        Self {
            streaming: c.streaming.unwrap_or(false),
            push_notifications: c.push_notifications.unwrap_or(false),
            extensions: into_vec(c.extensions),
        }
    }
}

impl From<v1::AgentCapabilities> for t::AgentCapabilities {
    fn from(c: v1::AgentCapabilities) -> Self {
        Self {
            streaming: true_or_none(c.streaming),
            push_notifications: true_or_none(c.push_notifications),
            state_transition_history: None,
            extensions: non_empty_vec(c.extensions.into_iter().map(Into::into).collect()),
        }
    }
}

impl From<t::AgentExtension> for v1::AgentExtension {
    fn from(e: t::AgentExtension) -> Self {
        Self {
            uri: e.uri,
            description: e.description.unwrap_or_default(),
            required: e.required.unwrap_or(false),
            params: metadata_to_pb(e.params),
        }
    }
}

impl From<v1::AgentExtension> for t::AgentExtension {
    fn from(e: v1::AgentExtension) -> Self {
        Self {
            uri: e.uri,
            description: non_empty(e.description),
            required: true_or_none(e.required),
            params: metadata_from_pb(e.params),
        }
    }
}

impl From<t::AgentSkill> for v1::AgentSkill {
    fn from(s: t::AgentSkill) -> Self {
        Self {
            id: s.id,
            name: s.name,
            description: s.description,
            tags: s.tags,
            examples: s.examples.unwrap_or_default(),
            input_modes: s.input_modes.unwrap_or_default(),
            output_modes: s.output_modes.unwrap_or_default(),
            security: security_to_pb(s.security),
        }
    }
}

impl From<v1::AgentSkill> for t::AgentSkill {
    fn from(s: v1::AgentSkill) -> Self {
        Self {
            id: s.id,
            name: s.name,
            description: s.description,
            tags: s.tags,
            examples: non_empty_vec(s.examples),
            input_modes: non_empty_vec(s.input_modes),
            output_modes: non_empty_vec(s.output_modes),
            security: security_from_pb(s.security),
        }
    }
}

impl From<t::AgentCardSignature> for v1::AgentCardSignature {
    fn from(s: t::AgentCardSignature) -> Self {
        Self {
            protected: s.protected,
            signature: s.signature,
            header: metadata_to_pb(s.header),
        }
    }
}

impl From<v1::AgentCardSignature> for t::AgentCardSignature {
    fn from(s: v1::AgentCardSignature) -> Self {
        Self {
            protected: s.protected,
            signature: s.signature,
            header: metadata_from_pb(s.header),
        }
    }
}

impl From<t::SecurityScheme> for v1::SecurityScheme {
    fn from(s: t::SecurityScheme) -> Self {
        use v1::security_scheme::Scheme;
        let scheme = match s {
            t::SecurityScheme::ApiKey(s) => {
                Scheme::ApiKeySecurityScheme(v1::ApiKeySecurityScheme {
                    description: s.description.unwrap_or_default(),
                    location: s.location,
                    name: s.name,
                })
            }
            t::SecurityScheme::Http(s) => {
                Scheme::HttpAuthSecurityScheme(v1::HttpAuthSecurityScheme {
                    description: s.description.unwrap_or_default(),
                    scheme: s.scheme,
                    bearer_format: s.bearer_format.unwrap_or_default(),
                })
            }
            t::SecurityScheme::OAuth2(s) => {
                Scheme::Oauth2SecurityScheme(v1::OAuth2SecurityScheme {
                    description: s.description.unwrap_or_default(),
                    flows: Some(s.flows.into()),
                    oauth2_metadata_url: s.oauth2_metadata_url.unwrap_or_default(),
                })
            }
            t::SecurityScheme::OpenIdConnect(s) => {
                Scheme::OpenIdConnectSecurityScheme(v1::OpenIdConnectSecurityScheme {
                    description: s.description.unwrap_or_default(),
                    open_id_connect_url: s.open_id_connect_url,
                })
            }
            t::SecurityScheme::MutualTls(s) => {
                Scheme::MtlsSecurityScheme(v1::MutualTlsSecurityScheme {
                    description: s.description.unwrap_or_default(),
                })
            }
        };
        Self {
            scheme: Some(scheme),
        }
    }
}

/// A missing `scheme` is an error. A missing OAuth2 `flows` reads as no flows.
impl TryFrom<v1::SecurityScheme> for t::SecurityScheme {
    type Error = A2aError;

    fn try_from(s: v1::SecurityScheme) -> Result<Self, A2aError> {
        use v1::security_scheme::Scheme;
        Ok(
            match s.scheme.ok_or_else(|| missing("SecurityScheme.scheme"))? {
                Scheme::ApiKeySecurityScheme(s) => Self::ApiKey(t::ApiKeySecurityScheme {
                    location: s.location,
                    name: s.name,
                    description: non_empty(s.description),
                }),
                Scheme::HttpAuthSecurityScheme(s) => Self::Http(t::HttpAuthSecurityScheme {
                    scheme: s.scheme,
                    bearer_format: non_empty(s.bearer_format),
                    description: non_empty(s.description),
                }),
                Scheme::Oauth2SecurityScheme(s) => Self::OAuth2(t::OAuth2SecurityScheme {
                    flows: s.flows.map(Into::into).unwrap_or_default(),
                    oauth2_metadata_url: non_empty(s.oauth2_metadata_url),
                    description: non_empty(s.description),
                }),
                Scheme::OpenIdConnectSecurityScheme(s) => {
                    Self::OpenIdConnect(t::OpenIdConnectSecurityScheme {
                        open_id_connect_url: s.open_id_connect_url,
                        description: non_empty(s.description),
                    })
                }
                Scheme::MtlsSecurityScheme(s) => Self::MutualTls(t::MutualTlsSecurityScheme {
                    description: non_empty(s.description),
                }),
            },
        )
    }
}

/// Lossy: the proto carries one flow. The first present in the order
/// `authorization_code`, `client_credentials`, `implicit`, `password` is kept
/// and the others are dropped.
impl From<t::OAuthFlows> for v1::OAuthFlows {
    fn from(f: t::OAuthFlows) -> Self {
        use v1::o_auth_flows::Flow;
        let flow = if let Some(f) = f.authorization_code {
            Some(Flow::AuthorizationCode(v1::AuthorizationCodeOAuthFlow {
                authorization_url: f.authorization_url,
                token_url: f.token_url,
                refresh_url: f.refresh_url.unwrap_or_default(),
                scopes: scopes_to_pb(f.scopes),
            }))
        } else if let Some(f) = f.client_credentials {
            Some(Flow::ClientCredentials(v1::ClientCredentialsOAuthFlow {
                token_url: f.token_url,
                refresh_url: f.refresh_url.unwrap_or_default(),
                scopes: scopes_to_pb(f.scopes),
            }))
        } else if let Some(f) = f.implicit {
            Some(Flow::Implicit(v1::ImplicitOAuthFlow {
                authorization_url: f.authorization_url,
                refresh_url: f.refresh_url.unwrap_or_default(),
                scopes: scopes_to_pb(f.scopes),
            }))
        } else {
            f.password.map(|f| {
                Flow::Password(v1::PasswordOAuthFlow {
                    token_url: f.token_url,
                    refresh_url: f.refresh_url.unwrap_or_default(),
                    scopes: scopes_to_pb(f.scopes),
                })
            })
        };
        Self { flow }
    }
}

impl From<v1::OAuthFlows> for t::OAuthFlows {
    fn from(f: v1::OAuthFlows) -> Self {
        use v1::o_auth_flows::Flow;
        let mut out = Self::default();
        match f.flow {
            Some(Flow::AuthorizationCode(f)) => {
                out.authorization_code = Some(t::AuthorizationCodeOAuthFlow {
                    authorization_url: f.authorization_url,
                    token_url: f.token_url,
                    refresh_url: non_empty(f.refresh_url),
                    scopes: scopes_from_pb(f.scopes),
                });
            }
            Some(Flow::ClientCredentials(f)) => {
                out.client_credentials = Some(t::ClientCredentialsOAuthFlow {
                    token_url: f.token_url,
                    refresh_url: non_empty(f.refresh_url),
                    scopes: scopes_from_pb(f.scopes),
                });
            }
            Some(Flow::Implicit(f)) => {
                out.implicit = Some(t::ImplicitOAuthFlow {
                    authorization_url: f.authorization_url,
                    refresh_url: non_empty(f.refresh_url),
                    scopes: scopes_from_pb(f.scopes),
                });
            }
            Some(Flow::Password(f)) => {
                out.password = Some(t::PasswordOAuthFlow {
                    token_url: f.token_url,
                    refresh_url: non_empty(f.refresh_url),
                    scopes: scopes_from_pb(f.scopes),
                });
            }
            None => {}
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn code(e: &A2aError) -> i32 {
        e.code()
    }

    #[test]
    fn python_none_config_id_in_the_name_means_no_id() {
        let request = |name: &str| v1::CreateTaskPushNotificationConfigRequest {
            parent: "tasks/t1".into(),
            config_id: String::new(),
            config: Some(v1::TaskPushNotificationConfig {
                name: name.into(),
                push_notification_config: Some(v1::PushNotificationConfig {
                    url: "http://127.0.0.1:9/hook".into(),
                    ..Default::default()
                }),
            }),
        };
        let none = t::TaskPushNotificationConfig::try_from(request(
            "tasks/t1/pushNotificationConfigs/None",
        ))
        .unwrap();
        assert_eq!(none.push_notification_config.id, None);
        let named =
            t::TaskPushNotificationConfig::try_from(request("tasks/t1/pushNotificationConfigs/c7"))
                .unwrap();
        assert_eq!(named.push_notification_config.id.as_deref(), Some("c7"));
    }

    #[test]
    fn task_states_map_name_by_name() {
        let pairs = [
            (
                t::TaskState::Submitted,
                v1::TaskState::Submitted,
                "TASK_STATE_SUBMITTED",
            ),
            (
                t::TaskState::Working,
                v1::TaskState::Working,
                "TASK_STATE_WORKING",
            ),
            (
                t::TaskState::InputRequired,
                v1::TaskState::InputRequired,
                "TASK_STATE_INPUT_REQUIRED",
            ),
            (
                t::TaskState::Completed,
                v1::TaskState::Completed,
                "TASK_STATE_COMPLETED",
            ),
            (
                t::TaskState::Canceled,
                v1::TaskState::Cancelled,
                "TASK_STATE_CANCELLED",
            ),
            (
                t::TaskState::Failed,
                v1::TaskState::Failed,
                "TASK_STATE_FAILED",
            ),
            (
                t::TaskState::Rejected,
                v1::TaskState::Rejected,
                "TASK_STATE_REJECTED",
            ),
            (
                t::TaskState::AuthRequired,
                v1::TaskState::AuthRequired,
                "TASK_STATE_AUTH_REQUIRED",
            ),
            (
                t::TaskState::Unknown,
                v1::TaskState::Unspecified,
                "TASK_STATE_UNSPECIFIED",
            ),
        ];
        for (types, pb, name) in pairs {
            assert_eq!(v1::TaskState::from(types), pb);
            assert_eq!(t::TaskState::from(pb), types);
            assert_eq!(pb.as_str_name(), name);
        }
        assert_eq!(task_state_from_i32(99), t::TaskState::Unknown);
    }

    #[test]
    fn role_unspecified_or_unknown_is_invalid_params() {
        assert_eq!(role_from_i32(1).unwrap(), t::Role::User);
        assert_eq!(role_from_i32(2).unwrap(), t::Role::Agent);
        assert_eq!(code(&role_from_i32(0).unwrap_err()), -32602);
        assert_eq!(code(&role_from_i32(7).unwrap_err()), -32602);
    }

    #[test]
    fn names_are_strict() {
        for bad in ["", "tasks/", "task/x", "tasks/a/b", "/tasks/x", "tasks//"] {
            assert!(parse_task_name(bad).is_err(), "{bad}");
        }
        for bad in [
            "tasks/t",
            "tasks/t/pushNotificationConfigs/",
            "tasks//pushNotificationConfigs/c",
            "tasks/t/pushNotificationConfigs/c/d",
            "task/t/pushNotificationConfigs/c",
            "tasks/t/pushNotificationConfig/c",
        ] {
            assert!(parse_push_config_name(bad).is_err(), "{bad}");
        }
        let e = parse_task_name("nope").unwrap_err();
        assert!(e.message().contains("`nope`"), "{e}");
    }

    #[test]
    fn struct_numbers_come_back_as_integers_when_integral() {
        let map = json!({"i": 3, "n": -4, "f": 1.5, "big": 9_007_199_254_740_993_u64, "a": [true, null, "s", {"x": 1}]});
        let Value::Object(map) = map else {
            unreachable!()
        };
        let back = json_from_struct(struct_from_json(map));
        assert_eq!(back["i"], json!(3));
        assert_eq!(back["n"], json!(-4));
        assert_eq!(back["f"], json!(1.5));
        assert_eq!(back["a"], json!([true, null, "s", {"x": 1}]));
        // Beyond 2^53 the value is a double: precision is lost.
        assert_ne!(back["big"], json!(9_007_199_254_740_993_u64));
        let nan = pbjson_types::Value {
            kind: Some(Kind::NumberValue(f64::NAN)),
        };
        assert_eq!(json_from_value(nan), Value::Null);
    }

    #[test]
    fn timestamps_keep_the_instant() {
        let ts = timestamp_from_rfc3339("2025-07-31T10:00:00.000Z").unwrap();
        assert_eq!(rfc3339_from_timestamp(&ts).unwrap(), "2025-07-31T10:00:00Z");
        let ts = timestamp_from_rfc3339("2025-07-31T10:00:00.123456+02:00").unwrap();
        assert_eq!(
            rfc3339_from_timestamp(&ts).unwrap(),
            "2025-07-31T08:00:00.123456Z"
        );
        assert!(timestamp_from_rfc3339("yesterday").is_none());
        let bad = pbjson_types::Timestamp {
            seconds: 0,
            nanos: -1,
        };
        assert_eq!(code(&rfc3339_from_timestamp(&bad).unwrap_err()), -32602);
        let bad = pbjson_types::Timestamp {
            seconds: i64::MAX,
            nanos: 0,
        };
        assert!(rfc3339_from_timestamp(&bad).is_err());
    }

    #[test]
    fn file_bytes_follow_the_python_sdk() {
        let part = t::Part::File(t::FilePart {
            file: t::FileContent::Bytes(t::FileWithBytes {
                bytes: "aGVsbG8=".to_owned(),
                name: Some("a.txt".to_owned()),
                mime_type: Some("text/plain".to_owned()),
            }),
            metadata: None,
        });
        let pb = v1::Part::from(part.clone());
        let Some(v1::part::Part::File(file)) = &pb.part else {
            panic!("{pb:?}")
        };
        assert_eq!(
            file.file,
            Some(v1::file_part::File::FileWithBytes(b"aGVsbG8=".to_vec()))
        );
        assert_eq!(file.name, "a.txt");
        // proto-JSON base64-encodes the base64 text again, as Python peers do.
        assert_eq!(
            serde_json::to_value(&pb).unwrap(),
            json!({"file": {"fileWithBytes": "YUdWc2JHOD0=", "mimeType": "text/plain", "name": "a.txt"}})
        );
        assert_eq!(t::Part::try_from(pb).unwrap(), part);
        // A peer that put the raw content there.
        assert_eq!(file_bytes_from_pb(b"hello".to_vec()), "aGVsbG8=");
    }

    #[test]
    fn oauth_flows_keep_the_first_in_spec_order() {
        let flows = t::OAuthFlows {
            authorization_code: None,
            client_credentials: Some(t::ClientCredentialsOAuthFlow {
                token_url: "https://t".to_owned(),
                refresh_url: None,
                scopes: BTreeMap::from([("read".to_owned(), "Read".to_owned())]),
            }),
            implicit: Some(t::ImplicitOAuthFlow::default()),
            password: Some(t::PasswordOAuthFlow::default()),
        };
        let pb = v1::OAuthFlows::from(flows.clone());
        assert!(matches!(
            pb.flow,
            Some(v1::o_auth_flows::Flow::ClientCredentials(_))
        ));
        let back = t::OAuthFlows::from(pb);
        assert_eq!(back.client_credentials, flows.client_credentials);
        assert_eq!((back.implicit, back.password), (None, None));
    }

    #[test]
    fn missing_required_fields_are_invalid_params() {
        let errors = [
            t::Task::try_from(v1::Task::default()).unwrap_err(),
            t::Part::try_from(v1::Part::default()).unwrap_err(),
            t::FileContent::try_from(v1::FilePart::default()).unwrap_err(),
            t::MessageSendParams::try_from(v1::SendMessageRequest::default()).unwrap_err(),
            t::StreamResponse::try_from(v1::StreamResponse::default()).unwrap_err(),
            t::SendMessageResult::try_from(v1::SendMessageResponse::default()).unwrap_err(),
            t::SecurityScheme::try_from(v1::SecurityScheme::default()).unwrap_err(),
            t::TaskStatusUpdateEvent::try_from(v1::TaskStatusUpdateEvent::default()).unwrap_err(),
            t::TaskArtifactUpdateEvent::try_from(v1::TaskArtifactUpdateEvent::default())
                .unwrap_err(),
            t::TaskPushNotificationConfig::try_from(v1::CreateTaskPushNotificationConfigRequest {
                parent: "tasks/t".to_owned(),
                ..Default::default()
            })
            .unwrap_err(),
            t::TaskPushNotificationConfig::try_from(v1::TaskPushNotificationConfig {
                name: "tasks/t/pushNotificationConfigs/c".to_owned(),
                push_notification_config: None,
            })
            .unwrap_err(),
            t::TaskQueryParams::try_from(v1::GetTaskRequest::default()).unwrap_err(),
            t::TaskIdParams::try_from(v1::CancelTaskRequest {
                name: "x".to_owned(),
            })
            .unwrap_err(),
            t::DeleteTaskPushNotificationConfigParams::try_from(
                v1::DeleteTaskPushNotificationConfigRequest {
                    name: "tasks/t".to_owned(),
                },
            )
            .unwrap_err(),
        ];
        for e in errors {
            assert_eq!(e.code(), -32602, "{e}");
            assert_eq!(e.name(), "InvalidParamsError");
        }
    }

    #[test]
    fn blocking_keeps_its_meaning_across_bindings() {
        let jsonrpc_default = t::MessageSendConfiguration::default();
        assert!(v1::SendMessageConfiguration::from(jsonrpc_default).blocking);
        let proto_default = v1::SendMessageConfiguration::default();
        assert_eq!(
            t::MessageSendConfiguration::from(proto_default).blocking,
            Some(false)
        );
        let params = t::MessageSendParams::try_from(v1::SendMessageRequest {
            request: Some(v1::Message::from(t::Message::user_text("m", "hi"))),
            ..Default::default()
        })
        .unwrap();
        assert!(params.configuration.is_none());
        assert!(params.blocking());
    }

    #[test]
    fn push_config_ids_default_and_resolve() {
        let set = t::TaskPushNotificationConfig {
            task_id: "t".to_owned(),
            push_notification_config: t::PushNotificationConfig {
                id: None,
                url: "https://hook".to_owned(),
                token: None,
                authentication: None,
            },
        };
        let create = v1::CreateTaskPushNotificationConfigRequest::from(set);
        assert_eq!(create.parent, "tasks/t");
        assert_eq!(create.config_id, "t");
        let config = create.config.as_ref().unwrap();
        assert_eq!(config.name, "tasks/t/pushNotificationConfigs/t");

        // The Python SDK's REST body: config id only in `config_id`.
        let from_python = v1::CreateTaskPushNotificationConfigRequest {
            parent: "tasks/t".to_owned(),
            config_id: "c".to_owned(),
            config: Some(v1::TaskPushNotificationConfig {
                name: String::new(),
                push_notification_config: Some(v1::PushNotificationConfig {
                    url: "https://hook".to_owned(),
                    ..Default::default()
                }),
            }),
        };
        let back = t::TaskPushNotificationConfig::try_from(from_python).unwrap();
        assert_eq!(back.task_id, "t");
        assert_eq!(back.push_notification_config.id.as_deref(), Some("c"));

        let get = t::GetTaskPushNotificationConfigParams::try_from(
            v1::GetTaskPushNotificationConfigRequest {
                name: "tasks/t".to_owned(),
            },
        )
        .unwrap();
        assert_eq!(
            (get.id.as_str(), get.push_notification_config_id),
            ("t", None)
        );
    }

    #[test]
    fn preferred_transport_defaults_to_jsonrpc() {
        let card = t::AgentCard::try_from(v1::AgentCard::default()).unwrap();
        assert_eq!(card.preferred_transport, "JSONRPC");
        assert_eq!(card.capabilities, t::AgentCapabilities::default());
    }
}
