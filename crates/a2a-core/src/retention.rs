//! Eviction of finished tasks: [`Retention`].
//!
//! When a task reaches a terminal state the engine hands its id to a sweeper
//! task over a bounded channel (no lock on the request path). The sweeper
//! keeps the ids in completion order and deletes the oldest from the task
//! store (and their push configs) once there are more than
//! [`Retention::max_terminal_tasks`] of them or they are older than
//! [`Retention::max_age`]. Tasks that are not terminal are never evicted.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::{PushConfigStore, TaskStore};

/// How long finished (terminal) tasks are kept. The default keeps them all.
///
/// ```
/// # use std::time::Duration;
/// let keep_recent = a2a_core::Retention::default()
///     .max_terminal_tasks(100_000)
///     .max_age(Duration::from_secs(3600));
/// # let _ = keep_recent;
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Retention {
    /// Keep at most this many terminal tasks (the most recently finished).
    pub max_terminal_tasks: Option<usize>,
    /// Keep terminal tasks at most this long after they finished.
    pub max_age: Option<Duration>,
}

impl Retention {
    /// Keep at most `n` terminal tasks.
    #[must_use]
    pub fn max_terminal_tasks(mut self, n: usize) -> Self {
        self.max_terminal_tasks = Some(n);
        self
    }

    /// Keep terminal tasks at most `age` after they finished.
    #[must_use]
    pub fn max_age(mut self, age: Duration) -> Self {
        self.max_age = Some(age);
        self
    }

    /// True when this policy evicts anything.
    #[must_use]
    pub fn is_active(&self) -> bool {
        self.max_terminal_tasks.is_some() || self.max_age.is_some()
    }
}

/// Capacity of the channel from the engine to the sweeper; a full channel
/// makes the finishing task wait (backpressure), it never grows.
const CHANNEL_CAPACITY: usize = 4096;

/// The engine's side: started lazily, inside the runtime, on the first
/// terminal task.
pub(crate) struct Sweeper {
    policy: Retention,
    tx: std::sync::OnceLock<mpsc::Sender<String>>,
}

impl Sweeper {
    pub(crate) fn new(policy: Retention) -> Option<Self> {
        policy.is_active().then(|| Self {
            policy,
            tx: std::sync::OnceLock::new(),
        })
    }

    /// Records that `task_id` just reached a terminal state.
    pub(crate) async fn finished(
        &self,
        task_id: &str,
        tasks: &Arc<dyn TaskStore>,
        push_configs: &Arc<dyn PushConfigStore>,
    ) {
        let tx = self.tx.get_or_init(|| {
            let (tx, rx) = mpsc::channel(CHANNEL_CAPACITY);
            tokio::spawn(sweep(
                rx,
                self.policy,
                Arc::clone(tasks),
                Arc::clone(push_configs),
            ));
            tx
        });
        let _ = tx.send(task_id.to_owned()).await;
    }
}

async fn sweep(
    mut finished: mpsc::Receiver<String>,
    policy: Retention,
    tasks: Arc<dyn TaskStore>,
    push_configs: Arc<dyn PushConfigStore>,
) {
    let mut queue: VecDeque<(Instant, String)> = VecDeque::new();
    loop {
        let expiry = policy
            .max_age
            .and_then(|age| queue.front().map(|(at, _)| *at + age));
        let next = tokio::select! {
            next = finished.recv() => next,
            () = async {
                match expiry {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            } => {
                let now = Instant::now();
                while let (Some(age), Some((at, _))) = (policy.max_age, queue.front()) {
                    if *at + age > now {
                        break;
                    }
                    let (_, id) = queue.pop_front().expect("front exists");
                    evict(&id, &tasks, &push_configs).await;
                }
                continue;
            }
        };
        let Some(id) = next else { break };
        queue.push_back((Instant::now(), id));
        if let Some(max) = policy.max_terminal_tasks {
            while queue.len() > max {
                let (_, id) = queue.pop_front().expect("len > max >= 0");
                evict(&id, &tasks, &push_configs).await;
            }
        }
    }
}

async fn evict(task_id: &str, tasks: &Arc<dyn TaskStore>, push_configs: &Arc<dyn PushConfigStore>) {
    if let Err(e) = tasks.delete(task_id).await {
        tracing::warn!(%task_id, error = %e, "could not evict a finished task");
        return;
    }
    match push_configs.list(task_id).await {
        Ok(configs) => {
            for c in configs {
                if let Some(id) = c.id.as_deref() {
                    let _ = push_configs.delete(task_id, id).await;
                }
            }
        }
        Err(e) => tracing::warn!(%task_id, error = %e, "could not evict push configs"),
    }
    tracing::trace!(%task_id, "evicted finished task");
}
