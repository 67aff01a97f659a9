//! SQL stores for the A2A engine: [`SqliteStore`] (a SQLite file) and
//! [`PostgresStore`] (a PostgreSQL database), each implementing
//! [`a2a_core::TaskStore`] and [`a2a_core::PushConfigStore`] with sqlx; and
//! [`PgCluster`], the [`a2a_core::Cluster`] link between replicas sharing a
//! PostgreSQL database.
//!
//! Opening a store runs its embedded migrations (`migrations/sqlite`,
//! `migrations/postgres`), so a new file or an empty database is ready at
//! once. Queries use sqlx's runtime API, so building this crate needs no
//! database.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use a2a_core::{PushConfigStore, TaskStore};
//! use a2a_store_sql::SqliteStore;
//! use a2a_types::{Task, TaskState};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = std::env::temp_dir().join(format!("a2a-store-sql-doc-{}", std::process::id()));
//! // Creates the directory and the file on first run.
//! let store = Arc::new(SqliteStore::open(dir.join("a2a.db")).await?);
//!
//! let mut task = Task::new("task-1", "ctx-1", TaskState::Submitted);
//! let v1 = store.save(&task, None).await?; // create: 1
//! task.status.state = TaskState::Working;
//! let v2 = store.save(&task, Some(v1)).await?; // update from 1: 2
//! assert_eq!(v2, 2);
//! assert!(store.save(&task, Some(v1)).await.is_err()); // stale: Conflict
//!
//! let (stored, version) = TaskStore::get(&*store, "task-1").await?.unwrap();
//! assert_eq!((stored.status.state, version), (TaskState::Working, 2));
//!
//! // One store serves as both engine stores:
//! let tasks: Arc<dyn TaskStore> = store.clone();
//! let push_configs: Arc<dyn PushConfigStore> = store;
//! # drop((tasks, push_configs));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(()) }
//! ```
//!
//! With the engine:
//! `DefaultRequestHandler::builder(card, agent).task_store(tasks).push_config_store(push_configs)`.
//! For PostgreSQL, `PostgresStore::connect("postgres://user:pw@127.0.0.1:5432/a2a").await?`
//! instead.
//!
//! # Schema
//!
//! Both backends have the same two tables (PostgreSQL types shown; SQLite
//! uses `TEXT`/`INTEGER` in `STRICT` tables, JSON as text and `updated_at`
//! as RFC 3339 text):
//!
//! | table | column | type | meaning |
//! |---|---|---|---|
//! | `a2a_tasks` | `id` | `text` primary key | the task id |
//! | | `context_id` | `text`, indexed | mirrors `task.contextId` |
//! | | `version` | `bigint` | 1 on insert, +1 on every successful update |
//! | | `state` | `text` | mirrors `task.status.state` (`working`, `input-required`, …) |
//! | | `task` | `jsonb` | the whole task in the A2A JSON-RPC shape (`kind: "task"`, camelCase) |
//! | | `updated_at` | `timestamptz` | time of the last write |
//! | `a2a_push_configs` | `task_id`, `config_id` | `text`, primary key together | a config without id is stored under `""` |
//! | | `seq` | `bigint` | insertion order; replacing a config keeps its place |
//! | | `config` | `jsonb` | the `PushNotificationConfig` in its JSON shape |
//!
//! PostgreSQL also has `a2a_leases` and `a2a_cluster_events`, used by
//! [`PgCluster`] (see "Multi-replica deployment" below). sqlx records
//! applied migrations in `_sqlx_migrations`. Push configs have
//! no foreign key to their task and outlive its deletion, as with the
//! in-memory stores.
//!
//! # Concurrency model
//!
//! Writes are optimistic. [`TaskStore::save`](a2a_core::TaskStore::save)
//! carries the version the writer read:
//!
//! - `save(task, None)` is `INSERT … ON CONFLICT (id) DO NOTHING`: it returns
//!   version 1, or [`StoreError::Conflict`](a2a_core::StoreError::Conflict)
//!   when the id exists;
//! - `save(task, Some(v))` is `UPDATE … SET version = v + 1 … WHERE id = ? AND
//!   version = v`: it returns `v + 1`, or `Conflict` when no row matched (the
//!   task changed since it was read, or was deleted).
//!
//! Each save is one statement, atomic on both backends, so an update is never
//! silently lost: of two writers that read version `v`, exactly one succeeds.
//! On PostgreSQL the second waits for the first's row lock and then matches
//! no row (`READ COMMITTED`, the default) or gets a serialization failure
//! (`REPEATABLE READ`, `SERIALIZABLE`; SQLSTATE 40001, also 40P01): both are
//! a `Conflict`. On SQLite writers are serialised by the file's write lock
//! (WAL mode, waiting up to the busy timeout).
//!
//! A `Conflict` means another writer (another process sharing the database,
//! in practice) changed the task. The store never retries: the caller
//! decides. The engine holds one writer per task per process and reports
//! the refused update as an internal error rather than overwriting; a
//! caller that wants to merge re-reads the task (`get`), re-applies its
//! change and saves with the new version, in a bounded loop.
//!
//! Push configs are last-writer-wins per `(task_id, config_id)`
//! (`INSERT … ON CONFLICT DO UPDATE`).
//!
//! # Durability and limits
//!
//! - SQLite runs with `journal_mode=WAL` and `synchronous=NORMAL`: a
//!   committed write survives a crash of the process, but the last commits
//!   may be lost on a power failure (the OS had not flushed the WAL yet).
//!   PostgreSQL follows the server's `synchronous_commit`.
//! - PostgreSQL's `jsonb` cannot hold the character U+0000: saving a task
//!   whose text contains it fails with a `Failed` error (SQLite stores it).
//! - Several processes may share one database; creating a new SQLite file
//!   from several processes at the same instant can race in the migration
//!   (open it once first). PostgreSQL migrations take an advisory lock.
//!
//! # Multi-replica deployment with `PgCluster`
//!
//! Several replicas (processes) of one agent may share one PostgreSQL
//! database, so that a client may call any replica for any operation: each
//! replica gets its own [`PostgresStore`] and a [`PgCluster`] (the
//! [`a2a_core::Cluster`] link) on that database:
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use a2a_core::{ClusterTiming, DefaultRequestHandler, AgentExecutor};
//! # use a2a_store_sql::{PgCluster, PgClusterOptions, PostgresStore};
//! # async fn run(card: a2a_types::AgentCard, agent: impl AgentExecutor + 'static) -> Result<(), a2a_types::A2aError> {
//! let url = "postgres://a2a:pw@db:5432/a2a";
//! let store = Arc::new(PostgresStore::connect(url).await?);
//! // On the store's pool (the listener holds one of its connections); or
//! // `PgCluster::connect(url, None)` for a pool of its own. `None`: a random
//! // replica id; give a stable unique one (pod name …) for readable leases.
//! let cluster = PgCluster::from_pool(store.pool().clone(), None, PgClusterOptions::default()).await?;
//! let handler = DefaultRequestHandler::builder(card, agent)
//!     .task_store(store.clone())
//!     .push_config_store(store)
//!     .cluster(Arc::new(cluster), ClusterTiming::default())
//!     .build();
//! # drop(handler); Ok(()) }
//! ```
//!
//! `a2a serve --store postgres://…` (crate `a2a-server`) does exactly this,
//! with `--replica-id` and `--lease-ttl`; `docs/operations.md` describes the
//! deployment.
//!
//! What it does, with a second migration (`0002_cluster.sql`) adding two
//! tables:
//!
//! - **Messages** (task events with their store version, cancel requests,
//!   "idle"): [`publish`](a2a_core::Cluster::publish) inserts a row into
//!   `a2a_cluster_events(id bigserial, origin, task_id, payload text,
//!   created_at)` (the message as JSON, the event in its A2A JSON shape) and
//!   calls `pg_notify('a2a_cluster', id)` in the same transaction (NOTIFY
//!   payloads are limited to 8000 bytes, so only the id travels). Publishers
//!   serialise on a transaction-scoped advisory lock, so ids commit in id
//!   order. Each replica's background task `LISTEN`s on `a2a_cluster` and
//!   reads the rows after the last id it saw, in id order, skipping its own;
//!   so every replica gets the others' messages once, in publish order. After
//!   the listener reconnects (notifications sent meanwhile are lost) it reads
//!   from the last id seen, and it also polls every 2 s, so a lost
//!   notification only delays delivery. Rows older than 10 minutes are
//!   pruned ([`PgClusterOptions`]); a replica cut off for longer misses them.
//! - **Leases**: `a2a_leases(task_id primary key, owner, expires_at)`. The
//!   replica executing a task upserts its lease every `lease_ttl / 3`
//!   (`expires_at = now() + ttl`, the database's clock, so replicas' clocks
//!   need not agree) and deletes it when done; `owner` is the row while
//!   `expires_at > now()`; the sweep is `DELETE … WHERE expires_at <= now()
//!   RETURNING task_id`, so each expired lease goes to exactly one replica,
//!   which fails the task ("lease expired") unless it runs it itself.
//!
//! Sizing and limits:
//!
//! - Each replica holds one connection for the listener, and each publish is
//!   a short transaction (4 round trips). Publishes are serialised across the
//!   cluster by the advisory lock; PostgreSQL serialises the commits of
//!   notifying transactions anyway. A publish waits at most 10 s for the
//!   lock, and a session idle inside a publish for 10 s (a replica cut off
//!   mid-publish) is ended by the server, freeing the lock.
//! - A replica that dies leaves its tasks `working` until its leases expire
//!   (`ClusterTiming::lease_ttl`, 15 s by default) and the next sweep of a
//!   live replica fails them. A replica that is only partitioned (alive but
//!   unable to reach the database) keeps executing; its writes then fail.
//! - All replicas sharing a database form one cluster: use one database (or
//!   schema, via `search_path`) per agent.
//! - [`PgCluster::shutdown`] (or dropping the last clone) stops the
//!   background work.
//!
//! # Errors
//!
//! Every failure is an [`A2aError::internal`](a2a_types::A2aError::internal)
//! whose message names the backend, the operation and the task (and, when
//! opening, the path or the URL without its password), e.g.
//! `PostgreSQL store: connecting to postgres://a2a@db:5432/a2a failed: …`.
//!
//! # Features
//!
//! | feature | what | default |
//! |---|---|---|
//! | `sqlite` | [`SqliteStore`]; SQLite is compiled in (`libsqlite3-sys` bundled), no system library needed | yes |
//! | `postgres` | [`PostgresStore`] and [`PgCluster`]; TLS (`sslmode=require` …) by rustls with aws-lc-rs | yes |

#[cfg(feature = "postgres")]
mod cluster;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod common;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod sqlite;
mod url;

#[cfg(feature = "postgres")]
pub use cluster::{PgCluster, PgClusterOptions};
#[cfg(feature = "postgres")]
pub use postgres::{PostgresOptions, PostgresStore};
#[cfg(feature = "sqlite")]
pub use sqlite::{SqliteOptions, SqliteStore};
pub use url::redact_url;
