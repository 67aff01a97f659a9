//! The agent under test: one `DefaultRequestHandler` with a scripted
//! executor, served by all three adapters on `127.0.0.1:0` listeners (bound
//! before anything is served), plus a second, "bare" handler without
//! streaming, push notifications or an extended card. Both live on a
//! runtime of their own, started once per test binary, so every test (each
//! with its own runtime) talks to the same servers.
//!
//! # The script
//!
//! The first word of a new task's first part decides what the agent does:
//!
//! | text | the agent |
//! |---|---|
//! | `echo X` | `working` ("working on it"), artifact `echo` = X in three chunks (append, lastChunk on the last), `completed` ("done") |
//! | `reply X` | one agent `Message` with X (no task) |
//! | `ask` | `input-required` ("What is your name?"); the answer → `working`, artifact `greeting` = "Hello, <answer>!", `completed` ("bye") |
//! | `wait G` | `working`, then waits for gate G ([`open_gate`]) → artifact `late` = "late", `completed`; a cancel stops it |
//! | `artifacts` | artifact `a-1` in chunks "Hel" + "lo" + " world" (named `greeting`), artifact `a-2` "draft" replaced by "final", `completed` |
//! | `fail` | `working`, then the execution returns an error: the engine marks the task `failed` |
//! | `error CODE` | returns `A2aError::from_code(CODE, "scripted error", {"scripted": true})` before any event |
//! | `invalid` | publishes an event for another task (the engine refuses it: `InvalidAgentResponseError`) |
//! | `headers` | one agent `Message`: the requested extensions (`,`-joined) `|` the `x-conformance-probe` header |
//! | `parts` | one agent `Message` with every part after the first and the message's metadata |
//! | `parts task` | a task whose artifact `copy` has every part after the first, `completed` |
//! | anything else | as `echo` with the whole text |

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use a2a_core::test_util::ScriptedExecutor;
use a2a_core::{DefaultRequestHandler, PushSender, RequestHandler};
use a2a_types::{A2aError, AgentCard, Message, Part, PushNotificationConfig, StreamResponse, Task};
use serde_json::json;
use tokio::sync::watch;

use super::model::WAIT;

/// The question of the `ask` script.
pub(crate) const QUESTION: &str = "What is your name?";
/// The header the `headers` script reports.
pub(crate) const PROBE_HEADER: &str = "x-conformance-probe";

/// Where one handler is served.
#[derive(Debug, Clone)]
pub(crate) struct Endpoints {
    /// `http://127.0.0.1:P/` (JSON-RPC `POST /`, card at `/.well-known/…`).
    pub(crate) jsonrpc: String,
    /// `http://127.0.0.1:P` (REST `/v1/…`, card at `/.well-known/…`).
    pub(crate) rest: String,
    /// `http://127.0.0.1:P` (gRPC `a2a.v1.A2AService`).
    pub(crate) grpc: String,
}

/// The servers of this test binary.
pub(crate) struct Servers {
    pub(crate) main: Endpoints,
    pub(crate) bare: Endpoints,
    pub(crate) main_handler: Arc<DefaultRequestHandler>,
    pub(crate) bare_handler: Arc<DefaultRequestHandler>,
    /// The runtime the servers (and the in-process driver's calls) run on.
    pub(crate) runtime: tokio::runtime::Handle,
}

/// The servers, started on first use.
pub(crate) fn servers() -> &'static Servers {
    static SERVERS: OnceLock<Servers> = OnceLock::new();
    SERVERS.get_or_init(start)
}

fn start() -> Servers {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("conformance-servers".to_owned())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(4)
                .enable_all()
                .build()
                .expect("the servers' runtime");
            runtime.block_on(async move {
                let main = serve(true).await;
                let bare = serve(false).await;
                tx.send(Servers {
                    main: main.0,
                    bare: bare.0,
                    main_handler: main.1,
                    bare_handler: bare.1,
                    runtime: tokio::runtime::Handle::current(),
                })
                .expect("the test thread waits");
                // Serve until the test binary exits.
                std::future::pending::<()>().await;
            });
        })
        .expect("the servers' thread");
    rx.recv_timeout(WAIT).expect("the servers start in time")
}

async fn bind() -> (tokio::net::TcpListener, std::net::SocketAddr) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("local addr");
    (listener, addr)
}

