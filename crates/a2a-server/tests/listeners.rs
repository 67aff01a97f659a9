//! The three listeners (JSON-RPC, gRPC, HTTP+JSON) of one server: every
//! interface of the card answers with our matching client transport, the
//! `listening` lines, `--grpc-url-style`, turning bindings off, and graceful
//! shutdown of all three.

use std::time::{Duration, Instant};

use a2a_client::grpc::GrpcTransport;
use a2a_client::jsonrpc::{JsonRpcTransport, fetch_agent_card};
use a2a_client::rest::RestTransport;
use a2a_client::{ClientError, Transport};
use a2a_server::{
    Agent, Endpoint, GrpcUrlStyle, Listeners, Protocol, ServeConfig, ServeError, Server,
};
use a2a_types::{
    AgentCard, Message, MessageSendParams, SendMessageResult, StreamResponse, Task,
    TaskQueryParams, TaskState,
};
use futures::StreamExt;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// How long any single wait may take.
const WAIT: Duration = Duration::from_secs(15);
/// Non-ASCII on purpose: every wire must carry it unchanged.
const TEXT: &str = "hello interop \u{e9}\u{e8} \u{1f30d} over every binding";

/// A server run by the same `Server::run` the binary uses.
struct Running {
    endpoints: Vec<Endpoint>,
    announced: String,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), ServeError>>>,
}

impl Running {
    async fn start(config: ServeConfig) -> Self {
        let listeners = Listeners::bind(&config).await.expect("bind");
        let server = Server::new(config, listeners).await.expect("server");
        let mut announced = Vec::new();
        server.announce(&mut announced).expect("announce");
        let endpoints = server.endpoints().to_vec();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(server.run(async move {
            let _ = stopped.await;
        }));
        Self {
            endpoints,
            announced: String::from_utf8(announced).expect("utf-8"),
            stop: Some(stop),
            task: Some(task),
        }
    }

    fn endpoint(&self, protocol: Protocol) -> Option<&Endpoint> {
        self.endpoints.iter().find(|e| e.protocol == protocol)
    }

    fn jsonrpc_url(&self) -> &str {
        &self.endpoint(Protocol::JsonRpc).expect("JSON-RPC").url
    }

    async fn card(&self) -> AgentCard {
        within(fetch_agent_card(self.jsonrpc_url()))
            .await
            .expect("card")
    }

    /// Signals shutdown and waits (bounded) for `run` to return.
    async fn stop(mut self) -> Result<(), ServeError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let task = self.task.take().expect("running");
        tokio::time::timeout(WAIT, task)
            .await
            .expect("server stopped within the wait")
            .expect("server task did not panic")
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

async fn within<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(WAIT, f)
        .await
        .expect("answer within the wait")
}

/// The client transport for a card interface, as a client picks it.
async fn transport(transport: &str, url: &str) -> Box<dyn Transport> {
    match transport {
        "JSONRPC" => Box::new(JsonRpcTransport::new(url)),
        "GRPC" => Box::new(
            within(GrpcTransport::connect(url))
                .await
                .unwrap_or_else(|e| panic!("gRPC connect to the card's {url}: {e}")),
        ),
        "HTTP+JSON" => Box::new(RestTransport::new(url)),
        other => panic!("unexpected transport {other}"),
    }
}

fn interfaces(card: &AgentCard) -> Vec<(String, String)> {
    card.additional_interfaces
        .iter()
        .flatten()
        .map(|i| (i.transport.clone(), i.url.clone()))
        .collect()
}

fn params(text: &str) -> MessageSendParams {
    MessageSendParams::new(Message::user_text(a2a_core::new_id(), text))
}

fn query(id: &str) -> TaskQueryParams {
    TaskQueryParams {
        id: id.to_owned(),
        history_length: None,
        metadata: None,
    }
}

