//! [`PostgresStore`]: tasks and push configs in PostgreSQL.

use std::str::FromStr;
use std::time::Duration;

use a2a_core::{PushConfigStore, StoreError, TaskStore, Version};
use a2a_types::{A2aError, PushNotificationConfig, Task};
use async_trait::async_trait;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};
use sqlx::{Connection, PgPool};

use crate::common::{
    config_id_of, decode_config, decode_configs, decode_task_row, encode_config, encode_task,
    failed, next_version, push_failed, save_failed, saved, to_db_version,
};
use crate::url::redact_url;

const BACKEND: &str = "PostgreSQL";

/// The migrations embedded from `migrations/postgres`.
pub(crate) static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("migrations/postgres");

/// How [`PostgresStore::connect_with`] connects.
#[derive(Debug, Clone)]
pub struct PostgresOptions {
    max_connections: u32,
    acquire_timeout: Duration,
    ping_before_use: bool,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        Self {
            max_connections: 10,
            acquire_timeout: Duration::from_secs(10),
            ping_before_use: true,
        }
    }
}

impl PostgresOptions {
    /// The pool's size (default 10).
    #[must_use]
    pub fn max_connections(mut self, n: u32) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// How long connecting, or waiting for a free connection of the pool,
    /// may take before the operation fails (default 10 s).
    #[must_use]
    pub fn acquire_timeout(mut self, timeout: Duration) -> Self {
        self.acquire_timeout = timeout;
        self
    }

    /// Whether an idle connection is pinged before each use (default
    /// true): a connection the server or a proxy dropped is then replaced
    /// instead of failing one operation, at the cost of one round trip per
    /// operation.
    #[must_use]
    pub fn ping_before_use(mut self, ping: bool) -> Self {
        self.ping_before_use = ping;
        self
    }
}

