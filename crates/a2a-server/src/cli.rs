//! The `a2a` command line: `a2a serve` and the JSON-RPC client commands.
//!
//! ```text
//! a2a serve [--agent demo|conformance|echo] [--jsonrpc-addr HOST:PORT]
//!           [--grpc-addr HOST:PORT | --no-grpc] [--rest-addr HOST:PORT | --no-rest]
//!           [--grpc-url-style host-port|http] [--public-url-host HOST]
//!           [--store memory|sqlite:PATH|postgres://…] [--data-dir DIR]
//!           [--retain-tasks N] [--retain-for DURATION]
//!           [--replica-id ID] [--lease-ttl DURATION]
//! a2a card URL
//! a2a send URL TEXT [--task-id ID] [--context-id ID] [--stream] [--no-blocking] [--history-length N]
//! a2a get URL TASK_ID [--history-length N]
//! a2a cancel URL TASK_ID
//! a2a resubscribe URL TASK_ID
//! ```
//!
//! Client commands print the result as pretty JSON, or a stream as one
//! compact JSON event per line. On an A2A error they print
//! `error <code> <name>: <message>` on stderr and exit with status 1; when
//! the agent cannot be reached or answers nonsense, `error: …` and status 3.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use a2a_client::ClientError;
use a2a_client::Transport;
use a2a_client::jsonrpc::{JsonRpcTransport, fetch_agent_card};
use a2a_types::{
    Message, MessageSendConfiguration, MessageSendParams, TaskIdParams, TaskQueryParams,
};
use clap::{Args, Parser, Subcommand};
use futures::StreamExt;

use crate::agents::AgentKind;
use crate::card::GrpcUrlStyle;
use crate::config::{
    ClusterConfig, DEFAULT_DATA_DIR, DEFAULT_GRPC_ADDR, DEFAULT_JSONRPC_ADDR, DEFAULT_REST_ADDR,
    MIN_LEASE_TTL, ServeConfig, StoreSpec,
};

/// Exit status of a client command that got an A2A error.
pub const EXIT_A2A_ERROR: u8 = 1;
/// Exit status when the server could not start (bad flags, bind failure).
pub const EXIT_SERVE_ERROR: u8 = 2;
/// Exit status when the agent could not be reached or answered nonsense.
pub const EXIT_TRANSPORT_ERROR: u8 = 3;

/// The `a2a` command.
#[derive(Debug, Parser)]
#[command(
    name = "a2a",
    version,
    about = "A2A v0.3.0 agent server and JSON-RPC client"
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve an agent. Prints `listening <protocol> <url>` per listener on stdout.
    Serve(ServeArgs),
    /// Fetch and print an agent's card.
    Card {
        /// The agent's base URL (e.g. http://127.0.0.1:8080/).
        url: String,
    },
    /// Send a text message (message/send, or message/stream with --stream).
    Send(SendArgs),
    /// Get a task (tasks/get).
    Get {
        /// The agent's JSON-RPC URL.
        url: String,
        /// The task id.
        task_id: String,
        /// Return at most this many recent history messages.
        #[arg(long)]
        history_length: Option<i32>,
    },
    /// Cancel a task (tasks/cancel).
    Cancel {
        /// The agent's JSON-RPC URL.
        url: String,
        /// The task id.
        task_id: String,
    },
    /// Stream a task's snapshot and live events (tasks/resubscribe).
    Resubscribe {
        /// The agent's JSON-RPC URL.
        url: String,
        /// The task id.
        task_id: String,
    },
}

