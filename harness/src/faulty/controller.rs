//! [`ControllerDecisions`] for [`Faulty`]: the controller faults, each at the decision it lives at.
//! Every override asks the reference ([`REFERENCE`]) whenever none of its faults is in the
//! variant; the wrong readings of KIP-1294's validator map (ceiling, strictly below, every
//! entry) live here too, read from the map's public entries.

use std::collections::BTreeMap;

use super::Faulty;
use super::{Fault, REFERENCE};
use crate::codec::update_features_response::UpdatableFeatureResult;
use crate::codec::{
    self, BrokerRegistrationRequest, Bytes, EncodeError, ErrorCode, RegisterBrokerRecord,
    ResponseBody, ResponseHeader, UpdateFeaturesResponse, Uuid,
};
use crate::model::controller::METADATA_VERSION;
use crate::model::validators::{MvValidators, Validator};
use crate::model::{AuditDirection, ControllerDecisions, ServerConfigKey};

/// The entry with the lowest key ≥ `level` (ceiling instead of floor); none above the highest.
fn ceiling(validators: &MvValidators, level: i16) -> Option<(i16, &Validator)> {
    validators.0.range(level..).next().map(|(l, v)| (*l, v))
}

/// The entry with the highest key < `level` (the floor off by one); none at the lowest key.
fn strictly_below(validators: &MvValidators, level: i16) -> Option<(i16, &Validator)> {
    validators
        .0
        .range(..level)
        .next_back()
        .map(|(l, v)| (*l, v))
}

/// Every entry with a key ≤ `level`, lowest first (all of them instead of the floor's one).
fn up_to(validators: &MvValidators, level: i16) -> Vec<(i16, &Validator)> {
    validators.0.range(..=level).map(|(l, v)| (*l, v)).collect()
}