/// A [`TaskStore`] and [`PushConfigStore`] in a PostgreSQL database.
/// Cloning shares the pool.
#[derive(Debug, Clone)]
pub struct PostgresStore {
    pool: PgPool,
    url: String,
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user:password@host:port/db?…`) with
    /// the default [`PostgresOptions`] and migrates the database.
    ///
    /// # Errors
    ///
    /// An [`A2aError::internal`] naming the URL (without its password) when
    /// the URL is invalid, the server cannot be reached or refuses the
    /// login, or a migration fails.
    pub async fn connect(url: &str) -> Result<Self, A2aError> {
        Self::connect_with(url, PostgresOptions::default()).await
    }

    /// [`connect`](Self::connect) with explicit options.
    ///
    /// # Errors
    ///
    /// As [`connect`](Self::connect).
    pub async fn connect_with(url: &str, options: PostgresOptions) -> Result<Self, A2aError> {
        let shown = redact_url(url);
        let connect = PgConnectOptions::from_str(url)
            .map_err(|e| failed(BACKEND, &format!("parsing the URL {shown}"), e))?
            .application_name("a2a");
        let pool = PgPoolOptions::new()
            .max_connections(options.max_connections)
            .acquire_timeout(options.acquire_timeout)
            .test_before_acquire(options.ping_before_use)
            .connect_with(connect.clone())
            .await;
        let pool = match pool {
            Ok(pool) => pool,
            // The pool retries a refused connection until the timeout and
            // then only says it timed out: one more attempt tells why.
            Err(sqlx::Error::PoolTimedOut) => {
                let why = match tokio::time::timeout(
                    Duration::from_secs(3),
                    PgConnection::connect_with(&connect),
                )
                .await
                {
                    Ok(Ok(conn)) => {
                        let _ = conn.close().await;
                        "the server answers now".to_owned()
                    }
                    Ok(Err(e)) => e.to_string(),
                    Err(_) => "timed out".to_owned(),
                };
                return Err(failed(
                    BACKEND,
                    &format!("connecting to {shown}"),
                    format!(
                        "no connection within {:?}; last attempt: {why}",
                        options.acquire_timeout
                    ),
                ));
            }
            Err(e) => return Err(failed(BACKEND, &format!("connecting to {shown}"), e)),
        };
        MIGRATOR
            .run(&pool)
            .await
            .map_err(|e| failed(BACKEND, &format!("migrating {shown}"), e))?;
        Ok(Self { pool, url: shown })
    }

    /// The URL connected to, without its password.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The connection pool, for queries of your own over the tables (see
    /// the crate docs for the schema).
    #[must_use]
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Closes the pool, waiting for its connections to finish.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// A failed save: a serialization failure or deadlock (under `REPEATABLE
/// READ` or `SERIALIZABLE` isolation a concurrent update raises one instead
/// of matching no row) is a [`StoreError::Conflict`]; anything else fails.
fn save_error(what: &str, e: sqlx::Error) -> StoreError {
    if let sqlx::Error::Database(db) = &e
        && matches!(db.code().as_deref(), Some("40001" | "40P01"))
    {
        return StoreError::Conflict;
    }
    save_failed(BACKEND, what, e)
}

#[async_trait]
impl TaskStore for PostgresStore {
    async fn get(&self, task_id: &str) -> Result<Option<(Task, Version)>, A2aError> {
        let row: Option<(String, i64)> =
            sqlx::query_as("SELECT task::text, version FROM a2a_tasks WHERE id = $1")
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
                     VALUES ($1, $2, 1, $3, $4::jsonb) ON CONFLICT (id) DO NOTHING",
                )
                .bind(&task.id)
                .bind(&task.context_id)
                .bind(state)
                .bind(&json)
                .execute(&self.pool)
                .await
                .map_err(|e| save_error(&format!("inserting task {}", task.id), e))?;
                (done, 1)
            }
            Some(expected) => {
                let expected = to_db_version(expected)?;
                let next = next_version(expected)?;
                let done = sqlx::query(
                    "UPDATE a2a_tasks SET version = $1, context_id = $2, state = $3, \
                     task = $4::jsonb, updated_at = now() \
                     WHERE id = $5 AND version = $6",
                )
                .bind(next)
                .bind(&task.context_id)
                .bind(state)
                .bind(&json)
                .bind(&task.id)
                .bind(expected)
                .execute(&self.pool)
                .await
                .map_err(|e| save_error(&format!("updating task {}", task.id), e))?;
                (done, next)
            }
        };
        saved(done.rows_affected(), version)
    }

    async fn delete(&self, task_id: &str) -> Result<bool, A2aError> {
        let done = sqlx::query("DELETE FROM a2a_tasks WHERE id = $1")
            .bind(task_id)
            .execute(&self.pool)
            .await
            .map_err(|e| failed(BACKEND, &format!("deleting task {task_id}"), e))?;
        Ok(done.rows_affected() > 0)
    }
}

#[async_trait]
impl PushConfigStore for PostgresStore {
    async fn set(&self, task_id: &str, config: PushNotificationConfig) -> Result<(), A2aError> {
        let json = encode_config(BACKEND, task_id, &config)?;
        sqlx::query(
            "INSERT INTO a2a_push_configs (task_id, config_id, config) VALUES ($1, $2, $3::jsonb) \
             ON CONFLICT (task_id, config_id) DO UPDATE SET config = EXCLUDED.config",
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
            "SELECT config::text FROM a2a_push_configs WHERE task_id = $1 AND config_id = $2",
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
        let rows: Vec<(String,)> = sqlx::query_as(
            "SELECT config::text FROM a2a_push_configs WHERE task_id = $1 ORDER BY seq",
        )
        .bind(task_id)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| push_failed(BACKEND, "listing push configs", task_id, e))?;
        decode_configs(BACKEND, task_id, &rows)
    }

    async fn delete(&self, task_id: &str, config_id: &str) -> Result<bool, A2aError> {
        let done =
            sqlx::query("DELETE FROM a2a_push_configs WHERE task_id = $1 AND config_id = $2")
                .bind(task_id)
                .bind(config_id)
                .execute(&self.pool)
                .await
                .map_err(|e| push_failed(BACKEND, "deleting a push config", task_id, e))?;
        Ok(done.rows_affected() > 0)
    }
}
