//! Our gRPC client (`a2a_client::grpc::GrpcTransport`) against the official
//! Python SDK's gRPC server: `tests/interop/python_agent.py` (a2a-sdk 0.3.26,
//! see `tests/interop/README.md`), driven through send, stream, get, cancel
//! and resubscribe, plus the card, a Message reply, multi-turn and push
//! configs.
//!
//! Runs only when `A2A_INTEROP_PYTHON` names the interpreter of the interop
//! virtualenv (created by `bash tests/interop/setup.sh`):
//!
//! ```text
//! bash tests/interop/setup.sh
//! A2A_INTEROP_PYTHON=tests/interop/.venv/bin/python cargo test --test grpc_python_peer -- --nocapture
//! ```
//!
//! Without it the test prints `SKIPPED` and passes, except under `CI=true`,
//! where it fails. A relative path is taken from the repository root.

#[path = "common/python_peer.rs"]
mod python_peer;

use std::time::Duration;

use a2a_client::grpc::GrpcTransport;
use a2a_client::{ClientError, EventStream, Transport};
use a2a_types::{
    A2aError, GetTaskPushNotificationConfigParams, ListTaskPushNotificationConfigParams, Message,
    MessageSendConfiguration, MessageSendParams, PushNotificationConfig, SendMessageResult,
    StreamResponse, Task, TaskIdParams, TaskPushNotificationConfig, TaskQueryParams, TaskState,
};
use futures::StreamExt;

/// The bound of every wait on the peer.
const WAIT: Duration = Duration::from_secs(30);

