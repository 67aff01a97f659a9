//! The typed client (`a2a_client::jsonrpc::JsonRpcTransport`) against the
//! server's `run` on 127.0.0.1:0.

mod common;

use a2a_client::Transport;
use a2a_client::jsonrpc::{JsonRpcTransport, fetch_agent_card};
use a2a_server::Agent;
use a2a_types::{
    DeleteTaskPushNotificationConfigParams, GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams, Message, MessageSendConfiguration, MessageSendParams,
    PushNotificationConfig, SendMessageResult, StreamResponse, TaskIdParams,
    TaskPushNotificationConfig, TaskQueryParams, TaskState,
};
use common::TestServer;
use futures::StreamExt;

fn params(text: &str) -> MessageSendParams {
    MessageSendParams::new(Message::user_text(a2a_core::new_id(), text))
}

#[tokio::test]
async fn send_stream_get_and_card() {
    let server = TestServer::start(Agent::demo()).await;
    let card = fetch_agent_card(&server.url).await.unwrap();
    assert_eq!(card.url, server.url);
    assert_eq!(card.capabilities.streaming, Some(true));

    let client = JsonRpcTransport::new(server.url.clone());
    let SendMessageResult::Task(task) = client.send_message(params("typed hello")).await.unwrap()
    else {
        panic!("expected a task");
    };
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(task.artifacts.as_ref().unwrap()[0].text(), "typed hello");

    let got = client
        .get_task(TaskQueryParams {
            id: task.id.clone(),
            history_length: None,
            metadata: None,
        })
        .await
        .unwrap();
    assert_eq!(got, task);

    let events: Vec<StreamResponse> = client
        .send_message_stream(params("a b c"))
        .await
        .unwrap()
        .map(|e| e.unwrap())
        .collect()
        .await;
    assert!(matches!(events[0], StreamResponse::Task(_)));
    let chunks: String = events
        .iter()
        .filter_map(|e| match e {
            StreamResponse::ArtifactUpdate(a) => Some(a.artifact.text()),
            _ => None,
        })
        .collect();
    assert_eq!(chunks, "a b c");
    assert!(matches!(
        events.last(),
        Some(StreamResponse::StatusUpdate(s)) if s.status.state == TaskState::Completed && s.is_final
    ));

    let mut reply = params("as a message");
    reply.metadata = Some(serde_json::from_value(serde_json::json!({"reply": "message"})).unwrap());
    let SendMessageResult::Message(m) = client.send_message(reply).await.unwrap() else {
        panic!("expected a message");
    };
    assert_eq!(m.text(), "as a message");
}

#[tokio::test]
async fn errors_cancel_resubscribe_and_push_configs() {
    let server = TestServer::start(Agent::demo()).await;
    let client = JsonRpcTransport::new(server.url.clone());

    let err = client
        .get_task(TaskQueryParams {
            id: "nope".into(),
            history_length: None,
            metadata: None,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(-32001));

    let mut p = params("countdown 20");
    p.configuration = Some(MessageSendConfiguration {
        blocking: Some(false),
        ..MessageSendConfiguration::default()
    });
    let SendMessageResult::Task(task) = client.send_message(p).await.unwrap() else {
        panic!("expected a task");
    };
    let mut events = client
        .resubscribe_task(TaskIdParams::new(task.id.clone()))
        .await
        .unwrap();
    let first = events.next().await.unwrap().unwrap();
    assert!(matches!(first, StreamResponse::Task(ref t) if t.id == task.id));

    // Push configs on a live task.
    let cfg = client
        .set_push_config(TaskPushNotificationConfig {
            task_id: task.id.clone(),
            push_notification_config: PushNotificationConfig {
                id: None,
                url: "http://127.0.0.1:9/unused".into(),
                token: Some("t".into()),
                authentication: None,
            },
        })
        .await
        .unwrap();
    let cid = cfg
        .push_notification_config
        .id
        .clone()
        .expect("an id is assigned");
    let got = client
        .get_push_config(GetTaskPushNotificationConfigParams {
            id: task.id.clone(),
            push_notification_config_id: Some(cid.clone()),
            metadata: None,
        })
        .await
        .unwrap();
    assert_eq!(got, cfg);
    let list = client
        .list_push_configs(ListTaskPushNotificationConfigParams {
            id: task.id.clone(),
            metadata: None,
        })
        .await
        .unwrap();
    assert_eq!(list, vec![cfg]);
    client
        .delete_push_config(DeleteTaskPushNotificationConfigParams {
            id: task.id.clone(),
            push_notification_config_id: cid,
            metadata: None,
        })
        .await
        .unwrap();

    let canceled = client
        .cancel_task(TaskIdParams::new(task.id.clone()))
        .await
        .unwrap();
    assert_eq!(canceled.status.state, TaskState::Canceled);
    // The resubscribed stream ends with the canceled status.
    let mut last = None;
    for _ in 0..30 {
        match tokio::time::timeout(common::WAIT, events.next())
            .await
            .unwrap()
        {
            Some(e) => last = Some(e.unwrap()),
            None => break,
        }
    }
    assert!(matches!(
        last,
        Some(StreamResponse::StatusUpdate(s)) if s.status.state == TaskState::Canceled
    ));
    let err = client
        .cancel_task(TaskIdParams::new(task.id))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(-32002));
    server.stop().await.unwrap();
}
