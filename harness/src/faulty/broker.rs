//! [`BrokerDecisions`] for [`Faulty`]: the broker faults, each at the decision it lives at.
//! Every override answers as the reference ([`REFERENCE`]) unless one of its faults is on.

use super::{Fault, Faulty, REFERENCE};
use crate::model::config_def::{ConfigType, ConfigTypeNumbering, ConfigValue};
use crate::model::events::PolicyConfig;
use crate::model::profile::BrokerEntryChecks;
use crate::model::{BrokerDecisions, ReportFacts};
use kipcheck_codec::ErrorCode;

/// CLASS or PASSWORD: the ConfigTypes a sensitive entry is declared with.
fn is_sensitive(ty: ConfigType) -> bool {
    matches!(ty, ConfigType::Class | ConfigType::Password)
}

impl BrokerDecisions for Faulty {
    fn advertises_push_config(&self, policy_configured: bool) -> bool {
        // AdvertisesWithoutPolicy: advertised whether or not a policy is configured.
        self.has(Fault::AdvertisesWithoutPolicy)
            || REFERENCE.advertises_push_config(policy_configured)
    }

    fn push_size(&self, measured: usize, header_len: usize, frame_prefix_len: usize) -> usize {
        let mut size = REFERENCE.push_size(measured, header_len, frame_prefix_len);
        if self.has(Fault::SizeCountsHeader) {
            size += header_len;
        }
        if self.has(Fault::MeasuresFramePrefix) {
            size += frame_prefix_len;
        }
        size
    }

    fn exceeds_max_bytes(&self, size: usize, max: u32) -> bool {
        if self.has(Fault::NoSizeCheck) {
            false
        } else if self.has(Fault::SizeLimitInclusive) {
            size >= max as usize
        } else {
            REFERENCE.exceeds_max_bytes(size, max)
        }
    }

    fn checks_size_before_policy(&self) -> bool {
        !self.has(Fault::SizeCheckAfterPolicy) && REFERENCE.checks_size_before_policy()
    }

    fn config_type_numbering(&self, profile: ConfigTypeNumbering) -> ConfigTypeNumbering {
        if self.has(Fault::BrokerOlderTypeNumbering) {
            ConfigTypeNumbering::OlderKipEnum
        } else {
            REFERENCE.config_type_numbering(profile)
        }
    }

    fn admits_empty_configs(&self) -> bool {
        !self.has(Fault::RefusesEmptyConfigs) && REFERENCE.admits_empty_configs()
    }

    fn refuses_sensitive_type(&self, checks: BrokerEntryChecks, ty: ConfigType) -> bool {
        !self.has(Fault::AcceptsSensitiveTypes) && REFERENCE.refuses_sensitive_type(checks, ty)
    }

    fn refuses_unparsable_value(&self, checks: BrokerEntryChecks) -> bool {
        !self.has(Fault::SkipsValueParsing) && REFERENCE.refuses_unparsable_value(checks)
    }

    fn hands_to_policy(&self, entry: &PolicyConfig) -> bool {
        if self.has(Fault::DropsSensitiveEntries) && is_sensitive(entry.ty) {
            false
        } else {
            REFERENCE.hands_to_policy(entry)
        }
    }

    fn response_throttle_ms(&self, throttle_ms: i32) -> i32 {
        if self.has(Fault::DropsThrottleTime) {
            0
        } else {
            REFERENCE.response_throttle_ms(throttle_ms)
        }
    }

    fn push_error_code(&self, code: ErrorCode) -> ErrorCode {
        if code == ErrorCode::INVALID_CONFIG
            && self.has(Fault::PolicyViolationInsteadOfInvalidConfig)
        {
            ErrorCode::POLICY_VIOLATION
        } else {
            REFERENCE.push_error_code(code)
        }
    }

    fn keeps_policy_message(&self) -> bool {
        !self.has(Fault::DropsPolicyMessage) && REFERENCE.keeps_policy_message()
    }

