//! The gRPC binding on the wire: `a2a_grpc::serve` on a real socket (HTTP/2),
//! driven by the generated tonic client with literal protobuf messages (never
//! built through `a2a_pb::convert`, so a conversion bug cannot hide on both
//! sides), plus the health and reflection services.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_core::test_util::ScriptedExecutor;
use a2a_core::{DefaultRequestHandler, PushSender, RequestHandler};
use a2a_pb::v1::a2a_service_client::A2aServiceClient;
use a2a_pb::v1::{
    self as pb, CancelTaskRequest, CreateTaskPushNotificationConfigRequest,
    DeleteTaskPushNotificationConfigRequest, GetAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigRequest,
    PushNotificationConfig as PbPushConfig, Role, SendMessageConfiguration, SendMessageRequest,
    TaskPushNotificationConfig as PbTaskPushConfig, TaskState as PbState, TaskSubscriptionRequest,
    part, send_message_response, stream_response,
};
use a2a_types::{
    A2aError, AgentCard, Message, Part, PushNotificationConfig, StreamResponse, Task, TaskState,
    TaskStatus, TaskStatusUpdateEvent,
};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Request, Status, Streaming};

/// The bound of every wait in this file.
const WAIT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------
// Agents
// ---------------------------------------------------------------------------

fn card(streaming: bool) -> AgentCard {
    serde_json::from_value(serde_json::json!({
        "protocolVersion": "0.3.0",
        "name": "grpc-wire-agent",
        "description": "An agent scripted by the gRPC wire tests",
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

/// Works, adds an artifact with the user's text, completes.
fn echo() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx, events| async move {
        let task = ctx.updater(events);
        task.start_work(None).await?;
        task.add_artifact(
            vec![Part::text(ctx.user_text())],
            "a-1",
            Some("echo"),
            false,
            true,
        )
        .await?;
        task.complete(None).await
    })
}

/// Answers with a direct Message reporting what the call context saw.
fn replier() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx, events| async move {
        let text = format!(
            "{}|{}",
            ctx.call.requested_extensions.join(","),
            ctx.call.headers.get("x-custom").map_or("-", String::as_str)
        );
        let mut reply = Message::agent_text(a2a_core::new_id(), text);
        reply.context_id = Some(ctx.context_id.clone());
        events.publish(StreamResponse::Message(reply)).await
    })
}

/// Asks a question on the first turn, completes on the second.
fn multi_turn() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx, events| async move {
        let task = ctx.updater(events);
        if ctx.task.is_none() {
            task.requires_input(task.agent_text("which one?")).await
        } else {
            task.add_artifact(
                vec![Part::text(ctx.user_text())],
                "answer",
                None,
                false,
                true,
            )
            .await?;
            task.complete(Some(task.agent_text("done"))).await
        }
    })
}

/// A gate the gated agent waits for; opening it releases every execution,
/// present and future (no lost wake-ups).
fn gate() -> (watch::Sender<bool>, watch::Receiver<bool>) {
    watch::channel(false)
}

/// Works, then waits for the gate to open (or a cancel) before completing.
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

/// Publishes an event for another task: the engine refuses it (-32006).
fn wrong_task_id() -> ScriptedExecutor {
    ScriptedExecutor::new(|ctx, events| async move {
        events
            .publish(StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                task_id: "not-my-task".to_owned(),
                context_id: ctx.context_id.clone(),
                status: TaskStatus::new(TaskState::Working),
                is_final: false,
                metadata: None,
            }))
            .await
    })
}

/// A push sender that records what it was asked to deliver.
#[derive(Default)]
struct Recorder {
    sent: Mutex<Vec<(String, String, TaskState)>>,
}

