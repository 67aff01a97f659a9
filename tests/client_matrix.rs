//! The client × server matrix: `a2a_client::Client`, restricted to one
//! transport at a time, against
//!
//! - our server (`DefaultRequestHandler` behind the three adapters), every
//!   operation: `ours::{jsonrpc,grpc,rest}::*`;
//! - the official Python SDK server (`tests/interop/python_agent.py`,
//!   a2a-sdk 0.3.26) on each of its transports: `python::{jsonrpc,grpc,rest}::*`.
//!
//! Plus what only a client can show: transport selection from the card,
//! fallback when the preferred transport is down, interceptors reaching the
//! agent on all three transports alike, card discovery (legacy and custom
//! paths, credentials), the extended card, and agents without streaming.
//!
//! The Python half runs when `A2A_INTEROP_PYTHON` names the interop
//! virtualenv's interpreter (`bash tests/interop/setup.sh`); otherwise it
//! prints `SKIPPED`, and fails under `CI=true`. See `docs/conformance.md`.

#[path = "common/dead_port.rs"]
mod dead_port;
#[path = "common/python_peer.rs"]
mod python_peer;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use a2a_client::interceptor::{
    CallMeta, Credentials, Extensions, Operation, StaticHeaders, TraceContext, from_fn,
};
use a2a_client::{Client, ClientError, EventStream, TaskAccumulator, fold_stream, fold_task};
use a2a_core::test_util::ScriptedExecutor;
use a2a_core::{DefaultRequestHandler, PushSender, RequestHandler};
use a2a_types::{
    A2aError, AgentCard, DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams, ListTaskPushNotificationConfigParams, Message,
    MessageSendConfiguration, MessageSendParams, Part, PushNotificationConfig, SendMessageResult,
    StreamResponse, Task, TaskIdParams, TaskPushNotificationConfig, TaskQueryParams, TaskState,
};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use dead_port::DeadPort;
use futures::StreamExt;
use serde_json::json;

const WAIT: Duration = Duration::from_secs(30);
const TRANSPORTS: [&str; 3] = ["JSONRPC", "GRPC", "HTTP+JSON"];

// ---------------------------------------------------------------------------
// Our server
// ---------------------------------------------------------------------------

/// What our agent does, by the first word of a new task's text: `echo X`
/// (artifact `echo` in chunks), `reply X` (a message), `ask` (input-required,
/// then a greeting), `wait` (works until canceled), `headers` (a message
/// listing what the call context saw).
fn executor() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx, events| async move {
        let text = ctx.user_text();
        let task = ctx.updater(events.clone());
        if ctx.task.is_some() {
            task.start_work(None).await?;
            task.add_artifact(
                vec![Part::text(format!("Hello, {text}!"))],
                "greeting",
                Some("greeting"),
                false,
                true,
            )
            .await?;
            return task.complete(None).await;
        }
        let (verb, rest) = text.split_once(' ').unwrap_or((text.as_str(), ""));
        match verb {
            "reply" | "headers" => {
                let body = if verb == "reply" {
                    rest.to_owned()
                } else {
                    let h = |name: &str| {
                        ctx.call
                            .headers
                            .get(name)
                            .cloned()
                            .unwrap_or_else(|| "-".to_owned())
                    };
                    format!(
                        "{}|{}|{}|{}",
                        ctx.call.requested_extensions.join(","),
                        h("x-probe"),
                        h("authorization"),
                        h("traceparent"),
                    )
                };
                let mut reply = Message::agent_text(a2a_core::new_id(), body);
                reply.context_id = Some(ctx.context_id.clone());
                events.publish(StreamResponse::Message(reply)).await
            }
            "ask" => {
                task.requires_input(task.agent_text("What is your name?"))
                    .await
            }
            "wait" => {
                task.start_work(None).await?;
                tokio::select! {
                    () = ctx.cancellation.cancelled() => Ok(()),
                    () = tokio::time::sleep(WAIT) => task.fail(None).await,
                }
            }
            _ => {
                let body = if verb == "echo" { rest } else { text.as_str() };
                task.start_work(None).await?;
                let chars: Vec<char> = body.chars().collect();
                let size = chars.len().div_ceil(3).max(1);
                let pieces: Vec<String> = chars.chunks(size).map(|c| c.iter().collect()).collect();
                let last = pieces.len().saturating_sub(1);
                for (i, piece) in pieces.into_iter().enumerate() {
                    task.add_artifact(
                        vec![Part::text(piece)],
                        "echo",
                        Some("echo"),
                        i > 0,
                        i == last,
                    )
                    .await?;
                }
                task.complete(None).await
            }
        }
    })
}

