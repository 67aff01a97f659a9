//! Protobuf JSON written straight from the [`a2a_types`] values of the hot
//! answers (`SendMessageResponse`, `StreamResponse`, `Task`), with no
//! `a2a_pb` message built in between.
//!
//! The output is byte for byte what `a2a_pb::convert` (types → pb) followed
//! by the pbjson `Serialize` and the `Z` fix-up of
//! [`to_json_bytes`](crate::codec::to_json_bytes) give: proto field order,
//! camelCase names, enum names, every default (empty string or list, `false`,
//! the unspecified enum) left out, metadata as a `google.protobuf.Struct`
//! (numbers as doubles), file bytes base64-encoded once more, and
//! `TaskStatus.timestamp` re-spelled in UTC ending in `Z` (or left out when
//! it is not RFC 3339). The one freedom is the member order inside a
//! `Struct`: pbjson follows its `HashMap` (an arbitrary order), this follows
//! the `serde_json::Map` (its keys in order).

use a2a_pb::v1;
use a2a_types::{
    Artifact, FileContent, Message, Metadata, Part, SendMessageResult, StreamResponse, Task,
    TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent,
};
use base64::Engine as _;
use serde::ser::{Error as _, SerializeStruct};
use serde::{Serialize, Serializer};
use serde_json::Value;

/// A `SendMessageResponse`: `{"task":…}` or `{"message":…}`.
pub(crate) struct PbSendResponse<'a>(pub(crate) &'a SendMessageResult);

impl Serialize for PbSendResponse<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut s = ser.serialize_struct("a2a.v1.SendMessageResponse", 1)?;
        match self.0 {
            SendMessageResult::Task(task) => s.serialize_field("task", &PbTask(task))?,
            SendMessageResult::Message(m) => s.serialize_field("message", &PbMessage(m))?,
        }
        s.end()
    }
}

/// A `StreamResponse`: `task`, `message`, `statusUpdate` or `artifactUpdate`.
pub(crate) struct PbStreamResponse<'a>(pub(crate) &'a StreamResponse);

impl Serialize for PbStreamResponse<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut s = ser.serialize_struct("a2a.v1.StreamResponse", 1)?;
        match self.0 {
            StreamResponse::Task(task) => s.serialize_field("task", &PbTask(task))?,
            StreamResponse::Message(m) => s.serialize_field("message", &PbMessage(m))?,
            StreamResponse::StatusUpdate(e) => {
                s.serialize_field("statusUpdate", &PbStatusUpdate(e))?;
            }
            StreamResponse::ArtifactUpdate(e) => {
                s.serialize_field("artifactUpdate", &PbArtifactUpdate(e))?;
            }
        }
        s.end()
    }
}

/// A `Task`.
pub(crate) struct PbTask<'a>(pub(crate) &'a Task);

impl Serialize for PbTask<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let mut s = ser.serialize_struct("a2a.v1.Task", 6)?;
        if !t.id.is_empty() {
            s.serialize_field("id", &t.id)?;
        }
        if !t.context_id.is_empty() {
            s.serialize_field("contextId", &t.context_id)?;
        }
        s.serialize_field("status", &PbStatus(&t.status))?;
        if let Some(artifacts) = non_empty(t.artifacts.as_deref()) {
            s.serialize_field("artifacts", &Seq(artifacts, PbArtifact))?;
        }
        if let Some(history) = non_empty(t.history.as_deref()) {
            s.serialize_field("history", &Seq(history, PbMessage))?;
        }
        if let Some(m) = &t.metadata {
            s.serialize_field("metadata", &PbStruct(m))?;
        }
        s.end()
    }
}

/// A `TaskStatus` (`message` is the proto's `update`).
struct PbStatus<'a>(&'a TaskStatus);

impl Serialize for PbStatus<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let st = self.0;
        let mut s = ser.serialize_struct("a2a.v1.TaskStatus", 3)?;
        if st.state != TaskState::Unknown {
            s.serialize_field("state", v1::TaskState::from(st.state).as_str_name())?;
        }
        if let Some(m) = &st.message {
            s.serialize_field("message", &PbMessage(m))?;
        }
        if let Some(ts) = st.timestamp.as_deref().and_then(timestamp_z_parts) {
            let text = ts.map_err(S::Error::custom)?;
            s.serialize_field("timestamp", &text)?;
        }
        s.end()
    }
}