/// The echo agent's answer, checked, reduced to what every binding must
/// agree on: state, artifacts, and the history's (role, text).
fn echo_summary(task: &Task) -> (TaskState, serde_json::Value, Vec<(String, String)>) {
    assert_eq!(task.status.state, TaskState::Completed, "{task:?}");
    let artifacts = task.artifacts.as_deref().unwrap_or_default();
    assert_eq!(artifacts.len(), 1, "one artifact: {task:?}");
    assert_eq!(artifacts[0].artifact_id, "echo");
    assert_eq!(artifacts[0].text(), TEXT);
    let history: Vec<(String, String)> = task
        .history
        .iter()
        .flatten()
        .map(|m| (format!("{:?}", m.role), m.text()))
        .collect();
    assert_eq!(history, [("User".to_owned(), TEXT.to_owned())], "{task:?}");
    (
        task.status.state,
        serde_json::to_value(artifacts).unwrap(),
        history,
    )
}

#[tokio::test]
async fn the_lines_the_card_and_the_endpoints_agree() {
    let server = Running::start(ServeConfig::ephemeral(Agent::echo())).await;
    let port = |p| server.endpoint(p).unwrap().local_addr.port();
    let (j, g, r) = (
        port(Protocol::JsonRpc),
        port(Protocol::Grpc),
        port(Protocol::HttpJson),
    );
    assert!(j != 0 && g != 0 && r != 0 && j != g && g != r && j != r);
    assert_eq!(
        server.announced,
        format!(
            "listening jsonrpc http://127.0.0.1:{j}/\n\
             listening grpc http://127.0.0.1:{g}\n\
             listening http+json http://127.0.0.1:{r}/\n"
        )
    );
    let card = server.card().await;
    assert_eq!(card.preferred_transport, "JSONRPC");
    assert_eq!(card.url, format!("http://127.0.0.1:{j}/"));
    assert_eq!(
        interfaces(&card),
        [
            ("JSONRPC".into(), format!("http://127.0.0.1:{j}/")),
            ("GRPC".into(), format!("127.0.0.1:{g}")),
            ("HTTP+JSON".into(), format!("http://127.0.0.1:{r}")),
        ]
    );
    let skills: Vec<&str> = card.skills.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(skills, ["echo"]);

    // The REST listener serves the same card at its well-known path, and
    // gRPC `GetAgentCard` answers it too.
    let rest_card = within(fetch_agent_card(&format!("http://127.0.0.1:{r}")))
        .await
        .expect("card on the REST listener");
    assert_eq!(rest_card, card);
    let grpc_card = within(
        transport("GRPC", &format!("127.0.0.1:{g}"))
            .await
            .get_extended_agent_card(),
    )
    .await
    .expect("GetAgentCard");
    assert_eq!(grpc_card.name, card.name);
    assert_eq!(grpc_card.url, card.url);
    assert_eq!(interfaces(&grpc_card), interfaces(&card));
    server.stop().await.expect("clean stop");
}

