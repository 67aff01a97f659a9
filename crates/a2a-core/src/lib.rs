//! The transport-neutral A2A engine.
//!
//! - [`RequestHandler`]: one method per protocol operation; every transport
//!   adapter (JSON-RPC, gRPC, HTTP+JSON) decodes its wire format, calls it and
//!   encodes the answer.
//! - [`DefaultRequestHandler`]: the implementation, built from an
//!   [`AgentExecutor`] (the agent's logic), a [`TaskStore`], a
//!   [`PushConfigStore`] and an optional [`PushSender`].
//! - [`AgentExecutor`] and [`TaskUpdater`]: what agent authors write.
//!
//! This crate knows nothing of HTTP, JSON-RPC framing, gRPC or protobuf.
//!
//! ```
//! use a2a_core::{AgentExecutor, CallContext, DefaultRequestHandler, EventSink, RequestContext, RequestHandler};
//! use a2a_types::{A2aError, AgentCapabilities, AgentCard, Message, MessageSendParams, Part, SendMessageResult, TaskState};
//!
//! struct Echo;
//!
//! #[async_trait::async_trait]
//! impl AgentExecutor for Echo {
//!     async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
//!         let task = ctx.updater(events);
//!         task.add_artifact(vec![Part::text(ctx.user_text())], "echo", Some("echo"), false, true).await?;
//!         task.complete(None).await
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! # let card: AgentCard = serde_json::from_value(serde_json::json!({"protocolVersion":"0.3.0","name":"echo","description":"d",
//! #   "url":"http://127.0.0.1/","version":"1","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]})).unwrap();
//! let handler = DefaultRequestHandler::builder(card, Echo).build();
//! let reply = handler
//!     .send_message(&CallContext::default(), MessageSendParams::new(Message::user_text("m-1", "hi")))
//!     .await
//!     .unwrap();
//! let SendMessageResult::Task(task) = reply else { panic!("expected a task") };
//! assert_eq!(task.status.state, TaskState::Completed);
//! assert_eq!(task.artifacts.unwrap()[0].text(), "hi");
//! # }
//! ```
//!
//! | feature | what | default |
//! |---|---|---|
//! | `test-util` | [`test_util::ScriptedExecutor`], an executor with closure fields for tests; [`test_util::EchoExecutor`], the echo agent of the adapters' benches | no |

mod cluster;
mod engine;
mod executor;
mod handler;
mod push;
mod retention;
mod store;
#[cfg(feature = "test-util")]
pub mod test_util;

pub use cluster::{Cluster, ClusterMessage, ClusterTiming};
pub use engine::{
    DEFAULT_EVENT_CAPACITY, DefaultRequestHandler, DefaultRequestHandlerBuilder, EventSink,
};
pub use executor::{AgentExecutor, RequestContext, TaskUpdater};
pub use handler::{CallContext, EventStream, RequestHandler};
pub use push::PushSender;
pub use retention::Retention;
pub use store::{
    InMemoryPushConfigStore, InMemoryTaskStore, PushConfigStore, StoreError, TaskStore, Version,
};

/// A fresh random id (UUID v4), as used for task, context and message ids.
#[must_use]
pub fn new_id() -> String {
    // The hyphenated lower-case form, written without the `fmt` machinery.
    let mut buf = [0u8; uuid::fmt::Hyphenated::LENGTH];
    (*uuid::Uuid::new_v4().hyphenated().encode_lower(&mut buf)).to_owned()
}

/// The current time as RFC 3339 with milliseconds and `Z`.
#[must_use]
pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_hyphenated_lower_case_uuids() {
        let id = new_id();
        assert_eq!(id.len(), 36);
        let parsed = uuid::Uuid::parse_str(&id).expect("a uuid");
        assert_eq!(parsed.to_string(), id);
        assert_eq!(parsed.get_version_num(), 4);
    }
}
