//! The engine's lifecycle rules, in process, with scripted executors.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use a2a_core::test_util::ScriptedExecutor;
use a2a_core::{
    CallContext, DefaultRequestHandler, EventSink, PushSender, RequestContext, RequestHandler,
};
use a2a_types::*;
use futures::StreamExt;

fn card() -> AgentCard {
    serde_json::from_value(serde_json::json!({
        "protocolVersion": "0.3.0", "name": "test", "description": "test agent",
        "url": "http://127.0.0.1:1/", "version": "1", "capabilities": {},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": []
    }))
    .unwrap()
}

fn cx() -> CallContext {
    CallContext::default()
}

fn send(text: &str) -> MessageSendParams {
    MessageSendParams::new(Message::user_text(a2a_core::new_id(), text))
}

fn follow_up(task: &Task, text: &str) -> MessageSendParams {
    let mut m = Message::user_text(a2a_core::new_id(), text);
    m.task_id = Some(task.id.clone());
    m.context_id = Some(task.context_id.clone());
    MessageSendParams::new(m)
}

fn non_blocking(mut p: MessageSendParams) -> MessageSendParams {
    p.configuration
        .get_or_insert_with(Default::default)
        .blocking = Some(false);
    p
}

/// Echo: working, the text as two artifact chunks, completed.
fn echo() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx: RequestContext, events: EventSink| async move {
        let t = ctx.updater(events);
        t.start_work(None).await?;
        let text = ctx.user_text();
        let (a, b) = text.split_at(text.len() / 2);
        t.add_artifact(vec![Part::text(a)], "out", Some("out"), false, false)
            .await?;
        t.add_artifact(vec![Part::text(b)], "out", None, true, true)
            .await?;
        t.complete(None).await
    })
}

/// Asks for a name, then completes on the answer.
fn interview() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx: RequestContext, events: EventSink| async move {
        let t = ctx.updater(events);
        if ctx.task.is_none() {
            return t.requires_input(t.agent_text("What is your name?")).await;
        }
        t.add_artifact(
            vec![Part::text(format!("Hello, {}!", ctx.user_text()))],
            "greeting",
            None,
            false,
            true,
        )
        .await?;
        t.complete(None).await
    })
}

/// Works until canceled.
fn long_running() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx: RequestContext, events: EventSink| async move {
        let t = ctx.updater(events);
        t.start_work(None).await?;
        for i in 0..600 {
            tokio::select! {
                () = ctx.cancellation.cancelled() => return Ok(()),
                () = tokio::time::sleep(Duration::from_millis(50)) => {}
            }
            t.start_work(Some(t.agent_text(format!("tick {i}"))))
                .await?;
        }
        t.complete(None).await
    })
}

fn handler(exec: ScriptedExecutor) -> DefaultRequestHandler {
    DefaultRequestHandler::builder(card(), exec).build()
}

fn task(r: SendMessageResult) -> Task {
    match r {
        SendMessageResult::Task(t) => t,
        SendMessageResult::Message(m) => panic!("expected a task, got message {m:?}"),
    }
}

fn state(e: &StreamResponse) -> Option<TaskState> {
    match e {
        StreamResponse::Task(t) => Some(t.status.state),
        StreamResponse::StatusUpdate(s) => Some(s.status.state),
        _ => None,
    }
}

