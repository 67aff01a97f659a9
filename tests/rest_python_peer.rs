//! Our `RestTransport` against the official A2A Python SDK (0.3.26) REST
//! server: `tests/interop/python_agent.py`, started on port 0, driven through
//! send, message reply, stream, get, resubscribe, cancel, push-config create
//! and get, and the card.
//!
//! Runs only when `A2A_INTEROP_PYTHON` names the interop venv's python:
//!
//! ```sh
//! bash tests/interop/setup.sh
//! A2A_INTEROP_PYTHON=tests/interop/.venv/bin/python cargo test --test rest_python_peer
//! ```
//!
//! Without it the test prints `SKIPPED` and passes, except under `CI=true`,
//! where it fails.

#[path = "common/python_peer.rs"]
mod python_peer;

use std::time::Duration;

use a2a_client::rest::RestTransport;
use a2a_client::{ClientError, EventStream, Transport};
use a2a_types::{
    A2aError, GetTaskPushNotificationConfigParams, Message, MessageSendConfiguration,
    MessageSendParams, PushNotificationConfig, SendMessageResult, StreamResponse, Task,
    TaskIdParams, TaskPushNotificationConfig, TaskQueryParams, TaskState,
};
use futures::StreamExt;

/// The bound of every wait on the peer.
const WAIT: Duration = Duration::from_secs(30);

fn params(text: &str, blocking: Option<bool>) -> MessageSendParams {
    let mut p = MessageSendParams::new(Message::user_text(a2a_core::new_id(), text));
    p.configuration = blocking.map(|b| MessageSendConfiguration {
        blocking: Some(b),
        accepted_output_modes: Some(vec!["text/plain".to_owned()]),
        ..Default::default()
    });
    p
}

fn task_of(result: SendMessageResult) -> Task {
    match result {
        SendMessageResult::Task(t) => t,
        SendMessageResult::Message(m) => panic!("expected a task, got {m:?}"),
    }
}

