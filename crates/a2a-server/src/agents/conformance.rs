//! The conformance agent (`a2a serve --agent conformance`): behaves like the
//! reference agent the public A2A conformance suite (a2a-tck) runs against.
//!
//! - A new task: publishes the `Task` first (state `submitted`, history = the
//!   user message), then a non-final `working` status, and never completes on
//!   its own, so the task can be fetched, continued and canceled.
//! - A follow-up message on the task: `working` again; the task stays
//!   `working`.
//! - `tasks/cancel`: the engine marks the task `canceled`.
//! - A message whose `messageId` starts with
//!   [`RESUBSCRIBE_MESSAGE_ID_PREFIX`] waits [`RESUBSCRIBE_DELAY`]
//!   (cancellably) before the `working` update, so a client can resubscribe
//!   and still see an event.

use std::time::Duration;

use a2a_core::{AgentExecutor, EventSink, RequestContext, now_rfc3339};
use a2a_types::{A2aError, StreamResponse, Task, TaskState};
use async_trait::async_trait;

use super::{AgentDescription, FILE_INPUT_MODES, skill};

/// Messages whose id starts with this wait before their `working` update.
pub const RESUBSCRIBE_MESSAGE_ID_PREFIX: &str = "test-resubscribe-message-id";
/// How long such messages wait.
pub const RESUBSCRIBE_DELAY: Duration = Duration::from_secs(3);

/// The conformance agent's card description.
#[must_use]
pub fn description() -> AgentDescription {
    AgentDescription::new(
        "A2A conformance agent",
        "Keeps every task working until it is canceled: the system under test for the A2A \
         conformance suite (a2a-tck).",
        env!("CARGO_PKG_VERSION"),
    )
    .input_modes(FILE_INPUT_MODES.iter().copied())
    .skill(skill(
        "conformance",
        "Conformance",
        "Accepts any message: the task is submitted, then working, and stays working until \
         canceled.",
        &["conformance", "tck"],
        &["hello"],
    ))
}

/// The conformance agent; see the [module docs](self).
#[derive(Debug, Clone, Copy, Default)]
pub struct ConformanceAgent;

#[async_trait]
impl AgentExecutor for ConformanceAgent {
    async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
        let Some(message) = ctx.message.clone() else {
            return Err(A2aError::invalid_params("no message"));
        };
        if ctx.task.is_none() {
            let mut task = Task::new(&ctx.task_id, &ctx.context_id, TaskState::Submitted);
            task.status.timestamp = Some(now_rfc3339());
            task.history = Some(vec![message.clone()]);
            events.publish(StreamResponse::Task(task)).await?;
        }
        if message
            .message_id
            .starts_with(RESUBSCRIBE_MESSAGE_ID_PREFIX)
        {
            tokio::select! {
                () = ctx.cancellation.cancelled() => return Ok(()),
                () = tokio::time::sleep(RESUBSCRIBE_DELAY) => {}
            }
        }
        let result = ctx.updater(events).start_work(None).await;
        if ctx.cancellation.is_cancelled() {
            return Ok(());
        }
        result
    }
}
