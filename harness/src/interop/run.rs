//! One whole interop run: every real client captured through a relay in front of one real
//! broker, then every server peer's YAML suites run through `tcp://` by the runner (and a KRaft
//! controller's metadata log read back), then every live client's suite through `client-cmd:`,
//! collected into a [`Matrix`]. It orchestrates and judges nothing itself: the verdicts are the
//! runner's (and the capture's and the metadata-log proof's). It writes no file (the CLI does).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::adapter::{load_manifest, target_from_spec, Target, TargetOptions};
use crate::runner::{run_suite, RunOptions, ScenarioResult};
use crate::scenario::{Role, Scenario};

use super::capture::{capture_client, ClientFacts};
use super::env::{PeerEnv, ServerPeer, ServerRole};
use super::error::InteropError;
use super::matrix::{Matrix, PeerRow};
use super::metadata_log::metadata_log_facts;
use super::suite::{suite_facts, SuiteKind};

/// What an interop run covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InteropOptions {
    /// The server peers clients are relayed to, in order of preference (the first present
    /// one is used).
    pub upstreams: Vec<String>,
    /// Each client's hard deadline.
    pub client_deadline: Duration,
    /// Run the clients (the relay captures and the live-client suite; off: server peers only).
    pub clients: bool,
    /// Where controller manifests are: an Apache Kafka controller of version V gets
    /// `DIR/kafka-V.yaml` as its `--target-manifest` in the controller suite when it exists.
    pub manifests: PathBuf,
    /// Run seed of the YAML suites.
    pub seed: u64,
}

impl Default for InteropOptions {
    fn default() -> Self {
        InteropOptions {
            upstreams: vec!["kafka".into(), "kfake".into()],
            client_deadline: Duration::from_secs(30),
            clients: true,
            manifests: PathBuf::from("interop/manifests"),
            seed: 1,
        }
    }
}

/// The scenarios an interop run draws its suites from.
#[derive(Clone, Debug, Default)]
pub struct InteropSuites {
    /// The conformance suite (`scenarios/`, usually the built-in one): the `live-safe`,
    /// controller and `live-client` suites.
    pub conformance: Vec<Scenario>,
    /// The interop scenarios (`interop/scenarios/`): what Apache Kafka itself must do on the
    /// wire (the `kafka-broker` and `kafka-controller` suites).
    pub interop: Vec<Scenario>,
}

/// Runs every check against the peers in `env`. `progress` is told each peer and suite as it
/// starts.
pub fn run_interop(
    env: &PeerEnv,
    opts: &InteropOptions,
    suites: &InteropSuites,
    mut progress: impl FnMut(&str),
) -> Result<Matrix, InteropError> {
    let runtime = runtime()?;
    let mut m = Matrix::default();
    // Clients first: a server peer may not survive a PushConfig, and clients are relayed to
    // one of them.
    if opts.clients {
        capture_clients(env, opts, &mut m, &mut progress)?;
    }
    let client_rows = m.rows.len();
    for s in &env.servers {
        for row in server_rows(&runtime, s, opts, suites, &mut progress)? {
            m.rows.push(row);
        }
    }
    // The report lists server peers first.
    m.rows.rotate_left(client_rows);
    if opts.clients {
        for c in &env.live_clients {
            let kind = SuiteKind::ClientLive;
            progress(&format!("{} ({})", c.name, kind.name()));
            let spec = format!("client-cmd:{}", c.command);
            let results = run_one(
                &runtime,
                &spec,
                &TargetOptions::default(),
                &suites.conformance,
                kind,
                2,
                opts.seed,
            )?;
            m.rows.push(PeerRow {
                peer: c.name.to_string(),
                software: format!("{} (against kipcheck's emulated brokers)", c.software),
                is_apache_kafka: false,
                facts: suite_facts(&results, kind),
            });
        }
    }
    Ok(m)
}

