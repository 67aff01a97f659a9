//! Run with: cargo run -p a2a-server --example echo_agent
//!
//! A minimal agent served over JSON-RPC on 127.0.0.1:8080 (or the
//! `HOST:PORT` given as the first argument), gRPC on 127.0.0.1:50051 and
//! HTTP+JSON on 127.0.0.1:8081 (the `a2a serve` defaults of
//! `ServeConfig::new`). Try it with the `a2a` client:
//!
//! ```text
//! cargo run -p a2a-server --bin a2a -- send http://127.0.0.1:8080/ "hello"
//! cargo run -p a2a-server --bin a2a -- send http://127.0.0.1:8080/ "hello" --stream
//! ```
//!
//! Stop it with Ctrl-C.

use a2a_core::{AgentExecutor, EventSink, RequestContext};
use a2a_server::{Agent, AgentDescription, Listeners, ServeConfig, Server, shutdown_signal};
use a2a_types::{A2aError, Part};

/// Answers every message with a `working` status, the text back as an
/// artifact, and `completed`.
struct Echo;

#[async_trait::async_trait]
impl AgentExecutor for Echo {
    async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
        let task = ctx.updater(events);
        task.start_work(None).await?;
        let text = ctx.user_text();
        task.add_artifact(vec![Part::text(text)], "echo", Some("echo"), false, true)
            .await?;
        task.complete(None).await
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let description = AgentDescription::new("echo", "Echoes your text back", "1.0.0").skill(
        a2a_server::agents::skill("echo", "Echo", "Echoes the text", &["echo"], &["hi"]),
    );
    let mut config = ServeConfig::new(Agent::new(description, Echo));
    if let Some(addr) = std::env::args().nth(1) {
        config.jsonrpc_addr = addr;
    }
    let listeners = Listeners::bind(&config).await?;
    let server = Server::new(config, listeners).await?;
    let shutdown = shutdown_signal();
    server.announce(&mut std::io::stdout().lock())?;
    server.run(shutdown).await?;
    Ok(())
}