impl ControllerDecisions for Faulty {
    fn mv_validators_in_force<'a>(
        &self,
        validators: &'a MvValidators,
        level: i16,
    ) -> Vec<(i16, &'a Validator)> {
        if self.has(Fault::AppliesEveryMvValidator) {
            up_to(validators, level)
        } else if self.has(Fault::MvValidatorCeiling) {
            ceiling(validators, level).into_iter().collect()
        } else if self.has(Fault::MvFloorStrictlyBelow) {
            strictly_below(validators, level).into_iter().collect()
        } else {
            REFERENCE.mv_validators_in_force(validators, level)
        }
    }

    fn holds_reported_static_config(
        &self,
        value: &Option<String>,
        default: Option<&Option<String>>,
    ) -> bool {
        if self.has(Fault::DropsDefaultStaticConfigs) && default == Some(value) {
            false
        } else {
            REFERENCE.holds_reported_static_config(value, default)
        }
    }

    fn registration_audit_level(
        &self,
        finalized: i16,
        req: &BrokerRegistrationRequest,
    ) -> Option<i16> {
        if self.has(Fault::NoRegistrationAudit) {
            None
        } else if self.has(Fault::RegistrationAuditAtBrokerMax) {
            Some(
                req.features
                    .iter()
                    .find(|f| f.name == METADATA_VERSION)
                    .map_or(finalized, |f| f.max_supported_version),
            )
        } else {
            REFERENCE.registration_audit_level(finalized, req)
        }
    }

    fn registration_refusal_code(&self, profile_code: ErrorCode) -> ErrorCode {
        if self.has(Fault::RegistrationWrongErrorCode) {
            ErrorCode::INVALID_CONFIG
        } else {
            REFERENCE.registration_refusal_code(profile_code)
        }
    }

    fn records_refused_registration(&self) -> bool {
        self.has(Fault::FencedRecordForRefusedRegistration)
            || REFERENCE.records_refused_registration()
    }

    fn register_broker_record_as_written(
        &self,
        mut record: RegisterBrokerRecord,
        version: i16,
    ) -> RegisterBrokerRecord {
        if !self.has(Fault::StaticConfigsWrongTag) {
            return REFERENCE.register_broker_record_as_written(record, version);
        }
        if let Some(configs) = record.static_configs.take() {
            let mut bytes = Vec::new();
            codec::put_uvarint(&mut bytes, configs.len() as u32 + 1);
            for c in &configs {
                // Encoding a decoded-or-built struct at its own version cannot fail.
                let _ = c.encode_body(&mut bytes, version);
            }
            record.unknown_tagged_fields.0.insert(3, Bytes(bytes));
        }
        record
    }

    fn persists_static_configs(&self, level: i16, enabling: i16) -> bool {
        if self.has(Fault::PersistsOnlyAboveEnablingVersion) {
            level > enabling
        } else if self.has(Fault::PersistsBelowEnablingVersion) {
            true
        } else {
            REFERENCE.persists_static_configs(level, enabling)
        }
    }

    fn applies_record_static_configs(&self) -> bool {
        !self.has(Fault::LosesStaticConfigsOnFailover) && REFERENCE.applies_record_static_configs()
    }

    fn audits_static_configs(&self) -> bool {
        !self.has(Fault::AuditSkipsStaticConfigs) && REFERENCE.audits_static_configs()
    }

    fn metadata_version_audit_level(
        &self,
        from: i16,
        to: i16,
        validate_only: bool,
        direction: AuditDirection,
    ) -> Option<i16> {
        let direction = if self.has(Fault::AuditOnUpgradeOnly) {
            AuditDirection::UpgradeOnly
        } else {
            direction
        };
        let at = REFERENCE.metadata_version_audit_level(from, to, validate_only, direction)?;
        if validate_only && self.has(Fault::ValidateOnlySkipsAudit) {
            return None;
        }
        Some(if self.has(Fault::AuditAtCurrentLevel) {
            from
        } else {
            at
        })
    }

    fn audit_refusal_answer(
        &self,
        code: ErrorCode,
        message: &str,
    ) -> Option<UpdateFeaturesResponse> {
        if !self.has(Fault::AuditErrorPerFeature) {
            return REFERENCE.audit_refusal_answer(code, message);
        }
        // The refusal on metadata.version's own result, the top-level error left NONE.
        let result = UpdatableFeatureResult {
            feature: METADATA_VERSION.into(),
            error_code: code.0,
            error_message: Some(message.into()),
            ..Default::default()
        };
        Some(UpdateFeaturesResponse {
            results: Some(vec![result]),
            ..Default::default()
        })
    }

    fn runs_static_validator(&self, legacy: bool, key: &ServerConfigKey, level: i16) -> bool {
        let replaced =
            self.has(Fault::MvValidatorReplacesStatic) && key.mv_validators.floor(level).is_some();
        let skipped = !legacy && self.has(Fault::IncrementalAlterSkipsStaticValidator);
        !replaced && !skipped && REFERENCE.runs_static_validator(legacy, key, level)
    }

    fn runs_mv_validators(&self, legacy: bool) -> bool {
        let skipped = if legacy {
            Fault::AlterConfigsSkipsMvValidators
        } else {
            Fault::IncrementalAlterSkipsMvValidators
        };
        !self.has(skipped) && REFERENCE.runs_mv_validators(legacy)
    }

    fn topic_exists(&self, name: &str, topics: &BTreeMap<String, Uuid>) -> bool {
        self.has(Fault::EveryTopicExists) || REFERENCE.topic_exists(name, topics)
    }

    fn structural_refusal_code(&self) -> ErrorCode {
        if self.has(Fault::Kip1256WrongErrorCode) {
            ErrorCode::INVALID_CONFIG
        } else {
            REFERENCE.structural_refusal_code()
        }
    }

    fn list_op_validated_value<'a>(&self, operand: &'a str, result: &'a str) -> &'a str {
        if self.has(Fault::ListOpValidatesDelta) {
            operand
        } else {
            REFERENCE.list_op_validated_value(operand, result)
        }
    }

    fn writes_accepted_configs(&self, validate_only: bool) -> bool {
        self.has(Fault::ValidateOnlyWrites) || REFERENCE.writes_accepted_configs(validate_only)
    }

    fn envelope_response_data(
        &self,
        header: &ResponseHeader,
        answer: &ResponseBody,
        version: i16,
    ) -> Result<Vec<u8>, EncodeError> {
        if self.has(Fault::ForwardedResponseWithoutHeader) {
            answer.to_bytes(version)
        } else {
            REFERENCE.envelope_response_data(header, answer, version)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faulty::Faults;

    fn faulty(fault: Fault) -> Faulty {
        Faulty(Faults::one(fault))
    }

    fn levels(v: Vec<(i16, &Validator)>) -> Vec<i16> {
        v.into_iter().map(|x| x.0).collect()
    }

    /// Entries at 10 and 20: the reference's floor against each wrong reading of the map.
    #[test]
    fn the_wrong_readings_of_the_validator_map() {
        let m = MvValidators(
            [(10, Validator::AtLeast(1.0)), (20, Validator::AtLeast(2.0))]
                .into_iter()
                .collect(),
        );
        let at = |fault: Option<Fault>, level: i16| match fault {
            Some(f) => levels(faulty(f).mv_validators_in_force(&m, level)),
            None => levels(REFERENCE.mv_validators_in_force(&m, level)),
        };
        for (level, floor) in [(9, vec![]), (10, vec![10]), (19, vec![10]), (25, vec![20])] {
            assert_eq!(at(None, level), floor, "floor at {level}");
        }
        assert_eq!(at(Some(Fault::MvFloorStrictlyBelow), 20), vec![10]);
        assert_eq!(at(Some(Fault::MvFloorStrictlyBelow), 10), Vec::<i16>::new());
        assert_eq!(at(Some(Fault::AppliesEveryMvValidator), 20), vec![10, 20]);
        assert_eq!(at(Some(Fault::AppliesEveryMvValidator), 19), vec![10]);
        assert_eq!(
            at(Some(Fault::AppliesEveryMvValidator), 9),
            Vec::<i16>::new()
        );
        assert_eq!(at(Some(Fault::MvValidatorCeiling), 11), vec![20]);
        assert_eq!(at(Some(Fault::MvValidatorCeiling), 9), vec![10]);
        assert_eq!(at(Some(Fault::MvValidatorCeiling), 21), Vec::<i16>::new());
        // A fault elsewhere keeps the reference's floor.
        assert_eq!(at(Some(Fault::EveryTopicExists), 19), vec![10]);
    }

    #[test]
    fn the_metadata_version_audit_level() {
        let both = AuditDirection::Both;
        assert_eq!(
            REFERENCE.metadata_version_audit_level(30, 40, true, both),
            Some(40)
        );
        assert_eq!(
            REFERENCE.metadata_version_audit_level(40, 30, false, both),
            Some(30)
        );
        assert_eq!(
            REFERENCE.metadata_version_audit_level(40, 40, false, both),
            None
        );
        let f = faulty(Fault::AuditOnUpgradeOnly);
        assert_eq!(f.metadata_version_audit_level(40, 30, false, both), None);
        assert_eq!(
            f.metadata_version_audit_level(30, 40, false, both),
            Some(40)
        );
        let f = faulty(Fault::ValidateOnlySkipsAudit);
        assert_eq!(f.metadata_version_audit_level(30, 40, true, both), None);
        assert_eq!(
            f.metadata_version_audit_level(30, 40, false, both),
            Some(40)
        );
        let f = faulty(Fault::AuditAtCurrentLevel);
        assert_eq!(
            f.metadata_version_audit_level(30, 40, false, both),
            Some(30)
        );
        assert_eq!(f.metadata_version_audit_level(40, 40, false, both), None);
    }

    #[test]
    fn static_configs_persistence_level() {
        for (fault, below, at, above) in [
            (None, false, true, true),
            (Some(Fault::PersistsBelowEnablingVersion), true, true, true),
            (
                Some(Fault::PersistsOnlyAboveEnablingVersion),
                false,
                false,
                true,
            ),
        ] {
            let d: Box<dyn ControllerDecisions> = match fault {
                Some(f) => Box::new(faulty(f)),
                None => Box::new(REFERENCE),
            };
            let got = [19, 20, 21].map(|level| d.persists_static_configs(level, 20));
            assert_eq!(got, [below, at, above], "{fault:?}");
        }
    }
}
