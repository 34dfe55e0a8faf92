//! The report files and the terminal reporter: results.json, junit.xml, summary.md,
//! report.html, results.sarif, mutants.html and the exchange log.
//!
//! One test binary (`cargo test --test report`); each module is one former test file, so a
//! filter names it: `cargo test --test report -- cli::`.

#[path = "../support/cli.rs"]
mod cli_support;
#[path = "../support/report.rs"]
mod report_support;

mod cli;
mod exchange;
mod files;
mod mutants;
mod sarif;
mod terminal;
