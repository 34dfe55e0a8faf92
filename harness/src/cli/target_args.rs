//! The target options `run` and `list` share: which implementation is under test
//! (`--target`), what a live one cannot tell over the wire (`--role`, `--capability`,
//! `--profile`), the `exec:` process limits and `--observe`. Builds the target and turns a
//! bad specification into exit code 2 and a target that cannot be started or reached into
//! exit code 3, before any scenario runs. Several `--target tcp://…` with `--role controller`
//! (each with its own `--metadata-log` and `--target-manifest`, paired in order) become one
//! [`Routed`] target: each scenario runs on the first controller that binds it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use kipcheck::adapter::{
    load_manifest, target_from_spec, unclaimable_live, AdapterError, Declared, Routed, SetupError,
    Target, TargetManifest, TargetOptions, Unobserved, MUTANT_PREFIX,
};
use kipcheck::model::SpecProfile;
use kipcheck::runner::{gate, UnsupportedCause};
use kipcheck::scenario::{Capability, Role};

use super::selection::Observe;
use super::{EXIT_TARGET, EXIT_USAGE};

/// Whether the command needs the target to answer before it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reach {
    /// It runs scenarios: an unreachable target ends it with exit 3.
    Required,
    /// It only plans (what would run): the target is built from what was declared.
    NotNeeded,
}

/// `--target` and what goes with it.
#[derive(Clone, Debug, Args)]
pub(super) struct TargetArgs {
    /// The implementation under test: reference, mutant:NAME, tcp://HOST:PORT,
    /// client-cmd:"COMMAND {bootstrap}" or exec:"COMMAND".
    ///
    ///   reference                  the built-in reference implementation (default)
    ///   mutant:NAME                a built-in faulty variant of it (`kipcheck mutants --list`)
    ///   tcp://HOST:PORT            a live broker, or controller with --role controller; kipcheck is its client
    ///   client-cmd:"CMD {bootstrap}"  a live client, started per scenario against kipcheck's emulated brokers
    ///   exec:"CMD"                 an adapter process speaking kipcheck's JSON-lines protocol (docs/adapter-protocol.md)
    ///
    /// Repeatable for live controllers at different metadata.version levels
    /// (`--target tcp://A --target tcp://B --role controller`): each scenario runs on the
    /// first that binds it, in one report (docs/live-targets.md, "Two levels in one run").
    #[arg(long, default_value = "reference", verbatim_doc_comment)]
    pub target: Vec<String>,
    /// The role a live target plays (`client`, `broker` or `controller`).
    #[arg(long, value_parser = parse_role)]
    pub role: Option<Role>,
    /// A capability of a live target (`tcp://`, `client-cmd:`) that cannot be discovered over
    /// the wire (repeatable), e.g. `policy_control`. `events` and `virtual_clock` are refused:
    /// no live peer has them.
    #[arg(long = "capability", value_parser = parse_capability)]
    pub capabilities: Vec<Capability>,
    /// `exec:` targets: wall-clock limit for one message exchange with the process, in ms
    /// (default 10000); a slower answer makes the scenario errored.
    #[arg(long, value_name = "MS")]
    pub exec_call_timeout_ms: Option<u64>,
    /// `exec:` targets: longest line accepted from the process, in bytes (default 16 MiB).
    #[arg(long, value_name = "BYTES")]
    pub exec_max_line_bytes: Option<usize>,
    /// `none`: judge the target as one that reports no model events (observation steps are
    /// recorded as not observed), to measure what the wire alone shows. `target` (default):
    /// observe what the target reports.
    #[arg(long, value_enum, default_value_t = Observe::Target)]
    pub observe: Observe,
    /// The spec profile (YAML, the format of the built-in default profile) whose readings the
    /// target follows. A scenario that pins a reading to another value is unsupported with
    /// that reason; every other scenario runs under the declared readings. `tcp://` and
    /// `client-cmd:` default to the built-in profile; on `reference` and `mutant:NAME` it
    /// makes the in-process target follow these readings as a live one would (without it
    /// they are handed each scenario's profile). With several `--target`s: once (every
    /// target's) or once per target, in the same order; a scenario then runs on a target none
    /// of whose readings it pins to another value.
    #[arg(long, value_name = "FILE")]
    pub profile: Vec<PathBuf>,
    /// `client-cmd:`: run the client's timeline F times as fast (0 < F <= 1): timing keys of
    /// its `{config}` and every timing window are multiplied by F (docs/live-clients.md).
    #[arg(long, value_name = "F")]
    pub time_scale: Option<f64>,
    /// `tcp://` brokers: listen on HOST:PORT for the broker's policy bridge
    /// (interop/policy-bridge, docs/policy-bridge.md). Each scenario's `setup.broker.policy`
    /// verdict is what the broker's ClientConfigPolicy answers, and each `process()` call is
    /// observed as a `policy_invoked` event.
    #[arg(long, value_name = "HOST:PORT")]
    pub policy_host: Option<String>,
    /// `tcp://` with `--role controller`: read the KRaft metadata log (`__cluster_metadata`)
    /// from this address as an observer (Fetch, ReplicaId -1), normally the controller
    /// listener itself; `expect_event`/`expect_no_event` steps on `record_appended` are then
    /// judged on the records each scenario caused (docs/live-targets.md). With several
    /// `--target`s: once per target, in the same order, or not at all.
    #[arg(long, value_name = "HOST:PORT")]
    pub metadata_log: Vec<String>,
    /// `tcp://` with `--role controller`: the controller's own definitions (YAML,
    /// docs/live-targets.md "Target manifests"; Kafka 4.4's: interop/manifests/kafka-4.4.0.yaml).
    /// Scenarios that inject definitions, MV validators or a metadata.version are bound to the
    /// real configs and levels it declares, or unsupported with what is missing. With several
    /// `--target`s: once (for every target) or once per target, in the same order.
    #[arg(long, value_name = "FILE")]
    pub target_manifest: Vec<PathBuf>,
}

