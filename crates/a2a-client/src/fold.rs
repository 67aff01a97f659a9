//! Folding a stream of events into the task it describes:
//! [`TaskAccumulator`], [`fold_stream`] and [`fold_task`].
//!
//! The rules are the engine's (what `tasks/get` returns afterwards):
//!
//! - a `Task` event is the snapshot (the first event, or a resynchronised
//!   one on resubscribe): it replaces what was folded so far;
//! - a status update replaces the status; the previous status message (an
//!   agent's question, say) moves to the end of the history, unless a
//!   message with the same id is there already;
//! - an artifact update with `append: true` adds its parts to the artifact
//!   with the same id (and updates its name, description and metadata when
//!   given); without `append` it replaces that artifact, or adds a new one;
//!   `lastChunk` only tells that the artifact is complete;
//! - a `Message` is a direct reply: the stream holds nothing else.
//!
//! An update that arrives before any `Task` starts the task from its ids
//! (lenient, as the official SDK's client). An event for another task, or a
//! `Message` in a task stream, is [`ClientError::InvalidResponse`].
//!
//! ```no_run
//! # async fn run(client: a2a_client::Client) -> Result<(), a2a_client::ClientError> {
//! use a2a_types::{Message, MessageSendParams, TaskState};
//!
//! let events = client
//!     .send_message_stream(MessageSendParams::new(Message::user_text("m-1", "hi")))
//!     .await?;
//! let task = a2a_client::fold_task(events).await?;
//! assert_eq!(task.status.state, TaskState::Completed);
//! # Ok(()) }
//! ```

use a2a_types::{
    Message, SendMessageResult, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState,
};
use futures::StreamExt;

use crate::{ClientError, EventStream};

/// Folds events one at a time; see the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct TaskAccumulator {
    task: Option<Task>,
    message: Option<Message>,
    done: bool,
}

impl TaskAccumulator {
    /// Nothing folded yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts from a task already known (e.g. the answer of a non-blocking
    /// send, before resubscribing).
    #[must_use]
    pub fn from_task(task: Task) -> Self {
        Self {
            task: Some(task),
            message: None,
            done: false,
        }
    }

    /// Folds one event.
    ///
    /// # Errors
    ///
    /// [`ClientError::InvalidResponse`] for an event that contradicts what
    /// was folded: another task's event, or a message mixed with a task.
    pub fn apply(&mut self, event: StreamResponse) -> Result<(), ClientError> {
        if self.message.is_some() {
            return Err(invalid("an event after the agent's reply message"));
        }
        let is_final = event.is_final();
        match event {
            StreamResponse::Message(m) => {
                if let Some(t) = &self.task {
                    return Err(invalid(&format!(
                        "a message in the event stream of task {}",
                        t.id
                    )));
                }
                self.message = Some(m);
            }
            StreamResponse::Task(t) => {
                self.check_task(&t.id)?;
                self.task = Some(t);
            }
            StreamResponse::StatusUpdate(e) => {
                let task = self.task_for(&e.task_id, &e.context_id, e.status.state)?;
                if let Some(previous) = task.status.message.take() {
                    let history = task.history.get_or_insert_with(Vec::new);
                    if !history.iter().any(|m| m.message_id == previous.message_id) {
                        history.push(previous);
                    }
                }
                task.status = e.status;
            }
            StreamResponse::ArtifactUpdate(e) => {
                let task = self.task_for(&e.task_id, &e.context_id, TaskState::Submitted)?;
                fold_artifact(task, e);
            }
        }
        self.done |= is_final;
        Ok(())
    }

    /// The task folded so far.
    #[must_use]
    pub fn task(&self) -> Option<&Task> {
        self.task.as_ref()
    }

    /// The agent's direct reply, if the stream was a message.
    #[must_use]
    pub fn message(&self) -> Option<&Message> {
        self.message.as_ref()
    }