/// What pbjson writes for the `google.protobuf.Timestamp` that
/// `a2a_pb::convert` makes of `s` (after the `+00:00` → `Z` fix-up): `None`
/// when `s` is not RFC 3339 or out of range (the field is left out), else the
/// text or the error pbjson gives.
fn timestamp_z_parts(s: &str) -> Option<Result<String, &'static str>> {
    let ts = a2a_pb::convert::timestamp_from_rfc3339(s)?;
    Some(
        u32::try_from(ts.nanos)
            .map_err(|_| "out of range integral type conversion attempted")
            .and_then(|nanos| {
                chrono::DateTime::from_timestamp(ts.seconds, nanos)
                    .ok_or("invalid or out-of-range datetime")
            })
            .map(|dt| dt.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
    )
}

/// A `Message` (`parts` is the proto's `content`; `referenceTaskIds` has no
/// proto field and is left out).
struct PbMessage<'a>(&'a Message);

impl Serialize for PbMessage<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let m = self.0;
        let mut s = ser.serialize_struct("a2a.v1.Message", 7)?;
        if !m.message_id.is_empty() {
            s.serialize_field("messageId", &m.message_id)?;
        }
        if let Some(id) = non_empty_str(m.context_id.as_deref()) {
            s.serialize_field("contextId", id)?;
        }
        if let Some(id) = non_empty_str(m.task_id.as_deref()) {
            s.serialize_field("taskId", id)?;
        }
        s.serialize_field("role", v1::Role::from(m.role).as_str_name())?;
        if !m.parts.is_empty() {
            s.serialize_field("content", &Seq(&m.parts, PbPart))?;
        }
        if let Some(meta) = &m.metadata {
            s.serialize_field("metadata", &PbStruct(meta))?;
        }
        if let Some(ext) = non_empty(m.extensions.as_deref()) {
            s.serialize_field("extensions", ext)?;
        }
        s.end()
    }
}

/// A `Part`: `metadata` first, then the oneof member.
struct PbPart<'a>(&'a Part);

impl Serialize for PbPart<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut s = ser.serialize_struct("a2a.v1.Part", 2)?;
        if let Some(meta) = self.0.metadata() {
            s.serialize_field("metadata", &PbStruct(meta))?;
        }
        match self.0 {
            Part::Text(p) => s.serialize_field("text", &p.text)?,
            Part::File(p) => s.serialize_field("file", &PbFile(&p.file))?,
            Part::Data(p) => s.serialize_field("data", &PbData(&p.data))?,
        }
        s.end()
    }
}

/// A `FilePart`. The bytes are the base64 text of the a2a-types value, whose
/// ASCII bytes are the proto `bytes`, which pbjson writes in base64.
struct PbFile<'a>(&'a FileContent);

impl Serialize for PbFile<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let f = self.0;
        let mut s = ser.serialize_struct("a2a.v1.FilePart", 3)?;
        if let Some(mime_type) = non_empty_str(f.mime_type()) {
            s.serialize_field("mimeType", mime_type)?;
        }
        if let Some(name) = non_empty_str(f.name()) {
            s.serialize_field("name", name)?;
        }
        match f {
            FileContent::Uri(u) => s.serialize_field("fileWithUri", &u.uri)?,
            FileContent::Bytes(b) => s.serialize_field(
                "fileWithBytes",
                &base64::engine::general_purpose::STANDARD.encode(b.bytes.as_bytes()),
            )?,
        }
        s.end()
    }
}

/// A `DataPart`: `{"data": <Struct>}`.
struct PbData<'a>(&'a Metadata);

impl Serialize for PbData<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut s = ser.serialize_struct("a2a.v1.DataPart", 1)?;
        s.serialize_field("data", &PbStruct(self.0))?;
        s.end()
    }
}

/// An `Artifact`.
struct PbArtifact<'a>(&'a Artifact);

