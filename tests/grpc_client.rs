//! `a2a_client::grpc::GrpcTransport` against `a2a_grpc::serve` over a real
//! socket: every operation, stream folding, both URL forms, errors surfacing
//! as the very `A2aError` the engine returned — the same value the JSON-RPC
//! transport gets from the same handler — and unreachable or non-gRPC peers.

#[path = "common/agents.rs"]
mod agents;
#[path = "common/dead_port.rs"]
mod dead_port;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a_client::grpc::{AsciiMetadataKey, AsciiMetadataValue, GrpcTransport};
use a2a_client::jsonrpc::JsonRpcTransport;
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
use futures::StreamExt;
use serde_json::json;
use tokio::sync::watch;

const WAIT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

fn card(streaming: bool) -> AgentCard {
    serde_json::from_value(json!({
        "protocolVersion": "0.3.0",
        "name": "grpc-client-test-agent",
        "description": "An agent scripted by the gRPC client tests",
        "url": "127.0.0.1:1",
        "preferredTransport": "GRPC",
        "version": "1.0.0",
        "capabilities": {"streaming": streaming},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["test"]}]
    }))
    .expect("a valid card")
}

/// Opening it releases every gated execution, present and future.
fn gate() -> (watch::Sender<bool>, watch::Receiver<bool>) {
    watch::channel(false)
}

/// Works, then waits for the gate (or a cancel) before completing.
fn gated(gate: watch::Receiver<bool>) -> ScriptedExecutor {
    ScriptedExecutor::new(move |ctx, events| {
        let mut gate = gate.clone();
        async move {
            let task = ctx.updater(events);
            task.start_work(None).await?;
            tokio::select! {
                _ = async { gate.wait_for(|open| *open).await.is_ok() } => {}
                () = ctx.cancellation.cancelled() => return Ok(()),
                () = tokio::time::sleep(WAIT) => return task.fail(None).await,
            }
            task.add_artifact(vec![Part::text("late")], "a-1", None, false, true)
                .await?;
            task.complete(None).await
        }
    })
}

/// One handler served over gRPC (`a2a_grpc::serve`) and JSON-RPC, with a
/// client for each.
struct Served {
    handler: Arc<DefaultRequestHandler>,
    addr: SocketAddr,
    grpc: GrpcTransport,
    jsonrpc: JsonRpcTransport,
}