    /// True once a final event was folded (a message, a final status
    /// update, a snapshot in a terminal or interrupted state): the stream
    /// has nothing more to say.
    #[must_use]
    pub fn is_final(&self) -> bool {
        self.done
    }

    /// The result: the message, or the task.
    #[must_use]
    pub fn into_result(self) -> Option<SendMessageResult> {
        match (self.message, self.task) {
            (Some(m), _) => Some(SendMessageResult::Message(m)),
            (None, Some(t)) => Some(SendMessageResult::Task(t)),
            (None, None) => None,
        }
    }

    fn check_task(&self, id: &str) -> Result<(), ClientError> {
        match &self.task {
            Some(t) if t.id != id => Err(invalid(&format!(
                "an event for task {id} in the event stream of task {}",
                t.id
            ))),
            _ => Ok(()),
        }
    }

    fn task_for(
        &mut self,
        id: &str,
        context_id: &str,
        state: TaskState,
    ) -> Result<&mut Task, ClientError> {
        self.check_task(id)?;
        Ok(self
            .task
            .get_or_insert_with(|| Task::new(id, context_id, state)))
    }
}

fn invalid(what: &str) -> ClientError {
    ClientError::InvalidResponse(format!("inconsistent event stream: {what}"))
}

fn fold_artifact(task: &mut Task, e: TaskArtifactUpdateEvent) {
    let artifacts = task.artifacts.get_or_insert_with(Vec::new);
    let existing = artifacts
        .iter_mut()
        .find(|a| a.artifact_id == e.artifact.artifact_id);
    match (existing, e.append.unwrap_or(false)) {
        (Some(a), true) => {
            let new = e.artifact;
            a.parts.extend(new.parts);
            if new.name.is_some() {
                a.name = new.name;
            }
            if new.description.is_some() {
                a.description = new.description;
            }
            if let Some(m) = new.metadata {
                a.metadata.get_or_insert_with(Default::default).extend(m);
            }
            if new.extensions.is_some() {
                a.extensions = new.extensions;
            }
        }
        (Some(a), false) => *a = e.artifact,
        (None, _) => artifacts.push(e.artifact),
    }
}

/// Reads `stream` to its end (or its first final event) and folds it: the
/// agent's message, or the task as it stands after the last event.
///
/// # Errors
///
/// The stream's own error (the first one ends the fold), an inconsistent
/// stream, or an empty one ([`ClientError::InvalidResponse`]).
pub async fn fold_stream(mut stream: EventStream) -> Result<SendMessageResult, ClientError> {
    let mut acc = TaskAccumulator::new();
    while let Some(event) = stream.next().await {
        acc.apply(event?)?;
        if acc.is_final() {
            break;
        }
    }
    acc.into_result()
        .ok_or_else(|| ClientError::InvalidResponse("the event stream was empty".to_owned()))
}

