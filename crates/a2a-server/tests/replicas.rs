//! Three `a2a serve` processes (the real binary) on one fresh PostgreSQL
//! database are three replicas of one agent: any replica serves any
//! operation on any task, over any of the three bindings, and the task of a
//! replica killed with SIGKILL is failed once its lease expires.
//!
//! Needs `A2A_TEST_POSTGRES_URL` (e.g. from `bash tests/postgres/start.sh |
//! tail -n1`), as a role that may `CREATE DATABASE`: each test runs on a
//! database of its own, dropped at the end. Without the URL the PostgreSQL
//! tests print SKIPPED, and fail when `CI=true`.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use a2a_client::grpc::GrpcTransport;
use a2a_client::jsonrpc::JsonRpcTransport;
use a2a_client::rest::RestTransport;
use a2a_client::{EventStream, Transport};
use a2a_types::{
    Message, MessageSendConfiguration, MessageSendParams, SendMessageResult, StreamResponse, Task,
    TaskIdParams, TaskQueryParams, TaskState,
};
use common::{listening_line, postgres_url, read_lines_until, spawn_with_stdout};
use futures::StreamExt;
use sqlx::Connection;

const BIN: &str = env!("CARGO_BIN_EXE_a2a");
/// How long a replica may take to print its lines.
const STARTUP: Duration = Duration::from_secs(30);
/// How long any single wait for an answer or an event may take.
const WAIT: Duration = Duration::from_secs(20);

/// `url` with its database name replaced by `db` (the query string kept).
fn with_database(url: &str, db: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (url, String::new()),
    };
    let authority = base.find("://").expect("a URL") + 3;
    let path = base[authority..]
        .find('/')
        .map_or(base.len(), |i| authority + i);
    format!("{}/{db}{query}", &base[..path])
}

/// A fresh database on the test server, dropped (with its connections) on
/// drop, even when the test panicked.
struct Database {
    admin_url: String,
    name: String,
    /// The database's URL.
    url: String,
}

impl Database {
    async fn create(admin_url: &str) -> Self {
        let name = format!(
            "a2a_replicas_{}",
            a2a_core::new_id().replace('-', "")[..16].to_owned()
        );
        let mut conn = sqlx::PgConnection::connect(admin_url)
            .await
            .expect("connect to A2A_TEST_POSTGRES_URL");
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut conn)
            .await
            .unwrap_or_else(|e| {
                panic!("CREATE DATABASE {name} (the test role needs CREATEDB): {e}")
            });
        let _ = conn.close().await;
        Self {
            admin_url: admin_url.to_owned(),
            url: with_database(admin_url, &name),
            name,
        }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        let (admin_url, name) = (self.admin_url.clone(), self.name.clone());
        // A runtime of its own: drop may run inside (or outside) the test's.
        let dropped = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async {
                let mut conn = sqlx::PgConnection::connect(&admin_url).await?;
                sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                )))
                .execute(&mut conn)
                .await?;
                conn.close().await
            })
        })
        .join();
        if !matches!(dropped, Ok(Ok(()))) {
            eprintln!(
                "could not drop the test database {}: {dropped:?}",
                self.name
            );
        }
    }
}

/// A running `a2a serve` replica, killed (SIGKILL) on drop.
struct Replica {
    child: Child,
    name: &'static str,
    /// From its `listening` lines.
    jsonrpc_url: String,
    grpc_url: String,
    rest_url: String,
    /// From its `replica ID` line.
    replica_id: String,
}

impl Replica {
    /// Starts the demo agent on every binding on free ports, on `db`, as
    /// replica `name`, with `--lease-ttl lease_ttl`.
    fn start(db: &Database, name: &'static str, lease_ttl: &str) -> Self {
        let (mut child, rx) = spawn_with_stdout(
            Command::new(BIN)
                .args(["serve", "--agent", "demo", "--store", &db.url])
                .args(["--replica-id", name, "--lease-ttl", lease_ttl])
                .args(["--jsonrpc-addr", "127.0.0.1:0"])
                .args(["--grpc-addr", "127.0.0.1:0"])
                .args(["--rest-addr", "127.0.0.1:0"])
                .env("RUST_LOG", "warn"),
        );
        // The `listening` lines, and `replica ID` as "replica".
        let lines = read_lines_until(
            &mut child,
            &rx,
            &["jsonrpc", "grpc", "http+json", "replica"],
            STARTUP,
            &format!("replica {name}"),
            |line| {
                listening_line(line).or_else(|| {
                    line.strip_prefix("replica ")
                        .map(|id| ("replica".to_owned(), id.to_owned()))
                })
            },
        );
        Self {
            child,
            name,
            jsonrpc_url: lines["jsonrpc"].clone(),
            grpc_url: lines["grpc"].clone(),
            rest_url: lines["http+json"].clone(),
            replica_id: lines["replica"].clone(),
        }
    }

