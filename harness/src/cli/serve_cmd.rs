//! `kipcheck serve`: runs the emulated broker ([`kipcheck::serve::Server`]) on a TCP port
//! until killed, optionally set up and scripted by a scenario and recording every frame as
//! JSON lines; with `--role controller` the reference KRaft controller instead
//! (`--print-manifest` prints the target manifest that describes it and exits). Argument
//! handling only; the server lives in the library.

use kipcheck::faulty::Fault;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use super::selection::{load_all, SuiteArgs};
use super::EXIT_USAGE;
use anyhow::{anyhow, Context};
use clap::{Args, ValueEnum};
use kipcheck::adapter::failover::FailoverCommand;
use kipcheck::model::SpecProfile;
use kipcheck::serve::{
    is_controller_fault, render_manifest, served_manifest, ControllerOptions, ManifestFacts,
    ServeOptions, ServeScript, Server,
};

/// What `kipcheck serve` is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
enum ServeRole {
    /// The emulated broker (ApiVersions, Metadata, PushConfig).
    #[default]
    Broker,
    /// The reference KRaft controller, its metadata log served over Fetch.
    Controller,
}

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
    #[arg(long, default_value_t = kipcheck::codec::limits::PEER_MAX_FRAME_SIZE)]
    max_frame_bytes: usize,
    /// Threads serving connections: 1 runs every connection on one thread (no wake-ups
    /// across threads: the least CPU per handshake); more spread them over that many.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=64))]
    threads: u16,
    /// `broker` (default) or `controller`: the reference KRaft controller.
    #[arg(long, value_enum, default_value_t = ServeRole::Broker)]
    role: ServeRole,
    /// Controller: the bootstrap metadata.version level (1-50).
    #[arg(long, default_value_t = kipcheck::serve::definitions::DEFAULT_METADATA_VERSION)]
    metadata_version: i16,
    /// Controller: serve a built-in faulty controller (a `--target mutant:NAME` controller
    /// fault) instead of the reference.
    #[arg(long, value_name = "NAME")]
    fault: Option<String>,
    /// Controller: the cluster id it was formatted with.
    #[arg(long, default_value = kipcheck::emulate::controller::CLUSTER_ID)]
    cluster_id: String,
    /// Its node id (the controller's `node.id`; the broker's in Metadata).
    #[arg(long, default_value_t = 1)]
    node_id: i32,
    /// Controller: print the target manifest describing it (for `--target-manifest`) and exit.
    /// It has no `failover:` entry (no server runs to fail over): `--write-manifest` has.
    #[arg(long)]
    print_manifest: bool,
    /// Controller: once listening, write the target manifest describing it to this file,
    /// with the `failover:` entry that makes kipcheck fail it over (`kill -HUP <its pid>`:
    /// on SIGHUP it replaces itself by a controller rebuilt from its metadata log).
    #[arg(long, value_name = "FILE")]
    write_manifest: Option<PathBuf>,
    /// The spec profile (YAML) whose readings it follows (default: the built-in one).
    #[arg(long)]
    profile: Option<PathBuf>,
}

/// The controller setup, or the exit code of a usage error (printed).
fn controller_options(a: &ServeArgs) -> Result<ControllerOptions, ExitCode> {
    let usage = |msg: String| {
        eprintln!("kipcheck: {msg}");
        ExitCode::from(EXIT_USAGE)
    };
    let fault = match a.fault.as_deref() {
        None => None,
        Some(name) => match Fault::from_name(name) {
            Some(f) if is_controller_fault(f) => Some(f),
            Some(f) => {
                return Err(usage(format!(
                    "--fault {name} is not a controller fault ({})",
                    f.bug()
                )))
            }
            None => {
                let names: Vec<&str> = Fault::ALL
                    .iter()
                    .filter(|f| is_controller_fault(**f))
                    .map(|f| f.name())
                    .collect();
                return Err(usage(format!(
                    "unknown controller fault {name:?} (available: {})",
                    names.join(", ")
                )));
            }
        },
    };
    let range = kipcheck::serve::controller::MIN_METADATA_VERSION
        ..=kipcheck::serve::controller::MAX_METADATA_VERSION;
    if !range.contains(&a.metadata_version) {
        return Err(usage(format!(
            "--metadata-version {} is outside the supported range {}..={}",
            a.metadata_version,
            range.start(),
            range.end()
        )));
    }
    Ok(ControllerOptions {
        metadata_version: a.metadata_version,
        fault,
        cluster_id: a.cluster_id.clone(),
        ..ControllerOptions::default()
    })
}

