//! One whole interop run: every server peer's facts, then every client captured through a relay
//! in front of one real broker, collected into a [`Matrix`]. It writes no file (the CLI does).

use std::time::Duration;

use super::capture::{capture_client, ClientFacts};
use super::env::PeerEnv;
use super::error::InteropError;
use super::matrix::{Matrix, PeerRow};
use super::metadata_log::metadata_log_facts;
use super::server_facts::{check_server, push_config_facts};

/// What an interop run covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InteropOptions {
    /// The server peers clients are relayed to, in order of preference (the first present
    /// one is used).
    pub upstreams: Vec<String>,
    /// Each client's hard deadline.
    pub client_deadline: Duration,
    /// Run the client suite (off: server peers only).
    pub clients: bool,
}

impl Default for InteropOptions {
    fn default() -> Self {
        InteropOptions {
            upstreams: vec!["kafka".into(), "kfake".into()],
            client_deadline: Duration::from_secs(30),
            clients: true,
        }
    }
}

/// Runs every check against the peers in `env`. `progress` is told each peer's name as it
/// starts.
pub fn run_interop(
    env: &PeerEnv,
    opts: &InteropOptions,
    mut progress: impl FnMut(&str),
) -> Result<Matrix, InteropError> {
    let mut m = Matrix::default();
    // Clients first: a server peer may not survive the PushConfig probe, and clients are
    // relayed to one of them.
    if opts.clients {
        run_clients(env, opts, &mut m, &mut progress)?;
    }
    let client_rows = m.rows.len();
    for s in &env.servers {
        progress(s.name);
        // The metadata log first; the PushConfig probe is not sent here: some peers do not
        // survive it, so [`push_config_round`] sends it after their YAML suites ran.
        let mut facts = metadata_log_facts(s)?;
        facts.extend(check_server(s, false)?);
        m.rows.push(PeerRow {
            peer: s.name.to_string(),
            software: s.software.clone(),
            is_apache_kafka: s.is_apache_kafka,
            facts,
        });
    }
    // The report lists server peers first.
    m.rows.rotate_left(client_rows);
    Ok(m)
}

/// The PushConfig facts ([`push_config_facts`]) of every server peer, appended to its facts
/// row: run after everything else that needs the peer (its YAML suite), since a peer may not
/// survive them.
pub fn push_config_round(
    env: &PeerEnv,
    m: &mut Matrix,
    mut progress: impl FnMut(&str),
) -> Result<(), InteropError> {
    for s in &env.servers {
        progress(s.name);
        let facts = push_config_facts(s)?;
        let suite = s.role.suite();
        let row = m
            .rows
            .iter_mut()
            .find(|r| r.peer == s.name && r.facts.first().is_some_and(|f| f.suite == suite));
        match row {
            Some(r) => r.facts.extend(facts),
            None => m.rows.push(PeerRow {
                peer: s.name.to_string(),
                software: s.software.clone(),
                is_apache_kafka: s.is_apache_kafka,
                facts,
            }),
        }
    }
    Ok(())
}

fn run_clients(
    env: &PeerEnv,
    opts: &InteropOptions,
    m: &mut Matrix,
    progress: &mut impl FnMut(&str),
) -> Result<(), InteropError> {
    let upstream = opts.upstreams.iter().find_map(|u| env.server(u));
    for c in &env.clients {
        let Some(up) = upstream else {
            m.skipped
                .push((c.name.to_string(), "no upstream broker to relay to".into()));
            continue;
        };
        progress(c.name);
        let capture = capture_client(c, &up.addr, opts.client_deadline)?;
        m.rows.push(PeerRow {
            peer: c.name.to_string(),
            software: format!("{} (relayed to {})", c.software, up.software),
            is_apache_kafka: false,
            facts: capture.facts(),
        });
    }
    Ok(())
}
