//! One store suite, run against the in-memory stores (the reference), a real
//! SQLite file in a temporary directory and a real PostgreSQL server.
//!
//! PostgreSQL: the URL comes from `A2A_TEST_POSTGRES_URL` (see
//! `tests/postgres/start.sh`). When it is unset, the PostgreSQL tests fail
//! under `CI=true` and print `SKIPPED` otherwise.

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use a2a_core::{
    InMemoryPushConfigStore, InMemoryTaskStore, PushConfigStore, StoreError, TaskStore, new_id,
};
use a2a_store_sql::{PostgresOptions, PostgresStore, SqliteStore};
use a2a_types::{Artifact, Message, Part, PushNotificationConfig, Task, TaskState};

/// A temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "a2a-store-sql-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The PostgreSQL URL, or `None` when the tests are skipped.
fn postgres_url(test: &str) -> Option<String> {
    common::postgres_url("postgres", test)
}

/// Which store a suite runs against.
enum Kind {
    Memory,
    Sqlite(TempDir),
    Postgres(String),
}

impl Kind {
    fn sqlite() -> Option<Self> {
        Some(Self::Sqlite(TempDir::new()))
    }

    fn postgres(test: &str) -> Option<Self> {
        postgres_url(test).map(Self::Postgres)
    }

    /// A handle on the store; for SQL stores each call opens a new pool on
    /// the same data, like another process would.
    async fn open(&self) -> Handle {
        match self {
            Self::Memory => Handle {
                tasks: Arc::new(InMemoryTaskStore::new()),
                push: Arc::new(InMemoryPushConfigStore::new()),
            },
            Self::Sqlite(dir) => {
                let store = Arc::new(SqliteStore::open(dir.path().join("a2a.db")).await.unwrap());
                Handle {
                    tasks: store.clone(),
                    push: store,
                }
            }
            Self::Postgres(url) => {
                let options = PostgresOptions::default().max_connections(4);
                let store = Arc::new(PostgresStore::connect_with(url, options).await.unwrap());
                Handle {
                    tasks: store.clone(),
                    push: store,
                }
            }
        }
    }

    /// A second handle on the same data as `first`.
    async fn peer(&self, first: &Handle) -> Handle {
        match self {
            Self::Memory => Handle {
                tasks: first.tasks.clone(),
                push: first.push.clone(),
            },
            _ => self.open().await,
        }
    }
}

#[derive(Clone)]
struct Handle {
    tasks: Arc<dyn TaskStore>,
    push: Arc<dyn PushConfigStore>,
}

fn task(id: &str) -> Task {
    let mut t = Task::new(id, format!("ctx-{id}"), TaskState::Submitted);
    t.history = Some(vec![Message::user_text(new_id(), "hello")]);
    t
}

fn config(id: &str, url: &str) -> PushNotificationConfig {
    PushNotificationConfig {
        id: Some(id.into()),
        url: url.into(),
        token: Some(format!("token-{id}")),
        authentication: None,
    }
}

/// A task with a status message, history, artifacts and metadata.
fn rich_task(id: &str) -> Task {
    let mut t = task(id);
    t.status.state = TaskState::InputRequired;
    t.status.message = Some(Message::agent_text(new_id(), "need more"));
    t.status.timestamp = Some(a2a_core::now_rfc3339());
    t.history
        .get_or_insert_default()
        .push(Message::agent_text(new_id(), "thinking… ünïcødé ✓"));
    t.artifacts = Some(vec![
        Artifact::new("a-1", vec![Part::text("first")]),
        Artifact::new("a-2", vec![Part::text("second"), Part::text("part")]),
    ]);
    t.metadata = Some(
        serde_json::from_value(serde_json::json!({"n": 1, "nested": {"list": [1, 2.5, null]}}))
            .unwrap(),
    );
    t
}

mod cases {
    use super::*;

    pub(super) async fn create_get_update(kind: &Kind) {
        let h = kind.open().await;
        let id = new_id();
        let mut t = task(&id);
        assert_eq!(h.tasks.save(&t, None).await, Ok(1));
        assert_eq!(h.tasks.get(&id).await.unwrap(), Some((t.clone(), 1)));

        t.status.state = TaskState::Working;
        t.history
            .get_or_insert_default()
            .push(Message::agent_text(new_id(), "on it"));
        t.artifacts = Some(vec![Artifact::new("out", vec![Part::text("42")])]);
        assert_eq!(h.tasks.save(&t, Some(1)).await, Ok(2));
        assert_eq!(h.tasks.get(&id).await.unwrap(), Some((t.clone(), 2)));

        let rich = rich_task(&id);
        assert_eq!(h.tasks.save(&rich, Some(2)).await, Ok(3));
        assert_eq!(h.tasks.get(&id).await.unwrap(), Some((rich, 3)));

        assert_eq!(h.tasks.get(&new_id()).await.unwrap(), None);
        assert!(h.tasks.delete(&id).await.unwrap());
        assert_eq!(h.tasks.get(&id).await.unwrap(), None);
        assert!(!h.tasks.delete(&id).await.unwrap());
        // A deleted id can be created again, from version 1.
        assert_eq!(h.tasks.save(&t, None).await, Ok(1));
    }