/// `a2a serve` flags. These names are a contract scripts rely on.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// The agent to serve.
    #[arg(long, value_enum, default_value_t = AgentKind::Demo)]
    pub agent: AgentKind,
    /// Where the JSON-RPC listener binds (port 0: a free port).
    #[arg(long, value_name = "HOST:PORT", default_value = DEFAULT_JSONRPC_ADDR)]
    pub jsonrpc_addr: String,
    /// Where the gRPC listener binds (port 0: a free port).
    #[arg(long, value_name = "HOST:PORT", default_value = DEFAULT_GRPC_ADDR)]
    pub grpc_addr: String,
    /// Serve no gRPC (no listener, no GRPC interface in the card).
    #[arg(long, conflicts_with = "grpc_addr")]
    pub no_grpc: bool,
    /// Where the HTTP+JSON (REST) listener binds (port 0: a free port).
    #[arg(long, value_name = "HOST:PORT", default_value = DEFAULT_REST_ADDR)]
    pub rest_addr: String,
    /// Serve no HTTP+JSON (no listener, no HTTP+JSON interface in the card).
    #[arg(long, conflicts_with = "rest_addr")]
    pub no_rest: bool,
    /// How the card writes the gRPC interface's URL: bare `HOST:PORT` (what the
    /// Python SDK's gRPC client dials) or `http://HOST:PORT`.
    #[arg(long, value_enum, value_name = "STYLE", default_value_t = GrpcUrlStyle::HostPort)]
    pub grpc_url_style: GrpcUrlStyle,
    /// The host written into the card's URLs [default: the bound address].
    #[arg(long, value_name = "HOST")]
    pub public_url_host: Option<String>,
    /// Where tasks and push configs live: `memory`, `sqlite:PATH` or
    /// `postgres://USER:PASSWORD@HOST:PORT/DB` [default: sqlite:DATA_DIR/a2a.db].
    /// Every server on the same PostgreSQL database is one replica of a
    /// cluster (see --replica-id, --lease-ttl); memory and SQLite serve one
    /// process only.
    #[arg(long, value_name = "STORE")]
    pub store: Option<StoreSpec>,
    /// The directory of the default store (`DATA_DIR/a2a.db`), created on
    /// first run; unused with `--store`.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_DATA_DIR)]
    pub data_dir: PathBuf,
    /// Keep at most N finished tasks (the most recently finished); older
    /// ones are deleted [default: all].
    #[arg(long, value_name = "N")]
    pub retain_tasks: Option<usize>,
    /// Delete finished tasks this long after they finished: a number and a
    /// unit (`ms`, `s`, `m`, `h`, `d`), e.g. `30s`, `10m`, `2h`, `1h30m`
    /// [default: forever].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub retain_for: Option<Duration>,
    /// With a `postgres://` store, every `a2a serve` on the same database is
    /// one replica of a cluster (any replica serves any task). This is its
    /// id, unique per replica: it owns the leases of the tasks it runs;
    /// printed as `replica ID` after the `listening` lines
    /// [default: HOSTNAME-PID-RANDOM]. Refused with `memory` and `sqlite:`
    /// stores (a single replica is the only mode there).
    #[arg(long, value_name = "ID", value_parser = parse_replica_id)]
    pub replica_id: Option<String>,
    /// With a `postgres://` store: how long a replica's lease on a task it
    /// runs lasts without renewal (renewed every third of it). When a
    /// replica dies, another one fails its unfinished tasks once their
    /// leases expire. Same syntax as --retain-for, at least 1s
    /// [default: 15s]. Refused with `memory` and `sqlite:` stores.
    #[arg(long, value_name = "DURATION", value_parser = parse_lease_ttl)]
    pub lease_ttl: Option<Duration>,
}

impl ServeArgs {
    /// The server configuration these flags describe.
    #[must_use]
    pub fn config(&self) -> ServeConfig {
        let mut config = ServeConfig::new(self.agent.agent());
        config.jsonrpc_addr.clone_from(&self.jsonrpc_addr);
        config.grpc_addr = (!self.no_grpc).then(|| self.grpc_addr.clone());
        config.rest_addr = (!self.no_rest).then(|| self.rest_addr.clone());
        config.grpc_url_style = self.grpc_url_style;
        config.public_url_host.clone_from(&self.public_url_host);
        config.store = self
            .store
            .clone()
            .unwrap_or_else(|| StoreSpec::default_sqlite(&self.data_dir));
        if let Some(n) = self.retain_tasks {
            config.retention = config.retention.max_terminal_tasks(n);
        }
        if let Some(age) = self.retain_for {
            config.retention = config.retention.max_age(age);
        }
        if self.replica_id.is_some() || self.lease_ttl.is_some() {
            let mut cluster = ClusterConfig::default();
            cluster.replica_id.clone_from(&self.replica_id);
            if let Some(ttl) = self.lease_ttl {
                cluster = cluster.lease_ttl(ttl);
            }
            config.cluster = Some(cluster);
        }
        config
    }
}

