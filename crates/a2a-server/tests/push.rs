//! Push notifications: `HttpPushSender` against a tiny webhook on
//! 127.0.0.1:0 that records what it receives, after real tasks run.

mod common;

use std::time::Duration;

use a2a_core::PushSender;
use a2a_server::{Agent, HttpPushSender};
use a2a_types::{PushNotificationConfig, Task, TaskState};
use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use common::{TestServer, parts_text, send_params, state, user_text};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// What the webhook received.
#[derive(Debug)]
struct Hit {
    token: Option<String>,
    authorization: Option<String>,
    content_type: Option<String>,
    body: Value,
}

/// A webhook answering `status`; returns its URL and the received hits.
async fn webhook(status: StatusCode) -> (String, mpsc::UnboundedReceiver<Hit>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let app = Router::new().route(
        "/hook",
        post(move |headers: HeaderMap, body: String| {
            let tx = tx.clone();
            async move {
                let header = |n: &str| {
                    headers
                        .get(n)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned)
                };
                let _ = tx.send(Hit {
                    token: header("x-a2a-notification-token"),
                    authorization: header("authorization"),
                    content_type: header("content-type"),
                    body: serde_json::from_str(&body).unwrap_or(Value::String(body)),
                });
                status
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, rx)
}

/// Receives hits until one carries a task in `want` state (bounded).
async fn until_state(rx: &mut mpsc::UnboundedReceiver<Hit>, want: &str) -> (Hit, usize) {
    let mut seen = 0;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let hit = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .unwrap_or_else(|_| panic!("no `{want}` notification within 15 s ({seen} others)"))
            .expect("webhook alive");
        seen += 1;
        if state(&hit.body) == want {
            return (hit, seen);
        }
    }
}

#[tokio::test]
async fn a_task_with_a_push_config_notifies_the_webhook() {
    let (hook, mut hits) = webhook(StatusCode::OK).await;
    let server = TestServer::start(Agent::demo()).await;
    let task = server
        .result(
            "message/send",
            json!({
                "message": user_text("hello push"),
                "configuration": {"pushNotificationConfig": {
                    "url": hook, "token": "tok-1",
                    "authentication": {"schemes": ["Bearer"], "credentials": "secret-1"}
                }}
            }),
        )
        .await;
    assert_eq!(state(&task), "completed");
    let (hit, _) = until_state(&mut hits, "completed").await;
    assert_eq!(hit.body["kind"], "task");
    assert_eq!(hit.body["id"], task["id"]);
    assert_eq!(hit.body["contextId"], task["contextId"]);
    assert_eq!(parts_text(&hit.body["artifacts"][0]["parts"]), "hello push");
    assert_eq!(hit.token.as_deref(), Some("tok-1"));
    assert_eq!(hit.authorization.as_deref(), Some("Bearer secret-1"));
    assert!(
        hit.content_type
            .as_deref()
            .is_some_and(|c| c.starts_with("application/json"))
    );
}

#[tokio::test]
async fn a_config_set_later_gets_the_following_changes() {
    let (hook, mut hits) = webhook(StatusCode::OK).await;
    let server = TestServer::start(Agent::demo()).await;
    let task = server
        .result("message/send", send_params(user_text("interview")))
        .await;
    assert_eq!(state(&task), "input-required");
    let set = server
        .result(
            "tasks/pushNotificationConfig/set",
            json!({"taskId": task["id"], "pushNotificationConfig": {"id": "cfg-a", "url": hook}}),
        )
        .await;
    assert_eq!(set["pushNotificationConfig"]["id"], "cfg-a");

    let mut answer = user_text("Grace");
    answer["taskId"] = task["id"].clone();
    let done = server.result("message/send", send_params(answer)).await;
    assert_eq!(state(&done), "completed");
    let (hit, _) = until_state(&mut hits, "completed").await;
    assert_eq!(hit.body["id"], task["id"]);
    assert_eq!(hit.token, None, "no token configured");
    assert_eq!(hit.authorization, None, "no authentication configured");
}

fn task() -> Task {
    Task::new("t-1", "c-1", TaskState::Working)
}

#[tokio::test]
async fn sender_headers_and_failures() {
    let (hook, mut hits) = webhook(StatusCode::NO_CONTENT).await;
    let sender = HttpPushSender::new();
    let config = |token: Option<&str>, schemes: &[&str], credentials: Option<&str>| {
        serde_json::from_value::<PushNotificationConfig>(json!({
            "url": hook, "token": token,
            "authentication": {"schemes": schemes, "credentials": credentials}
        }))
        .unwrap()
    };

    // Bearer only when the schemes name it and credentials are set.
    sender
        .send(&config(Some("t"), &["Basic"], Some("c")), &task())
        .await
        .unwrap();
    let hit = hits.recv().await.unwrap();
    assert_eq!(hit.token.as_deref(), Some("t"));
    assert_eq!(hit.authorization, None);
    assert_eq!(hit.body, serde_json::to_value(task()).unwrap());
    assert_eq!(hit.body["kind"], "task");

    sender
        .send(&config(None, &["bearer"], None), &task())
        .await
        .unwrap();
    let hit = hits.recv().await.unwrap();
    assert_eq!((hit.token, hit.authorization), (None, None));

    // A non-2xx answer is an error.
    let (failing, _hits) = webhook(StatusCode::INTERNAL_SERVER_ERROR).await;
    let cfg: PushNotificationConfig = serde_json::from_value(json!({"url": failing})).unwrap();
    let err = sender.send(&cfg, &task()).await.unwrap_err();
    assert!(err.message().contains("500"), "{err}");

    // So is an unreachable webhook, quickly. The socket is bound but never
    // listens: connections are refused, and no other test can take the port
    // while it is held.
    let closed = tokio::net::TcpSocket::new_v4().unwrap();
    closed.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let url = format!("http://{}/hook", closed.local_addr().unwrap());
    let cfg: PushNotificationConfig = serde_json::from_value(json!({"url": url})).unwrap();
    let sender = sender.timeout(Duration::from_secs(2));
    assert!(sender.send(&cfg, &task()).await.is_err());
}
