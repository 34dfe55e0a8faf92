//! Turns a `--target` specification (`reference`, `mutant:NAME`, `tcp://HOST:PORT`,
//! `client-cmd:"COMMAND {bootstrap}"`, `exec:"COMMAND"`) into a [`Target`]. Each target kind
//! owns one branch here; this module only parses and dispatches, it drives nothing.

use std::sync::Arc;

use super::client_cmd::ClientCmdTarget;
use super::error::SetupError;
use super::exec::ExecTarget;
use super::exec_process::ExecOptions;
use super::mutant::{MutantTarget, MUTANT_PREFIX};
use super::reference::ReferenceTarget;
use super::target::{AdapterError, Target, TargetOptions};
use super::tcp::TcpTarget;

/// Target kinds, as listed in error messages and `--help`.
pub const TARGET_KINDS: &str =
    "reference, mutant:NAME, exec:\"COMMAND\", tcp://HOST:PORT, client-cmd:\"COMMAND {bootstrap}\"";

/// Builds the target a specification names.
pub fn target_from_spec(spec: &str, opts: &TargetOptions) -> Result<Arc<dyn Target>, AdapterError> {
    if let Some(addr) = spec.strip_prefix("tcp://") {
        return Ok(Arc::new(TcpTarget::new(addr, opts)?));
    }
    if opts.policy_host.is_some() {
        return Err(SetupError::Misused {
            option: "--policy-host",
            requirement: "only a tcp:// broker target is hosted a policy",
        }
        .into());
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
        other => Err(SetupError::UnknownTarget {
            spec: other.to_owned(),
            available: TARGET_KINDS,
        }
        .into()),
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
        return Err(SetupError::NeedsCommand {
            example: example.to_owned(),
        }
        .into());
    }
    Ok(unquoted)
}