#[async_trait::async_trait]
impl PushSender for Recorder {
    async fn send(&self, config: &PushNotificationConfig, task: &Task) -> Result<(), A2aError> {
        self.sent.lock().expect("lock").push((
            config.url.clone(),
            task.id.clone(),
            task.status.state,
        ));
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Server and client
// ---------------------------------------------------------------------------

struct Agent {
    addr: SocketAddr,
    channel: Channel,
    client: A2aServiceClient<Channel>,
    stop: Option<oneshot::Sender<()>>,
    server: Option<JoinHandle<Result<(), tonic::transport::Error>>>,
}

impl Agent {
    /// Binds 127.0.0.1:0, then serves `handler` with `a2a_grpc::serve`.
    async fn start(handler: DefaultRequestHandler) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("local addr");
        let (stop, stopped) = oneshot::channel::<()>();
        let handler: Arc<dyn RequestHandler> = Arc::new(handler);
        let server = tokio::spawn(a2a_grpc::serve(listener, handler, async {
            let _ = stopped.await;
        }));
        let channel = Endpoint::from_shared(format!("http://{addr}"))
            .expect("endpoint")
            .connect_timeout(WAIT)
            .timeout(WAIT)
            .connect()
            .await
            .expect("connect");
        Self {
            addr,
            client: A2aServiceClient::new(channel.clone()),
            channel,
            stop: Some(stop),
            server: Some(server),
        }
    }

    fn client(&self) -> A2aServiceClient<Channel> {
        self.client.clone()
    }

    async fn send(&self, request: SendMessageRequest) -> Result<pb::SendMessageResponse, Status> {
        self.client()
            .send_message(request)
            .await
            .map(tonic::Response::into_inner)
    }

    async fn send_task(&self, request: SendMessageRequest) -> pb::Task {
        let reply = self.send(request).await.expect("SendMessage");
        match reply.payload {
            Some(send_message_response::Payload::Task(t)) => t,
            other => panic!("expected a task, got {other:?}"),
        }
    }

    async fn get_task(&self, id: &str, history_length: i32) -> Result<pb::Task, Status> {
        self.client()
            .get_task(GetTaskRequest {
                name: format!("tasks/{id}"),
                history_length,
            })
            .await
            .map(tonic::Response::into_inner)
    }

    async fn stream(
        &self,
        request: SendMessageRequest,
    ) -> Result<Streaming<pb::StreamResponse>, Status> {
        self.client()
            .send_streaming_message(request)
            .await
            .map(tonic::Response::into_inner)
    }

    async fn subscribe(&self, id: &str) -> Result<Streaming<pb::StreamResponse>, Status> {
        self.client()
            .task_subscription(TaskSubscriptionRequest {
                name: format!("tasks/{id}"),
            })
            .await
            .map(tonic::Response::into_inner)
    }

    async fn wait_for_state(&self, id: &str, state: PbState) -> pb::Task {
        for _ in 0..500 {
            let task = self.get_task(id, 0).await.expect("GetTask");
            if state_of(&task) == state {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("task {id} never reached {state:?}");
    }
}

static NEXT_MESSAGE: AtomicU64 = AtomicU64::new(1);

fn text_part(text: &str) -> pb::Part {
    pb::Part {
        part: Some(part::Part::Text(text.to_owned())),
        metadata: None,
    }
}

fn user_message(text: &str) -> pb::Message {
    pb::Message {
        message_id: format!("m-{}", NEXT_MESSAGE.fetch_add(1, Ordering::Relaxed)),
        role: Role::User.into(),
        content: vec![text_part(text)],
        ..Default::default()
    }
}

/// A request without `configuration`.
fn send(text: &str) -> SendMessageRequest {
    SendMessageRequest {
        request: Some(user_message(text)),
        configuration: None,
        metadata: None,
    }
}

/// A request with a `configuration` whose only set field is `blocking`.
fn send_blocking(text: &str, blocking: bool) -> SendMessageRequest {
    SendMessageRequest {
        configuration: Some(SendMessageConfiguration {
            blocking,
            ..Default::default()
        }),
        ..send(text)
    }
}

fn state_of(task: &pb::Task) -> PbState {
    task.status.as_ref().expect("a status").state()
}

fn artifact_text(artifact: &pb::Artifact) -> String {
    artifact
        .parts
        .iter()
        .filter_map(|p| match &p.part {
            Some(part::Part::Text(t)) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// Asserts that `status` is the encoding of the A2A error `json_rpc_code`.
fn assert_a2a(status: &Status, code: Code, json_rpc_code: i32) {
    assert_eq!(status.code(), code, "{status:?}");
    let meta = |k: &str| {
        status
            .metadata()
            .get(k)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    assert_eq!(
        meta("a2a-error-code").as_deref(),
        Some(json_rpc_code.to_string().as_str()),
        "{status:?}"
    );
    let name = meta("a2a-error-name").expect("a2a-error-name");
    assert!(
        status.message().starts_with(&format!("{name}: ")),
        "{status:?}"
    );
}

/// The next event, or `None` at the end of the stream; panics on an error
/// or after [`WAIT`].
async fn next_event(
    stream: &mut Streaming<pb::StreamResponse>,
) -> Option<stream_response::Payload> {
    let item = tokio::time::timeout(WAIT, stream.message())
        .await
        .expect("an event in time")
        .expect("no error in the stream");
    item.map(|e| e.payload.expect("a payload"))
}

/// Every event until the end of the stream.
async fn all_events(mut stream: Streaming<pb::StreamResponse>) -> Vec<stream_response::Payload> {
    let mut events = Vec::new();
    for _ in 0..1000 {
        match next_event(&mut stream).await {
            Some(e) => events.push(e),
            None => return events,
        }
    }
    panic!("the stream did not end: {events:?}");
}

/// The error of a streaming call, whether it is the call's status or the
/// first item of the stream (both are valid gRPC).
async fn stream_error(call: Result<Streaming<pb::StreamResponse>, Status>) -> Status {
    match call {
        Err(status) => status,
        Ok(mut stream) => tokio::time::timeout(WAIT, stream.message())
            .await
            .expect("in time")
            .expect_err("an error instead of events"),
    }
}

// ---------------------------------------------------------------------------
// SendMessage, GetTask
// ---------------------------------------------------------------------------

#[tokio::test]
async fn send_message_without_configuration_blocks_until_completed() {
    let agent = Agent::start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    let task = agent.send_task(send("hello ✓")).await;
    assert!(!task.id.is_empty() && !task.context_id.is_empty());
    assert_eq!(state_of(&task), PbState::Completed);
    assert!(task.status.as_ref().and_then(|s| s.timestamp).is_some());
    assert_eq!(task.artifacts.len(), 1);
    assert_eq!(task.artifacts[0].artifact_id, "a-1");
    assert_eq!(task.artifacts[0].name, "echo");
    assert_eq!(artifact_text(&task.artifacts[0]), "hello ✓");
    // The user's message is the history, with the ids filled in.
    assert_eq!(task.history.len(), 1);
    assert_eq!(task.history[0].role(), Role::User);
    assert_eq!(task.history[0].task_id, task.id);
    assert_eq!(task.history[0].context_id, task.context_id);

    let got = agent.get_task(&task.id, 0).await.expect("GetTask");
    assert_eq!(got, task);
}

#[tokio::test]
async fn blocking_and_non_blocking() {
    let (open, gate) = gate();
    let agent = Agent::start(DefaultRequestHandler::builder(card(true), gated(gate)).build()).await;

    // A present configuration with `blocking` unset (proto3 false): at once.
    let task = agent
        .send_task(SendMessageRequest {
            configuration: Some(SendMessageConfiguration::default()),
            ..send("a")
        })
        .await;
    assert!(
        matches!(state_of(&task), PbState::Submitted | PbState::Working),
        "{task:?}"
    );
    let task2 = agent.send_task(send_blocking("b", false)).await;
    assert!(matches!(
        state_of(&task2),
        PbState::Submitted | PbState::Working
    ));
    agent.wait_for_state(&task.id, PbState::Working).await;
    agent.wait_for_state(&task2.id, PbState::Working).await;
    open.send_replace(true);
    agent.wait_for_state(&task.id, PbState::Completed).await;
    agent.wait_for_state(&task2.id, PbState::Completed).await;

    // `blocking: true` waits for the final state.
    let agent = Agent::start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    let task = agent.send_task(send_blocking("c", true)).await;
    assert_eq!(state_of(&task), PbState::Completed);
}

#[tokio::test]
async fn message_reply_and_metadata_into_the_call_context() {
    let agent = Agent::start(DefaultRequestHandler::builder(card(true), replier()).build()).await;
    let reply = agent.send(send("hi")).await.expect("SendMessage");
    let Some(send_message_response::Payload::Msg(m)) = reply.payload else {
        panic!("expected a message: {reply:?}")
    };
    assert_eq!(m.role(), Role::Agent);
    assert!(!m.context_id.is_empty());
    assert_eq!(m.content, vec![text_part("|-")]);

    let mut request = Request::new(send("hi"));
    let md = request.metadata_mut();
    md.append(
        "x-a2a-extensions",
        "urn:ext:a, urn:ext:b".parse().expect("ascii"),
    );
    md.append("x-a2a-extensions", "urn:ext:c".parse().expect("ascii"));
    md.append("x-custom", "42".parse().expect("ascii"));
    let reply = agent
        .client()
        .send_message(request)
        .await
        .expect("SendMessage")
        .into_inner();
    let Some(send_message_response::Payload::Msg(m)) = reply.payload else {
        panic!("expected a message: {reply:?}")
    };
    assert_eq!(
        m.content,
        vec![text_part("urn:ext:a,urn:ext:b,urn:ext:c|42")]
    );

    // Streaming: the message is the only event.
    let events = all_events(agent.stream(send("s")).await.expect("stream")).await;
    assert!(
        matches!(events.as_slice(), [stream_response::Payload::Msg(m)] if m.role() == Role::Agent),
        "{events:?}"
    );
}

#[tokio::test]
async fn multi_turn_input_required_and_history_length() {
    let agent =
        Agent::start(DefaultRequestHandler::builder(card(true), multi_turn()).build()).await;
    let first = agent.send_task(send("pick")).await;
    assert_eq!(state_of(&first), PbState::InputRequired);
    let question = first
        .status
        .as_ref()
        .and_then(|s| s.update.as_ref())
        .expect("the question is the status message");
    assert_eq!(question.role(), Role::Agent);
    assert_eq!(question.content, vec![text_part("which one?")]);

    let mut answer = user_message("the red one");
    answer.task_id.clone_from(&first.id);
    answer.context_id.clone_from(&first.context_id);
    let answer_id = answer.message_id.clone();
    let done = agent
        .send_task(SendMessageRequest {
            request: Some(answer),
            configuration: None,
            metadata: None,
        })
        .await;
    assert_eq!(done.id, first.id);
    assert_eq!(state_of(&done), PbState::Completed);
    assert_eq!(artifact_text(&done.artifacts[0]), "the red one");

    // History: the first message, the question, the answer. 0 means all.
    let all = agent.get_task(&first.id, 0).await.expect("GetTask");
    let ids: Vec<(Role, String)> = all
        .history
        .iter()
        .map(|m| (m.role(), m.message_id.clone()))
        .collect();
    assert_eq!(ids.len(), 3, "{ids:?}");
    assert_eq!(ids[0].0, Role::User);
    assert_eq!(ids[1], (Role::Agent, question.message_id.clone()));
    assert_eq!(ids[2], (Role::User, answer_id.clone()));
    let last = agent.get_task(&first.id, 1).await.expect("GetTask");
    assert_eq!(last.history.len(), 1);
    assert_eq!(last.history[0].message_id, answer_id);
    let big = agent.get_task(&first.id, 100).await.expect("GetTask");
    assert_eq!(big.history.len(), 3);

    // A negative history_length, and a message for a terminal task.
    let e = agent.get_task(&first.id, -1).await.expect_err("negative");
    assert_a2a(&e, Code::InvalidArgument, -32602);
    let mut late = user_message("again");
    late.task_id.clone_from(&first.id);
    let e = agent
        .send(SendMessageRequest {
            request: Some(late),
            configuration: None,
            metadata: None,
        })
        .await
        .expect_err("terminal");
    assert_a2a(&e, Code::InvalidArgument, -32602);
    // A follow-up for a task that does not exist.
    let mut orphan = user_message("hello?");
    orphan.task_id = "nope".to_owned();
    let e = agent
        .send(SendMessageRequest {
            request: Some(orphan),
            configuration: None,
            metadata: None,
        })
        .await
        .expect_err("unknown task");
    assert_a2a(&e, Code::NotFound, -32001);
}

// ---------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------

#[tokio::test]
async fn streaming_order_and_termination() {
    let agent = Agent::start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    let events = all_events(agent.stream(send("streamed")).await.expect("stream")).await;
    assert_eq!(events.len(), 4, "{events:#?}");
    let stream_response::Payload::Task(task) = &events[0] else {
        panic!("the task comes first: {events:#?}")
    };
    assert_eq!(state_of(task), PbState::Submitted);
    let stream_response::Payload::StatusUpdate(working) = &events[1] else {
        panic!("then working: {events:#?}")
    };
    assert_eq!(working.task_id, task.id);
    assert_eq!(working.context_id, task.context_id);
    assert_eq!(
        working.status.as_ref().expect("status").state(),
        PbState::Working
    );
    assert!(!working.r#final);
    let stream_response::Payload::ArtifactUpdate(artifact) = &events[2] else {
        panic!("then the artifact: {events:#?}")
    };
    assert!(!artifact.append && artifact.last_chunk);
    assert_eq!(
        artifact_text(artifact.artifact.as_ref().expect("artifact")),
        "streamed"
    );
    let stream_response::Payload::StatusUpdate(done) = &events[3] else {
        panic!("then completed: {events:#?}")
    };
    assert_eq!(
        done.status.as_ref().expect("status").state(),
        PbState::Completed
    );
    assert!(done.r#final);

    let stored = agent.get_task(&task.id, 0).await.expect("GetTask");
    assert_eq!(state_of(&stored), PbState::Completed);
}

#[tokio::test]
async fn streaming_stops_at_input_required() {
    let agent =
        Agent::start(DefaultRequestHandler::builder(card(true), multi_turn()).build()).await;
    let events = all_events(agent.stream(send("pick")).await.expect("stream")).await;
    let Some(stream_response::Payload::StatusUpdate(last)) = events.last() else {
        panic!("{events:#?}")
    };
    assert_eq!(
        last.status.as_ref().expect("status").state(),
        PbState::InputRequired
    );
    assert!(last.r#final);
}

#[tokio::test]
async fn task_subscription_snapshot_then_live_events() {
    let (open, gate) = gate();
    let agent = Agent::start(DefaultRequestHandler::builder(card(true), gated(gate)).build()).await;
    let task = agent.send_task(send_blocking("a", false)).await;
    agent.wait_for_state(&task.id, PbState::Working).await;

    let mut stream = agent.subscribe(&task.id).await.expect("TaskSubscription");
    let Some(stream_response::Payload::Task(snapshot)) = next_event(&mut stream).await else {
        panic!("the snapshot comes first")
    };
    assert_eq!(snapshot.id, task.id);
    assert_eq!(state_of(&snapshot), PbState::Working);
    open.send_replace(true);
    let rest = all_events(stream).await;
    assert_eq!(rest.len(), 2, "{rest:#?}");
    assert!(
        matches!(&rest[0], stream_response::Payload::ArtifactUpdate(a) if a.task_id == task.id)
    );
    let stream_response::Payload::StatusUpdate(done) = &rest[1] else {
        panic!("{rest:#?}")
    };
    assert_eq!(
        done.status.as_ref().expect("status").state(),
        PbState::Completed
    );
    assert!(done.r#final);

    // A terminal task: its snapshot, then the end.
    let events = all_events(agent.subscribe(&task.id).await.expect("TaskSubscription")).await;
    assert!(
        matches!(events.as_slice(), [stream_response::Payload::Task(t)] if state_of(t) == PbState::Completed),
        "{events:#?}"
    );
}

#[tokio::test]
async fn a_client_that_goes_away_does_not_stop_the_task() {
    let (open, gate) = gate();
    let agent = Agent::start(DefaultRequestHandler::builder(card(true), gated(gate)).build()).await;
    let mut stream = agent.stream(send("x")).await.expect("stream");
    let Some(stream_response::Payload::Task(task)) = next_event(&mut stream).await else {
        panic!("the task comes first")
    };
    drop(stream);
    agent.wait_for_state(&task.id, PbState::Working).await;
    open.send_replace(true);
    let done = agent.wait_for_state(&task.id, PbState::Completed).await;
    assert_eq!(artifact_text(&done.artifacts[0]), "late");
}

// ---------------------------------------------------------------------------
// CancelTask
// ---------------------------------------------------------------------------

#[tokio::test]
async fn cancel_then_cancel_again() {
    let (_open, gate) = gate();
    let agent = Agent::start(DefaultRequestHandler::builder(card(true), gated(gate)).build()).await;
    let task = agent.send_task(send_blocking("x", false)).await;
    let canceled = agent
        .client()
        .cancel_task(CancelTaskRequest {
            name: format!("tasks/{}", task.id),
        })
        .await
        .expect("CancelTask")
        .into_inner();
    assert_eq!(canceled.id, task.id);
    assert_eq!(state_of(&canceled), PbState::Cancelled);
    let stored = agent.get_task(&task.id, 0).await.expect("GetTask");
    assert_eq!(state_of(&stored), PbState::Cancelled);

    let e = agent
        .client()
        .cancel_task(CancelTaskRequest {
            name: format!("tasks/{}", task.id),
        })
        .await
        .expect_err("not cancelable");
    assert_a2a(&e, Code::FailedPrecondition, -32002);
    assert!(e.message().starts_with("TaskNotCancelableError: "), "{e:?}");
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

#[tokio::test]
async fn unknown_tasks_are_not_found() {
    let agent = Agent::start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    let e = agent.get_task("nope", 0).await.expect_err("unknown");
    assert_a2a(&e, Code::NotFound, -32001);
    assert_eq!(e.message(), "TaskNotFoundError: Task not found: nope");
    let e = agent
        .client()
        .cancel_task(CancelTaskRequest {
            name: "tasks/nope".to_owned(),
        })
        .await
        .expect_err("unknown");
    assert_a2a(&e, Code::NotFound, -32001);
    let e = stream_error(agent.subscribe("nope").await).await;
    assert_a2a(&e, Code::NotFound, -32001);
}

#[tokio::test]
async fn bad_resource_names_are_invalid_argument() {
    let agent = Agent::start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    let mut client = agent.client();
    for name in ["task/x", "tasks/", "", "tasks/a/b", "x"] {
        let e = client
            .get_task(GetTaskRequest {
                name: name.to_owned(),
                history_length: 0,
            })
            .await
            .expect_err(name);
        assert_a2a(&e, Code::InvalidArgument, -32602);
        assert!(e.message().contains("invalid task name"), "{e:?}");
        let e = client
            .cancel_task(CancelTaskRequest {
                name: name.to_owned(),
            })
            .await
            .expect_err(name);
        assert_a2a(&e, Code::InvalidArgument, -32602);
        let e = stream_error(
            client
                .task_subscription(TaskSubscriptionRequest {
                    name: name.to_owned(),
                })
                .await
                .map(tonic::Response::into_inner),
        )
        .await;
        assert_a2a(&e, Code::InvalidArgument, -32602);
        let e = client
            .list_task_push_notification_config(ListTaskPushNotificationConfigRequest {
                parent: name.to_owned(),
                ..Default::default()
            })
            .await
            .expect_err(name);
        assert_a2a(&e, Code::InvalidArgument, -32602);
        let e = client
            .create_task_push_notification_config(CreateTaskPushNotificationConfigRequest {
                parent: name.to_owned(),
                config_id: "c".to_owned(),
                config: Some(PbTaskPushConfig {
                    name: String::new(),
                    push_notification_config: Some(PbPushConfig {
                        url: "http://127.0.0.1:9/hook".to_owned(),
                        ..Default::default()
                    }),
                }),
            })
            .await
            .expect_err(name);
        assert_a2a(&e, Code::InvalidArgument, -32602);
    }
    for name in [
        "tasks/t",
        "tasks/t/pushNotificationConfigs/",
        "task/t/pushNotificationConfigs/c",
        "tasks/t/pushNotificationConfig/c",
        "",
    ] {
        let e = client
            .delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest {
                name: name.to_owned(),
            })
            .await
            .expect_err(name);
        assert_a2a(&e, Code::InvalidArgument, -32602);
    }
    for name in ["tasks/t/pushNotificationConfigs/", "task/t", ""] {
        let e = client
            .get_task_push_notification_config(GetTaskPushNotificationConfigRequest {
                name: name.to_owned(),
            })
            .await
            .expect_err(name);
        assert_a2a(&e, Code::InvalidArgument, -32602);
    }
}

#[tokio::test]
async fn missing_or_invalid_message_is_invalid_argument() {
    let agent = Agent::start(DefaultRequestHandler::builder(card(true), echo()).build()).await;

    // No message at all.
    let no_message = SendMessageRequest {
        request: None,
        configuration: Some(SendMessageConfiguration {
            blocking: true,
            ..Default::default()
        }),
        metadata: None,
    };
    let e = agent
        .send(no_message.clone())
        .await
        .expect_err("no message");
    assert_a2a(&e, Code::InvalidArgument, -32602);
    assert!(e.message().contains("message"), "{e:?}");
    let e = stream_error(agent.stream(no_message).await).await;
    assert_a2a(&e, Code::InvalidArgument, -32602);

    // Empty content (a rule of the engine, reached through the conversion).
    let mut empty = user_message("x");
    empty.content.clear();
    let e = agent
        .send(SendMessageRequest {
            request: Some(empty.clone()),
            ..send("x")
        })
        .await
        .expect_err("empty content");
    assert_a2a(&e, Code::InvalidArgument, -32602);
    let e = stream_error(
        agent
            .stream(SendMessageRequest {
                request: Some(empty),
                ..send("x")
            })
            .await,
    )
    .await;
    assert_a2a(&e, Code::InvalidArgument, -32602);

    // A part with no content, ROLE_UNSPECIFIED, ROLE_AGENT, no message id.
    let mut bad_part = user_message("x");
    bad_part.content.push(pb::Part::default());
    let mut unspecified = user_message("x");
    unspecified.role = Role::Unspecified.into();
    let mut agent_role = user_message("x");
    agent_role.role = Role::Agent.into();
    let mut no_id = user_message("x");
    no_id.message_id.clear();
    for message in [bad_part, unspecified, agent_role, no_id] {
        let e = agent
            .send(SendMessageRequest {
                request: Some(message.clone()),
                ..send("x")
            })
            .await
            .expect_err("invalid message");
        assert_a2a(&e, Code::InvalidArgument, -32602);
    }

    // Output modes the agent does not produce: -32005.
    let e = agent
        .send(SendMessageRequest {
            configuration: Some(SendMessageConfiguration {
                accepted_output_modes: vec!["image/png".to_owned()],
                blocking: true,
                ..Default::default()
            }),
            ..send("x")
        })
        .await
        .expect_err("modes");
    assert_a2a(&e, Code::InvalidArgument, -32005);
}

#[tokio::test]
async fn push_operations_without_a_push_sender_are_unimplemented() {
    let agent = Agent::start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    let task = agent.send_task(send("x")).await;
    let mut client = agent.client();
    let parent = format!("tasks/{}", task.id);
    let config = PbTaskPushConfig {
        name: String::new(),
        push_notification_config: Some(PbPushConfig {
            id: "c".to_owned(),
            url: "http://127.0.0.1:9/hook".to_owned(),
            ..Default::default()
        }),
    };
    let e = client
        .create_task_push_notification_config(CreateTaskPushNotificationConfigRequest {
            parent: parent.clone(),
            config_id: "c".to_owned(),
            config: Some(config.clone()),
        })
        .await
        .expect_err("create");
    assert_a2a(&e, Code::Unimplemented, -32003);
    let name = format!("{parent}/pushNotificationConfigs/c");
    let e = client
        .get_task_push_notification_config(GetTaskPushNotificationConfigRequest {
            name: name.clone(),
        })
        .await
        .expect_err("get");
    assert_a2a(&e, Code::Unimplemented, -32003);
    let e = client
        .list_task_push_notification_config(ListTaskPushNotificationConfigRequest {
            parent: parent.clone(),
            ..Default::default()
        })
        .await
        .expect_err("list");
    assert_a2a(&e, Code::Unimplemented, -32003);
    let e = client
        .delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest { name })
        .await
        .expect_err("delete");
    assert_a2a(&e, Code::Unimplemented, -32003);
    // A push config in the send configuration.
    let e = agent
        .send(SendMessageRequest {
            configuration: Some(SendMessageConfiguration {
                push_notification: config.push_notification_config,
                blocking: true,
                ..Default::default()
            }),
            ..send("x")
        })
        .await
        .expect_err("send with push");
    assert_a2a(&e, Code::Unimplemented, -32003);
}

#[tokio::test]
async fn streaming_unsupported_is_unimplemented() {
    let agent = Agent::start(DefaultRequestHandler::builder(card(false), echo()).build()).await;
    let e = stream_error(agent.stream(send("x")).await).await;
    assert_a2a(&e, Code::Unimplemented, -32004);
    let task = agent.send_task(send("x")).await;
    let e = stream_error(agent.subscribe(&task.id).await).await;
    assert_a2a(&e, Code::Unimplemented, -32004);
}

#[tokio::test]
async fn an_agent_publishing_a_wrong_task_id_is_an_invalid_agent_response() {
    let agent =
        Agent::start(DefaultRequestHandler::builder(card(true), wrong_task_id()).build()).await;
    let e = agent.send(send("x")).await.expect_err("-32006");
    assert_a2a(&e, Code::Internal, -32006);
    assert!(
        e.message().starts_with("InvalidAgentResponseError: "),
        "{e:?}"
    );
    let e = stream_error(agent.stream(send("x")).await).await;
    assert_a2a(&e, Code::Internal, -32006);
}

// ---------------------------------------------------------------------------
// Push notification configs
// ---------------------------------------------------------------------------

#[tokio::test]
async fn push_config_create_get_list_delete() {
    let (open, gate) = gate();
    let recorder = Arc::new(Recorder::default());
    let handler = DefaultRequestHandler::builder(card(true), gated(gate))
        .push_sender(Arc::clone(&recorder) as Arc<dyn PushSender>)
        .build();
    let agent = Agent::start(handler).await;
    let task = agent.send_task(send_blocking("x", false)).await;
    let parent = format!("tasks/{}", task.id);
    let mut client = agent.client();
    let config = |id: &str, url: &str| PbPushConfig {
        id: id.to_owned(),
        url: url.to_owned(),
        token: "tok".to_owned(),
        authentication: Some(pb::AuthenticationInfo {
            schemes: vec!["Bearer".to_owned()],
            credentials: String::new(),
        }),
    };

    // With `config_id`.
    let a = client
        .create_task_push_notification_config(CreateTaskPushNotificationConfigRequest {
            parent: parent.clone(),
            config_id: "cfg-a".to_owned(),
            config: Some(PbTaskPushConfig {
                name: String::new(),
                push_notification_config: Some(config("", "http://127.0.0.1:9/a")),
            }),
        })
        .await
        .expect("create a")
        .into_inner();
    assert_eq!(a.name, format!("{parent}/pushNotificationConfigs/cfg-a"));
    let a_config = a.push_notification_config.clone().expect("config");
    assert_eq!(a_config.id, "cfg-a");
    assert_eq!(a_config.url, "http://127.0.0.1:9/a");
    assert_eq!(a_config.token, "tok");
    assert_eq!(
        a_config.authentication.as_ref().map(|x| x.schemes.clone()),
        Some(vec!["Bearer".to_owned()])
    );

    // Without any id: the server assigns one (the task id).
    let b = client
        .create_task_push_notification_config(CreateTaskPushNotificationConfigRequest {
            parent: parent.clone(),
            config_id: String::new(),
            config: Some(PbTaskPushConfig {
                name: String::new(),
                push_notification_config: Some(config("", "http://127.0.0.1:9/b")),
            }),
        })
        .await
        .expect("create b")
        .into_inner();
    let b_id = b
        .push_notification_config
        .as_ref()
        .expect("config")
        .id
        .clone();
    assert_eq!(b_id, task.id);
    assert_eq!(b.name, format!("{parent}/pushNotificationConfigs/{b_id}"));

    // Get by full name, and by the task name alone (the task's default config).
    let got = client
        .get_task_push_notification_config(GetTaskPushNotificationConfigRequest {
            name: a.name.clone(),
        })
        .await
        .expect("get a")
        .into_inner();
    assert_eq!(got, a);
    let default = client
        .get_task_push_notification_config(GetTaskPushNotificationConfigRequest {
            name: parent.clone(),
        })
        .await
        .expect("get default")
        .into_inner();
    assert_eq!(default, b);

    let list = client
        .list_task_push_notification_config(ListTaskPushNotificationConfigRequest {
            parent: parent.clone(),
            ..Default::default()
        })
        .await
        .expect("list")
        .into_inner();
    let mut names: Vec<&str> = list.configs.iter().map(|c| c.name.as_str()).collect();
    names.sort_unstable();
    let mut expected = vec![a.name.as_str(), b.name.as_str()];
    expected.sort_unstable();
    assert_eq!(names, expected);
    assert_eq!(list.next_page_token, "");

    let empty = client
        .delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest {
            name: a.name.clone(),
        })
        .await
        .expect("delete")
        .into_inner();
    assert_eq!(empty, pbjson_types::Empty {});
    let list = client
        .list_task_push_notification_config(ListTaskPushNotificationConfigRequest {
            parent: parent.clone(),
            ..Default::default()
        })
        .await
        .expect("list")
        .into_inner();
    assert_eq!(list.configs, vec![b.clone()]);
    let e = client
        .get_task_push_notification_config(GetTaskPushNotificationConfigRequest {
            name: a.name.clone(),
        })
        .await
        .expect_err("deleted");
    assert_a2a(&e, Code::InvalidArgument, -32602);
    let e = client
        .delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest {
            name: a.name,
        })
        .await
        .expect_err("deleted");
    assert_a2a(&e, Code::InvalidArgument, -32602);

    // Unknown task.
    let e = client
        .create_task_push_notification_config(CreateTaskPushNotificationConfigRequest {
            parent: "tasks/nope".to_owned(),
            config_id: "c".to_owned(),
            config: Some(PbTaskPushConfig {
                name: String::new(),
                push_notification_config: Some(config("", "http://127.0.0.1:9/c")),
            }),
        })
        .await
        .expect_err("unknown task");
    assert_a2a(&e, Code::NotFound, -32001);
    // Missing config.
    let e = client
        .create_task_push_notification_config(CreateTaskPushNotificationConfigRequest {
            parent: parent.clone(),
            config_id: "c".to_owned(),
            config: None,
        })
        .await
        .expect_err("no config");
    assert_a2a(&e, Code::InvalidArgument, -32602);

    // The remaining config is used when the task completes.
    open.send_replace(true);
    agent.wait_for_state(&task.id, PbState::Completed).await;
    let mut delivered = false;
    for _ in 0..500 {
        delivered = recorder
            .sent
            .lock()
            .expect("lock")
            .iter()
            .any(|(url, id, state)| {
                url.ends_with("/b") && *id == task.id && *state == TaskState::Completed
            });
        if delivered {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(delivered, "{:?}", recorder.sent.lock().expect("lock"));
}

// ---------------------------------------------------------------------------
// GetAgentCard
// ---------------------------------------------------------------------------

#[tokio::test]
async fn get_agent_card_returns_the_public_card() {
    let agent = Agent::start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    let got = agent
        .client()
        .get_agent_card(GetAgentCardRequest {})
        .await
        .expect("GetAgentCard (no extended card configured)")
        .into_inner();
    assert_eq!(got.name, "grpc-wire-agent");
    assert_eq!(got.protocol_version, "0.3.0");
    assert_eq!(got.preferred_transport, "GRPC");
    assert_eq!(got.url, "127.0.0.1:1");
    let caps = got.capabilities.expect("capabilities");
    assert!(caps.streaming);
    assert!(!caps.push_notifications);
    assert!(!got.supports_authenticated_extended_card);
    assert_eq!(got.skills.len(), 1);
    assert_eq!(got.skills[0].id, "echo");

    // With an extended card configured: still the public card.
    let mut extended = card(true);
    extended.name = "extended".to_owned();
    let agent = Agent::start(
        DefaultRequestHandler::builder(card(true), echo())
            .extended_agent_card(extended)
            .build(),
    )
    .await;
    let got = agent
        .client()
        .get_agent_card(GetAgentCardRequest {})
        .await
        .expect("GetAgentCard")
        .into_inner();
    assert_eq!(got.name, "grpc-wire-agent");
    assert!(got.supports_authenticated_extended_card);
}

// ---------------------------------------------------------------------------
// Health, reflection, shutdown
// ---------------------------------------------------------------------------

#[tokio::test]
async fn health_reports_the_a2a_service_serving() {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;

    let agent = Agent::start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    let mut health = HealthClient::new(agent.channel.clone());
    for service in [a2a_grpc::SERVICE_NAME, ""] {
        let reply = health
            .check(HealthCheckRequest {
                service: service.to_owned(),
            })
            .await
            .expect("Check")
            .into_inner();
        assert_eq!(reply.status(), ServingStatus::Serving, "{service:?}");
    }
    let e = health
        .check(HealthCheckRequest {
            service: "no.such.Service".to_owned(),
        })
        .await
        .expect_err("unknown service");
    assert_eq!(e.code(), Code::NotFound);
}

#[tokio::test]
async fn reflection_lists_and_describes_the_service() {
    use tonic_reflection::pb::v1::ServerReflectionRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

    let agent = Agent::start(DefaultRequestHandler::builder(card(true), echo()).build()).await;
    let mut reflection = ServerReflectionClient::new(agent.channel.clone());
    let requests = vec![
        ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        },
        ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::FileContainingSymbol(
                "a2a.v1.A2AService".to_owned(),
            )),
        },
    ];
    let mut replies = reflection
        .server_reflection_info(futures::stream::iter(requests))
        .await
        .expect("ServerReflectionInfo")
        .into_inner();
    let first = tokio::time::timeout(WAIT, replies.message())
        .await
        .expect("in time")
        .expect("no error")
        .expect("a reply");
    let Some(MessageResponse::ListServicesResponse(list)) = first.message_response else {
        panic!("{first:?}")
    };
    let names: Vec<&str> = list.service.iter().map(|s| s.name.as_str()).collect();
    for expected in [
        "a2a.v1.A2AService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
    ] {
        assert!(names.contains(&expected), "{expected} not in {names:?}");
    }
    let second = tokio::time::timeout(WAIT, replies.message())
        .await
        .expect("in time")
        .expect("no error")
        .expect("a reply");
    let Some(MessageResponse::FileDescriptorResponse(files)) = second.message_response else {
        panic!("{second:?}")
    };
    assert!(!files.file_descriptor_proto.is_empty());
    // The file that declares the service names it.
    let declares = files
        .file_descriptor_proto
        .iter()
        .any(|f| f.windows(b"A2AService".len()).any(|w| w == b"A2AService"));
    assert!(declares);

    // The older v1alpha service, which some tools still ask for.
    use tonic_reflection::pb::v1alpha as alpha;
    let mut reflection =
        alpha::server_reflection_client::ServerReflectionClient::new(agent.channel.clone());
    let mut replies = reflection
        .server_reflection_info(futures::stream::iter(vec![
            alpha::ServerReflectionRequest {
                host: String::new(),
                message_request: Some(
                    alpha::server_reflection_request::MessageRequest::ListServices(String::new()),
                ),
            },
        ]))
        .await
        .expect("v1alpha")
        .into_inner();
    let reply = tokio::time::timeout(WAIT, replies.message())
        .await
        .expect("in time")
        .expect("no error")
        .expect("a reply");
    let Some(alpha::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        reply.message_response
    else {
        panic!("{reply:?}")
    };
    assert!(list.service.iter().any(|s| s.name == "a2a.v1.A2AService"));
}

#[tokio::test]
async fn serve_stops_gracefully_and_closes_the_listener() {
    let (open, gate) = gate();
    let mut agent =
        Agent::start(DefaultRequestHandler::builder(card(true), gated(gate)).build()).await;
    // An open stream when the shutdown starts: it still ends normally.
    let mut stream = agent.stream(send("x")).await.expect("stream");
    let Some(stream_response::Payload::Task(_)) = next_event(&mut stream).await else {
        panic!("the task comes first")
    };
    let _ = agent.stop.take().expect("not stopped yet").send(());
    tokio::time::sleep(Duration::from_millis(50)).await;
    open.send_replace(true);
    let rest = all_events(stream).await;
    assert!(
        matches!(rest.last(), Some(stream_response::Payload::StatusUpdate(s)) if s.r#final),
        "{rest:#?}"
    );
    drop(agent.client);
    drop(agent.channel);
    let server = agent.server.take().expect("running");
    tokio::time::timeout(WAIT, server)
        .await
        .expect("the server stops in time")
        .expect("no panic")
        .expect("no transport error");
    // The listener is closed.
    let e = Endpoint::from_shared(format!("http://{}", agent.addr))
        .expect("endpoint")
        .connect_timeout(WAIT)
        .connect()
        .await
        .expect_err("nobody listens");
    drop(e);
}
