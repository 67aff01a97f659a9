//! One scripted scenario through every transport: the transcripts must be
//! equal once ids and timestamps are normalised (spec §3.4.1, §11.1.4:
//! same operations, same results, same errors).

use serde::Serialize;
use serde_json::{Value, json};

use crate::harness::*;

/// An id no task has, the same on every transport (it shows in error
/// messages).
const UNKNOWN: &str = "no-such-task-in-the-scenario";

fn record<T: Serialize>(transcript: &mut Vec<(String, Value)>, step: &str, value: &T) {
    transcript.push((
        step.to_owned(),
        serde_json::to_value(value).expect("a serialisable step"),
    ));
}

/// The scenario, on one transport.
pub(crate) async fn scenario(t: &Target) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let sent = t.send(&UserMessage::text("echo scenario")).await;
    record(&mut out, "send echo", &sent);
    let task = sent.expect("send").task();
    record(
        &mut out,
        "get historyLength 1",
        &t.get(&task.id, Some(1)).await,
    );
    let events = t
        .stream(&UserMessage::text("artifacts"))
        .await
        .expect("stream")
        .all()
        .await;
    record(&mut out, "stream artifacts", &events);
    let asked = t.send(&UserMessage::text("ask")).await;
    record(&mut out, "send ask", &asked);
    let asked = asked.expect("send").task();
    let set = t
        .set_push(
            &asked.id,
            &PushSpec {
                id: Some("cfg".to_owned()),
                url: "http://127.0.0.1:9/hook".to_owned(),
                token: Some("tok".to_owned()),
            },
        )
        .await;
    record(&mut out, "set push", &set);
    record(&mut out, "list push", &t.list_push(&asked.id).await);
    let answered = t.send(&UserMessage::text("Ada").follow_up(&asked)).await;
    record(&mut out, "send answer", &answered);
    record(&mut out, "get answered", &t.get(&asked.id, None).await);
    record(&mut out, "cancel completed", &t.cancel(&task.id).await);
    record(&mut out, "get unknown", &t.get(UNKNOWN, None).await);
    record(&mut out, "cancel unknown", &t.cancel(UNKNOWN).await);
    let resubscribed = t
        .resubscribe(&task.id)
        .await
        .expect("resubscribe")
        .all()
        .await;
    record(&mut out, "resubscribe completed", &resubscribed);
    record(
        &mut out,
        "send reply",
        &t.send(&UserMessage::text("reply hi")).await,
    );
    let mut parts = UserMessage::text("parts");
    parts.extra = super::parts::rich_parts();
    parts.metadata = Some(super::parts::metadata());
    record(&mut out, "send parts", &t.send(&parts).await);
    record(
        &mut out,
        "send error -32050",
        &t.send(&UserMessage::text("error -32050")).await,
    );
    let bare = t
        .bare
        .stream(&UserMessage::text("echo x"))
        .await
        .map(|_| ());
    record(&mut out, "bare stream", &bare);
    record(
        &mut out,
        "bare push list",
        &t.bare.list_push(&task.id).await,
    );
    out
}

pub(crate) async fn scripted_scenario_gives_equal_results_on_every_transport() {
    let reference = normalise(json!(scenario(&in_process().await).await));
    for (name, target) in [
        ("jsonrpc", jsonrpc().await),
        ("grpc", grpc().await),
        ("rest", rest().await),
    ] {
        let got = normalise(json!(scenario(&target).await));
        let (Value::Array(got), Value::Array(reference)) = (&got, &reference) else {
            unreachable!()
        };
        assert_eq!(got.len(), reference.len(), "{name}: the number of steps");
        for (g, r) in got.iter().zip(reference) {
            assert_eq!(
                g, r,
                "{name} differs from in_process at step {} (normalised)",
                r[0]
            );
        }
    }
}
