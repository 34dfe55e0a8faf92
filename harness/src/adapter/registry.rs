//! Turns a `--target` specification (`reference`, `mutant:NAME`, `tcp://HOST:PORT`,
//! `client-cmd:"COMMAND {bootstrap}"`, `exec:"COMMAND"`) into a [`Target`]. Each target kind
//! owns one branch here; this module only parses and dispatches, it drives nothing.

use std::sync::Arc;

use super::exec::ExecTarget;
use super::exec_process::ExecOptions;
use super::reference::ReferenceTarget;
use super::target::{AdapterError, Target};
use crate::scenario::{Capability, Role};

/// What a target specification cannot say by itself: the role a live peer plays and the
/// capabilities that cannot be discovered over the wire.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetOptions {
    /// The role a live target plays (`--role`), where the specification is ambiguous.
    pub role: Option<Role>,
    /// Capabilities the user declares for a live target (`--capability`).
    pub capabilities: Vec<Capability>,
}

/// Target kinds, as listed in error messages and `--help`.
pub const TARGET_KINDS: &str = "reference, exec:\"COMMAND\"";

/// Builds the target a specification names.
pub fn target_from_spec(spec: &str, opts: &TargetOptions) -> Result<Arc<dyn Target>, AdapterError> {
    let _ = opts;
    match spec {
        "reference" => Ok(Arc::new(ReferenceTarget)),
        s if s.starts_with("exec:") => {
            let command = exec_command(&s["exec:".len()..])?;
            Ok(Arc::new(ExecTarget::start(
                command,
                ExecOptions::default(),
            )?))
        }
        other => Err(AdapterError::Setup(format!(
            "unknown target {other:?} (available: {TARGET_KINDS})"
        ))),
    }
}

/// The command of an `exec:` spec, without the quotes a shell may have left around it.
fn exec_command(rest: &str) -> Result<&str, AdapterError> {
    let unquoted = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(rest)
        .trim();
    if unquoted.is_empty() {
        return Err(AdapterError::Setup(
            "exec: needs a command, e.g. exec:\"python3 adapter.py\"".into(),
        ));
    }
    Ok(unquoted)
}
