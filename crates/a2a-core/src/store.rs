//! Storage traits and their in-memory implementations.
//!
//! The engine is the only writer of tasks (one writer per task, see
//! [`DefaultRequestHandler`](crate::DefaultRequestHandler)); adapters never
//! touch a store. Writes carry the version the writer read, so a store shared
//! by several processes can refuse a stale write instead of losing an update.

use std::sync::Arc;

use crate::Map;
use a2a_types::{A2aError, PushNotificationConfig, Task};
use async_trait::async_trait;

/// The version of a stored task: incremented by every successful write.
pub type Version = u64;

/// Why a store refused or failed a write.
#[derive(Debug, Clone, PartialEq)]
pub enum StoreError {
    /// The stored version is not the one the write was based on (or, for a
    /// create, the task exists already).
    Conflict,
    /// The store failed; the error says why.
    Failed(A2aError),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Conflict => f.write_str("the task was changed by another writer"),
            Self::Failed(e) => write!(f, "store failed: {e}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<StoreError> for A2aError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict => {
                A2aError::internal("task was changed concurrently by another writer")
            }
            StoreError::Failed(e) => e,
        }
    }
}

/// Where tasks live.
#[async_trait]
pub trait TaskStore: Send + Sync + 'static {
    /// The task and its version, or `None` when it does not exist.
    async fn get(&self, task_id: &str) -> Result<Option<(Task, Version)>, A2aError>;

    /// Writes `task`. With `expected: None` the task must not exist yet;
    /// with `Some(v)` the stored version must be `v`. Returns the new version.
    async fn save(&self, task: &Task, expected: Option<Version>) -> Result<Version, StoreError>;

    /// Removes a task; returns whether it existed.
    async fn delete(&self, task_id: &str) -> Result<bool, A2aError>;

    /// [`get`](Self::get), for a caller that only reads the task: a store
    /// that keeps tasks in memory shares its snapshot instead of copying it.
    /// The default wraps [`get`](Self::get).
    async fn get_shared(&self, task_id: &str) -> Result<Option<(Arc<Task>, Version)>, A2aError> {
        Ok(self.get(task_id).await?.map(|(t, v)| (Arc::new(t), v)))
    }

    /// [`save`](Self::save) of a task the caller shares and never mutates: a
    /// store that keeps tasks in memory keeps the `Arc` instead of a copy.
    /// The default calls [`save`](Self::save).
    async fn save_shared(
        &self,
        task: &Arc<Task>,
        expected: Option<Version>,
    ) -> Result<Version, StoreError> {
        self.save(task, expected).await
    }
}

/// A [`TaskStore`] in memory, sharded so that writers of different tasks do
/// not contend on one lock. Snapshots are immutable and shared (`Arc`) with
/// the engine: [`save_shared`](TaskStore::save_shared) and
/// [`get_shared`](TaskStore::get_shared) copy nothing.
#[derive(Debug, Default)]
pub struct InMemoryTaskStore {
    tasks: Map<String, (Arc<Task>, Version)>,
}

impl InMemoryTaskStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// How many tasks are stored.
    #[must_use]
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// True when no task is stored.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }
}

#[async_trait]
impl TaskStore for InMemoryTaskStore {
    async fn get(&self, task_id: &str) -> Result<Option<(Task, Version)>, A2aError> {
        Ok(self.tasks.get(task_id).map(|e| (Task::clone(&e.0), e.1)))
    }

    async fn save(&self, task: &Task, expected: Option<Version>) -> Result<Version, StoreError> {
        self.put(&task.id, expected, || Arc::new(task.clone()))
    }

    async fn delete(&self, task_id: &str) -> Result<bool, A2aError> {
        Ok(self.tasks.remove(task_id).is_some())
    }

    async fn get_shared(&self, task_id: &str) -> Result<Option<(Arc<Task>, Version)>, A2aError> {
        Ok(self.tasks.get(task_id).map(|e| (Arc::clone(&e.0), e.1)))
    }

    async fn save_shared(
        &self,
        task: &Arc<Task>,
        expected: Option<Version>,
    ) -> Result<Version, StoreError> {
        self.put(&task.id, expected, || Arc::clone(task))
    }
}

impl InMemoryTaskStore {
    /// The optimistic write: a create (`expected: None`) inserts a new key;
    /// an update replaces the value in place (no key is allocated).
    fn put(
        &self,
        task_id: &str,
        expected: Option<Version>,
        value: impl FnOnce() -> Arc<Task>,
    ) -> Result<Version, StoreError> {
        use dashmap::mapref::entry::Entry;
        match expected {
            None => match self.tasks.entry(task_id.to_owned()) {
                Entry::Vacant(v) => {
                    v.insert((value(), 1));
                    Ok(1)
                }
                Entry::Occupied(_) => Err(StoreError::Conflict),
            },
            Some(expected) => match self.tasks.get_mut(task_id) {
                Some(mut entry) if entry.1 == expected => {
                    let version = expected + 1;
                    *entry = (value(), version);
                    Ok(version)
                }
                _ => Err(StoreError::Conflict),
            },
        }
    }
}

