//! `--profile FILE` on an in-process target (the reference, a faulty variant): the target is
//! made to follow fixed readings, as a live implementation does, instead of being handed
//! each scenario's profile. The runner then gates on the readings a scenario pins and runs
//! the others under the declared ones ([`crate::runner::admit`]), so a run shows exactly
//! what a live target declaring those readings would be asked, and which scenarios depend
//! on a reading without pinning it. The wrapper changes what the target is told, never
//! what it does: its sessions get the rebased profile like any other.

use std::sync::Arc;

use async_trait::async_trait;

use super::binding::Unbound;
use super::target::{AdapterError, Capabilities, Session, SessionConfig, Target};
use crate::model::SpecProfile;
use crate::scenario::Scenario;

/// A target that declares `readings` as the spec readings it follows.
pub struct Declared {
    /// The target itself.
    pub inner: Arc<dyn Target>,
    /// The readings it follows.
    pub readings: SpecProfile,
}

#[async_trait]
impl Target for Declared {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            readings: Some(self.readings.clone()),
            ..self.inner.capabilities()
        }
    }

    fn time_scale(&self) -> f64 {
        self.inner.time_scale()
    }

    fn timing(&self) -> Option<crate::model::Timing> {
        self.inner.timing()
    }

    fn observed_events(&self) -> Vec<&'static str> {
        self.inner.observed_events()
    }

    fn bind(&self, scenario: &Scenario) -> Result<Option<Scenario>, Unbound> {
        self.inner.bind(scenario)
    }

    async fn open(&self, config: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
        self.inner.open(config).await
    }

    fn unreachable(&self) -> Option<String> {
        self.inner.unreachable()
    }
}
