//! The cases, each written once against [`Driver`](crate::harness::Driver)
//! and run on every transport by `conformance!` in `main.rs`. Names are
//! behaviour sentences.

mod agent_card;
mod artifacts;
mod cancel;
pub(crate) mod equivalence;
mod errors;
mod get_task;
pub(crate) mod parts;
mod push_config;
mod resubscribe;
mod send_message;
mod stream;

pub(crate) use agent_card::*;
pub(crate) use artifacts::*;
pub(crate) use cancel::*;
pub(crate) use errors::*;
pub(crate) use get_task::*;
pub(crate) use parts::*;
pub(crate) use push_config::*;
pub(crate) use resubscribe::*;
pub(crate) use send_message::*;
pub(crate) use stream::*;
