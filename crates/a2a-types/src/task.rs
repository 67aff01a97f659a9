//! Tasks, their status and artifacts, and the events that update them.

use serde::{Deserialize, Deserializer, Serialize};

use crate::{Message, Metadata, Part};

/// The lifecycle state of a [`Task`].
///
/// JSON names are kebab-case (`"input-required"`); the proto names are
/// `TASK_STATE_*` (note `TASK_STATE_CANCELLED` with two Ls for `canceled`, and
/// `TASK_STATE_UNSPECIFIED` for `unknown`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskState {
    /// Received, not yet started.
    Submitted,
    /// Being worked on.
    Working,
    /// Waiting for more input from the user (interrupted).
    InputRequired,
    /// Finished successfully (terminal).
    Completed,
    /// Canceled (terminal).
    Canceled,
    /// Failed (terminal).
    Failed,
    /// Rejected by the agent (terminal).
    Rejected,
    /// Waiting for authentication (interrupted).
    AuthRequired,
    /// Unknown or indeterminate.
    Unknown,
}

impl TaskState {
    /// `completed`, `canceled`, `failed` or `rejected`: the task takes no more
    /// messages and cannot be restarted.
    #[must_use]
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            Self::Completed | Self::Canceled | Self::Failed | Self::Rejected
        )
    }

    /// `input-required` or `auth-required`: the agent waits for the client.
    #[must_use]
    pub fn is_interrupted(self) -> bool {
        matches!(self, Self::InputRequired | Self::AuthRequired)
    }

    /// Terminal or interrupted: a stream ends after this state and a blocking
    /// send returns.
    #[must_use]
    pub fn is_final(self) -> bool {
        self.is_terminal() || self.is_interrupted()
    }

    /// The JSON name (e.g. `"input-required"`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Submitted => "submitted",
            Self::Working => "working",
            Self::InputRequired => "input-required",
            Self::Completed => "completed",
            Self::Canceled => "canceled",
            Self::Failed => "failed",
            Self::Rejected => "rejected",
            Self::AuthRequired => "auth-required",
            Self::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for TaskState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The current status of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatus {
    /// The state.
    pub state: TaskState,
    /// An optional message from the agent about this status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// When the status was recorded: RFC 3339, e.g. `2025-07-31T10:00:00.000Z`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

impl TaskStatus {
    /// A status with the given state and no message or timestamp.
    #[must_use]
    pub fn new(state: TaskState) -> Self {
        Self {
            state,
            message: None,
            timestamp: None,
        }
    }
}

/// A stateful unit of work (`kind: "task"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "task", rename_all = "camelCase")]
pub struct Task {
    /// Server-generated unique id.
    pub id: String,
    /// Server-generated id of the context (conversation) the task belongs to.
    pub context_id: String,
    /// The current status.
    pub status: TaskStatus,
    /// The messages exchanged so far, oldest first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<Message>>,
    /// The outputs generated so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<Vec<Artifact>>,
    /// Extension metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl Task {
    /// A task with the given ids and state, no history, artifacts or metadata.
    #[must_use]
    pub fn new(id: impl Into<String>, context_id: impl Into<String>, state: TaskState) -> Self {
        Self {
            id: id.into(),
            context_id: context_id.into(),
            status: TaskStatus::new(state),
            history: None,
            artifacts: None,
            metadata: None,
        }
    }

    /// Keeps only the last `history_length` messages of the history; `None`
    /// or `0` keeps all of it (the engine rejects negative values earlier).
    pub fn trim_history(&mut self, history_length: Option<i32>) {
        if let (Some(n), Some(history)) = (history_length, self.history.as_mut()) {
            let n = usize::try_from(n).unwrap_or(0);
            if n > 0 && history.len() > n {
                history.drain(..history.len() - n);
            }
        }
    }
}

/// An output of a task, made of parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    /// Unique (within the task) id of the artifact.
    pub artifact_id: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The content.
    pub parts: Vec<Part>,
    /// Extension metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// URIs of the extensions that contributed to this artifact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
}

