//! The `kipcheck` command line: parses arguments, calls the library, maps outcomes to exit
//! codes. No protocol logic lives here.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("kipcheck: {e:#}");
            ExitCode::from(cli::EXIT_USAGE)
        }
    }
}