async fn start(handler: DefaultRequestHandler) -> Served {
    let handler = Arc::new(handler);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("local addr");
    let dyn_handler: Arc<dyn RequestHandler> = Arc::clone(&handler) as Arc<dyn RequestHandler>;
    tokio::spawn(a2a_grpc::serve(
        listener,
        Arc::clone(&dyn_handler),
        std::future::pending(),
    ));
    let http = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let http_addr = http.local_addr().expect("local addr");
    tokio::spawn(async move { axum::serve(http, a2a_jsonrpc::router(dyn_handler)).await });
    Served {
        handler,
        addr,
        grpc: GrpcTransport::connect(&addr.to_string())
            .await
            .expect("connect"),
        jsonrpc: JsonRpcTransport::new(format!("http://{http_addr}/")),
    }
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

fn query(id: &str) -> TaskQueryParams {
    TaskQueryParams {
        id: id.to_owned(),
        history_length: None,
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

async fn wait_for_state(client: &dyn Transport, task_id: &str, state: TaskState) -> Task {
    for _ in 0..500 {
        let task = client.get_task(query(task_id)).await.expect("GetTask");
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
    let s = start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    let client = &s.grpc;
    assert_eq!(client.name(), "GRPC");
    assert_eq!(client.target(), format!("http://{}/", s.addr));

    let task = task_of(
        client
            .send_message(send_params("hello ✓"))
            .await
            .expect("send"),
    );
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(
        task.artifacts.as_ref().expect("artifacts")[0].text(),
        "hello ✓!"
    );
    // What the client got is what the engine stored (timestamps aside:
    // gRPC keeps the instant, not the spelling).
    let direct = s
        .handler
        .get_task(&CallContext::default(), query(&task.id))
        .await
        .expect("direct");
    assert_eq!(task.id, direct.id);
    assert_eq!(task.history, direct.history);
    assert_eq!(task.artifacts, direct.artifacts);

    let got = client
        .get_task(TaskQueryParams {
            id: task.id.clone(),
            history_length: Some(1),
            metadata: None,
        })
        .await
        .expect("get");
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
    let stored = client.get_task(query(&folded.id)).await.expect("get");
    assert_eq!(stored.status.state, folded.status.state);
    assert_eq!(stored.artifacts, folded.artifacts);
}

#[tokio::test]
async fn both_url_forms_and_lazy_connections() {
    let s = start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    let task = task_of(s.grpc.send_message(send_params("x")).await.expect("send"));
    for url in [
        s.addr.to_string(),
        format!("http://{}", s.addr),
        format!("http://{}/", s.addr),
        format!("dns:///{}", s.addr),
    ] {
        let client = GrpcTransport::connect(&url).await.expect(&url);
        let got = client.get_task(query(&task.id)).await.expect(&url);
        assert_eq!(got.id, task.id);
        let lazy = GrpcTransport::connect_lazy(&url).expect(&url);
        let got = lazy.get_task(query(&task.id)).await.expect(&url);
        assert_eq!(got.id, task.id);
    }
    // A path is a prefix of the method paths: our server has none.
    let prefixed = GrpcTransport::connect(&format!("http://{}/a2a", s.addr))
        .await
        .expect("connect");
    assert_eq!(prefixed.target(), format!("http://{}/a2a", s.addr));
    let e = prefixed
        .get_task(query(&task.id))
        .await
        .expect_err("no such path");
    assert!(
        matches!(e, ClientError::A2a(A2aError::UnsupportedOperation { .. })),
        "{e:?}"
    );
}

#[tokio::test]
async fn blocking_by_default_non_blocking_on_request() {
    let (open, gate) = gate();
    let s = start(DefaultRequestHandler::builder(card(true), gated(gate)).build()).await;

    // Without configuration: blocks (the transport sends `blocking: true`).
    let client = s.grpc.clone();
    let blocked = tokio::spawn(async move { client.send_message(send_params("a")).await });
    for _ in 0..500 {
        if s.handler.running_tasks() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(s.handler.running_tasks(), 1);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !blocked.is_finished(),
        "a send without configuration must block"
    );
    open.send_replace(true);
    let task = task_of(
        tokio::time::timeout(WAIT, blocked)
            .await
            .expect("in time")
            .expect("no panic")
            .expect("send"),
    );
    assert_eq!(task.status.state, TaskState::Completed);

    // blocking: false returns at once.
    let (_open, gate) = self::gate();
    let s = start(DefaultRequestHandler::builder(card(true), gated(gate)).build()).await;
    let task = task_of(s.grpc.send_message(non_blocking("b")).await.expect("send"));
    assert!(
        matches!(task.status.state, TaskState::Submitted | TaskState::Working),
        "{task:?}"
    );
}

#[tokio::test]
async fn message_replies_and_metadata() {
    let s = start(DefaultRequestHandler::builder(card(true), replier()).build()).await;
    let reply = s.grpc.send_message(send_params("hi")).await.expect("send");
    let SendMessageResult::Message(m) = reply else {
        panic!("expected a message: {reply:?}")
    };
    assert_eq!(m.text(), "|-");

    let client = s
        .grpc
        .clone()
        .with_metadata(
            AsciiMetadataKey::from_static("x-a2a-extensions"),
            AsciiMetadataValue::from_static("urn:ext:a, urn:ext:b"),
        )
        .with_metadata(
            AsciiMetadataKey::from_static("x-custom"),
            AsciiMetadataValue::from_static("42"),
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
    let (open, gate) = gate();
    let s = start(DefaultRequestHandler::builder(card(true), gated(gate)).build()).await;
    let client = &s.grpc;

    // Resubscribe: the snapshot first, then the live events.
    let task = task_of(client.send_message(non_blocking("a")).await.expect("send"));
    wait_for_state(client, &task.id, TaskState::Working).await;
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
    open.send_replace(true);
    let mut events = vec![first];
    events.extend(unwrap_all(collect(stream).await));
    let folded = fold(&events);
    assert_eq!(folded.status.state, TaskState::Completed);
    assert_eq!(folded.artifacts.expect("artifacts")[0].text(), "late");

    // Cancel a running task, then again.
    let (_open, gate) = self::gate();
    let s = start(DefaultRequestHandler::builder(card(true), gated(gate)).build()).await;
    let task = task_of(s.grpc.send_message(non_blocking("b")).await.expect("send"));
    let canceled = s
        .grpc
        .cancel_task(TaskIdParams::new(task.id.clone()))
        .await
        .expect("cancel");
    assert_eq!(canceled.status.state, TaskState::Canceled);
    let again = s
        .grpc
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
    let (open, gate) = gate();
    let recorder = Arc::new(Recorder::default());
    let handler = DefaultRequestHandler::builder(card(true), gated(gate))
        .push_sender(Arc::clone(&recorder) as Arc<dyn PushSender>)
        .build();
    let s = start(handler).await;
    let client = &s.grpc;
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
    assert_eq!(set.push_notification_config.token.as_deref(), Some("tok"));
    let b = client
        .set_push_config(config(Some("b"), "http://127.0.0.1:9/b"))
        .await
        .expect("set b");
    assert_eq!(b, config(Some("b"), "http://127.0.0.1:9/b"));

    let got = client
        .get_push_config(GetTaskPushNotificationConfigParams {
            id: task.id.clone(),
            push_notification_config_id: Some("b".to_owned()),
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
    let mut all = client
        .list_push_configs(list(task.id.clone()))
        .await
        .expect("list");
    all.sort_by(|x, y| {
        x.push_notification_config
            .id
            .cmp(&y.push_notification_config.id)
    });
    let mut expected = vec![set.clone(), b.clone()];
    expected.sort_by(|x, y| {
        x.push_notification_config
            .id
            .cmp(&y.push_notification_config.id)
    });
    assert_eq!(all, expected);
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

    open.send_replace(true);
    wait_for_state(client, &task.id, TaskState::Completed).await;
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
async fn agent_card_over_grpc_is_the_public_card() {
    let mut extended = card(true);
    extended.name = "extended".to_owned();
    let s = start(
        DefaultRequestHandler::builder(card(true), echo())
            .extended_agent_card(extended)
            .build(),
    )
    .await;
    let got = s
        .grpc
        .get_extended_agent_card()
        .await
        .expect("GetAgentCard");
    assert_eq!(got, public_card_over_proto(&s));
    assert_eq!(got.name, "grpc-client-test-agent");
    // JSON-RPC serves the extended one.
    let ext = s.jsonrpc.get_extended_agent_card().await.expect("extended");
    assert_eq!(ext.name, "extended");

    // Without an extended card: JSON-RPC says -32007, gRPC still answers.
    let s = start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    assert_eq!(
        s.jsonrpc
            .get_extended_agent_card()
            .await
            .expect_err("none")
            .code(),
        Some(-32007)
    );
    let got = s
        .grpc
        .get_extended_agent_card()
        .await
        .expect("GetAgentCard");
    assert_eq!(got, public_card_over_proto(&s));
}

/// The public card as proto3 carries it: `false` capabilities read back as
/// absent (see `a2a_pb::convert`).
fn public_card_over_proto(s: &Served) -> AgentCard {
    let mut card = (*s.handler.agent_card()).clone();
    assert_eq!(card.capabilities.push_notifications, Some(false));
    card.capabilities.push_notifications = None;
    card
}

// ---------------------------------------------------------------------------
// Errors: the same A2aError as the engine and as JSON-RPC
// ---------------------------------------------------------------------------

/// Asserts that gRPC, JSON-RPC and the engine agree on an error.
fn same_error(grpc: ClientError, jsonrpc: ClientError, direct: A2aError, code: i32) {
    assert_eq!(grpc, ClientError::A2a(direct), "gRPC vs the engine");
    assert_eq!(grpc, jsonrpc, "gRPC vs JSON-RPC");
    assert_eq!(grpc.code(), Some(code));
}

async fn stream_err(call: Result<EventStream, ClientError>) -> ClientError {
    call.err().expect("the streaming call fails at once")
}

#[tokio::test]
async fn errors_are_the_same_as_over_json_rpc() {
    let s = start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    let ctx = CallContext::default();
    let (g, j, h) = (&s.grpc, &s.jsonrpc, &s.handler);

    // -32001
    same_error(
        g.get_task(query("nope")).await.expect_err("unknown"),
        j.get_task(query("nope")).await.expect_err("unknown"),
        h.get_task(&ctx, query("nope")).await.expect_err("unknown"),
        -32001,
    );
    same_error(
        g.cancel_task(TaskIdParams::new("nope"))
            .await
            .expect_err("unknown"),
        j.cancel_task(TaskIdParams::new("nope"))
            .await
            .expect_err("unknown"),
        h.cancel_task(&ctx, TaskIdParams::new("nope"))
            .await
            .expect_err("unknown"),
        -32001,
    );
    same_error(
        stream_err(g.resubscribe_task(TaskIdParams::new("nope")).await).await,
        stream_err(j.resubscribe_task(TaskIdParams::new("nope")).await).await,
        h.resubscribe_task(&ctx, TaskIdParams::new("nope"))
            .await
            .err()
            .expect("unknown"),
        -32001,
    );

    // -32002
    let done = task_of(g.send_message(send_params("x")).await.expect("send"));
    let id = TaskIdParams::new(done.id.clone());
    same_error(
        g.cancel_task(id.clone()).await.expect_err("terminal"),
        j.cancel_task(id.clone()).await.expect_err("terminal"),
        h.cancel_task(&ctx, id.clone()).await.expect_err("terminal"),
        -32002,
    );

    // -32003, every push operation.
    let list = ListTaskPushNotificationConfigParams {
        id: done.id.clone(),
        metadata: None,
    };
    same_error(
        g.list_push_configs(list.clone())
            .await
            .expect_err("no push"),
        j.list_push_configs(list.clone())
            .await
            .expect_err("no push"),
        h.list_push_configs(&ctx, list).await.expect_err("no push"),
        -32003,
    );
    let set = TaskPushNotificationConfig {
        task_id: done.id.clone(),
        push_notification_config: PushNotificationConfig {
            id: Some("c".to_owned()),
            url: "http://127.0.0.1:9/".to_owned(),
            token: None,
            authentication: None,
        },
    };
    same_error(
        g.set_push_config(set.clone()).await.expect_err("no push"),
        j.set_push_config(set.clone()).await.expect_err("no push"),
        h.set_push_config(&ctx, set).await.expect_err("no push"),
        -32003,
    );
    let get = GetTaskPushNotificationConfigParams {
        id: done.id.clone(),
        push_notification_config_id: Some("c".to_owned()),
        metadata: None,
    };
    same_error(
        g.get_push_config(get.clone()).await.expect_err("no push"),
        j.get_push_config(get.clone()).await.expect_err("no push"),
        h.get_push_config(&ctx, get).await.expect_err("no push"),
        -32003,
    );
    let delete = DeleteTaskPushNotificationConfigParams {
        id: done.id.clone(),
        push_notification_config_id: "c".to_owned(),
        metadata: None,
    };
    same_error(
        g.delete_push_config(delete.clone())
            .await
            .expect_err("no push"),
        j.delete_push_config(delete.clone())
            .await
            .expect_err("no push"),
        h.delete_push_config(&ctx, delete)
            .await
            .expect_err("no push"),
        -32003,
    );

    // -32005
    let mut params = send_params("x");
    params.configuration = Some(MessageSendConfiguration {
        accepted_output_modes: Some(vec!["image/png".to_owned()]),
        ..Default::default()
    });
    same_error(
        g.send_message(params.clone()).await.expect_err("modes"),
        j.send_message(params.clone()).await.expect_err("modes"),
        h.send_message(&ctx, params.clone())
            .await
            .expect_err("modes"),
        -32005,
    );
    same_error(
        stream_err(g.send_message_stream(params.clone()).await).await,
        stream_err(j.send_message_stream(params.clone()).await).await,
        h.send_message(&ctx, params).await.expect_err("modes"),
        -32005,
    );

    // -32602: empty parts, a negative historyLength, a terminal task.
    let mut empty = send_params("x");
    empty.message.parts.clear();
    same_error(
        g.send_message(empty.clone()).await.expect_err("empty"),
        j.send_message(empty.clone()).await.expect_err("empty"),
        h.send_message(&ctx, empty).await.expect_err("empty"),
        -32602,
    );
    let negative = TaskQueryParams {
        id: done.id.clone(),
        history_length: Some(-1),
        metadata: None,
    };
    same_error(
        g.get_task(negative.clone()).await.expect_err("negative"),
        j.get_task(negative.clone()).await.expect_err("negative"),
        h.get_task(&ctx, negative).await.expect_err("negative"),
        -32602,
    );
    let mut late = send_params("again");
    late.message.task_id = Some(done.id.clone());
    same_error(
        g.send_message(late.clone()).await.expect_err("terminal"),
        j.send_message(late.clone()).await.expect_err("terminal"),
        h.send_message(&ctx, late).await.expect_err("terminal"),
        -32602,
    );
}

#[tokio::test]
async fn streaming_disabled_and_bad_agents() {
    let s = start(DefaultRequestHandler::builder(card(false), echo()).build()).await;
    let ctx = CallContext::default();
    same_error(
        stream_err(s.grpc.send_message_stream(send_params("x")).await).await,
        stream_err(s.jsonrpc.send_message_stream(send_params("x")).await).await,
        s.handler
            .send_message_stream(&ctx, send_params("x"))
            .await
            .err()
            .expect("-32004"),
        -32004,
    );
    let e = stream_err(s.grpc.resubscribe_task(TaskIdParams::new("any")).await).await;
    assert!(
        matches!(e, ClientError::A2a(A2aError::UnsupportedOperation { .. })),
        "{e:?}"
    );

    let s = start(DefaultRequestHandler::builder(card(true), wrong_task_id()).build()).await;
    let g = s
        .grpc
        .send_message(send_params("x"))
        .await
        .expect_err("-32006");
    let j = s
        .jsonrpc
        .send_message(send_params("x"))
        .await
        .expect_err("-32006");
    assert!(
        matches!(g, ClientError::A2a(A2aError::InvalidAgentResponse { .. })),
        "{g:?}"
    );
    // Same error, for two different tasks (the message names the task).
    assert_eq!(g.code(), j.code());
    assert!(
        matches!(&g, ClientError::A2a(e) if e.message().starts_with("event for task not-my-task published on task ")),
        "{g:?}"
    );
    let e = stream_err(s.grpc.send_message_stream(send_params("x")).await).await;
    assert_eq!(e.code(), Some(-32006));
}

// ---------------------------------------------------------------------------
// Unreachable and non-gRPC peers
// ---------------------------------------------------------------------------

#[tokio::test]
async fn unreachable_servers() {
    let dead = dead_port::DeadPort::new();
    let addr = dead.addr;

    for url in [addr.to_string(), format!("http://{addr}")] {
        let e = GrpcTransport::connect(&url).await.expect_err("refused");
        assert!(matches!(e, ClientError::Unreachable(_)), "{e:?}");
    }
    let lazy = GrpcTransport::connect_lazy(&addr.to_string()).expect("a valid URL");
    let e = lazy
        .send_message(send_params("x"))
        .await
        .expect_err("refused");
    assert!(matches!(e, ClientError::Unreachable(_)), "{e:?}");
    let e = stream_err(lazy.send_message_stream(send_params("x")).await).await;
    assert!(matches!(e, ClientError::Unreachable(_)), "{e:?}");
    let e = lazy.get_extended_agent_card().await.expect_err("refused");
    assert!(matches!(e, ClientError::Unreachable(_)), "{e:?}");

    let e = GrpcTransport::connect(&format!("https://{addr}"))
        .await
        .expect_err("no TLS");
    assert!(
        matches!(&e, ClientError::Unreachable(m) if m.contains("TLS is not supported")),
        "{e:?}"
    );
    let e = GrpcTransport::connect("not a url")
        .await
        .expect_err("bad URL");
    assert!(matches!(e, ClientError::Unreachable(_)), "{e:?}");
}

#[tokio::test]
async fn a_server_that_is_not_grpc_is_an_invalid_response() {
    // An HTTP/2-capable server that knows nothing of gRPC (axum, h2c).
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, axum::Router::new()).await });
    let client = GrpcTransport::connect(&addr.to_string())
        .await
        .expect("TCP connects");
    let e = client.get_task(query("t")).await.expect_err("not gRPC");
    assert!(matches!(e, ClientError::InvalidResponse(_)), "{e:?}");
    let e = stream_err(client.send_message_stream(send_params("x")).await).await;
    assert!(matches!(e, ClientError::InvalidResponse(_)), "{e:?}");
}
