//! Protobuf JSON written straight from the [`a2a_types`] values of the hot
//! answers (`SendMessageResponse`, `StreamResponse`, `Task`) into the body
//! buffer, with no `a2a_pb` message built in between.
//!
//! The output is byte for byte what `a2a_pb::convert` (types → pb) followed
//! by the pbjson `Serialize` (through `serde_json`) and the `Z` fix-up of
//! `codec::to_json_bytes` (the test reference) give: compact, proto field
//! order, camelCase names, enum names, every default (empty string or list,
//! `false`, the unspecified enum) left out, strings escaped as `serde_json`
//! does, metadata as a `google.protobuf.Struct` (numbers as doubles), file
//! bytes base64-encoded once more, and `TaskStatus.timestamp` re-spelled in
//! UTC ending in `Z` (or left out when it is not RFC 3339). The one freedom
//! is the member order inside a `Struct`: pbjson follows its `HashMap` (an
//! arbitrary order), this follows the `serde_json::Map` (its keys in order).

use a2a_pb::v1;
use a2a_types::json::write_str;
use a2a_types::{
    A2aError, Artifact, FileContent, Message, Metadata, Part, SendMessageResult, StreamResponse,
    Task, TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent,
};
use base64::Engine as _;
use serde::ser::Error as _;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// Why an answer could not be written (what pbjson would have failed on).
type Failure = String;

