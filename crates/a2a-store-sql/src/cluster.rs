//! [`PgCluster`]: the [`Cluster`] link between replicas sharing one
//! PostgreSQL database (an event table with LISTEN/NOTIFY, a lease table).

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::{Cluster, ClusterMessage, Version};
use a2a_types::{A2aError, StreamResponse};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgListener, PgPoolOptions};
use tokio::sync::{Mutex, broadcast};
use tokio::task::AbortHandle;

use crate::common::failed;
use crate::postgres::MIGRATOR;
use crate::url::redact_url;

const BACKEND: &str = "PostgreSQL cluster";

/// The NOTIFY channel; the payload is the id of the new event row.
const CHANNEL: &str = "a2a_cluster";

/// Run at the start of a publishing transaction. Publishers serialise on a
/// transaction-scoped advisory lock (key 0x6132_6163_6c75_7374, "a2aclust"
/// in ASCII), so event ids commit in id order and a reader of `id > last`
/// never skips a row that commits late (PostgreSQL already serialises the
/// commits of notifying transactions, so this costs little). The publish
/// fails rather than wait more than 10 s for the lock, and the server ends a
/// session that stays idle inside the transaction (a replica cut off
/// mid-publish) after 10 s, freeing the lock.
const PUBLISH_PREAMBLE: &str = "SET LOCAL lock_timeout = '10s'; \
     SET LOCAL idle_in_transaction_session_timeout = '10s'; \
     SELECT pg_advisory_xact_lock(7003767450163835764)";

/// Rows read per query when catching up.
const PAGE: i64 = 500;

/// Pages read per catch-up at most (the next notification or poll goes on).
const MAX_PAGES: usize = 100;

/// How [`PgCluster`] works in the background.
#[derive(Debug, Clone)]
pub struct PgClusterOptions {
    retention: Duration,
    poll_interval: Duration,
    capacity: usize,
    max_connections: u32,
}

impl Default for PgClusterOptions {
    fn default() -> Self {
        Self {
            retention: Duration::from_secs(600),
            poll_interval: Duration::from_secs(2),
            capacity: 4096,
            max_connections: 4,
        }
    }
}

impl PgClusterOptions {
    /// How long event rows are kept before they are pruned (default 10
    /// minutes). A replica cut off from the database for longer misses the
    /// pruned events.
    #[must_use]
    pub fn event_retention(mut self, retention: Duration) -> Self {
        self.retention = retention;
        self
    }

    /// How often new event rows are read even without a notification, and
    /// old ones pruned (default 2 s; pruning runs at most once a minute).
    /// Notifications make delivery immediate; the poll only bounds the delay
    /// when one was lost.
    #[must_use]
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(10));
        self
    }

    /// The capacity of the channel [`subscribe`](Cluster::subscribe)
    /// returns (default 4096): a subscriber further behind lags.
    #[must_use]
    pub fn capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity.max(1);
        self
    }

    /// The pool size of [`PgCluster::connect_with`] (default 4; one
    /// connection is held by the listener).
    #[must_use]
    pub fn max_connections(mut self, n: u32) -> Self {
        self.max_connections = n.max(2);
        self
    }
}

/// A [`Cluster`] on PostgreSQL: replicas of one agent sharing a database
/// see each other's messages and leases. See the crate docs, "Multi-replica
/// deployment".
///
/// Cloning shares the connection and the background tasks, which stop when
/// the last clone is dropped (or at [`shutdown`](Self::shutdown)).
#[derive(Debug, Clone)]
pub struct PgCluster {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    shared: Arc<Shared>,
    tasks: Vec<AbortHandle>,
}

