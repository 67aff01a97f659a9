//! [`SqliteStore`]: tasks and push configs in a SQLite file.

use std::path::{Path, PathBuf};
use std::time::Duration;

use a2a_core::{PushConfigStore, StoreError, TaskStore, Version};
use a2a_types::{A2aError, PushNotificationConfig, Task};
use async_trait::async_trait;
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::common::{
    config_id_of, decode_config, decode_configs, decode_task_row, encode_config, encode_task,
    failed, next_version, push_failed, save_failed, saved, to_db_version,
};

const BACKEND: &str = "SQLite";

/// The migrations embedded from `migrations/sqlite`.
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("migrations/sqlite");

/// How [`SqliteStore::open_with`] opens the file.
#[derive(Debug, Clone)]
pub struct SqliteOptions {
    max_connections: u32,
    busy_timeout: Duration,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        Self {
            max_connections: 4,
            busy_timeout: Duration::from_secs(5),
        }
    }
}

impl SqliteOptions {
    /// The pool's size (default 4). SQLite has one writer at a time; more
    /// connections only add concurrent readers.
    #[must_use]
    pub fn max_connections(mut self, n: u32) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// How long a write waits for the file's write lock held by another
    /// connection or process before failing (default 5 s).
    #[must_use]
    pub fn busy_timeout(mut self, timeout: Duration) -> Self {
        self.busy_timeout = timeout;
        self
    }
}

/// A [`TaskStore`] and [`PushConfigStore`] in one SQLite file (WAL mode,
/// `synchronous=NORMAL`). Cloning shares the pool.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
    path: PathBuf,
}

impl SqliteStore {
    /// Opens (creating it and its parent directory when missing) the SQLite
    /// file at `path` with the default [`SqliteOptions`], and migrates it.
    ///
    /// # Errors
    ///
    /// An [`A2aError::internal`] naming the path when the directory or file
    /// cannot be created or opened, or a migration fails.
    pub async fn open(path: impl AsRef<Path>) -> Result<Self, A2aError> {
        Self::open_with(path, SqliteOptions::default()).await
    }

    /// [`open`](Self::open) with explicit options.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    pub async fn open_with(
        path: impl AsRef<Path>,
        options: SqliteOptions,
    ) -> Result<Self, A2aError> {
        let path = path.as_ref().to_path_buf();
        let shown = path.display();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            tokio::fs::create_dir_all(dir).await.map_err(|e| {
                failed(
                    BACKEND,
                    &format!(
                        "creating the directory {} for sqlite:{shown}",
                        dir.display()
                    ),
                    e,
                )
            })?;
        }
        let connect = SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(options.busy_timeout)
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(options.max_connections)
            // A file's connection cannot be dropped by a server: no ping
            // before each use.
            .test_before_acquire(false)
            .acquire_timeout(options.busy_timeout.max(Duration::from_secs(5)))
            .connect_with(connect)
            .await
            .map_err(|e| failed(BACKEND, &format!("opening sqlite:{shown}"), e))?;
        MIGRATOR
            .run(&pool)
            .await
            .map_err(|e| failed(BACKEND, &format!("migrating sqlite:{shown}"), e))?;
        Ok(Self { pool, path })
    }

    /// The file this store writes.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The connection pool, for queries of your own over the tables (see
    /// the crate docs for the schema).
    #[must_use]
    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// Closes the pool, waiting for its connections to finish.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

#[async_trait]
impl TaskStore for SqliteStore {
    async fn get(&self, task_id: &str) -> Result<Option<(Task, Version)>, A2aError> {
        let row: Option<(String, i64)> =
            sqlx::query_as("SELECT task, version FROM a2a_tasks WHERE id = ?1")
                .bind(task_id)
                .fetch_optional(&self.pool)
                .await
                .map_err(|e| failed(BACKEND, &format!("reading task {task_id}"), e))?;
        row.map(|row| decode_task_row(BACKEND, task_id, row))
            .transpose()
    }

