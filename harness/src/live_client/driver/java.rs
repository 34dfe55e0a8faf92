//! What [`ConnectionStyle::Java`] does on top of the loop, as Java's NetworkClient does: the
//! bootstrap connections' discovery (an embedded model's ApiVersions and SASL, then
//! Metadata), the new connection to the broker Metadata names, and lost connections opened
//! again after [`RECONNECT_BACKOFF`]. The reference style never reaches here.

use std::time::Duration;

use super::conn::connect;
use super::options::{ConnectionStyle, RECONNECT_BACKOFF};
use super::run::Driver;
use crate::codec::{self, ApiKey, RequestBody};
use crate::model::{ClientInput, ClientOutput, Event, NodeId};

/// [`ConnectionStyle::Java`]: the Metadata version of the bootstrap discovery.
const METADATA_VERSION: i16 = 12;

impl Driver {
    /// [`ConnectionStyle::Java`]: a `connect` line. The node is the one Metadata named at
    /// that address, else the bootstrap node there (Metadata not known yet: discovery again),
    /// else the line's. Ignored while connected or connecting to it; a reconnection waiting
    /// for its backoff is made now.
    pub(super) fn connect_asked_java(&mut self, node: NodeId, addr: String) {
        let target = self
            .metadata_nodes
            .get(&addr)
            .or_else(|| self.bootstrap_nodes.get(&addr))
            .copied()
            .unwrap_or(node);
        let opening = self
            .connecting
            .get(&target)
            .is_some_and(|h| !h.is_finished())
            && !self.waiting_to_reconnect.contains(&target);
        if self.conns.contains_key(&target) || opening {
            self.note(format!(
                "node {target}: connect {addr} ignored (connected or connecting)"
            ));
            return;
        }
        self.no_reconnect.remove(&target);
        self.open(target, addr, Duration::ZERO);
    }

    /// [`ConnectionStyle::Java`]: opens a connection to `node` at `addr` after `after`
    /// (replacing one being opened).
    pub(super) fn open(&mut self, node: NodeId, addr: String, after: Duration) {
        self.addr_of.insert(node, addr.clone());
        if let Some(old) = self.connecting.remove(&node) {
            old.abort();
        }
        if after.is_zero() {
            self.waiting_to_reconnect.remove(&node);
        } else {
            self.waiting_to_reconnect.insert(node);
        }
        let net = self.net.clone();
        self.connecting.insert(
            node,
            tokio::spawn(async move {
                tokio::time::sleep(after).await;
                connect(node, addr, net).await;
            }),
        );
    }

    /// [`ConnectionStyle::Java`]: the client lost its connection to `node`: it opens it again
    /// after [`RECONNECT_BACKOFF`], a bootstrap one only while Metadata has not named its
    /// broker, none after a failed authentication.
    pub(super) fn schedule_reconnect(&mut self, node: NodeId) {
        if self.style != ConnectionStyle::Java || self.no_reconnect.contains(&node) {
            return;
        }
        let Some(addr) = self.addr_of.get(&node).cloned() else {
            return;
        };
        if self.is_agent_node(node) && self.metadata_nodes.contains_key(&addr) {
            return;
        }
        self.open(node, addr, RECONNECT_BACKOFF);
    }

    /// Whether `node` is a bootstrap connection the agent performs ([`ConnectionStyle::Java`]).
    pub(super) fn is_agent_node(&self, node: NodeId) -> bool {
        self.agent.is_some() && self.bootstrap_nodes.values().any(|n| *n == node)
    }

    /// Feeds the agent `input` and performs its outputs: its requests are sent; once a
    /// bootstrap connection's ApiVersions is answered (and, with SASL, it authenticated), the
    /// Metadata request goes out; a failed authentication closes the connection.
    pub(super) async fn agent_step(&mut self, input: ClientInput) {
        let now = self.now();
        let Some(agent) = self.agent.as_mut() else {
            return;
        };
        let outputs = agent.handle(now, input);
        for o in outputs {
            match o {
                ClientOutput::Send {
                    node,
                    api_key,
                    api_version,
                    body,
                } => self.send(node, api_key, api_version, body).await,
                ClientOutput::Event(event) => match event {
                    Event::NodeSupport { node, .. } if !self.sasl => {
                        self.send_metadata(node).await;
                    }
                    Event::Authenticated { node } => self.send_metadata(node).await,
                    Event::AuthenticationFailed { node, error_code } => {
                        self.no_reconnect.insert(node);
                        if self.conns.remove(&node).is_some() {
                            self.note(format!(
                                "bootstrap node {node}: closed by the client (SASL authentication failed: {error_code:?})"
                            ));
                        }
                    }
                    _ => {}
                },
                ClientOutput::ReleaseUserRequest { .. } | ClientOutput::WakeAt(_) => {}
            }
        }
    }

    /// The discovery request on bootstrap connection `node`.
    pub(super) async fn send_metadata(&mut self, node: NodeId) {
        let body = RequestBody::Metadata(codec::MetadataRequest {
            topics: Some(Vec::new()),
            allow_auto_topic_creation: Some(false),
            include_topic_authorized_operations: Some(false),
            ..Default::default()
        });
        self.send(node, ApiKey::METADATA, METADATA_VERSION, body)
            .await;
    }

    /// Metadata answered on bootstrap connection `node`: the brokers are known, and the model
    /// gets a new connection to the one at this connection's address.
    pub(super) fn on_metadata(&mut self, node: NodeId, body: &codec::MetadataResponse) {
        for b in &body.brokers {
            self.metadata_nodes
                .insert(format!("{}:{}", &*b.host, b.port), b.node_id);
        }
        let Some(addr) = self.addr_of.get(&node).cloned() else {
            return;
        };
        let Some(&broker) = self.metadata_nodes.get(&addr) else {
            self.note(format!(
                "bootstrap node {node}: Metadata names no broker at {addr}"
            ));
            return;
        };
        self.note(format!(
            "bootstrap node {node}: Metadata names broker {broker} at {addr}: connecting"
        ));
        if !self.conns.contains_key(&broker) && !self.connecting.contains_key(&broker) {
            self.open(broker, addr, Duration::ZERO);
        }
    }
}