impl Inner {
    fn stop(&self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What the background tasks share with the handle.
#[derive(Debug)]
struct Shared {
    pool: PgPool,
    id: String,
    tx: broadcast::Sender<ClusterMessage>,
    /// The id of the last event row read (held while reading, so rows are
    /// delivered once and in order).
    last: Mutex<i64>,
}

impl PgCluster {
    /// Connects to `url` with its own pool, migrates the database and starts
    /// listening. `replica_id` is this replica's unique id (default: a
    /// random UUID).
    ///
    /// # Errors
    ///
    /// An [`A2aError::internal`] naming the URL (without its password) when
    /// the URL is invalid, the server cannot be reached, or a migration or
    /// `LISTEN` fails.
    pub async fn connect(url: &str, replica_id: Option<String>) -> Result<Self, A2aError> {
        Self::connect_with(url, replica_id, PgClusterOptions::default()).await
    }

    /// [`connect`](Self::connect) with explicit options.
    ///
    /// # Errors
    ///
    /// As [`connect`](Self::connect).
    pub async fn connect_with(
        url: &str,
        replica_id: Option<String>,
        options: PgClusterOptions,
    ) -> Result<Self, A2aError> {
        let shown = redact_url(url);
        let connect = PgConnectOptions::from_str(url)
            .map_err(|e| failed(BACKEND, &format!("parsing the URL {shown}"), e))?
            .application_name("a2a-cluster");
        let pool = PgPoolOptions::new()
            .max_connections(options.max_connections)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(connect)
            .await
            .map_err(|e| failed(BACKEND, &format!("connecting to {shown}"), e))?;
        Self::from_pool(pool, replica_id, options).await
    }

    /// A cluster over the pool of a [`PostgresStore`](crate::PostgresStore)
    /// (its [`pool`](crate::PostgresStore::pool)), or any pool: migrates
    /// the database and starts listening. The listener holds one connection
    /// of the pool for as long as the cluster lives.
    ///
    /// # Errors
    ///
    /// An [`A2aError::internal`] when a migration or `LISTEN` fails.
    pub async fn from_pool(
        pool: PgPool,
        replica_id: Option<String>,
        options: PgClusterOptions,
    ) -> Result<Self, A2aError> {
        MIGRATOR
            .run(&pool)
            .await
            .map_err(|e| failed(BACKEND, "migrating", e))?;
        let mut listener = PgListener::connect_with(&pool)
            .await
            .map_err(|e| failed(BACKEND, "connecting the listener", e))?;
        listener
            .listen(CHANNEL)
            .await
            .map_err(|e| failed(BACKEND, &format!("LISTEN {CHANNEL}"), e))?;
        // Listening first, then the high-water mark: every row committed
        // later is notified.
        let (last,): (i64,) = sqlx::query_as("SELECT coalesce(max(id), 0) FROM a2a_cluster_events")
            .fetch_one(&pool)
            .await
            .map_err(|e| failed(BACKEND, "reading the last event id", e))?;
        let (tx, _) = broadcast::channel(options.capacity);
        let shared = Arc::new(Shared {
            pool,
            id: replica_id.unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
            tx,
            last: Mutex::new(last),
        });
        let listen = tokio::spawn(listen(Arc::clone(&shared), listener)).abort_handle();
        let poll = tokio::spawn(poll(Arc::clone(&shared), options)).abort_handle();
        Ok(Self {
            inner: Arc::new(Inner {
                shared,
                tasks: vec![listen, poll],
            }),
        })
    }

    /// The connection pool.
    #[must_use]
    pub fn pool(&self) -> &PgPool {
        &self.inner.shared.pool
    }

    /// Stops the background work (the listener, the poll and the pruning):
    /// no message from the other replicas arrives any more. Publishing and
    /// the leases still work.
    pub fn shutdown(&self) {
        self.inner.stop();
    }
}

/// Waits for notifications and reads the new rows; after a reconnection
/// (notifications may have been lost meanwhile) reads from the last id seen.
async fn listen(shared: Arc<Shared>, mut listener: PgListener) {
    let mut backoff = Duration::from_millis(100);
    loop {
        match listener.try_recv().await {
            Ok(Some(notification)) => {
                backoff = Duration::from_millis(100);
                if let Ok(id) = notification.payload().parse::<i64>()
                    && id <= *shared.last.lock().await
                {
                    continue;
                }
                shared.catch_up().await;
            }
            Ok(None) => {
                tracing::warn!("cluster listener reconnected; catching up");
                shared.catch_up().await;
            }
            Err(sqlx::Error::PoolClosed) => break,
            Err(e) => {
                tracing::warn!(error = %e, "cluster listener failed; retrying");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(5));
                shared.catch_up().await;
            }
        }
    }
}

/// Reads new rows now and then (a lost notification only delays them) and
/// prunes old rows.
async fn poll(shared: Arc<Shared>, options: PgClusterOptions) {
    let mut tick = tokio::time::interval(options.poll_interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let prune_every = Duration::from_secs(60);
    let mut pruned = tokio::time::Instant::now();
    let mut first = true;
    loop {
        tick.tick().await;
        if shared.pool.is_closed() {
            break;
        }
        shared.catch_up().await;
        if first || pruned.elapsed() >= prune_every {
            first = false;
            pruned = tokio::time::Instant::now();
            let done = sqlx::query(
                "DELETE FROM a2a_cluster_events \
                 WHERE created_at < now() - make_interval(secs => $1)",
            )
            .bind(options.retention.as_secs_f64())
            .execute(&shared.pool)
            .await;
            if let Err(e) = done {
                tracing::warn!(error = %e, "could not prune old cluster events");
            }
        }
    }
}

impl Shared {
    /// Reads the rows after the last one read, in id order, and sends the
    /// other replicas' messages to the subscribers.
    async fn catch_up(&self) {
        let mut last = self.last.lock().await;
        for _ in 0..MAX_PAGES {
            let rows: Result<Vec<(i64, String, String)>, _> = sqlx::query_as(
                "SELECT id, origin, payload FROM a2a_cluster_events \
                 WHERE id > $1 ORDER BY id LIMIT $2",
            )
            .bind(*last)
            .bind(PAGE)
            .fetch_all(&self.pool)
            .await;
            let rows = match rows {
                Ok(rows) => rows,
                Err(e) => {
                    tracing::warn!(error = %e, "could not read cluster events");
                    return;
                }
            };
            let full = i64::try_from(rows.len()).is_ok_and(|n| n == PAGE);
            for (id, origin, payload) in rows {
                *last = id;
                if origin == self.id {
                    continue;
                }
                match serde_json::from_str::<Wire>(&payload) {
                    // No subscriber is not an error.
                    Ok(wire) => drop(self.tx.send(wire.into())),
                    Err(e) => {
                        tracing::warn!(id, error = %e, "skipping an undecodable cluster event");
                    }
                }
            }
            if !full {
                return;
            }
        }
    }
}

/// A [`ClusterMessage`] as stored in `a2a_cluster_events.payload` (JSON; the
/// event in its A2A JSON shape).
#[derive(Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
enum Wire {
    Event {
        task_id: String,
        version: Version,
        event: Arc<StreamResponse>,
    },
    Cancel {
        task_id: String,
    },
    Idle {
        task_id: String,
    },
}

/// The borrowed twin of [`Wire`], for publishing without a clone.
#[derive(Serialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
enum WireRef<'a> {
    Event {
        task_id: &'a str,
        version: Version,
        event: &'a StreamResponse,
    },
    Cancel {
        task_id: &'a str,
    },
    Idle {
        task_id: &'a str,
    },
}

impl<'a> From<&'a ClusterMessage> for WireRef<'a> {
    fn from(m: &'a ClusterMessage) -> Self {
        match m {
            ClusterMessage::Event {
                task_id,
                version,
                event,
            } => Self::Event {
                task_id,
                version: *version,
                event,
            },
            ClusterMessage::Cancel { task_id } => Self::Cancel { task_id },
            ClusterMessage::Idle { task_id } => Self::Idle { task_id },
        }
    }
}

