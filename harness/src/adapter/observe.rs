//! `--observe none`: any target made to behave as one that reports no model events (nor
//! metadata-log records), so the
//! suite's wire-only power can be measured on the reference and its faulty variants. The
//! wrapper changes what the target can be asked, never what it does.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use super::target::{
    AdapterError, Capabilities, ConnOutput, OutRequest, Outbound, PeerAction, Session,
    SessionConfig, Target,
};
use crate::scenario::Capability;

/// A target whose events are hidden: it lacks the `events` capability and its sessions
/// report none.
pub struct Unobserved(pub Arc<dyn Target>);

#[async_trait]
impl Target for Unobserved {
    fn name(&self) -> String {
        self.0.name()
    }

    fn capabilities(&self) -> Capabilities {
        let mut caps = self.0.capabilities();
        caps.capabilities
            .retain(|c| !matches!(c, Capability::Events | Capability::MetadataLog));
        caps
    }

    fn time_scale(&self) -> f64 {
        self.0.time_scale()
    }

    fn timing(&self) -> Option<crate::model::Timing> {
        self.0.timing()
    }

    fn unreachable(&self) -> Option<String> {
        self.0.unreachable()
    }

    fn bind(
        &self,
        scenario: &crate::scenario::Scenario,
    ) -> Result<Option<crate::scenario::Scenario>, super::binding::Unbound> {
        self.0.bind(scenario)
    }

    fn endpoint(&self, scenario_id: &str) -> Option<String> {
        self.0.endpoint(scenario_id)
    }

    async fn open(&self, config: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
        Ok(Box::new(UnobservedSession(self.0.open(config).await?)))
    }
}

struct UnobservedSession(Box<dyn Session>);

#[async_trait]
impl Session for UnobservedSession {
    async fn send(&mut self, conn: u32, out: Outbound) -> Result<(), AdapterError> {
        self.0.send(conn, out).await
    }
    async fn recv(&mut self, conn: u32, wait_ms: u64) -> Result<Option<ConnOutput>, AdapterError> {
        self.0.recv(conn, wait_ms).await
    }
    async fn act(&mut self, action: PeerAction) -> Result<(), AdapterError> {
        self.0.act(action).await
    }
    async fn next_request(&mut self, within_ms: u64) -> Result<Option<OutRequest>, AdapterError> {
        self.0.next_request(within_ms).await
    }
    async fn respond(&mut self, node: i32, frame: Vec<u8>) -> Result<(), AdapterError> {
        self.0.respond(node, frame).await
    }
    async fn next_release(&mut self, within_ms: u64) -> Result<Option<(u64, u64)>, AdapterError> {
        self.0.next_release(within_ms).await
    }
    async fn advance(&mut self, ms: u64) -> Result<(), AdapterError> {
        self.0.advance(ms).await
    }
    async fn finish(&mut self) -> Result<(), AdapterError> {
        self.0.finish().await
    }
    fn now_ms(&self) -> u64 {
        self.0.now_ms()
    }
    fn events(&self) -> Vec<Value> {
        Vec::new()
    }
}
