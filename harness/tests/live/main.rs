//! Live targets over loopback sockets, all in-process or kipcheck's own binary: `tcp://` against
//! `kipcheck serve` and fake controllers, the live client, `serve` against hostile peers and
//! load, and the policy host.
//!
//! One test binary (`cargo test --test live`); each module is one former test file, so a
//! filter names it: `cargo test --test live -- live_client::`.

#[path = "../support/cli.rs"]
mod cli_support;
#[path = "../support/policy.rs"]
mod policy_support;

mod fake_controller;
mod live_client;
mod live_controller;
mod policy_host;
mod policy_host_tcp;
mod routed_controllers;
mod serve_hostile;
mod serve_load;
mod serve_metadata;
mod tcp_target;
