//! The conformance agent (the a2a-tck reference behaviour) over real
//! JSON-RPC.

mod common;

use std::time::{Duration, Instant};

use a2a_server::Agent;
use common::{TestServer, kind, send_params, shape, state, user_text};
use serde_json::json;

#[tokio::test]
async fn submitted_then_working_follow_up_stays_working_then_cancel() {
    let server = TestServer::start(Agent::conformance()).await;
    let message = user_text("hello tck");
    let events = server
        .stream("message/stream", send_params(message.clone()))
        .await;
    let summary = shape(&events);
    assert_eq!(summary, ["task:submitted", "status-update:working"]);
    let task = &events[0];
    assert_eq!(task["history"][0]["messageId"], message["messageId"]);
    assert_eq!(task["history"].as_array().unwrap().len(), 1);
    assert_eq!(events[1]["final"], false);
    let task_id = task["id"].clone();

    let got = server.result("tasks/get", json!({"id": task_id})).await;
    assert_eq!(state(&got), "working");

    // A blocking follow-up returns when the execution returns: still working.
    let mut follow = user_text("and more");
    follow["taskId"] = task_id.clone();
    follow["contextId"] = task["contextId"].clone();
    let after = server.result("message/send", send_params(follow)).await;
    assert_eq!(after["id"], task_id);
    assert_eq!(state(&after), "working");
    assert_eq!(after["history"].as_array().unwrap().len(), 2);

    // A streamed follow-up: the task snapshot, then working again.
    let mut follow = user_text("streamed follow-up");
    follow["taskId"] = task_id.clone();
    let events = server.stream("message/stream", send_params(follow)).await;
    let summary = shape(&events);
    assert_eq!(summary, ["task:working", "status-update:working"]);

    let canceled = server.result("tasks/cancel", json!({"id": task_id})).await;
    assert_eq!(state(&canceled), "canceled");
    let got = server.result("tasks/get", json!({"id": task_id})).await;
    assert_eq!(state(&got), "canceled");
    assert_eq!(
        server
            .error_code("tasks/cancel", json!({"id": task_id}))
            .await,
        -32002
    );
}

#[tokio::test]
async fn blocking_send_returns_a_working_task() {
    let server = TestServer::start(Agent::conformance()).await;
    let task = server
        .result("message/send", send_params(user_text("hi")))
        .await;
    assert_eq!(kind(&task), "task");
    assert_eq!(state(&task), "working");
    assert_eq!(task["history"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn resubscribe_within_the_delay_sees_the_snapshot_then_working() {
    let server = TestServer::start(Agent::conformance()).await;
    let mut message = user_text("long");
    message["messageId"] = json!(format!(
        "test-resubscribe-message-id-{}",
        a2a_core::new_id()
    ));
    let started = Instant::now();
    let mut first_stream = server
        .open_stream("message/stream", send_params(message))
        .await;
    let first = first_stream.next().await.unwrap()["result"].clone();
    assert_eq!(kind(&first), "task");
    assert_eq!(state(&first), "submitted");
    let task_id = first["id"].clone();
    drop(first_stream); // a client disconnect does not stop the task

    let mut sse = server
        .open_stream("tasks/resubscribe", json!({"id": task_id}))
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "resubscribed too late to test anything"
    );
    let snapshot = sse.next().await.unwrap()["result"].clone();
    assert_eq!(kind(&snapshot), "task");
    assert_eq!(snapshot["id"], task_id);
    assert_eq!(state(&snapshot), "submitted");
    let live = sse.next().await.expect("a live event")["result"].clone();
    assert_eq!(kind(&live), "status-update");
    assert_eq!(live["taskId"], task_id);
    assert_eq!(state(&live), "working");
    assert!(
        started.elapsed() >= Duration::from_millis(2900),
        "working came before the delay: {:?}",
        started.elapsed()
    );

    let canceled = server.result("tasks/cancel", json!({"id": task_id})).await;
    assert_eq!(state(&canceled), "canceled");
}

#[tokio::test]
async fn cancel_during_the_delay_is_prompt() {
    let server = TestServer::start(Agent::conformance()).await;
    let mut message = user_text("long");
    message["messageId"] = json!("test-resubscribe-message-id-cancel");
    let task = server
        .result(
            "message/send",
            json!({"message": message, "configuration": {"blocking": false}}),
        )
        .await;
    assert_eq!(state(&task), "submitted");
    let started = Instant::now();
    let canceled = server
        .result("tasks/cancel", json!({"id": task["id"]}))
        .await;
    assert_eq!(state(&canceled), "canceled");
    assert!(started.elapsed() < Duration::from_secs(2));
    // The canceled execution publishes nothing more.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let got = server.result("tasks/get", json!({"id": task["id"]})).await;
    assert_eq!(state(&got), "canceled");
}
