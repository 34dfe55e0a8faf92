//! `check_invariants()` for the client, broker and controller models: properties that must
//! hold after every input, whatever the input was. A violation is a bug in the model (or in
//! a faulty variant derived from it), never a verdict about an implementation under test.
//! Here because they read each model's private state; the harness's simulated-world driver
//! (`kipcheck::emulate::Cluster`) calls them after every step.

use super::broker::BrokerModel;
use super::client::{ClientModel, HandshakeState};
use super::controller::ControllerModel;
use super::decisions::{BrokerDecisions, Reference};
use super::events::Event;
use super::selection::request_size;
use super::sensitivity::classify;

/// A broken model invariant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{model} invariant violated: {what}")]
pub struct InvariantViolation {
    /// `client`, `broker` or `controller`.
    pub model: &'static str,
    /// What does not hold.
    pub what: String,
}

fn check(
    model: &'static str,
    ok: bool,
    what: impl FnOnce() -> String,
) -> Result<(), InvariantViolation> {
    if ok {
        Ok(())
    } else {
        Err(InvariantViolation {
            model,
            what: what(),
        })
    }
}

impl ClientModel {
    /// Checks: at most one accepted push; an in-flight push only while pending; nothing blocked
    /// unless blocking; the selected request within budget, non-empty, without duplicate or
    /// sensitive keys; no push to a node that did not advertise PushConfig.
    pub fn check_invariants(&self) -> Result<(), InvariantViolation> {
        const M: &str = "client";
        check(M, self.successes <= 1, || {
            format!("{} successful pushes", self.successes)
        })?;
        check(
            M,
            self.in_flight.is_none() || self.state == HandshakeState::Pending,
            || format!("request in flight in state {:?}", self.state),
        )?;
        check(M, self.blocked.is_empty() || self.is_blocking(), || {
            format!(
                "{} user requests held while not blocking",
                self.blocked.len()
            )
        })?;
        check(M, self.pushes_to_non_advertising == 0, || {
            "PushConfig sent to a node that does not advertise it".into()
        })?;
        if let Some(req) = &self.selection.request {
            let size = request_size(self.profile.size_measure, req);
            let budget = self.profile.defaults.client_config_max_bytes as usize;
            check(M, size <= budget, || {
                format!("request of {size} bytes over budget {budget}")
            })?;
            check(M, !req.configs.is_empty(), || {
                "empty Configs array selected".into()
            })?;
            let mut keys: Vec<&str> = req.configs.iter().map(|c| c.config_key.as_str()).collect();
            keys.sort_unstable();
            check(M, keys.windows(2).all(|w| w[0] != w[1]), || {
                "duplicate keys selected".into()
            })?;
            for c in &req.configs {
                let ty = self.defs.get(&c.config_key).map(|d| d.ty);
                check(M, classify(&c.config_key, ty).is_none(), || {
                    format!("sensitive key {} selected", c.config_key)
                })?;
            }
        }
        let completed = self
            .events
            .iter()
            .filter(|e| matches!(e.event, Event::HandshakeCompleted { .. }))
            .count();
        check(M, completed <= 1, || {
            format!("{completed} HandshakeCompleted events")
        })?;
        check(
            M,
            self.events.windows(2).all(|w| w[0].at <= w[1].at),
            || "event times go backwards".into(),
        )
    }
}

impl BrokerModel {
    /// Checks: the policy is never invoked more often than PushConfigs received minus those
    /// rejected for size; every PolicyInvoked event follows a PushConfigReceived within limit;
    /// the static-config report holds no PASSWORD, NEVER or validator-less key.
    pub fn check_invariants(&self) -> Result<(), InvariantViolation> {
        const M: &str = "broker";
        let received = self
            .events
            .iter()
            .filter(|e| matches!(e.event, Event::PushConfigReceived { .. }))
            .count() as u64;
        check(
            M,
            self.policy_invocations + self.size_rejections <= received,
            || {
                format!(
                    "{} policy calls + {} size rejections > {received} pushes",
                    self.policy_invocations, self.size_rejections
                )
            },
        )?;
        let mut last_size_ok = false;
        for e in &self.events {
            match &e.event {
                Event::PushConfigReceived { size, max_bytes } => {
                    last_size_ok = *size <= *max_bytes as usize
                }
                Event::PolicyInvoked { .. } => check(M, last_size_ok, || {
                    "policy invoked for an oversized PushConfig".into()
                })?,
                _ => {}
            }
        }
        for s in self.static_configs() {
            let key = self.settings.defs.broker.get(s.name.as_str());
            let mv = self.mv_validators_count();
            check(
                M,
                key.is_some_and(|k| Reference.reports_static_config(k.report_facts(mv))),
                || format!("static config {} must not be reported", s.name),
            )?;
        }
        Ok(())
    }
}

impl ControllerModel {
    /// Checks: the log's offsets are 0..n; replaying the log reproduces features, dynamic
    /// configs, registered brokers and exactly the persisted static configs; no dynamic config
    /// holds a value that fails its static validator.
    pub fn check_invariants(&self) -> Result<(), InvariantViolation> {
        const M: &str = "controller";
        for (i, r) in self.log.iter().enumerate() {
            check(M, r.offset == i as u64, || {
                format!("record {i} has offset {}", r.offset)
            })?;
        }
        let replayed = ControllerModel::replay(&self.profile, self.defs.clone(), &self.log)
            .map_err(|e| InvariantViolation {
                model: M,
                what: format!("log does not replay: {e}"),
            })?;
        check(M, replayed.features == self.features, || {
            "replayed features differ".into()
        })?;
        check(M, replayed.configs == self.configs, || {
            "replayed configs differ".into()
        })?;
        check(M, replayed.brokers.len() == self.brokers.len(), || {
            "replayed brokers differ".into()
        })?;
        for (id, b) in &self.brokers {
            let r = &replayed.brokers[id];
            check(
                M,
                r.epoch == b.epoch && r.incarnation_id == b.incarnation_id,
                || format!("broker {id} epoch/incarnation differ after replay"),
            )?;
            let expected = if b.static_configs_persisted {
                b.static_configs.clone()
            } else {
                Default::default()
            };
            check(M, r.static_configs == expected, || {
                format!("broker {id} static configs differ after replay")
            })?;
        }
        for ((rtype, rname), configs) in &self.configs {
            check(M, !configs.is_empty(), || {
                format!("empty config map for {rtype}:{rname}")
            })?;
            let Some(defs) = self.defs.for_resource(*rtype) else {
                continue;
            };
            for (name, value) in configs {
                if let Some(key) = defs.get(name) {
                    check(
                        M,
                        super::server_config::ServerConfigDefs::check_static(name, key, value)
                            .is_ok(),
                        || format!("{rtype}:{rname} holds invalid {name}={value}"),
                    )?;
                }
            }
        }
        Ok(())
    }
}
