//! `kipcheck client`: the reference client model on real sockets
//! ([`kipcheck::live_client`]). Argument handling and the stdin/stdout channel only.
//!
//! stdin: one `user_request <id>` line per application request, one `connect <node>
//! <host:port>` line per connection the scenario gives the client; end of input ends the
//! client (exit 0). stdout: `released <id>` when that request may go ahead. stderr: the
//! model's events and connection notes, one line each.
//!
//! `--style java` uses the connections as Java's NetworkClient does (discovery on the
//! bootstrap connection, then a new connection to the broker Metadata named; lost connections
//! opened again by itself): [`kipcheck::live_client::ConnectionStyle::Java`].

use kipcheck::faulty::Faults;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use kipcheck::live_client::{
    client_fault, client_faults, parse_properties, run_client_styled, ClientSetup, ConnectionStyle,
    Control, LiveClientError, LiveOptions, Report,
};
use kipcheck::model::SpecProfile;
use tokio::sync::mpsc;

/// `kipcheck client` arguments.
#[derive(Debug, Args)]
pub(super) struct ClientArgs {
    /// Bootstrap address `host:port` (used when the configuration has no `bootstrap.servers`).
    #[arg(long)]
    bootstrap: Option<String>,
    /// The client's `client.properties` (`kipcheck.client.type`, `kipcheck.client.embedded`,
    /// `bootstrap.servers`, and the user configuration the model gets).
    #[arg(long, required_unless_present = "list_faults")]
    config: Option<PathBuf>,
    /// Spec profile (YAML or JSON, the format `run --profile` takes). Default: the built-in.
    #[arg(long)]
    profile: Option<PathBuf>,
    /// Run a built-in client faulty variant of the model instead of the reference.
    #[arg(long)]
    fault: Option<String>,
    /// The model's RNG seed (node choice, backoff jitter).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print the client faulty variants' names, one per line, and exit.
    #[arg(long)]
    list_faults: bool,
    /// How the client uses its connections: `reference` (each bootstrap connection is a model
    /// node; no connection of its own) or `java` (Java's NetworkClient: Metadata on the
    /// bootstrap connection, then a new connection to the broker it names carries everything
    /// else; lost connections are opened again after 50 ms).
    #[arg(long, value_enum, default_value_t = Style::Reference)]
    style: Style,
}

/// `--style`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Style {
    Reference,
    Java,
}

/// Runs `kipcheck client`.
pub(super) fn run(a: ClientArgs) -> anyhow::Result<ExitCode> {
    if a.list_faults {
        for f in client_faults() {
            println!("{}", f.name());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let path = a.config.as_ref().context("--config is required")?;
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let props = parse_properties(&text).map_err(|source| LiveClientError::Properties {
        path: path.display().to_string(),
        source,
    })?;
    let setup = ClientSetup::from_properties(&props, a.bootstrap.as_deref())?;
    let profile = match &a.profile {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            SpecProfile::from_yaml(&text).with_context(|| format!("--profile {}", p.display()))?
        }
        None => SpecProfile::default(),
    };
    let faults = match &a.fault {
        Some(name) => Faults::one(client_fault(name)?),
        None => Faults::none(),
    };
    let opts = LiveOptions {
        setup,
        profile,
        faults,
        seed: a.seed,
    };
    let (control_tx, control_rx) = mpsc::unbounded_channel();
    let (report_tx, mut report_rx) = mpsc::unbounded_channel();
    // stdin is read on a plain thread: a blocked read never holds the runtime up, and the
    // process exits when the loop ends, whatever the thread is doing.
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            match Control::parse(&line) {
                Some(c) => {
                    if control_tx.send(c).is_err() {
                        break;
                    }
                }
                None if line.trim().is_empty() => {}
                None => eprintln!("kipcheck client: ignored stdin line {line:?}"),
            }
        }
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let printer = tokio::spawn(async move {
            while let Some(r) = report_rx.recv().await {
                print_report(&r);
            }
        });
        let style = match a.style {
            Style::Reference => ConnectionStyle::Reference,
            Style::Java => ConnectionStyle::Java,
        };
        let result = run_client_styled(opts, style, control_rx, report_tx).await;
        let _ = printer.await;
        result
    })?;
    Ok(ExitCode::SUCCESS)
}

fn print_report(r: &Report) {
    match r {
        Report::Released { id, .. } => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "released {id}");
            let _ = out.flush();
        }
        Report::Event(e) => {
            let json = serde_json::to_string(&e.event).unwrap_or_default();
            eprintln!("kipcheck client: {} ms event {json}", e.at.0);
        }
        Report::Note(n) => eprintln!("kipcheck client: {n}"),
    }
}