/// Runs `kipcheck serve`.
pub(super) fn run(a: ServeArgs) -> anyhow::Result<ExitCode> {
    let controller_only = [
        (a.fault.is_some(), "--fault"),
        (a.print_manifest, "--print-manifest"),
        (a.write_manifest.is_some(), "--write-manifest"),
    ];
    if a.role == ServeRole::Broker {
        if let Some((_, flag)) = controller_only.iter().find(|(set, _)| *set) {
            eprintln!("kipcheck: {flag} needs --role controller");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    }
    if a.role == ServeRole::Controller && a.scenario.is_some() {
        eprintln!("kipcheck: --scenario sets up the broker; it needs --role broker");
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    let profile = match &a.profile {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            SpecProfile::from_yaml(&text).with_context(|| format!("profile {}", p.display()))?
        }
        None => SpecProfile::default(),
    };
    let controller = match a.role {
        ServeRole::Broker => None,
        ServeRole::Controller => match controller_options(&a) {
            Ok(c) => Some(c),
            Err(code) => return Ok(code),
        },
    };
    if let (true, Some(c)) = (a.print_manifest, &controller) {
        print!("{}", manifest_text(c, &profile, a.node_id, None));
        return Ok(ExitCode::SUCCESS);
    }
    // Written once listening: a failover before then would find nothing to fail over.
    let manifest_out = match (&a.write_manifest, &controller) {
        (Some(path), Some(c)) => Some((
            path.clone(),
            manifest_text(
                c,
                &profile,
                a.node_id,
                Some(own_failover(&marker_path(path))),
            ),
        )),
        _ => None,
    };
    let mut opts = ServeOptions {
        profile,
        node_id: a.node_id,
        controller,
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
    let is_controller = opts.controller.is_some();
    runtime.block_on(async {
        // Installed before anything can name this pid: SIGHUP's default would end the process.
        let hangups = if is_controller {
            Some(
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
                    .context("installing the SIGHUP handler")?,
            )
        } else {
            None
        };
        let server = Server::start(&a.listen, opts, sink).await?;
        if let Some((path, text)) = &manifest_out {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
        }
        println!("kipcheck serve: listening on {}", server.local_addr());
        std::io::stdout().flush()?;
        match hangups {
            Some(mut hup) => {
                let marker = a.write_manifest.as_deref().map(marker_path);
                while hup.recv().await.is_some() {
                    // A failover that cannot replay leaves the controller as it was.
                    let outcome = server.failover();
                    match &outcome {
                        Ok(n) => {
                            eprintln!("kipcheck serve: failover {n}: rebuilt from the metadata log")
                        }
                        Err(e) => eprintln!("kipcheck serve: failover refused: {e}"),
                    }
                    // The manifest's command waits on the marker: gone = done, text = refused.
                    if let Some(m) = &marker {
                        let _ = match outcome {
                            Ok(_) => std::fs::remove_file(m),
                            Err(e) => std::fs::write(m, format!("failover refused: {e}\n")),
                        };
                    }
                }
                server.run_forever().await;
            }
            None => server.run_forever().await,
        }
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The file a failover command creates and waits on: the manifest's path + `.failing-over`.
fn marker_path(manifest: &std::path::Path) -> PathBuf {
    let mut m = manifest.as_os_str().to_owned();
    m.push(".failing-over");
    PathBuf::from(m)
}

/// The failover this process answers: SIGHUP to its own pid. `kill` returns once the signal is
/// queued, not handled, so the command first creates `marker` and waits (bounded by
/// `timeout_ms`) until the server removes it (failed over) or writes why it refused (exit 1).
fn own_failover(marker: &std::path::Path) -> FailoverCommand {
    let m = marker.to_string_lossy().replace('\'', r"'\''");
    FailoverCommand {
        command: format!(
            "m='{m}'; : > \"$m\" && kill -HUP {pid} && while [ -e \"$m\" ] && [ ! -s \"$m\" ]; \
             do sleep 0.01; done; if [ -s \"$m\" ]; then cat \"$m\" >&2; rm -f \"$m\"; exit 1; fi",
            pid = std::process::id()
        ),
        timeout_ms: 10_000,
        ready_timeout_ms: 10_000,
    }
}

/// The target manifest describing the served controller `c`.
fn manifest_text(
    c: &ControllerOptions,
    profile: &SpecProfile,
    node_id: i32,
    failover: Option<FailoverCommand>,
) -> String {
    let software = match c.fault {
        Some(f) => format!(
            "kipcheck {} reference controller, fault {f}",
            env!("CARGO_PKG_VERSION")
        ),
        None => format!(
            "kipcheck {} reference controller",
            env!("CARGO_PKG_VERSION")
        ),
    };
    let facts = ManifestFacts {
        software,
        finalized: c.metadata_version,
        persistence_level: profile.static_config_persistence_level,
        cluster_id: c.cluster_id.clone(),
        node_id,
        failover,
    };
    render_manifest(&served_manifest(&c.defs, &facts))
}
