//! The live client's wire side: a request the model sends encoded and written (with its
//! correlation id kept), a connection dropped and the model told, and each response frame
//! matched to its request, decoded and turned into the model's input. Opens no connection
//! (that is `conn.rs`) and decides nothing the model decides.

use std::collections::VecDeque;

use tokio::io::AsyncWriteExt;

use super::conn::{read_frames, Conn, NetEvent, Pending, WRITE_TIMEOUT};
use super::run::Driver;
use crate::codec::{self, ApiKey, RequestBody, RequestHeader};
use crate::model::{ClientInput, NodeId};

impl Driver {
    pub(super) async fn send(
        &mut self,
        node: NodeId,
        api_key: ApiKey,
        version: i16,
        body: RequestBody,
    ) {
        let correlation_id = self.next_correlation;
        self.next_correlation = self.next_correlation.wrapping_add(1);
        let header = RequestHeader {
            request_api_key: api_key.0,
            request_api_version: version,
            correlation_id,
            client_id: Some(self.client_id.clone().into()),
            ..Default::default()
        };
        let canonical = body.api_key();
        let frame = match codec::encode_request_frame(&header, &body, &self.numbers) {
            Ok(f) => f,
            Err(e) => {
                self.note(format!("node {node}: cannot encode {canonical:?}: {e}"));
                return;
            }
        };
        if canonical == ApiKey::PUSH_CONFIG {
            self.push_node = Some(node);
        }
        let Some(conn) = self.conns.get_mut(&node) else {
            self.note(format!(
                "node {node}: not connected, {canonical:?} not sent"
            ));
            return;
        };
        conn.pending.push_back(Pending {
            correlation_id,
            api_key: canonical,
            version,
            stale: false,
        });
        let written = tokio::time::timeout(WRITE_TIMEOUT, conn.write.write_all(&frame)).await;
        if !matches!(written, Ok(Ok(()))) {
            self.drop_conn(node, "write failed".into());
        }
    }

    /// Closes the connection to `node` and tells the model (the agent, for a bootstrap
    /// connection of [`ConnectionStyle::Java`], which then opens it again by itself).
    pub(super) fn drop_conn(&mut self, node: NodeId, reason: String) {
        if self.conns.remove(&node).is_some() {
            self.note(format!("node {node}: disconnected ({reason})"));
            if self.is_agent_node(node) {
                self.agent_inbox
                    .push_back(ClientInput::Disconnected { node });
            } else {
                self.inbox.push_back(ClientInput::Disconnected { node });
            }
            self.schedule_reconnect(node);
        }
    }

    /// True if `generation` is the live connection to `node` (not one closed since).
    pub(super) fn is_current(&self, node: NodeId, generation: u64) -> bool {
        self.conns
            .get(&node)
            .is_some_and(|c| c.generation == generation)
    }

    pub(super) async fn on_net(&mut self, ev: NetEvent) {
        match ev {
            NetEvent::Connected { node, stream } => {
                let generation = self.next_generation;
                self.next_generation += 1;
                let (r, w) = stream.into_split();
                let reader = tokio::spawn(read_frames(node, generation, r, self.net.clone()));
                self.conns.insert(
                    node,
                    Conn {
                        generation,
                        write: w,
                        reader,
                        pending: VecDeque::new(),
                    },
                );
                self.note(format!("node {node}: connected"));
                self.connecting.remove(&node);
                self.waiting_to_reconnect.remove(&node);
                if self.is_agent_node(node) {
                    self.agent_inbox.push_back(ClientInput::Connected { node });
                    self.drain().await;
                } else {
                    self.feed(ClientInput::Connected { node }).await;
                }
                if self.connector.as_ref().is_some_and(|(n, _)| *n == node) {
                    self.connector = None;
                    self.connect_next();
                }
            }
            NetEvent::Frame {
                node,
                generation,
                frame,
            } => {
                if self.is_current(node, generation) {
                    // A protocol error queues a Disconnected instead.
                    if let Some(input) = self.response(node, &frame) {
                        if self.is_agent_node(node) {
                            self.agent_inbox.push_back(input);
                        } else {
                            self.inbox.push_back(input);
                        }
                    }
                    self.drain().await;
                }
            }
            NetEvent::Closed {
                node,
                generation,
                reason,
            } => {
                if self.is_current(node, generation) {
                    self.drop_conn(node, reason);
                    self.drain().await;
                }
            }
        }
    }

    /// The model input for a response frame (size prefix included) from `node`, if the model
    /// awaits it.
    pub(super) fn response(&mut self, node: NodeId, frame: &[u8]) -> Option<ClientInput> {
        let Some(p) = self
            .conns
            .get_mut(&node)
            .and_then(|c| c.pending.pop_front())
        else {
            self.drop_conn(node, "a response to no request".into());
            return None;
        };
        let decoded = match codec::decode_response(&frame[4..], 4, p.api_key, p.version) {
            Ok(d) => d,
            Err(e) => {
                self.drop_conn(
                    node,
                    format!(
                        "the {:?} v{} response does not decode: {e}",
                        p.api_key, p.version
                    ),
                );
                return None;
            }
        };
        if decoded.header.correlation_id != p.correlation_id {
            self.drop_conn(
                node,
                format!(
                    "correlation id {} answers request {}",
                    decoded.header.correlation_id, p.correlation_id
                ),
            );
            return None;
        }
        if p.stale {
            self.note(format!(
                "node {node}: the answer to timed-out request {} dropped",
                p.correlation_id
            ));
            return None;
        }
        if let codec::ResponseBody::Metadata(m) = &decoded.body {
            self.on_metadata(node, m);
            return None;
        }
        ClientInput::answer(node, decoded.body)
    }
}