impl From<Wire> for ClusterMessage {
    fn from(w: Wire) -> Self {
        match w {
            Wire::Event {
                task_id,
                version,
                event,
            } => Self::Event {
                task_id,
                version,
                event,
            },
            Wire::Cancel { task_id } => Self::Cancel { task_id },
            Wire::Idle { task_id } => Self::Idle { task_id },
        }
    }
}

fn task_of(m: &ClusterMessage) -> &str {
    match m {
        ClusterMessage::Event { task_id, .. }
        | ClusterMessage::Cancel { task_id }
        | ClusterMessage::Idle { task_id } => task_id,
    }
}

#[async_trait]
impl Cluster for PgCluster {
    fn replica_id(&self) -> &str {
        &self.inner.shared.id
    }

    async fn publish(&self, message: &ClusterMessage) -> Result<(), A2aError> {
        let shared = &self.inner.shared;
        let task_id = task_of(message);
        let what = format!("publishing a message of task {task_id}");
        let payload = serde_json::to_string(&WireRef::from(message))
            .map_err(|e| failed(BACKEND, &what, e))?;
        let mut tx = shared
            .pool
            .begin()
            .await
            .map_err(|e| failed(BACKEND, &what, e))?;
        // One round trip: bounded waits (a replica cut off mid-publish has
        // its session ended by the server, which frees the lock), then the
        // lock.
        sqlx::raw_sql(PUBLISH_PREAMBLE)
            .execute(&mut *tx)
            .await
            .map_err(|e| failed(BACKEND, &what, e))?;
        sqlx::query(
            "WITH e AS (INSERT INTO a2a_cluster_events (origin, task_id, payload) \
             VALUES ($1, $2, $3) RETURNING id) \
             SELECT pg_notify($4, id::text) FROM e",
        )
        .bind(&shared.id)
        .bind(task_id)
        .bind(&payload)
        .bind(CHANNEL)
        .execute(&mut *tx)
        .await
        .map_err(|e| failed(BACKEND, &what, e))?;
        tx.commit().await.map_err(|e| failed(BACKEND, &what, e))
    }

