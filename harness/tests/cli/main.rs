//! The built `kipcheck` binary as a user runs it: `decode`/`encode`, usage errors and exit
//! codes, an installed binary without a checkout, `list`, `run` and `ledger`.
//!
//! One test binary (`cargo test --test cli`); each module is one former test file, so a
//! filter names it: `cargo test --test cli -- codec::`.

#[path = "../support/cli.rs"]
mod cli_support;

mod codec;
mod errors;
mod install;
mod list;
mod run;