    pub(super) async fn stale_update_refused(kind: &Kind) {
        let h = kind.open().await;
        let id = new_id();
        let mut t = task(&id);
        assert_eq!(h.tasks.save(&t, None).await, Ok(1));
        t.status.state = TaskState::Working;
        assert_eq!(h.tasks.save(&t, Some(1)).await, Ok(2));

        let mut stale = t.clone();
        stale.status.state = TaskState::Failed;
        assert_eq!(
            h.tasks.save(&stale, Some(1)).await,
            Err(StoreError::Conflict)
        );
        assert_eq!(
            h.tasks.save(&stale, Some(3)).await,
            Err(StoreError::Conflict)
        );
        assert_eq!(
            h.tasks.save(&stale, Some(u64::MAX)).await,
            Err(StoreError::Conflict)
        );
        assert_eq!(h.tasks.get(&id).await.unwrap(), Some((t.clone(), 2)));

        // Updating a task that does not exist is a conflict too.
        let missing = task(&new_id());
        assert_eq!(
            h.tasks.save(&missing, Some(1)).await,
            Err(StoreError::Conflict)
        );
        assert_eq!(h.tasks.get(&missing.id).await.unwrap(), None);

        // And so is updating one that was deleted meanwhile.
        assert!(h.tasks.delete(&id).await.unwrap());
        assert_eq!(h.tasks.save(&t, Some(2)).await, Err(StoreError::Conflict));
    }

    pub(super) async fn create_existing_refused(kind: &Kind) {
        let h = kind.open().await;
        let peer = kind.peer(&h).await;
        let id = new_id();
        let first = task(&id);
        assert_eq!(h.tasks.save(&first, None).await, Ok(1));

        let mut second = task(&id);
        second.context_id = "another-context".into();
        assert_eq!(h.tasks.save(&second, None).await, Err(StoreError::Conflict));
        assert_eq!(
            peer.tasks.save(&second, None).await,
            Err(StoreError::Conflict)
        );
        assert_eq!(h.tasks.get(&id).await.unwrap(), Some((first, 1)));
    }

