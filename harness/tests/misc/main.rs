//! Checks of the repository itself: the numbers the docs state, the module graph, the fuzz
//! corpus replayed and the fuzz entry points smoke-run.
//!
//! One test binary (`cargo test --test misc`); each module is one former test file, so a
//! filter names it: `cargo test --test misc -- docs_numbers::`.

mod docs_kill_matrix;
mod docs_numbers;
mod fuzz_corpus;
mod fuzz_smoke;
mod module_graph;