    fn closes_after_push_response(&self, error_code: i16) -> bool {
        (error_code != 0 && self.has(Fault::ClosesAfterErrorResponse))
            || REFERENCE.closes_after_push_response(error_code)
    }

    fn reports_static_config(&self, facts: ReportFacts) -> bool {
        // Each fault lifts one clause of KIP-1326's inclusion rule; reporting PASSWORD keys
        // as null needs them in the report first.
        REFERENCE.reports_static_config(ReportFacts {
            has_validator: facts.has_validator || self.has(Fault::ReportsValidatorlessConfigs),
            never_reported: facts.never_reported && !self.has(Fault::ReportsNeverConfigs),
            is_password: facts.is_password
                && !self.has(Fault::ReportsPasswordConfigs)
                && !self.has(Fault::ReportsPasswordAsNull),
        })
    }

    fn reports_null_value(&self, ty: ConfigType) -> bool {
        (ty == ConfigType::Password && self.has(Fault::ReportsPasswordAsNull))
            || REFERENCE.reports_null_value(ty)
    }

    fn effective_static_value(
        &self,
        explicit: Option<String>,
        default: Option<String>,
    ) -> Option<String> {
        if self.has(Fault::ReportsOnlyExplicitConfigs) {
            explicit
        } else {
            REFERENCE.effective_static_value(explicit, default)
        }
    }

