//! The scenario suite: loading and its schemas, the runner, the shipped suite against the
//! reference (`conformance_suite`, also a unit test of the library), the faulty variants
//! (`mutants`), the contested readings and the requirements ledger.
//!
//! One test binary (`cargo test --test suite`); each module is one former test file, so a
//! filter names it: `cargo test --test suite -- conformance_suite::`.

#[path = "../support/suite.rs"]
mod suite_support;

mod conformance_suite;
mod ledger_coverage;
mod ledger_load;
mod ledger_scan;
mod loader;
mod mutants;
mod readings;
mod runner;
mod scenario_body_schema;
mod scenario_latitude;
mod scenario_schema;
