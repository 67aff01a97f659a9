//! The echo agent (`a2a serve --agent echo`): the cheapest useful answer,
//! for benchmarks and smoke tests.
//!
//! | the user sends | the agent does |
//! |---|---|
//! | any message | one artifact `echo` holding the message's text (one text part, a single chunk with `lastChunk: true`), then `completed`: `message/send` returns the completed Task (history: the user's message), `message/stream` yields the Task, the artifact update and the final status update |
//! | metadata `"reply": "message"` (in `MessageSendParams.metadata` or the message's `metadata`), on a new task | one agent `Message` with the text, and no task |
//! | metadata `"working": true` | a `working` status update first, then the artifact and `completed`: the stream is `Task`, `working`, artifact, `completed` (the shape issue 7's streaming benchmark names) |
//! | metadata `"hold": true` (or a number of seconds) | a `working` status update, then nothing until the task is canceled (`tasks/cancel`: the engine marks it `canceled`; the execution returns at once); `true` holds for at most [`MAX_HOLD`], a number for that many seconds (capped the same way), after which the task completes as usual. Its streams stay open meanwhile: the benchmark's idle SSE subscribers (`message/stream` or `tasks/resubscribe`) |
//!
//! The metadata switches are read from either metadata object, like
//! `reply`; `reply: message` wins over them on a new task.
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

use std::time::Duration;

use a2a_core::{AgentExecutor, EventSink, RequestContext, new_id};
use a2a_types::{A2aError, Message, Part, StreamResponse};
use async_trait::async_trait;
use serde_json::Value;

use super::{AgentDescription, skill};

/// The artifact id (and name) of the echo.
pub const ECHO_ARTIFACT: &str = "echo";

/// The longest a `"hold"` keeps a task `working` (one hour), so a
/// forgotten held task cannot keep an execution alive forever.
pub const MAX_HOLD: Duration = Duration::from_secs(3600);

/// The value of `key` in the request's or the message's metadata (the
/// request's first).
fn metadata<'a>(ctx: &'a RequestContext, key: &str) -> Option<&'a Value> {
    let message = ctx.message.as_ref().and_then(|m| m.metadata.as_ref());
    [ctx.metadata.as_ref(), message]
        .into_iter()
        .flatten()
        .find_map(|m| m.get(key))
}

/// How long `"hold"` asks to keep the task `working`: `true` is
/// [`MAX_HOLD`], a non-negative number is seconds (capped at
/// [`MAX_HOLD`]); anything else (absent, `false`, a string) is no hold.
fn hold_for(ctx: &RequestContext) -> Option<Duration> {
    match metadata(ctx, "hold")? {
        Value::Bool(true) => Some(MAX_HOLD),
        Value::Number(n) => n
            .as_f64()
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(|s| Duration::from_secs_f64(s.min(MAX_HOLD.as_secs_f64()))),
        _ => None,
    }
}

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
        if let Some(hold) = hold_for(&ctx) {
            let cancel = &ctx.cancellation;
            // A publish that fails because the task was canceled meanwhile
            // is not an error of this execution.
            let quiet = |r: Result<(), A2aError>| if cancel.is_cancelled() { Ok(()) } else { r };
            quiet(task.start_work(None).await)?;
            tokio::select! {
                biased;
                () = cancel.cancelled() => return Ok(()),
                () = tokio::time::sleep(hold) => {}
            }
        } else if metadata(&ctx, "working") == Some(&Value::Bool(true)) {
            task.start_work(None).await?;
        }
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
