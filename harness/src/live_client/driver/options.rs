//! What the live client's application gives and gets: how it runs ([`LiveOptions`],
//! [`ConnectionStyle`]), the control lines it reads ([`Control`]) and what it reports
//! ([`Report`]). Plain data and parsing: no socket, no model.

use crate::faulty::Faults;
use std::time::Duration;

use crate::live_client::ClientSetup;
use crate::model::{LoggedEvent, NodeId, SpecProfile};

/// `client.id` in request headers when the configuration sets none.
pub const DEFAULT_CLIENT_ID: &str = "kipcheck-client";
/// [`ConnectionStyle::Java`]: the pause before opening a lost connection again (Java's
/// `reconnect.backoff.ms` default).
pub const RECONNECT_BACKOFF: Duration = Duration::from_millis(50);

/// How the live client uses its connections.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ConnectionStyle {
    /// The reference model's: every bootstrap connection is a model node, and the client opens
    /// no connection by itself beyond them (a `connect` line opens one).
    #[default]
    Reference,
    /// Java's NetworkClient's: discovery on the bootstrap connection, then a new connection to
    /// the broker Metadata named, and lost connections opened again by itself (module doc).
    Java,
}

/// How the live client runs.
#[derive(Clone, Debug)]
pub struct LiveOptions {
    /// Client type, embedded flag, bootstrap list, user configuration.
    pub setup: ClientSetup,
    /// The spec profile the model follows.
    pub profile: SpecProfile,
    /// The model's faults ([`Faults::none`]: the reference).
    pub faults: Faults,
    /// The model's RNG seed (node choice, jitter).
    pub seed: u64,
}

/// What the application asks of the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// An application request (e.g. `send()`); its release is reported.
    UserRequest(u64),
    /// Open a connection to `addr` (the network gives the client a connection to that node).
    Connect {
        /// The node's id as the scenario names it; an address the client already knows
        /// keeps the id it has.
        node: NodeId,
        /// `host:port`.
        addr: String,
    },
}

impl Control {
    /// One line of the control channel: `user_request <id>` or `connect <node> <host:port>`;
    /// `None` for anything else.
    pub fn parse(line: &str) -> Option<Self> {
        let mut words = line.split_whitespace();
        let control = match (words.next()?, words.next()?, words.next()) {
            ("user_request", id, None) => Control::UserRequest(id.parse().ok()?),
            ("connect", node, Some(addr)) => Control::Connect {
                node: node.parse().ok()?,
                addr: addr.to_owned(),
            },
            _ => return None,
        };
        words.next().is_none().then_some(control)
    }
}

/// What the client reports.
#[derive(Clone, Debug, PartialEq)]
pub enum Report {
    /// The application request may go ahead (`released <id>` on stdout).
    Released {
        /// Its id.
        id: u64,
        /// Milliseconds since the client started.
        at_ms: u64,
    },
    /// A model decision.
    Event(LoggedEvent),
    /// A connection-level fact (connected, closed, a protocol error), for logs.
    Note(String),
}
