//! `tasks/cancel`: working, interrupted, terminal, unknown.

use a2a_types::TaskState;

use crate::harness::*;

pub(crate) async fn cancel_working_task_cancels_it(t: &Target) {
    let gate = fresh("gate");
    let task = t
        .send(&UserMessage::text(&format!("wait {gate}")).non_blocking())
        .await
        .expect("send")
        .task();
    wait_for_state(&**t, &task.id, TaskState::Working).await;
    let canceled = t.cancel(&task.id).await.expect("cancel");
    assert_eq!(canceled.id, task.id);
    assert_eq!(canceled.state, TaskState::Canceled);
    let got = t.get(&task.id, None).await.expect("get");
    assert_eq!(got.state, TaskState::Canceled);
    // Opening the gate now changes nothing: the execution stopped.
    open_gate(&gate);
    let again = t.get(&task.id, None).await.expect("get");
    assert_eq!(again.state, TaskState::Canceled);
    assert!(again.artifacts.is_empty());
}

pub(crate) async fn cancel_input_required_task_cancels_it(t: &Target) {
    let asked = t
        .send(&UserMessage::text("ask"))
        .await
        .expect("send")
        .task();
    let canceled = t.cancel(&asked.id).await.expect("cancel");
    assert_eq!(canceled.state, TaskState::Canceled);
    assert_code(
        t.send(&UserMessage::text("Ada").follow_up(&asked)).await,
        -32602,
        "an answer to a canceled task",
    );
}

pub(crate) async fn cancel_terminal_task_is_not_cancelable(t: &Target) {
    let done = t
        .send(&UserMessage::text("echo x"))
        .await
        .expect("send")
        .task();
    let e = assert_code(t.cancel(&done.id).await, -32002, "cancel a completed task");
    assert!(!e.message.is_empty());
    let canceled = t
        .send(&UserMessage::text("ask"))
        .await
        .expect("send")
        .task();
    t.cancel(&canceled.id).await.expect("cancel");
    assert_code(t.cancel(&canceled.id).await, -32002, "cancel twice");
}

pub(crate) async fn cancel_unknown_task_is_task_not_found(t: &Target) {
    assert_code(t.cancel(&fresh("no-such-task")).await, -32001, "cancel");
}