fn parse_role(s: &str) -> Result<Role, String> {
    serde_json::from_value(serde_json::Value::String(s.to_ascii_lowercase()))
        .map_err(|_| format!("role {s:?}: expected client, broker or controller"))
}

fn parse_capability(s: &str) -> Result<Capability, String> {
    serde_json::from_value(serde_json::Value::String(s.to_ascii_lowercase()))
        .map_err(|e| format!("capability {s:?}: {e}"))
}

/// `once`, `3 times`.
fn times(n: usize) -> String {
    if n == 1 {
        "once".to_owned()
    } else {
        format!("{n} times")
    }
}

/// The exit code for a target that could not be built: a bad specification is a usage
/// error; a target that crashed, hung or broke its protocol while starting (e.g. an `exec:`
/// adapter's hello), or cannot be reached, is a target failure.
fn exit_for(e: &AdapterError) -> u8 {
    match e {
        AdapterError::Setup(_) => EXIT_USAGE,
        _ => EXIT_TARGET,
    }
}

impl TargetArgs {
    /// Why the declared `--capability` values cannot hold for this target, if they cannot.
    fn capability_error(&self) -> Option<String> {
        let spec = self.target.first()?;
        let live = spec.starts_with("tcp://") || spec.starts_with("client-cmd:");
        if !live {
            let c = self.capabilities.first()?;
            let kind = if spec.starts_with("exec:") {
                "an exec: adapter declares its capabilities in its hello"
            } else if spec == "reference" || spec.starts_with(MUTANT_PREFIX) {
                "the reference and its variants have every capability"
            } else {
                return None; // an unknown target: its own error says so
            };
            return Some(format!(
                "--capability {}: only a live target (tcp://, client-cmd:) takes declared capabilities; {kind}",
                c.name()
            ));
        }
        self.capabilities.iter().find_map(|c| {
            unclaimable_live(*c).map(|why| format!("--capability {}: {why}", c.name()))
        })
    }

    /// Why the `--target`, `--metadata-log` and `--target-manifest` counts do not go
    /// together: several targets must all be `tcp://` controllers; `--metadata-log` comes once
    /// per target or not at all, `--target-manifest` once, once per target or not at all.
    fn count_error(&self) -> Option<String> {
        let n = self.target.len();
        if n > 1 {
            if let Some(other) = self.target.iter().find(|t| !t.starts_with("tcp://")) {
                return Some(format!(
                    "--target given {n} times: only tcp:// controllers are routed between (each scenario runs on the one whose metadata.version it needs); {other} is not tcp://"
                ));
            }
            if self.role != Some(Role::Controller) {
                return Some(format!(
                    "--target given {n} times: several targets are live controllers at different metadata.version levels, so they need --role controller"
                ));
            }
        }
        let logs = self.metadata_log.len();
        if logs != 0 && logs != n {
            return Some(format!(
                "--metadata-log given {} for {n} --target(s): give it once per --target, in the same order, or not at all",
                times(logs)
            ));
        }
        let profiles = self.profile.len();
        if profiles > 1 && profiles != n {
            return Some(format!(
                "--profile given {} for {n} --target(s): give it once (for every target) or once per --target, in the same order",
                times(profiles)
            ));
        }
        let manifests = self.target_manifest.len();
        if manifests > 1 && manifests != n {
            return Some(format!(
                "--target-manifest given {} for {n} --target(s): give it once (for every target) or once per --target, in the same order",
                times(manifests)
            ));
        }
        None
    }

    /// The manifest of target `i`: the one `--target-manifest` (every target's) or the
    /// `i`-th; each target gets its own copy (its level may come from its ApiVersions answer).
    fn manifest_for(manifests: &[TargetManifest], i: usize) -> Option<TargetManifest> {
        match manifests {
            [one] => Some(one.clone()),
            many => many.get(i).cloned(),
        }
    }

