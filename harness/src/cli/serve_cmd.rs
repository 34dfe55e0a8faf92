//! `kipcheck serve`: runs the emulated broker ([`kipcheck::serve::Server`]) on a TCP port
//! until killed, optionally set up and scripted by a scenario and recording every frame as
//! JSON lines. Argument handling only; the server lives in the library.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use super::selection::{load_all, SuiteArgs};
use anyhow::{anyhow, Context};
use clap::Args;
use kipcheck::serve::{ServeOptions, ServeScript, Server};

/// `kipcheck serve` arguments.
#[derive(Debug, Args)]
pub(super) struct ServeArgs {
    /// Address to listen on (`127.0.0.1:0` picks a free port; the chosen address is printed).
    #[arg(long, default_value = "127.0.0.1:9092")]
    listen: String,
    /// Set up and script the broker from this scenario (a broker scenario's setup, or a
    /// client scenario's emulated broker and its PushConfig answers).
    #[arg(long)]
    scenario: Option<String>,
    /// `--scenarios DIR` (default: the built-in suite).
    #[command(flatten)]
    suite: SuiteArgs,
    /// Write every frame and close as a JSON line to this file.
    #[arg(long)]
    record: Option<PathBuf>,
    /// Topics listed in Metadata (repeatable; default `kipcheck-topic`).
    #[arg(long = "topic")]
    topics: Vec<String>,
    /// Answer Metadata for an unknown topic with UNKNOWN_TOPIC_OR_PARTITION instead of
    /// auto-creating it (the default, like Kafka's `auto.create.topics.enable=true`).
    #[arg(long)]
    no_auto_create_topics: bool,
    /// Host advertised in Metadata (default: the listen address).
    #[arg(long)]
    advertised_host: Option<String>,
    /// Close a connection that sends no complete frame for this long.
    #[arg(long, default_value_t = 30_000)]
    idle_timeout_ms: u64,
    /// Connections served at once (more are closed on accept).
    #[arg(long, default_value_t = 20_000)]
    max_connections: usize,
    /// Largest request frame accepted, bytes.
    #[arg(long, default_value_t = 1 << 20)]
    max_frame_bytes: usize,
    /// Threads serving connections: 1 runs every connection on one thread (no wake-ups
    /// across threads: the least CPU per handshake); more spread them over that many.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=64))]
    threads: u16,
}

/// Runs `kipcheck serve`.
pub(super) fn run(a: ServeArgs) -> anyhow::Result<ExitCode> {
    let mut opts = ServeOptions {
        advertised_host: a.advertised_host.clone(),
        idle_timeout: Duration::from_millis(a.idle_timeout_ms),
        max_connections: a.max_connections,
        max_frame_bytes: a.max_frame_bytes,
        keep_records: false,
        auto_create_topics: !a.no_auto_create_topics,
        ..ServeOptions::default()
    };
    if !a.topics.is_empty() {
        opts.topics = a.topics.clone();
    }
    if let Some(id) = &a.scenario {
        let all = load_all(&a.suite)?;
        let s = all
            .into_iter()
            .find(|s| &s.file.id == id)
            .ok_or_else(|| anyhow!("no scenario with id {id:?}"))?;
        opts.script = ServeScript::from_scenario(&s, &s.profile.provisional)?;
        opts.profile = s.profile.clone();
    }
    let sink: Option<Box<dyn Write + Send>> = match &a.record {
        Some(p) => Some(Box::new(BufWriter::new(
            File::create(p).with_context(|| format!("creating {}", p.display()))?,
        ))),
        None => None,
    };
    let runtime = match a.threads {
        1 => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?,
        n => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(usize::from(n))
            .enable_all()
            .build()?,
    };
    runtime.block_on(async {
        let server = Server::start(&a.listen, opts, sink).await?;
        println!("kipcheck serve: listening on {}", server.local_addr());
        std::io::stdout().flush()?;
        server.run_forever().await;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}
