//! The neutral vocabulary the cases speak: what to send ([`UserMessage`]) and what
//! came back ([`TaskView`], [`Event`], [`WireError`]…), small enough that
//! every driver can fill it from its own wire format by hand.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use a2a_types::TaskState;
use futures::StreamExt;
use futures::stream::BoxStream;
use serde::Serialize;
use serde_json::Value;

/// The bound of every wait in the suite.
pub(crate) const WAIT: Duration = Duration::from_secs(10);

/// A fresh id for client-chosen things (message ids, gate names).
pub(crate) fn fresh(prefix: &str) -> String {
    static N: AtomicU64 = AtomicU64::new(1);
    format!("{prefix}-{}", N.fetch_add(1, Ordering::Relaxed))
}

/// A push config to register, inline in a send or on its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct PushSpec {
    pub(crate) id: Option<String>,
    pub(crate) url: String,
    pub(crate) token: Option<String>,
}

/// One user message and its send configuration.
#[derive(Debug, Clone)]
pub(crate) struct UserMessage {
    pub(crate) message_id: String,
    /// Text parts, in order (empty: a message without parts).
    pub(crate) parts: Vec<String>,
    pub(crate) task_id: Option<String>,
    pub(crate) context_id: Option<String>,
    /// Always sent explicitly (proto3 cannot tell absent from false).
    pub(crate) blocking: bool,
    pub(crate) history_length: Option<i32>,
    pub(crate) accepted_output_modes: Vec<String>,
    pub(crate) push: Option<PushSpec>,
    /// Parts after the text parts (files, data, text with metadata).
    pub(crate) extra: Vec<PartView>,
    /// The message's metadata (a JSON object).
    pub(crate) metadata: Option<Value>,
    /// Extra request headers (gRPC: metadata).
    pub(crate) headers: Vec<(String, String)>,
}

impl UserMessage {
    /// A blocking message with one text part.
    pub(crate) fn text(text: &str) -> Self {
        Self {
            message_id: fresh("m"),
            parts: vec![text.to_owned()],
            task_id: None,
            context_id: None,
            blocking: true,
            history_length: None,
            accepted_output_modes: Vec::new(),
            push: None,
            extra: Vec::new(),
            metadata: None,
            headers: Vec::new(),
        }
    }

    pub(crate) fn non_blocking(mut self) -> Self {
        self.blocking = false;
        self
    }

    /// Continues `task` (same task and context ids).
    pub(crate) fn follow_up(mut self, task: &TaskView) -> Self {
        self.task_id = Some(task.id.clone());
        self.context_id = Some(task.context_id.clone());
        self
    }

    pub(crate) fn history_length(mut self, n: i32) -> Self {
        self.history_length = Some(n);
        self
    }

    pub(crate) fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
}

/// One part of a message. File `bytes` are the base64 text the JSON-RPC
/// model carries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) enum PartView {
    Text {
        text: String,
        metadata: Option<Value>,
    },
    File {
        name: Option<String>,
        mime_type: Option<String>,
        uri: Option<String>,
        bytes: Option<String>,
        metadata: Option<Value>,
    },
    Data {
        data: Value,
        metadata: Option<Value>,
    },
}

/// A message: who, what (text parts joined, and every part), and its ids.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct MsgView {
    /// `"user"` or `"agent"`.
    pub(crate) role: String,
    pub(crate) text: String,
    pub(crate) parts: Vec<PartView>,
    pub(crate) metadata: Option<Value>,
    pub(crate) message_id: String,
    pub(crate) task_id: Option<String>,
    pub(crate) context_id: Option<String>,
}

