//! Run with: cargo run -p a2a-grpc --example mount_beside_own_service
//!
//! The A2A service mounted beside a service of your own on one
//! `tonic::transport::Server`, with server reflection describing both. The
//! "own service" here is the standard gRPC health service reporting a
//! made-up `example.Inventory` service; any tonic service mounts the same
//! way.
//!
//! The example calls both services over one HTTP/2 connection, prints what
//! they answered, and stops. Add `-- --serve` to keep it running (Ctrl-C
//! stops it) and try `grpcurl`, which needs no `.proto` thanks to
//! reflection.

use std::sync::Arc;

use a2a_core::{AgentExecutor, DefaultRequestHandler, EventSink, RequestContext, RequestHandler};
use a2a_pb::v1::a2a_service_client::A2aServiceClient;
use a2a_pb::v1::{Message, Part, Role, SendMessageRequest, part, send_message_response};
use a2a_types::{A2aError, AgentCard};
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Endpoint, Server};
use tonic_health::ServingStatus;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

/// The agent: echoes the user's text as an artifact.
struct Echo;

#[async_trait::async_trait]
impl AgentExecutor for Echo {
    async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
        let task = ctx.updater(events);
        task.start_work(None).await?;
        task.add_artifact(
            vec![a2a_types::Part::text(format!("echo: {}", ctx.user_text()))],
            "echo",
            Some("echo"),
            false,
            true,
        )
        .await?;
        task.complete(None).await
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let keep_serving = std::env::args().any(|a| a == "--serve");

    // Bind first, so the card names the real address.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let card: AgentCard = serde_json::from_value(serde_json::json!({
        "protocolVersion": "0.3.0",
        "name": "echo",
        "description": "Echoes the user's text",
        "url": addr.to_string(),
        "preferredTransport": "GRPC",
        "version": "1.0.0",
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["echo"]}]
    }))?;
    let handler: Arc<dyn RequestHandler> =
        Arc::new(DefaultRequestHandler::builder(card, Echo).build());

    // Your own service. Here: the health service, reporting your services
    // and the A2A one.
    let (reporter, own_service) = tonic_health::server::health_reporter();
    reporter
        .set_service_status("example.Inventory", ServingStatus::Serving)
        .await;
    reporter
        .set_service_status(a2a_grpc::SERVICE_NAME, ServingStatus::Serving)
        .await;

    // Reflection over every descriptor set served: A2A's and yours.
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(a2a_pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;

    // One server, three services.
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(
        Server::builder()
            .add_service(own_service)
            .add_service(a2a_grpc::service(handler))
            .add_service(reflection)
            .serve_with_incoming_shutdown(TcpIncoming::from(listener), async {
                let _ = stopped.await;
            }),
    );
    println!(
        "serving gRPC on {addr}: grpc.health.v1.Health, {}, reflection",
        a2a_grpc::SERVICE_NAME
    );

    // Both services over one connection.
    let channel = Endpoint::from_shared(format!("http://{addr}"))?
        .connect()
        .await?;
    let health = HealthClient::new(channel.clone())
        .check(HealthCheckRequest {
            service: "example.Inventory".to_owned(),
        })
        .await?
        .into_inner();
    println!("health of example.Inventory: {:?}", health.status());

    let reply = A2aServiceClient::new(channel)
        .send_message(SendMessageRequest {
            request: Some(Message {
                message_id: "m-1".to_owned(),
                role: Role::User.into(),
                content: vec![Part {
                    part: Some(part::Part::Text("hello".to_owned())),
                    metadata: None,
                }],
                ..Default::default()
            }),
            ..Default::default()
        })
        .await?
        .into_inner();
    match reply.payload {
        Some(send_message_response::Payload::Task(task)) => {
            let state = task.status.as_ref().map(|s| s.state());
            let text: Vec<&str> = task
                .artifacts
                .iter()
                .flat_map(|a| &a.parts)
                .filter_map(|p| match &p.part {
                    Some(part::Part::Text(t)) => Some(t.as_str()),
                    _ => None,
                })
                .collect();
            println!("A2A task {} is {state:?}: {text:?}", task.id);
        }
        other => println!("A2A reply: {other:?}"),
    }

    if keep_serving {
        println!("try:");
        println!("  grpcurl -plaintext {addr} list");
        println!(
            "  grpcurl -plaintext -d '{{\"service\":\"example.Inventory\"}}' {addr} grpc.health.v1.Health/Check"
        );
        println!(
            "  grpcurl -plaintext -d '{{\"message\":{{\"messageId\":\"m-2\",\"role\":\"ROLE_USER\",\"content\":[{{\"text\":\"hi\"}}]}}}}' {addr} a2a.v1.A2AService/SendMessage"
        );
        println!("Ctrl-C stops the server");
        tokio::signal::ctrl_c().await?;
    }

    // Graceful shutdown: in-flight calls finish, then the server returns.
    let _ = stop.send(());
    server.await??;
    Ok(())
}
