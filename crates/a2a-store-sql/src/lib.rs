//! SQL stores for the A2A engine: [`SqliteStore`] (a SQLite file) and
//! [`PostgresStore`] (a PostgreSQL database), each implementing
//! [`a2a_core::TaskStore`] and [`a2a_core::PushConfigStore`] with sqlx.
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
//! sqlx records applied migrations in `_sqlx_migrations`. Push configs have
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
//! | `postgres` | [`PostgresStore`]; TLS (`sslmode=require` …) by rustls with aws-lc-rs | yes |

#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod common;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod sqlite;
mod url;

#[cfg(feature = "postgres")]
pub use postgres::{PostgresOptions, PostgresStore};
#[cfg(feature = "sqlite")]
pub use sqlite::{SqliteOptions, SqliteStore};
pub use url::redact_url;