#[tokio::test]
async fn every_card_interface_answers_the_same_echo() {
    let server = Running::start(ServeConfig::ephemeral(Agent::echo())).await;
    let card = server.card().await;
    let ifaces = interfaces(&card);
    assert_eq!(ifaces.len(), 3, "{ifaces:?}");
    let jsonrpc = JsonRpcTransport::new(server.jsonrpc_url());

    let mut summaries = Vec::new();
    for (name, url) in &ifaces {
        let client = transport(name, url).await;
        let reply = within(client.send_message(params(TEXT)))
            .await
            .unwrap_or_else(|e| panic!("{name} message/send: {e}"));
        let SendMessageResult::Task(task) = reply else {
            panic!("{name}: expected a task, got {reply:?}")
        };
        let summary = echo_summary(&task);
        // One engine behind every listener: the task is there for the others.
        let again = within(jsonrpc.get_task(query(&task.id)))
            .await
            .expect("tasks/get over JSON-RPC");
        assert_eq!(echo_summary(&again), summary, "{name}");
        let again = within(client.get_task(query(&task.id)))
            .await
            .expect("get over the same binding");
        assert_eq!(echo_summary(&again), summary, "{name}");

        // The stream: the Task, one artifact update, the final status.
        let events: Vec<StreamResponse> = within(async {
            let stream = client
                .send_message_stream(params(TEXT))
                .await
                .unwrap_or_else(|e| panic!("{name} stream: {e}"));
            stream.map(|e| e.expect("stream event")).collect().await
        })
        .await;
        assert_eq!(events.len(), 3, "{name}: {events:?}");
        assert!(matches!(&events[0], StreamResponse::Task(_)), "{events:?}");
        let StreamResponse::ArtifactUpdate(a) = &events[1] else {
            panic!("{name}: {events:?}")
        };
        assert_eq!(a.artifact.text(), TEXT);
        assert_eq!(a.last_chunk, Some(true));
        let StreamResponse::StatusUpdate(s) = &events[2] else {
            panic!("{name}: {events:?}")
        };
        assert_eq!(s.status.state, TaskState::Completed);
        assert!(s.is_final, "{name}: the last status update is final");

        summaries.push((name.clone(), summary));
    }
    for (name, s) in &summaries[1..] {
        assert_eq!(s, &summaries[0].1, "{name} differs from {}", summaries[0].0);
    }
    server.stop().await.expect("clean stop");
}

#[tokio::test]
async fn both_grpc_url_styles_connect() {
    for style in [GrpcUrlStyle::HostPort, GrpcUrlStyle::Http] {
        let mut config = ServeConfig::ephemeral(Agent::echo());
        config.grpc_url_style = style;
        config.rest_addr = None;
        let server = Running::start(config).await;
        let grpc = server.endpoint(Protocol::Grpc).expect("gRPC endpoint");
        let line_url = format!("http://127.0.0.1:{}", grpc.local_addr.port());
        assert_eq!(grpc.listening_url, line_url, "the line never changes");
        let card = server.card().await;
        let url = interfaces(&card)
            .into_iter()
            .find_map(|(t, u)| (t == "GRPC").then_some(u))
            .expect("a GRPC interface");
        match style {
            GrpcUrlStyle::HostPort => assert_eq!(url, line_url["http://".len()..]),
            _ => assert_eq!(url, line_url),
        }
        let client = transport("GRPC", &url).await;
        let reply = within(client.send_message(params(TEXT)))
            .await
            .unwrap_or_else(|e| panic!("{style:?}: {e}"));
        let SendMessageResult::Task(task) = reply else {
            panic!("{style:?}: {reply:?}")
        };
        echo_summary(&task);
        server.stop().await.expect("clean stop");
    }
}

#[tokio::test]
async fn a_binding_turned_off_is_neither_served_nor_announced() {
    for (grpc, rest) in [(false, true), (true, false), (false, false)] {
        let mut config = ServeConfig::ephemeral(Agent::echo());
        if !grpc {
            config.grpc_addr = None;
        }
        if !rest {
            config.rest_addr = None;
        }
        let server = Running::start(config).await;
        let card = server.card().await;
        let transports: Vec<String> = interfaces(&card).into_iter().map(|(t, _)| t).collect();
        let mut expected = vec!["JSONRPC"];
        let mut lines = vec!["jsonrpc"];
        if grpc {
            expected.push("GRPC");
            lines.push("grpc");
        }
        if rest {
            expected.push("HTTP+JSON");
            lines.push("http+json");
        }
        assert_eq!(transports, expected);
        let announced: Vec<&str> = server
            .announced
            .lines()
            .map(|l| l.split(' ').nth(1).unwrap())
            .collect();
        assert_eq!(announced, lines, "{}", server.announced);
        assert_eq!(server.endpoint(Protocol::Grpc).is_some(), grpc);
        assert_eq!(server.endpoint(Protocol::HttpJson).is_some(), rest);
        server.stop().await.expect("clean stop");
    }
}