/// [`fold_stream`] for a stream that must describe a task.
///
/// # Errors
///
/// As [`fold_stream`], and [`ClientError::InvalidResponse`] when the agent
/// replied with a message.
pub async fn fold_task(stream: EventStream) -> Result<Task, ClientError> {
    match fold_stream(stream).await? {
        SendMessageResult::Task(t) => Ok(t),
        SendMessageResult::Message(_) => Err(ClientError::InvalidResponse(
            "the agent replied with a message, not a task".to_owned(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use a2a_types::{Artifact, Part, TaskStatus, TaskStatusUpdateEvent};

    use super::*;

    fn status(state: TaskState, text: Option<&str>) -> StreamResponse {
        StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: "t".to_owned(),
            context_id: "c".to_owned(),
            status: TaskStatus {
                state,
                message: text.map(|t| Message::agent_text(format!("m-{t}"), t)),
                timestamp: None,
            },
            is_final: state.is_final(),
            metadata: None,
        })
    }

    fn chunk(id: &str, text: &str, append: bool, last: bool) -> StreamResponse {
        let mut artifact = Artifact::new(id, vec![Part::text(text)]);
        artifact.name = (!append).then(|| format!("name-{id}"));
        StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: "t".to_owned(),
            context_id: "c".to_owned(),
            artifact,
            append: Some(append),
            last_chunk: Some(last),
            metadata: None,
        })
    }

    fn stream(events: Vec<StreamResponse>) -> EventStream {
        Box::pin(futures::stream::iter(events.into_iter().map(Ok)))
    }

    #[tokio::test]
    async fn folds_status_history_and_chunked_artifacts() {
        let mut first = Task::new("t", "c", TaskState::Submitted);
        first.history = Some(vec![Message::user_text("u-1", "hi")]);
        let task = fold_task(stream(vec![
            StreamResponse::Task(first),
            status(TaskState::Working, Some("thinking")),
            chunk("a", "Hel", false, false),
            chunk("a", "lo", true, true),
            chunk("b", "old", false, true),
            chunk("b", "new", false, true),
            status(TaskState::Completed, Some("done")),
            // Never read: the stream is over after the final event.
            status(TaskState::Failed, None),
        ]))
        .await
        .expect("a task");
        assert_eq!(task.status.state, TaskState::Completed);
        assert_eq!(
            task.status.message.as_ref().map(Message::text),
            Some("done".to_owned())
        );
        let history: Vec<String> = task.history.iter().flatten().map(Message::text).collect();
        assert_eq!(history, ["hi", "thinking"]);
        let artifacts = task.artifacts.expect("artifacts");
        assert_eq!(artifacts.len(), 2);
        assert_eq!(artifacts[0].text(), "Hello");
        assert_eq!(artifacts[0].name.as_deref(), Some("name-a"));
        assert_eq!(artifacts[1].text(), "new");
    }

    #[tokio::test]
    async fn updates_before_the_task_and_messages() {
        let task = fold_task(stream(vec![
            chunk("a", "x", false, true),
            status(TaskState::InputRequired, Some("name?")),
        ]))
        .await
        .expect("a task");
        assert_eq!((task.id.as_str(), task.context_id.as_str()), ("t", "c"));
        assert_eq!(task.status.state, TaskState::InputRequired);

        let reply = fold_stream(stream(vec![StreamResponse::Message(Message::agent_text(
            "m", "hello",
        ))]))
        .await
        .expect("a reply");
        assert!(matches!(reply, SendMessageResult::Message(m) if m.text() == "hello"));
        let e = fold_task(stream(vec![StreamResponse::Message(Message::agent_text(
            "m", "hello",
        ))]))
        .await
        .expect_err("not a task");
        assert!(matches!(e, ClientError::InvalidResponse(_)));

        let e = fold_stream(stream(vec![])).await.expect_err("empty");
        assert!(matches!(e, ClientError::InvalidResponse(_)));
        let mut other = Task::new("t2", "c", TaskState::Working);
        other.history = None;
        let e = fold_stream(stream(vec![
            status(TaskState::Working, None),
            StreamResponse::Task(other),
        ]))
        .await
        .expect_err("another task");
        assert!(matches!(e, ClientError::InvalidResponse(m) if m.contains("t2")));
        let e = fold_stream(stream(vec![
            status(TaskState::Working, None),
            StreamResponse::Message(Message::agent_text("m", "x")),
        ]))
        .await
        .expect_err("message in a task stream");
        assert!(matches!(e, ClientError::InvalidResponse(_)));
    }

    #[tokio::test]
    async fn errors_end_the_fold() {
        let events: EventStream = Box::pin(futures::stream::iter(vec![
            Ok(status(TaskState::Working, None)),
            Err(ClientError::A2a(a2a_types::A2aError::internal("boom"))),
        ]));
        assert_eq!(
            fold_stream(events).await.expect_err("error").code(),
            Some(-32603)
        );
    }
}
