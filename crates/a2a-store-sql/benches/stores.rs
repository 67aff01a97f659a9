//! Store throughput: memory vs SQLite vs PostgreSQL, in one run.
//!
//! `cargo bench -p a2a-store-sql --bench stores`
//!
//! Two phases per store, each with a fixed number of concurrent workers for a
//! fixed time:
//!
//! - **sends**: one task's life as the engine writes it: create (`submitted`,
//!   the user's message), then 3 updates from the version just written
//!   (`working`; an artifact; `completed` with the agent's reply). One send is
//!   4 writes.
//! - **gets**: `get` of a random task written by the sends phase.
//!
//! Prints a Markdown table with each store's rate and its ratio to the
//! memory store's.
//!
//! | variable | default | meaning |
//! |---|---|---|
//! | `A2A_BENCH_CONCURRENCY` | 16 | concurrent workers |
//! | `A2A_BENCH_SECS` | 3 | seconds per phase and store |
//! | `A2A_BENCH_POSTGRES_URL`, else `A2A_TEST_POSTGRES_URL` | unset | PostgreSQL; skipped with a note when unset |
//! | `A2A_BENCH_SQLITE_DIR` | the system's temporary directory | where the SQLite file is written |

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use a2a_core::{TaskStore, new_id};
use a2a_store_sql::{PostgresOptions, PostgresStore, SqliteStore};
use a2a_types::{Artifact, Message, Part, Task, TaskState};

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One send: a task's create and 3 updates.
async fn send(store: &dyn TaskStore) -> String {
    let id = new_id();
    let mut task = Task::new(&id, new_id(), TaskState::Submitted);
    task.status.timestamp = Some(a2a_core::now_rfc3339());
    task.history = Some(vec![Message::user_text(
        new_id(),
        "What is the weather in Lisbon tomorrow?",
    )]);
    let mut v = store.save(&task, None).await.expect("create");

    task.status.state = TaskState::Working;
    task.status.timestamp = Some(a2a_core::now_rfc3339());
    v = store.save(&task, Some(v)).await.expect("working");

    task.artifacts = Some(vec![Artifact::new(
        new_id(),
        vec![Part::text("Sunny, 24 °C, light wind from the north-west.")],
    )]);
    v = store.save(&task, Some(v)).await.expect("artifact");

    let reply = Message::agent_text(new_id(), "Here is the forecast.");
    task.status.state = TaskState::Completed;
    task.status.message = Some(reply.clone());
    task.status.timestamp = Some(a2a_core::now_rfc3339());
    task.history.get_or_insert_default().push(reply);
    store.save(&task, Some(v)).await.expect("completed");
    id
}

