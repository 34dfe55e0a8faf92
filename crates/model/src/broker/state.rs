//! [`BrokerModel`]: its fields (settings, profile, decisions, counters, event log), its
//! construction from [`BrokerSettings`] and a profile, and accessors. It answers no request
//! (see `requests`, `push`, `registration`).

use super::settings::{BrokerConfigError, BrokerSettings, PolicyVerdict};
use crate::decisions::BrokerDecisions;
use crate::events::{Event, LoggedEvent};
use crate::profile::SpecProfile;
use crate::server_config::ServerConfigDefs;
use crate::time::Millis;
use std::sync::Arc;

/// The broker model.
#[derive(Clone, Debug)]
pub struct BrokerModel {
    pub(crate) settings: BrokerSettings,
    pub(crate) profile: SpecProfile,
    pub(crate) events: Vec<LoggedEvent>,
    pub(crate) policy_invocations: u64,
    pub(crate) size_rejections: u64,
    pub(crate) decisions: Arc<dyn BrokerDecisions>,
}

impl BrokerModel {
    /// A broker; fails if a server.properties value is invalid for its definition.
    pub fn new(settings: BrokerSettings, profile: &SpecProfile) -> Result<Self, BrokerConfigError> {
        for (name, value) in &settings.server_properties {
            if let Some(key) = settings.defs.broker.get(name) {
                ServerConfigDefs::check_static(name, key, value)?;
            }
        }
        Ok(Self {
            settings,
            profile: profile.clone(),
            events: Vec::new(),
            policy_invocations: 0,
            size_rejections: 0,
            decisions: crate::decisions::reference_broker(),
        })
    }

    /// The same broker taking `decisions` (a faulty variant's; the reference's by default).
    pub fn with_decisions(mut self, decisions: Arc<dyn BrokerDecisions>) -> Self {
        self.decisions = decisions;
        self
    }

    /// The settings.
    pub fn settings(&self) -> &BrokerSettings {
        &self.settings
    }

    /// Replaces the policy verdict (`None` removes the policy: PushConfig no longer advertised).
    pub fn set_policy(&mut self, policy: Option<PolicyVerdict>) {
        self.settings.policy = policy;
    }

    /// Sets the ThrottleTimeMs of later PushConfig responses.
    pub fn set_throttle_time_ms(&mut self, ms: i32) {
        self.settings.throttle_time_ms = ms;
    }

    /// Every decision so far.
    pub fn events(&self) -> &[LoggedEvent] {
        &self.events
    }

    /// How often the policy was invoked.
    pub fn policy_invocations(&self) -> u64 {
        self.policy_invocations
    }

    /// True iff a policy is configured (KIP-1324: then and only then PushConfig is advertised).
    pub fn advertises_push_config(&self) -> bool {
        self.decisions
            .advertises_push_config(self.settings.policy.is_some())
    }

    /// `client.config.max.bytes` in force.
    pub fn max_bytes(&self) -> u32 {
        self.settings
            .client_config_max_bytes
            .unwrap_or(self.profile.defaults.client_config_max_bytes)
    }

    pub(super) fn log(&mut self, at: Millis, event: Event) {
        self.events.push(LoggedEvent { at, event });
    }
}
