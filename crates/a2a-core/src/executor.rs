//! What agent authors implement: [`AgentExecutor`], and the typed
//! [`TaskUpdater`] they publish events with.

use a2a_types::{
    A2aError, Artifact, Message, MessageSendConfiguration, Metadata, Part, Role, StreamResponse,
    Task, TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent,
};
use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::engine::EventSink;
use crate::handler::CallContext;

/// The agent's logic. The engine calls [`execute`](Self::execute) once per
/// incoming message (in a task of its own, so a client that disconnects does
/// not stop it) and [`cancel`](Self::cancel) on `tasks/cancel`.
///
/// An execution publishes events through the [`EventSink`] (most easily with
/// a [`TaskUpdater`]): either one single [`Message`] (a direct reply, no task),
/// or task events (the `Task`, status and artifact updates). The engine folds
/// them into the stored task and fans them out to every subscriber. All events
/// of an execution must be published before `execute` returns.
///
/// If `execute` returns an error (or panics) after the task exists, the engine
/// marks the task `failed` with the error's message; before the task exists,
/// the caller receives the error.
#[async_trait]
pub trait AgentExecutor: Send + Sync + 'static {
    /// Handles one message.
    async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError>;

    /// Handles a cancel request for a non-terminal task. Running executions
    /// of the task see [`RequestContext::cancellation`] fire first. The
    /// default publishes nothing; the engine then marks the task `canceled`
    /// itself.
    async fn cancel(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
        let _ = (ctx, events);
        Ok(())
    }
}

/// Everything an execution knows about the request that started it.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The task id (server-generated for a new task).
    pub task_id: String,
    /// The context id (server-generated unless the client sent one).
    pub context_id: String,
    /// The user message that started this execution (`None` for a cancel).
    pub message: Option<Message>,
    /// The task as it was when the execution started (`None` for a new task).
    pub task: Option<Task>,
    /// The client's send configuration.
    pub configuration: Option<MessageSendConfiguration>,
    /// The request's metadata (`MessageSendParams.metadata`).
    pub metadata: Option<Metadata>,
    /// Transport-neutral facts about the call (extensions, user, headers).
    pub call: CallContext,
    /// Fires when the task is canceled; long-running work should stop.
    pub cancellation: CancellationToken,
}

impl RequestContext {
    /// The text of the user message (empty for a cancel).
    #[must_use]
    pub fn user_text(&self) -> String {
        self.message.as_ref().map(Message::text).unwrap_or_default()
    }

    /// A [`TaskUpdater`] for this execution's task.
    #[must_use]
    pub fn updater(&self, events: EventSink) -> TaskUpdater {
        TaskUpdater {
            events,
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
        }
    }
}

/// Publishes typed task events for one task: the agent author's API.
///
/// ```no_run
/// # use a2a_core::{RequestContext, EventSink};
/// # async fn run(ctx: RequestContext, events: EventSink) -> Result<(), a2a_types::A2aError> {
/// let task = ctx.updater(events);
/// task.start_work(None).await?;
/// task.add_artifact(vec![a2a_types::Part::text("hello")], "answer", Some("answer"), false, true).await?;
/// task.complete(None).await
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct TaskUpdater {
    events: EventSink,
    task_id: String,
    context_id: String,
}

impl TaskUpdater {
    /// The task id.
    #[must_use]
    pub fn task_id(&self) -> &str {
        &self.task_id
    }

    /// The context id.
    #[must_use]
    pub fn context_id(&self) -> &str {
        &self.context_id
    }

    /// An agent message bound to this task, with a fresh id.
    #[must_use]
    pub fn agent_message(&self, parts: Vec<Part>) -> Message {
        let mut m = Message::new(Role::Agent, crate::new_id(), parts);
        m.task_id = Some(self.task_id.clone());
        m.context_id = Some(self.context_id.clone());
        m
    }

    /// An agent message with one text part, bound to this task.
    #[must_use]
    pub fn agent_text(&self, text: impl Into<String>) -> Message {
        self.agent_message(vec![Part::text(text)])
    }

    /// Publishes a status update. `is_final` is forced on for terminal and
    /// interrupted states.
    pub async fn update_status(
        &self,
        state: TaskState,
        message: Option<Message>,
        is_final: bool,
    ) -> Result<(), A2aError> {
        self.events
            .publish(StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                task_id: self.task_id.clone(),
                context_id: self.context_id.clone(),
                status: TaskStatus {
                    state,
                    message,
                    timestamp: Some(crate::now_rfc3339()),
                },
                is_final: is_final || state.is_final(),
                metadata: None,
            }))
            .await
    }

    /// Publishes the task in state `submitted` (optional: the engine creates
    /// the task on the first event anyway).
    pub async fn submit(&self) -> Result<(), A2aError> {
        self.update_status(TaskState::Submitted, None, false).await
    }

    /// `working`, with an optional progress message.
    pub async fn start_work(&self, message: Option<Message>) -> Result<(), A2aError> {
        self.update_status(TaskState::Working, message, false).await
    }

    /// Adds an artifact, or a chunk of one: with `append` the parts extend
    /// the artifact with the same id; `last_chunk` marks its end.
    pub async fn add_artifact(
        &self,
        parts: Vec<Part>,
        artifact_id: impl Into<String>,
        name: Option<&str>,
        append: bool,
        last_chunk: bool,
    ) -> Result<(), A2aError> {
        let mut artifact = Artifact::new(artifact_id, parts);
        artifact.name = name.map(str::to_owned);
        self.events
            .publish(StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
                task_id: self.task_id.clone(),
                context_id: self.context_id.clone(),
                artifact,
                append: Some(append),
                last_chunk: Some(last_chunk),
                metadata: None,
            }))
            .await
    }

    /// `input-required` with the question (final for this interaction).
    pub async fn requires_input(&self, message: Message) -> Result<(), A2aError> {
        self.update_status(TaskState::InputRequired, Some(message), true)
            .await
    }

    /// `auth-required` with an explanation (final for this interaction).
    pub async fn requires_auth(&self, message: Message) -> Result<(), A2aError> {
        self.update_status(TaskState::AuthRequired, Some(message), true)
            .await
    }

    /// `completed` (terminal).
    pub async fn complete(&self, message: Option<Message>) -> Result<(), A2aError> {
        self.update_status(TaskState::Completed, message, true)
            .await
    }

    /// `failed` (terminal).
    pub async fn fail(&self, message: Option<Message>) -> Result<(), A2aError> {
        self.update_status(TaskState::Failed, message, true).await
    }

    /// `rejected` (terminal).
    pub async fn reject(&self, message: Option<Message>) -> Result<(), A2aError> {
        self.update_status(TaskState::Rejected, message, true).await
    }

    /// `canceled` (terminal).
    pub async fn cancel(&self, message: Option<Message>) -> Result<(), A2aError> {
        self.update_status(TaskState::Canceled, message, true).await
    }
}
