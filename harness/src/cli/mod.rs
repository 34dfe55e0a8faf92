//! Command-line definitions and dispatch to the subcommands.

mod codec_cmds;
mod input;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use codec_cmds::{DecodeArgs, EncodeArgs};

/// Exit code: a finding (for `decode`, bytes that do not decode).
pub const EXIT_FINDING: u8 = 1;
/// Exit code: bad usage or unreadable input.
pub const EXIT_USAGE: u8 = 2;

/// kipcheck: conformance and fuzzing for Kafka KIP-1324, KIP-1326 and KIP-1294/KIP-1256.
#[derive(Debug, Parser)]
#[command(name = "kipcheck", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Decode Kafka wire bytes (a framed request, a framed response, or a bare body) and
    /// print them as YAML (or JSON) with Kafka's field names.
    Decode(DecodeArgs),
    /// Encode a message body written in YAML (Kafka's field names) and print it as hex.
    Encode(EncodeArgs),
}

/// Runs the parsed command.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Decode(a) => codec_cmds::decode(a),
        Command::Encode(a) => codec_cmds::encode(a),
    }
}