impl MsgView {
    /// `text` from `parts`: the text parts, joined.
    pub(crate) fn new(
        role: &str,
        parts: Vec<PartView>,
        metadata: Option<Value>,
        message_id: String,
        task_id: Option<String>,
        context_id: Option<String>,
    ) -> Self {
        let text = parts
            .iter()
            .filter_map(|p| match p {
                PartView::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        Self {
            role: role.to_owned(),
            text,
            parts,
            metadata,
            message_id,
            task_id,
            context_id,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ArtifactView {
    pub(crate) id: String,
    pub(crate) name: Option<String>,
    /// The text parts, joined.
    pub(crate) text: String,
    pub(crate) parts: Vec<PartView>,
}

impl ArtifactView {
    pub(crate) fn new(id: String, name: Option<String>, parts: Vec<PartView>) -> Self {
        let text = parts
            .iter()
            .filter_map(|p| match p {
                PartView::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        Self {
            id,
            name,
            text,
            parts,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct TaskView {
    pub(crate) id: String,
    pub(crate) context_id: String,
    pub(crate) state: TaskState,
    /// The text of the status message, if any.
    pub(crate) status_text: Option<String>,
    /// The status timestamp as the wire wrote it (RFC 3339, or
    /// `seconds.nanos` from a protobuf Timestamp).
    pub(crate) timestamp: Option<String>,
    pub(crate) history: Vec<MsgView>,
    pub(crate) artifacts: Vec<ArtifactView>,
}

impl TaskView {
    pub(crate) fn history_texts(&self) -> Vec<&str> {
        self.history.iter().map(|m| m.text.as_str()).collect()
    }

    pub(crate) fn artifact(&self, id: &str) -> &ArtifactView {
        self.artifacts
            .iter()
            .find(|a| a.id == id)
            .unwrap_or_else(|| panic!("no artifact {id:?} in {self:#?}"))
    }
}

/// The answer of a send.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) enum Reply {
    Task(TaskView),
    Message(MsgView),
}

impl Reply {
    #[track_caller]
    pub(crate) fn task(self) -> TaskView {
        match self {
            Self::Task(t) => t,
            Self::Message(m) => panic!("expected a task, got the message {m:?}"),
        }
    }

    #[track_caller]
    pub(crate) fn message(self) -> MsgView {
        match self {
            Self::Message(m) => m,
            Self::Task(t) => panic!("expected a message, got the task {t:?}"),
        }
    }
}

/// One stream event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) enum Event {
    Task(TaskView),
    Message(MsgView),
    Status {
        task_id: String,
        context_id: String,
        state: TaskState,
        text: Option<String>,
        is_final: bool,
    },
    Artifact {
        task_id: String,
        context_id: String,
        artifact: ArtifactView,
        append: bool,
        last_chunk: bool,
    },
}

impl Event {
    /// The event's shape without ids, for order assertions, e.g.
    /// `task:submitted`, `status:working`, `status:completed:final`,
    /// `artifact:a-1:append:last`, `message`.
    pub(crate) fn shape(&self) -> String {
        match self {
            Self::Task(t) => format!("task:{}", t.state),
            Self::Message(_) => "message".to_owned(),
            Self::Status {
                state, is_final, ..
            } => {
                if *is_final {
                    format!("status:{state}:final")
                } else {
                    format!("status:{state}")
                }
            }
            Self::Artifact {
                artifact,
                append,
                last_chunk,
                ..
            } => {
                let mut s = format!("artifact:{}", artifact.id);
                if *append {
                    s.push_str(":append");
                }
                if *last_chunk {
                    s.push_str(":last");
                }
                s
            }
        }
    }

    pub(crate) fn task_id(&self) -> Option<&str> {
        match self {
            Self::Task(t) => Some(&t.id),
            Self::Message(m) => m.task_id.as_deref(),
            Self::Status { task_id, .. } | Self::Artifact { task_id, .. } => Some(task_id),
        }
    }
}

/// A push-notification config as the agent reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct PushView {
    pub(crate) task_id: String,
    pub(crate) id: String,
    pub(crate) url: String,
    pub(crate) token: Option<String>,
}

/// The parts of an agent card the suite checks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct CardView {
    pub(crate) name: String,
    pub(crate) protocol_version: String,
    pub(crate) url: String,
    pub(crate) preferred_transport: String,
    /// `(transport, url)` of `additionalInterfaces`.
    pub(crate) interfaces: Vec<(String, String)>,
    pub(crate) streaming: bool,
    pub(crate) push_notifications: bool,
    pub(crate) extended: bool,
    pub(crate) skills: Vec<String>,
}

/// What a transport shows besides the A2A error itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Evidence {
    /// JSON-RPC and REST: the HTTP status.
    Http(u16),
    /// gRPC: the status code.
    Grpc(tonic::Code),
    /// In process: nothing but the error.
    None,
}

/// An error as the wire carried it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct WireError {
    /// The A2A (JSON-RPC) code, when the wire carried one.
    pub(crate) code: Option<i32>,
    pub(crate) message: String,
    pub(crate) data: Option<Value>,
    /// Transport-specific: not part of the transcripts compared across
    /// transports.
    #[serde(skip)]
    pub(crate) evidence: Evidence,
}

/// Ways to break a request below the A2A level (framing, envelope).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// Bytes that are not the payload format at all (invalid JSON, invalid
    /// protobuf).
    MalformedPayload,
    /// A method (or route) that does not exist.
    UnknownMethod,
    /// Valid JSON that is not a request of the right shape.
    InvalidRequest,
    /// A send without its `message`.
    MissingMessage,
}

/// A stream of events; every wait is bounded by [`WAIT`].
pub(crate) struct Events {
    inner: BoxStream<'static, Result<Event, WireError>>,
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Events")
    }
}

impl Events {
    /// Reads the first item: an error there is the call's error (every
    /// transport reports an error before the first event that way).
    pub(crate) async fn open(
        mut inner: BoxStream<'static, Result<Event, WireError>>,
    ) -> Result<Self, WireError> {
        let first = tokio::time::timeout(WAIT, inner.next())
            .await
            .expect("the first event (or the error) in time");
        match first {
            Some(Err(e)) => Err(e),
            Some(Ok(event)) => Ok(Self {
                inner: futures::stream::once(async move { Ok(event) })
                    .chain(inner)
                    .boxed(),
            }),
            None => Ok(Self {
                inner: futures::stream::empty().boxed(),
            }),
        }
    }

    /// The next event, `None` at the end.
    pub(crate) async fn next(&mut self) -> Option<Result<Event, WireError>> {
        tokio::time::timeout(WAIT, self.inner.next())
            .await
            .expect("the next event (or the end of the stream) in time")
    }

    /// The next event, which must be there and not be an error.
    #[track_caller]
    pub(crate) fn expect_event(&mut self) -> impl Future<Output = Event> + '_ {
        let caller = std::panic::Location::caller();
        async move {
            match self.next().await {
                Some(Ok(e)) => e,
                Some(Err(e)) => panic!("an error instead of an event ({caller}): {e:?}"),
                None => panic!("the stream ended before an expected event ({caller})"),
            }
        }
    }

    /// Every remaining event up to the end of the stream (at most 1000).
    pub(crate) async fn rest(mut self) -> Vec<Result<Event, WireError>> {
        let mut out = Vec::new();
        for _ in 0..1000 {
            match self.next().await {
                Some(item) => out.push(item),
                None => return out,
            }
        }
        panic!("the stream did not end after 1000 events: {out:?}");
    }

    /// Every remaining event, none of which may be an error.
    pub(crate) async fn all(self) -> Vec<Event> {
        self.rest()
            .await
            .into_iter()
            .map(|r| r.unwrap_or_else(|e| panic!("an error in the stream: {e:?}")))
            .collect()
    }
}

/// The task a stream describes, folded by the suite's own rules (the
/// oracle for "a stream and `get` agree"): the snapshot replaces, a status
/// replaces the status and moves the previous status message into the
/// history, `append` extends an artifact, otherwise it replaces or is added.
pub(crate) fn fold(events: &[Event]) -> TaskView {
    let mut task: Option<TaskView> = None;
    for event in events {
        match event {
            Event::Task(t) => task = Some(t.clone()),
            Event::Message(m) => panic!("a message in a task stream: {m:?}"),
            Event::Status {
                state,
                text,
                task_id,
                ..
            } => {
                let t = task.as_mut().expect("the task comes first");
                assert_eq!(&t.id, task_id, "one task per stream");
                t.state = *state;
                t.status_text = text.clone();
            }
            Event::Artifact {
                artifact, append, ..
            } => {
                let t = task.as_mut().expect("the task comes first");
                match t.artifacts.iter_mut().find(|a| a.id == artifact.id) {
                    Some(a) if *append => {
                        a.text.push_str(&artifact.text);
                        a.parts.extend(artifact.parts.iter().cloned());
                        if artifact.name.is_some() {
                            a.name.clone_from(&artifact.name);
                        }
                    }
                    Some(a) => *a = artifact.clone(),
                    None => t.artifacts.push(artifact.clone()),
                }
            }
        }
    }
    task.expect("a task")
}

/// Normalises a transcript for comparison across transports: every
/// server- or client-generated id (a task's `id`, `task_id`, `context_id`,
/// `message_id`) becomes `<id-N>` in order of first appearance, also inside other strings
/// (error messages quote ids), and every timestamp becomes `<timestamp>`.
pub(crate) fn normalise(mut transcript: Value) -> Value {
    fn collect(v: &Value, ids: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                // A task's `id` (tasks are the objects with a context id);
                // artifact and push-config ids are the script's, not the server's.
                let is_task = map.contains_key("context_id");
                for (k, v) in map {
                    if (matches!(k.as_str(), "task_id" | "context_id" | "message_id")
                        || (k == "id" && is_task))
                        && let Some(s) = v.as_str()
                        && !s.is_empty()
                        && !ids.iter().any(|i| i == s)
                    {
                        ids.push(s.to_owned());
                    }
                    collect(v, ids);
                }
            }
            Value::Array(items) => items.iter().for_each(|v| collect(v, ids)),
            _ => {}
        }
    }
    fn replace(v: &mut Value, ids: &[(String, String)]) {
        match v {
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    if k == "timestamp" && !v.is_null() {
                        *v = Value::String("<timestamp>".to_owned());
                    } else {
                        replace(v, ids);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| replace(v, ids)),
            Value::String(s) => {
                for (id, placeholder) in ids {
                    if s.contains(id.as_str()) {
                        *s = s.replace(id.as_str(), placeholder);
                    }
                }
            }
            _ => {}
        }
    }
    let mut ids = Vec::new();
    collect(&transcript, &mut ids);
    let mut pairs: Vec<(String, String)> = ids
        .into_iter()
        .enumerate()
        .map(|(n, id)| (id, format!("<id-{}>", n + 1)))
        .collect();
    // Longest first, so that an id containing another is replaced whole.
    pairs.sort_by_key(|(id, _)| std::cmp::Reverse(id.len()));
    replace(&mut transcript, &pairs);
    transcript
}

