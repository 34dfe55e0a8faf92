//! UpdateFeatures as the controller model handles it, with the KIP-1294 metadata.version
//! audit of static and dynamic configs.

use super::{ControllerModel, METADATA_VERSION};
use crate::events::Event;
use crate::profile::UpdateFeaturesPrecedence;
use crate::time::Millis;
use kipcheck_codec::update_features_response::UpdatableFeatureResult;
use kipcheck_codec::{
    ErrorCode, FeatureLevelRecord, Message, MetadataRecordBody, UpdateFeaturesRequest,
    UpdateFeaturesResponse,
};

impl ControllerModel {
    /// Every config that violates the MV validators in force at `level`: broker static
    /// configs (in memory) and dynamic ConfigRecords, as messages naming the config.
    pub fn audit(&self, level: i16) -> Vec<String> {
        let mut out = Vec::new();
        let brokers = self
            .decisions
            .audits_static_configs()
            .then_some(&self.brokers);
        for (id, b) in brokers.into_iter().flatten() {
            for v in self.static_violations(level, &b.static_configs) {
                out.push(format!("broker {id} static config: {v}"));
            }
        }
        for ((rtype, rname), configs) in &self.configs {
            let Some(defs) = self.defs.for_resource(*rtype) else {
                continue;
            };
            for (name, value) in configs {
                let Some(key) = defs.get(name) else { continue };
                if let Err(e) = self.check_mv(name, key, value, level) {
                    out.push(format!("resource {rtype}:{rname} config: {e}"));
                }
            }
        }
        out
    }

    /// The KIP-1294 audit of a metadata.version change `from` → `to` (directions per profile):
    /// the rejection message if any config violates the target level.
    pub(super) fn mv_audit(
        &mut self,
        now: Millis,
        from: i16,
        to: i16,
        validate_only: bool,
    ) -> Option<String> {
        let at = self.decisions.metadata_version_audit_level(
            from,
            to,
            validate_only,
            self.profile.audit_direction,
        )?;
        let violations = self.audit(at);
        self.log_event(
            now,
            Event::MetadataVersionAudit {
                from,
                to,
                violations: violations.clone(),
            },
        );
        (!violations.is_empty()).then(|| {
            format!(
                "Cannot change metadata.version from {from} to {to} because existing configs are invalid: {}",
                violations.join("; ")
            )
        })
    }

