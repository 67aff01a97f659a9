//! `a2a_client::jsonrpc::JsonRpcTransport` against the `a2a-jsonrpc` router
//! over a real socket: every operation, stream folding, errors surfacing as
//! the very `A2aError` the engine returned, card discovery with the legacy
//! fallback, and the client's handling of unreachable and misbehaving peers.

#[path = "common/agents.rs"]
mod agents;
#[path = "common/dead_port.rs"]
mod dead_port;

use std::sync::Arc;
use std::time::Duration;

use a2a_client::jsonrpc::{JsonRpcTransport, fetch_agent_card};
use a2a_client::{ClientError, EventStream, Transport};
use a2a_core::test_util::ScriptedExecutor;
use a2a_core::{CallContext, DefaultRequestHandler, PushSender, RequestHandler};
use a2a_types::{
    A2aError, AgentCard, DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams, ListTaskPushNotificationConfigParams, Message,
    MessageSendConfiguration, MessageSendParams, Part, PushNotificationConfig, SendMessageResult,
    StreamResponse, Task, TaskIdParams, TaskPushNotificationConfig, TaskQueryParams, TaskState,
};
use agents::{Recorder, echo, replier, wrong_task_id};
use axum::http::{HeaderName, HeaderValue};
use axum::routing::{get, post};
use futures::StreamExt;
use serde_json::json;
use tokio::sync::Notify;

const WAIT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

fn card(streaming: bool) -> AgentCard {
    serde_json::from_value(json!({
        "protocolVersion": "0.3.0",
        "name": "client-test-agent",
        "description": "An agent scripted by the client tests",
        "url": "http://127.0.0.1/",
        "preferredTransport": "JSONRPC",
        "version": "1.0.0",
        "capabilities": {"streaming": streaming},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["test"]}]
    }))
    .expect("a valid card")
}

fn gated(gate: Arc<Notify>) -> ScriptedExecutor {
    ScriptedExecutor::new(move |ctx, events| {
        let gate = Arc::clone(&gate);
        async move {
            let task = ctx.updater(events);
            task.start_work(None).await?;
            tokio::select! {
                () = gate.notified() => {}
                () = ctx.cancellation.cancelled() => return Ok(()),
                () = tokio::time::sleep(WAIT) => return task.fail(None).await,
            }
            task.add_artifact(vec![Part::text("late")], "a-1", None, false, true)
                .await?;
            task.complete(None).await
        }
    })
}

