//! Three replicas, each with its own `PostgresStore` and `PgCluster` on one
//! real PostgreSQL database: any replica serves any operation (the
//! behaviours of `a2a-core`'s in-process `tests/cluster.rs`, over the
//! database).
//!
//! The URL comes from `A2A_TEST_POSTGRES_URL` (see `tests/postgres/start.sh`).
//! When it is unset, the tests fail under `CI=true` and print `SKIPPED`
//! otherwise.

mod common;

use std::sync::Arc;
use std::time::Duration;

use a2a_core::test_util::ScriptedExecutor;
use a2a_core::{
    CallContext, Cluster, ClusterMessage, ClusterTiming, DefaultRequestHandler, EventSink,
    RequestContext, RequestHandler, new_id,
};
use a2a_store_sql::{PgCluster, PgClusterOptions, PostgresStore};
use a2a_types::*;
use futures::StreamExt;

/// The PostgreSQL URL, or `None` when the tests are skipped.
fn postgres_url(test: &str) -> Option<String> {
    common::postgres_url("cluster", test)
}

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

fn query(id: &str) -> TaskQueryParams {
    TaskQueryParams {
        id: id.to_owned(),
        history_length: None,
        metadata: None,
    }
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

/// One replica: its own store (pool) and cluster. `shared_pool` puts the
/// cluster on the store's pool, else it connects its own.
async fn replica(
    url: &str,
    name: &str,
    exec: ScriptedExecutor,
    timing: ClusterTiming,
    shared_pool: bool,
) -> DefaultRequestHandler {
    let store = Arc::new(PostgresStore::connect(url).await.unwrap());
    // Unique per run: replicas of concurrent tests share the database.
    let id = Some(format!("{name}-{}", new_id()));
    let cluster = if shared_pool {
        PgCluster::from_pool(store.pool().clone(), id, PgClusterOptions::default())
            .await
            .unwrap()
    } else {
        PgCluster::connect(url, id).await.unwrap()
    };
    DefaultRequestHandler::builder(card(), exec)
        .task_store(Arc::clone(&store) as _)
        .push_config_store(store as _)
        .cluster(Arc::new(cluster), timing)
        .build()
}

struct Replicas {
    a: DefaultRequestHandler,
    b: DefaultRequestHandler,
    c: DefaultRequestHandler,
}

async fn replicas(url: &str, exec: ScriptedExecutor, timing: ClusterTiming) -> Replicas {
    Replicas {
        a: replica(url, "a", exec.clone(), timing, true).await,
        b: replica(url, "b", exec.clone(), timing, false).await,
        c: replica(url, "c", exec, timing, true).await,
    }
}

async fn start(h: &DefaultRequestHandler) -> Task {
    let mut p = MessageSendParams::new(Message::user_text(new_id(), "go"));
    p.configuration = Some(MessageSendConfiguration {
        blocking: Some(false),
        ..Default::default()
    });
    match h.send_message(&cx(), p).await.unwrap() {
        SendMessageResult::Task(t) => t,
        SendMessageResult::Message(m) => panic!("{m:?}"),
    }
}

/// The state of the task as the replica `h` reads it from the store.
async fn state_on(h: &DefaultRequestHandler, id: &str) -> TaskState {
    h.get_task(&cx(), query(id)).await.unwrap().status.state
}

#[tokio::test]
async fn messages_reach_the_other_replicas_in_order_and_not_the_sender() {
    let Some(url) = postgres_url("messages_reach_the_other_replicas_in_order_and_not_the_sender")
    else {
        return;
    };
    let a = PgCluster::connect(&url, None).await.unwrap();
    let b = PgCluster::connect(&url, Some(format!("b-{}", new_id())))
        .await
        .unwrap();
    assert_ne!(a.replica_id(), b.replica_id());
    let mut from_a = a.subscribe();
    let mut from_b = b.subscribe();
    let task = new_id();
    // Large messages (beyond NOTIFY's 8000-byte payload limit) go through.
    let big = "x".repeat(20_000);
    let sent: Vec<ClusterMessage> = (0..50u64)
        .map(|v| ClusterMessage::Event {
            task_id: task.clone(),
            version: v + 1,
            event: Arc::new(StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                task_id: task.clone(),
                context_id: big.clone(),
                status: TaskStatus::new(TaskState::Working),
                is_final: false,
                metadata: None,
            })),
        })
        .chain([ClusterMessage::Idle {
            task_id: task.clone(),
        }])
        .collect();
    for m in &sent {
        a.publish(m).await.unwrap();
    }
    let mut got = Vec::new();
    while got.len() < sent.len() {
        let m = tokio::time::timeout(Duration::from_secs(10), from_b.recv())
            .await
            .expect("B receives A's messages")
            .unwrap();
        // Other tests share the database: keep this task's messages.
        let mine = match &m {
            ClusterMessage::Event { task_id, .. }
            | ClusterMessage::Idle { task_id }
            | ClusterMessage::Cancel { task_id } => *task_id == task,
        };
        if mine {
            got.push(m);
        }
    }
    assert!(got == sent, "in publish order, each once");
    // A never hears its own messages.
    tokio::time::sleep(Duration::from_millis(200)).await;
    while let Ok(m) = from_a.try_recv() {
        if let ClusterMessage::Event { task_id, .. } | ClusterMessage::Idle { task_id } = &m {
            assert_ne!(*task_id, task, "A's own message came back");
        }
    }
    // Leases.
    let ttl = Duration::from_secs(30);
    a.renew(&task, ttl).await.unwrap();
    assert_eq!(
        b.owner(&task).await.unwrap().as_deref(),
        Some(a.replica_id())
    );
    b.release(&task).await.unwrap(); // not B's: no effect
    assert_eq!(
        b.owner(&task).await.unwrap().as_deref(),
        Some(a.replica_id())
    );
    a.release(&task).await.unwrap();
    assert_eq!(b.owner(&task).await.unwrap(), None);
    a.renew(&task, Duration::from_millis(1)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(b.owner(&task).await.unwrap(), None, "expired");
    let (x, y) = tokio::join!(a.take_expired(), b.take_expired());
    let taken = x
        .unwrap()
        .into_iter()
        .chain(y.unwrap())
        .filter(|t| *t == task)
        .count();
    assert_eq!(taken, 1, "an expired lease is taken exactly once");
}

