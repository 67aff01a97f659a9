//! What both backends share: JSON encoding, version conversion, error
//! messages.

use a2a_core::{StoreError, Version};
use a2a_types::{A2aError, PushNotificationConfig, Task};

/// An [`A2aError::internal`] saying which store and operation failed.
pub(crate) fn failed(backend: &str, what: &str, e: impl std::fmt::Display) -> A2aError {
    A2aError::internal(format!("{backend} store: {what} failed: {e}"))
}

/// `Failed(failed(…))` for the [`TaskStore::save`](a2a_core::TaskStore::save)
/// path.
pub(crate) fn save_failed(backend: &str, what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Failed(failed(backend, what, e))
}

/// [`failed`] for an operation on the push configs of a task: `doing` (e.g.
/// `"storing a push config"`) `of task {task_id}`.
pub(crate) fn push_failed(
    backend: &str,
    doing: &str,
    task_id: &str,
    e: impl std::fmt::Display,
) -> A2aError {
    failed(backend, &format!("{doing} of task {task_id}"), e)
}

/// The task as the JSON text stored in the `task` column.
pub(crate) fn encode_task(backend: &str, task: &Task) -> Result<String, StoreError> {
    serde_json::to_string(task)
        .map_err(|e| save_failed(backend, &format!("encoding task {}", task.id), e))
}

/// The task from the `task` column.
fn decode_task(backend: &str, id: &str, json: &str) -> Result<Task, A2aError> {
    serde_json::from_str(json)
        .map_err(|e| failed(backend, &format!("decoding stored task {id}"), e))
}

/// The config as the JSON text stored in the `config` column.
pub(crate) fn encode_config(
    backend: &str,
    task_id: &str,
    config: &PushNotificationConfig,
) -> Result<String, A2aError> {
    serde_json::to_string(config)
        .map_err(|e| push_failed(backend, "encoding a push config", task_id, e))
}

/// The config from the `config` column.
pub(crate) fn decode_config(
    backend: &str,
    task_id: &str,
    json: &str,
) -> Result<PushNotificationConfig, A2aError> {
    serde_json::from_str(json)
        .map_err(|e| push_failed(backend, "decoding a stored push config", task_id, e))
}

/// The `version` column value of a [`Version`]; a version beyond `i64::MAX`
/// cannot be stored, so no row has it: a conflict.
pub(crate) fn to_db_version(v: Version) -> Result<i64, StoreError> {
    i64::try_from(v).map_err(|_| StoreError::Conflict)
}

/// The [`Version`] of a `version` column value.
fn from_db_version(backend: &str, id: &str, v: i64) -> Result<Version, A2aError> {
    Version::try_from(v).map_err(|_| {
        failed(
            backend,
            &format!("reading task {id}"),
            format!("invalid stored version {v}"),
        )
    })
}

/// The `version` after an update from `expected`.
pub(crate) fn next_version(expected: i64) -> Result<i64, StoreError> {
    expected.checked_add(1).ok_or(StoreError::Conflict)
}

/// A `(task, version)` row of `a2a_tasks`, as
/// [`TaskStore::get`](a2a_core::TaskStore::get) returns it.
pub(crate) fn decode_task_row(
    backend: &str,
    id: &str,
    (json, version): (String, i64),
) -> Result<(Task, Version), A2aError> {
    Ok((
        decode_task(backend, id, &json)?,
        from_db_version(backend, id, version)?,
    ))
}

/// The result of a save statement (an insert that does nothing on an
/// existing id, or an update guarded by the expected version) that affected
/// `rows` rows: `version` when it wrote the row, else a conflict.
pub(crate) fn saved(rows: u64, version: i64) -> Result<Version, StoreError> {
    if rows == 1 {
        Ok(version.cast_unsigned())
    } else {
        Err(StoreError::Conflict)
    }
}

/// The `config_id` column value of a config: a config without an id is
/// stored (and found) under the empty id.
pub(crate) fn config_id_of(config: &PushNotificationConfig) -> &str {
    config.id.as_deref().unwrap_or_default()
}

/// The configs from the `config` column of rows.
pub(crate) fn decode_configs(
    backend: &str,
    task_id: &str,
    rows: &[(String,)],
) -> Result<Vec<PushNotificationConfig>, A2aError> {
    rows.iter()
        .map(|(json,)| decode_config(backend, task_id, json))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_convert() {
        assert_eq!(to_db_version(7), Ok(7));
        assert_eq!(to_db_version(u64::MAX), Err(StoreError::Conflict));
        assert_eq!(next_version(i64::MAX), Err(StoreError::Conflict));
        assert!(from_db_version("x", "t", -1).is_err());
    }
}