/// The instant a timestamp names, as `(unix seconds, nanoseconds)`:
/// RFC 3339 (`2025-01-02T03:04:05.678Z`, any offset) or the gRPC driver's
/// `seconds.nanos`.
pub(crate) fn instant(timestamp: &str) -> (i64, u32) {
    parse_instant(timestamp).unwrap_or_else(|| panic!("not a timestamp: {timestamp:?}"))
}

fn parse_instant(timestamp: &str) -> Option<(i64, u32)> {
    if let Some((secs, nanos)) = timestamp.split_once('.')
        && !secs.contains(['-', ':'])
    {
        return Some((secs.parse().ok()?, nanos.parse().ok()?));
    }
    let (date, time) = timestamp.split_once(['T', 't'])?;
    let mut d = date.splitn(3, '-').map(str::parse::<i64>);
    let (y, m, day) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
    let (clock, offset_secs) = if let Some(c) = time.strip_suffix(['Z', 'z']) {
        (c, 0)
    } else {
        let (c, off) = time.split_at(time.rfind(['+', '-'])?);
        let sign = if off.starts_with('-') { -1 } else { 1 };
        let (oh, om) = off[1..].split_once(':')?;
        (
            c,
            sign * (oh.parse::<i64>().ok()? * 3600 + om.parse::<i64>().ok()? * 60),
        )
    };
    let (hms, fraction) = clock.split_once('.').unwrap_or((clock, ""));
    let mut t = hms.splitn(3, ':').map(str::parse::<i64>);
    let (h, mi, sec) = (t.next()?.ok()?, t.next()?.ok()?, t.next()?.ok()?);
    let nanos: u32 = if fraction.is_empty() {
        0
    } else {
        format!("{fraction:0<9}").get(..9)?.parse().ok()?
    };
    // Days from the civil date (H. Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((
        days * 86_400 + h * 3600 + mi * 60 + sec - offset_secs,
        nanos,
    ))
}

#[test]
fn instants() {
    assert_eq!(instant("1970-01-01T00:00:00Z"), (0, 0));
    assert_eq!(
        instant("2025-01-02T03:04:05.678Z"),
        (1_735_787_045, 678_000_000)
    );
    assert_eq!(
        instant("2025-01-02T04:04:05.678+01:00"),
        (1_735_787_045, 678_000_000)
    );
    assert_eq!(
        instant("1735787045.678000000"),
        (1_735_787_045, 678_000_000)
    );
    assert_eq!(instant("2000-03-01T00:00:00Z"), (951_868_800, 0));
}