impl Serialize for PbArtifact<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        let mut s = ser.serialize_struct("a2a.v1.Artifact", 6)?;
        if !a.artifact_id.is_empty() {
            s.serialize_field("artifactId", &a.artifact_id)?;
        }
        if let Some(name) = non_empty_str(a.name.as_deref()) {
            s.serialize_field("name", name)?;
        }
        if let Some(description) = non_empty_str(a.description.as_deref()) {
            s.serialize_field("description", description)?;
        }
        if !a.parts.is_empty() {
            s.serialize_field("parts", &Seq(&a.parts, PbPart))?;
        }
        if let Some(meta) = &a.metadata {
            s.serialize_field("metadata", &PbStruct(meta))?;
        }
        if let Some(ext) = non_empty(a.extensions.as_deref()) {
            s.serialize_field("extensions", ext)?;
        }
        s.end()
    }
}

/// A `TaskStatusUpdateEvent`.
struct PbStatusUpdate<'a>(&'a TaskStatusUpdateEvent);

impl Serialize for PbStatusUpdate<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        let mut s = ser.serialize_struct("a2a.v1.TaskStatusUpdateEvent", 5)?;
        if !e.task_id.is_empty() {
            s.serialize_field("taskId", &e.task_id)?;
        }
        if !e.context_id.is_empty() {
            s.serialize_field("contextId", &e.context_id)?;
        }
        s.serialize_field("status", &PbStatus(&e.status))?;
        if e.is_final {
            s.serialize_field("final", &true)?;
        }
        if let Some(meta) = &e.metadata {
            s.serialize_field("metadata", &PbStruct(meta))?;
        }
        s.end()
    }
}

/// A `TaskArtifactUpdateEvent`.
struct PbArtifactUpdate<'a>(&'a TaskArtifactUpdateEvent);

impl Serialize for PbArtifactUpdate<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        let mut s = ser.serialize_struct("a2a.v1.TaskArtifactUpdateEvent", 6)?;
        if !e.task_id.is_empty() {
            s.serialize_field("taskId", &e.task_id)?;
        }
        if !e.context_id.is_empty() {
            s.serialize_field("contextId", &e.context_id)?;
        }
        s.serialize_field("artifact", &PbArtifact(&e.artifact))?;
        if e.append == Some(true) {
            s.serialize_field("append", &true)?;
        }
        if e.last_chunk == Some(true) {
            s.serialize_field("lastChunk", &true)?;
        }
        if let Some(meta) = &e.metadata {
            s.serialize_field("metadata", &PbStruct(meta))?;
        }
        s.end()
    }
}

/// A JSON object as a `google.protobuf.Struct`.
struct PbStruct<'a>(&'a Metadata);

impl Serialize for PbStruct<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_map(self.0.iter().map(|(k, v)| (k, PbValue(v))))
    }
}

/// A JSON value as a `google.protobuf.Value`: every number is a double.
struct PbValue<'a>(&'a Value);

impl Serialize for PbValue<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Null => ser.serialize_unit(),
            Value::Bool(b) => ser.serialize_bool(*b),
            Value::Number(n) => {
                let n = n.as_f64().unwrap_or(0.0);
                if n.is_nan() {
                    Err(S::Error::custom(
                        "Cannot serialize NaN as google.protobuf.Value.number_value",
                    ))
                } else if n.is_infinite() {
                    Err(S::Error::custom(
                        "Cannot serialize infinity as google.protobuf.Value.number_value",
                    ))
                } else {
                    ser.serialize_f64(n)
                }
            }
            Value::String(s) => ser.serialize_str(s),
            Value::Array(a) => ser.collect_seq(a.iter().map(PbValue)),
            Value::Object(o) => PbStruct(o).serialize(ser),
        }
    }
}

/// A list whose items are written through the wrapper `W`.
struct Seq<'a, T, W>(&'a [T], fn(&'a T) -> W);

impl<'a, T, W: Serialize> Serialize for Seq<'a, T, W> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_seq(self.0.iter().map(self.1))
    }
}

fn non_empty<T>(v: Option<&[T]>) -> Option<&[T]> {
    v.filter(|v| !v.is_empty())
}

