//! `a2a_client::rest::RestTransport` against the `a2a-http-json` router over
//! a real socket: every operation, stream folding, errors surfacing as the
//! very `A2aError` the engine returned, the error table read the same way on
//! both sides, and the client's handling of unreachable peers and of what the
//! Python SDK server puts on the wire (`\r\n`, pings, indented multi-line
//! `data:`, `{"message": …}` errors).

#[path = "common/agents.rs"]
mod agents;
#[path = "common/dead_port.rs"]
mod dead_port;

use std::sync::Arc;
use std::time::Duration;

use a2a_client::rest::{RestTransport, error_from_response};
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
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use futures::StreamExt;
use serde_json::json;
use tokio::sync::Notify;

const WAIT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

fn card(name: &str, streaming: bool) -> AgentCard {
    serde_json::from_value(json!({
        "protocolVersion": "0.3.0",
        "name": name,
        "description": "An agent scripted by the REST client tests",
        "url": "http://127.0.0.1/",
        "preferredTransport": "HTTP+JSON",
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

/// Serves `handler` with the REST router; returns the handler (for
/// in-process comparisons), a transport pointed at it, and the base URL.
async fn start(
    handler: DefaultRequestHandler,
) -> (Arc<DefaultRequestHandler>, RestTransport, String) {
    let handler = Arc::new(handler);
    let base = serve(a2a_http_json::router(
        Arc::clone(&handler) as Arc<dyn RequestHandler>
    ))
    .await;
    // A trailing slash, as cards often have, is fine.
    (handler, RestTransport::new(format!("{base}/")), base)
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

fn query(id: &str, history_length: Option<i32>) -> TaskQueryParams {
    TaskQueryParams {
        id: id.to_owned(),
        history_length,
        metadata: None,
    }
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

async fn wait_for_state(client: &RestTransport, task_id: &str, state: TaskState) -> Task {
    for _ in 0..500 {
        let task = client
            .get_task(query(task_id, None))
            .await
            .expect("get task");
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
    let (handler, client, _) =
        start(DefaultRequestHandler::builder(card("rest", true), echo()).build()).await;
    assert_eq!(client.name(), "HTTP+JSON");

    let task = task_of(
        client
            .send_message(send_params("hello"))
            .await
            .expect("send"),
    );
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(
        task.artifacts.clone().expect("artifacts")[0].text(),
        "hello!"
    );
    // The same task as the engine holds, timestamps included (`Z` on the wire).
    let direct = handler
        .get_task(&CallContext::default(), query(&task.id, None))
        .await
        .expect("direct");
    assert_eq!(task, direct);

    let got = client
        .get_task(query(&task.id, Some(1)))
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
    let stored = client.get_task(query(&folded.id, None)).await.expect("get");
    assert_eq!(stored.status, folded.status);
    assert_eq!(stored.artifacts, folded.artifacts);
}

#[tokio::test]
async fn message_replies_and_headers() {
    let (_, client, base) =
        start(DefaultRequestHandler::builder(card("rest", true), replier()).build()).await;
    let reply = client.send_message(send_params("hi")).await.expect("send");
    let SendMessageResult::Message(m) = reply else {
        panic!("expected a message: {reply:?}")
    };
    assert_eq!(m.text(), "|-");

    let client = RestTransport::new(base)
        .with_client(reqwest::Client::new())
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
        start(DefaultRequestHandler::builder(card("rest", true), gated(Arc::clone(&gate))).build())
            .await;

    // Resubscribe (GET): the snapshot first, then the live events.
    let task = task_of(client.send_message(non_blocking("a")).await.expect("send"));
    assert_ne!(task.status.state, TaskState::Completed, "non-blocking");
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
    let handler = DefaultRequestHandler::builder(card("rest", true), gated(Arc::clone(&gate)))
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
    // No id: the request carries the task id (as `a2a_pb::convert` defaults it).
    let set = client
        .set_push_config(config(None, "http://127.0.0.1:9/a"))
        .await
        .expect("set");
    assert_eq!(
        set.push_notification_config.id.as_deref(),
        Some(task.id.as_str())
    );
    assert_eq!(set.push_notification_config.token.as_deref(), Some("tok"));
    let b = client
        .set_push_config(config(Some("b:1 x"), "http://127.0.0.1:9/b"))
        .await
        .expect("set b (an id that needs percent-encoding)");
    assert_eq!(b.push_notification_config.id.as_deref(), Some("b:1 x"));

    let got = client
        .get_push_config(GetTaskPushNotificationConfigParams {
            id: task.id.clone(),
            push_notification_config_id: Some("b:1 x".to_owned()),
            metadata: None,
        })
        .await
        .expect("get b");
    assert_eq!(got, b);
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
            push_notification_config_id: "b:1 x".to_owned(),
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
async fn extended_card_or_the_public_card() {
    let (handler, client, _) = start(
        DefaultRequestHandler::builder(card("public", true), echo())
            .extended_agent_card(card("extended", true))
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

    // Without one, `GET /v1/card` is the public card (as the binding documents).
    let (handler, client, _) =
        start(DefaultRequestHandler::builder(card("public", true), echo()).build()).await;
    let got = client
        .get_extended_agent_card()
        .await
        .expect("the public card");
    assert_eq!(got, *handler.agent_card());
}

// ---------------------------------------------------------------------------
// Errors: the same A2aError on both sides of the wire
// ---------------------------------------------------------------------------

#[tokio::test]
async fn errors_surface_as_the_engine_returned_them() {
    let (handler, client, _) =
        start(DefaultRequestHandler::builder(card("rest", true), echo()).build()).await;
    let ctx = CallContext::default();

    // -32001
    let direct = handler
        .get_task(&ctx, query("nope", None))
        .await
        .expect_err("unknown");
    let remote = client
        .get_task(query("nope", None))
        .await
        .expect_err("unknown");
    assert_eq!(remote, ClientError::A2a(direct));
    let remote = client
        .resubscribe_task(TaskIdParams::new("nope"))
        .await
        .err()
        .expect("resubscribe to an unknown task fails at once");
    assert!(
        matches!(remote, ClientError::A2a(A2aError::TaskNotFound { .. })),
        "{remote:?}"
    );
    let remote = client
        .cancel_task(TaskIdParams::new("a:b c"))
        .await
        .expect_err("unknown, with characters to encode");
    assert_eq!(remote.code(), Some(-32001), "{remote:?}");

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
        blocking: Some(true),
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

    // -32602: empty parts, a negative historyLength.
    let mut params = send_params("x");
    params.message.parts.clear();
    let direct = handler
        .send_message(&ctx, params.clone())
        .await
        .expect_err("empty");
    let remote = client.send_message(params).await.expect_err("empty");
    assert_eq!(remote, ClientError::A2a(direct));
    let remote = client
        .get_task(query(&done.id, Some(-1)))
        .await
        .expect_err("negative");
    assert!(
        matches!(remote, ClientError::A2a(A2aError::InvalidParams { .. })),
        "{remote:?}"
    );
}

#[tokio::test]
async fn streaming_disabled_and_bad_agents() {
    let (_, client, _) =
        start(DefaultRequestHandler::builder(card("rest", false), echo()).build()).await;
    let e = client
        .send_message_stream(send_params("x"))
        .await
        .err()
        .expect("no streaming");
    assert_eq!(e.code(), Some(-32004), "{e:?}");
    let e = client
        .resubscribe_task(TaskIdParams::new("t"))
        .await
        .err()
        .expect("no streaming");
    assert_eq!(e.code(), Some(-32004), "{e:?}");

    let (handler, client, _) =
        start(DefaultRequestHandler::builder(card("rest", true), wrong_task_id()).build()).await;
    let direct = handler
        .send_message(&CallContext::default(), send_params("x"))
        .await
        .expect_err("bad agent");
    let remote = client
        .send_message(send_params("x"))
        .await
        .expect_err("bad agent");
    // The messages name the (random) task ids; the variant is the same.
    assert!(matches!(direct, A2aError::InvalidAgentResponse { .. }));
    assert!(
        matches!(
            remote,
            ClientError::A2a(A2aError::InvalidAgentResponse { .. })
        ),
        "{remote:?}"
    );
    // In a stream, the error is the stream's last item (or the call's error
    // when it comes first).
    match client.send_message_stream(send_params("x")).await {
        Err(e) => assert_eq!(e.code(), Some(-32006)),
        Ok(stream) => {
            let items = collect(stream).await;
            let last = items
                .last()
                .expect("an item")
                .as_ref()
                .expect_err("an error");
            assert_eq!(last.code(), Some(-32006));
        }
    }
}

#[tokio::test]
async fn the_error_table_reads_the_same_on_both_sides() {
    // Our body gives back the exact error, whatever the status.
    let mut errors: Vec<A2aError> = a2a_types::SPEC_ERROR_CODES
        .iter()
        .map(|&code| A2aError::from_code(code, format!("m{code}"), Some(json!({"code": code}))))
        .collect();
    errors.push(A2aError::from_code(-32050, "server-defined", None));
    for e in errors {
        let response = a2a_http_json::RestError(e.clone()).into_response();
        let status = response.status();
        assert_eq!(status, a2a_http_json::http_status(&e));
        let body = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .expect("body");
        assert_eq!(error_from_response(status, &body), ClientError::A2a(e));
    }
    // A body that is not ours: the status decides, the same way on both sides.
    for &code in a2a_types::SPEC_ERROR_CODES {
        let status = a2a_http_json::http_status(&A2aError::from_code(code, "x", None));
        let server = a2a_http_json::error_for_status(status, "m").expect("a row");
        let client = error_from_response(status, br#"{"message":"m"}"#);
        assert_eq!(client, ClientError::A2a(server), "{status}");
    }
}

// ---------------------------------------------------------------------------
// Peers that are not ours
// ---------------------------------------------------------------------------

#[tokio::test]
async fn unreachable_agents_are_unreachable() {
    let dead = dead_port::DeadPort::new();
    let addr = dead.addr;
    let client = RestTransport::new(format!("http://{addr}"));
    let e = client
        .send_message(send_params("x"))
        .await
        .expect_err("refused");
    assert!(matches!(e, ClientError::Unreachable(_)), "{e:?}");
    let e = client
        .get_task(query("t", None))
        .await
        .expect_err("refused");
    assert!(matches!(e, ClientError::Unreachable(_)), "{e:?}");
    let e = client
        .send_message_stream(send_params("x"))
        .await
        .err()
        .expect("refused");
    assert!(matches!(e, ClientError::Unreachable(_)), "{e:?}");
    let e = client.get_extended_agent_card().await.expect_err("refused");
    assert!(matches!(e, ClientError::Unreachable(_)), "{e:?}");
}

/// What the Python SDK's REST server writes: `\r\n` line ends, a ping
/// comment, `MessageToJson` indented over several `data:` lines, no
/// timestamps, and `{"message": …}` errors.
fn python_like_peer() -> axum::Router {
    const TASK: &str = "{\n  \"task\": {\n    \"id\": \"t-1\",\n    \"contextId\": \"c-1\",\n    \"status\": {\n      \"state\": \"TASK_STATE_WORKING\"\n    }\n  }\n}";
    const DONE: &str = "{\n  \"statusUpdate\": {\n    \"taskId\": \"t-1\",\n    \"contextId\": \"c-1\",\n    \"status\": {\n      \"state\": \"TASK_STATE_COMPLETED\"\n    },\n    \"final\": true\n  }\n}";
    fn sse(body: String) -> axum::response::Response {
        ([("content-type", "text/event-stream")], body).into_response()
    }
    fn frame(json: &str) -> String {
        let mut out = String::new();
        for line in json.lines() {
            out.push_str("data: ");
            out.push_str(line);
            out.push_str("\r\n");
        }
        out.push_str("\r\n");
        out
    }
    axum::Router::new()
        .route(
            "/v1/tasks/{*rest}",
            get(|uri: axum::http::Uri| async move {
                let path = uri.path();
                if path.ends_with(":subscribe") {
                    sse(format!(
                        ": ping - 2025-01-01 00:00:00.000000+00:00\r\n\r\n{}{}",
                        frame(TASK),
                        frame(DONE)
                    ))
                } else if path.ends_with("/pushNotificationConfigs") {
                    (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error").into_response()
                } else if path.ends_with("/t-bad") {
                    ([("content-type", "application/json")], "not json").into_response()
                } else if path.ends_with("/t-nostatus") {
                    axum::Json(json!({"id": "t-nostatus", "contextId": "c"})).into_response()
                } else {
                    (
                        StatusCode::NOT_FOUND,
                        axum::Json(json!({"message": "Task not found"})),
                    )
                        .into_response()
                }
            })
            .post(|| async {
                (
                    StatusCode::CONFLICT,
                    axum::Json(json!({"message": "Task cannot be canceled"})),
                )
            }),
        )
        .route(
            "/v1/message:stream",
            post(|| async {
                (
                    StatusCode::BAD_GATEWAY,
                    [("content-type", "text/html")],
                    "<html>bad gateway</html>",
                )
            }),
        )
        .route(
            "/v1/message:send",
            post(|| async { (StatusCode::UNAUTHORIZED, "no") }),
        )
}

#[tokio::test]
async fn a_python_like_peer_is_understood() {
    let base = serve(python_like_peer()).await;
    let client = RestTransport::new(base);

    let events = unwrap_all(
        collect(
            client
                .resubscribe_task(TaskIdParams::new("t-1"))
                .await
                .expect("subscribe"),
        )
        .await,
    );
    assert_eq!(events.len(), 2, "{events:?}");
    let folded = fold(&events);
    assert_eq!(folded.id, "t-1");
    assert_eq!(folded.status.state, TaskState::Completed);
    assert_eq!(folded.status.timestamp, None);

    let e = client.get_task(query("t-9", None)).await.expect_err("404");
    assert_eq!(
        e,
        ClientError::A2a(A2aError::task_not_found("Task not found"))
    );
    let e = client
        .cancel_task(TaskIdParams::new("t-1"))
        .await
        .expect_err("409");
    assert_eq!(e.code(), Some(-32002));
    let e = client
        .list_push_configs(ListTaskPushNotificationConfigParams {
            id: "t-1".to_owned(),
            metadata: None,
        })
        .await
        .expect_err("500");
    assert_eq!(e.code(), Some(-32603));
    let e = client
        .get_task(query("t-bad", None))
        .await
        .expect_err("not JSON");
    assert!(matches!(e, ClientError::InvalidResponse(_)), "{e:?}");
    let e = client
        .get_task(query("t-nostatus", None))
        .await
        .expect_err("no status");
    assert!(matches!(e, ClientError::InvalidResponse(_)), "{e:?}");
    let e = client
        .send_message_stream(send_params("x"))
        .await
        .err()
        .expect("gateway");
    assert!(matches!(e, ClientError::Unreachable(_)), "{e:?}");
    let e = client
        .send_message(send_params("x"))
        .await
        .expect_err("401");
    assert!(
        matches!(e, ClientError::InvalidResponse(ref m) if m.contains("401")),
        "{e:?}"
    );
    // No `/v1/card` route: no extended card.
    let e = client.get_extended_agent_card().await.expect_err("no card");
    assert_eq!(e.code(), Some(-32007), "{e:?}");
}
