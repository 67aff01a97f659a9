//! The parameters of each operation (`*Params`).

use serde::{Deserialize, Serialize};

use crate::{Message, Metadata, PushNotificationConfig};

/// Parameters of `message/send` and `message/stream`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSendParams {
    /// The message.
    pub message: Message,
    /// Optional send configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<MessageSendConfiguration>,
    /// Extension metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl MessageSendParams {
    /// Parameters with only the message.
    #[must_use]
    pub fn new(message: Message) -> Self {
        Self {
            message,
            configuration: None,
            metadata: None,
        }
    }

    /// `configuration.blocking`, defaulting to `true` as JSON-RPC does.
    #[must_use]
    pub fn blocking(&self) -> bool {
        self.configuration
            .as_ref()
            .and_then(|c| c.blocking)
            .unwrap_or(true)
    }

    /// `configuration.historyLength`.
    #[must_use]
    pub fn history_length(&self) -> Option<i32> {
        self.configuration.as_ref().and_then(|c| c.history_length)
    }
}

/// How `message/send` should behave.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSendConfiguration {
    /// Output MIME types the client accepts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_output_modes: Option<Vec<String>>,
    /// How many recent messages of history to return (0 or absent: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_length: Option<i32>,
    /// A push-notification config to register for the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notification_config: Option<PushNotificationConfig>,
    /// Wait for a terminal or interrupted state (default `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking: Option<bool>,
}

/// Parameters of `tasks/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskQueryParams {
    /// The task id.
    pub id: String,
    /// How many recent messages of history to return (0 or absent: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_length: Option<i32>,
    /// Extension metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// Parameters naming a task: `tasks/cancel`, `tasks/resubscribe`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// The task id.
    pub id: String,
    /// Extension metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl TaskIdParams {
    /// Parameters with only the id.
    #[must_use]
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            metadata: None,
        }
    }
}

/// Parameters of `tasks/pushNotificationConfig/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskPushNotificationConfigParams {
    /// The task id.
    pub id: String,
    /// The config id; absent means the task's default config (id = task id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notification_config_id: Option<String>,
    /// Extension metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// Parameters of `tasks/pushNotificationConfig/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTaskPushNotificationConfigParams {
    /// The task id.
    pub id: String,
    /// Extension metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// Parameters of `tasks/pushNotificationConfig/delete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeleteTaskPushNotificationConfigParams {
    /// The task id.
    pub id: String,
    /// The config id.
    pub push_notification_config_id: String,
    /// Extension metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}