    fn jsonrpc(&self) -> JsonRpcTransport {
        JsonRpcTransport::new(&self.jsonrpc_url)
    }

    fn rest(&self) -> RestTransport {
        RestTransport::new(&self.rest_url)
    }

    async fn grpc(&self) -> GrpcTransport {
        within(GrpcTransport::connect(&self.grpc_url))
            .await
            .unwrap_or_else(|e| panic!("replica {}: gRPC connect: {e}", self.name))
    }

    /// SIGKILL, and reap.
    fn kill(&mut self) {
        self.child.kill().expect("kill -9");
        self.child.wait().expect("reap");
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A, B and C on one fresh database.
async fn three_replicas(test: &str, lease_ttl: &str) -> Option<(Database, [Replica; 3])> {
    let admin_url = postgres_url(test)?;
    let db = Database::create(&admin_url).await;
    // One at a time: the first one migrates the fresh database.
    let a = Replica::start(&db, "a", lease_ttl);
    let b = Replica::start(&db, "b", lease_ttl);
    let c = Replica::start(&db, "c", lease_ttl);
    for r in [&a, &b, &c] {
        assert_eq!(r.replica_id, r.name, "the `replica ID` line");
    }
    Some((db, [a, b, c]))
}

async fn within<T>(f: impl Future<Output = T>) -> T {
    tokio::time::timeout(WAIT, f)
        .await
        .expect("an answer within the wait")
}

fn text(s: &str) -> MessageSendParams {
    MessageSendParams::new(Message::user_text(a2a_core::new_id(), s))
}

fn query(id: &str) -> TaskQueryParams {
    TaskQueryParams {
        id: id.to_owned(),
        history_length: None,
        metadata: None,
    }
}

async fn get(transport: &dyn Transport, id: &str) -> Task {
    within(transport.get_task(query(id)))
        .await
        .expect("tasks/get")
}

/// The next event of a stream (`None` when it ended), within the wait.
async fn next(stream: &mut EventStream) -> Option<StreamResponse> {
    within(stream.next())
        .await
        .map(|e| e.expect("a stream event, not an error"))
}

/// Every remaining event of a stream that ends by itself.
async fn rest_of(stream: &mut EventStream) -> Vec<StreamResponse> {
    let mut out = Vec::new();
    while let Some(event) = next(stream).await {
        out.push(event);
        assert!(out.len() < 200, "runaway stream");
    }
    out
}

/// What identifies a status: its state and the id of its message.
type StatusKey = (TaskState, Option<String>);

fn key_of(status: &a2a_types::TaskStatus) -> StatusKey {
    (
        status.state,
        status.message.as_ref().map(|m| m.message_id.clone()),
    )
}

/// The statuses a task stream went through: the first `Task`'s, then one
/// per status update. Panics on anything else (the countdown has no
/// artifacts) and on a `Task` after the first (a resynchronisation).
fn statuses(events: &[StreamResponse]) -> Vec<StatusKey> {
    events
        .iter()
        .enumerate()
        .map(|(i, e)| match e {
            StreamResponse::Task(t) if i == 0 => key_of(&t.status),
            StreamResponse::StatusUpdate(u) => key_of(&u.status),
            other => panic!("unexpected event #{i}: {other:?}"),
        })
        .collect()
}

fn status_text(task: &Task) -> String {
    task.status
        .message
        .as_ref()
        .map(Message::text)
        .unwrap_or_default()
}

/// Polls `tasks/get` until the task reaches `state`, at most `deadline`.
async fn until_state(
    transport: &dyn Transport,
    id: &str,
    state: TaskState,
    deadline: Instant,
) -> Task {
    loop {
        let task = get(transport, id).await;
        if task.status.state == state {
            return task;
        }
        assert!(
            Instant::now() < deadline,
            "task {id} is still {:?}, not {state:?}",
            task.status.state
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Send on A (JSON-RPC), resubscribe on B (REST), get on C (gRPC); cancel
/// from C; a follow-up to an `input-required` task on another replica.
#[tokio::test(flavor = "multi_thread")]
async fn any_replica_serves_any_operation_over_any_binding() {
    let Some((_db, [a, b, c])) =
        three_replicas("any_replica_serves_any_operation_over_any_binding", "10s").await
    else {
        return;
    };
    let (a_rpc, b_rest, c_grpc) = (a.jsonrpc(), b.rest(), c.grpc().await);

    // 1. A long task streamed on A; B resubscribes over REST while it runs.
    let mut on_a = within(a_rpc.send_message_stream(text("countdown 4")))
        .await
        .expect("message/stream on A");
    let first = next(&mut on_a).await.expect("A's first event");
    let StreamResponse::Task(started) = &first else {
        panic!("A's stream starts with the task: {first:?}")
    };
    let id = started.id.clone();
    let mut on_b = within(b_rest.resubscribe_task(TaskIdParams::new(&id)))
        .await
        .expect("tasks/resubscribe on B over REST");
    let snapshot = next(&mut on_b).await.expect("B's snapshot");
    let StreamResponse::Task(snap) = &snapshot else {
        panic!("B's stream starts with the snapshot: {snapshot:?}")
    };
    assert_eq!(snap.id, id);
    assert!(
        !snap.status.state.is_terminal(),
        "B subscribed while the countdown runs: {snap:?}"
    );
    // C sees the running task over gRPC.
    let running = get(&c_grpc, &id).await;
    assert_eq!(running.context_id, started.context_id);
    assert!(!running.status.state.is_terminal(), "{running:?}");

    let mut a_events = vec![first.clone()];
    a_events.extend(rest_of(&mut on_a).await);
    let mut b_events = vec![snapshot.clone()];
    b_events.extend(rest_of(&mut on_b).await);
    let a_statuses = statuses(&a_events);
    let b_statuses = statuses(&b_events);
    // A: submitted, working "4", "3", "2", "1", completed "Liftoff!".
    assert_eq!(a_statuses.len(), 6, "{a_events:?}");
    assert_eq!(a_statuses.last().unwrap().0, TaskState::Completed);
    // B: its snapshot is one of A's states, then exactly A's later events:
    // no gap, no duplicate, through the terminal state.
    let at = a_statuses
        .iter()
        .position(|s| *s == b_statuses[0])
        .unwrap_or_else(|| {
            panic!(
                "B's snapshot {:?} is a state A went through: {a_statuses:?}",
                b_statuses[0]
            )
        });
    assert_eq!(b_statuses[1..], a_statuses[at + 1..], "B: {b_events:?}");
    assert!(b_statuses.len() >= 3, "B saw live events: {b_events:?}");
    for events in [&a_events, &b_events] {
        let last = events.last().unwrap();
        assert!(
            last.is_final(),
            "the stream ends with the final event: {last:?}"
        );
    }
    // Any replica, any binding: the same finished task.
    let on_c = get(&c_grpc, &id).await;
    assert_eq!(on_c.status.state, TaskState::Completed);
    assert_eq!(status_text(&on_c), "Liftoff!");
    for other in [get(&a_rpc, &id).await, get(&b_rest, &id).await] {
        assert_eq!(key_of(&other.status), key_of(&on_c.status));
        assert_eq!(other.context_id, on_c.context_id);
    }

    // 2. A second task on A, canceled from C over gRPC: A's stream and B's
    // subscription end in `canceled`, every replica says `canceled`.
    let mut on_a = within(a_rpc.send_message_stream(text("countdown 60")))
        .await
        .expect("message/stream on A");
    let StreamResponse::Task(started) = next(&mut on_a).await.expect("A's first event") else {
        panic!("A's stream starts with the task")
    };
    let id = started.id.clone();
    // Until the executor on A is working.
    loop {
        match next(&mut on_a).await.expect("A's stream goes on") {
            StreamResponse::StatusUpdate(u) if u.status.state == TaskState::Working => break,
            StreamResponse::StatusUpdate(u) => assert!(!u.status.state.is_final(), "{u:?}"),
            other => panic!("unexpected event on A: {other:?}"),
        }
    }
    let mut on_b = within(b_rest.resubscribe_task(TaskIdParams::new(&id)))
        .await
        .expect("tasks/resubscribe on B over REST");
    let StreamResponse::Task(snap) = next(&mut on_b).await.expect("B's snapshot") else {
        panic!("B's stream starts with the snapshot")
    };
    assert_eq!(snap.status.state, TaskState::Working);
    let canceled = within(c_grpc.cancel_task(TaskIdParams::new(&id)))
        .await
        .expect("tasks/cancel on C over gRPC");
    assert_eq!(canceled.status.state, TaskState::Canceled, "{canceled:?}");
    for (who, stream) in [("A", &mut on_a), ("B", &mut on_b)] {
        let events = rest_of(stream).await;
        let Some(StreamResponse::StatusUpdate(last)) = events.last() else {
            panic!("{who}'s stream ends with a status update: {events:?}")
        };
        assert_eq!(last.status.state, TaskState::Canceled, "{who}: {events:?}");
        assert!(last.is_final, "{who}: {last:?}");
    }
    for (who, transport) in [
        ("A", &a_rpc as &dyn Transport),
        ("B", &b_rest),
        ("C", &c_grpc),
    ] {
        let task = get(transport, &id).await;
        assert_eq!(task.status.state, TaskState::Canceled, "{who}: {task:?}");
    }

    // 3. `interview` on A stops in `input-required`; the answer goes to B
    // (REST), which continues the task; C (gRPC) sees it completed.
    let asked = match within(a_rpc.send_message(text("interview")))
        .await
        .expect("message/send on A")
    {
        SendMessageResult::Task(t) => t,
        other @ SendMessageResult::Message(_) => panic!("a task: {other:?}"),
    };
    assert_eq!(asked.status.state, TaskState::InputRequired, "{asked:?}");
    assert_eq!(status_text(&asked), "What is your name?");
    let mut answer = Message::user_text(a2a_core::new_id(), "Ada");
    answer.task_id = Some(asked.id.clone());
    answer.context_id = Some(asked.context_id.clone());
    let done = match within(b_rest.send_message(MessageSendParams::new(answer.clone())))
        .await
        .expect("the follow-up on B")
    {
        SendMessageResult::Task(t) => t,
        other @ SendMessageResult::Message(_) => panic!("a task: {other:?}"),
    };
    assert_eq!(done.id, asked.id);
    assert_eq!(done.status.state, TaskState::Completed, "{done:?}");
    let on_c = get(&c_grpc, &asked.id).await;
    assert_eq!(on_c.status.state, TaskState::Completed);
    let artifacts = on_c.artifacts.clone().unwrap_or_default();
    assert_eq!(artifacts.len(), 1, "{on_c:?}");
    assert_eq!(artifacts[0].text(), "Nice to meet you, Ada!");
    let history: Vec<&str> = on_c
        .history
        .iter()
        .flatten()
        .map(|m| m.message_id.as_str())
        .collect();
    assert!(
        history.contains(&answer.message_id.as_str()),
        "the answer is in the history: {history:?}"
    );
}

/// kill -9 of the replica running a task: within the lease ttl (plus a
/// sweep) B and C both report the task `failed`, saying why.
#[tokio::test(flavor = "multi_thread")]
async fn a_killed_replica_s_task_fails_when_its_lease_expires() {
    const TTL: Duration = Duration::from_secs(2);
    let Some((_db, [mut a, b, c])) =
        three_replicas("a_killed_replica_s_task_fails_when_its_lease_expires", "2s").await
    else {
        return;
    };
    let (b_rest, c_grpc) = (b.rest(), c.grpc().await);
    let mut params = text("countdown 120");
    params.configuration = Some(MessageSendConfiguration {
        blocking: Some(false),
        ..MessageSendConfiguration::default()
    });
    let task = match within(a.jsonrpc().send_message(params))
        .await
        .expect("message/send on A")
    {
        SendMessageResult::Task(t) => t,
        other @ SendMessageResult::Message(_) => panic!("a task: {other:?}"),
    };
    // Running on A, seen from B.
    until_state(&b_rest, &task.id, TaskState::Working, Instant::now() + WAIT).await;
    // Streams that follow it from B and C: whichever replica sweeps the
    // lease, both must hear the failure.
    let mut b_stream = within(b_rest.resubscribe_task(TaskIdParams::new(&task.id)))
        .await
        .expect("tasks/resubscribe on B over REST");
    let mut c_stream = within(c_grpc.resubscribe_task(TaskIdParams::new(&task.id)))
        .await
        .expect("tasks/resubscribe on C over gRPC");
    for stream in [&mut b_stream, &mut c_stream] {
        let snapshot = next(stream).await.expect("the snapshot");
        assert!(matches!(snapshot, StreamResponse::Task(_)), "{snapshot:?}");
    }

    a.kill();
    let killed = Instant::now();
    // The lease is at most TTL old at the kill; a live replica's sweep runs
    // every TTL / 3. The bound is generous for slow machines, the elapsed
    // time is printed.
    let deadline = killed + TTL * 5;
    let on_b = until_state(&b_rest, &task.id, TaskState::Failed, deadline).await;
    let elapsed = killed.elapsed();
    let on_c = until_state(&c_grpc, &task.id, TaskState::Failed, deadline).await;
    eprintln!("task failed {elapsed:?} after kill -9 (lease ttl {TTL:?})");
    for (who, t) in [("B", &on_b), ("C", &on_c)] {
        let why = status_text(t);
        assert!(
            why.contains("lease expired") && why.contains("stopped responding"),
            "{who}: {why:?}"
        );
    }
    assert_eq!(key_of(&on_b.status), key_of(&on_c.status));
    for (who, stream) in [("B", &mut b_stream), ("C", &mut c_stream)] {
        let events = rest_of(stream).await;
        let last = statuses(&events).last().cloned();
        assert!(
            matches!(last, Some((TaskState::Failed, _))),
            "{who}'s stream ends failed: {events:?}"
        );
    }
    // A task still running is not failed by the sweep: B runs one, C and B
    // keep renewing, and it completes.
    let mut params = text("countdown 3");
    params.configuration = Some(MessageSendConfiguration {
        blocking: Some(true),
        ..MessageSendConfiguration::default()
    });
    let done = match within(b.jsonrpc().send_message(params))
        .await
        .expect("message/send on B")
    {
        SendMessageResult::Task(t) => t,
        other @ SendMessageResult::Message(_) => panic!("a task: {other:?}"),
    };
    assert_eq!(done.status.state, TaskState::Completed, "{done:?}");
    assert_eq!(
        get(&c_grpc, &done.id).await.status.state,
        TaskState::Completed
    );
}

/// `--replica-id` and `--lease-ttl` are refused with a store that replicas
/// cannot share, before anything is opened or served.
#[test]
fn cluster_flags_need_a_postgres_store() {
    let dir = std::env::temp_dir().join(format!(
        "a2a-server-replicas-{}-{}",
        std::process::id(),
        a2a_core::new_id()
    ));
    let db = dir.join("a2a.db");
    let sqlite = format!("sqlite:{}", db.display());
    for (store, flag, value) in [
        ("memory", "--replica-id", "a"),
        (sqlite.as_str(), "--lease-ttl", "5s"),
    ] {
        let out = Command::new(BIN)
            .args(["serve", "--store", store, flag, value])
            .args(["--jsonrpc-addr", "127.0.0.1:0", "--no-grpc", "--no-rest"])
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .output()
            .expect("run a2a serve");
        assert_eq!(out.status.code(), Some(2), "{store} {flag}");
        assert!(out.stdout.is_empty(), "no listening line");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("--replica-id and --lease-ttl need a store that replicas share")
                && stderr.contains("single replica is the only mode"),
            "{stderr}"
        );
    }
    assert!(
        !db.exists() && !dir.exists(),
        "the SQLite store was not opened"
    );

    // A lease ttl under the minimum is a usage error.
    let out = Command::new(BIN)
        .args([
            "serve",
            "--store",
            "postgres://u@127.0.0.1:1/db",
            "--lease-ttl",
            "100ms",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run a2a serve");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("too short"), "{stderr}");
}