/// The body of a `SendMessageResponse`: `{"task":…}` or `{"message":…}`.
pub(crate) fn send_response(r: &SendMessageResult) -> Result<Vec<u8>, A2aError> {
    finish(|out| {
        match r {
            SendMessageResult::Task(task) => {
                out.extend_from_slice(br#"{"task":"#);
                write_task(out, task)?;
            }
            SendMessageResult::Message(m) => {
                out.extend_from_slice(br#"{"message":"#);
                write_message(out, m)?;
            }
        }
        out.push(b'}');
        Ok(())
    })
}

/// The body of a `StreamResponse`: `task`, `message`, `statusUpdate` or
/// `artifactUpdate`.
pub(crate) fn stream_response(r: &StreamResponse) -> Result<Vec<u8>, A2aError> {
    finish(|out| {
        match r {
            StreamResponse::Task(task) => {
                out.extend_from_slice(br#"{"task":"#);
                write_task(out, task)?;
            }
            StreamResponse::Message(m) => {
                out.extend_from_slice(br#"{"message":"#);
                write_message(out, m)?;
            }
            StreamResponse::StatusUpdate(e) => {
                out.extend_from_slice(br#"{"statusUpdate":"#);
                write_status_update(out, e)?;
            }
            StreamResponse::ArtifactUpdate(e) => {
                out.extend_from_slice(br#"{"artifactUpdate":"#);
                write_artifact_update(out, e)?;
            }
        }
        out.push(b'}');
        Ok(())
    })
}

/// The body of a `Task`.
pub(crate) fn task(t: &Task) -> Result<Vec<u8>, A2aError> {
    finish(|out| write_task(out, t))
}

fn finish(write: impl FnOnce(&mut Vec<u8>) -> Result<(), Failure>) -> Result<Vec<u8>, A2aError> {
    let mut out = Vec::with_capacity(1024);
    write(&mut out).map_err(|e| A2aError::internal(format!("could not encode the answer: {e}")))?;
    Ok(out)
}

/// The members of one object being written: commas and keys.
struct Obj<'a> {
    out: &'a mut Vec<u8>,
    empty: bool,
}

impl<'a> Obj<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        out.push(b'{');
        Self { out, empty: true }
    }

    /// Starts member `key` (plain ASCII, no escape); returns the buffer
    /// for its value.
    fn key(&mut self, key: &str) -> &mut Vec<u8> {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = false;
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\":");
        self.out
    }

    fn str(&mut self, key: &str, value: &str) {
        write_str(self.key(key), value);
    }

    /// A member whose value is written as is (a JSON literal).
    fn raw(&mut self, key: &str, value: &str) {
        self.key(key).extend_from_slice(value.as_bytes());
    }

    fn end(self) {
        self.out.push(b'}');
    }
}

fn write_task(out: &mut Vec<u8>, t: &Task) -> Result<(), Failure> {
    let mut o = Obj::new(out);
    if !t.id.is_empty() {
        o.str("id", &t.id);
    }
    if !t.context_id.is_empty() {
        o.str("contextId", &t.context_id);
    }
    write_status(o.key("status"), &t.status)?;
    if let Some(artifacts) = non_empty(t.artifacts.as_deref()) {
        write_list(o.key("artifacts"), artifacts, write_artifact)?;
    }
    if let Some(history) = non_empty(t.history.as_deref()) {
        write_list(o.key("history"), history, write_message)?;
    }
    if let Some(m) = &t.metadata {
        write_struct(o.key("metadata"), m)?;
    }
    o.end();
    Ok(())
}

/// A `TaskStatus` (`message` is the proto's `update`).
fn write_status(out: &mut Vec<u8>, st: &TaskStatus) -> Result<(), Failure> {
    let mut o = Obj::new(out);
    if st.state != TaskState::Unknown {
        o.str("state", v1::TaskState::from(st.state).as_str_name());
    }
    if let Some(m) = &st.message {
        write_message(o.key("message"), m)?;
    }
    if let Some(ts) = st.timestamp.as_deref() {
        if is_canonical_timestamp(ts) {
            o.str("timestamp", ts);
        } else if let Some(text) = timestamp_z(ts) {
            o.str("timestamp", &text?);
        }
    }
    o.end();
    Ok(())
}

/// Whether `s` is already what [`timestamp_z`] makes of it:
/// `YYYY-MM-DDTHH:MM:SS[.fff|.ffffff|.fffffffff]Z`, a real date in years
/// 1–9999, seconds below 60, and the shortest of 0, 3, 6 or 9 fraction
/// digits (chrono's `AutoSi`).
fn is_canonical_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |range: std::ops::Range<usize>| -> Option<u32> {
        b.get(range)?.iter().try_fold(0u32, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
        })
    };
    let fraction = match b.len() {
        20 => 0,
        24 => 3,
        27 => 6,
        30 => 9,
        _ => return false,
    };
    let shape = b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[b.len() - 1] == b'Z'
        && (fraction == 0 || b[19] == b'.');
    if !shape {
        return false;
    }
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = (
        digits(0..4),
        digits(5..7),
        digits(8..10),
        digits(11..13),
        digits(14..16),
        digits(17..19),
    ) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if year == 0 || day == 0 || day > days || hour > 23 || minute > 59 || second > 59 {
        return false;
    }
    // The last three fraction digits are not all zero (else `AutoSi` writes
    // fewer), and the fraction is all digits.
    fraction == 0
        || (digits(20..20 + fraction).is_some()
            && digits(17 + fraction..20 + fraction).is_some_and(|n| n != 0))
}

/// What pbjson writes for the `google.protobuf.Timestamp` that
/// `a2a_pb::convert` makes of `s` (after the `+00:00` → `Z` fix-up): `None`
/// when `s` is not RFC 3339 or out of range (the field is left out), else the
/// text or the error pbjson gives.
fn timestamp_z(s: &str) -> Option<Result<String, Failure>> {
    let ts = a2a_pb::convert::timestamp_from_rfc3339(s)?;
    Some(
        u32::try_from(ts.nanos)
            .map_err(|_| "out of range integral type conversion attempted".to_owned())
            .and_then(|nanos| {
                chrono::DateTime::from_timestamp(ts.seconds, nanos)
                    .ok_or_else(|| "invalid or out-of-range datetime".to_owned())
            })
            .map(|dt| dt.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
    )
}

/// A `Message` (`parts` is the proto's `content`; `referenceTaskIds` has no
/// proto field and is left out).
fn write_message(out: &mut Vec<u8>, m: &Message) -> Result<(), Failure> {
    let mut o = Obj::new(out);
    if !m.message_id.is_empty() {
        o.str("messageId", &m.message_id);
    }
    if let Some(id) = non_empty_str(m.context_id.as_deref()) {
        o.str("contextId", id);
    }
    if let Some(id) = non_empty_str(m.task_id.as_deref()) {
        o.str("taskId", id);
    }
    o.str("role", v1::Role::from(m.role).as_str_name());
    if !m.parts.is_empty() {
        write_list(o.key("content"), &m.parts, write_part)?;
    }
    if let Some(meta) = &m.metadata {
        write_struct(o.key("metadata"), meta)?;
    }
    if let Some(ext) = non_empty(m.extensions.as_deref()) {
        write_strings(o.key("extensions"), ext);
    }
    o.end();
    Ok(())
}

/// A `Part`: `metadata` first, then the oneof member.
fn write_part(out: &mut Vec<u8>, part: &Part) -> Result<(), Failure> {
    let mut o = Obj::new(out);
    if let Some(meta) = part.metadata() {
        write_struct(o.key("metadata"), meta)?;
    }
    match part {
        Part::Text(p) => o.str("text", &p.text),
        Part::File(p) => write_file(o.key("file"), &p.file),
        Part::Data(p) => {
            // A `DataPart`: `{"data": <Struct>}`.
            let mut data = Obj::new(o.key("data"));
            write_struct(data.key("data"), &p.data)?;
            data.end();
        }
    }
    o.end();
    Ok(())
}

/// A `FilePart`. The bytes are the base64 text of the a2a-types value, whose
/// ASCII bytes are the proto `bytes`, which pbjson writes in base64.
fn write_file(out: &mut Vec<u8>, f: &FileContent) {
    let mut o = Obj::new(out);
    if let Some(mime_type) = non_empty_str(f.mime_type()) {
        o.str("mimeType", mime_type);
    }
    if let Some(name) = non_empty_str(f.name()) {
        o.str("name", name);
    }
    match f {
        FileContent::Uri(u) => o.str("fileWithUri", &u.uri),
        FileContent::Bytes(b) => o.str(
            "fileWithBytes",
            &base64::engine::general_purpose::STANDARD.encode(b.bytes.as_bytes()),
        ),
    }
    o.end();
}

/// An `Artifact`.
fn write_artifact(out: &mut Vec<u8>, a: &Artifact) -> Result<(), Failure> {
    let mut o = Obj::new(out);
    if !a.artifact_id.is_empty() {
        o.str("artifactId", &a.artifact_id);
    }
    if let Some(name) = non_empty_str(a.name.as_deref()) {
        o.str("name", name);
    }
    if let Some(description) = non_empty_str(a.description.as_deref()) {
        o.str("description", description);
    }
    if !a.parts.is_empty() {
        write_list(o.key("parts"), &a.parts, write_part)?;
    }
    if let Some(meta) = &a.metadata {
        write_struct(o.key("metadata"), meta)?;
    }
    if let Some(ext) = non_empty(a.extensions.as_deref()) {
        write_strings(o.key("extensions"), ext);
    }
    o.end();
    Ok(())
}

/// A `TaskStatusUpdateEvent`.
fn write_status_update(out: &mut Vec<u8>, e: &TaskStatusUpdateEvent) -> Result<(), Failure> {
    let mut o = Obj::new(out);
    if !e.task_id.is_empty() {
        o.str("taskId", &e.task_id);
    }
    if !e.context_id.is_empty() {
        o.str("contextId", &e.context_id);
    }
    write_status(o.key("status"), &e.status)?;
    if e.is_final {
        o.raw("final", "true");
    }
    if let Some(meta) = &e.metadata {
        write_struct(o.key("metadata"), meta)?;
    }
    o.end();
    Ok(())
}

/// A `TaskArtifactUpdateEvent`.
fn write_artifact_update(out: &mut Vec<u8>, e: &TaskArtifactUpdateEvent) -> Result<(), Failure> {
    let mut o = Obj::new(out);
    if !e.task_id.is_empty() {
        o.str("taskId", &e.task_id);
    }
    if !e.context_id.is_empty() {
        o.str("contextId", &e.context_id);
    }
    write_artifact(o.key("artifact"), &e.artifact)?;
    if e.append == Some(true) {
        o.raw("append", "true");
    }
    if e.last_chunk == Some(true) {
        o.raw("lastChunk", "true");
    }
    if let Some(meta) = &e.metadata {
        write_struct(o.key("metadata"), meta)?;
    }
    o.end();
    Ok(())
}

/// A JSON list of the items, each written by `write`.
fn write_list<T>(
    out: &mut Vec<u8>,
    items: &[T],
    write: fn(&mut Vec<u8>, &T) -> Result<(), Failure>,
) -> Result<(), Failure> {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(out, item)?;
    }
    out.push(b']');
    Ok(())
}

fn write_strings(out: &mut Vec<u8>, items: &[String]) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, item);
    }
    out.push(b']');
}

