//! Sending push notifications: the [`PushSender`] trait. The engine calls it
//! after every change of a task that has push-notification configs; the
//! HTTP implementation lives with the server (this crate does no I/O).

use a2a_types::{A2aError, PushNotificationConfig, Task};
use async_trait::async_trait;

/// Delivers a task update to one webhook.
///
/// The payload is the task in its JSON-RPC shape; implementations send the
/// config's `token` as `X-A2A-Notification-Token`.
#[async_trait]
pub trait PushSender: Send + Sync + 'static {
    /// Delivers `task` to the webhook of `config`.
    async fn send(&self, config: &PushNotificationConfig, task: &Task) -> Result<(), A2aError>;
}