/// The concatenated text of an artifact's parts, by artifact name.
fn artifact_text(task: &Task, name: &str) -> String {
    task.artifacts
        .iter()
        .flatten()
        .find(|a| a.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no artifact {name:?} in {task:?}"))
        .text()
}

async fn collect(stream: EventStream) -> Vec<StreamResponse> {
    tokio::time::timeout(WAIT, stream.collect::<Vec<_>>())
        .await
        .expect("the stream ends in time")
        .into_iter()
        .map(|r| r.expect("no error in the stream"))
        .collect()
}

/// Folds stream events into the task, as a client would.
fn fold(events: &[StreamResponse]) -> Task {
    let mut task: Option<Task> = None;
    for event in events {
        match event {
            StreamResponse::Task(t) => task = Some(t.clone()),
            StreamResponse::StatusUpdate(e) => {
                task.as_mut().expect("the task comes first").status = e.status.clone();
            }
            StreamResponse::ArtifactUpdate(e) => {
                let t = task.as_mut().expect("the task comes first");
                let artifacts = t.artifacts.get_or_insert_with(Vec::new);
                match artifacts
                    .iter_mut()
                    .find(|a| a.artifact_id == e.artifact.artifact_id)
                {
                    Some(a) if e.append == Some(true) => a.parts.extend(e.artifact.parts.clone()),
                    Some(a) => *a = e.artifact.clone(),
                    None => artifacts.push(e.artifact.clone()),
                }
            }
            StreamResponse::Message(m) => panic!("a message in a task stream: {m:?}"),
        }
    }
    task.expect("a task")
}

async fn get(
    client: &RestTransport,
    id: &str,
    history_length: Option<i32>,
) -> Result<Task, ClientError> {
    tokio::time::timeout(
        WAIT,
        client.get_task(TaskQueryParams {
            id: id.to_owned(),
            history_length,
            metadata: None,
        }),
    )
    .await
    .expect("answered in time")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_rest_client_drives_the_python_sdk_rest_server() {
    let Some(python) = python_peer::python("rest_python_peer") else {
        return;
    };
    let peer = python_peer::start(&python);
    let client = RestTransport::new(peer.url("http+json").to_owned());

    // The card: `GET /v1/card` (the peer sets supportsAuthenticatedExtendedCard).
    let card = client
        .get_extended_agent_card()
        .await
        .expect("GET /v1/card");
    assert_eq!(card.name, "python-sdk-demo");
    assert_eq!(card.protocol_version, "0.3.0");
    assert!(card.skills.iter().any(|s| s.id == "countdown"));

    // Send, blocking: the completed task with the echoed text.
    let text = "héllo from Rust";
    let task = task_of(
        client
            .send_message(params(text, Some(true)))
            .await
            .expect("send"),
    );
    assert_eq!(task.status.state, TaskState::Completed, "{task:?}");
    assert_eq!(artifact_text(&task, "echo"), text);

    // A message reply.
    let mut p = params("reply please", Some(true));
    p.message.metadata = Some(
        serde_json::json!({"reply": "message"})
            .as_object()
            .cloned()
            .expect("object"),
    );
    match client.send_message(p).await.expect("send") {
        SendMessageResult::Message(m) => assert!(m.text().starts_with("reply please"), "{m:?}"),
        SendMessageResult::Task(t) => panic!("expected a message, got {t:?}"),
    }

    // Stream: the task first, then updates, ending with a final `completed`
    // (the peer's SSE data is indented JSON over many `data:` lines, `\r\n`).
    let events = collect(
        client
            .send_message_stream(params("streamed words", Some(true)))
            .await
            .expect("stream"),
    )
    .await;
    assert!(
        matches!(events.first(), Some(StreamResponse::Task(_))),
        "{events:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, StreamResponse::ArtifactUpdate(_))),
        "{events:?}"
    );
    let last = events.last().expect("events");
    assert!(last.is_final(), "{last:?}");
    let folded = fold(&events);
    assert_eq!(folded.status.state, TaskState::Completed);
    assert_eq!(artifact_text(&folded, "echo"), "streamed words");

    // Get with historyLength=1.
    let got = get(&client, &task.id, Some(1)).await.expect("get");
    assert_eq!(got.id, task.id);
    assert_eq!(got.history.as_ref().map(Vec::len), Some(1), "{got:?}");

    // A long task, non-blocking; resubscribe (the SDK forwards live events
    // only, without a snapshot); cancel; cancel again.
    let countdown = task_of(
        client
            .send_message(params("countdown 5", Some(false)))
            .await
            .expect("send countdown"),
    );
    assert!(
        matches!(
            countdown.status.state,
            TaskState::Submitted | TaskState::Working
        ),
        "{countdown:?}"
    );
    let mut stream = client
        .resubscribe_task(TaskIdParams::new(countdown.id.clone()))
        .await
        .expect("resubscribe");
    let first = tokio::time::timeout(WAIT, stream.next())
        .await
        .expect("an event in time")
        .expect("an event")
        .expect("not an error");
    match &first {
        StreamResponse::Task(t) => assert_eq!(t.id, countdown.id),
        StreamResponse::StatusUpdate(e) => {
            assert_eq!(e.task_id, countdown.id);
            assert_eq!(e.status.state, TaskState::Working);
        }
        other => panic!("unexpected first event {other:?}"),
    }
    drop(stream);
    let canceled = client
        .cancel_task(TaskIdParams::new(countdown.id.clone()))
        .await
        .expect("cancel");
    assert_eq!(canceled.status.state, TaskState::Canceled);
    let got = get(&client, &countdown.id, None).await.expect("get");
    assert_eq!(got.status.state, TaskState::Canceled);
    let again = client
        .cancel_task(TaskIdParams::new(countdown.id.clone()))
        .await
        .expect_err("not cancelable");
    assert!(
        matches!(again, ClientError::A2a(A2aError::TaskNotCancelable { .. })),
        "HTTP 409 reads back as TaskNotCancelable: {again:?}"
    );
    let unknown = get(&client, "no-such-task", None)
        .await
        .expect_err("unknown");
    assert!(
        matches!(unknown, ClientError::A2a(A2aError::TaskNotFound { .. })),
        "HTTP 404 reads back as TaskNotFound: {unknown:?}"
    );

    // Push configs on an input-required task: create (the whole request
    // body), then get.
    let interview = task_of(
        client
            .send_message(params("interview", Some(true)))
            .await
            .expect("interview"),
    );
    assert_eq!(interview.status.state, TaskState::InputRequired);
    let config = TaskPushNotificationConfig {
        task_id: interview.id.clone(),
        push_notification_config: PushNotificationConfig {
            id: Some("cfg-a".to_owned()),
            url: "http://127.0.0.1:9/hook-a".to_owned(),
            token: Some("tok-a".to_owned()),
            authentication: None,
        },
    };
    let set = client
        .set_push_config(config.clone())
        .await
        .expect("create config");
    assert_eq!(set.task_id, interview.id);
    assert_eq!(set.push_notification_config.id.as_deref(), Some("cfg-a"));
    assert_eq!(
        set.push_notification_config.url,
        "http://127.0.0.1:9/hook-a"
    );
    let got = client
        .get_push_config(GetTaskPushNotificationConfigParams {
            id: interview.id.clone(),
            push_notification_config_id: Some("cfg-a".to_owned()),
            metadata: None,
        })
        .await
        .expect("get config");
    assert_eq!(
        got.push_notification_config.url,
        "http://127.0.0.1:9/hook-a"
    );
    assert_eq!(got.push_notification_config.token.as_deref(), Some("tok-a"));

    drop(peer);
}