    async fn save(&self, task: &Task, expected: Option<Version>) -> Result<Version, StoreError> {
        let json = encode_task(BACKEND, task)?;
        let state = task.status.state.as_str();
        let (done, version) = match expected {
            None => {
                let done = sqlx::query(
                    "INSERT INTO a2a_tasks (id, context_id, version, state, task) \
                     VALUES (?1, ?2, 1, ?3, ?4) ON CONFLICT (id) DO NOTHING",
                )
                .bind(&task.id)
                .bind(&task.context_id)
                .bind(state)
                .bind(&json)
                .execute(&self.pool)
                .await
                .map_err(|e| save_failed(BACKEND, &format!("inserting task {}", task.id), e))?;
                (done, 1)
            }
            Some(expected) => {
                let expected = to_db_version(expected)?;
                let next = next_version(expected)?;
                let done = sqlx::query(
                    "UPDATE a2a_tasks SET version = ?1, context_id = ?2, state = ?3, task = ?4, \
                     updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') \
                     WHERE id = ?5 AND version = ?6",
                )
                .bind(next)
                .bind(&task.context_id)
                .bind(state)
                .bind(&json)
                .bind(&task.id)
                .bind(expected)
                .execute(&self.pool)
                .await
                .map_err(|e| save_failed(BACKEND, &format!("updating task {}", task.id), e))?;
                (done, next)
            }
        };
        saved(done.rows_affected(), version)
    }

    async fn delete(&self, task_id: &str) -> Result<bool, A2aError> {
        let done = sqlx::query("DELETE FROM a2a_tasks WHERE id = ?1")
            .bind(task_id)
            .execute(&self.pool)
            .await
            .map_err(|e| failed(BACKEND, &format!("deleting task {task_id}"), e))?;
        Ok(done.rows_affected() > 0)
    }
}

#[async_trait]
impl PushConfigStore for SqliteStore {
    async fn set(&self, task_id: &str, config: PushNotificationConfig) -> Result<(), A2aError> {
        let json = encode_config(BACKEND, task_id, &config)?;
        sqlx::query(
            "INSERT INTO a2a_push_configs (task_id, config_id, seq, config) \
             VALUES (?1, ?2, \
                     (SELECT COALESCE(MAX(seq), 0) + 1 FROM a2a_push_configs WHERE task_id = ?1), \
                     ?3) \
             ON CONFLICT (task_id, config_id) DO UPDATE SET config = excluded.config",
        )
        .bind(task_id)
        .bind(config_id_of(&config))
        .bind(&json)
        .execute(&self.pool)
        .await
        .map_err(|e| push_failed(BACKEND, "storing a push config", task_id, e))?;
        Ok(())
    }

    async fn get(
        &self,
        task_id: &str,
        config_id: &str,
    ) -> Result<Option<PushNotificationConfig>, A2aError> {
        let row: Option<(String,)> = sqlx::query_as(
            "SELECT config FROM a2a_push_configs WHERE task_id = ?1 AND config_id = ?2",
        )
        .bind(task_id)
        .bind(config_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(|e| push_failed(BACKEND, "reading a push config", task_id, e))?;
        row.map(|(json,)| decode_config(BACKEND, task_id, &json))
            .transpose()
    }

    async fn list(&self, task_id: &str) -> Result<Vec<PushNotificationConfig>, A2aError> {
        let rows: Vec<(String,)> =
            sqlx::query_as("SELECT config FROM a2a_push_configs WHERE task_id = ?1 ORDER BY seq")
                .bind(task_id)
                .fetch_all(&self.pool)
                .await
                .map_err(|e| push_failed(BACKEND, "listing push configs", task_id, e))?;
        decode_configs(BACKEND, task_id, &rows)
    }

    async fn delete(&self, task_id: &str, config_id: &str) -> Result<bool, A2aError> {
        let done =
            sqlx::query("DELETE FROM a2a_push_configs WHERE task_id = ?1 AND config_id = ?2")
                .bind(task_id)
                .bind(config_id)
                .execute(&self.pool)
                .await
                .map_err(|e| push_failed(BACKEND, "deleting a push config", task_id, e))?;
        Ok(done.rows_affected() > 0)
    }
}