/// Parses `--replica-id`: not empty, no whitespace or control characters
/// (it is printed on the `replica ID` line and in logs).
///
/// # Errors
///
/// A message saying what is wrong, for clap to print.
pub fn parse_replica_id(text: &str) -> Result<String, String> {
    if text.is_empty() {
        return Err("the replica id must not be empty".to_owned());
    }
    if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "invalid replica id {text:?}: no spaces or control characters"
        ));
    }
    Ok(text.to_owned())
}

/// Parses `--lease-ttl`: a [`parse_duration`] of at least
/// [`MIN_LEASE_TTL`].
///
/// # Errors
///
/// A message saying what is wrong, for clap to print.
pub fn parse_lease_ttl(text: &str) -> Result<Duration, String> {
    let ttl = parse_duration(text)?;
    if ttl < MIN_LEASE_TTL {
        return Err(format!(
            "lease ttl {text:?} is too short: at least {}s",
            MIN_LEASE_TTL.as_secs()
        ));
    }
    Ok(ttl)
}

/// Parses a humane duration: one or more `NUMBER UNIT` pairs, units `ms`,
/// `s`, `m`, `h` and `d` (`30s`, `10m`, `2h`, `1h30m`, `500ms`). A bare
/// number (no unit) is refused: seconds or minutes would be a guess.
///
/// # Errors
///
/// A message saying what is wrong, for clap to print.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = |why: &str| format!("invalid duration {text:?}: {why} (e.g. 30s, 10m, 2h, 1h30m)");
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(bad("empty"));
    }
    let mut total = Duration::ZERO;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits == 0 {
            return Err(bad("expected a number"));
        }
        let number: u64 = rest[..digits]
            .parse()
            .map_err(|_| bad("number too large"))?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        rest = &rest[unit_len..];
        let part = match unit {
            "ms" => Some(Duration::from_millis(number)),
            "s" => Some(Duration::from_secs(number)),
            "m" => number.checked_mul(60).map(Duration::from_secs),
            "h" => number.checked_mul(3600).map(Duration::from_secs),
            "d" => number.checked_mul(86_400).map(Duration::from_secs),
            "" => return Err(bad("missing unit")),
            _ => return Err(bad(&format!("unknown unit {unit:?}"))),
        };
        total = part
            .and_then(|part| total.checked_add(part))
            .ok_or_else(|| bad("too long"))?;
    }
    Ok(total)
}

/// `a2a send` arguments.
#[derive(Debug, Clone, Args)]
pub struct SendArgs {
    /// The agent's JSON-RPC URL.
    pub url: String,
    /// The message text.
    pub text: String,
    /// Continue this task.
    #[arg(long)]
    pub task_id: Option<String>,
    /// Send in this context.
    #[arg(long)]
    pub context_id: Option<String>,
    /// Stream the events (message/stream) instead of waiting for the result.
    #[arg(long)]
    pub stream: bool,
    /// Return as soon as the task exists (`configuration.blocking: false`).
    #[arg(long)]
    pub no_blocking: bool,
    /// Return at most this many recent history messages.
    #[arg(long)]
    pub history_length: Option<i32>,
}

impl SendArgs {
    /// The `message/send` parameters.
    #[must_use]
    pub fn params(&self) -> MessageSendParams {
        let mut message = Message::user_text(a2a_core::new_id(), self.text.clone());
        message.task_id.clone_from(&self.task_id);
        message.context_id.clone_from(&self.context_id);
        let mut params = MessageSendParams::new(message);
        if self.no_blocking || self.history_length.is_some() {
            params.configuration = Some(MessageSendConfiguration {
                blocking: self.no_blocking.then_some(false),
                history_length: self.history_length,
                ..MessageSendConfiguration::default()
            });
        }
        params
    }
}

/// Runs a client command (anything but `serve`) and returns the exit status.
pub async fn run_client(command: Command) -> ExitCode {
    match client(command).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(ClientError::A2a(e)) => {
            eprintln!("error {} {}: {}", e.code(), e.name(), e.message());
            ExitCode::from(EXIT_A2A_ERROR)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(EXIT_TRANSPORT_ERROR)
        }
    }
}