/// One server peer's rows, in run order: a controller's metadata-log proof (it registers a
/// broker, so it goes first), Apache Kafka's own suite, then the conformance suite, whose
/// PushConfig scenarios come last ([`SuiteKind::select`]) since a peer may not survive one.
fn server_rows(
    runtime: &tokio::runtime::Runtime,
    s: &ServerPeer,
    opts: &InteropOptions,
    suites: &InteropSuites,
    progress: &mut impl FnMut(&str),
) -> Result<Vec<PeerRow>, InteropError> {
    let row = |software: &str, facts| PeerRow {
        peer: s.name.to_string(),
        software: software.to_string(),
        is_apache_kafka: s.is_apache_kafka,
        facts,
    };
    let mut rows = Vec::new();
    let (kafka_kind, kind) = match s.role {
        ServerRole::Broker => (SuiteKind::KafkaBroker, SuiteKind::BrokerLiveSafe),
        ServerRole::Controller => (SuiteKind::KafkaController, SuiteKind::Controller),
    };
    let (spec, plain) = tcp_target(s);
    progress(s.name);
    let log = metadata_log_facts(s)?;
    if !log.is_empty() {
        rows.push(row(&s.software, log));
    }
    if s.is_apache_kafka {
        progress(&format!("{} ({})", s.name, kafka_kind.name()));
        let results = run_one(
            runtime,
            &spec,
            &plain,
            &suites.interop,
            kafka_kind,
            1,
            opts.seed,
        )?;
        rows.push(row(&s.software, suite_facts(&results, kafka_kind)));
    }
    progress(&format!("{} ({})", s.name, kind.name()));
    let manifest_path = (s.role == ServerRole::Controller && s.is_apache_kafka)
        .then(|| s.software.split_whitespace().last())
        .flatten()
        .map(|v| opts.manifests.join(format!("kafka-{v}.yaml")))
        .filter(|p| p.is_file());
    let manifest = manifest_path
        .as_deref()
        .map(load_manifest)
        .transpose()
        .map_err(|e| InteropError::Manifest(Box::new(e)))?;
    let software = match &manifest_path {
        Some(p) => format!("{} (manifest {})", s.software, p.display()),
        None => s.software.clone(),
    };
    let with_manifest = TargetOptions { manifest, ..plain };
    let results = run_one(
        runtime,
        &spec,
        &with_manifest,
        &suites.conformance,
        kind,
        1,
        opts.seed,
    )?;
    rows.push(row(&software, suite_facts(&results, kind)));
    Ok(rows)
}

/// The scenarios of `kind` among `scenarios`, run against the server peer `peer` through
/// `tcp://` in its role (without a manifest), as matrix facts: what [`run_interop`] does for
/// one suite of one peer, for a caller that picks the scenarios (the peer tests leave out
/// those a peer does not survive).
pub fn run_server_suite(
    peer: &ServerPeer,
    kind: SuiteKind,
    scenarios: &[Scenario],
    seed: u64,
) -> Result<Vec<super::verdict::Fact>, InteropError> {
    let runtime = runtime()?;
    let (spec, opts) = tcp_target(peer);
    let results = run_one(&runtime, &spec, &opts, scenarios, kind, 1, seed)?;
    Ok(suite_facts(&results, kind))
}

/// The `tcp://` specification of `peer` and its options: its role, no manifest.
fn tcp_target(peer: &ServerPeer) -> (String, TargetOptions) {
    let role = match peer.role {
        ServerRole::Broker => Role::Broker,
        ServerRole::Controller => Role::Controller,
    };
    let opts = TargetOptions {
        role: Some(role),
        ..TargetOptions::default()
    };
    (format!("tcp://{}", peer.addr), opts)
}

/// The runtime the suites run on (two workers: a scenario's I/O and its timers).
fn runtime() -> Result<tokio::runtime::Runtime, InteropError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(InteropError::Runtime)
}

/// The scenarios of `kind` from `all`, run against the target `spec`.
fn run_one(
    runtime: &tokio::runtime::Runtime,
    spec: &str,
    opts: &TargetOptions,
    all: &[Scenario],
    kind: SuiteKind,
    jobs: usize,
    seed: u64,
) -> Result<Vec<ScenarioResult>, InteropError> {
    let target: Arc<dyn Target> =
        target_from_spec(spec, opts).map_err(|source| InteropError::Target {
            spec: spec.to_string(),
            source,
        })?;
    let chosen = kind.select(all);
    let options = RunOptions {
        seed,
        jobs,
        scenario_timeout: Duration::from_secs(60),
        baseline: None,
        command: format!("kipcheck run --target {spec:?} --seed {seed}"),
        min_judged: None,
        flaky: Default::default(),
        active_jobs: None,
    };
    let (results, _) = runtime.block_on(run_suite(target, chosen, &options, &mut |_| {}));
    Ok(results)
}

/// Every real client program, captured through a relay in front of the first upstream present.
fn capture_clients(
    env: &PeerEnv,
    opts: &InteropOptions,
    m: &mut Matrix,
    progress: &mut impl FnMut(&str),
) -> Result<(), InteropError> {
    let upstream = opts.upstreams.iter().find_map(|u| env.server(u));
    for c in &env.clients {
        let Some(up) = upstream else {
            m.skipped
                .push((c.name.to_string(), "no upstream broker to relay to".into()));
            continue;
        };
        progress(c.name);
        let capture = capture_client(c, &up.addr, opts.client_deadline)?;
        m.rows.push(PeerRow {
            peer: c.name.to_string(),
            software: format!("{} (relayed to {})", c.software, up.software),
            is_apache_kafka: false,
            facts: capture.facts(),
        });
    }
    Ok(())
}