    /// Writers on two handles (two pools for SQL stores) do read-modify-write
    /// on one task; each successful write appends a unique message. No write
    /// may be lost: the final version is 1 (the create) plus the successful
    /// updates, and the history holds every update's message exactly once.
    pub(super) async fn concurrent_writers(kind: &Kind) {
        const WRITERS: usize = 8;
        const WRITES: usize = 10;
        const MAX_ATTEMPTS: usize = 10_000;

        let a = kind.open().await;
        let b = kind.peer(&a).await;
        let id = new_id();
        assert_eq!(a.tasks.save(&task(&id), None).await, Ok(1));

        let mut workers = Vec::new();
        for w in 0..WRITERS {
            let store = if w % 2 == 0 {
                a.tasks.clone()
            } else {
                b.tasks.clone()
            };
            let id = id.clone();
            workers.push(tokio::spawn(async move {
                let (mut ok, mut conflicts) = (0_usize, 0_usize);
                for _ in 0..MAX_ATTEMPTS {
                    if ok == WRITES {
                        break;
                    }
                    let (mut t, v) = store.get(&id).await.unwrap().unwrap();
                    t.history
                        .get_or_insert_default()
                        .push(Message::agent_text(format!("w{w}-{ok}"), "update"));
                    match store.save(&t, Some(v)).await {
                        Ok(new) => {
                            assert!(new > v);
                            ok += 1;
                        }
                        Err(StoreError::Conflict) => conflicts += 1,
                        Err(e) => panic!("writer {w}: {e}"),
                    }
                    tokio::task::yield_now().await;
                }
                (ok, conflicts)
            }));
        }
        let (mut ok, mut conflicts) = (0, 0);
        for w in workers {
            let (o, c) = w.await.unwrap();
            ok += o;
            conflicts += c;
        }
        eprintln!("{WRITERS} writers: {ok} writes, {conflicts} conflicts (retried)");
        assert_eq!(ok, WRITERS * WRITES, "a writer ran out of attempts");

        let (t, version) = a.tasks.get(&id).await.unwrap().unwrap();
        assert_eq!(version, 1 + ok as u64);
        let ids: Vec<&str> = t.history.as_deref().unwrap()[1..]
            .iter()
            .map(|m| m.message_id.as_str())
            .collect();
        assert_eq!(ids.len(), ok, "history: {ids:?}");
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ok);
        for w in 0..WRITERS {
            for n in 0..WRITES {
                assert!(ids.contains(&format!("w{w}-{n}").as_str()), "w{w}-{n} lost");
            }
        }
    }

    pub(super) async fn push_config_crud_in_order(kind: &Kind) {
        let h = kind.open().await;
        let (t1, t2) = (new_id(), new_id());
        let urls = |l: Vec<PushNotificationConfig>| -> Vec<(String, String)> {
            l.into_iter()
                .map(|c| (c.id.unwrap_or_default(), c.url))
                .collect()
        };
        let pair = |id: &str, url: &str| (id.to_owned(), url.to_owned());

        assert!(h.push.list(&t1).await.unwrap().is_empty());
        for id in ["c", "a", "b"] {
            h.push
                .set(&t1, config(id, &format!("http://h/{id}")))
                .await
                .unwrap();
        }
        h.push
            .set(&t2, config("a", "http://other/a"))
            .await
            .unwrap();
        // Replacing keeps the config's place.
        h.push.set(&t1, config("a", "http://h/a2")).await.unwrap();
        assert_eq!(
            urls(h.push.list(&t1).await.unwrap()),
            [
                pair("c", "http://h/c"),
                pair("a", "http://h/a2"),
                pair("b", "http://h/b")
            ]
        );
        assert_eq!(
            h.push.get(&t1, "b").await.unwrap(),
            Some(config("b", "http://h/b"))
        );
        assert_eq!(h.push.get(&t1, "zz").await.unwrap(), None);
        assert_eq!(h.push.get(&new_id(), "a").await.unwrap(), None);

        assert!(h.push.delete(&t1, "a").await.unwrap());
        assert!(!h.push.delete(&t1, "a").await.unwrap());
        assert!(!h.push.delete(&new_id(), "a").await.unwrap());
        h.push.set(&t1, config("a", "http://h/a3")).await.unwrap();
        h.push.set(&t1, config("d", "http://h/d")).await.unwrap();
        assert_eq!(
            urls(h.push.list(&t1).await.unwrap()),
            [
                pair("c", "http://h/c"),
                pair("b", "http://h/b"),
                pair("a", "http://h/a3"),
                pair("d", "http://h/d")
            ]
        );
        assert_eq!(
            urls(h.push.list(&t2).await.unwrap()),
            [pair("a", "http://other/a")]
        );
        let full = h.push.list(&t1).await.unwrap();
        assert_eq!(full[0], config("c", "http://h/c"));
    }

    /// The task with its history and artifacts, and its push configs,
    /// survive dropping the store and opening it again.
    pub(super) async fn persistence_across_reopen(kind: &Kind) {
        if matches!(kind, Kind::Memory) {
            eprintln!("memory: nothing persists across a reopen; nothing to test");
            return;
        }
        let id = new_id();
        let t = rich_task(&id);
        {
            let h = kind.open().await;
            assert_eq!(h.tasks.save(&task(&id), None).await, Ok(1));
            assert_eq!(h.tasks.save(&t, Some(1)).await, Ok(2));
            h.push.set(&id, config("p1", "http://h/1")).await.unwrap();
            h.push.set(&id, config("p2", "http://h/2")).await.unwrap();
        }
        let h = kind.open().await;
        assert_eq!(h.tasks.get(&id).await.unwrap(), Some((t.clone(), 2)));
        let stored = h.tasks.get(&id).await.unwrap().unwrap().0;
        assert_eq!(stored.history.as_ref().map(Vec::len), Some(2));
        assert_eq!(stored.artifacts.as_ref().map(Vec::len), Some(2));
        assert_eq!(
            h.push.list(&id).await.unwrap(),
            [config("p1", "http://h/1"), config("p2", "http://h/2")]
        );
        // Versions carry on.
        assert_eq!(h.tasks.save(&t, Some(2)).await, Ok(3));
        assert_eq!(h.tasks.save(&t, Some(2)).await, Err(StoreError::Conflict));
    }
}

/// One `#[tokio::test]` per case for a backend; `$kind` builds the
/// backend (`None`: skipped).
macro_rules! suite {
    ($backend:ident, $kind:expr) => {
        mod $backend {
            use super::*;

            suite!(@case $kind; create_get_update, stale_update_refused, create_existing_refused,
                concurrent_writers, push_config_crud_in_order, persistence_across_reopen);
        }
    };
    (@case $kind:expr; $($case:ident),*) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                let make: fn(&str) -> Option<Kind> = $kind;
                if let Some(kind) = make(stringify!($case)) {
                    cases::$case(&kind).await;
                }
            }
        )*
    };
}

suite!(memory, |_| Some(Kind::Memory));
suite!(sqlite, |_| Kind::sqlite());
suite!(postgres, Kind::postgres);

