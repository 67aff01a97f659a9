//! `message/send`: tasks and messages, blocking and not, multi-turn.

use a2a_types::TaskState;

use crate::harness::*;

pub(crate) async fn blocking_send_returns_the_completed_task(t: &Target) {
    let send = UserMessage::text("echo héllo wörld");
    let task = t.send(&send).await.expect("send").task();
    assert!(!task.id.is_empty() && !task.context_id.is_empty());
    assert_eq!(task.state, TaskState::Completed);
    assert_eq!(task.status_text.as_deref(), Some("done"));
    assert!(task.timestamp.is_some(), "a status timestamp");
    let echo = task.artifact("echo");
    assert_eq!(echo.text, "héllo wörld");
    assert_eq!(echo.name.as_deref(), Some("echo"));
    // The user's message, then the archived "working on it".
    assert_eq!(task.history_texts(), ["echo héllo wörld", "working on it"]);
    let first = &task.history[0];
    assert_eq!(first.role, "user");
    assert_eq!(first.message_id, send.message_id);
    assert_eq!(first.task_id.as_deref(), Some(task.id.as_str()));
    assert_eq!(first.context_id.as_deref(), Some(task.context_id.as_str()));
    assert_eq!(task.history[1].role, "agent");
}

pub(crate) async fn send_returns_a_message(t: &Target) {
    let reply = t
        .send(&UserMessage::text("reply hi there"))
        .await
        .expect("send")
        .message();
    assert_eq!(reply.role, "agent");
    assert_eq!(reply.text, "hi there");
    assert!(reply.task_id.is_none(), "a direct reply belongs to no task");
    assert!(reply.context_id.is_some());
}

pub(crate) async fn client_context_id_is_kept(t: &Target) {
    let mut send = UserMessage::text("echo ctx");
    let context = fresh("ctx");
    send.context_id = Some(context.clone());
    let task = t.send(&send).await.expect("send").task();
    assert_eq!(task.context_id, context);
}

pub(crate) async fn non_blocking_send_returns_before_the_task_finishes(t: &Target) {
    let gate = fresh("gate");
    let task = t
        .send(&UserMessage::text(&format!("wait {gate}")).non_blocking())
        .await
        .expect("send")
        .task();
    assert!(
        matches!(task.state, TaskState::Submitted | TaskState::Working),
        "{task:?}"
    );
    let working = wait_for_state(&**t, &task.id, TaskState::Working).await;
    assert!(working.artifacts.is_empty());
    open_gate(&gate);
    let done = wait_for_state(&**t, &task.id, TaskState::Completed).await;
    assert_eq!(done.artifact("late").text, "late");
}

pub(crate) async fn multi_turn_input_required_then_completed(t: &Target) {
    let asked = t
        .send(&UserMessage::text("ask"))
        .await
        .expect("send")
        .task();
    assert_eq!(asked.state, TaskState::InputRequired);
    assert_eq!(asked.status_text.as_deref(), Some(QUESTION));
    let answer = UserMessage::text("Ada").follow_up(&asked);
    let done = t.send(&answer).await.expect("the answer").task();
    assert_eq!(done.id, asked.id);
    assert_eq!(done.context_id, asked.context_id);
    assert_eq!(done.state, TaskState::Completed);
    assert_eq!(done.status_text.as_deref(), Some("bye"));
    assert_eq!(done.artifact("greeting").text, "Hello, Ada!");
    assert_eq!(done.history_texts(), ["ask", QUESTION, "Ada"]);
    let roles: Vec<&str> = done.history.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, ["user", "agent", "user"]);
}

pub(crate) async fn follow_up_with_another_context_is_invalid_params(t: &Target) {
    let asked = t
        .send(&UserMessage::text("ask"))
        .await
        .expect("send")
        .task();
    let mut answer = UserMessage::text("Ada").follow_up(&asked);
    answer.context_id = Some(fresh("other-context"));
    assert_code(
        t.send(&answer).await,
        -32602,
        "a follow-up in another context",
    );
    // The task still waits for its answer.
    let still = t.get(&asked.id, None).await.expect("get");
    assert_eq!(still.state, TaskState::InputRequired);
}

