//! The echo agent (`a2a serve --agent echo`): the cheapest useful answer,
//! for benchmarks and smoke tests.
//!
//! | the user sends | the agent does |
//! |---|---|
//! | any message | one artifact `echo` holding the message's text (one text part, a single chunk with `lastChunk: true`), then `completed`: `message/send` returns the completed Task (history: the user's message), `message/stream` yields the Task, the artifact update and the final status update |
//! | metadata `"reply": "message"` (in `MessageSendParams.metadata` or the message's `metadata`), on a new task | one agent `Message` with the text, and no task |
//!
//! It publishes two events through [`TaskUpdater`](a2a_core::TaskUpdater)
//! (no `working` status, no per-word chunks), so the engine stores the task
//! twice and a stream carries the usual shape: the `Task`, one
//! `artifact-update`, one final `status-update`. Publishing one completed
//! `Task` holding the artifact instead stores it once; measured in process
//! on `DefaultRequestHandler` (64 concurrent callers, 2 cores, noisy) it
//! took about 8–12 µs per `send_message` against 8–15 µs for this agent
//! (and 10–16 µs with an extra `working` status): cheaper by roughly a
//! fifth, which is not worth a stream without any status update.

use a2a_core::{AgentExecutor, EventSink, RequestContext, new_id};
use a2a_types::{A2aError, Message, Part, StreamResponse};
use async_trait::async_trait;

use super::{AgentDescription, skill};

/// The artifact id (and name) of the echo.
pub const ECHO_ARTIFACT: &str = "echo";

/// The echo agent's card description.
#[must_use]
pub fn description() -> AgentDescription {
    AgentDescription::new(
        "A2A echo agent",
        "Answers at once with a completed task whose one artifact echoes the text.",
        env!("CARGO_PKG_VERSION"),
    )
    .skill(skill(
        "echo",
        "Echo",
        "Answers at once with a completed task holding one artifact `echo` with the \
         text. With metadata `\"reply\": \"message\"` it answers with a single message \
         instead of a task.",
        &["echo", "benchmark"],
        &["hello world"],
    ))
}

/// The echo agent; see the [module docs](self).
#[derive(Debug, Clone, Copy, Default)]
pub struct EchoAgent;

#[async_trait]
impl AgentExecutor for EchoAgent {
    async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
        let text = ctx.user_text();
        if ctx.task.is_none() && super::wants_message_reply(&ctx) {
            let mut reply = Message::agent_text(new_id(), text);
            reply.context_id = Some(ctx.context_id.clone());
            return events.publish(StreamResponse::Message(reply)).await;
        }
        let task = ctx.updater(events);
        task.add_artifact(
            vec![Part::text(text)],
            ECHO_ARTIFACT,
            Some(ECHO_ARTIFACT),
            false,
            true,
        )
        .await?;
        task.complete(None).await
    }
}