// Backend-specific checks.

#[tokio::test]
async fn sqlite_creates_the_directory_and_file_in_wal_mode() {
    let dir = TempDir::new();
    let path = dir.path().join("nested/deeper/a2a.db");
    let store = SqliteStore::open(&path).await.unwrap();
    assert!(path.is_file());
    assert_eq!(store.path(), path);
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    let sync: i64 = sqlx::query_scalar("PRAGMA synchronous")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(sync, 1, "synchronous=NORMAL");
    let busy: i64 = sqlx::query_scalar("PRAGMA busy_timeout")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert!(busy >= 1000, "busy_timeout {busy}");
    store.close().await;
    // Opening again runs no migration twice.
    SqliteStore::open(&path).await.unwrap().close().await;
}

#[tokio::test]
async fn sqlite_columns_mirror_the_task() {
    let dir = TempDir::new();
    let store = SqliteStore::open(dir.path().join("a2a.db")).await.unwrap();
    let id = new_id();
    store.save(&task(&id), None).await.unwrap();
    store.save(&rich_task(&id), Some(1)).await.unwrap();
    let (context, state, version, json): (String, String, i64, String) = sqlx::query_as(
        "SELECT context_id, state, version, json_extract(task, '$.kind') FROM a2a_tasks WHERE id = ?1",
    )
    .bind(&id)
    .fetch_one(store.pool())
    .await
    .unwrap();
    assert_eq!(
        (context.as_str(), state.as_str(), version, json.as_str()),
        (format!("ctx-{id}").as_str(), "input-required", 2, "task")
    );
}

#[tokio::test]
async fn sqlite_open_error_names_the_path() {
    let dir = TempDir::new();
    let file = dir.path().join("plain-file");
    std::fs::write(&file, b"not a directory").unwrap();
    let err = SqliteStore::open(file.join("a2a.db")).await.unwrap_err();
    let msg = err.to_string();
    eprintln!("{msg}");
    assert!(msg.contains("SQLite store"), "{msg}");
    assert!(msg.contains(&file.display().to_string()), "{msg}");
    assert_eq!(err.code(), -32603);

    std::fs::write(
        dir.path().join("garbage.db"),
        b"this is not a SQLite file at all, no",
    )
    .unwrap();
    let err = SqliteStore::open(dir.path().join("garbage.db"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("garbage.db"), "{err}");
}

#[tokio::test]
async fn postgres_connect_error_names_the_url_without_password() {
    let options = PostgresOptions::default().acquire_timeout(Duration::from_secs(3));
    let err = PostgresStore::connect_with("postgres://a2a:s3cret@127.0.0.1:1/a2a", options)
        .await
        .unwrap_err();
    let msg = err.to_string();
    eprintln!("{msg}");
    assert!(
        msg.contains("PostgreSQL store: connecting to postgres://a2a@127.0.0.1:1/a2a failed"),
        "{msg}"
    );
    assert!(!msg.contains("s3cret"), "{msg}");
    assert_eq!(err.code(), -32603);

    let err = PostgresStore::connect("mysql://u:s3cret@h/db")
        .await
        .unwrap_err();
    assert!(!err.to_string().contains("s3cret"), "{err}");
}

#[tokio::test]
async fn postgres_columns_mirror_the_task() {
    let Some(url) = postgres_url("columns_mirror_the_task") else {
        return;
    };
    let store = PostgresStore::connect(&url).await.unwrap();
    let id = new_id();
    store.save(&task(&id), None).await.unwrap();
    store.save(&rich_task(&id), Some(1)).await.unwrap();
    let (context, state, version, kind, recent): (String, String, i64, String, bool) =
        sqlx::query_as(
            "SELECT context_id, state, version, task->>'kind', updated_at > now() - interval '1 minute' \
             FROM a2a_tasks WHERE id = $1",
        )
        .bind(&id)
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(
        (
            context.as_str(),
            state.as_str(),
            version,
            kind.as_str(),
            recent
        ),
        (
            format!("ctx-{id}").as_str(),
            "input-required",
            2,
            "task",
            true
        )
    );
    TaskStore::delete(&store, &id).await.unwrap();
}

#[tokio::test]
async fn postgres_missing_database_is_reported() {
    let Some(url) = postgres_url("missing_database_is_reported") else {
        return;
    };
    let (base, _) = url.split_once('?').unwrap_or((&url, ""));
    let base = &base[..base.rfind('/').unwrap()];
    let err = PostgresStore::connect(&format!("{base}/a2a_no_such_database"))
        .await
        .unwrap_err();
    let msg = err.to_string();
    eprintln!("{msg}");
    assert!(msg.contains("connecting to postgres"), "{msg}");
    assert!(
        msg.contains("a2a_no_such_database\" does not exist"),
        "{msg}"
    );
}
