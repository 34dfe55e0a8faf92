//! `kipcheck load`: the load driver ([`kipcheck::serve::run_load`]) from the command line —
//! handshakes/s and p50/p99 against `kipcheck serve` or any Kafka-protocol server, or N idle
//! connections held open (for measuring the server's memory). Argument handling only.

use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use kipcheck::model::SpecProfile;
use kipcheck::serve::{hold_idle, run_load, LoadPlan};

use super::EXIT_TARGET;

/// `kipcheck load` arguments.
#[derive(Debug, Args)]
pub(super) struct LoadArgs {
    /// Server address, `HOST:PORT`.
    #[arg(long)]
    connect: String,
    /// Concurrent connections.
    #[arg(long, default_value_t = 64)]
    connections: usize,
    /// Seconds to run (or to hold idle connections).
    #[arg(long, default_value_t = 10)]
    duration: u64,
    /// Only ApiVersions per handshake (servers without PushConfig).
    #[arg(long)]
    api_versions_only: bool,
    /// Each handshake on a new connection (connect, handshake, close), as a client instance
    /// does; default: each connection repeats the handshake.
    #[arg(long)]
    new_connection: bool,
    /// Offered handshakes per second over all connections (default: as fast as answered).
    #[arg(long)]
    rate: Option<u32>,
    /// Open this many idle connections and hold them for `--duration` instead.
    #[arg(long)]
    idle: Option<usize>,
}

/// Runs `kipcheck load`; prints one JSON object. Exit 3 when nothing reached the server
/// (every connection or handshake failed, or no idle connection opened).
pub(super) fn run(a: LoadArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let duration = Duration::from_secs(a.duration);
    if let Some(n) = a.idle {
        let opened = runtime.block_on(hold_idle(&a.connect, n, duration));
        println!(
            "{}",
            serde_json::json!({ "idle_connections_opened": opened })
        );
        if opened == 0 && n > 0 {
            eprintln!("kipcheck: load: no connection to {} opened", a.connect);
            return Ok(ExitCode::from(EXIT_TARGET));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let plan = LoadPlan {
        addr: a.connect.clone(),
        connections: a.connections,
        duration,
        api_versions_only: a.api_versions_only,
        new_connection: a.new_connection,
        rate: a.rate,
        numbers: SpecProfile::default().provisional,
    };
    let report = runtime.block_on(run_load(&plan));
    println!("{}", serde_json::to_string(&report)?);
    if report.handshakes == 0 && report.errors > 0 {
        eprintln!(
            "kipcheck: load: every attempt failed ({} errors, no handshake completed); is a server listening at {}?",
            report.errors, a.connect
        );
        return Ok(ExitCode::from(EXIT_TARGET));
    }
    Ok(ExitCode::SUCCESS)
}
