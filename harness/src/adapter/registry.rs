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
        check_address(addr)?;
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

/// A `tcp://` address is `HOST:PORT` (`[V6]:PORT` for an IPv6 literal), with a port from 1 to
/// 65535: anything else is a usage error before any connection is tried.
fn check_address(addr: &str) -> Result<(), AdapterError> {
    let bad = |why| -> AdapterError {
        SetupError::BadAddress {
            addr: addr.to_owned(),
            why,
        }
        .into()
    };
    let (host, port) = addr.rsplit_once(':').ok_or_else(|| bad("no port"))?;
    if host.is_empty() || host == "[]" {
        return Err(bad("no host"));
    }
    if host.contains(':') && !(host.starts_with('[') && host.ends_with(']')) {
        return Err(bad("an IPv6 host goes in brackets"));
    }
    match port.parse::<u16>() {
        Ok(0) => Err(bad("port 0")),
        Ok(_) => Ok(()),
        Err(_) => Err(bad("the port is not a number from 1 to 65535")),
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

#[cfg(test)]
mod tests {
    use super::check_address;

    #[test]
    fn a_tcp_address_is_host_and_port() {
        for ok in [
            "127.0.0.1:9092",
            "localhost:1",
            "[::1]:65535",
            "broker-1.internal:9093",
        ] {
            assert!(check_address(ok).is_ok(), "{ok}");
        }
        for (bad, why) in [
            (
                "127.0.0.1:99999",
                "the port is not a number from 1 to 65535",
            ),
            ("nohost", "no port"),
            (":9092", "no host"),
            ("127.0.0.1:0", "port 0"),
            ("::1:9092", "an IPv6 host goes in brackets"),
            ("host:port", "the port is not a number from 1 to 65535"),
        ] {
            let e = check_address(bad).expect_err(bad);
            assert!(e.to_string().contains(why), "{bad}: {e}");
        }
    }
}
