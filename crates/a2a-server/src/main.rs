//! The `a2a` binary: parses the arguments, binds, and calls the library.
//! See the `a2a_server` crate docs for the flags.

use std::io::IsTerminal;
use std::process::ExitCode;

use a2a_server::cli::{Cli, Command, EXIT_SERVE_ERROR, ServeArgs, run_client};
use a2a_server::{Listeners, ServeError, Server, shutdown_signal};
use clap::Parser;
use tracing_subscriber::EnvFilter;

// mimalloc: ~17 % fewer instructions per request than glibc malloc (crates/a2a-jsonrpc/benches/hotpath_mimalloc.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(EXIT_SERVE_ERROR);
        }
    };
    runtime.block_on(async {
        match cli.command {
            Command::Serve(args) => match serve(&args).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(EXIT_SERVE_ERROR)
                }
            },
            command => run_client(command).await,
        }
    })
}

async fn serve(args: &ServeArgs) -> Result<(), ServeError> {
    let config = args.config();
    let listeners = Listeners::bind(&config).await?;
    let server = Server::new(config, listeners).await?;
    let shutdown = shutdown_signal();
    server.announce(&mut std::io::stdout().lock())?;
    server.run(shutdown).await
}