async fn client(command: Command) -> Result<(), ClientError> {
    match command {
        Command::Serve(_) => Err(ClientError::InvalidResponse(
            "`serve` is not a client command".to_owned(),
        )),
        Command::Card { url } => print_pretty(&fetch_agent_card(&url).await?),
        Command::Send(args) => {
            let transport = JsonRpcTransport::new(&args.url);
            let params = args.params();
            if args.stream {
                print_stream(transport.send_message_stream(params).await?).await
            } else {
                print_pretty(&transport.send_message(params).await?)
            }
        }
        Command::Get {
            url,
            task_id,
            history_length,
        } => {
            let transport = JsonRpcTransport::new(&url);
            let task = transport
                .get_task(TaskQueryParams {
                    id: task_id,
                    history_length,
                    metadata: None,
                })
                .await?;
            print_pretty(&task)
        }
        Command::Cancel { url, task_id } => {
            let transport = JsonRpcTransport::new(&url);
            print_pretty(&transport.cancel_task(TaskIdParams::new(task_id)).await?)
        }
        Command::Resubscribe { url, task_id } => {
            let transport = JsonRpcTransport::new(&url);
            print_stream(
                transport
                    .resubscribe_task(TaskIdParams::new(task_id))
                    .await?,
            )
            .await
        }
    }
}

fn stdout_error(e: &std::io::Error) -> ClientError {
    ClientError::InvalidResponse(format!("cannot write to stdout: {e}"))
}

fn print_pretty<T: serde::Serialize>(value: &T) -> Result<(), ClientError> {
    let json = serde_json::to_string_pretty(value)
        .map_err(|e| ClientError::InvalidResponse(e.to_string()))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{json}")
        .and_then(|()| out.flush())
        .map_err(|e| stdout_error(&e))
}

