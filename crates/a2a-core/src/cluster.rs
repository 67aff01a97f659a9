//! Several replicas of one agent sharing one store: the [`Cluster`] trait.
//!
//! With a cluster configured, a client may call any replica for any
//! operation:
//!
//! - every change a replica stores is also [published](Cluster::publish)
//!   with its store version, so `tasks/resubscribe` on another replica
//!   streams the snapshot and then the live events of an execution running
//!   elsewhere (events at or below the snapshot's version are skipped: no gap,
//!   no duplicate);
//! - `tasks/cancel` on a replica that does not run the task
//!   [asks](Cluster::request_cancel) the replica that does, and waits for the
//!   terminal state;
//! - a replica running an execution holds a [lease](Cluster::renew) on the
//!   task and renews it; when a replica dies its leases
//!   [expire](Cluster::take_expired) and another replica fails the task with a
//!   clear status message, so it never stays `working` forever;
//! - follow-up messages and writes racing across replicas are settled by the
//!   store's optimistic versions (see [`TaskStore`](crate::TaskStore)).
//!
//! `a2a-store-sql` implements it on PostgreSQL (LISTEN/NOTIFY and a lease
//! table).

use std::time::Duration;

use std::sync::Arc;

use a2a_types::{A2aError, StreamResponse};
use async_trait::async_trait;
use tokio::sync::broadcast;

use crate::Version;

/// A message from another replica.
#[derive(Debug, Clone, PartialEq)]
pub enum ClusterMessage {
    /// A change of a task, stored with `version` by the replica running it.
    Event {
        /// The task.
        task_id: String,
        /// The store version after the change.
        version: Version,
        /// The event, as that replica's local subscribers saw it (shared:
        /// the replica's own subscribers, its remote feed and the message
        /// hold the same one).
        event: Arc<StreamResponse>,
    },
    /// Somebody asked to cancel a task: the replica running it cancels it.
    Cancel {
        /// The task.
        task_id: String,
    },
    /// No execution of the task is in flight any more on the replica that
    /// ran it: streams elsewhere end.
    Idle {
        /// The task.
        task_id: String,
    },
}

/// The link between replicas. Implementations must deliver the messages of
/// one task in the order they were published, and must not deliver a
/// replica's own messages back to it.
#[async_trait]
pub trait Cluster: Send + Sync + 'static {
    /// This replica's unique id.
    fn replica_id(&self) -> &str;

    /// Tells the other replicas about a message.
    async fn publish(&self, message: &ClusterMessage) -> Result<(), A2aError>;

    /// Messages from the other replicas. Subscribe before reading the state
    /// the messages change, so none is missed.
    fn subscribe(&self) -> broadcast::Receiver<ClusterMessage>;

    /// Claims or renews this replica's lease on a task it executes, for `ttl`.
    async fn renew(&self, task_id: &str, ttl: Duration) -> Result<(), A2aError>;

    /// Gives up this replica's lease on a task (its executions ended).
    async fn release(&self, task_id: &str) -> Result<(), A2aError>;

    /// The replica holding a live lease on the task, if any.
    async fn owner(&self, task_id: &str) -> Result<Option<String>, A2aError>;

    /// Removes the expired leases and returns their tasks; each expired lease
    /// is returned to exactly one caller.
    async fn take_expired(&self) -> Result<Vec<String>, A2aError>;
}

/// Timing of the cluster's background work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClusterTiming {
    /// How long a lease lasts without renewal (default 15 s). A task whose
    /// replica died is failed this long (plus one sweep interval) after the
    /// last renewal.
    pub lease_ttl: Duration,
    /// How long `tasks/cancel` waits for the replica running the task before
    /// canceling it itself (default 5 s).
    pub cancel_wait: Duration,
}

impl Default for ClusterTiming {
    fn default() -> Self {
        Self {
            lease_ttl: Duration::from_secs(15),
            cancel_wait: Duration::from_secs(5),
        }
    }
}

impl ClusterTiming {
    /// Sets the lease time-to-live.
    #[must_use]
    pub fn lease_ttl(mut self, ttl: Duration) -> Self {
        self.lease_ttl = ttl;
        self
    }

    /// Sets how long a remote cancel waits.
    #[must_use]
    pub fn cancel_wait(mut self, wait: Duration) -> Self {
        self.cancel_wait = wait;
        self
    }
}