/// Binds first, then serves `app`; returns the base URL.
async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("local addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

/// Serves `handler` with the JSON-RPC router; returns the handler (for
/// in-process comparisons) and a transport pointed at it.
async fn start(
    handler: DefaultRequestHandler,
) -> (Arc<DefaultRequestHandler>, JsonRpcTransport, String) {
    let handler = Arc::new(handler);
    let base = serve(a2a_jsonrpc::router(
        Arc::clone(&handler) as Arc<dyn RequestHandler>
    ))
    .await;
    (handler, JsonRpcTransport::new(format!("{base}/")), base)
}

fn send_params(text: &str) -> MessageSendParams {
    MessageSendParams::new(Message::user_text(a2a_core::new_id(), text))
}

fn non_blocking(text: &str) -> MessageSendParams {
    let mut p = send_params(text);
    p.configuration = Some(MessageSendConfiguration {
        blocking: Some(false),
        ..Default::default()
    });
    p
}

async fn collect(stream: EventStream) -> Vec<Result<StreamResponse, ClientError>> {
    tokio::time::timeout(WAIT, stream.collect::<Vec<_>>())
        .await
        .expect("the stream ends in time")
}

fn unwrap_all(items: Vec<Result<StreamResponse, ClientError>>) -> Vec<StreamResponse> {
    items
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

fn task_of(result: SendMessageResult) -> Task {
    match result {
        SendMessageResult::Task(t) => t,
        SendMessageResult::Message(m) => panic!("expected a task, got {m:?}"),
    }
}

async fn wait_for_state(client: &JsonRpcTransport, task_id: &str, state: TaskState) -> Task {
    for _ in 0..500 {
        let task = client
            .get_task(TaskQueryParams {
                id: task_id.to_owned(),
                history_length: None,
                metadata: None,
            })
            .await
            .expect("tasks/get");
        if task.status.state == state {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {task_id} never reached {state}");
}

// ---------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------

#[tokio::test]
async fn send_get_and_stream_fold() {
    let (_, client, _) = start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    assert_eq!(client.name(), "JSONRPC");

    let task = task_of(
        client
            .send_message(send_params("hello"))
            .await
            .expect("send"),
    );
    assert_eq!(task.status.state, TaskState::Completed);
    let artifacts = task.artifacts.clone().expect("artifacts");
    assert_eq!(artifacts[0].text(), "hello!");

    let got = client
        .get_task(TaskQueryParams {
            id: task.id.clone(),
            history_length: Some(1),
            metadata: None,
        })
        .await
        .expect("get");
    assert_eq!(got.id, task.id);
    assert_eq!(got.history.as_ref().map(Vec::len), Some(1));

    let stream = client
        .send_message_stream(send_params("streamed"))
        .await
        .expect("stream");
    let events = unwrap_all(collect(stream).await);
    assert!(
        matches!(events.first(), Some(StreamResponse::Task(_))),
        "{events:?}"
    );
    assert!(events.last().is_some_and(StreamResponse::is_final));
    let folded = fold(&events);
    assert_eq!(folded.status.state, TaskState::Completed);
    assert_eq!(
        folded.artifacts.as_ref().expect("artifacts")[0].text(),
        "streamed!"
    );
    // The fold agrees with the stored task.
    let stored = client
        .get_task(TaskQueryParams {
            id: folded.id.clone(),
            history_length: None,
            metadata: None,
        })
        .await
        .expect("get");
    assert_eq!(stored.status.state, folded.status.state);
    assert_eq!(stored.artifacts, folded.artifacts);
}

#[tokio::test]
async fn message_replies_and_headers() {
    let (_, client, base) =
        start(DefaultRequestHandler::builder(card(true), replier()).build()).await;
    let reply = client.send_message(send_params("hi")).await.expect("send");
    let SendMessageResult::Message(m) = reply else {
        panic!("expected a message: {reply:?}")
    };
    assert_eq!(m.text(), "|-");

    let client = JsonRpcTransport::new(format!("{base}/"))
        .with_header(
            HeaderName::from_static("x-a2a-extensions"),
            HeaderValue::from_static("urn:ext:a, urn:ext:b"),
        )
        .with_header(
            HeaderName::from_static("x-custom"),
            HeaderValue::from_static("42"),
        );
    let reply = client.send_message(send_params("hi")).await.expect("send");
    let SendMessageResult::Message(m) = reply else {
        panic!("expected a message: {reply:?}")
    };
    assert_eq!(m.text(), "urn:ext:a,urn:ext:b|42");
    let events = unwrap_all(
        collect(
            client
                .send_message_stream(send_params("s"))
                .await
                .expect("stream"),
        )
        .await,
    );
    assert!(
        matches!(events.as_slice(), [StreamResponse::Message(_)]),
        "{events:?}"
    );
}

#[tokio::test]
async fn cancel_and_resubscribe() {
    let gate = Arc::new(Notify::new());
    let (_, client, _) =
        start(DefaultRequestHandler::builder(card(true), gated(Arc::clone(&gate))).build()).await;

    // Resubscribe: the snapshot first, then the live events.
    let task = task_of(client.send_message(non_blocking("a")).await.expect("send"));
    wait_for_state(&client, &task.id, TaskState::Working).await;
    let mut stream = client
        .resubscribe_task(TaskIdParams::new(task.id.clone()))
        .await
        .expect("resubscribe");
    let first = tokio::time::timeout(WAIT, stream.next())
        .await
        .expect("in time")
        .expect("an event")
        .expect("not an error");
    let StreamResponse::Task(snapshot) = &first else {
        panic!("the snapshot comes first: {first:?}")
    };
    assert_eq!(snapshot.status.state, TaskState::Working);
    gate.notify_one();
    let mut events = vec![first];
    events.extend(unwrap_all(collect(stream).await));
    let folded = fold(&events);
    assert_eq!(folded.status.state, TaskState::Completed);
    assert_eq!(folded.artifacts.expect("artifacts")[0].text(), "late");

    // Cancel a running task, then again.
    let task = task_of(client.send_message(non_blocking("b")).await.expect("send"));
    let canceled = client
        .cancel_task(TaskIdParams::new(task.id.clone()))
        .await
        .expect("cancel");
    assert_eq!(canceled.status.state, TaskState::Canceled);
    let again = client
        .cancel_task(TaskIdParams::new(task.id.clone()))
        .await
        .expect_err("not cancelable");
    assert!(
        matches!(again, ClientError::A2a(A2aError::TaskNotCancelable { .. })),
        "{again:?}"
    );
}

#[tokio::test]
async fn push_config_operations() {
    let gate = Arc::new(Notify::new());
    let recorder = Arc::new(Recorder::default());
    let handler = DefaultRequestHandler::builder(card(true), gated(Arc::clone(&gate)))
        .push_sender(Arc::clone(&recorder) as Arc<dyn PushSender>)
        .build();
    let (_, client, _) = start(handler).await;
    let task = task_of(client.send_message(non_blocking("x")).await.expect("send"));

    let config = |id: Option<&str>, url: &str| TaskPushNotificationConfig {
        task_id: task.id.clone(),
        push_notification_config: PushNotificationConfig {
            id: id.map(str::to_owned),
            url: url.to_owned(),
            token: Some("tok".to_owned()),
            authentication: None,
        },
    };
    let set = client
        .set_push_config(config(None, "http://127.0.0.1:9/a"))
        .await
        .expect("set");
    assert_eq!(
        set.push_notification_config.id.as_deref(),
        Some(task.id.as_str())
    );
    client
        .set_push_config(config(Some("b"), "http://127.0.0.1:9/b"))
        .await
        .expect("set b");

    let got = client
        .get_push_config(GetTaskPushNotificationConfigParams {
            id: task.id.clone(),
            push_notification_config_id: Some("b".to_owned()),
            metadata: None,
        })
        .await
        .expect("get b");
    assert_eq!(got.push_notification_config.url, "http://127.0.0.1:9/b");
    let default = client
        .get_push_config(GetTaskPushNotificationConfigParams {
            id: task.id.clone(),
            push_notification_config_id: None,
            metadata: None,
        })
        .await
        .expect("get default");
    assert_eq!(default, set);

    let list = |id: String| ListTaskPushNotificationConfigParams { id, metadata: None };
    assert_eq!(
        client
            .list_push_configs(list(task.id.clone()))
            .await
            .expect("list")
            .len(),
        2
    );
    client
        .delete_push_config(DeleteTaskPushNotificationConfigParams {
            id: task.id.clone(),
            push_notification_config_id: "b".to_owned(),
            metadata: None,
        })
        .await
        .expect("delete");
    let remaining = client
        .list_push_configs(list(task.id.clone()))
        .await
        .expect("list");
    assert_eq!(remaining, vec![set]);

    gate.notify_one();
    wait_for_state(&client, &task.id, TaskState::Completed).await;
    let mut delivered = false;
    for _ in 0..500 {
        delivered = recorder
            .sent
            .lock()
            .expect("lock")
            .iter()
            .any(|(url, state)| url.ends_with("/a") && *state == TaskState::Completed);
        if delivered {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(delivered);
}

#[tokio::test]
async fn extended_card() {
    let mut extended = card(true);
    extended.name = "extended".to_owned();
    let (handler, client, _) = start(
        DefaultRequestHandler::builder(card(true), echo())
            .extended_agent_card(extended)
            .build(),
    )
    .await;
    let got = client
        .get_extended_agent_card()
        .await
        .expect("extended card");
    let direct = handler
        .get_extended_agent_card(&CallContext::default())
        .await
        .expect("direct");
    assert_eq!(got, direct);
    assert_eq!(got.name, "extended");
}

// ---------------------------------------------------------------------------
// Errors: the same A2aError on both sides of the wire
// ---------------------------------------------------------------------------

#[tokio::test]
async fn errors_surface_as_the_engine_returned_them() {
    let (handler, client, _) =
        start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    let ctx = CallContext::default();
    let query = TaskQueryParams {
        id: "nope".to_owned(),
        history_length: None,
        metadata: None,
    };

    // -32001, compared with what the engine itself returns.
    let direct = handler
        .get_task(&ctx, query.clone())
        .await
        .expect_err("unknown");
    let remote = client.get_task(query).await.expect_err("unknown");
    assert_eq!(remote, ClientError::A2a(direct));
    assert_eq!(remote.code(), Some(-32001));
    let remote = client
        .resubscribe_task(TaskIdParams::new("nope"))
        .await
        .err()
        .expect("resubscribe to an unknown task fails at once");
    assert!(
        matches!(remote, ClientError::A2a(A2aError::TaskNotFound { .. })),
        "{remote:?}"
    );

    // -32002
    let done = task_of(client.send_message(send_params("x")).await.expect("send"));
    let direct = handler
        .cancel_task(&ctx, TaskIdParams::new(done.id.clone()))
        .await
        .expect_err("terminal");
    let remote = client
        .cancel_task(TaskIdParams::new(done.id.clone()))
        .await
        .expect_err("terminal");
    assert_eq!(remote, ClientError::A2a(direct));

    // -32003
    let list = ListTaskPushNotificationConfigParams {
        id: done.id.clone(),
        metadata: None,
    };
    let direct = handler
        .list_push_configs(&ctx, list.clone())
        .await
        .expect_err("no push");
    let remote = client.list_push_configs(list).await.expect_err("no push");
    assert_eq!(remote, ClientError::A2a(direct));
    assert_eq!(remote.code(), Some(-32003));

    // -32005
    let mut params = send_params("x");
    params.configuration = Some(MessageSendConfiguration {
        accepted_output_modes: Some(vec!["image/png".to_owned()]),
        ..Default::default()
    });
    let direct = handler
        .send_message(&ctx, params.clone())
        .await
        .expect_err("modes");
    let remote = client
        .send_message(params.clone())
        .await
        .expect_err("modes");
    assert_eq!(remote, ClientError::A2a(direct));
    let remote = client
        .send_message_stream(params)
        .await
        .err()
        .expect("modes");
    assert_eq!(remote.code(), Some(-32005));

    // -32602: empty parts, and a negative historyLength.
    let mut params = send_params("x");
    params.message.parts.clear();
    let direct = handler
        .send_message(&ctx, params.clone())
        .await
        .expect_err("empty");
    let remote = client.send_message(params).await.expect_err("empty");
    assert_eq!(remote, ClientError::A2a(direct));
    let remote = client
        .get_task(TaskQueryParams {
            id: done.id.clone(),
            history_length: Some(-1),
            metadata: None,
        })
        .await
        .expect_err("negative");
    assert!(
        matches!(remote, ClientError::A2a(A2aError::InvalidParams { .. })),
        "{remote:?}"
    );

    // -32007
    let direct = handler
        .get_extended_agent_card(&ctx)
        .await
        .expect_err("none");
    let remote = client.get_extended_agent_card().await.expect_err("none");
    assert_eq!(remote, ClientError::A2a(direct));
}

#[tokio::test]
async fn streaming_disabled_and_bad_agents() {
    let (_, client, _) = start(DefaultRequestHandler::builder(card(false), echo()).build()).await;
    let e = client
        .send_message_stream(send_params("x"))
        .await
        .err()
        .expect("-32004");
    assert!(
        matches!(e, ClientError::A2a(A2aError::UnsupportedOperation { .. })),
        "{e:?}"
    );
    let e = client
        .resubscribe_task(TaskIdParams::new("any"))
        .await
        .err()
        .expect("-32004");
    assert_eq!(e.code(), Some(-32004));

    let (_, client, _) =
        start(DefaultRequestHandler::builder(card(true), wrong_task_id()).build()).await;
    let e = client
        .send_message(send_params("x"))
        .await
        .expect_err("-32006");
    assert!(
        matches!(e, ClientError::A2a(A2aError::InvalidAgentResponse { .. })),
        "{e:?}"
    );
    let e = client
        .send_message_stream(send_params("x"))
        .await
        .err()
        .expect("-32006");
    assert_eq!(e.code(), Some(-32006));
}

// ---------------------------------------------------------------------------
// Card discovery
// ---------------------------------------------------------------------------

#[tokio::test]
async fn card_fetch_with_legacy_fallback() {
    let (handler, _, base) =
        start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    let expected = (*handler.agent_card()).clone();
    assert_eq!(fetch_agent_card(&base).await.expect("card"), expected);
    assert_eq!(
        fetch_agent_card(&format!("{base}/")).await.expect("card"),
        expected
    );
    let direct = format!("{base}/.well-known/agent.json");
    assert_eq!(fetch_agent_card(&direct).await.expect("card"), expected);

    // A server with only the legacy path.
    let legacy_card = card(true);
    let body = serde_json::to_string(&legacy_card).expect("json");
    let legacy = serve(axum::Router::new().route(
        "/.well-known/agent.json",
        get(move || {
            let body = body.clone();
            async move { ([("content-type", "application/json")], body) }
        }),
    ))
    .await;
    assert_eq!(
        fetch_agent_card(&legacy).await.expect("legacy card"),
        legacy_card
    );

    // Neither path, or not a card.
    let empty = serve(axum::Router::new()).await;
    let e = fetch_agent_card(&empty).await.expect_err("no card");
    assert!(
        matches!(&e, ClientError::InvalidResponse(m) if m.contains("404")),
        "{e:?}"
    );
    let garbage = serve(axum::Router::new().route(
        "/.well-known/agent-card.json",
        get(|| async { "{\"name\": 1}" }),
    ))
    .await;
    let e = fetch_agent_card(&garbage).await.expect_err("not a card");
    assert!(matches!(e, ClientError::InvalidResponse(_)), "{e:?}");
}

// ---------------------------------------------------------------------------
// Unreachable and misbehaving peers
// ---------------------------------------------------------------------------

#[tokio::test]
async fn unreachable_server() {
    let dead = dead_port::DeadPort::new();
    let addr = dead.addr;
    let client = JsonRpcTransport::new(format!("http://{addr}/"));
    let e = client
        .send_message(send_params("x"))
        .await
        .expect_err("refused");
    assert!(matches!(e, ClientError::Unreachable(_)), "{e:?}");
    let e = client
        .send_message_stream(send_params("x"))
        .await
        .err()
        .expect("refused");
    assert!(matches!(e, ClientError::Unreachable(_)), "{e:?}");
    let e = fetch_agent_card(&format!("http://{addr}"))
        .await
        .expect_err("refused");
    assert!(matches!(e, ClientError::Unreachable(_)), "{e:?}");
    let e = JsonRpcTransport::new("not a url")
        .get_extended_agent_card()
        .await
        .expect_err("bad URL");
    assert!(matches!(e, ClientError::Unreachable(_)), "{e:?}");
}

#[tokio::test]
async fn misbehaving_servers() {
    const TASK: &str = r#"{"kind":"task","id":"t","contextId":"c","status":{"state":"working"}}"#;
    let app = axum::Router::new()
        .route("/not-json", post(|| async { "hello" }))
        .route("/html-404", post(|| async { (axum::http::StatusCode::NOT_FOUND, "<html>nope</html>") }))
        .route("/busy", post(|| async { axum::http::StatusCode::SERVICE_UNAVAILABLE }))
        .route(
            "/wrong-shape",
            post(|| async { r#"{"jsonrpc":"2.0","id":1,"result":{"kind":"message"}}"# }),
        )
        .route(
            "/json-error-on-stream",
            post(|| async {
                (
                    [("content-type", "application/json")],
                    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"gone"}}"#,
                )
            }),
        )
        .route(
            "/python-like-sse",
            post(|| async {
                // CRLF line ends, comments, an event: field, a data spread
                // over several lines, then an error event mid-stream.
                let body = format!(
                    ": ping - 2025-01-01 00:00:00\r\n\r\n\
                     event: message\r\ndata: {{\"jsonrpc\":\"2.0\",\r\ndata: \"id\":1,\r\ndata: \"result\":{TASK}}}\r\n\r\n\
                     : ping\r\n\r\n\
                     data: {{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{{\"code\":-32603,\"message\":\"boom\",\"data\":{{\"x\":1}}}}}}\r\n\r\n\
                     data: {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{TASK}}}\r\n\r\n"
                );
                ([("content-type", "text/event-stream; charset=utf-8")], body)
            }),
        )
        .route(
            "/garbage-sse",
            post(|| async {
                ([("content-type", "text/event-stream")], format!("data: {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{TASK}}}\n\ndata: nonsense\n\n"))
            }),
        );
    let base = serve(app).await;
    let at = |path: &str| JsonRpcTransport::new(format!("{base}{path}"));

    let e = at("/not-json")
        .send_message(send_params("x"))
        .await
        .expect_err("not JSON");
    assert!(matches!(e, ClientError::InvalidResponse(_)), "{e:?}");
    let e = at("/html-404")
        .get_task(TaskQueryParams {
            id: "t".into(),
            history_length: None,
            metadata: None,
        })
        .await
        .expect_err("404");
    assert!(
        matches!(&e, ClientError::InvalidResponse(m) if m.contains("404")),
        "{e:?}"
    );
    let e = at("/busy")
        .cancel_task(TaskIdParams::new("t"))
        .await
        .expect_err("503");
    assert!(matches!(e, ClientError::Unreachable(_)), "{e:?}");
    let e = at("/wrong-shape")
        .get_task(TaskQueryParams {
            id: "t".into(),
            history_length: None,
            metadata: None,
        })
        .await
        .expect_err("shape");
    assert!(matches!(e, ClientError::InvalidResponse(_)), "{e:?}");
    let e = at("/json-error-on-stream")
        .resubscribe_task(TaskIdParams::new("t"))
        .await
        .err()
        .expect("error");
    assert_eq!(e, ClientError::A2a(A2aError::task_not_found("gone")));

    let stream = at("/python-like-sse")
        .send_message_stream(send_params("x"))
        .await
        .expect("first event");
    let items = collect(stream).await;
    assert_eq!(items.len(), 2, "the stream ends after the error: {items:?}");
    assert!(
        matches!(&items[0], Ok(StreamResponse::Task(t)) if t.id == "t"),
        "{items:?}"
    );
    assert_eq!(
        items[1],
        Err(ClientError::A2a(
            A2aError::internal("boom").with_data(json!({"x": 1}))
        ))
    );

    let items = collect(
        at("/garbage-sse")
            .send_message_stream(send_params("x"))
            .await
            .expect("first"),
    )
    .await;
    assert_eq!(items.len(), 2, "{items:?}");
    assert!(
        matches!(items[1], Err(ClientError::InvalidResponse(_))),
        "{items:?}"
    );
}
