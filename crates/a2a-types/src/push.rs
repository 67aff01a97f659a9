//! Push-notification configuration.

use serde::{Deserialize, Serialize};

/// Where and how the agent sends push notifications for a task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushNotificationConfig {
    /// Id of this configuration; the server assigns one when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The webhook URL.
    pub url: String,
    /// A token sent back as `X-A2A-Notification-Token`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// How the agent authenticates to the webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<PushNotificationAuthenticationInfo>,
}

/// Authentication details for a push-notification endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushNotificationAuthenticationInfo {
    /// Supported schemes (e.g. `Bearer`).
    pub schemes: Vec<String>,
    /// Optional credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
}

/// A push-notification configuration bound to a task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskPushNotificationConfig {
    /// The task.
    pub task_id: String,
    /// The configuration.
    pub push_notification_config: PushNotificationConfig,
}