impl Artifact {
    /// An artifact with the given id and parts.
    #[must_use]
    pub fn new(artifact_id: impl Into<String>, parts: Vec<Part>) -> Self {
        Self {
            artifact_id: artifact_id.into(),
            name: None,
            description: None,
            parts,
            metadata: None,
            extensions: None,
        }
    }

    /// The concatenated text of all text parts.
    #[must_use]
    pub fn text(&self) -> String {
        crate::parts_text(&self.parts)
    }
}

/// A change in a task's status (`kind: "status-update"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "status-update", rename_all = "camelCase")]
pub struct TaskStatusUpdateEvent {
    /// The task.
    pub task_id: String,
    /// The task's context.
    pub context_id: String,
    /// The new status.
    pub status: TaskStatus,
    /// True on the last event of the stream for this interaction.
    #[serde(rename = "final", default)]
    pub is_final: bool,
    /// Extension metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A new or updated artifact (`kind: "artifact-update"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "artifact-update", rename_all = "camelCase")]
pub struct TaskArtifactUpdateEvent {
    /// The task.
    pub task_id: String,
    /// The task's context.
    pub context_id: String,
    /// The artifact, or a chunk of it.
    pub artifact: Artifact,
    /// If true, the parts are appended to the artifact with the same id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub append: Option<bool>,
    /// If true, this is the last chunk of the artifact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_chunk: Option<bool>,
    /// Extension metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// The result of `message/send`: a [`Task`] or a direct [`Message`]
/// (proto `SendMessageResponse`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SendMessageResult {
    /// A task was created or continued.
    Task(Task),
    /// The agent answered with a message; no task exists.
    Message(Message),
}

/// One event of a stream (`message/stream`, `tasks/resubscribe`; proto
/// `StreamResponse`), told apart on the wire by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum StreamResponse {
    /// A task snapshot (always the first event of a task stream).
    Task(Task),
    /// The single message of a message-only reply.
    Message(Message),
    /// A status change.
    StatusUpdate(TaskStatusUpdateEvent),
    /// An artifact change.
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

impl StreamResponse {
    /// The task id this event belongs to, if any.
    #[must_use]
    pub fn task_id(&self) -> Option<&str> {
        match self {
            Self::Task(t) => Some(&t.id),
            Self::Message(m) => m.task_id.as_deref(),
            Self::StatusUpdate(e) => Some(&e.task_id),
            Self::ArtifactUpdate(e) => Some(&e.task_id),
        }
    }

    /// True when a stream ends after this event: a message, a final status
    /// update, or a task snapshot in a terminal or interrupted state.
    #[must_use]
    pub fn is_final(&self) -> bool {
        match self {
            Self::Message(_) => true,
            Self::StatusUpdate(e) => e.is_final || e.status.state.is_final(),
            Self::Task(t) => t.status.state.is_final(),
            Self::ArtifactUpdate(_) => false,
        }
    }
}

#[derive(Deserialize)]
#[serde(tag = "kind")]
enum Tagged {
    #[serde(rename = "task")]
    Task(Task),
    #[serde(rename = "message")]
    Message(Message),
    #[serde(rename = "status-update")]
    StatusUpdate(TaskStatusUpdateEvent),
    #[serde(rename = "artifact-update")]
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

impl<'de> Deserialize<'de> for StreamResponse {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Tagged::deserialize(d)? {
            Tagged::Task(t) => Self::Task(t),
            Tagged::Message(m) => Self::Message(m),
            Tagged::StatusUpdate(e) => Self::StatusUpdate(e),
            Tagged::ArtifactUpdate(e) => Self::ArtifactUpdate(e),
        })
    }
}

impl<'de> Deserialize<'de> for SendMessageResult {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match Tagged::deserialize(d)? {
            Tagged::Task(t) => Ok(Self::Task(t)),
            Tagged::Message(m) => Ok(Self::Message(m)),
            Tagged::StatusUpdate(_) | Tagged::ArtifactUpdate(_) => Err(D::Error::custom(
                "message/send result must be a task or a message",
            )),
        }
    }
}

impl From<SendMessageResult> for StreamResponse {
    fn from(r: SendMessageResult) -> Self {
        match r {
            SendMessageResult::Task(t) => Self::Task(t),
            SendMessageResult::Message(m) => Self::Message(m),
        }
    }
}