/// Runs `op` on `concurrency` workers for `secs`; returns operations per
/// second.
async fn measure<F, Fut>(concurrency: usize, secs: f64, op: F) -> f64
where
    F: Fn(u64) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let op = Arc::new(op);
    let done = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs_f64(secs);
    let start = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|w| {
            let (op, done) = (Arc::clone(&op), Arc::clone(&done));
            tokio::spawn(async move {
                let mut n = w as u64;
                while Instant::now() < deadline {
                    op(n).await;
                    n = n.wrapping_add(7919);
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for w in workers {
        w.await.expect("worker");
    }
    done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64()
}

struct Row {
    name: String,
    sends: f64,
    gets: f64,
    /// The tasks the sends phase created.
    ids: Arc<Vec<String>>,
}

async fn bench(name: &str, store: Arc<dyn TaskStore>, concurrency: usize, secs: f64) -> Row {
    let ids = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sends = {
        let (store, ids) = (Arc::clone(&store), Arc::clone(&ids));
        measure(concurrency, secs, move |_| {
            let (store, ids) = (Arc::clone(&store), Arc::clone(&ids));
            async move {
                let id = send(&*store).await;
                ids.lock().expect("ids").push(id);
            }
        })
        .await
    };
    let ids: Arc<Vec<String>> = Arc::new(std::mem::take(&mut *ids.lock().expect("ids")));
    let gets = {
        let (store, ids) = (Arc::clone(&store), Arc::clone(&ids));
        measure(concurrency, secs, move |n| {
            let (store, ids) = (Arc::clone(&store), Arc::clone(&ids));
            async move {
                let id = &ids[(n as usize) % ids.len()];
                let got = store.get(id).await.expect("get");
                assert!(got.is_some(), "task {id} missing");
            }
        })
        .await
    };
    eprintln!("{name}: {sends:.0} sends/s, {gets:.0} gets/s");
    Row {
        name: name.to_owned(),
        sends,
        gets,
        ids,
    }
}

fn main() {
    let concurrency: usize = env_or("A2A_BENCH_CONCURRENCY", 16);
    let secs: f64 = env_or("A2A_BENCH_SECS", 3.0);
    let pg_url = std::env::var("A2A_BENCH_POSTGRES_URL")
        .or_else(|_| std::env::var("A2A_TEST_POSTGRES_URL"))
        .ok()
        .filter(|u| !u.is_empty());
    let sqlite_dir = std::env::var_os("A2A_BENCH_SQLITE_DIR")
        .map_or_else(std::env::temp_dir, std::path::PathBuf::from)
        .join(format!("a2a-store-sql-bench-{}", std::process::id()));

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let (rows, notes) = rt.block_on(run(concurrency, secs, &sqlite_dir, pg_url.as_deref()));

    println!();
    println!(
        "Store throughput: {concurrency} concurrent workers, {secs} s per phase; \
         a send is a create + 3 updates."
    );
    println!();
    println!("| store | sends/s | × memory | gets/s | × memory |");
    println!("|---|---:|---:|---:|---:|");
    let (m_sends, m_gets) = (rows[0].sends, rows[0].gets);
    for r in &rows {
        println!(
            "| {} | {:.0} | {:.4} | {:.0} | {:.4} |",
            r.name,
            r.sends,
            r.sends / m_sends,
            r.gets,
            r.gets / m_gets
        );
    }
    for n in notes {
        println!();
        println!("{n}");
    }
}

/// Every store's row (memory first) and the notes on skipped stores.
async fn run(
    concurrency: usize,
    secs: f64,
    sqlite_dir: &std::path::Path,
    pg_url: Option<&str>,
) -> (Vec<Row>, Vec<&'static str>) {
    let memory = Arc::new(a2a_core::InMemoryTaskStore::new());
    let mut rows = vec![bench("memory", memory, concurrency, secs).await];

    let sqlite = SqliteStore::open(sqlite_dir.join("bench.db"))
        .await
        .expect("open SQLite");
    let name = "SQLite (WAL, synchronous=NORMAL, pool 4)";
    rows.push(bench(name, Arc::new(sqlite.clone()), concurrency, secs).await);
    sqlite.close().await;
    let _ = std::fs::remove_dir_all(sqlite_dir);

    let mut notes = Vec::new();
    match pg_url {
        Some(url) => {
            let pool = u32::try_from(concurrency).unwrap_or(u32::MAX).min(32);
            for ping in [true, false] {
                let options = PostgresOptions::default()
                    .max_connections(pool)
                    .ping_before_use(ping);
                let pg = PostgresStore::connect_with(url, options)
                    .await
                    .expect("connect to PostgreSQL");
                let name = if ping {
                    format!("PostgreSQL (pool {pool})")
                } else {
                    format!("PostgreSQL (pool {pool}, ping_before_use(false))")
                };
                let row = bench(&name, Arc::new(pg.clone()), concurrency, secs).await;
                // The bench's tasks are not kept.
                sqlx::query("DELETE FROM a2a_tasks WHERE id = ANY($1)")
                    .bind(row.ids.as_slice())
                    .execute(pg.pool())
                    .await
                    .expect("delete the bench's tasks");
                rows.push(row);
                pg.close().await;
            }
        }
        None => notes.push(
            "PostgreSQL skipped: set A2A_BENCH_POSTGRES_URL or A2A_TEST_POSTGRES_URL \
             (tests/postgres/start.sh prints one)",
        ),
    }
    (rows, notes)
}
