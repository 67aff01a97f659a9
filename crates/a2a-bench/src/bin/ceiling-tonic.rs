//! `ceiling-tonic`: the bare-tonic reference the A2A gRPC binding is
//! measured against. It implements the generated `a2a.v1.A2AService` (so
//! the framing, the request decoding and the response encoding are the
//! real ones) and answers `SendMessage` with a fixed `SendMessageResponse`
//! of the same size as the real server's (`SendStreamingMessage` with fixed
//! events, for information); every other RPC is `UNIMPLEMENTED`.
//!
//! ```text
//! ceiling-tonic [--addr 127.0.0.1:0] [--fixtures DIR]
//! ```
//!
//! Prints `listening grpc http://HOST:PORT` and flushes, as `a2a serve`
//! does. Loopback addresses only.

use std::io::Write;
use std::path::PathBuf;

use a2a_bench::fixtures::{Fixtures, GrpcFixture};
use a2a_pb::v1;
use a2a_pb::v1::a2a_service_server::{A2aService, A2aServiceServer};
use clap::Parser;
use prost::Message as _;
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status};

/// A bare tonic `A2AService` with fixed answers.
#[derive(Debug, Parser)]
#[command(name = "ceiling-tonic")]
struct Cli {
    /// Where to listen (loopback only; port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: std::net::SocketAddr,
    /// The directory `bench --mode capture` wrote the real answers to
    /// (missing files: built-in messages).
    #[arg(long)]
    fixtures: Option<PathBuf>,
}

#[derive(Debug)]
struct Ceiling(GrpcFixture);

fn wants_message(r: &v1::SendMessageRequest) -> bool {
    r.metadata.as_ref().is_some_and(|m| {
        m.fields.get("reply").and_then(|v| v.kind.as_ref())
            == Some(&pbjson_types::value::Kind::StringValue(
                "message".to_owned(),
            ))
    })
}

type Items = futures::stream::Iter<std::vec::IntoIter<Result<v1::StreamResponse, Status>>>;

fn unimplemented<T>() -> Result<Response<T>, Status> {
    Err(Status::unimplemented(
        "ceiling-tonic serves SendMessage only",
    ))
}

#[tonic::async_trait]
impl A2aService for Ceiling {
    async fn send_message(
        &self,
        request: Request<v1::SendMessageRequest>,
    ) -> Result<Response<v1::SendMessageResponse>, Status> {
        Ok(Response::new(if wants_message(request.get_ref()) {
            self.0.send_message.clone()
        } else {
            self.0.send_task.clone()
        }))
    }

    type SendStreamingMessageStream = Items;

    async fn send_streaming_message(
        &self,
        request: Request<v1::SendMessageRequest>,
    ) -> Result<Response<Items>, Status> {
        let items = if wants_message(request.get_ref()) {
            self.0.stream_message.clone()
        } else {
            self.0.stream_task.clone()
        };
        Ok(Response::new(futures::stream::iter(
            items.into_iter().map(Ok).collect::<Vec<_>>(),
        )))
    }

    async fn get_task(&self, _: Request<v1::GetTaskRequest>) -> Result<Response<v1::Task>, Status> {
        unimplemented()
    }

    async fn cancel_task(
        &self,
        _: Request<v1::CancelTaskRequest>,
    ) -> Result<Response<v1::Task>, Status> {
        unimplemented()
    }

    type TaskSubscriptionStream = Items;

    async fn task_subscription(
        &self,
        _: Request<v1::TaskSubscriptionRequest>,
    ) -> Result<Response<Items>, Status> {
        unimplemented()
    }

    async fn create_task_push_notification_config(
        &self,
        _: Request<v1::CreateTaskPushNotificationConfigRequest>,
    ) -> Result<Response<v1::TaskPushNotificationConfig>, Status> {
        unimplemented()
    }

    async fn get_task_push_notification_config(
        &self,
        _: Request<v1::GetTaskPushNotificationConfigRequest>,
    ) -> Result<Response<v1::TaskPushNotificationConfig>, Status> {
        unimplemented()
    }

    async fn list_task_push_notification_config(
        &self,
        _: Request<v1::ListTaskPushNotificationConfigRequest>,
    ) -> Result<Response<v1::ListTaskPushNotificationConfigResponse>, Status> {
        unimplemented()
    }

    async fn get_agent_card(
        &self,
        _: Request<v1::GetAgentCardRequest>,
    ) -> Result<Response<v1::AgentCard>, Status> {
        unimplemented()
    }

    async fn delete_task_push_notification_config(
        &self,
        _: Request<v1::DeleteTaskPushNotificationConfigRequest>,
    ) -> Result<Response<pbjson_types::Empty>, Status> {
        unimplemented()
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    if !cli.addr.ip().is_loopback() {
        return Err(format!("{}: loopback addresses only", cli.addr).into());
    }
    let fixtures = Fixtures::load(cli.fixtures.as_deref())?;
    eprintln!(
        "ceiling-tonic: fixtures {}; SendMessage task answer {} bytes",
        fixtures.source(),
        fixtures.grpc.send_task.encoded_len()
    );
    let listener = tokio::net::TcpListener::bind(cli.addr).await?;
    let addr = listener.local_addr()?;
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening grpc http://{addr}")?;
        out.flush()?;
    }
    // As `a2a_grpc::serve`: the default tonic server, TCP_NODELAY.
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    tonic::transport::Server::builder()
        .add_service(A2aServiceServer::new(Ceiling(fixtures.grpc)))
        .serve_with_incoming_shutdown(incoming, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