pub(crate) async fn message_to_a_terminal_task_is_invalid_params(t: &Target) {
    let done = t
        .send(&UserMessage::text("echo x"))
        .await
        .expect("send")
        .task();
    let again = UserMessage::text("more").follow_up(&done);
    assert_code(
        t.send(&again).await,
        -32602,
        "a message to a completed task",
    );
}

pub(crate) async fn message_to_an_unknown_task_is_task_not_found(t: &Target) {
    let mut send = UserMessage::text("hello");
    send.task_id = Some(fresh("no-such-task"));
    assert_code(t.send(&send).await, -32001, "a message to an unknown task");
}

pub(crate) async fn send_history_length_trims_the_returned_history(t: &Target) {
    let asked = t
        .send(&UserMessage::text("ask"))
        .await
        .expect("send")
        .task();
    let done = t
        .send(&UserMessage::text("Ada").follow_up(&asked).history_length(1))
        .await
        .expect("the answer")
        .task();
    assert_eq!(done.history_texts(), ["Ada"]);
    // The stored history is whole.
    let stored = t.get(&asked.id, None).await.expect("get");
    assert_eq!(stored.history_texts(), ["ask", QUESTION, "Ada"]);
}

pub(crate) async fn agent_failure_marks_the_task_failed(t: &Target) {
    let task = t
        .send(&UserMessage::text("fail"))
        .await
        .expect("send")
        .task();
    assert_eq!(task.state, TaskState::Failed);
    assert_eq!(
        task.status_text.as_deref(),
        Some("The agent failed: scripted failure")
    );
}

pub(crate) async fn request_headers_reach_the_agent(t: &Target) {
    let send = UserMessage::text("headers")
        .header(PROBE_HEADER, "probe-value")
        .header("X-A2A-Extensions", "urn:a2a:ext:one, urn:a2a:ext:two");
    let reply = t.send(&send).await.expect("send").message();
    assert_eq!(reply.text, "urn:a2a:ext:one,urn:a2a:ext:two|probe-value");
}

pub(crate) async fn non_blocking_send_of_a_message_reply_is_the_message(t: &Target) {
    let reply = t
        .send(&UserMessage::text("reply quick").non_blocking())
        .await
        .expect("send")
        .message();
    assert_eq!(reply.text, "quick");
}

pub(crate) async fn blocking_send_returns_when_the_task_is_canceled(t: &Target) {
    let gate = fresh("gate");
    let send = UserMessage::text(&format!("wait {gate}"));
    let canceler = async {
        // The task exists once the agent works on it; find it, cancel it.
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            assert!(tokio::time::Instant::now() < deadline, "no task to cancel");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            if let Some(id) = crate::harness::task_of_message(&send.message_id) {
                return t.cancel(&id).await.expect("cancel");
            }
        }
    };
    let (sent, canceled) = tokio::join!(t.send(&send), canceler);
    let sent = sent.expect("the blocking send returns").task();
    assert_eq!(sent.state, TaskState::Canceled);
    assert_eq!(canceled.state, TaskState::Canceled);
    assert_eq!(sent.id, canceled.id);
}

pub(crate) async fn dropping_a_stream_does_not_cancel_the_task(t: &Target) {
    let gate = fresh("gate");
    let mut events = t
        .stream(&UserMessage::text(&format!("wait {gate}")))
        .await
        .expect("stream");
    let Event::Task(task) = events.expect_event().await else {
        panic!("the task comes first")
    };
    drop(events);
    wait_for_state(&**t, &task.id, TaskState::Working).await;
    open_gate(&gate);
    let done = wait_for_state(&**t, &task.id, TaskState::Completed).await;
    assert_eq!(done.artifact("late").text, "late");
}
