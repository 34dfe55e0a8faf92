//! What the emulated broker of `kipcheck serve` does: its broker setup (policy, limits,
//! throttle) and a script for successive PushConfig requests (a scripted answer, a delay, a
//! disconnect, or the reference model's own answer). Built by hand or from a scenario. Plain
//! data; it does no I/O and answers nothing itself.

use std::collections::VecDeque;

use crate::codec::{ProvisionalNumbers, PushConfigResponse, ResponseBody};
use crate::scenario::{typed_body, BrokerSetup, Role, Scenario, Step};

/// The answer to one PushConfig.
#[derive(Clone, Debug, PartialEq)]
pub enum PushReply {
    /// The reference broker model answers (size check, entry checks, policy verdict).
    Model,
    /// This response body is sent (error codes already wire codes).
    Respond(PushConfigResponse),
    /// The connection is closed without an answer.
    Disconnect,
}

/// One scripted PushConfig: wait `delay_ms` (real time), then `reply`.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptStep {
    /// Delay before the reply, ms.
    pub delay_ms: u64,
    /// The reply.
    pub reply: PushReply,
}

/// The emulated broker's setup and PushConfig script.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ServeScript {
    /// Policy, `client.config.max.bytes`, throttle, server.properties. `policy: None` = an
    /// older broker: PushConfig is not advertised.
    pub broker: BrokerSetup,
    /// Scripted answers to the first PushConfig requests (across all connections, in
    /// arrival order); later ones get [`PushReply::Model`].
    pub steps: VecDeque<ScriptStep>,
}

/// A scenario that cannot be turned into a serve script.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ScriptError {
    /// The scenario does not test a client (or a broker whose setup serve can take).
    #[error("scenario {id}: {reason}")]
    Unusable {
        /// Scenario id.
        id: String,
        /// Why.
        reason: String,
    },
}

impl ServeScript {
    /// The script a scenario implies.
    ///
    /// - A broker scenario: serve is that broker (its `setup.broker`), answering by the model.
    /// - A client scenario: serve is the emulated broker the client starts with (the first
    ///   node of `setup.client.connect`; `push_config: false` there = an older broker). Every
    ///   `respond` to a PushConfig becomes a scripted answer (no body = the model's success),
    ///   every `disconnect` after a PushConfig a scripted disconnect, and `advance` steps
    ///   between a PushConfig and its answer a delay.
    pub fn from_scenario(s: &Scenario, numbers: &ProvisionalNumbers) -> Result<Self, ScriptError> {
        let unusable = |reason: &str| ScriptError::Unusable {
            id: s.file.id.clone(),
            reason: reason.into(),
        };
        let setup = &s.file.setup;
        if s.file.roles.contains(&Role::Broker) {
            return Ok(Self {
                broker: setup.broker.clone().unwrap_or_default(),
                steps: VecDeque::new(),
            });
        }
        if !s.file.roles.contains(&Role::Client) {
            return Err(unusable(
                "serve emulates a broker for clients; this scenario tests neither",
            ));
        }
        let node = setup
            .client
            .as_ref()
            .and_then(|c| c.connect.first().copied())
            .unwrap_or(1);
        let advertised = setup
            .emulated_brokers
            .get(&node)
            .is_none_or(|b| b.push_config);
        let mut broker = BrokerSetup::default();
        if !advertised {
            broker.policy = None;
        }
        let mut steps = VecDeque::new();
        let mut last_push = false;
        let mut delay = 0u64;
        for step in &s.file.steps {
            match &step.value {
                Step::ExpectRequest(e) => {
                    last_push = e.api == "PushConfig";
                    delay = 0;
                }
                Step::Advance { ms } if last_push => delay += ms,
                Step::Respond(r) if last_push => {
                    let reply = match &r.body {
                        None => PushReply::Model,
                        Some(b) => match typed_body("PushConfig", Some(b), numbers) {
                            Ok(ResponseBody::PushConfig(p)) => PushReply::Respond(p),
                            Ok(_) => return Err(unusable("respond body is not a PushConfig")),
                            Err(e) => return Err(unusable(&e.to_string())),
                        },
                    };
                    steps.push_back(ScriptStep {
                        delay_ms: delay,
                        reply,
                    });
                    last_push = false;
                }
                Step::Disconnect { .. } if last_push => {
                    steps.push_back(ScriptStep {
                        delay_ms: delay,
                        reply: PushReply::Disconnect,
                    });
                    last_push = false;
                }
                _ => {}
            }
        }
        Ok(Self { broker, steps })
    }
}
