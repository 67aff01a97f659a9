//! The echo agent (`--agent echo`) over real JSON-RPC: a completed task with
//! one artifact at once, or a single message with `"reply": "message"`.

mod common;

use std::time::{Duration, Instant};

use a2a_server::Agent;
use common::{TestServer, kind, parts_text, send_params, shape, state, user_text};
use serde_json::json;

const TEXT: &str = "echo me \u{e9} \u{1f30d}  exactly ";

#[tokio::test]
async fn send_returns_a_completed_task_with_one_artifact() {
    let server = TestServer::start(Agent::echo()).await;
    let task = server
        .result("message/send", send_params(user_text(TEXT)))
        .await;
    assert_eq!(kind(&task), "task");
    assert_eq!(state(&task), "completed");
    let artifacts = task["artifacts"].as_array().expect("artifacts");
    assert_eq!(artifacts.len(), 1, "{task}");
    assert_eq!(artifacts[0]["artifactId"], "echo");
    assert_eq!(artifacts[0]["name"], "echo");
    assert_eq!(artifacts[0]["parts"].as_array().unwrap().len(), 1);
    assert_eq!(parts_text(&artifacts[0]["parts"]), TEXT);
    let history = task["history"].as_array().expect("history");
    assert_eq!(history.len(), 1, "only the user's message: {task}");
    assert_eq!(history[0]["role"], "user");
    assert!(task["status"].get("message").is_none(), "{task}");

    let got = server.result("tasks/get", json!({"id": task["id"]})).await;
    assert_eq!(got, task);

    // A completed task takes no follow-up.
    let mut again = user_text("more");
    again["taskId"] = task["id"].clone();
    let code = server.error_code("message/send", send_params(again)).await;
    assert_ne!(code, 0);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn stream_is_task_artifact_final_status() {
    let server = TestServer::start(Agent::echo()).await;
    let events = server
        .stream("message/stream", send_params(user_text(TEXT)))
        .await;
    let shape = shape(&events);
    assert_eq!(
        shape,
        [
            "task:submitted",
            "artifact-update:",
            "status-update:completed"
        ],
        "{events:?}"
    );
    let id = &events[0]["id"];
    let artifact = &events[1];
    assert_eq!(artifact["taskId"], *id);
    assert_eq!(artifact["artifact"]["artifactId"], "echo");
    assert_eq!(parts_text(&artifact["artifact"]["parts"]), TEXT);
    assert_eq!(artifact["lastChunk"], true);
    assert_ne!(artifact["append"], true);
    assert_eq!(events[2]["final"], true);
    assert_eq!(events[2]["taskId"], *id);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn reply_message_in_either_metadata_gives_one_message() {
    let server = TestServer::start(Agent::echo()).await;
    let mut in_message = user_text(TEXT);
    in_message["metadata"] = json!({"reply": "message"});
    let in_params = json!({"message": user_text(TEXT), "metadata": {"reply": "message"}});
    for params in [send_params(in_message), in_params] {
        let reply = server.result("message/send", params.clone()).await;
        assert_eq!(kind(&reply), "message", "{reply}");
        assert_eq!(reply["role"], "agent");
        assert_eq!(parts_text(&reply["parts"]), TEXT);
        assert!(reply["contextId"].as_str().is_some_and(|c| !c.is_empty()));
        assert!(reply.get("taskId").is_none(), "no task: {reply}");

        let events = server.stream("message/stream", params).await;
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(kind(&events[0]), "message");
        assert_eq!(parts_text(&events[0]["parts"]), TEXT);
    }

    // Any other value, or another key, is a task.
    for metadata in [json!({"reply": "task"}), json!({"answer": "message"})] {
        let params = json!({"message": user_text(TEXT), "metadata": metadata});
        let reply = server.result("message/send", params).await;
        assert_eq!(kind(&reply), "task", "{reply}");
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn card_has_the_echo_skill() {
    let server = TestServer::start(Agent::echo()).await;
    let card = server.card().await;
    let skills: Vec<&str> = card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(skills, ["echo"]);
    assert_eq!(card["capabilities"]["streaming"], true);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn working_switch_adds_a_working_status_before_the_artifact() {
    let server = TestServer::start(Agent::echo()).await;
    for params in [
        json!({"message": user_text(TEXT), "metadata": {"working": true}}),
        {
            let mut m = user_text(TEXT);
            m["metadata"] = json!({"working": true});
            send_params(m)
        },
    ] {
        let events = server.stream("message/stream", params.clone()).await;
        let shape = shape(&events);
        assert_eq!(
            shape,
            [
                "task:submitted",
                "status-update:working",
                "artifact-update:",
                "status-update:completed"
            ],
            "{events:?}"
        );
        assert_eq!(parts_text(&events[2]["artifact"]["parts"]), TEXT);
        let task = server.result("message/send", params).await;
        assert_eq!(state(&task), "completed");
        assert_eq!(task["artifacts"].as_array().map(Vec::len), Some(1));
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn hold_keeps_the_stream_open_until_cancel() {
    let server = TestServer::start(Agent::echo()).await;
    let params = json!({"message": user_text(TEXT), "metadata": {"hold": true}});
    let mut sse = server.open_stream("message/stream", params).await;
    let first = sse.next().await.unwrap()["result"].clone();
    assert_eq!(kind(&first), "task");
    let id = first["id"].clone();
    let working = sse.next().await.unwrap()["result"].clone();
    assert_eq!(kind(&working), "status-update");
    assert_eq!(state(&working), "working");
    assert_ne!(working["final"], true);
    // Held: nothing more, the stream stays open.
    assert!(
        sse.next_within(Duration::from_millis(500)).await.is_err(),
        "a held stream must stay open and quiet"
    );
    // A second subscriber on the held task stays open too.
    let mut resub = server
        .open_stream("tasks/resubscribe", json!({"id": id}))
        .await;
    let snapshot = resub.next().await.unwrap()["result"].clone();
    assert_eq!(kind(&snapshot), "task");
    assert_eq!(state(&snapshot), "working");
    assert!(resub.next_within(Duration::from_millis(300)).await.is_err());
    let got = server.result("tasks/get", json!({"id": id})).await;
    assert_eq!(state(&got), "working");

    let started = Instant::now();
    let canceled = server.result("tasks/cancel", json!({"id": id})).await;
    assert_eq!(state(&canceled), "canceled");
    assert!(started.elapsed() < Duration::from_secs(2));
    for s in [&mut sse, &mut resub] {
        let last = s.next().await.expect("the final event")["result"].clone();
        assert_eq!(kind(&last), "status-update", "{last}");
        assert_eq!(state(&last), "canceled");
        assert_eq!(last["final"], true);
        assert!(s.next().await.is_none(), "the stream ends after it");
    }
    // No artifact: the execution returned on cancel.
    let got = server.result("tasks/get", json!({"id": id})).await;
    assert_eq!(state(&got), "canceled");
    assert!(
        got.get("artifacts")
            .is_none_or(|a| a.as_array().is_some_and(Vec::is_empty)),
        "{got}"
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn hold_for_seconds_then_completes() {
    let server = TestServer::start(Agent::echo()).await;
    let mut message = user_text(TEXT);
    message["metadata"] = json!({"hold": 0.3});
    let started = Instant::now();
    let task = server
        .result(
            "message/send",
            json!({"message": message, "configuration": {"blocking": false}}),
        )
        .await;
    assert!(matches!(state(&task), "submitted" | "working"), "{task}");
    let mut sse = server
        .open_stream("tasks/resubscribe", json!({"id": task["id"]}))
        .await;
    let mut last = json!(null);
    while let Some(ev) = sse.next().await {
        last = ev["result"].clone();
    }
    assert_eq!(state(&last), "completed", "{last}");
    assert!(started.elapsed() >= Duration::from_millis(300));
    let got = server.result("tasks/get", json!({"id": task["id"]})).await;
    assert_eq!(parts_text(&got["artifacts"][0]["parts"]), TEXT);

    // `false`, or a string, is no hold.
    for hold in [json!(false), json!("yes")] {
        let params = json!({"message": user_text(TEXT), "metadata": {"hold": hold}});
        let task = server.result("message/send", params).await;
        assert_eq!(state(&task), "completed", "{task}");
    }
    server.stop().await.unwrap();
}
