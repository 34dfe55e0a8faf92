//! The decision points of the reference: one trait per role ([`ClientDecisions`],
//! [`BrokerDecisions`], [`ControllerDecisions`]), each method one decision the KIPs fix, its
//! default body the reference's answer. The models hold an `Arc<dyn …Decisions>` and ask it
//! at the exact point the decision is taken; [`Reference`] keeps every default.
//!
//! This is the seam the harness's faulty variants plug into (`kipcheck::faulty`): a variant
//! overrides one method and keeps the rest, so no bug lives in this crate. A method names the
//! decision, never a bug; its doc says what the KIP text requires. Pure like the rest of the
//! model: no I/O, no clock, no randomness of its own.

mod broker;
mod client;
mod controller;

pub use broker::BrokerDecisions;
pub use client::ClientDecisions;
pub use controller::ControllerDecisions;

use std::sync::Arc;

/// Every decision as the KIPs take it: the reference model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reference;

impl ClientDecisions for Reference {}
impl BrokerDecisions for Reference {}
impl ControllerDecisions for Reference {}

/// The reference's client decisions, shared.
pub fn reference_client() -> Arc<dyn ClientDecisions> {
    Arc::new(Reference)
}

/// The reference's broker decisions, shared.
pub fn reference_broker() -> Arc<dyn BrokerDecisions> {
    Arc::new(Reference)
}

/// The reference's controller decisions, shared.
pub fn reference_controller() -> Arc<dyn ControllerDecisions> {
    Arc::new(Reference)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config_def::ConfigType;
    use crate::server_config::{ConfigCheckFailure, ServerConfigDefs, ServerConfigKey};
    use crate::validators::Validator;

    /// The reference's MV check of `log.segment.bytes` at `level`.
    fn check_mv(key: &ServerConfigKey, value: &str, level: i16) -> Result<(), ConfigCheckFailure> {
        let chosen = Reference.mv_validators_in_force(&key.mv_validators, level);
        ServerConfigDefs::check_mv_validators("log.segment.bytes", key, value, level, chosen)
    }

    #[test]
    fn inclusion_rule() {
        let d = ServerConfigDefs::default();
        assert!(Reference.reports_static_config(d.broker["log.segment.bytes"].report_facts(false)));
        assert!(
            !Reference.reports_static_config(d.broker["log.dirs"].report_facts(false)),
            "no validator"
        );
        assert!(
            !Reference.reports_static_config(d.broker["ssl.protocol"].report_facts(false)),
            "NEVER"
        );
        let mut pw =
            ServerConfigKey::new(ConfigType::Password, None, Some(Validator::NonEmptyString));
        assert!(
            !Reference.reports_static_config(pw.report_facts(false)),
            "PASSWORD"
        );
        pw.ty = ConfigType::String;
        assert!(Reference.reports_static_config(pw.report_facts(false)));
    }

    #[test]
    fn mv_check_uses_floor_and_static_is_independent() {
        let d = ServerConfigDefs::default().with_mv_validator(
            "log.segment.bytes",
            30,
            Validator::AtLeast(3.0 * 1048576.0),
        );
        let key = &d.broker["log.segment.bytes"];
        assert!(check_mv(key, "2097152", 29).is_ok());
        assert!(matches!(
            check_mv(key, "2097152", 31),
            Err(ConfigCheckFailure::MetadataVersion { threshold: 30, .. })
        ));
        assert!(ServerConfigDefs::check_static("log.segment.bytes", key, "1024").is_err());
        assert!(check_mv(key, "1024", 29).is_ok());
    }
}