#[tokio::test]
async fn blocking_send_returns_the_completed_task_with_folded_artifacts() {
    let h = handler(echo());
    let t = task(h.send_message(&cx(), send("hello world")).await.unwrap());
    assert_eq!(t.status.state, TaskState::Completed);
    let arts = t.artifacts.as_ref().unwrap();
    assert_eq!(arts.len(), 1);
    assert_eq!(arts[0].text(), "hello world");
    assert_eq!(arts[0].parts.len(), 2, "append must extend, not replace");
    assert_eq!(arts[0].name.as_deref(), Some("out"));
    let history = t.history.as_ref().unwrap();
    assert_eq!(history[0].text(), "hello world");
    assert_eq!(history[0].task_id.as_deref(), Some(t.id.as_str()));
    assert!(!t.id.is_empty() && !t.context_id.is_empty() && t.id != t.context_id);
    assert!(
        t.status
            .timestamp
            .as_deref()
            .is_some_and(|ts| ts.ends_with('Z'))
    );
    // The stored task is the same.
    let got = h
        .get_task(
            &cx(),
            TaskQueryParams {
                id: t.id.clone(),
                history_length: None,
                metadata: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(got, t);
}

#[tokio::test]
async fn non_blocking_send_returns_as_soon_as_the_task_exists() {
    let h = handler(long_running());
    let t = task(
        h.send_message(&cx(), non_blocking(send("go")))
            .await
            .unwrap(),
    );
    assert!(
        matches!(t.status.state, TaskState::Submitted | TaskState::Working),
        "{:?}",
        t.status.state
    );
    let c = h
        .cancel_task(&cx(), TaskIdParams::new(&t.id))
        .await
        .unwrap();
    assert_eq!(c.status.state, TaskState::Canceled);
}

#[tokio::test]
async fn client_context_id_is_kept_and_ids_are_generated() {
    let h = handler(echo());
    let mut p = send("x");
    p.message.context_id = Some("ctx-1".into());
    let t = task(h.send_message(&cx(), p).await.unwrap());
    assert_eq!(t.context_id, "ctx-1");
}

#[tokio::test]
async fn a_message_reply_creates_no_task() {
    let h = handler(ScriptedExecutor::new(
        |ctx: RequestContext, events: EventSink| async move {
            events
                .publish(StreamResponse::Message(Message::agent_text(
                    "r-1",
                    ctx.user_text(),
                )))
                .await
        },
    ));
    let r = h.send_message(&cx(), send("ping")).await.unwrap();
    let SendMessageResult::Message(m) = r else {
        panic!("expected message")
    };
    assert_eq!(m.text(), "ping");
    assert_eq!(m.role, Role::Agent);
    assert_eq!(h.running_tasks(), 0);
    // The stream variant is the single message.
    let events: Vec<_> = h
        .send_message_stream(&cx(), send("pong"))
        .await
        .unwrap()
        .collect()
        .await;
    assert_eq!(events.len(), 1);
    assert!(matches!(&events[0], Ok(StreamResponse::Message(m)) if m.text() == "pong"));
}

#[tokio::test]
async fn multi_turn_input_required_then_completed_keeps_history_in_order() {
    let h = handler(interview());
    let t = task(h.send_message(&cx(), send("interview me")).await.unwrap());
    assert_eq!(t.status.state, TaskState::InputRequired);
    assert_eq!(
        t.status.message.as_ref().unwrap().text(),
        "What is your name?"
    );
    let done = task(h.send_message(&cx(), follow_up(&t, "Ada")).await.unwrap());
    assert_eq!(done.id, t.id);
    assert_eq!(done.status.state, TaskState::Completed);
    assert_eq!(done.artifacts.unwrap()[0].text(), "Hello, Ada!");
    let texts: Vec<String> = done.history.unwrap().iter().map(Message::text).collect();
    assert_eq!(texts, ["interview me", "What is your name?", "Ada"]);
    // historyLength trims to the most recent messages; 0 means all.
    let q = |n| TaskQueryParams {
        id: t.id.clone(),
        history_length: n,
        metadata: None,
    };
    assert_eq!(
        h.get_task(&cx(), q(Some(1)))
            .await
            .unwrap()
            .history
            .unwrap()[0]
            .text(),
        "Ada"
    );
    assert_eq!(
        h.get_task(&cx(), q(Some(0)))
            .await
            .unwrap()
            .history
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        h.get_task(&cx(), q(None))
            .await
            .unwrap()
            .history
            .unwrap()
            .len(),
        3
    );
}

#[tokio::test]
async fn a_follow_up_stream_starts_with_the_task_no_longer_interrupted() {
    let h = handler(interview());
    let t = task(h.send_message(&cx(), send("a")).await.unwrap());
    assert_eq!(t.status.state, TaskState::InputRequired);
    let events: Vec<StreamResponse> = h
        .send_message_stream(&cx(), follow_up(&t, "Ada"))
        .await
        .unwrap()
        .map(Result::unwrap)
        .collect()
        .await;
    let StreamResponse::Task(first) = &events[0] else {
        panic!("task first")
    };
    assert_eq!(first.status.state, TaskState::Submitted);
    assert!(!events[0].is_final());
    assert_eq!(
        first.history.as_ref().unwrap().last().unwrap().text(),
        "Ada"
    );
    assert_eq!(state(events.last().unwrap()), Some(TaskState::Completed));
}

#[tokio::test]
async fn send_history_length_trims_the_returned_task() {
    let h = handler(interview());
    let t = task(h.send_message(&cx(), send("a")).await.unwrap());
    let mut p = follow_up(&t, "b");
    p.configuration = Some(MessageSendConfiguration {
        history_length: Some(1),
        ..Default::default()
    });
    let done = task(h.send_message(&cx(), p).await.unwrap());
    assert_eq!(done.history.unwrap().len(), 1);
}

#[tokio::test]
async fn invalid_messages_are_rejected_with_typed_errors() {
    let h = handler(interview());
    let code = |r: Result<SendMessageResult, A2aError>| r.unwrap_err().code();
    let mut empty = send("x");
    empty.message.parts.clear();
    assert_eq!(code(h.send_message(&cx(), empty).await), -32602);
    let mut no_id = send("x");
    no_id.message.message_id.clear();
    assert_eq!(code(h.send_message(&cx(), no_id).await), -32602);
    let mut agent_role = send("x");
    agent_role.message.role = Role::Agent;
    assert_eq!(code(h.send_message(&cx(), agent_role).await), -32602);
    let mut neg = send("x");
    neg.configuration = Some(MessageSendConfiguration {
        history_length: Some(-1),
        ..Default::default()
    });
    assert_eq!(code(h.send_message(&cx(), neg).await), -32602);
    let mut unknown = send("x");
    unknown.message.task_id = Some("no-such-task".into());
    assert_eq!(code(h.send_message(&cx(), unknown).await), -32001);
    let mut modes = send("x");
    modes.configuration = Some(MessageSendConfiguration {
        accepted_output_modes: Some(vec!["image/png".into()]),
        ..Default::default()
    });
    assert_eq!(code(h.send_message(&cx(), modes).await), -32005);
    let mut push = send("x");
    push.configuration = Some(MessageSendConfiguration {
        push_notification_config: Some(PushNotificationConfig {
            id: None,
            url: "http://127.0.0.1:9/".into(),
            token: None,
            authentication: None,
        }),
        ..Default::default()
    });
    assert_eq!(code(h.send_message(&cx(), push).await), -32003);

    // A contextId that contradicts the task's.
    let t = task(h.send_message(&cx(), send("a")).await.unwrap());
    let mut wrong_ctx = follow_up(&t, "b");
    wrong_ctx.message.context_id = Some("other".into());
    assert_eq!(code(h.send_message(&cx(), wrong_ctx).await), -32602);
    // The rejected follow-up left the task unchanged.
    let same = h
        .get_task(
            &cx(),
            TaskQueryParams {
                id: t.id.clone(),
                history_length: None,
                metadata: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(same.history.as_ref().unwrap().len(), 1);
    assert_eq!(same.status.state, TaskState::InputRequired);

    let q = TaskQueryParams {
        id: t.id.clone(),
        history_length: Some(-3),
        metadata: None,
    };
    assert_eq!(h.get_task(&cx(), q).await.unwrap_err().code(), -32602);
}

#[tokio::test]
async fn terminal_tasks_take_no_messages_and_cannot_be_canceled() {
    let h = handler(echo());
    let t = task(h.send_message(&cx(), send("done")).await.unwrap());
    assert_eq!(t.status.state, TaskState::Completed);
    let err = h
        .send_message(&cx(), follow_up(&t, "more"))
        .await
        .unwrap_err();
    assert_eq!(err.code(), -32602, "{err}");
    let err = h
        .cancel_task(&cx(), TaskIdParams::new(&t.id))
        .await
        .unwrap_err();
    assert_eq!(err.code(), -32002);
    let err = h
        .cancel_task(&cx(), TaskIdParams::new("nope"))
        .await
        .unwrap_err();
    assert_eq!(err.code(), -32001);
    let err = h
        .get_task(
            &cx(),
            TaskQueryParams {
                id: "nope".into(),
                history_length: None,
                metadata: None,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), -32001);
}

#[tokio::test]
async fn cancel_of_a_running_task_stops_it_and_twice_is_not_cancelable() {
    let h = handler(long_running());
    let t = task(
        h.send_message(&cx(), non_blocking(send("go")))
            .await
            .unwrap(),
    );
    let mut stream = h
        .resubscribe_task(&cx(), TaskIdParams::new(&t.id))
        .await
        .unwrap();
    let first = stream.next().await.unwrap().unwrap();
    assert!(matches!(first, StreamResponse::Task(_)));
    let c = h
        .cancel_task(&cx(), TaskIdParams::new(&t.id))
        .await
        .unwrap();
    assert_eq!(c.status.state, TaskState::Canceled);
    // The subscriber sees the canceled final event, then the stream ends.
    let rest: Vec<_> = tokio::time::timeout(Duration::from_secs(5), stream.collect::<Vec<_>>())
        .await
        .unwrap();
    let last = rest.last().unwrap().as_ref().unwrap();
    assert_eq!(state(last), Some(TaskState::Canceled));
    assert_eq!(
        h.cancel_task(&cx(), TaskIdParams::new(&t.id))
            .await
            .unwrap_err()
            .code(),
        -32002
    );
    // The execution has returned: no run is left behind.
    for _ in 0..100 {
        if h.running_tasks() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(h.running_tasks(), 0);
}

#[tokio::test]
async fn cancel_of_an_idle_input_required_task() {
    let h = handler(interview());
    let t = task(h.send_message(&cx(), send("a")).await.unwrap());
    let c = h
        .cancel_task(&cx(), TaskIdParams::new(&t.id))
        .await
        .unwrap();
    assert_eq!(c.status.state, TaskState::Canceled);
}

#[tokio::test]
async fn stream_starts_with_the_task_and_ends_after_the_final_event() {
    let h = handler(echo());
    let events: Vec<StreamResponse> = h
        .send_message_stream(&cx(), send("abcd"))
        .await
        .unwrap()
        .map(Result::unwrap)
        .collect()
        .await;
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| match e {
            StreamResponse::Task(_) => "task",
            StreamResponse::Message(_) => "message",
            StreamResponse::StatusUpdate(_) => "status",
            StreamResponse::ArtifactUpdate(_) => "artifact",
        })
        .collect();
    assert_eq!(kinds, ["task", "status", "artifact", "artifact", "status"]);
    let StreamResponse::Task(first) = &events[0] else {
        unreachable!()
    };
    assert_eq!(first.status.state, TaskState::Submitted);
    assert_eq!(first.history.as_ref().unwrap()[0].text(), "abcd");
    let StreamResponse::StatusUpdate(last) = &events[4] else {
        unreachable!()
    };
    assert!(last.is_final);
    assert_eq!(last.status.state, TaskState::Completed);
    let StreamResponse::ArtifactUpdate(a2) = &events[3] else {
        unreachable!()
    };
    assert_eq!((a2.append, a2.last_chunk), (Some(true), Some(true)));
}

#[tokio::test]
async fn interrupted_state_ends_the_stream() {
    let h = handler(interview());
    let events: Vec<_> = h
        .send_message_stream(&cx(), send("a"))
        .await
        .unwrap()
        .collect()
        .await;
    let last = events.last().unwrap().as_ref().unwrap();
    assert_eq!(state(last), Some(TaskState::InputRequired));
    let StreamResponse::StatusUpdate(s) = last else {
        panic!()
    };
    assert!(s.is_final);
}

/// Resubscribe sends the snapshot, then every later event exactly once.
#[tokio::test]
async fn resubscribe_has_no_gap_and_no_duplicate() {
    let (tx, rx) = tokio::sync::mpsc::channel::<()>(1);
    let rx = Arc::new(tokio::sync::Mutex::new(rx));
    let h = handler(ScriptedExecutor::new(
        move |ctx: RequestContext, events: EventSink| {
            let rx = Arc::clone(&rx);
            async move {
                let t = ctx.updater(events);
                t.start_work(None).await?;
                for i in 0..5 {
                    t.add_artifact(vec![Part::text(i.to_string())], "n", None, i > 0, false)
                        .await?;
                }
                rx.lock().await.recv().await; // wait for the test to resubscribe
                for i in 5..10 {
                    t.add_artifact(vec![Part::text(i.to_string())], "n", None, true, i == 9)
                        .await?;
                }
                t.complete(None).await
            }
        },
    ));
    let mut live = h.send_message_stream(&cx(), send("go")).await.unwrap();
    let StreamResponse::Task(first) = live.next().await.unwrap().unwrap() else {
        panic!("task first")
    };
    // Wait until the first five chunks were published.
    let mut seen = 0;
    while seen < 5 {
        if let StreamResponse::ArtifactUpdate(_) = live.next().await.unwrap().unwrap() {
            seen += 1;
        }
    }
    // The original client goes away: the execution must go on.
    drop(live);
    let mut resub = h
        .resubscribe_task(&cx(), TaskIdParams::new(&first.id))
        .await
        .unwrap();
    let StreamResponse::Task(snapshot) = resub.next().await.unwrap().unwrap() else {
        panic!("snapshot first")
    };
    let mut text = snapshot.artifacts.as_ref().unwrap()[0].text();
    assert_eq!(text, "01234");
    tx.send(()).await.unwrap();
    let mut last_state = None;
    while let Some(ev) = resub.next().await {
        match ev.unwrap() {
            StreamResponse::ArtifactUpdate(a) => text.push_str(&a.artifact.text()),
            StreamResponse::StatusUpdate(s) => last_state = Some(s.status.state),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(text, "0123456789");
    assert_eq!(last_state, Some(TaskState::Completed));
    let stored = h
        .get_task(
            &cx(),
            TaskQueryParams {
                id: first.id.clone(),
                history_length: None,
                metadata: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(stored.artifacts.unwrap()[0].text(), "0123456789");
    // Resubscribing to a terminal task yields its final snapshot and ends.
    let events: Vec<_> = h
        .resubscribe_task(&cx(), TaskIdParams::new(&first.id))
        .await
        .unwrap()
        .collect()
        .await;
    assert_eq!(events.len(), 1);
    assert_eq!(
        h.resubscribe_task(&cx(), TaskIdParams::new("nope"))
            .await
            .err()
            .map(|e| e.code()),
        Some(-32001)
    );
}

#[tokio::test]
async fn a_slow_subscriber_is_resynchronised_not_blocking_the_agent() {
    let h = DefaultRequestHandler::builder(
        card(),
        ScriptedExecutor::new(|ctx: RequestContext, events: EventSink| async move {
            let t = ctx.updater(events);
            for i in 0..200 {
                t.add_artifact(
                    vec![Part::text(format!("{i},"))],
                    "n",
                    None,
                    i > 0,
                    i == 199,
                )
                .await?;
            }
            t.complete(None).await
        }),
    )
    .event_capacity(4)
    .build();
    let mut stream = h.send_message_stream(&cx(), send("go")).await.unwrap();
    let StreamResponse::Task(first) = stream.next().await.unwrap().unwrap() else {
        panic!()
    };
    // Do not read while the agent publishes everything: wait (bounded) until
    // the stored task is completed.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let q = TaskQueryParams {
            id: first.id.clone(),
            history_length: None,
            metadata: None,
        };
        let task = h.get_task(&cx(), q).await.unwrap();
        if task.status.state == TaskState::Completed {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "agent still running"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let rest: Vec<StreamResponse> = stream.map(Result::unwrap).collect().await;
    // The subscriber got a fresh snapshot that already holds the full artifact.
    let snapshot = rest
        .iter()
        .find_map(|e| match e {
            StreamResponse::Task(t) => Some(t),
            _ => None,
        })
        .expect("resync snapshot");
    assert_eq!(snapshot.status.state, TaskState::Completed);
    assert_eq!(snapshot.artifacts.as_ref().unwrap()[0].parts.len(), 200);
}

#[tokio::test]
async fn agent_errors_and_panics_fail_the_task_or_reach_the_caller() {
    // Error before any task event: the caller gets it.
    let h = handler(ScriptedExecutor::new(
        |_ctx: RequestContext, _e: EventSink| async move { Err(A2aError::unsupported_operation("no")) },
    ));
    assert_eq!(
        h.send_message(&cx(), send("x")).await.unwrap_err().code(),
        -32004
    );
    // Error after the task exists: the task is failed with the message.
    let h = handler(ScriptedExecutor::new(
        |ctx: RequestContext, events: EventSink| async move {
            ctx.updater(events).start_work(None).await?;
            Err(A2aError::internal("boom"))
        },
    ));
    let t = task(h.send_message(&cx(), send("x")).await.unwrap());
    assert_eq!(t.status.state, TaskState::Failed);
    assert!(t.status.message.unwrap().text().contains("boom"));
    // A panic after the task exists also fails it.
    let h = handler(ScriptedExecutor::new(
        |ctx: RequestContext, events: EventSink| async move {
            ctx.updater(events).start_work(None).await?;
            panic!("agent bug");
        },
    ));
    let t = task(h.send_message(&cx(), send("x")).await.unwrap());
    assert_eq!(t.status.state, TaskState::Failed);
    // Nothing published at all: InvalidAgentResponse.
    let h = handler(ScriptedExecutor::new(
        |_ctx: RequestContext, _e: EventSink| async move { Ok(()) },
    ));
    assert_eq!(
        h.send_message(&cx(), send("x")).await.unwrap_err().code(),
        -32006
    );
}

#[tokio::test]
async fn protocol_breaking_events_are_refused() {
    let h = handler(ScriptedExecutor::new(
        |ctx: RequestContext, events: EventSink| async move {
            let wrong = events
                .publish(StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                    task_id: "someone-else".into(),
                    context_id: ctx.context_id.clone(),
                    status: TaskStatus::new(TaskState::Working),
                    is_final: false,
                    metadata: None,
                }))
                .await;
            assert_eq!(wrong.unwrap_err().code(), -32006);
            let t = ctx.updater(events.clone());
            t.complete(None).await?;
            // Nothing after a terminal state.
            assert_eq!(t.start_work(None).await.unwrap_err().code(), -32006);
            // No message after task events.
            let late = events
                .publish(StreamResponse::Message(Message::agent_text("m", "late")))
                .await;
            assert_eq!(late.unwrap_err().code(), -32006);
            Ok(())
        },
    ));
    let t = task(h.send_message(&cx(), send("x")).await.unwrap());
    assert_eq!(t.status.state, TaskState::Completed);
}

#[derive(Default)]
struct CountingSender(AtomicUsize);

#[async_trait::async_trait]
impl PushSender for CountingSender {
    async fn send(&self, _config: &PushNotificationConfig, task: &Task) -> Result<(), A2aError> {
        assert!(!task.id.is_empty());
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
}

#[tokio::test]
async fn push_configs_crud_and_errors() {
    let without = handler(interview());
    let t = task(without.send_message(&cx(), send("a")).await.unwrap());
    let cfg = |id: Option<&str>| PushNotificationConfig {
        id: id.map(Into::into),
        url: "http://127.0.0.1:9/hook".into(),
        token: Some("tok".into()),
        authentication: None,
    };
    let set = |task_id: &str, c| TaskPushNotificationConfig {
        task_id: task_id.into(),
        push_notification_config: c,
    };
    assert_eq!(
        without
            .set_push_config(&cx(), set(&t.id, cfg(None)))
            .await
            .unwrap_err()
            .code(),
        -32003
    );
    assert_eq!(
        without.agent_card().capabilities.push_notifications,
        Some(false)
    );

    let sender = Arc::new(CountingSender::default());
    let h = DefaultRequestHandler::builder(card(), interview())
        .push_sender(Arc::clone(&sender) as _)
        .build();
    assert_eq!(h.agent_card().capabilities.push_notifications, Some(true));
    let t = task(h.send_message(&cx(), send("a")).await.unwrap());
    let a = h
        .set_push_config(&cx(), set(&t.id, cfg(None)))
        .await
        .unwrap();
    assert_eq!(
        a.push_notification_config.id.as_deref(),
        Some(t.id.as_str()),
        "default id is the task id"
    );
    h.set_push_config(&cx(), set(&t.id, cfg(Some("second"))))
        .await
        .unwrap();
    assert_eq!(
        h.set_push_config(&cx(), set("nope", cfg(None)))
            .await
            .unwrap_err()
            .code(),
        -32001
    );
    let mut bad = cfg(Some("bad"));
    bad.url = "ftp://x".into();
    assert_eq!(
        h.set_push_config(&cx(), set(&t.id, bad))
            .await
            .unwrap_err()
            .code(),
        -32602
    );

    let get = |cid: Option<&str>| GetTaskPushNotificationConfigParams {
        id: t.id.clone(),
        push_notification_config_id: cid.map(Into::into),
        metadata: None,
    };
    assert_eq!(
        h.get_push_config(&cx(), get(Some("second")))
            .await
            .unwrap()
            .push_notification_config
            .id
            .as_deref(),
        Some("second")
    );
    assert_eq!(
        h.get_push_config(&cx(), get(None))
            .await
            .unwrap()
            .push_notification_config
            .id
            .as_deref(),
        Some(t.id.as_str())
    );
    assert_eq!(
        h.get_push_config(&cx(), get(Some("missing")))
            .await
            .unwrap_err()
            .code(),
        -32602
    );
    let list = |id: &str| ListTaskPushNotificationConfigParams {
        id: id.into(),
        metadata: None,
    };
    assert_eq!(
        h.list_push_configs(&cx(), list(&t.id)).await.unwrap().len(),
        2
    );
    assert_eq!(
        h.list_push_configs(&cx(), list("nope"))
            .await
            .unwrap_err()
            .code(),
        -32001
    );
    let del = |cid: &str| DeleteTaskPushNotificationConfigParams {
        id: t.id.clone(),
        push_notification_config_id: cid.into(),
        metadata: None,
    };
    h.delete_push_config(&cx(), del("second")).await.unwrap();
    assert_eq!(
        h.delete_push_config(&cx(), del("second"))
            .await
            .unwrap_err()
            .code(),
        -32602
    );
    assert_eq!(
        h.list_push_configs(&cx(), list(&t.id)).await.unwrap().len(),
        1
    );

    // Changes of a task with configs are handed to the sender.
    let before = sender.0.load(Ordering::SeqCst);
    task(h.send_message(&cx(), follow_up(&t, "Ada")).await.unwrap());
    for _ in 0..100 {
        if sender.0.load(Ordering::SeqCst) > before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(sender.0.load(Ordering::SeqCst) > before);
}

/// Records every delivered snapshot, slowly, like a real webhook.
#[derive(Default)]
struct SlowRecorder(std::sync::Mutex<Vec<(TaskState, usize)>>);

#[async_trait::async_trait]
impl PushSender for SlowRecorder {
    async fn send(&self, _config: &PushNotificationConfig, task: &Task) -> Result<(), A2aError> {
        tokio::time::sleep(Duration::from_millis(2)).await;
        let parts = task.artifacts.as_ref().map_or(0, |a| a[0].parts.len());
        self.0.lock().unwrap().push((task.status.state, parts));
        Ok(())
    }
}

#[tokio::test]
async fn push_deliveries_arrive_in_order_and_end_with_the_final_state() {
    let recorder = Arc::new(SlowRecorder::default());
    let h = DefaultRequestHandler::builder(
        card(),
        ScriptedExecutor::new(|ctx: RequestContext, events: EventSink| async move {
            let t = ctx.updater(events);
            // Let the test register a config before the burst.
            tokio::time::sleep(Duration::from_millis(100)).await;
            for i in 0..50 {
                t.add_artifact(vec![Part::text(i.to_string())], "n", None, i > 0, i == 49)
                    .await?;
            }
            t.complete(None).await
        }),
    )
    .push_sender(Arc::clone(&recorder) as _)
    .build();
    let mut p = non_blocking(send("go"));
    p.configuration.as_mut().unwrap().push_notification_config = Some(PushNotificationConfig {
        id: None,
        url: "http://127.0.0.1:9/hook".into(),
        token: None,
        authentication: None,
    });
    let t = task(h.send_message(&cx(), p).await.unwrap());
    let mut events = h
        .resubscribe_task(&cx(), TaskIdParams::new(&t.id))
        .await
        .unwrap();
    while events.next().await.is_some() {}
    let mut seen = Vec::new();
    for _ in 0..200 {
        seen = recorder.0.lock().unwrap().clone();
        if seen.last().is_some_and(|(s, _)| *s == TaskState::Completed) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(seen.last(), Some(&(TaskState::Completed, 50)), "{seen:?}");
    // Never an older snapshot after a newer one; bursts are coalesced.
    assert!(seen.windows(2).all(|w| w[0].1 <= w[1].1), "{seen:?}");
    assert_eq!(
        seen.iter()
            .filter(|(s, _)| *s == TaskState::Completed)
            .count(),
        1
    );
    assert!(seen.len() < 52, "coalesced: {} deliveries", seen.len());
}

#[tokio::test]
async fn a_write_from_another_writer_is_never_lost() {
    use a2a_core::TaskStore;
    let store = Arc::new(a2a_core::InMemoryTaskStore::new());
    let other = Arc::clone(&store);
    let h = DefaultRequestHandler::builder(
        card(),
        ScriptedExecutor::new(move |ctx: RequestContext, events: EventSink| {
            let other = Arc::clone(&other);
            async move {
                let t = ctx.updater(events);
                t.start_work(None).await?;
                // Another replica appends a message behind this engine's back.
                let (mut task, version) = other.get(&ctx.task_id).await?.unwrap();
                task.history
                    .get_or_insert_with(Vec::new)
                    .push(Message::user_text("elsewhere", "from B"));
                other.save(&task, Some(version)).await.unwrap();
                // This write is based on a stale version: refused, re-read, re-applied.
                t.add_artifact(vec![Part::text("result")], "out", None, false, true)
                    .await?;
                t.complete(None).await
            }
        }),
    )
    .task_store(Arc::clone(&store) as _)
    .build();
    let done = task(h.send_message(&cx(), send("go")).await.unwrap());
    assert_eq!(done.status.state, TaskState::Completed);
    assert_eq!(done.artifacts.unwrap()[0].text(), "result");
    let texts: Vec<String> = done.history.unwrap().iter().map(Message::text).collect();
    assert_eq!(texts, ["go", "from B"]);
    assert_eq!(
        store.get(&done.id).await.unwrap().unwrap().1,
        4,
        "create+working, B, artifact, completed"
    );
}

async fn wait_for(mut f: impl FnMut() -> bool) -> bool {
    for _ in 0..200 {
        if f() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test]
async fn retention_by_count_evicts_the_oldest_terminal_tasks_only() {
    let store = Arc::new(a2a_core::InMemoryTaskStore::new());
    let h = DefaultRequestHandler::builder(card(), interview())
        .task_store(Arc::clone(&store) as _)
        .retention(a2a_core::Retention::default().max_terminal_tasks(3))
        .build();
    // An interrupted task is never evicted.
    let waiting = task(h.send_message(&cx(), send("a")).await.unwrap());
    let mut finished = Vec::new();
    for i in 0..10 {
        let t = task(h.send_message(&cx(), send("a")).await.unwrap());
        let done = task(
            h.send_message(&cx(), follow_up(&t, &i.to_string()))
                .await
                .unwrap(),
        );
        assert_eq!(done.status.state, TaskState::Completed);
        finished.push(done.id);
    }
    assert!(wait_for(|| store.len() == 4).await, "left {}", store.len());
    let get = |id: &str| TaskQueryParams {
        id: id.into(),
        history_length: None,
        metadata: None,
    };
    assert!(h.get_task(&cx(), get(&waiting.id)).await.is_ok());
    for old in &finished[..7] {
        assert_eq!(
            h.get_task(&cx(), get(old)).await.unwrap_err().code(),
            -32001
        );
    }
    for recent in &finished[7..] {
        assert!(h.get_task(&cx(), get(recent)).await.is_ok());
    }
}

#[tokio::test(start_paused = true)]
async fn retention_by_age_evicts_tasks_after_they_finish() {
    let store = Arc::new(a2a_core::InMemoryTaskStore::new());
    let h = DefaultRequestHandler::builder(card(), echo())
        .task_store(Arc::clone(&store) as _)
        .retention(a2a_core::Retention::default().max_age(Duration::from_secs(60)))
        .build();
    let t = task(h.send_message(&cx(), send("x")).await.unwrap());
    tokio::time::sleep(Duration::from_secs(30)).await;
    let u = task(h.send_message(&cx(), send("y")).await.unwrap());
    assert_eq!(store.len(), 2);
    tokio::time::sleep(Duration::from_secs(31)).await;
    assert!(wait_for(|| store.len() == 1).await);
    let get = |id: &str| TaskQueryParams {
        id: id.into(),
        history_length: None,
        metadata: None,
    };
    assert_eq!(
        h.get_task(&cx(), get(&t.id)).await.unwrap_err().code(),
        -32001
    );
    assert!(h.get_task(&cx(), get(&u.id)).await.is_ok());
    tokio::time::sleep(Duration::from_secs(31)).await;
    assert!(wait_for(|| store.is_empty()).await);
}

#[tokio::test]
async fn extended_card_is_served_only_when_configured() {
    let h = handler(echo());
    assert_eq!(
        h.get_extended_agent_card(&cx()).await.unwrap_err().code(),
        -32007
    );
    let mut ext = card();
    ext.name = "extended".into();
    let h = DefaultRequestHandler::builder(card(), echo())
        .extended_agent_card(ext)
        .build();
    assert_eq!(
        h.get_extended_agent_card(&cx()).await.unwrap().name,
        "extended"
    );
    assert_eq!(
        h.agent_card().supports_authenticated_extended_card,
        Some(true)
    );
}

#[tokio::test]
async fn streaming_disabled_is_unsupported() {
    let mut c = card();
    c.capabilities.streaming = Some(false);
    let h = DefaultRequestHandler::builder(c, echo()).build();
    assert_eq!(
        h.send_message_stream(&cx(), send("x"))
            .await
            .err()
            .map(|e| e.code()),
        Some(-32004)
    );
    assert_eq!(
        h.resubscribe_task(&cx(), TaskIdParams::new("x"))
            .await
            .err()
            .map(|e| e.code()),
        Some(-32004)
    );
}

#[tokio::test]
async fn concurrent_follow_ups_and_cancels_keep_one_writer() {
    // Many tasks at once, each continued and then canceled concurrently.
    let h = handler(interview());
    let mut joins = Vec::new();
    for _ in 0..50 {
        let h = h.clone();
        joins.push(tokio::spawn(async move {
            let t = task(h.send_message(&cx(), send("a")).await.unwrap());
            let call = cx();
            let (a, b) = tokio::join!(
                h.send_message(&call, follow_up(&t, "b")),
                h.cancel_task(&call, TaskIdParams::new(&t.id))
            );
            let stored = h
                .get_task(
                    &cx(),
                    TaskQueryParams {
                        id: t.id.clone(),
                        history_length: None,
                        metadata: None,
                    },
                )
                .await
                .unwrap();
            assert!(stored.status.state.is_terminal());
            // Exactly one of the two raced ahead; neither lost the other's write.
            match (a, b) {
                (Ok(_), Ok(c)) => assert!(c.status.state.is_terminal()),
                (Ok(_), Err(e)) => assert_eq!(e.code(), -32002),
                (Err(e), Ok(_)) => assert_eq!(e.code(), -32602),
                (Err(a), Err(b)) => panic!("both failed: {a} / {b}"),
            }
        }));
    }
    for j in joins {
        j.await.unwrap();
    }
}

/// Records the state of every delivered snapshot.
#[derive(Default)]
struct StateRecorder(std::sync::Mutex<Vec<TaskState>>);

#[async_trait::async_trait]
impl PushSender for StateRecorder {
    async fn send(&self, _config: &PushNotificationConfig, task: &Task) -> Result<(), A2aError> {
        self.0.lock().unwrap().push(task.status.state);
        Ok(())
    }
}

fn hook() -> PushNotificationConfig {
    PushNotificationConfig {
        id: None,
        url: "http://127.0.0.1:9/hook".into(),
        token: None,
        authentication: None,
    }
}

#[tokio::test]
async fn a_config_set_on_a_running_task_gets_its_later_changes_and_tasks_without_one_none() {
    let recorder = Arc::new(StateRecorder::default());
    let (go, wait) = tokio::sync::watch::channel(false);
    let h = DefaultRequestHandler::builder(
        card(),
        ScriptedExecutor::new(move |ctx: RequestContext, events: EventSink| {
            let mut wait = wait.clone();
            async move {
                let t = ctx.updater(events);
                t.start_work(None).await?;
                let _ = wait.wait_for(|go| *go).await;
                t.add_artifact(vec![Part::text("x")], "out", None, false, true)
                    .await?;
                t.complete(None).await
            }
        }),
    )
    .push_sender(Arc::clone(&recorder) as _)
    .build();
    let t = task(
        h.send_message(&cx(), non_blocking(send("go")))
            .await
            .unwrap(),
    );
    // A task without a config reaches no sender, whatever it does.
    let plain = task(
        h.send_message(&cx(), non_blocking(send("b")))
            .await
            .unwrap(),
    );
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(recorder.0.lock().unwrap().is_empty());
    h.set_push_config(
        &cx(),
        TaskPushNotificationConfig {
            task_id: t.id.clone(),
            push_notification_config: hook(),
        },
    )
    .await
    .unwrap();
    go.send_replace(true);
    assert!(
        wait_for(|| recorder.0.lock().unwrap().last() == Some(&TaskState::Completed)).await,
        "{:?}",
        recorder.0.lock().unwrap()
    );
    // Only the task with the config was delivered: two tasks completed, one
    // completed delivery.
    let q = TaskQueryParams {
        id: plain.id.clone(),
        history_length: None,
        metadata: None,
    };
    let mut state = TaskState::Working;
    for _ in 0..200 {
        state = h.get_task(&cx(), q.clone()).await.unwrap().status.state;
        if state == TaskState::Completed {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(state, TaskState::Completed);
    tokio::time::sleep(Duration::from_millis(20)).await;
    let seen = recorder.0.lock().unwrap().clone();
    assert_eq!(
        seen.iter().filter(|s| **s == TaskState::Completed).count(),
        1,
        "{seen:?}"
    );
}

#[tokio::test]
async fn a_config_stored_before_a_restart_is_used_by_the_next_engine() {
    let tasks = Arc::new(a2a_core::InMemoryTaskStore::new());
    let configs = Arc::new(a2a_core::InMemoryPushConfigStore::new());
    let first = DefaultRequestHandler::builder(card(), interview())
        .task_store(Arc::clone(&tasks) as _)
        .push_config_store(Arc::clone(&configs) as _)
        .push_sender(Arc::new(StateRecorder::default()) as _)
        .build();
    let mut p = send("a");
    p.configuration = Some(MessageSendConfiguration {
        push_notification_config: Some(hook()),
        ..Default::default()
    });
    let t = task(first.send_message(&cx(), p).await.unwrap());
    assert_eq!(t.status.state, TaskState::InputRequired);
    drop(first);

    // A new engine on the same stores (a restart): the follow-up's changes
    // are delivered to the config stored by the first one.
    let recorder = Arc::new(StateRecorder::default());
    let second = DefaultRequestHandler::builder(card(), interview())
        .task_store(Arc::clone(&tasks) as _)
        .push_config_store(Arc::clone(&configs) as _)
        .push_sender(Arc::clone(&recorder) as _)
        .build();
    let done = task(
        second
            .send_message(&cx(), follow_up(&t, "Ada"))
            .await
            .unwrap(),
    );
    assert_eq!(done.status.state, TaskState::Completed);
    assert!(
        wait_for(|| recorder.0.lock().unwrap().last() == Some(&TaskState::Completed)).await,
        "{:?}",
        recorder.0.lock().unwrap()
    );
}