/// Binds three listeners, builds the handler with a card naming them, and
/// serves it on each.
async fn serve(full: bool) -> (Endpoints, Arc<DefaultRequestHandler>) {
    let (jsonrpc, jsonrpc_addr) = bind().await;
    let (rest, rest_addr) = bind().await;
    let (grpc, grpc_addr) = bind().await;
    let endpoints = Endpoints {
        jsonrpc: format!("http://{jsonrpc_addr}/"),
        rest: format!("http://{rest_addr}"),
        grpc: format!("http://{grpc_addr}"),
    };
    let name = if full {
        "conformance-agent"
    } else {
        "conformance-agent-bare"
    };
    let card = card(name, &endpoints, full);
    let mut builder = DefaultRequestHandler::builder(card.clone(), executor());
    if full {
        let mut extended = card;
        extended.name = format!("{name} (extended)");
        extended.skills.push(
            serde_json::from_value(json!({
                "id": "secret", "name": "Secret", "description": "Only in the extended card",
                "tags": ["conformance"]
            }))
            .expect("a skill"),
        );
        builder = builder
            .push_sender(Arc::new(Recorder::default()))
            .extended_agent_card(extended);
    }
    let handler = Arc::new(builder.build());
    let dyn_handler: Arc<dyn RequestHandler> = Arc::clone(&handler) as Arc<dyn RequestHandler>;
    let router = a2a_jsonrpc::router(Arc::clone(&dyn_handler));
    tokio::spawn(async move { axum::serve(jsonrpc, router).await });
    let router = a2a_http_json::router(Arc::clone(&dyn_handler));
    tokio::spawn(async move { axum::serve(rest, router).await });
    tokio::spawn(a2a_grpc::serve(grpc, dyn_handler, std::future::pending()));
    (endpoints, handler)
}

fn card(name: &str, e: &Endpoints, streaming: bool) -> AgentCard {
    serde_json::from_value(json!({
        "protocolVersion": "0.3.0",
        "name": name,
        "description": "The agent of the conformance suite, scripted by the first word of each message",
        "url": e.jsonrpc,
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": [
            {"transport": "JSONRPC", "url": e.jsonrpc},
            {"transport": "GRPC", "url": e.grpc},
            {"transport": "HTTP+JSON", "url": e.rest}
        ],
        "version": "1.0.0",
        "capabilities": {"streaming": streaming},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{
            "id": "script", "name": "Script",
            "description": "Does what the first word of the message says",
            "tags": ["conformance"]
        }]
    }))
    .expect("a valid card")
}

/// Push deliveries, recorded (nothing is sent anywhere).
#[derive(Debug, Default)]
struct Recorder {
    sent: Mutex<Vec<(String, String)>>,
}

#[async_trait::async_trait]
impl PushSender for Recorder {
    async fn send(&self, config: &PushNotificationConfig, task: &Task) -> Result<(), A2aError> {
        self.sent
            .lock()
            .expect("lock")
            .push((config.url.clone(), task.id.clone()));
        Ok(())
    }
}

fn started() -> &'static Mutex<HashMap<String, String>> {
    static STARTED: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    STARTED.get_or_init(Default::default)
}

/// The task a message started, once the agent works on it (so a case can
/// act on a task whose blocking send has not returned yet).
pub(crate) fn task_of_message(message_id: &str) -> Option<String> {
    started().lock().expect("started").get(message_id).cloned()
}

fn gates() -> &'static Mutex<HashMap<String, watch::Sender<bool>>> {
    static GATES: OnceLock<Mutex<HashMap<String, watch::Sender<bool>>>> = OnceLock::new();
    GATES.get_or_init(Default::default)
}

fn gate(name: &str) -> watch::Receiver<bool> {
    gates()
        .lock()
        .expect("gates")
        .entry(name.to_owned())
        .or_insert_with(|| watch::channel(false).0)
        .subscribe()
}

/// Releases the `wait` executions waiting for gate `name` (and any later
/// one).
pub(crate) fn open_gate(name: &str) {
    gates()
        .lock()
        .expect("gates")
        .entry(name.to_owned())
        .or_insert_with(|| watch::channel(false).0)
        .send_replace(true);
}