fn send_params(text: &str) -> MessageSendParams {
    MessageSendParams::new(Message::user_text(uuid_like(), text))
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(1);
    format!(
        "rust-grpc-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

fn task_of(result: SendMessageResult) -> Task {
    match result {
        SendMessageResult::Task(t) => t,
        SendMessageResult::Message(m) => panic!("expected a task, got {m:?}"),
    }
}

fn query(id: &str, history_length: Option<i32>) -> TaskQueryParams {
    TaskQueryParams {
        id: id.to_owned(),
        history_length,
        metadata: None,
    }
}

async fn next(stream: &mut EventStream) -> Option<StreamResponse> {
    tokio::time::timeout(WAIT, stream.next())
        .await
        .expect("an event in time")
        .map(|r| r.expect("no error in the stream"))
}

async fn all(mut stream: EventStream) -> Vec<StreamResponse> {
    let mut events = Vec::new();
    for _ in 0..1000 {
        match next(&mut stream).await {
            Some(e) => events.push(e),
            None => return events,
        }
    }
    panic!("the stream did not end: {events:?}");
}

/// The text of the artifacts named `echo`, chunks joined in order.
fn echo_text(events: &[StreamResponse]) -> String {
    let mut text = String::new();
    for e in events {
        if let StreamResponse::ArtifactUpdate(a) = e
            && a.artifact.name.as_deref() == Some("echo")
        {
            text.push_str(&a.artifact.text());
        }
    }
    text
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_transport_drives_the_python_sdk_server() {
    let Some(python) = python_peer::python("grpc_python_peer") else {
        return;
    };
    let peer = tokio::task::spawn_blocking(move || python_peer::start(&python))
        .await
        .expect("started");

    // Both URL forms reach it.
    let client = GrpcTransport::connect(peer.url("grpc"))
        .await
        .expect("connect host:port");
    let with_scheme = GrpcTransport::connect(&format!("http://{}", peer.url("grpc")))
        .await
        .expect("connect http://host:port");

    // The card (GetAgentCard).
    let card = client
        .get_extended_agent_card()
        .await
        .expect("GetAgentCard");
    assert_eq!(card.name, "python-sdk-demo");
    assert_eq!(card.protocol_version, "0.3.0");
    assert_eq!(card.capabilities.streaming, Some(true));
    let skills: Vec<&str> = card.skills.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(skills, ["echo", "interview", "countdown"]);
    assert!(
        card.additional_interfaces
            .iter()
            .flatten()
            .any(|i| i.transport == "GRPC" && i.url == peer.url("grpc")),
        "{card:?}"
    );

    // send: blocks (the transport sends blocking=true) until completed.
    let text = "hello from Rust over gRPC ✓ (a longer text, in chunks)";
    let task = task_of(
        with_scheme
            .send_message(send_params(text))
            .await
            .expect("SendMessage"),
    );
    assert_eq!(task.status.state, TaskState::Completed, "{task:?}");
    let artifacts = task.artifacts.clone().expect("artifacts");
    let echoed: String = artifacts
        .iter()
        .filter(|a| a.name.as_deref() == Some("echo"))
        .map(a2a_types::Artifact::text)
        .collect();
    assert_eq!(echoed, text);

    // A Message reply.
    let mut params = send_params("reply please");
    params.message.metadata =
        Some(serde_json::from_value(serde_json::json!({"reply": "message"})).expect("object"));
    let reply = client
        .send_message(params.clone())
        .await
        .expect("SendMessage");
    let SendMessageResult::Message(m) = reply else {
        panic!("expected a message: {reply:?}")
    };
    assert!(m.text().starts_with("reply please"), "{m:?}");
    params.message.message_id = uuid_like();
    let events = all(client
        .send_message_stream(params)
        .await
        .expect("SendStreamingMessage"))
    .await;
    assert!(
        matches!(events.as_slice(), [StreamResponse::Message(_)]),
        "{events:?}"
    );

    // stream: the Task first, working, the echo chunks, a final completed.
    let text = "streamed over gRPC";
    let events = all(client
        .send_message_stream(send_params(text))
        .await
        .expect("SendStreamingMessage"))
    .await;
    let Some(StreamResponse::Task(first)) = events.first() else {
        panic!("the task comes first: {events:?}")
    };
    assert!(events.iter().any(
        |e| matches!(e, StreamResponse::StatusUpdate(s) if s.status.state == TaskState::Working)
    ));
    assert_eq!(echo_text(&events), text);
    let Some(StreamResponse::StatusUpdate(last)) = events.last() else {
        panic!("a status update comes last: {events:?}")
    };
    assert_eq!(last.status.state, TaskState::Completed);
    assert!(last.is_final);
    assert_eq!(last.task_id, first.id);

    // get, with history_length.
    let got = client
        .get_task(query(&first.id, None))
        .await
        .expect("GetTask");
    assert_eq!(got.status.state, TaskState::Completed);
    let one = client
        .get_task(query(&first.id, Some(1)))
        .await
        .expect("GetTask");
    assert_eq!(one.history.as_ref().map(Vec::len), Some(1), "{one:?}");

    // Multi-turn: input-required, then completed.
    let asked = task_of(
        client
            .send_message(send_params("interview"))
            .await
            .expect("SendMessage"),
    );
    assert_eq!(asked.status.state, TaskState::InputRequired, "{asked:?}");
    let mut answer = send_params("Ferris");
    answer.message.task_id = Some(asked.id.clone());
    answer.message.context_id = Some(asked.context_id.clone());
    let done = task_of(client.send_message(answer).await.expect("SendMessage"));
    assert_eq!(done.status.state, TaskState::Completed, "{done:?}");

    // A long task, non-blocking; resubscribe; cancel.
    let mut countdown = send_params("countdown 60");
    countdown.configuration = Some(MessageSendConfiguration {
        blocking: Some(false),
        ..Default::default()
    });
    let running = task_of(client.send_message(countdown).await.expect("SendMessage"));
    assert!(
        matches!(
            running.status.state,
            TaskState::Submitted | TaskState::Working
        ),
        "{running:?}"
    );
    let mut stream = client
        .resubscribe_task(TaskIdParams::new(running.id.clone()))
        .await
        .expect("TaskSubscription");
    // The SDK server sends live events only (no snapshot first).
    let first = next(&mut stream).await.expect("a live event");
    match &first {
        StreamResponse::Task(t) => assert_eq!(t.id, running.id),
        StreamResponse::StatusUpdate(s) => {
            assert_eq!(s.task_id, running.id);
            assert_eq!(s.status.state, TaskState::Working);
        }
        other => panic!("unexpected first event {other:?}"),
    }
    drop(stream);
    let canceled = client
        .cancel_task(TaskIdParams::new(running.id.clone()))
        .await
        .expect("CancelTask");
    assert_eq!(canceled.status.state, TaskState::Canceled);
    let got = client
        .get_task(query(&running.id, None))
        .await
        .expect("GetTask");
    assert_eq!(got.status.state, TaskState::Canceled);
    // Python's UNIMPLEMENTED "TaskNotCancelableError: …" is recognized by name.
    let again = client
        .cancel_task(TaskIdParams::new(running.id.clone()))
        .await
        .expect_err("not cancelable");
    assert!(
        matches!(again, ClientError::A2a(A2aError::TaskNotCancelable { .. })),
        "{again:?}"
    );

    // Unknown task: NOT_FOUND "TaskNotFoundError: …".
    let e = client
        .get_task(query("no-such-task", None))
        .await
        .expect_err("unknown");
    assert!(
        matches!(e, ClientError::A2a(A2aError::TaskNotFound { .. })),
        "{e:?}"
    );
    let e = client
        .resubscribe_task(TaskIdParams::new("no-such-task"))
        .await
        .err()
        .expect("unknown");
    assert!(matches!(e, ClientError::A2a(_)), "{e:?}");

    // Push configs: create with an id, get it back.
    let holder = task_of(
        client
            .send_message(send_params("interview"))
            .await
            .expect("SendMessage"),
    );
    let set = client
        .set_push_config(TaskPushNotificationConfig {
            task_id: holder.id.clone(),
            push_notification_config: PushNotificationConfig {
                id: Some("cfg-a".to_owned()),
                url: "http://127.0.0.1:9/a".to_owned(),
                token: Some("tok-a".to_owned()),
                authentication: None,
            },
        })
        .await
        .expect("CreateTaskPushNotificationConfig");
    assert_eq!(set.task_id, holder.id);
    assert_eq!(set.push_notification_config.id.as_deref(), Some("cfg-a"));
    let got = client
        .get_push_config(GetTaskPushNotificationConfigParams {
            id: holder.id.clone(),
            push_notification_config_id: Some("cfg-a".to_owned()),
            metadata: None,
        })
        .await
        .expect("GetTaskPushNotificationConfig");
    assert_eq!(got.push_notification_config.url, "http://127.0.0.1:9/a");
    // The SDK server does not implement List (UNIMPLEMENTED, no A2A name).
    let e = client
        .list_push_configs(ListTaskPushNotificationConfigParams {
            id: holder.id.clone(),
            metadata: None,
        })
        .await
        .expect_err("not implemented by the SDK");
    assert_eq!(e.code(), Some(-32004), "{e:?}");

    drop(peer);
}
