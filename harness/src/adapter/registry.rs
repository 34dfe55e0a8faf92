//! Turns a `--target` specification (`reference`, `mutant:NAME`, `tcp://HOST:PORT`,
//! `client-cmd:"COMMAND {bootstrap}"`, `exec:"COMMAND"`) into a [`Target`]. Each target kind
//! owns one branch here; this module only parses and dispatches, it drives nothing.

use std::sync::Arc;

use super::client_cmd::ClientCmdTarget;
use super::exec::ExecTarget;
use super::exec_process::ExecOptions;
use super::mutant::{MutantTarget, MUTANT_PREFIX};
use super::reference::ReferenceTarget;
use super::target::{AdapterError, Target};
use super::tcp::TcpTarget;
use crate::scenario::{Capability, Role};

/// What a target specification cannot say by itself: the role a live peer plays, the
/// capabilities that cannot be discovered over the wire, and the `exec:` process limits.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TargetOptions {
    /// The role a live target plays (`--role`), where the specification is ambiguous.
    pub role: Option<Role>,
    /// Capabilities the user declares for a live target (`--capability`).
    pub capabilities: Vec<Capability>,
    /// `exec:` only: wall-clock limit for one message exchange (`--exec-call-timeout-ms`;
    /// default [`ExecOptions::default`]'s 10 s).
    pub exec_call_timeout: Option<std::time::Duration>,
    /// `exec:` only: longest line accepted from the process (`--exec-max-line-bytes`; default
    /// 16 MiB).
    pub exec_max_line_bytes: Option<usize>,
    /// `tcp://` and `client-cmd:` only: the spec readings the live target follows
    /// (`--profile FILE`; default: the built-in default profile). Such a target is never
    /// told a scenario's profile, so a scenario that sets a reading differently is
    /// unsupported with that reason.
    pub readings: Option<crate::model::SpecProfile>,
    /// `client-cmd:` only: `--time-scale F` (0 < F <= 1, default 1): timing keys of the
    /// client's `{config}` and every timing window the runner checks are multiplied by F.
    pub time_scale: Option<f64>,
    /// `tcp://` in the controller role only: the address (`HOST:PORT`, normally the
    /// controller listener itself) whose KRaft metadata log kipcheck reads as an observer
    /// (`--metadata-log`): `record_appended` observations (docs/live-targets.md).
    pub metadata_log: Option<String>,
}

/// Target kinds, as listed in error messages and `--help`.
pub const TARGET_KINDS: &str =
    "reference, mutant:NAME, exec:\"COMMAND\", tcp://HOST:PORT, client-cmd:\"COMMAND {bootstrap}\"";

/// Builds the target a specification names.
pub fn target_from_spec(spec: &str, opts: &TargetOptions) -> Result<Arc<dyn Target>, AdapterError> {
    if let Some(addr) = spec.strip_prefix("tcp://") {
        return Ok(Arc::new(TcpTarget::new(addr, opts)?));
    }
    if let Some(rest) = spec.strip_prefix("client-cmd:") {
        let command = unquote_command(rest, "client-cmd:\"python3 client.py {bootstrap}\"")?;
        return Ok(Arc::new(ClientCmdTarget::new(command, opts)?));
    }
    match spec {
        "reference" => Ok(Arc::new(ReferenceTarget)),
        s if s.starts_with("exec:") => {
            let command = unquote_command(&s["exec:".len()..], "exec:\"python3 adapter.py\"")?;
            let defaults = ExecOptions::default();
            let exec = ExecOptions {
                call_timeout: opts.exec_call_timeout.unwrap_or(defaults.call_timeout),
                max_line_bytes: opts.exec_max_line_bytes.unwrap_or(defaults.max_line_bytes),
                ..defaults
            };
            Ok(Arc::new(ExecTarget::start(command, exec)?))
        }
        s if s.starts_with(MUTANT_PREFIX) => Ok(Arc::new(MutantTarget::from_name(
            &s[MUTANT_PREFIX.len()..],
        )?)),
        other => Err(AdapterError::Setup(format!(
            "unknown target {other:?} (available: {TARGET_KINDS})"
        ))),
    }
}

/// The command of an `exec:` or `client-cmd:` spec, without the quotes a shell may have left
/// around it; `example` shows a valid spec in the error.
fn unquote_command<'a>(rest: &'a str, example: &str) -> Result<&'a str, AdapterError> {
    let unquoted = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(rest)
        .trim();
    if unquoted.is_empty() {
        return Err(AdapterError::Setup(format!(
            "needs a command, e.g. {example}"
        )));
    }
    Ok(unquoted)
}