    /// The options of every target, in `--target` order.
    fn options(&self) -> Result<Vec<TargetOptions>, AdapterError> {
        let shared = self.shared_options();
        let readings = self
            .profile
            .iter()
            .map(Self::readings)
            .collect::<Result<Vec<_>, _>>()?;
        let manifests = self
            .target_manifest
            .iter()
            .map(|p| load_manifest(p))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| SetupError::ManifestInvalid(Box::new(e)))?;
        Ok((0..self.target.len())
            .map(|i| TargetOptions {
                metadata_log: self.metadata_log.get(i).cloned(),
                manifest: Self::manifest_for(&manifests, i),
                readings: match &readings[..] {
                    [one] => Some(one.clone()),
                    many => many.get(i).cloned(),
                },
                ..shared.clone()
            })
            .collect())
    }

    /// The readings a `--profile` file declares.
    fn readings(path: &PathBuf) -> Result<SpecProfile, AdapterError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| SetupError::ProfileUnreadable {
                path: path.clone(),
                source,
            })?;
        Ok(
            SpecProfile::from_yaml(&text).map_err(|source| SetupError::ProfileInvalid {
                path: path.clone(),
                source,
            })?,
        )
    }

    /// What every target shares (all but `--metadata-log`, `--target-manifest` and
    /// `--profile`).
    fn shared_options(&self) -> TargetOptions {
        TargetOptions {
            role: self.role,
            capabilities: self.capabilities.clone(),
            exec_call_timeout: self.exec_call_timeout_ms.map(Duration::from_millis),
            exec_max_line_bytes: self.exec_max_line_bytes,
            readings: None,
            time_scale: self.time_scale,
            policy_host: self.policy_host.clone(),
            metadata_log: None,
            manifest: None,
        }
    }

    /// The target of each `--target`, and, for several, the one [`Routed`] target over them
    /// (targets that cannot be routed between are a usage error), or the exit code, what to
    /// print and what to keep for an ABORTED report.
    fn targets(&self) -> Result<Arc<dyn Target>, (u8, String, String)> {
        self.each_target().and_then(|mut built| {
            if built.len() == 1 {
                return Ok(built.remove(0));
            }
            let fits = Box::new(|caps: &_, s: &_| {
                let causes = gate(caps, s);
                (!causes.is_empty()).then(|| UnsupportedCause::sentence(&causes))
            });
            let routed =
                Routed::new(built, fits).map_err(|e| (EXIT_USAGE, e.to_string(), e.to_string()))?;
            Ok(Arc::new(routed) as Arc<dyn Target>)
        })
    }

    /// The target of each `--target`, in order.
    fn each_target(&self) -> Result<Vec<Arc<dyn Target>>, (u8, String, String)> {
        let failed = |e: AdapterError| {
            let code = exit_for(&e);
            let kept = if code == EXIT_TARGET {
                format!("the target did not start: {e}")
            } else {
                e.to_string()
            };
            (code, e.to_string(), kept)
        };
        let mut built = Vec::new();
        for (spec, opts) in self.target.iter().zip(self.options().map_err(failed)?) {
            let target = target_from_spec(spec, &opts).map_err(failed)?;
            let in_process = spec == "reference" || spec.starts_with(MUTANT_PREFIX);
            built.push(match opts.readings {
                Some(readings) if in_process => Arc::new(Declared {
                    inner: target,
                    readings,
                }) as Arc<dyn Target>,
                _ => target,
            });
        }
        Ok(built)
    }

    /// The target, or the exit code to end with and the reason (printed already, and kept
    /// for an ABORTED report): 2 for a bad specification or capability, 3 for a target that
    /// fails to start or is unreachable.
    /// With [`Reach::NotNeeded`] (planning: `list`, `run --dry-run`) a live target that cannot
    /// be reached is still built, from what was declared, since nothing will be sent to it. A
    /// malformed specification is a usage error either way.
    pub(super) fn build_with(&self, reach: Reach) -> Result<Arc<dyn Target>, (ExitCode, String)> {
        let fail = |code: u8, why: String| {
            eprintln!("kipcheck: {why}");
            (ExitCode::from(code), why)
        };
        if let Some(why) = self.count_error().or_else(|| self.capability_error()) {
            return Err(fail(EXIT_USAGE, why));
        }
        let target = self.targets().map_err(|(code, printed, kept)| {
            let (code, _) = fail(code, printed);
            (code, kept)
        })?;
        if let Some(why) = target.unreachable() {
            if reach == Reach::Required {
                return Err(fail(EXIT_TARGET, format!("target unreachable: {why}")));
            }
            eprintln!("kipcheck: note: target unreachable ({why}); planned from what was declared");
        }
        Ok(match self.observe {
            Observe::Target => target,
            Observe::None => Arc::new(Unobserved(target)),
        })
    }
}
