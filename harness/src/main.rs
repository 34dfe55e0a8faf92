//! The `kipcheck` command line.

fn main() {}