    fn subscribe(&self) -> broadcast::Receiver<ClusterMessage> {
        self.inner.shared.tx.subscribe()
    }

    async fn renew(&self, task_id: &str, ttl: Duration) -> Result<(), A2aError> {
        let shared = &self.inner.shared;
        sqlx::query(
            "INSERT INTO a2a_leases (task_id, owner, expires_at) \
             VALUES ($1, $2, now() + make_interval(secs => $3)) \
             ON CONFLICT (task_id) DO UPDATE \
             SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at",
        )
        .bind(task_id)
        .bind(&shared.id)
        .bind(ttl.as_secs_f64())
        .execute(&shared.pool)
        .await
        .map_err(|e| failed(BACKEND, &format!("renewing the lease of task {task_id}"), e))?;
        Ok(())
    }

    async fn release(&self, task_id: &str) -> Result<(), A2aError> {
        let shared = &self.inner.shared;
        sqlx::query("DELETE FROM a2a_leases WHERE task_id = $1 AND owner = $2")
            .bind(task_id)
            .bind(&shared.id)
            .execute(&shared.pool)
            .await
            .map_err(|e| {
                failed(
                    BACKEND,
                    &format!("releasing the lease of task {task_id}"),
                    e,
                )
            })?;
        Ok(())
    }

    async fn owner(&self, task_id: &str) -> Result<Option<String>, A2aError> {
        let row: Option<(String,)> = sqlx::query_as(
            "SELECT owner FROM a2a_leases WHERE task_id = $1 AND expires_at > now()",
        )
        .bind(task_id)
        .fetch_optional(&self.inner.shared.pool)
        .await
        .map_err(|e| failed(BACKEND, &format!("reading the lease of task {task_id}"), e))?;
        Ok(row.map(|(owner,)| owner))
    }

    async fn take_expired(&self) -> Result<Vec<String>, A2aError> {
        let rows: Vec<(String,)> =
            sqlx::query_as("DELETE FROM a2a_leases WHERE expires_at <= now() RETURNING task_id")
                .fetch_all(&self.inner.shared.pool)
                .await
                .map_err(|e| failed(BACKEND, "taking expired leases", e))?;
        Ok(rows.into_iter().map(|(t,)| t).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_types::{TaskState, TaskStatus, TaskStatusUpdateEvent};

    #[test]
    fn messages_round_trip_through_json() {
        let event = StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: "t".to_owned(),
            context_id: "c".to_owned(),
            status: TaskStatus::new(TaskState::Working),
            is_final: false,
            metadata: None,
        });
        for m in [
            ClusterMessage::Event {
                task_id: "t".to_owned(),
                version: u64::MAX,
                event: Arc::new(event),
            },
            ClusterMessage::Cancel {
                task_id: "t".to_owned(),
            },
            ClusterMessage::Idle {
                task_id: "t".to_owned(),
            },
        ] {
            let json = serde_json::to_string(&WireRef::from(&m)).unwrap();
            let back: ClusterMessage = serde_json::from_str::<Wire>(&json).unwrap().into();
            assert_eq!(back, m, "{json}");
        }
    }
}