/// A JSON object as a `google.protobuf.Struct`, through
/// [`a2a_types::json`] (`serde_json`'s bytes and number formatting).
fn write_struct(out: &mut Vec<u8>, m: &Metadata) -> Result<(), Failure> {
    a2a_types::json::to_writer(out, &PbStruct(m)).map_err(|e| e.to_string())
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
    use crate::codec::{ProtoJson, to_json_bytes};

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
    fn agree<T: ProtoJson>(old: &T, new: Result<Vec<u8>, A2aError>, multi: bool) -> bool {
        let old = to_json_bytes(old);
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
            check(agree(
                &v1::Task::from(task.clone()),
                super::task(&task),
                multi,
            ));
            for result in [
                SendMessageResult::Task(task.clone()),
                SendMessageResult::Message(message.clone()),
            ] {
                check(agree(
                    &v1::SendMessageResponse::from(result.clone()),
                    send_response(&result),
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
                    stream_response(&event),
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
                assert!(agree(
                    &v1::Task::from(task.clone()),
                    super::task(&task),
                    false
                ));
                let event = StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                    task_id: String::new(),
                    context_id: String::new(),
                    status: task.status,
                    is_final: i % 2 == 0,
                    metadata: Some(Metadata::new()),
                });
                assert!(agree(
                    &v1::StreamResponse::from(event.clone()),
                    stream_response(&event),
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
                    stream_response(&event),
                    false
                ));
            }
        }
    }

    #[test]
    fn canonical_timestamps_are_what_chrono_writes() {
        let years = [
            "0000", "0001", "1900", "1969", "1970", "2000", "2024", "2025", "2100", "9999",
        ];
        let months = ["00", "01", "02", "04", "06", "09", "11", "12", "13", "1a"];
        let days = ["00", "01", "28", "29", "30", "31", "32"];
        let hours = ["00", "09", "23", "24"];
        let minutes = ["00", "59", "60"];
        let seconds = ["00", "59", "60"];
        let fractions = [
            "",
            ".000",
            ".100",
            ".120",
            ".123",
            ".001",
            ".000000",
            ".100000",
            ".123000",
            ".123400",
            ".000001",
            ".000000000",
            ".123456000",
            ".123456700",
            ".000000001",
            ".12",
            ".1234",
            ".12a",
            ".",
        ];
        let seps = [
            ("-", "T", ":"),
            ("-", "t", ":"),
            ("/", "T", ":"),
            ("-", " ", ":"),
        ];
        let ends = ["Z", "z", "+00:00", "Z ", ""];
        let mut g = Gen::new(11);
        let mut canonical = 0;
        for _ in 0..100_000 {
            let (d, t, c) = if g.below(8) == 0 {
                g.pick(&seps)
            } else {
                seps[0]
            };
            let end = if g.below(8) == 0 { g.pick(&ends) } else { "Z" };
            let s = format!(
                "{}{d}{}{d}{}{t}{}{c}{}{c}{}{}{end}",
                g.pick(&years),
                g.pick(&months),
                g.pick(&days),
                g.pick(&hours),
                g.pick(&minutes),
                g.pick(&seconds),
                g.pick(&fractions),
            );
            if is_canonical_timestamp(&s) {
                canonical += 1;
                assert_eq!(timestamp_z(&s), Some(Ok(s.clone())), "{s}");
            }
        }
        assert!(canonical > 2_000, "{canonical}");
        for s in [
            "2026-11-21T04:57:28.416Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999999999Z",
            "2024-02-29T12:00:00.000001Z",
        ] {
            assert!(is_canonical_timestamp(s), "{s}");
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
        let bytes = send_response(&SendMessageResult::Task(task)).expect("bytes");
        assert_eq!(
            String::from_utf8_lossy(&bytes),
            r#"{"task":{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-11-21T04:57:28.416Z"},"artifacts":[{"artifactId":"echo","name":"echo","parts":[{"text":"hello world"}]}],"history":[{"messageId":"m-1","contextId":"c-1","taskId":"t-1","role":"ROLE_USER","content":[{"text":"hello world"}]}]}}"#
        );
    }
}
