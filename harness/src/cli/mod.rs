//! Command-line definitions and dispatch to the subcommands.

mod client_cmd;
mod codec_cmds;
mod corpus_cmd;
mod input;
mod interop_cmd;
mod ledger_cmd;
mod lint_cmd;
mod list_cmd;
mod load_cmd;
mod mutants_cmd;
mod oracle_cmd;
mod run_cmd;
mod selection;
mod serve_cmd;
mod target_args;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub(crate) use codec_cmds::{DecodeArgs, EncodeArgs};

pub(crate) use kipcheck::exit::{
    FINDING as EXIT_FINDING, NOTHING_JUDGED as EXIT_NOTHING_JUDGED,
    NO_SCENARIOS as EXIT_NO_SCENARIOS, TARGET as EXIT_TARGET, USAGE as EXIT_USAGE,
};

/// kipcheck: conformance and fuzzing for Kafka KIP-1324, KIP-1326 and KIP-1294/KIP-1256.
#[derive(Debug, Parser)]
#[command(name = "kipcheck", version, about)]
pub(crate) struct Cli {
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
    /// Run the conformance suite against a target and write reports.
    ///
    /// Exit codes: 0 all pass; 1 findings (failures or stale baseline entries); 2 usage or
    /// scenario error; 3 target failed to start, is unreachable, crashed or hung; 4 no
    /// scenarios selected; 5 nothing judged (or fewer than --min-judged).
    Run(run_cmd::RunArgs),
    /// List the scenarios a run would select (id, KIP, roles, grade, tags) and, for
    /// `--target`, which would run and why the others would not.
    List(list_cmd::ListArgs),
    /// Refuse scenario files that assert what no KIP says (MUST checks of ErrorMessage text,
    /// metadata-log offsets, unfiltered expect_no_event on records) or depend on a contested
    /// reading without pinning it (exit 1 with findings, each at file:line:col).
    Lint(lint_cmd::LintArgs),
    /// Map every requirement of the KIPs to the scenarios covering it (`--check` fails on
    /// anything untested).
    Ledger(ledger_cmd::LedgerArgs),
    /// Run the suite against the reference and write every frame it exchanges into the fuzz
    /// corpus (`corpus/decode_request/`, `corpus/decode_response/`).
    ExportCorpus(corpus_cmd::ExportArgs),
    /// Check the must-hold facts against the real Kafka peers started by `interop/start.sh`
    /// (addresses from `target/interop/env.sh`) and write `reports/peers.md`.
    Interop(interop_cmd::InteropArgs),
    /// Compare kipcheck's codec with Kafka 4.4.0's own (the `interop/java-codec` jar) on every
    /// shared message and version and the fuzz corpus (exit 1 on an unexplained disagreement).
    Oracle(oracle_cmd::OracleArgs),
    /// Run the suite against every built-in faulty variant of the reference and print the
    /// kill matrix (writes mutants.json and mutants.html).
    ///
    /// Exit codes: 0 every variant caught; 1 a variant survives (or a scenario fails against
    /// the reference); 2 usage or scenario error; 4 no scenarios selected.
    Mutants(mutants_cmd::MutantsArgs),
    /// Act as a Kafka broker on a TCP port for live clients: ApiVersions, Metadata and
    /// PushConfig (the reference broker, or as a scenario scripts it); records every frame.
    Serve(serve_cmd::ServeArgs),
    /// Load driver: N connections repeating ApiVersions + PushConfig against a server
    /// (handshakes/s, p50/p99 latency as JSON), or N idle connections held open.
    Load(load_cmd::LoadArgs),
    /// Print a shell completion script: `kipcheck completions bash > /etc/bash_completion.d/kipcheck`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// The reference client model on real sockets and a real clock (the live counterpart of
    /// `serve`): configured by a client.properties file, user requests on stdin, releases on
    /// stdout; exits when stdin closes.
    Client(client_cmd::ClientArgs),
}

/// Runs the parsed command.
pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Decode(a) => codec_cmds::decode(a),
        Command::Encode(a) => codec_cmds::encode(a),
        Command::Run(a) => run_cmd::run(a),
        Command::Ledger(a) => ledger_cmd::run(a),
        Command::Lint(a) => lint_cmd::run(a),
        Command::ExportCorpus(a) => corpus_cmd::run(a),
        Command::Interop(a) => interop_cmd::run(a),
        Command::Oracle(a) => oracle_cmd::run(a),
        Command::Mutants(a) => mutants_cmd::run(a),
        Command::Serve(a) => serve_cmd::run(a),
        Command::Load(a) => load_cmd::run(a),
        Command::List(a) => list_cmd::run(a),
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cmd, "kipcheck", &mut script);
            std::io::Write::write_all(&mut std::io::stdout(), &script)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Client(a) => client_cmd::run(a),
    }
}
