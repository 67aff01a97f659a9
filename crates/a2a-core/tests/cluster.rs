//! Replicas sharing one store and a cluster link: any replica serves any
//! operation (in process, with the `test-util` hub).

use std::sync::Arc;
use std::time::Duration;

use a2a_core::test_util::{LocalClusterHub, ScriptedExecutor};
use a2a_core::{
    CallContext, ClusterTiming, DefaultRequestHandler, EventSink, InMemoryTaskStore,
    RequestContext, RequestHandler,
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

/// Publishes `n` chunks, one every 20 ms, then completes; stops when canceled.
fn chunker(n: usize) -> ScriptedExecutor {
    ScriptedExecutor::new(move |ctx: RequestContext, events: EventSink| async move {
        let t = ctx.updater(events);
        t.start_work(None).await?;
        for i in 0..n {
            tokio::select! {
                () = ctx.cancellation.cancelled() => return Ok(()),
                () = tokio::time::sleep(Duration::from_millis(20)) => {}
            }
            t.add_artifact(
                vec![Part::text(format!("{i},"))],
                "out",
                None,
                i > 0,
                i + 1 == n,
            )
            .await?;
        }
        t.complete(None).await
    })
}

struct Replicas {
    hub: Arc<LocalClusterHub>,
    a: DefaultRequestHandler,
    b: DefaultRequestHandler,
    c: DefaultRequestHandler,
}

fn replicas(exec: ScriptedExecutor, timing: ClusterTiming) -> Replicas {
    let hub = LocalClusterHub::new();
    let store = Arc::new(InMemoryTaskStore::new());
    let make = |id: &str| {
        DefaultRequestHandler::builder(card(), exec.clone())
            .task_store(Arc::clone(&store) as _)
            .cluster(hub.replica(id), timing)
            .build()
    };
    Replicas {
        a: make("a"),
        b: make("b"),
        c: make("c"),
        hub,
    }
}

async fn start(h: &DefaultRequestHandler) -> Task {
    let mut p = MessageSendParams::new(Message::user_text(a2a_core::new_id(), "go"));
    p.configuration = Some(MessageSendConfiguration {
        blocking: Some(false),
        ..Default::default()
    });
    match h.send_message(&cx(), p).await.unwrap() {
        SendMessageResult::Task(t) => t,
        SendMessageResult::Message(m) => panic!("{m:?}"),
    }
}

#[tokio::test]
async fn resubscribe_on_another_replica_streams_the_remote_execution_without_gap() {
    let r = replicas(chunker(20), ClusterTiming::default());
    let t = start(&r.a).await;
    tokio::time::sleep(Duration::from_millis(150)).await;
    let mut stream =
        r.b.resubscribe_task(&cx(), TaskIdParams::new(&t.id))
            .await
            .unwrap();
    let StreamResponse::Task(snapshot) = stream.next().await.unwrap().unwrap() else {
        panic!("snapshot first")
    };
    let mut text = snapshot
        .artifacts
        .as_ref()
        .map(|a| a[0].text())
        .unwrap_or_default();
    let mut last = None;
    while let Some(ev) = stream.next().await {
        match ev.unwrap() {
            StreamResponse::ArtifactUpdate(a) => text.push_str(&a.artifact.text()),
            StreamResponse::StatusUpdate(s) => last = Some(s.status.state),
            other => panic!("unexpected {other:?}"),
        }
    }
    let expected: String = (0..20).map(|i| format!("{i},")).collect();
    assert_eq!(text, expected, "no gap, no duplicate");
    assert_eq!(last, Some(TaskState::Completed));
    // Every replica reads the same stored task.
    let q = || TaskQueryParams {
        id: t.id.clone(),
        history_length: None,
        metadata: None,
    };
    assert_eq!(
        r.c.get_task(&cx(), q()).await.unwrap().status.state,
        TaskState::Completed
    );
}

#[tokio::test]
async fn cancel_on_another_replica_reaches_the_executing_one() {
    let r = replicas(chunker(500), ClusterTiming::default());
    let t = start(&r.a).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let canceled =
        r.c.cancel_task(&cx(), TaskIdParams::new(&t.id))
            .await
            .unwrap();
    assert_eq!(canceled.status.state, TaskState::Canceled);
    // The execution on A stopped: its run is gone soon after.
    for _ in 0..100 {
        if r.a.running_tasks() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(r.a.running_tasks(), 0, "A's execution must have stopped");
    let q = TaskQueryParams {
        id: t.id.clone(),
        history_length: None,
        metadata: None,
    };
    let stored = r.b.get_task(&cx(), q).await.unwrap();
    assert_eq!(stored.status.state, TaskState::Canceled);
    assert_eq!(
        r.b.cancel_task(&cx(), TaskIdParams::new(&t.id))
            .await
            .unwrap_err()
            .code(),
        -32002
    );
}

#[tokio::test]
async fn a_task_whose_replica_dies_is_failed_when_its_lease_expires() {
    let timing = ClusterTiming::default().lease_ttl(Duration::from_millis(300));
    let r = replicas(chunker(10_000), timing);
    let t = start(&r.a).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    // A stops answering: no messages, no lease renewals.
    r.hub.partition("a");
    let q = || TaskQueryParams {
        id: t.id.clone(),
        history_length: None,
        metadata: None,
    };
    let mut state = TaskState::Working;
    for _ in 0..300 {
        state = r.b.get_task(&cx(), q()).await.unwrap().status.state;
        if state == TaskState::Failed {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(state, TaskState::Failed);
    let failed = r.c.get_task(&cx(), q()).await.unwrap();
    assert!(
        failed
            .status
            .message
            .unwrap()
            .text()
            .contains("lease expired")
    );
}

#[tokio::test]
async fn a_follow_up_on_another_replica_continues_the_task() {
    let exec = ScriptedExecutor::new(|ctx: RequestContext, events: EventSink| async move {
        let t = ctx.updater(events);
        if ctx.task.is_none() {
            return t.requires_input(t.agent_text("name?")).await;
        }
        t.complete(Some(t.agent_text(format!("hi {}", ctx.user_text()))))
            .await
    });
    let r = replicas(exec, ClusterTiming::default());
    let p = MessageSendParams::new(Message::user_text("m1", "start"));
    let SendMessageResult::Task(t) = r.a.send_message(&cx(), p).await.unwrap() else {
        panic!()
    };
    assert_eq!(t.status.state, TaskState::InputRequired);
    let mut m = Message::user_text("m2", "Ada");
    m.task_id = Some(t.id.clone());
    let SendMessageResult::Task(done) =
        r.b.send_message(&cx(), MessageSendParams::new(m))
            .await
            .unwrap()
    else {
        panic!()
    };
    assert_eq!(done.status.state, TaskState::Completed);
    let texts: Vec<String> = done.history.unwrap().iter().map(Message::text).collect();
    assert_eq!(texts, ["start", "name?", "Ada"]);
}
