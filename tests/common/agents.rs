//! Scripted agents and a push recorder shared by the client tests against our
//! own servers (`grpc_client`, `jsonrpc_client`, `rest_client`).
//!
//! Included by each of them with `#[path = "common/agents.rs"] mod agents;`.

use std::sync::Mutex;

use a2a_core::PushSender;
use a2a_core::test_util::ScriptedExecutor;
use a2a_types::{
    A2aError, Message, Part, PushNotificationConfig, StreamResponse, Task, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};

/// Works, sends the text as an artifact in two chunks, completes.
pub(crate) fn echo() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx, events| async move {
        let task = ctx.updater(events);
        task.start_work(None).await?;
        task.add_artifact(
            vec![Part::text(ctx.user_text())],
            "a-1",
            Some("echo"),
            false,
            false,
        )
        .await?;
        task.add_artifact(vec![Part::text("!")], "a-1", None, true, true)
            .await?;
        task.complete(None).await
    })
}

/// Replies with a Message reporting what the call context saw.
pub(crate) fn replier() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx, events| async move {
        let text = format!(
            "{}|{}",
            ctx.call.requested_extensions.join(","),
            ctx.call.headers.get("x-custom").map_or("-", String::as_str)
        );
        let mut reply = Message::agent_text(a2a_core::new_id(), text);
        reply.context_id = Some(ctx.context_id.clone());
        events.publish(StreamResponse::Message(reply)).await
    })
}

/// Publishes a status update for a task that is not its own.
pub(crate) fn wrong_task_id() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx, events| async move {
        events
            .publish(StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                task_id: "not-my-task".to_owned(),
                context_id: ctx.context_id.clone(),
                status: TaskStatus::new(TaskState::Working),
                is_final: false,
                metadata: None,
            }))
            .await
    })
}

/// Push deliveries as (config URL, task state), recorded (nothing is sent).
#[derive(Default)]
pub(crate) struct Recorder {
    pub(crate) sent: Mutex<Vec<(String, TaskState)>>,
}

#[async_trait::async_trait]
impl PushSender for Recorder {
    async fn send(&self, config: &PushNotificationConfig, task: &Task) -> Result<(), A2aError> {
        self.sent
            .lock()
            .expect("lock")
            .push((config.url.clone(), task.status.state));
        Ok(())
    }
}
