//! `tasks/get` and `historyLength`.

use a2a_types::TaskState;

use crate::harness::*;

pub(crate) async fn get_returns_the_task_as_send_did(t: &Target) {
    let sent = t
        .send(&UserMessage::text("echo get me"))
        .await
        .expect("send")
        .task();
    let got = t.get(&sent.id, None).await.expect("get");
    assert_eq!(got, sent, "get answers what the blocking send answered");
}

pub(crate) async fn get_history_length_keeps_the_latest_messages(t: &Target) {
    let asked = t
        .send(&UserMessage::text("ask"))
        .await
        .expect("send")
        .task();
    t.send(&UserMessage::text("Ada").follow_up(&asked))
        .await
        .expect("the answer");
    let all = t.get(&asked.id, None).await.expect("get");
    assert_eq!(all.state, TaskState::Completed);
    assert_eq!(all.history_texts(), ["ask", QUESTION, "Ada"]);
    let one = t
        .get(&asked.id, Some(1))
        .await
        .expect("get, historyLength 1");
    assert_eq!(one.history_texts(), ["Ada"]);
    let two = t
        .get(&asked.id, Some(2))
        .await
        .expect("get, historyLength 2");
    assert_eq!(two.history_texts(), [QUESTION, "Ada"]);
    // 0 means no limit (proto3 cannot tell 0 from absent).
    let zero = t
        .get(&asked.id, Some(0))
        .await
        .expect("get, historyLength 0");
    assert_eq!(zero.history_texts(), ["ask", QUESTION, "Ada"]);
    let many = t
        .get(&asked.id, Some(50))
        .await
        .expect("get, historyLength 50");
    assert_eq!(many.history.len(), 3);
}

pub(crate) async fn get_with_negative_history_length_is_invalid_params(t: &Target) {
    let task = t
        .send(&UserMessage::text("echo x"))
        .await
        .expect("send")
        .task();
    assert_code(t.get(&task.id, Some(-1)).await, -32602, "historyLength -1");
}

pub(crate) async fn get_unknown_task_is_task_not_found(t: &Target) {
    let e = assert_code(t.get(&fresh("no-such-task"), None).await, -32001, "get");
    assert!(!e.message.is_empty());
}

/// A task made over this transport reads the same over every transport
/// (timestamps compared as instants: gRPC carries a protobuf Timestamp).
pub(crate) async fn task_reads_the_same_on_every_transport(t: &Target) {
    let asked = t
        .send(&UserMessage::text("ask"))
        .await
        .expect("send")
        .task();
    t.send(&UserMessage::text("Ada").follow_up(&asked))
        .await
        .expect("the answer");
    let mine = t.get(&asked.id, None).await.expect("get");
    let ts = instant(mine.timestamp.as_deref().expect("a timestamp"));
    for other in [
        jsonrpc().await,
        grpc().await,
        rest().await,
        in_process().await,
    ] {
        let mut theirs = other.get(&asked.id, None).await.expect("get");
        let their_ts = instant(&theirs.timestamp.take().expect("a timestamp"));
        assert_eq!(their_ts, ts, "{:?}: the same instant", other.main.kind());
        theirs.timestamp.clone_from(&mine.timestamp);
        assert_eq!(
            theirs,
            mine,
            "{:?} reads the task differently",
            other.main.kind()
        );
    }
}