async fn print_stream(mut events: a2a_client::EventStream) -> Result<(), ClientError> {
    while let Some(event) = events.next().await {
        let event = event?;
        let json = serde_json::to_string(&event)
            .map_err(|e| ClientError::InvalidResponse(e.to_string()))?;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{json}")
            .and_then(|()| out.flush())
            .map_err(|e| stdout_error(&e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use a2a_core::Retention;

    use super::*;

    fn serve_config(args: &[&str]) -> Result<ServeConfig, clap::Error> {
        let cli = Cli::try_parse_from(["a2a", "serve"].iter().chain(args))?;
        match cli.command {
            Command::Serve(args) => Ok(args.config()),
            other => panic!("not serve: {other:?}"),
        }
    }

    #[test]
    fn serve_defaults() {
        let c = serve_config(&[]).unwrap();
        assert_eq!(c.jsonrpc_addr, "127.0.0.1:8080");
        assert_eq!(c.grpc_addr.as_deref(), Some("127.0.0.1:50051"));
        assert_eq!(c.rest_addr.as_deref(), Some("127.0.0.1:8081"));
        assert_eq!(c.grpc_url_style, GrpcUrlStyle::HostPort);
        assert_eq!(c.agent.description.name, "A2A demo agent");
        assert_eq!(c.store, StoreSpec::Sqlite("./a2a-data/a2a.db".into()));
        assert_eq!(c.retention, Retention::default());
        assert!(!c.retention.is_active());
    }

    #[test]
    fn serve_stores() {
        let c = serve_config(&["--data-dir", "/var/lib/a2a"]).unwrap();
        assert_eq!(c.store, StoreSpec::Sqlite("/var/lib/a2a/a2a.db".into()));
        let c = serve_config(&["--store", "memory"]).unwrap();
        assert_eq!(c.store, StoreSpec::Memory);
        let c = serve_config(&["--store", "sqlite:x/y.db", "--data-dir", "z"]).unwrap();
        assert_eq!(c.store, StoreSpec::Sqlite("x/y.db".into()));
        let c = serve_config(&["--store", "postgres://u:pw@h/db"]).unwrap();
        assert_eq!(c.store, StoreSpec::Postgres("postgres://u:pw@h/db".into()));
        assert!(serve_config(&["--store", "redis://x"]).is_err());
    }

    #[test]
    fn retention_flags() {
        let c = serve_config(&["--retain-tasks", "1000"]).unwrap();
        assert_eq!(c.retention, Retention::default().max_terminal_tasks(1000));
        let c = serve_config(&["--retain-for", "2h"]).unwrap();
        assert_eq!(
            c.retention,
            Retention::default().max_age(Duration::from_secs(7200))
        );
        let c = serve_config(&["--retain-tasks", "0", "--retain-for", "10m"]).unwrap();
        assert_eq!(c.retention.max_terminal_tasks, Some(0));
        assert_eq!(c.retention.max_age, Some(Duration::from_secs(600)));
        for bad in [
            ["--retain-tasks", "-1"],
            ["--retain-tasks", "many"],
            ["--retain-for", "10"],
            ["--retain-for", "10x"],
            ["--retain-for", ""],
        ] {
            assert!(serve_config(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn cluster_flags() {
        let c = serve_config(&["--store", "postgres://u@h/db"]).unwrap();
        assert_eq!(c.cluster, None, "the defaults");
        let c = serve_config(&[
            "--store",
            "postgres://u@h/db",
            "--replica-id",
            "a",
            "--lease-ttl",
            "2s",
        ])
        .unwrap();
        assert_eq!(
            c.cluster,
            Some(
                ClusterConfig::default()
                    .replica_id("a")
                    .lease_ttl(Duration::from_secs(2))
            )
        );
        // The documented default.
        assert_eq!(
            a2a_core::ClusterTiming::default().lease_ttl,
            Duration::from_secs(15)
        );
        let c = serve_config(&["--lease-ttl", "1m"]).unwrap();
        let cluster = c.cluster.unwrap();
        assert_eq!(cluster.replica_id, None);
        assert_eq!(cluster.timing.lease_ttl, Duration::from_secs(60));
        for bad in [
            ["--replica-id", ""],
            ["--replica-id", "a b"],
            ["--lease-ttl", "500ms"],
            ["--lease-ttl", "0s"],
            ["--lease-ttl", "10"],
        ] {
            assert!(serve_config(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn durations() {
        let ok = |s: &str| parse_duration(s).unwrap();
        assert_eq!(ok("30s"), Duration::from_secs(30));
        assert_eq!(ok("10m"), Duration::from_secs(600));
        assert_eq!(ok("2h"), Duration::from_secs(7200));
        assert_eq!(ok("1d"), Duration::from_secs(86_400));
        assert_eq!(ok("500ms"), Duration::from_millis(500));
        assert_eq!(ok("1h30m"), Duration::from_secs(5400));
        assert_eq!(ok(" 0s "), Duration::ZERO);
        for bad in ["", "s", "10", "10x", "1.5h", "-1s", "10s5", "h1", "1 h"] {
            let err = parse_duration(bad).unwrap_err();
            assert!(err.contains("invalid duration"), "{bad:?}: {err}");
        }
        let err = parse_duration("99999999999999999999s").unwrap_err();
        assert!(err.contains("too large"), "{err}");
        let err = parse_duration("999999999999999999d").unwrap_err();
        assert!(err.contains("too long"), "{err}");
    }

    #[test]
    fn serve_flags() {
        let c = serve_config(&[
            "--agent",
            "echo",
            "--grpc-addr",
            "0.0.0.0:1",
            "--no-rest",
            "--grpc-url-style",
            "http",
        ])
        .unwrap();
        assert_eq!(c.grpc_addr.as_deref(), Some("0.0.0.0:1"));
        assert_eq!(c.rest_addr, None);
        assert_eq!(c.grpc_url_style, GrpcUrlStyle::Http);
        assert_eq!(c.agent.description.skills[0].id, "echo");
        let c = serve_config(&["--no-grpc", "--rest-addr", "127.0.0.1:0"]).unwrap();
        assert_eq!(c.grpc_addr, None);
        assert_eq!(c.rest_addr.as_deref(), Some("127.0.0.1:0"));
        assert!(serve_config(&["--no-grpc", "--grpc-addr", "127.0.0.1:0"]).is_err());
        assert!(serve_config(&["--grpc-url-style", "https"]).is_err());
    }
}