    fn render_static_value(&self, value: &ConfigValue) -> String {
        match value {
            // Java's `String.valueOf(List)` is `AbstractCollection.toString`.
            ConfigValue::List(items) if self.has(Fault::StaticConfigsStringValueOf) => {
                format!("[{}]", items.join(", "))
            }
            _ => REFERENCE.render_static_value(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faulty::Faults;

    fn facts(has_validator: bool, never_reported: bool, is_password: bool) -> ReportFacts {
        ReportFacts {
            has_validator,
            never_reported,
            is_password,
        }
    }

    fn with(fault: Fault) -> Faulty {
        Faulty(Faults::one(fault))
    }

    fn entry(ty: ConfigType) -> PolicyConfig {
        PolicyConfig {
            key: "k".into(),
            value: ConfigValue::String("v".into()),
            ty,
            is_default: false,
        }
    }

    #[test]
    fn push_config_decisions_differ_only_under_their_fault() {
        let none = Faulty(Faults::none());
        assert!(!none.advertises_push_config(false));
        assert!(with(Fault::AdvertisesWithoutPolicy).advertises_push_config(false));
        assert_eq!(none.push_size(100, 12, 4), 100);
        assert_eq!(with(Fault::SizeCountsHeader).push_size(100, 12, 4), 112);
        assert_eq!(with(Fault::MeasuresFramePrefix).push_size(100, 12, 4), 104);
        assert_eq!(
            [99, 100, 101].map(|s| none.exceeds_max_bytes(s, 100)),
            [false, false, true]
        );
        assert!(with(Fault::SizeLimitInclusive).exceeds_max_bytes(100, 100));
        assert!(!with(Fault::NoSizeCheck).exceeds_max_bytes(usize::MAX, 0));
        assert!(none.checks_size_before_policy());
        assert!(!with(Fault::SizeCheckAfterPolicy).checks_size_before_policy());
        assert_eq!(
            none.config_type_numbering(ConfigTypeNumbering::ConfigDefType),
            ConfigTypeNumbering::ConfigDefType
        );
        assert_eq!(
            with(Fault::BrokerOlderTypeNumbering)
                .config_type_numbering(ConfigTypeNumbering::ConfigDefType),
            ConfigTypeNumbering::OlderKipEnum
        );
        assert!(none.admits_empty_configs());
        assert!(!with(Fault::RefusesEmptyConfigs).admits_empty_configs());
        assert_eq!(none.response_throttle_ms(250), 250);
        assert_eq!(with(Fault::DropsThrottleTime).response_throttle_ms(250), 0);
        let wrong = with(Fault::PolicyViolationInsteadOfInvalidConfig);
        assert_eq!(
            wrong.push_error_code(ErrorCode::INVALID_CONFIG),
            ErrorCode::POLICY_VIOLATION
        );
        assert_eq!(
            wrong.push_error_code(ErrorCode::CONFIG_TOO_LARGE),
            ErrorCode::CONFIG_TOO_LARGE
        );
        assert!(none.keeps_policy_message());
        assert!(!with(Fault::DropsPolicyMessage).keeps_policy_message());
        assert!(!none.closes_after_push_response(40));
        let closes = with(Fault::ClosesAfterErrorResponse);
        assert_eq!(
            [
                closes.closes_after_push_response(0),
                closes.closes_after_push_response(40)
            ],
            [false, true]
        );
    }

    #[test]
    fn entry_decisions_differ_only_under_their_fault() {
        let none = Faulty(Faults::none());
        let broker = BrokerEntryChecks::Broker;
        let policy = BrokerEntryChecks::Policy;
        assert!(none.refuses_sensitive_type(broker, ConfigType::Password));
        assert!(!none.refuses_sensitive_type(broker, ConfigType::Int));
        assert!(!none.refuses_sensitive_type(policy, ConfigType::Class));
        assert!(
            !with(Fault::AcceptsSensitiveTypes).refuses_sensitive_type(broker, ConfigType::Class)
        );
        assert_eq!(
            [
                none.refuses_unparsable_value(broker),
                none.refuses_unparsable_value(policy)
            ],
            [true, false]
        );
        assert!(!with(Fault::SkipsValueParsing).refuses_unparsable_value(broker));
        let drops = with(Fault::DropsSensitiveEntries);
        assert!(none.hands_to_policy(&entry(ConfigType::Password)));
        assert_eq!(
            [ConfigType::Class, ConfigType::Password, ConfigType::String]
                .map(|ty| drops.hands_to_policy(&entry(ty))),
            [false, false, true]
        );
    }

    #[test]
    fn static_config_decisions_differ_only_under_their_fault() {
        let none = Faulty(Faults::none());
        // (has_validator, never_reported, is_password)
        assert!(none.reports_static_config(facts(true, false, false)));
        assert!(!none.reports_static_config(facts(false, false, false)));
        assert!(!none.reports_static_config(facts(true, true, false)));
        assert!(!none.reports_static_config(facts(true, false, true)));
        assert!(with(Fault::ReportsValidatorlessConfigs)
            .reports_static_config(facts(false, false, false)));
        assert!(!with(Fault::ReportsValidatorlessConfigs)
            .reports_static_config(facts(false, true, false)));
        assert!(with(Fault::ReportsNeverConfigs).reports_static_config(facts(true, true, false)));
        assert!(with(Fault::ReportsPasswordConfigs).reports_static_config(facts(true, false, true)));
        let null = with(Fault::ReportsPasswordAsNull);
        assert!(null.reports_static_config(facts(true, false, true)));
        assert_eq!(
            [ConfigType::Password, ConfigType::String].map(|ty| null.reports_null_value(ty)),
            [true, false]
        );
        assert!(!none.reports_null_value(ConfigType::Password));
        let (explicit, default) = (Some("a".to_string()), Some("b".to_string()));
        assert_eq!(none.effective_static_value(None, default.clone()), default);
        assert_eq!(
            none.effective_static_value(explicit.clone(), default.clone()),
            explicit
        );
        let only = with(Fault::ReportsOnlyExplicitConfigs);
        assert_eq!(only.effective_static_value(None, default.clone()), None);
        assert_eq!(
            only.effective_static_value(explicit.clone(), default),
            explicit
        );
        let list = ConfigValue::List(vec!["a".into(), "b".into()]);
        assert_eq!(none.render_static_value(&list), "a,b");
        let value_of = with(Fault::StaticConfigsStringValueOf);
        assert_eq!(value_of.render_static_value(&list), "[a, b]");
        assert_eq!(
            value_of.render_static_value(&ConfigValue::Int(7)),
            none.render_static_value(&ConfigValue::Int(7))
        );
    }
}