fn non_empty_str(s: Option<&str>) -> Option<&str> {
    s.filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    //! The direct encoding against the reference path: `a2a_pb::convert`,
    //! pbjson and the `Z` fix-up of `codec::to_json_bytes`.

    use a2a_types::{DataPart, FilePart, FileWithBytes, FileWithUri, Role, TaskState, TextPart};
    use serde_json::json;

    use super::*;
    use crate::codec::{ProtoJson, encode, to_json_bytes};

    const STRINGS: &[&str] = &[
        "",
        "a",
        "hello world",
        "héllo wörld ✓ 日本語 🎉",
        "quote\" back\\slash /slash",
        "ctrl \u{0}\u{1}\u{8}\u{c}\u{1f}\n\r\t\u{7f}",
        "\u{2028}\u{2029}\u{feff}",
        "+00:00",
        r#""timestamp":"2025-07-31T08:00:00+00:00" {[\"#,
        "aGk=",
        "not base64 ==",
    ];

    const TIMESTAMPS: &[&str] = &[
        "2025-07-31T10:00:00.5+02:00",
        "2025-07-31T08:00:00Z",
        "2025-07-31T08:00:00.000Z",
        "2025-07-31T08:00:00.120Z",
        "2025-07-31T08:00:00.123456Z",
        "2025-07-31T08:00:00.123456789Z",
        "2025-07-31T08:00:00.100000000-05:30",
        "2025-07-31T08:00:00+00:00",
        "2025-07-31t08:00:00z",
        "2025-07-31 08:00:00Z",
        "1970-01-01T00:00:00Z",
        "1969-12-31T23:59:59.999Z",
        "0001-01-01T00:00:00Z",
        "0000-12-31T23:59:59Z",
        "9999-12-31T23:59:59.999999999Z",
        "9999-12-31T23:59:59-01:00",
        "2016-12-31T23:59:60Z",
        "2016-12-31T23:59:60.5+00:00",
        "2025-02-29T00:00:00Z",
        "2024-02-29T00:00:00Z",
        "not a time",
        "",
    ];

    const STATES: &[TaskState] = &[
        TaskState::Submitted,
        TaskState::Working,
        TaskState::InputRequired,
        TaskState::Completed,
        TaskState::Canceled,
        TaskState::Failed,
        TaskState::Rejected,
        TaskState::AuthRequired,
        TaskState::Unknown,
    ];

    /// Varied values from a seed (xorshift); `multi` records whether a
    /// `Struct` with more than one member was made (pbjson writes those in
    /// `HashMap` order, so such a case is compared as JSON, not as bytes),
    /// which only every fourth seed allows.
    struct Gen {
        state: u64,
        allow_multi: bool,
        multi: bool,
    }

    impl Gen {
        fn new(seed: u64) -> Self {
            Self {
                state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
                allow_multi: seed.is_multiple_of(4),
                multi: false,
            }
        }

        fn next(&mut self) -> u64 {
            self.state ^= self.state << 13;
            self.state ^= self.state >> 7;
            self.state ^= self.state << 17;
            self.state
        }

        fn below(&mut self, n: u64) -> usize {
            usize::try_from(self.next() % n).expect("small")
        }

        fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
            xs[self.below(xs.len() as u64)]
        }

        fn string(&mut self) -> String {
            self.pick(STRINGS).to_owned()
        }

        fn opt_string(&mut self) -> Option<String> {
            match self.below(3) {
                0 => None,
                1 => Some(String::new()),
                _ => Some(self.string()),
            }
        }

        fn strings(&mut self) -> Option<Vec<String>> {
            match self.below(3) {
                0 => None,
                1 => Some(Vec::new()),
                _ => Some((0..=self.below(3)).map(|_| self.string()).collect()),
            }
        }

        fn value(&mut self, depth: u32) -> Value {
            let kinds = if depth >= 3 { 10 } else { 12 };
            match self.below(kinds) {
                0 => Value::Null,
                1 => Value::Bool(self.below(2) == 0),
                2 => json!(self.pick(&[0_i64, 1, -1, 42, i64::MIN, 9_007_199_254_740_993])),
                3 => json!(u64::MAX),
                4 => json!(self.pick(&[0.5_f64, -0.0, 1e300, 1e-7, 0.1, 123_456.789, 2.0])),
                5..=9 => Value::String(self.string()),
                10 => Value::Array((0..self.below(4)).map(|_| self.value(depth + 1)).collect()),
                _ => Value::Object(self.map(depth + 1)),
            }
        }

        fn map(&mut self, depth: u32) -> Metadata {
            let n = match self.below(8) {
                0 => 0,
                1 if self.allow_multi => 2 + self.below(3),
                _ => 1,
            };
            if n > 1 {
                self.multi = true;
            }
            let keys = ["k", "timestamp", "", "ключ", "a\"b", "data", "z"];
            (0..n)
                .map(|i| {
                    (
                        keys[(i + self.below(7)) % keys.len()].to_owned(),
                        self.value(depth),
                    )
                })
                .collect()
        }

        fn metadata(&mut self) -> Option<Metadata> {
            (self.below(3) == 0).then(|| self.map(0))
        }

        fn part(&mut self) -> Part {
            let metadata = self.metadata();
            match self.below(4) {
                0 => Part::Text(TextPart {
                    text: self.string(),
                    metadata,
                }),
                1 => Part::File(FilePart {
                    file: FileContent::Uri(FileWithUri {
                        uri: self
                            .pick(&["", "https://example.com/a b?c=d&e", "file:///x"])
                            .to_owned(),
                        name: self.opt_string(),
                        mime_type: self.opt_string(),
                    }),
                    metadata,
                }),
                2 => Part::File(FilePart {
                    file: FileContent::Bytes(FileWithBytes {
                        bytes: self.string(),
                        name: self.opt_string(),
                        mime_type: self.opt_string(),
                    }),
                    metadata,
                }),
                _ => Part::Data(DataPart {
                    data: self.map(0),
                    metadata,
                }),
            }
        }

        fn parts(&mut self) -> Vec<Part> {
            (0..self.below(4)).map(|_| self.part()).collect()
        }

        fn message(&mut self) -> Message {
            Message {
                role: self.pick(&[Role::User, Role::Agent]),
                parts: self.parts(),
                message_id: self.string(),
                task_id: self.opt_string(),
                context_id: self.opt_string(),
                reference_task_ids: self.strings(),
                extensions: self.strings(),
                metadata: self.metadata(),
            }
        }

        fn messages(&mut self) -> Option<Vec<Message>> {
            match self.below(3) {
                0 => None,
                1 => Some(Vec::new()),
                _ => Some((0..=self.below(3)).map(|_| self.message()).collect()),
            }
        }

        fn status(&mut self) -> TaskStatus {
            TaskStatus {
                state: self.pick(STATES),
                message: (self.below(3) == 0).then(|| self.message()),
                timestamp: (self.below(4) != 0).then(|| self.pick(TIMESTAMPS).to_owned()),
            }
        }

        fn artifact(&mut self) -> Artifact {
            Artifact {
                artifact_id: self.string(),
                name: self.opt_string(),
                description: self.opt_string(),
                parts: self.parts(),
                metadata: self.metadata(),
                extensions: self.strings(),
            }
        }

        fn task(&mut self) -> Task {
            Task {
                id: self.string(),
                context_id: self.string(),
                status: self.status(),
                history: self.messages(),
                artifacts: match self.below(3) {
                    0 => None,
                    1 => Some(Vec::new()),
                    _ => Some((0..=self.below(3)).map(|_| self.artifact()).collect()),
                },
                metadata: self.metadata(),
            }
        }

        fn status_update(&mut self) -> TaskStatusUpdateEvent {
            TaskStatusUpdateEvent {
                task_id: self.string(),
                context_id: self.string(),
                status: self.status(),
                is_final: self.below(2) == 0,
                metadata: self.metadata(),
            }
        }

        fn artifact_update(&mut self) -> TaskArtifactUpdateEvent {
            let flag = |g: &mut Self| g.pick(&[None, Some(false), Some(true)]);
            TaskArtifactUpdateEvent {
                task_id: self.string(),
                context_id: self.string(),
                artifact: self.artifact(),
                append: flag(self),
                last_chunk: flag(self),
                metadata: self.metadata(),
            }
        }
    }

    /// Asserts the two encodings agree: the same bytes, or (with a
    /// several-member `Struct`) the same JSON and length. Returns whether
    /// the bytes were compared.
    fn agree<T: ProtoJson>(old: &T, new: &impl Serialize, multi: bool) -> bool {
        let old = to_json_bytes(old);
        let new = encode(new);
        let (old, new) = match (old, new) {
            (Ok(old), Ok(new)) => (old, new),
            (old, new) => {
                assert_eq!(
                    old.map_err(|e| e.to_string()),
                    new.map_err(|e| e.to_string())
                );
                return true;
            }
        };
        if multi {
            let parse = |b: &[u8]| serde_json::from_slice::<Value>(b).expect("valid JSON");
            assert_eq!(
                parse(&old),
                parse(&new),
                "{}",
                String::from_utf8_lossy(&new)
            );
            assert_eq!(old.len(), new.len());
            false
        } else {
            assert_eq!(String::from_utf8_lossy(&old), String::from_utf8_lossy(&new));
            assert_eq!(old, new);
            true
        }
    }

    #[test]
    fn the_direct_encoding_is_the_pbjson_one() {
        let mut exact = 0;
        let mut cases = 0;
        for seed in 1..=3000 {
            let mut g = Gen::new(seed);
            let task = g.task();
            let message = g.message();
            let status_update = g.status_update();
            let artifact_update = g.artifact_update();
            let multi = g.multi;
            let mut check = |exact_bytes: bool| {
                cases += 1;
                exact += usize::from(exact_bytes);
            };
            check(agree(&v1::Task::from(task.clone()), &PbTask(&task), multi));
            for result in [
                SendMessageResult::Task(task.clone()),
                SendMessageResult::Message(message.clone()),
            ] {
                check(agree(
                    &v1::SendMessageResponse::from(result.clone()),
                    &PbSendResponse(&result),
                    multi,
                ));
            }
            for event in [
                StreamResponse::Task(task),
                StreamResponse::Message(message),
                StreamResponse::StatusUpdate(status_update),
                StreamResponse::ArtifactUpdate(artifact_update),
            ] {
                check(agree(
                    &v1::StreamResponse::from(event.clone()),
                    &PbStreamResponse(&event),
                    multi,
                ));
            }
        }
        // Most cases are compared byte for byte.
        assert!(exact * 3 > cases * 2, "{exact} of {cases}");
    }

    #[test]
    fn every_state_and_flag() {
        for (i, state) in STATES.iter().enumerate() {
            for timestamp in TIMESTAMPS {
                let mut task = Task::new("t", "c", *state);
                task.status.timestamp = Some((*timestamp).to_owned());
                assert!(agree(&v1::Task::from(task.clone()), &PbTask(&task), false));
                let event = StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                    task_id: String::new(),
                    context_id: String::new(),
                    status: task.status,
                    is_final: i % 2 == 0,
                    metadata: Some(Metadata::new()),
                });
                assert!(agree(
                    &v1::StreamResponse::from(event.clone()),
                    &PbStreamResponse(&event),
                    false
                ));
            }
        }
        for append in [None, Some(false), Some(true)] {
            for last_chunk in [None, Some(false), Some(true)] {
                let event = StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
                    task_id: "t".to_owned(),
                    context_id: "c".to_owned(),
                    artifact: Artifact::new("", Vec::new()),
                    append,
                    last_chunk,
                    metadata: None,
                });
                assert!(agree(
                    &v1::StreamResponse::from(event.clone()),
                    &PbStreamResponse(&event),
                    false
                ));
            }
        }
    }

    #[test]
    fn the_bench_answer() {
        let mut task = Task::new("t-1", "c-1", TaskState::Completed);
        task.status.timestamp = Some("2026-11-21T04:57:28.416Z".to_owned());
        task.artifacts = Some(vec![Artifact {
            name: Some("echo".to_owned()),
            ..Artifact::new("echo", vec![Part::text("hello world")])
        }]);
        let mut m = Message::user_text("m-1", "hello world");
        m.context_id = Some("c-1".to_owned());
        m.task_id = Some("t-1".to_owned());
        task.history = Some(vec![m]);
        let bytes = encode(&PbSendResponse(&SendMessageResult::Task(task))).expect("bytes");
        assert_eq!(
            String::from_utf8_lossy(&bytes),
            r#"{"task":{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-11-21T04:57:28.416Z"},"artifacts":[{"artifactId":"echo","name":"echo","parts":[{"text":"hello world"}]}],"history":[{"messageId":"m-1","contextId":"c-1","taskId":"t-1","role":"ROLE_USER","content":[{"text":"hello world"}]}]}}"#
        );
    }
}
