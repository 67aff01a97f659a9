//! The demo agent over real JSON-RPC: echo, message replies, interview,
//! countdown + cancel.

mod common;

use std::time::Duration;

use a2a_server::Agent;
use common::{TestServer, kind, parts_text, send_params, shape, state, user_text};
use serde_json::{Value, json};

const TEXT: &str = "hello interop \u{e9}\u{e8} \u{1f30d} from  the rust tests ";

fn echo_artifact(task: &Value) -> &Value {
    let artifacts = task["artifacts"].as_array().expect("artifacts");
    artifacts
        .iter()
        .find(|a| a["artifactId"] == "echo")
        .expect("echo artifact")
}

#[tokio::test]
async fn echo_blocking_returns_the_completed_task() {
    let server = TestServer::start(Agent::demo()).await;
    let task = server
        .result("message/send", send_params(user_text(TEXT)))
        .await;
    assert_eq!(kind(&task), "task");
    assert_eq!(state(&task), "completed");
    let artifact = echo_artifact(&task);
    assert_eq!(artifact["name"], "echo");
    assert_eq!(parts_text(&artifact["parts"]), TEXT);
    assert!(task["contextId"].as_str().is_some_and(|c| !c.is_empty()));
    assert_eq!(task["history"][0]["parts"][0]["text"], TEXT);

    // tasks/get returns the same task; historyLength trims the history.
    let got = server
        .result("tasks/get", json!({"id": task["id"], "historyLength": 1}))
        .await;
    assert_eq!(got["id"], task["id"]);
    assert_eq!(state(&got), "completed");
    assert_eq!(got["history"].as_array().unwrap().len(), 1);
    assert_eq!(parts_text(&echo_artifact(&got)["parts"]), TEXT);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn echo_stream_order() {
    let server = TestServer::start(Agent::demo()).await;
    let events = server
        .stream("message/stream", send_params(user_text(TEXT)))
        .await;
    let summary = shape(&events);
    assert_eq!(kind(&events[0]), "task", "{summary:?}");
    let task_id = events[0]["id"].clone();
    assert_eq!(kind(&events[1]), "status-update", "{summary:?}");
    assert_eq!(state(&events[1]), "working");
    assert_eq!(events[1]["final"], false);
    let last = events.last().unwrap();
    assert_eq!(kind(last), "status-update", "{summary:?}");
    assert_eq!(state(last), "completed");
    assert_eq!(last["final"], true);

    let chunks: Vec<&Value> = events[2..events.len() - 1].iter().collect();
    assert!(
        chunks.iter().all(|c| kind(c) == "artifact-update"),
        "{summary:?}"
    );
    assert_eq!(chunks.len(), 8, "one chunk per word: {summary:?}");
    for (i, c) in chunks.iter().enumerate() {
        assert_eq!(c["taskId"], task_id);
        assert_eq!(c["artifact"]["artifactId"], "echo");
        assert_eq!(c["artifact"]["name"], "echo");
        assert_eq!(c["append"], i > 0, "append of chunk {i}");
        assert_eq!(
            c["lastChunk"],
            i == chunks.len() - 1,
            "lastChunk of chunk {i}"
        );
    }
    let joined: String = chunks
        .iter()
        .map(|c| parts_text(&c["artifact"]["parts"]))
        .collect();
    assert_eq!(joined, TEXT);

    // The folded task has the whole text in one artifact.
    let got = server.result("tasks/get", json!({"id": task_id})).await;
    assert_eq!(parts_text(&echo_artifact(&got)["parts"]), TEXT);
}

#[tokio::test]
async fn echo_describes_file_and_data_parts() {
    let server = TestServer::start(Agent::demo()).await;
    let message = json!({
        "kind": "message", "role": "user", "messageId": "m-files",
        "parts": [
            {"kind": "text", "text": "see attached"},
            {"kind": "file", "file": {"name": "report.pdf", "mimeType": "application/pdf", "bytes": "aGVsbG8gd29ybGQ="}},
            {"kind": "file", "file": {"name": "pic.png", "mimeType": "image/png", "uri": "https://example.com/pic.png"}},
            {"kind": "data", "data": {"a": 1}}
        ]
    });
    let task = server.result("message/send", send_params(message)).await;
    assert_eq!(state(&task), "completed");
    assert_eq!(
        parts_text(&echo_artifact(&task)["parts"]),
        "see attached\n[file report.pdf, application/pdf, 11 bytes]\n\
         [file pic.png, image/png, https://example.com/pic.png]\n[data {\"a\":1}]"
    );
}

#[tokio::test]
async fn reply_message_metadata_answers_with_a_message() {
    let server = TestServer::start(Agent::demo()).await;
    // In the request's metadata.
    let reply = server
        .result(
            "message/send",
            json!({"message": user_text("reply as a message"), "metadata": {"reply": "message"}}),
        )
        .await;
    assert_eq!(kind(&reply), "message");
    assert_eq!(reply["role"], "agent");
    assert_eq!(parts_text(&reply["parts"]), "reply as a message");
    assert!(reply.get("taskId").is_none(), "no task: {reply}");

    // In the message's own metadata, streamed: exactly one event.
    let mut message = user_text("streamed message reply");
    message["metadata"] = json!({"reply": "message"});
    let events = server.stream("message/stream", send_params(message)).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(kind(&events[0]), "message");
    assert_eq!(events[0]["role"], "agent");
    assert_eq!(parts_text(&events[0]["parts"]), "streamed message reply");
}

#[tokio::test]
async fn interview_takes_two_turns() {
    let server = TestServer::start(Agent::demo()).await;
    let task = server
        .result("message/send", send_params(user_text("interview")))
        .await;
    assert_eq!(state(&task), "input-required");
    assert_eq!(
        parts_text(&task["status"]["message"]["parts"]),
        "What is your name?"
    );
    let mut answer = user_text("Ada");
    answer["taskId"] = task["id"].clone();
    answer["contextId"] = task["contextId"].clone();
    let done = server.result("message/send", send_params(answer)).await;
    assert_eq!(done["id"], task["id"]);
    assert_eq!(state(&done), "completed");
    let texts: Vec<String> = done["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| parts_text(&a["parts"]))
        .collect();
    assert_eq!(texts, ["Nice to meet you, Ada!"]);
    // The history keeps the question between the two user turns.
    let history: Vec<(String, String)> = done["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_owned(),
                parts_text(&m["parts"]),
            )
        })
        .collect();
    assert_eq!(
        history,
        [
            ("user".to_owned(), "interview".to_owned()),
            ("agent".to_owned(), "What is your name?".to_owned()),
            ("user".to_owned(), "Ada".to_owned()),
        ]
    );
}