#[derive(Default)]
struct NoPush;

#[async_trait::async_trait]
impl PushSender for NoPush {
    async fn send(&self, _: &PushNotificationConfig, _: &Task) -> Result<(), A2aError> {
        Ok(())
    }
}

/// Our agent on three listeners (bound first): its card, and the URL
/// of each transport.
struct Ours {
    card: AgentCard,
    urls: BTreeMap<&'static str, String>,
}

async fn bind() -> (tokio::net::TcpListener, std::net::SocketAddr) {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let a = l.local_addr().expect("addr");
    (l, a)
}

fn card_json(
    name: &str,
    preferred: (&str, &str),
    interfaces: &[(&str, &str)],
    streaming: bool,
) -> AgentCard {
    let interfaces: Vec<serde_json::Value> = interfaces
        .iter()
        .map(|(t, u)| json!({"transport": t, "url": u}))
        .collect();
    serde_json::from_value(json!({
        "protocolVersion": "0.3.0",
        "name": name,
        "description": "The client matrix's agent",
        "url": preferred.1,
        "preferredTransport": preferred.0,
        "additionalInterfaces": interfaces,
        "version": "1.0.0",
        "capabilities": {"streaming": streaming},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["test"]}]
    }))
    .expect("a card")
}

/// Serves our agent; `preferred` names the card's preferred transport.
async fn ours(preferred: &str, streaming: bool) -> Ours {
    let (jsonrpc, ja) = bind().await;
    let (rest, ra) = bind().await;
    let (grpc, ga) = bind().await;
    let urls = BTreeMap::from([
        ("JSONRPC", format!("http://{ja}/")),
        ("HTTP+JSON", format!("http://{ra}")),
        ("GRPC", format!("http://{ga}")),
    ]);
    let interfaces: Vec<(&str, &str)> = TRANSPORTS.iter().map(|t| (*t, urls[t].as_str())).collect();
    let card = card_json(
        "matrix-agent",
        (preferred, urls[preferred].as_str()),
        &interfaces,
        streaming,
    );
    let mut extended = card.clone();
    extended.name = "matrix-agent (extended)".to_owned();
    let handler: Arc<dyn RequestHandler> = Arc::new(
        DefaultRequestHandler::builder(card, executor())
            .push_sender(Arc::new(NoPush))
            .extended_agent_card(extended)
            .build(),
    );
    let card = (*handler.agent_card()).clone();
    let router = a2a_jsonrpc::router(Arc::clone(&handler));
    tokio::spawn(async move { axum::serve(jsonrpc, router).await });
    let router = a2a_http_json::router(Arc::clone(&handler));
    tokio::spawn(async move { axum::serve(rest, router).await });
    tokio::spawn(a2a_grpc::serve(grpc, handler, std::future::pending()));
    Ours { card, urls }
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn params(text: &str) -> MessageSendParams {
    MessageSendParams::new(Message::user_text(a2a_core::new_id(), text))
}

fn non_blocking(text: &str) -> MessageSendParams {
    let mut p = params(text);
    p.configuration = Some(MessageSendConfiguration {
        blocking: Some(false),
        ..Default::default()
    });
    p
}

fn follow_up(task: &Task, text: &str) -> MessageSendParams {
    let mut p = params(text);
    p.message.task_id = Some(task.id.clone());
    p.message.context_id = Some(task.context_id.clone());
    p
}

fn query(id: &str, history_length: Option<i32>) -> TaskQueryParams {
    TaskQueryParams {
        id: id.to_owned(),
        history_length,
        metadata: None,
    }
}

#[track_caller]
fn task_of(r: SendMessageResult) -> Task {
    match r {
        SendMessageResult::Task(t) => t,
        SendMessageResult::Message(m) => panic!("expected a task, got {m:?}"),
    }
}

#[track_caller]
fn message_of(r: SendMessageResult) -> Message {
    match r {
        SendMessageResult::Message(m) => m,
        SendMessageResult::Task(t) => panic!("expected a message, got {t:?}"),
    }
}

fn artifact_text(task: &Task, name: &str) -> String {
    task.artifacts
        .iter()
        .flatten()
        .find(|a| a.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no artifact {name:?} in {task:?}"))
        .text()
}

async fn timed<T>(what: &str, f: impl Future<Output = T>) -> T {
    tokio::time::timeout(WAIT, f)
        .await
        .unwrap_or_else(|_| panic!("{what} in time"))
}

async fn fold(stream: EventStream) -> Task {
    timed("the stream folds", fold_task(stream))
        .await
        .expect("a task")
}

async fn wait_for_state(client: &Client, id: &str, state: TaskState) -> Task {
    let deadline = Instant::now() + WAIT;
    loop {
        let t = client.get_task(query(id, None)).await.expect("get");
        if t.status.state == state {
            return t;
        }
        assert!(
            Instant::now() < deadline,
            "{id} never reached {state}: {t:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A client for `card` that may use `transport` only.
fn only(card: &AgentCard, transport: &str) -> Client {
    Client::builder()
        .transports([transport])
        .build(card.clone())
        .expect("the card declares the transport")
}

// ---------------------------------------------------------------------------
// Our client against our server, one transport at a time
// ---------------------------------------------------------------------------

async fn every_operation_against_our_server(transport: &'static str) {
    let server = ours("JSONRPC", true).await;
    let client = only(&server.card, transport);
    assert_eq!(client.transport(), transport);
    assert_eq!(
        client.url(),
        server.urls[transport],
        "the card's URL for {transport}"
    );

    // Send: a task, a message.
    let task = task_of(
        client
            .send_message(params("echo hello matrix"))
            .await
            .expect("send"),
    );
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(artifact_text(&task, "echo"), "hello matrix");
    let reply = message_of(client.send_message(params("reply hi")).await.expect("send"));
    assert_eq!(reply.text(), "hi");

    // Stream, folded: the same task as `get` returns.
    let stream = client
        .send_message_stream(params("echo streamed words"))
        .await
        .expect("stream");
    let folded = fold(stream).await;
    assert_eq!(folded.status.state, TaskState::Completed);
    assert_eq!(artifact_text(&folded, "echo"), "streamed words");
    let got = client.get_task(query(&folded.id, None)).await.expect("get");
    assert_eq!(got.artifacts, folded.artifacts);
    assert_eq!(got.status, folded.status);
    // A message reply folds to the message.
    let stream = client
        .send_message_stream(params("reply streamed"))
        .await
        .expect("stream");
    let r = timed("fold", fold_stream(stream)).await.expect("a reply");
    assert_eq!(message_of(r).text(), "streamed");

    // Multi-turn, and historyLength.
    let asked = task_of(client.send_message(params("ask")).await.expect("send"));
    assert_eq!(asked.status.state, TaskState::InputRequired);
    let done = task_of(
        client
            .send_message(follow_up(&asked, "Ada"))
            .await
            .expect("answer"),
    );
    assert_eq!(done.status.state, TaskState::Completed);
    assert_eq!(artifact_text(&done, "greeting"), "Hello, Ada!");
    let one = client
        .get_task(query(&asked.id, Some(1)))
        .await
        .expect("get");
    assert_eq!(one.history.as_ref().map(Vec::len), Some(1));

    // Non-blocking, resubscribe (snapshot first), cancel (the stream ends
    // canceled), cancel again, unknown task.
    let waiting = task_of(
        client
            .send_message(non_blocking("wait"))
            .await
            .expect("send"),
    );
    wait_for_state(&client, &waiting.id, TaskState::Working).await;
    let mut events = client
        .resubscribe_task(TaskIdParams::new(waiting.id.clone()))
        .await
        .expect("resubscribe");
    let first = timed("the snapshot", events.next())
        .await
        .expect("an event")
        .expect("ok");
    assert!(
        matches!(&first, StreamResponse::Task(t) if t.id == waiting.id),
        "{first:?}"
    );
    let mut acc = TaskAccumulator::new();
    acc.apply(first).expect("fold");
    let canceled = client
        .cancel_task(TaskIdParams::new(waiting.id.clone()))
        .await
        .expect("cancel");
    assert_eq!(canceled.status.state, TaskState::Canceled);
    while let Some(e) = timed("the live events", events.next()).await {
        acc.apply(e.expect("no error")).expect("fold");
    }
    assert_eq!(
        acc.task().expect("a task").status.state,
        TaskState::Canceled
    );
    let e = client
        .cancel_task(TaskIdParams::new(waiting.id.clone()))
        .await
        .expect_err("not cancelable");
    assert!(
        matches!(e, ClientError::A2a(A2aError::TaskNotCancelable { .. })),
        "{e:?}"
    );
    let e = client
        .get_task(query("no-such-task", None))
        .await
        .expect_err("unknown");
    assert!(
        matches!(e, ClientError::A2a(A2aError::TaskNotFound { .. })),
        "{e:?}"
    );

    // Push configs: set, get, list, delete.
    let config = TaskPushNotificationConfig {
        task_id: asked.id.clone(),
        push_notification_config: PushNotificationConfig {
            id: Some("cfg".to_owned()),
            url: "http://127.0.0.1:9/hook".to_owned(),
            token: Some("tok".to_owned()),
            authentication: None,
        },
    };
    assert_eq!(
        client.set_push_config(config.clone()).await.expect("set"),
        config
    );
    let get = GetTaskPushNotificationConfigParams {
        id: asked.id.clone(),
        push_notification_config_id: Some("cfg".to_owned()),
        metadata: None,
    };
    assert_eq!(
        client.get_push_config(get.clone()).await.expect("get"),
        config
    );
    let list = ListTaskPushNotificationConfigParams {
        id: asked.id.clone(),
        metadata: None,
    };
    assert_eq!(
        client.list_push_configs(list.clone()).await.expect("list"),
        [config]
    );
    client
        .delete_push_config(DeleteTaskPushNotificationConfigParams {
            id: asked.id.clone(),
            push_notification_config_id: "cfg".to_owned(),
            metadata: None,
        })
        .await
        .expect("delete");
    assert_eq!(client.list_push_configs(list).await.expect("list"), []);
    let e = client.get_push_config(get).await.expect_err("deleted");
    assert_eq!(e.code(), Some(-32602), "{e:?}");

    // The extended card (gRPC: `GetAgentCard` answers the public card).
    let extended = client
        .get_extended_agent_card()
        .await
        .expect("extended card");
    let expected = if transport == "GRPC" {
        "matrix-agent"
    } else {
        "matrix-agent (extended)"
    };
    assert_eq!(extended.name, expected);
    assert_eq!(
        client.card().name,
        expected,
        "the client uses the card it fetched"
    );
}

/// Interceptors reach the agent identically on every transport: headers
/// (HTTP) or metadata (gRPC), extensions, credentials, trace context.
async fn interceptors_reach_the_agent(transport: &'static str) {
    let server = ours("JSONRPC", true).await;
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    let client = Client::builder()
        .transports([transport])
        .interceptor(Extensions::new(["urn:ext:a", "urn:ext:b"]))
        .interceptor(Credentials::bearer("s3cret"))
        .interceptor(TraceContext::new(|| {
            Some("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".to_owned())
        }))
        .interceptor(StaticHeaders::new().with(
            HeaderName::from_static("x-probe"),
            HeaderValue::from_static("probe-1"),
        ))
        .interceptor(from_fn(move |call: &mut CallMeta| {
            assert_eq!(call.transport(), transport);
            counter.fetch_add(1, Ordering::Relaxed);
            Ok(())
        }))
        .build(server.card.clone())
        .expect("client");
    let expected = "urn:ext:a,urn:ext:b|probe-1|Bearer s3cret|00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let reply = message_of(client.send_message(params("headers")).await.expect("send"));
    assert_eq!(reply.text(), expected, "{transport}");
    let r = timed(
        "fold",
        fold_stream(
            client
                .send_message_stream(params("headers"))
                .await
                .expect("stream"),
        ),
    )
    .await
    .expect("reply");
    assert_eq!(message_of(r).text(), expected, "{transport}, streaming");
    assert_eq!(
        seen.load(Ordering::Relaxed),
        2,
        "one interceptor call per call"
    );

    // An interceptor can refuse a call: nothing is sent, no fallback.
    let refusing = Client::builder()
        .transports([transport])
        .interceptor(from_fn(|call: &mut CallMeta| {
            if call.operation() == Operation::SendMessage {
                Err(ClientError::Interceptor("read-only".to_owned()))
            } else {
                Ok(())
            }
        }))
        .build(server.card.clone())
        .expect("client");
    let e = refusing
        .send_message(params("echo x"))
        .await
        .expect_err("refused");
    assert_eq!(e, ClientError::Interceptor("read-only".to_owned()));
    let e = refusing
        .get_task(query("nope", None))
        .await
        .expect_err("sent");
    assert_eq!(e.code(), Some(-32001));
}

macro_rules! per_transport {
    ($($case:ident),* $(,)?) => {
        mod ours {
            pub(crate) mod jsonrpc {
                $(#[tokio::test] async fn $case() { crate::$case("JSONRPC").await })*
            }
            pub(crate) mod grpc {
                $(#[tokio::test] async fn $case() { crate::$case("GRPC").await })*
            }
            pub(crate) mod rest {
                $(#[tokio::test] async fn $case() { crate::$case("HTTP+JSON").await })*
            }
        }
    };
}

per_transport! {
    every_operation_against_our_server,
    interceptors_reach_the_agent,
}

// ---------------------------------------------------------------------------
// Transport selection and fallback
// ---------------------------------------------------------------------------

#[tokio::test]
async fn selection_follows_the_card_then_the_client() {
    let server = ours("GRPC", true).await;
    // The card's preferred transport first (spec §5.6.3), then the client's order.
    let client = Client::from_card(server.card.clone()).expect("client");
    assert_eq!(client.transport(), "GRPC");
    let order: Vec<String> = client
        .interfaces()
        .into_iter()
        .map(|i| i.transport)
        .collect();
    assert_eq!(order, ["GRPC", "JSONRPC", "HTTP+JSON"]);
    let t = task_of(client.send_message(params("echo x")).await.expect("send"));
    assert_eq!(t.status.state, TaskState::Completed);
    // The client's order alone.
    let client = Client::builder()
        .transports(["HTTP+JSON", "JSONRPC"])
        .client_preference(true)
        .build(server.card.clone())
        .expect("client");
    assert_eq!(client.transport(), "HTTP+JSON");
    assert_eq!(client.url(), server.urls["HTTP+JSON"]);
    // A client without the preferred transport uses its own first choice.
    let client = Client::builder()
        .transports(["HTTP+JSON", "JSONRPC"])
        .build(server.card.clone())
        .expect("client");
    assert_eq!(client.transport(), "HTTP+JSON");
    // Nothing in common.
    let only_grpc = card_json("g", ("GRPC", "http://127.0.0.1:1"), &[], true);
    let e = Client::builder()
        .transports(["JSONRPC"])
        .build(only_grpc)
        .expect_err("nothing in common");
    assert!(matches!(e, ClientError::NoTransport(_)), "{e:?}");
}

#[tokio::test]
async fn fallback_when_the_preferred_transport_is_down() {
    let server = ours("JSONRPC", true).await;
    let dead = DeadPort::new();
    let dead_grpc = format!("http://{}", dead.addr);
    // A card whose preferred transport (gRPC) is down.
    let card = card_json(
        "matrix-agent",
        ("GRPC", &dead_grpc),
        &[
            ("GRPC", &dead_grpc),
            ("JSONRPC", &server.urls["JSONRPC"]),
            ("HTTP+JSON", &server.urls["HTTP+JSON"]),
        ],
        true,
    );
    let client = Client::from_card(card.clone()).expect("client");
    assert_eq!(client.transport(), "GRPC");
    let t = task_of(
        client
            .send_message(params("echo through the fallback"))
            .await
            .expect("send"),
    );
    assert_eq!(artifact_text(&t, "echo"), "through the fallback");
    // It remembers the transport that answered.
    assert_eq!(client.transport(), "JSONRPC");
    assert_eq!(client.url(), server.urls["JSONRPC"]);
    let got = client.get_task(query(&t.id, None)).await.expect("get");
    assert_eq!(got.id, t.id);
    // The agent's errors do not make it fall back.
    let e = client
        .get_task(query("nope", None))
        .await
        .expect_err("unknown");
    assert_eq!(e.code(), Some(-32001));
    assert_eq!(client.transport(), "JSONRPC");

    // Streams fall back too (before their first event).
    let client = Client::from_card(card.clone()).expect("client");
    let folded = fold(
        client
            .send_message_stream(params("echo streamed fallback"))
            .await
            .expect("stream"),
    )
    .await;
    assert_eq!(artifact_text(&folded, "echo"), "streamed fallback");
    assert_eq!(client.transport(), "JSONRPC");

    // An HTTP transport down: the next one.
    let dead_http_port = DeadPort::new();
    let dead_http = format!("http://{}/", dead_http_port.addr);
    let card = card_json(
        "matrix-agent",
        ("JSONRPC", &dead_http),
        &[
            ("JSONRPC", &dead_http),
            ("HTTP+JSON", &server.urls["HTTP+JSON"]),
        ],
        true,
    );
    let client = Client::from_card(card.clone()).expect("client");
    task_of(client.send_message(params("echo x")).await.expect("send"));
    assert_eq!(client.transport(), "HTTP+JSON");

    // Without fallback: the first transport's failure.
    let client = Client::builder()
        .fallback(false)
        .build(card)
        .expect("client");
    let e = client
        .send_message(params("echo x"))
        .await
        .expect_err("down");
    assert!(e.is_unreachable(), "{e:?}");
    assert_eq!(client.transport(), "JSONRPC");

    // Everything down: one error naming every interface.
    let card = card_json(
        "down",
        ("JSONRPC", &dead_http),
        &[("GRPC", &dead_grpc), ("HTTP+JSON", &dead_http)],
        true,
    );
    let client = Client::from_card(card).expect("client");
    let e = client
        .send_message(params("echo x"))
        .await
        .expect_err("all down");
    let ClientError::Unreachable(why) = &e else {
        panic!("{e:?}")
    };
    for t in TRANSPORTS {
        assert!(why.contains(t), "{t} in {why}");
    }
}

// ---------------------------------------------------------------------------
// Card discovery, extended card, agents without streaming
// ---------------------------------------------------------------------------

async fn serve(app: axum::Router) -> String {
    let (l, a) = bind().await;
    tokio::spawn(async move { axum::serve(l, app).await });
    format!("http://{a}")
}

#[tokio::test]
async fn connect_discovers_the_card() {
    let server = ours("JSONRPC", true).await;
    let base = server.urls["JSONRPC"].clone();
    let client = Client::connect(&base).await.expect("connect");
    assert_eq!(*client.card(), server.card);
    assert_eq!(client.transport(), "JSONRPC");
    task_of(client.send_message(params("echo x")).await.expect("send"));

    // The extended card, fetched at connect when asked for.
    let client = Client::builder()
        .extended_card(true)
        .connect(&base)
        .await
        .expect("connect");
    assert_eq!(client.card().name, "matrix-agent (extended)");

    // Only the legacy path; a custom path; credentials on the card route.
    let card = serde_json::to_string(&server.card).expect("json");
    let (c1, c2, c3) = (card.clone(), card.clone(), card);
    let app = axum::Router::new()
        .route(
            "/legacy/.well-known/agent.json",
            axum::routing::get(move || async move { c1 }),
        )
        .route(
            "/cards/matrix.json",
            axum::routing::get(move || async move { c2 }),
        )
        .route(
            "/private/.well-known/agent-card.json",
            axum::routing::get(move |headers: axum::http::HeaderMap| async move {
                if headers.get("authorization").and_then(|v| v.to_str().ok()) == Some("Bearer t") {
                    Ok(c3)
                } else {
                    Err(StatusCode::UNAUTHORIZED)
                }
            }),
        );
    let cards = serve(app).await;
    let client = Client::connect(&format!("{cards}/legacy"))
        .await
        .expect("legacy path");
    assert_eq!(client.card().name, "matrix-agent");
    let client = Client::builder()
        .card_path("/cards/matrix.json")
        .connect(&cards)
        .await
        .expect("custom path");
    assert_eq!(client.card().name, "matrix-agent");
    task_of(client.send_message(params("echo x")).await.expect("send"));
    let e = Client::connect(&format!("{cards}/private"))
        .await
        .expect_err("no credentials");
    assert!(
        matches!(&e, ClientError::InvalidResponse(m) if m.contains("401")),
        "{e:?}"
    );
    let client = Client::builder()
        .interceptor(Credentials::bearer("t"))
        .connect(&format!("{cards}/private"))
        .await
        .expect("credentials");
    assert_eq!(client.card().name, "matrix-agent");
    let e = Client::connect(&format!("http://{}", DeadPort::new().addr))
        .await
        .expect_err("down");
    assert!(e.is_unreachable(), "{e:?}");
}

#[tokio::test]
async fn extended_card_is_only_asked_for_when_declared() {
    let server = ours("JSONRPC", true).await;
    let mut card = server.card.clone();
    card.supports_authenticated_extended_card = None;
    let client = Client::from_card(card).expect("client");
    let e = client
        .get_extended_agent_card()
        .await
        .expect_err("not declared");
    assert_eq!(e.code(), Some(-32007));
}

#[tokio::test]
async fn agents_without_streaming_get_one_event() {
    let server = ours("JSONRPC", false).await;
    for transport in TRANSPORTS {
        let client = only(&server.card, transport);
        let mut events = client
            .send_message_stream(params("echo plain"))
            .await
            .expect("stream");
        let first = timed("the event", events.next())
            .await
            .expect("an event")
            .expect("ok");
        let StreamResponse::Task(t) = first else {
            panic!("{transport}: {first:?}")
        };
        assert_eq!(t.status.state, TaskState::Completed, "{transport}");
        assert!(
            timed("the end", events.next()).await.is_none(),
            "{transport}"
        );
        let e = client
            .resubscribe_task(TaskIdParams::new(t.id))
            .await
            .err()
            .expect("no streaming");
        assert_eq!(e.code(), Some(-32004), "{transport}");
    }
}

// ---------------------------------------------------------------------------
// Our client against the official Python SDK server
// ---------------------------------------------------------------------------

/// What the Python SDK server (0.3.26) gives our client on `transport`.
async fn every_operation_against_the_python_sdk(transport: &'static str) {
    let Some(python) = python_peer::python("client_matrix python::*") else {
        return;
    };
    let peer = tokio::task::spawn_blocking(move || python_peer::start(&python))
        .await
        .expect("started");
    // Discovery through the card, then the interface declared for `transport`.
    let client = Client::builder()
        .transports([transport])
        .connect(peer.url("jsonrpc"))
        .await
        .expect("the card");
    assert_eq!(client.card().name, "python-sdk-demo");
    assert_eq!(client.transport(), transport);

    let task = task_of(
        client
            .send_message(params("héllo python"))
            .await
            .expect("send"),
    );
    assert_eq!(task.status.state, TaskState::Completed, "{task:?}");
    assert_eq!(artifact_text(&task, "echo"), "héllo python");

    let mut p = params("reply please");
    p.message.metadata = json!({"reply": "message"}).as_object().cloned();
    let m = message_of(client.send_message(p).await.expect("send"));
    assert!(m.text().starts_with("reply please"), "{m:?}");

    let folded = fold(
        client
            .send_message_stream(params("streamed words"))
            .await
            .expect("stream"),
    )
    .await;
    assert_eq!(folded.status.state, TaskState::Completed);
    assert_eq!(artifact_text(&folded, "echo"), "streamed words");

    let got = client
        .get_task(query(&task.id, Some(1)))
        .await
        .expect("get");
    assert_eq!(got.history.as_ref().map(Vec::len), Some(1), "{got:?}");

    let asked = task_of(
        client
            .send_message(params("interview"))
            .await
            .expect("send"),
    );
    assert_eq!(asked.status.state, TaskState::InputRequired);
    let done = task_of(
        client
            .send_message(follow_up(&asked, "Ada"))
            .await
            .expect("answer"),
    );
    assert_eq!(done.status.state, TaskState::Completed);
    assert!(artifact_text(&done, "greeting").contains("Ada"));

    // Non-blocking, resubscribe (the SDK sends live events, no snapshot),
    // cancel, cancel again, unknown task.
    let countdown = task_of(
        client
            .send_message(non_blocking("countdown 5"))
            .await
            .expect("send"),
    );
    let mut events = client
        .resubscribe_task(TaskIdParams::new(countdown.id.clone()))
        .await
        .expect("resubscribe");
    let first = timed("an event", events.next())
        .await
        .expect("an event")
        .expect("ok");
    assert!(
        matches!(&first, StreamResponse::StatusUpdate(e)
            if e.task_id == countdown.id && e.status.state == TaskState::Working),
        "the SDK resubscribes to live events, no snapshot first: {first:?}"
    );
    drop(events);
    let canceled = client
        .cancel_task(TaskIdParams::new(countdown.id.clone()))
        .await
        .expect("cancel");
    assert_eq!(canceled.status.state, TaskState::Canceled);
    let e = client
        .cancel_task(TaskIdParams::new(countdown.id.clone()))
        .await
        .expect_err("not cancelable");
    assert_eq!(e.code(), Some(-32002), "{e:?}");
    let e = client
        .get_task(query("no-such-task", None))
        .await
        .expect_err("unknown");
    assert_eq!(e.code(), Some(-32001), "{e:?}");

    // Push configs: set and get everywhere; list and delete where the SDK
    // has them (JSON-RPC), typed errors elsewhere.
    let config = TaskPushNotificationConfig {
        task_id: asked.id.clone(),
        push_notification_config: PushNotificationConfig {
            id: Some("cfg".to_owned()),
            url: "http://127.0.0.1:9/hook".to_owned(),
            token: Some("tok".to_owned()),
            authentication: None,
        },
    };
    let set = client.set_push_config(config.clone()).await.expect("set");
    assert_eq!(set.push_notification_config.url, "http://127.0.0.1:9/hook");
    let got = client
        .get_push_config(GetTaskPushNotificationConfigParams {
            id: asked.id.clone(),
            push_notification_config_id: Some("cfg".to_owned()),
            metadata: None,
        })
        .await
        .expect("get");
    assert_eq!(got.push_notification_config.token.as_deref(), Some("tok"));
    let list = client
        .list_push_configs(ListTaskPushNotificationConfigParams {
            id: asked.id.clone(),
            metadata: None,
        })
        .await;
    let delete = client
        .delete_push_config(DeleteTaskPushNotificationConfigParams {
            id: asked.id.clone(),
            push_notification_config_id: "cfg".to_owned(),
            metadata: None,
        })
        .await;
    match transport {
        "JSONRPC" => {
            assert_eq!(list.expect("list").len(), 1);
            delete.expect("delete");
        }
        // REST: list is a 500 (`InternalError`), delete has no route (405:
        // `MethodNotFoundError`).
        "HTTP+JSON" => {
            assert_eq!(list.expect_err("no list").code(), Some(-32603));
            assert_eq!(delete.expect_err("no delete").code(), Some(-32601));
        }
        // gRPC: both UNIMPLEMENTED without an A2A error name
        // (`UnsupportedOperationError` by the status code).
        _ => {
            assert_eq!(list.expect_err("no list").code(), Some(-32004));
            assert_eq!(delete.expect_err("no delete").code(), Some(-32004));
        }
    }

    // The extended card (the SDK's is its public card).
    let card = client
        .get_extended_agent_card()
        .await
        .expect("extended card");
    assert_eq!(card.name, "python-sdk-demo");
    drop(peer);
}

mod python {
    pub(crate) mod jsonrpc {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn every_operation_against_the_python_sdk() {
            crate::every_operation_against_the_python_sdk("JSONRPC").await;
        }
    }
    pub(crate) mod grpc {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn every_operation_against_the_python_sdk() {
            crate::every_operation_against_the_python_sdk("GRPC").await;
        }
    }
    pub(crate) mod rest {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn every_operation_against_the_python_sdk() {
            crate::every_operation_against_the_python_sdk("HTTP+JSON").await;
        }
    }
}