/// Three chunks of `text` (fewer when it is shorter).
fn chunks(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    let size = chars.len().div_ceil(3);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

fn executor() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx, events| async move {
        let text = ctx.user_text();
        let task = ctx.updater(events.clone());
        if ctx.task.is_some() {
            // The answer to `ask`.
            task.start_work(None).await?;
            task.add_artifact(
                vec![Part::text(format!("Hello, {text}!"))],
                "greeting",
                Some("greeting"),
                false,
                true,
            )
            .await?;
            return task.complete(Some(task.agent_text("bye"))).await;
        }
        // The command is the first part's text (later parts are payload).
        let text = match ctx.message.as_ref().and_then(|m| m.parts.first()) {
            Some(Part::Text(t)) => t.text.clone(),
            _ => text,
        };
        let (verb, rest) = text.split_once(' ').unwrap_or((text.as_str(), ""));
        match verb {
            "reply" => {
                let mut reply = Message::agent_text(a2a_core::new_id(), rest);
                reply.context_id = Some(ctx.context_id.clone());
                events.publish(StreamResponse::Message(reply)).await
            }
            "headers" => {
                let seen = format!(
                    "{}|{}",
                    ctx.call.requested_extensions.join(","),
                    ctx.call
                        .headers
                        .get(PROBE_HEADER)
                        .map_or("-", String::as_str)
                );
                let mut reply = Message::agent_text(a2a_core::new_id(), seen);
                reply.context_id = Some(ctx.context_id.clone());
                events.publish(StreamResponse::Message(reply)).await
            }
            "parts" => {
                // Every part after the command, and the message metadata,
                // back to the client.
                let message = ctx.message.clone().expect("a message");
                let parts: Vec<Part> = message.parts.into_iter().skip(1).collect();
                if rest == "task" {
                    task.add_artifact(parts, "copy", Some("copy"), false, true)
                        .await?;
                    return task.complete(None).await;
                }
                let mut reply = Message::new(a2a_types::Role::Agent, a2a_core::new_id(), parts);
                reply.context_id = Some(ctx.context_id.clone());
                reply.metadata = message.metadata;
                events.publish(StreamResponse::Message(reply)).await
            }
            "ask" => task.requires_input(task.agent_text(QUESTION)).await,
            "wait" => {
                task.start_work(None).await?;
                if let Some(m) = &ctx.message {
                    started()
                        .lock()
                        .expect("started")
                        .insert(m.message_id.clone(), ctx.task_id.clone());
                }
                let mut gate = gate(rest);
                tokio::select! {
                    _ = async { gate.wait_for(|open| *open).await.is_ok() } => {}
                    () = ctx.cancellation.cancelled() => return Ok(()),
                    () = tokio::time::sleep(WAIT * 3) => return task.fail(None).await,
                }
                task.add_artifact(vec![Part::text("late")], "late", Some("late"), false, true)
                    .await?;
                task.complete(None).await
            }
            "artifacts" => {
                task.start_work(None).await?;
                task.add_artifact(
                    vec![Part::text("Hel")],
                    "a-1",
                    Some("greeting"),
                    false,
                    false,
                )
                .await?;
                task.add_artifact(vec![Part::text("lo")], "a-1", None, true, false)
                    .await?;
                task.add_artifact(vec![Part::text(" world")], "a-1", None, true, true)
                    .await?;
                task.add_artifact(vec![Part::text("draft")], "a-2", Some("draft"), false, true)
                    .await?;
                task.add_artifact(vec![Part::text("final")], "a-2", Some("final"), false, true)
                    .await?;
                task.complete(None).await
            }
            "fail" => {
                task.start_work(None).await?;
                Err(A2aError::internal("scripted failure"))
            }
            "error" => {
                let code = rest.trim().parse().expect("error CODE");
                Err(A2aError::from_code(
                    code,
                    "scripted error",
                    Some(json!({"scripted": true})),
                ))
            }
            "invalid" => {
                events
                    .publish(StreamResponse::StatusUpdate(
                        a2a_types::TaskStatusUpdateEvent {
                            task_id: "not-my-task".to_owned(),
                            context_id: ctx.context_id.clone(),
                            status: a2a_types::TaskStatus::new(a2a_types::TaskState::Working),
                            is_final: false,
                            metadata: None,
                        },
                    ))
                    .await
            }
            _ => {
                let body = if verb == "echo" { rest } else { text.as_str() };
                task.start_work(Some(task.agent_text("working on it")))
                    .await?;
                let pieces = chunks(body);
                let last = pieces.len() - 1;
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
                task.complete(Some(task.agent_text("done"))).await
            }
        }
    })
}
