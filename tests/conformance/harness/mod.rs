//! The harness: the servers under test ([`server`]), the neutral vocabulary
//! ([`model`]), the [`Driver`] trait, and one driver per transport. Each
//! driver builds its wire payloads by hand (JSON-RPC `json!` literals,
//! protobuf-JSON literals, protobuf structs field by field) and reads the
//! answers by hand, so a bug in the shared serde or conversion code cannot
//! hide by being on both sides of the wire.

pub(crate) mod grpc;
pub(crate) mod in_process;
pub(crate) mod jsonrpc;
pub(crate) mod model;
pub(crate) mod rest;
pub(crate) mod server;
mod sse;

use std::ops::Deref;

use async_trait::async_trait;

pub(crate) use model::*;
pub(crate) use server::{PROBE_HEADER, QUESTION, open_gate, task_of_message};

/// The transport a driver speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    JsonRpc,
    Grpc,
    Rest,
    InProcess,
}

impl Kind {
    /// The transport name in agent cards (`None` in process).
    pub(crate) fn card_name(self) -> Option<&'static str> {
        match self {
            Self::JsonRpc => Some("JSONRPC"),
            Self::Grpc => Some("GRPC"),
            Self::Rest => Some("HTTP+JSON"),
            Self::InProcess => None,
        }
    }
}

/// Every A2A operation, in neutral terms, on one transport.
#[async_trait]
pub(crate) trait Driver: Send + Sync {
    fn kind(&self) -> Kind;

    /// The URL this driver talks to, as an agent card would declare it
    /// (`None` in process).
    fn url(&self) -> Option<String>;

    /// Card discovery: `GET /.well-known/agent-card.json` on the HTTP
    /// listeners, `GetAgentCard` on gRPC, `agent_card()` in process.
    async fn card(&self) -> Result<CardView, WireError>;

    /// The authenticated extended card operation.
    async fn extended_card(&self) -> Result<CardView, WireError>;

    async fn send(&self, send: &UserMessage) -> Result<Reply, WireError>;

    async fn stream(&self, send: &UserMessage) -> Result<Events, WireError>;

    async fn get(&self, task_id: &str, history_length: Option<i32>) -> Result<TaskView, WireError>;

    async fn cancel(&self, task_id: &str) -> Result<TaskView, WireError>;

    async fn resubscribe(&self, task_id: &str) -> Result<Events, WireError>;

    async fn set_push(&self, task_id: &str, push: &PushSpec) -> Result<PushView, WireError>;

    async fn get_push(&self, task_id: &str, config_id: &str) -> Result<PushView, WireError>;

    async fn list_push(&self, task_id: &str) -> Result<Vec<PushView>, WireError>;

    async fn delete_push(&self, task_id: &str, config_id: &str) -> Result<(), WireError>;

    /// A request broken below the A2A level; `None` when the transport
    /// cannot express it.
    async fn framing(&self, framing: Framing) -> Option<WireError>;
}

/// A transport under test: its driver for the main agent (what `Deref`
/// gives) and for the bare agent (no streaming, no push, no extended card).
pub(crate) struct Target {
    pub(crate) main: Box<dyn Driver>,
    pub(crate) bare: Box<dyn Driver>,
}

impl Deref for Target {
    type Target = dyn Driver;

    fn deref(&self) -> &Self::Target {
        &*self.main
    }
}

pub(crate) async fn jsonrpc() -> Target {
    let s = server::servers();
    Target {
        main: Box::new(jsonrpc::JsonRpc::new(&s.main.jsonrpc)),
        bare: Box::new(jsonrpc::JsonRpc::new(&s.bare.jsonrpc)),
    }
}

pub(crate) async fn grpc() -> Target {
    let s = server::servers();
    Target {
        main: Box::new(grpc::Grpc::connect(&s.main.grpc).await),
        bare: Box::new(grpc::Grpc::connect(&s.bare.grpc).await),
    }
}

pub(crate) async fn rest() -> Target {
    let s = server::servers();
    Target {
        main: Box::new(rest::Rest::new(&s.main.rest)),
        bare: Box::new(rest::Rest::new(&s.bare.rest)),
    }
}

pub(crate) async fn in_process() -> Target {
    let s = server::servers();
    Target {
        main: Box::new(in_process::InProcess::new(
            std::sync::Arc::clone(&s.main_handler),
            s.runtime.clone(),
        )),
        bare: Box::new(in_process::InProcess::new(
            std::sync::Arc::clone(&s.bare_handler),
            s.runtime.clone(),
        )),
    }
}

/// Unwraps an expected error.
#[track_caller]
pub(crate) fn expect_err<T: std::fmt::Debug>(
    result: Result<T, WireError>,
    what: &str,
) -> WireError {
    match result {
        Err(e) => e,
        Ok(v) => panic!("{what}: expected an error, got {v:?}"),
    }
}

/// Asserts an A2A error code.
#[track_caller]
pub(crate) fn assert_code<T: std::fmt::Debug>(
    result: Result<T, WireError>,
    code: i32,
    what: &str,
) -> WireError {
    let e = expect_err(result, what);
    assert_eq!(e.code, Some(code), "{what}: {e:?}");
    e
}

/// Polls `get` until the task is in `state` (bounded).
pub(crate) async fn wait_for_state(
    d: &dyn Driver,
    task_id: &str,
    state: a2a_types::TaskState,
) -> TaskView {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let task = d.get(task_id, None).await.expect("get");
        if task.state == state {
            return task;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "task {task_id} never reached {state}: {task:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}