    /// UpdateFeatures. For metadata.version the KIP-1294 audit runs against the target level
    /// (directions per profile); a failure is a top-level error naming the configs, its code
    /// the profile's `audit_rejection` (INVALID_CONFIG by default).
    /// ValidateOnly checks and audits without writing.
    pub fn handle_update_features(
        &mut self,
        now: Millis,
        version: i16,
        req: &UpdateFeaturesRequest,
    ) -> UpdateFeaturesResponse {
        let validate_only = req.validate_only.unwrap_or(false);
        // `audit`: the KIP-1294 audit refused the change (its code is the profile's reading).
        let fail = |this: &mut Self, code: ErrorCode, message: String, audit: bool| {
            this.log_event(
                now,
                Event::FeatureUpdateRejected {
                    error_code: code,
                    message: message.clone(),
                },
            );
            if audit {
                if let Some(answer) = this.decisions.audit_refusal_answer(code, &message) {
                    return answer.project(version);
                }
            }
            UpdateFeaturesResponse {
                error_code: code.0,
                error_message: Some(message.into()),
                results: Some(Vec::new()),
                ..Default::default()
            }
            .project(version)
        };
        if self.profile.update_features_precedence == UpdateFeaturesPrecedence::InvalidConfig {
            // The audit before the update's own validation.
            for u in &req.feature_updates {
                if u.feature == METADATA_VERSION && u.max_version_level >= 1 {
                    let current = self.features.get(METADATA_VERSION).copied().unwrap_or(0);
                    if let Some(message) =
                        self.mv_audit(now, current, u.max_version_level, validate_only)
                    {
                        let code = self.profile.audit_rejection.code();
                        return fail(self, code, message, true);
                    }
                }
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        for u in &req.feature_updates {
            if !seen.insert(u.feature.as_str()) {
                return fail(
                    self,
                    ErrorCode::INVALID_REQUEST,
                    format!("Duplicate feature {}", u.feature),
                    false,
                );
            }
            let current = self.features.get(u.feature.as_str()).copied().unwrap_or(0);
            if u.max_version_level < current {
                let allowed = if version == 0 {
                    u.allow_downgrade.unwrap_or(false)
                } else {
                    matches!(u.upgrade_type, Some(2) | Some(3))
                };
                if !allowed {
                    return fail(
                        self,
                        ErrorCode::INVALID_UPDATE_VERSION,
                        format!(
                            "Invalid update version {} for feature {}: downgrade not allowed",
                            u.max_version_level, u.feature
                        ),
                        false,
                    );
                }
            }
            if u.feature == METADATA_VERSION {
                if u.max_version_level < 1 {
                    return fail(
                        self,
                        ErrorCode::INVALID_UPDATE_VERSION,
                        format!("Invalid metadata.version {}", u.max_version_level),
                        false,
                    );
                }
                let first = self.profile.update_features_precedence
                    == UpdateFeaturesPrecedence::InvalidConfig;
                if !first {
                    if let Some(message) =
                        self.mv_audit(now, current, u.max_version_level, validate_only)
                    {
                        let code = self.profile.audit_rejection.code();
                        return fail(self, code, message, true);
                    }
                }
            }
        }
        let updates = req
            .feature_updates
            .iter()
            .map(|u| (u.feature.to_string(), u.max_version_level))
            .collect();
        self.log_event(
            now,
            Event::FeatureUpdateAccepted {
                updates,
                validate_only,
            },
        );
        let mut results = Vec::new();
        for u in &req.feature_updates {
            let current = self.features.get(u.feature.as_str()).copied();
            if !validate_only && current != Some(u.max_version_level) {
                self.append(
                    now,
                    0,
                    MetadataRecordBody::FeatureLevelRecord(FeatureLevelRecord {
                        name: u.feature.clone(),
                        feature_level: u.max_version_level,
                        ..Default::default()
                    }),
                );
            }
            results.push(UpdatableFeatureResult {
                feature: u.feature.clone(),
                ..Default::default()
            });
        }
        UpdateFeaturesResponse {
            results: Some(results),
            ..Default::default()
        }
        .project(version)
    }
}

#[cfg(test)]
mod tests {
    use crate::profile::{AuditRejection, SpecProfile};
    use crate::server_config::resource_type::BROKER;
    use crate::validators::Validator;
    use crate::{ControllerModel, Millis, ServerConfigDefs};
    use kipcheck_codec::update_features_request::FeatureUpdateKey;
    use kipcheck_codec::{ErrorCode, UpdateFeaturesRequest};

    fn update(level: i16) -> UpdateFeaturesRequest {
        UpdateFeaturesRequest {
            timeout_ms: 60000,
            feature_updates: vec![FeatureUpdateKey {
                feature: "metadata.version".into(),
                max_version_level: level,
                upgrade_type: Some(1),
                ..Default::default()
            }],
            validate_only: Some(false),
            ..Default::default()
        }
    }

    #[test]
    fn the_audit_refusal_code_is_the_audit_rejection_reading() {
        let defs = ServerConfigDefs::default().with_mv_validator(
            "log.segment.bytes",
            40,
            Validator::AtLeast(3.0 * 1048576.0),
        );
        for (reading, code) in [
            (AuditRejection::InvalidConfig, ErrorCode::INVALID_CONFIG),
            (
                AuditRejection::InvalidUpdateVersion,
                ErrorCode::INVALID_UPDATE_VERSION,
            ),
        ] {
            let p = SpecProfile {
                audit_rejection: reading,
                ..SpecProfile::default()
            };
            let mut c = ControllerModel::new(&p, defs.clone(), 30, Millis(0));
            // A dynamic 2 MiB, which level 40's atLeast 3 MiB refuses.
            c.configs.insert(
                (BROKER, "1".into()),
                [("log.segment.bytes".to_owned(), "2097152".to_owned())].into(),
            );
            let r = c.handle_update_features(Millis(1), 1, &update(40));
            assert_eq!(ErrorCode(r.error_code), code, "{reading:?}");
            assert!(
                r.error_message
                    .as_deref()
                    .is_some_and(|m| m.contains("log.segment.bytes")),
                "{reading:?}"
            );
            assert_eq!(c.metadata_version(), 30);
            // A refusal on other grounds keeps its own code: a downgrade without a type.
            let r = c.handle_update_features(Millis(2), 1, &update(20));
            assert_eq!(ErrorCode(r.error_code), ErrorCode::INVALID_UPDATE_VERSION);
        }
    }
}