#[tokio::test]
async fn resubscribe_on_another_replica_streams_the_remote_execution_without_gap() {
    let Some(url) =
        postgres_url("resubscribe_on_another_replica_streams_the_remote_execution_without_gap")
    else {
        return;
    };
    let r = replicas(&url, chunker(20), ClusterTiming::default()).await;
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
    let read = async {
        while let Some(ev) = stream.next().await {
            match ev.unwrap() {
                StreamResponse::ArtifactUpdate(a) => text.push_str(&a.artifact.text()),
                StreamResponse::StatusUpdate(s) => last = Some(s.status.state),
                other => panic!("unexpected {other:?}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), read)
        .await
        .expect("the stream ends");
    let expected: String = (0..20).map(|i| format!("{i},")).collect();
    assert_eq!(text, expected, "no gap, no duplicate");
    assert_eq!(last, Some(TaskState::Completed));
    assert_eq!(state_on(&r.c, &t.id).await, TaskState::Completed);
}

#[tokio::test]
async fn cancel_on_another_replica_reaches_the_executing_one() {
    let Some(url) = postgres_url("cancel_on_another_replica_reaches_the_executing_one") else {
        return;
    };
    let r = replicas(&url, chunker(500), ClusterTiming::default()).await;
    let t = start(&r.a).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let canceled =
        r.c.cancel_task(&cx(), TaskIdParams::new(&t.id))
            .await
            .unwrap();
    assert_eq!(canceled.status.state, TaskState::Canceled);
    // The execution on A stopped: its run is gone soon after.
    for _ in 0..200 {
        if r.a.running_tasks() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(r.a.running_tasks(), 0, "A's execution must have stopped");
    let stored = r.b.get_task(&cx(), query(&t.id)).await.unwrap();
    assert_eq!(stored.status.state, TaskState::Canceled);
    assert_eq!(
        r.b.cancel_task(&cx(), TaskIdParams::new(&t.id))
            .await
            .unwrap_err()
            .code(),
        -32002
    );
}

/// A "dies" for real: it runs on a runtime of its own (its handler, store,
/// cluster, listener, lease renewal and the execution), and that runtime is
/// shut down mid-execution, which drops all of it and closes its
/// connections, as when the process is killed. B and C then see the lease
/// expire and one of them fails the task.
#[tokio::test]
async fn a_task_whose_replica_dies_is_failed_when_its_lease_expires() {
    let Some(url) = postgres_url("a_task_whose_replica_dies_is_failed_when_its_lease_expires")
    else {
        return;
    };
    let timing = ClusterTiming::default().lease_ttl(Duration::from_millis(300));
    let b = replica(&url, "b", chunker(10_000), timing, false).await;
    let c = replica(&url, "c", chunker(10_000), timing, true).await;

    let runtime_a = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (started, task) = tokio::sync::oneshot::channel();
    let url_a = url.clone();
    runtime_a.spawn(async move {
        let a = replica(&url_a, "a", chunker(10_000), timing, true).await;
        let t = start(&a).await;
        let _ = started.send(t);
        // A lives until its runtime goes.
        std::future::pending::<()>().await;
        drop(a);
    });
    let t = tokio::time::timeout(Duration::from_secs(20), task)
        .await
        .expect("A starts the task")
        .unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(state_on(&b, &t.id).await, TaskState::Working);
    runtime_a.shutdown_background();

    let mut state = TaskState::Working;
    for _ in 0..500 {
        state = state_on(&b, &t.id).await;
        if state == TaskState::Failed {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(state, TaskState::Failed);
    let failed = c.get_task(&cx(), query(&t.id)).await.unwrap();
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
    let Some(url) = postgres_url("a_follow_up_on_another_replica_continues_the_task") else {
        return;
    };
    let exec = ScriptedExecutor::new(|ctx: RequestContext, events: EventSink| async move {
        let t = ctx.updater(events);
        if ctx.task.is_none() {
            return t.requires_input(t.agent_text("name?")).await;
        }
        t.complete(Some(t.agent_text(format!("hi {}", ctx.user_text()))))
            .await
    });
    let r = replicas(&url, exec, ClusterTiming::default()).await;
    let p = MessageSendParams::new(Message::user_text(new_id(), "start"));
    let SendMessageResult::Task(t) = r.a.send_message(&cx(), p).await.unwrap() else {
        panic!()
    };
    assert_eq!(t.status.state, TaskState::InputRequired);
    let mut m = Message::user_text(new_id(), "Ada");
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
    assert_eq!(state_on(&r.c, &t.id).await, TaskState::Completed);
}

/// The listener's connection is killed by the server while another replica
/// publishes: the listener reconnects and catches up from the last id it
/// saw, so nothing is lost and the order holds.
#[tokio::test]
async fn messages_published_while_the_listener_reconnects_are_not_lost() {
    let Some(url) = postgres_url("messages_published_while_the_listener_reconnects_are_not_lost")
    else {
        return;
    };
    use std::str::FromStr as _;
    // B's connections carry a name of their own, to find its listener.
    let app = format!("a2a-test-{}", new_id());
    let options = sqlx::postgres::PgConnectOptions::from_str(&url)
        .unwrap()
        .application_name(&app);
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(3)
        .connect_with(options)
        .await
        .unwrap();
    // No poll within the test: the reconnection alone must catch up.
    let options = PgClusterOptions::default().poll_interval(Duration::from_secs(3600));
    let b = PgCluster::from_pool(pool, None, options).await.unwrap();
    let a = PgCluster::connect(&url, None).await.unwrap();
    let mut from_b = b.subscribe();
    let task = new_id();
    let cancel = |n: usize| ClusterMessage::Cancel {
        task_id: format!("{task}/{n}"),
    };
    let killed: Vec<(bool,)> = sqlx::query_as(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE application_name = $1 AND query LIKE 'LISTEN%'",
    )
    .bind(&app)
    .fetch_all(a.pool())
    .await
    .unwrap();
    assert_eq!(killed, [(true,)], "B's listener was found and killed");
    for n in 0..5 {
        a.publish(&cancel(n)).await.unwrap();
    }
    let mut got = Vec::new();
    while got.len() < 5 {
        let m = tokio::time::timeout(Duration::from_secs(10), from_b.recv())
            .await
            .expect("B catches up")
            .unwrap();
        if let ClusterMessage::Cancel { task_id } = &m
            && task_id.starts_with(&task)
        {
            got.push(m);
        }
    }
    assert!(got == (0..5).map(cancel).collect::<Vec<_>>());
}
