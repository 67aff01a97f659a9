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

/// The concurrent maps of the engine and the in-memory stores (keyed by task
/// id), with a randomly seeded foldhash instead of SipHash.
pub(crate) type Map<K, V> = dashmap::DashMap<K, V, foldhash::fast::RandomState>;

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
    rfc3339_millis(chrono::Utc::now())
}

/// `t` as `YYYY-MM-DDTHH:MM:SS.mmmZ`, written digit by digit (what
/// `to_rfc3339_opts(SecondsFormat::Millis, true)` prints, without the `fmt`
/// machinery); years outside 0..=9999 and leap seconds go through chrono.
fn rfc3339_millis(t: chrono::DateTime<chrono::Utc>) -> String {
    use chrono::{Datelike, Timelike};
    // The naive date and time once (each accessor of a `DateTime` would
    // convert it again).
    let utc = t.naive_utc();
    let (date, time) = (utc.date(), utc.time());
    let year = date.year();
    let nanos = time.nanosecond();
    if !(0..=9999).contains(&year) || nanos >= 1_000_000_000 {
        return t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    }
    fn put(buf: &mut [u8], mut n: u32) {
        for b in buf.iter_mut().rev() {
            *b = b'0' + (n % 10) as u8;
            n /= 10;
        }
    }
    let mut buf = *b"0000-00-00T00:00:00.000Z";
    put(&mut buf[0..4], year.unsigned_abs());
    put(&mut buf[5..7], date.month());
    put(&mut buf[8..10], date.day());
    put(&mut buf[11..13], time.hour());
    put(&mut buf[14..16], time.minute());
    put(&mut buf[17..19], time.second());
    put(&mut buf[20..23], nanos / 1_000_000);
    String::from_utf8(buf.to_vec()).expect("ASCII digits and separators")
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

    #[test]
    fn timestamps_match_chrono() {
        use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
        let chrono_form = |t: DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Millis, true);
        let now = Utc::now();
        assert_eq!(rfc3339_millis(now), chrono_form(now));
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut samples = vec![
            0,
            1,
            999,
            -1,
            -62_167_219_200_000, // 0000-01-01T00:00:00Z
            253_402_300_799_999, // 9999-12-31T23:59:59.999Z
            253_402_300_800_000, // 10000-01-01: chrono's form
            -62_167_219_200_001, // year -1: chrono's form
            951_782_400_123,     // 2000-02-29
        ];
        for _ in 0..10_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            samples.push(i64::try_from(seed % 300_000_000_000_000).unwrap() - 62_000_000_000_000);
        }
        for ms in samples {
            let t = Utc.timestamp_millis_opt(ms).unwrap();
            let t = t + chrono::Duration::nanoseconds(i64::from(
                u32::try_from(ms).unwrap_or(7) % 1_000_000,
            ));
            assert_eq!(rfc3339_millis(t), chrono_form(t), "{ms}");
        }
        let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
            .unwrap()
            .and_hms_milli_opt(23, 59, 59, 1_500)
            .unwrap()
            .and_utc();
        assert_eq!(rfc3339_millis(leap), chrono_form(leap));
        let s = now_rfc3339();
        assert_eq!(s.len(), 24);
        assert!(DateTime::parse_from_rfc3339(&s).is_ok(), "{s}");
    }
}