/// Where push-notification configs live, per task. Config ids are unique
/// within a task; the engine assigns one before calling [`set`](Self::set)
/// when the client gave none.
#[async_trait]
pub trait PushConfigStore: Send + Sync + 'static {
    /// Inserts or replaces the config with `config.id` for the task.
    async fn set(&self, task_id: &str, config: PushNotificationConfig) -> Result<(), A2aError>;

    /// One config of the task.
    async fn get(
        &self,
        task_id: &str,
        config_id: &str,
    ) -> Result<Option<PushNotificationConfig>, A2aError>;

    /// Every config of the task, in insertion order.
    async fn list(&self, task_id: &str) -> Result<Vec<PushNotificationConfig>, A2aError>;

    /// Removes one config; returns whether it existed.
    async fn delete(&self, task_id: &str, config_id: &str) -> Result<bool, A2aError>;
}

/// A [`PushConfigStore`] in memory.
#[derive(Debug, Default)]
pub struct InMemoryPushConfigStore {
    configs: Map<String, Vec<PushNotificationConfig>>,
}

impl InMemoryPushConfigStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

/// The key of a config within its task: its id, `""` when it has none (as
/// the SQL stores key it).
fn config_key(config: &PushNotificationConfig) -> &str {
    config.id.as_deref().unwrap_or_default()
}

#[async_trait]
impl PushConfigStore for InMemoryPushConfigStore {
    async fn set(&self, task_id: &str, config: PushNotificationConfig) -> Result<(), A2aError> {
        let mut list = self.configs.entry(task_id.to_owned()).or_default();
        match list
            .iter_mut()
            .find(|c| config_key(c) == config_key(&config))
        {
            Some(existing) => *existing = config,
            None => list.push(config),
        }
        Ok(())
    }

    async fn get(
        &self,
        task_id: &str,
        config_id: &str,
    ) -> Result<Option<PushNotificationConfig>, A2aError> {
        Ok(self
            .configs
            .get(task_id)
            .and_then(|l| l.iter().find(|c| config_key(c) == config_id).cloned()))
    }

    async fn list(&self, task_id: &str) -> Result<Vec<PushNotificationConfig>, A2aError> {
        Ok(self
            .configs
            .get(task_id)
            .map(|l| l.clone())
            .unwrap_or_default())
    }

    async fn delete(&self, task_id: &str, config_id: &str) -> Result<bool, A2aError> {
        let Some(mut list) = self.configs.get_mut(task_id) else {
            return Ok(false);
        };
        let before = list.len();
        list.retain(|c| config_key(c) != config_id);
        Ok(list.len() != before)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_types::TaskState;

    #[tokio::test]
    async fn optimistic_versions_refuse_stale_writes() {
        let s = InMemoryTaskStore::new();
        let t = Task::new("t", "c", TaskState::Submitted);
        assert_eq!(s.save(&t, None).await, Ok(1));
        assert_eq!(s.save(&t, None).await, Err(StoreError::Conflict));
        assert_eq!(s.save(&t, Some(1)).await, Ok(2));
        assert_eq!(s.save(&t, Some(1)).await, Err(StoreError::Conflict));
        assert_eq!(s.get("t").await.unwrap().unwrap().1, 2);
        assert!(s.delete("t").await.unwrap());
        assert!(s.get("t").await.unwrap().is_none());
    }

    #[tokio::test]
    async fn push_configs_crud() {
        let s = InMemoryPushConfigStore::new();
        let cfg = |id: &str| PushNotificationConfig {
            id: Some(id.into()),
            url: format!("http://x/{id}"),
            token: None,
            authentication: None,
        };
        s.set("t", cfg("a")).await.unwrap();
        s.set("t", cfg("b")).await.unwrap();
        s.set("t", cfg("a")).await.unwrap();
        assert_eq!(s.list("t").await.unwrap().len(), 2);
        assert!(s.get("t", "b").await.unwrap().is_some());
        assert!(s.delete("t", "a").await.unwrap());
        assert!(!s.delete("t", "a").await.unwrap());
        assert_eq!(s.list("t").await.unwrap().len(), 1);
        assert!(s.list("other").await.unwrap().is_empty());
        // A config without an id is keyed `""`, as in the SQL stores: found,
        // replaced (also by an explicit empty id) and deleted under it.
        let mut anonymous = cfg("");
        anonymous.id = None;
        s.set("t", anonymous.clone()).await.unwrap();
        assert_eq!(s.get("t", "").await.unwrap(), Some(anonymous));
        s.set("t", cfg("")).await.unwrap();
        assert_eq!(s.list("t").await.unwrap().len(), 2);
        assert!(s.delete("t", "").await.unwrap());
        assert_eq!(s.list("t").await.unwrap().len(), 1);
    }
}
