//! The A2A protocol v0.3.0 data model, in the shape of its JSON Schema (the
//! JSON-RPC binding): `kind` discriminators, camelCase names, optional fields
//! omitted when absent.
//!
//! This crate is an API boundary: it has no async runtime and does no I/O.
//! The other bindings (gRPC, HTTP+JSON) convert to and from these types in
//! `a2a-pb`.
//!
//! ```
//! use a2a_types::{Message, Part, Role, Task, TaskState};
//!
//! let msg = Message::user_text("m-1", "hello");
//! let json = serde_json::to_value(&msg).unwrap();
//! assert_eq!(json["kind"], "message");
//! assert_eq!(json["parts"][0], serde_json::json!({"kind": "text", "text": "hello"}));
//!
//! let task: Task = serde_json::from_value(serde_json::json!({
//!     "kind": "task", "id": "t-1", "contextId": "c-1",
//!     "status": {"state": "input-required"}
//! })).unwrap();
//! assert!(task.status.state.is_interrupted());
//! # let _ = (Part::text("x"), Role::User, TaskState::Working);
//! ```
//!
//! | module | what |
//! |---|---|
//! | [`message`] | [`Message`], [`Part`], files and data |
//! | [`task`] | [`Task`], [`TaskStatus`], [`TaskState`], [`Artifact`], the update events, the result enums |
//! | [`card`] | [`AgentCard`] and its parts, security schemes |
//! | [`push`] | push-notification configs |
//! | [`params`] | the `*Params` of every operation |
//! | [`error`] | [`A2aError`], the one error type |
//! | [`jsonrpc`] | the JSON-RPC 2.0 envelope and method names |
//! | [`json`] | a compact JSON writer with `serde_json`'s exact bytes, faster on strings (the adapters' answers) |

pub mod card;
pub mod error;
pub mod json;
pub mod jsonrpc;
pub mod message;
pub mod params;
pub mod push;
pub mod task;

pub use card::*;
pub use error::{A2aError, SPEC_ERROR_CODES};
pub use message::*;
pub use params::*;
pub use push::*;
pub use task::*;

/// Free-form extension metadata: a JSON object.
pub type Metadata = serde_json::Map<String, serde_json::Value>;

/// The concatenated text of the text parts.
#[must_use]
pub fn parts_text(parts: &[Part]) -> String {
    let mut out = String::new();
    for p in parts {
        if let Part::Text(t) = p {
            out.push_str(&t.text);
        }
    }
    out
}