#[tokio::test]
async fn bind_errors_name_the_listener() {
    let taken = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let taken = taken.local_addr().unwrap().to_string();
    for which in ["grpc", "http+json"] {
        let mut config = ServeConfig::ephemeral(Agent::echo());
        if which == "grpc" {
            config.grpc_addr = Some(taken.clone());
        } else {
            config.rest_addr = Some(taken.clone());
        }
        let err = Listeners::bind(&config).await.unwrap_err().to_string();
        assert!(
            err.contains(&format!("the {which} listener")) && err.contains(&taken),
            "{err}"
        );
    }
}

/// Whether anything still accepts connections at `addr`.
async fn accepts(addr: std::net::SocketAddr) -> bool {
    matches!(
        tokio::time::timeout(Duration::from_secs(5), tokio::net::TcpStream::connect(addr)).await,
        Ok(Ok(_))
    )
}

#[tokio::test]
async fn graceful_shutdown_stops_all_three_and_is_bounded_by_open_streams() {
    let mut config = ServeConfig::ephemeral(Agent::demo());
    config.shutdown_timeout = Duration::from_millis(500);
    let server = Running::start(config).await;
    let card = server.card().await;
    // A stream that would stay open for 10 minutes on each binding.
    let mut open = Vec::new();
    for (name, url) in interfaces(&card) {
        let client = transport(&name, &url).await;
        let mut stream = within(client.send_message_stream(params("countdown 600")))
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let first = within(stream.next()).await.expect("first event");
        assert!(matches!(first, Ok(StreamResponse::Task(_))), "{name}");
        open.push((client, stream));
    }
    // Otherwise the loops here and below could run zero times and pass.
    assert_eq!(open.len(), 3, "a stream on each of the three bindings");
    let addrs: Vec<_> = server.endpoints.iter().map(|e| e.local_addr).collect();
    assert_eq!(addrs.len(), 3, "{addrs:?}");
    let started = Instant::now();
    server.stop().await.expect("clean stop");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "shutdown took {:?}",
        started.elapsed()
    );
    for addr in addrs {
        assert!(!accepts(addr).await, "{addr} still accepts after shutdown");
    }
    // A new call finds nobody (the open streams are not checked: `run`
    // returned, but connection tasks that axum and tonic spawned keep
    // serving until the runtime goes away, which ends the binary).
    for (client, stream) in open {
        drop(stream);
        let after = within(client.get_task(query("x"))).await;
        assert!(
            matches!(after, Err(ClientError::Unreachable(_))),
            "{after:?}"
        );
    }
}

#[tokio::test]
async fn listeners_bound_by_hand() {
    let bind = || tokio::net::TcpListener::bind("127.0.0.1:0");
    let (j, g, r) = (
        bind().await.unwrap(),
        bind().await.unwrap(),
        bind().await.unwrap(),
    );
    let ports: Vec<u16> = [&j, &g, &r]
        .iter()
        .map(|l| l.local_addr().unwrap().port())
        .collect();
    let listeners = Listeners::new(j).with_grpc(g).with_rest(r);
    let server = Server::new(ServeConfig::new(Agent::echo()), listeners)
        .await
        .expect("server");
    let endpoints: Vec<(Protocol, u16)> = server
        .endpoints()
        .iter()
        .map(|e| (e.protocol, e.local_addr.port()))
        .collect();
    assert_eq!(
        endpoints,
        [
            (Protocol::JsonRpc, ports[0]),
            (Protocol::Grpc, ports[1]),
            (Protocol::HttpJson, ports[2]),
        ]
    );
    assert_eq!(
        server.card().additional_interfaces.as_ref().map(Vec::len),
        Some(3)
    );
    server.run(async {}).await.expect("clean stop");
}
