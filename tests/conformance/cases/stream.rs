//! `message/stream`: event order, termination, errors, and agreement with
//! `tasks/get`.

use a2a_types::TaskState;

use crate::harness::*;

fn shapes(events: &[Event]) -> Vec<String> {
    events.iter().map(Event::shape).collect()
}

pub(crate) async fn stream_starts_with_the_task_and_ends_after_the_final_event(t: &Target) {
    let events = t
        .stream(&UserMessage::text("echo abcdef"))
        .await
        .expect("stream")
        .all()
        .await;
    assert_eq!(
        shapes(&events),
        [
            "task:submitted",
            "status:working",
            "artifact:echo",
            "artifact:echo:append",
            "artifact:echo:append:last",
            "status:completed:final",
        ]
    );
    let Event::Task(first) = &events[0] else {
        unreachable!()
    };
    assert_eq!(first.history_texts(), ["echo abcdef"]);
    for e in &events {
        assert_eq!(e.task_id(), Some(first.id.as_str()), "{e:?}");
        if let Event::Status { context_id, .. } | Event::Artifact { context_id, .. } = e {
            assert_eq!(context_id, &first.context_id);
        }
    }
    let texts: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::Artifact { artifact, .. } => Some(artifact.text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["ab", "cd", "ef"]);
    let Event::Status { text, .. } = &events[1] else {
        unreachable!()
    };
    assert_eq!(text.as_deref(), Some("working on it"));
}

pub(crate) async fn stream_fold_agrees_with_get(t: &Target) {
    let events = t
        .stream(&UserMessage::text("echo fold me"))
        .await
        .expect("stream")
        .all()
        .await;
    let folded = fold(&events);
    let got = t.get(&folded.id, None).await.expect("get");
    assert_eq!(folded.state, got.state);
    assert_eq!(folded.status_text, got.status_text);
    assert_eq!(folded.artifacts, got.artifacts);
    assert_eq!(folded.context_id, got.context_id);
    assert_eq!(got.artifact("echo").text, "fold me");
}

pub(crate) async fn stream_of_a_message_reply_is_one_message(t: &Target) {
    let events = t
        .stream(&UserMessage::text("reply streamed"))
        .await
        .expect("stream")
        .all()
        .await;
    assert_eq!(shapes(&events), ["message"]);
    let Event::Message(m) = &events[0] else {
        unreachable!()
    };
    assert_eq!((m.role.as_str(), m.text.as_str()), ("agent", "streamed"));
}

pub(crate) async fn stream_ends_at_input_required(t: &Target) {
    let events = t
        .stream(&UserMessage::text("ask"))
        .await
        .expect("stream")
        .all()
        .await;
    assert_eq!(
        shapes(&events),
        ["task:submitted", "status:input-required:final"]
    );
    let task = fold(&events);
    // The answer, streamed: the task (submitted again), then the rest.
    let events = t
        .stream(&UserMessage::text("Ada").follow_up(&task))
        .await
        .expect("stream the answer")
        .all()
        .await;
    assert_eq!(
        shapes(&events),
        [
            "task:submitted",
            "status:working",
            "artifact:greeting:last",
            "status:completed:final",
        ]
    );
    let Event::Task(snapshot) = &events[0] else {
        unreachable!()
    };
    assert_eq!(snapshot.id, task.id);
    assert_eq!(snapshot.history_texts(), ["ask", QUESTION, "Ada"]);
}

pub(crate) async fn stream_to_an_unknown_task_is_task_not_found(t: &Target) {
    let mut send = UserMessage::text("hello");
    send.task_id = Some(fresh("no-such-task"));
    assert_code(t.stream(&send).await, -32001, "stream to an unknown task");
}

pub(crate) async fn stream_of_a_failing_agent_ends_failed(t: &Target) {
    let events = t
        .stream(&UserMessage::text("fail"))
        .await
        .expect("stream")
        .all()
        .await;
    assert_eq!(
        shapes(&events),
        ["task:submitted", "status:working", "status:failed:final"]
    );
}

pub(crate) async fn stream_error_before_any_event_is_the_call_error(t: &Target) {
    let e = assert_code(
        t.stream(&UserMessage::text("error -32603")).await,
        -32603,
        "stream",
    );
    assert_eq!(e.message, "scripted error");
}

pub(crate) async fn streaming_unsupported_is_unsupported_operation(t: &Target) {
    assert_code(
        t.bare.stream(&UserMessage::text("echo x")).await,
        -32004,
        "stream on an agent without streaming",
    );
    let task = t
        .bare
        .send(&UserMessage::text("echo x"))
        .await
        .expect("send")
        .task();
    assert_eq!(task.state, TaskState::Completed);
    assert_code(
        t.bare.resubscribe(&task.id).await,
        -32004,
        "resubscribe on an agent without streaming",
    );
}