#[tokio::test]
async fn countdown_counts_then_cancel_and_cancel_again() {
    let server = TestServer::start(Agent::demo()).await;
    let mut sse = server
        .open_stream("message/stream", send_params(user_text("countdown 30")))
        .await;
    let first = sse.next().await.unwrap()["result"].clone();
    assert_eq!(kind(&first), "task");
    let task_id = first["id"].clone();
    let working = sse.next().await.unwrap()["result"].clone();
    assert_eq!(state(&working), "working");
    assert_eq!(parts_text(&working["status"]["message"]["parts"]), "30");
    let tick = sse.next().await.unwrap()["result"].clone();
    assert_eq!(state(&tick), "working");
    assert_eq!(parts_text(&tick["status"]["message"]["parts"]), "29");

    let canceled = server.result("tasks/cancel", json!({"id": task_id})).await;
    assert_eq!(canceled["id"], task_id);
    assert_eq!(state(&canceled), "canceled");
    // The stream ends with the final canceled status, promptly.
    let mut last = None;
    for _ in 0..5 {
        match sse
            .next_within(Duration::from_secs(5))
            .await
            .expect("no hang")
        {
            Some(ev) => last = Some(ev["result"].clone()),
            None => break,
        }
    }
    let last = last.expect("an event after the cancel");
    assert_eq!(state(&last), "canceled");
    assert_eq!(last["final"], true);

    let got = server.result("tasks/get", json!({"id": task_id})).await;
    assert_eq!(state(&got), "canceled");
    assert_eq!(
        server
            .error_code("tasks/cancel", json!({"id": task_id}))
            .await,
        -32002
    );
    // A canceled task takes no more messages.
    let mut follow = user_text("more");
    follow["taskId"] = task_id.clone();
    assert_eq!(
        server.error_code("message/send", send_params(follow)).await,
        -32602
    );
}

#[tokio::test]
async fn countdown_completes_and_nonblocking_returns_at_once() {
    let server = TestServer::start(Agent::demo()).await;
    let task = server
        .result(
            "message/send",
            json!({"message": user_text("countdown 1"), "configuration": {"blocking": false}}),
        )
        .await;
    assert!(
        ["submitted", "working"].contains(&state(&task)),
        "{}",
        state(&task)
    );
    let mut done = None;
    for _ in 0..50 {
        let got = server.result("tasks/get", json!({"id": task["id"]})).await;
        if state(&got) == "completed" {
            done = Some(got);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let done = done.expect("countdown 1 completed within 5 s");
    assert_eq!(parts_text(&done["status"]["message"]["parts"]), "Liftoff!");
}

#[tokio::test]
async fn errors_have_spec_codes() {
    let server = TestServer::start(Agent::demo()).await;
    assert_eq!(
        server
            .error_code("tasks/get", json!({"id": "no-such-task"}))
            .await,
        -32001
    );
    assert_eq!(
        server
            .error_code("tasks/cancel", json!({"id": "no-such-task"}))
            .await,
        -32001
    );
    assert_eq!(server.error_code("no/such/method", json!({})).await, -32601);
}

#[tokio::test]
async fn interview_answer_streamed() {
    let server = TestServer::start(Agent::demo()).await;
    let events = server
        .stream("message/stream", send_params(user_text("interview")))
        .await;
    let last = events.last().unwrap();
    assert_eq!(state(last), "input-required");
    assert_eq!(last["final"], true);
    let mut answer = user_text("Grace");
    answer["taskId"] = events[0]["id"].clone();
    let events = server.stream("message/stream", send_params(answer)).await;
    let summary = shape(&events);
    assert_eq!(kind(&events[0]), "task", "{summary:?}");
    assert_ne!(state(&events[0]), "input-required", "{summary:?}");
    let greeting = events
        .iter()
        .find(|e| kind(e) == "artifact-update")
        .expect("an artifact");
    assert_eq!(
        parts_text(&greeting["artifact"]["parts"]),
        "Nice to meet you, Grace!"
    );
    assert_eq!(state(events.last().unwrap()), "completed");
}
