//! [`ClientDecisions`] for [`Faulty`]: the client faults, each at the decision it lives at.
//! Every override answers as the reference does unless one of its faults is on.

use super::{Fault, Faulty, REFERENCE};
use crate::model::client::HandshakeState;
use crate::model::config_def::{ClientType, ConfigKeyDef, ConfigType, ConfigTypeNumbering};
use crate::model::events::{NodeId, SkipReason, UnblockReason};
use crate::model::sensitivity::SensitivityRule;
use crate::model::{ClientDecisions, ConfigValue, ExponentialBackoff, ModelRng};
use kipcheck_codec::push_config_request::Config;
use kipcheck_codec::{ErrorCode, PushConfigRequest};

impl ClientDecisions for Faulty {
    fn sensitivity(&self, key: &str, defined: Option<ConfigType>) -> Option<SensitivityRule> {
        use SensitivityRule::*;
        if self.has(Fault::PasswordRuleFirst) && defined == Some(ConfigType::Password) {
            return Some(PasswordType);
        }
        SensitivityRule::ALL.into_iter().find(|r| match r {
            SecurityInfix if self.has(Fault::NoSecurityInfixRule) => false,
            ClassSuffix if self.has(Fault::NoClassesSuffixRule) => key.ends_with(".class"),
            ClassType if self.has(Fault::NoClassTypeRule) => false,
            Undefined if self.has(Fault::SendsUndefinedKeys) => false,
            r => r.matches(key, defined),
        })
    }

    fn undefined_key_entry(
        &self,
        key: &str,
        raw: &str,
        numbering: ConfigTypeNumbering,
    ) -> Option<Config> {
        if !self.has(Fault::SendsUndefinedKeys) {
            return REFERENCE.undefined_key_entry(key, raw, numbering);
        }
        // The raw text goes out as a STRING.
        Some(Config {
            config_key: key.into(),
            config_value: raw.into(),
            config_type: self.wire_config_type(ConfigType::String, numbering)?,
            ..Default::default()
        })
    }

    fn considered_keys(&self, allowed: Vec<String>) -> Vec<String> {
        let mut keys = REFERENCE.considered_keys(allowed);
        let list = crate::model::selection::ALLOWED_KEYS;
        if self.has(Fault::SendsAllowedKeysList) && !keys.iter().any(|k| k == list) {
            keys.push(list.to_string());
        }
        keys
    }

    fn wire_config_type(&self, ty: ConfigType, numbering: ConfigTypeNumbering) -> Option<i8> {
        let numbering = if self.has(Fault::ClientOlderTypeNumbering) {
            ConfigTypeNumbering::OlderKipEnum
        } else {
            numbering
        };
        let wire = REFERENCE.wire_config_type(ty, numbering)?;
        if self.has(Fault::DescribeConfigsTypeNumbering) {
            Some(ty.ordinal() + 1)
        } else {
            Some(wire)
        }
    }

    fn config_value_text(&self, ty: ConfigType, converted: Option<String>) -> Option<String> {
        match converted {
            Some(v) if ty == ConfigType::List && self.has(Fault::ListRenderedWithToString) => {
                Some(format!("[{}]", v.split(',').collect::<Vec<_>>().join(", ")))
            }
            None if self.has(Fault::NullValueSentEmpty) => Some(String::new()),
            converted => REFERENCE.config_value_text(ty, converted),
        }
    }

    fn reports_default(&self, def: &ConfigKeyDef, value: &str, user_set: bool) -> bool {
        let is_default = if self.has(Fault::IsDefaultByValue) {
            let default = def.default.and_then(|d| ConfigValue::parse(def.ty, d).ok());
            default.is_some_and(|d| d.convert_to_string() == value)
        } else {
            REFERENCE.reports_default(def, value, user_set)
        };
        is_default && !self.has(Fault::IsDefaultAlwaysFalse)
    }

    fn fits_budget(&self, size: usize, budget: u32) -> bool {
        self.has(Fault::NoClientBudget) || REFERENCE.fits_budget(size, budget)
    }

    fn sends_request(&self, entries: usize) -> bool {
        self.has(Fault::EmptyPushWhenNothingLeft) || REFERENCE.sends_request(entries)
    }

    fn skips_handshake(&self, embedded: bool, enabled: bool) -> Option<SkipReason> {
        let embedded = embedded && !self.has(Fault::EmbeddedClientsHandshake);
        let enabled = enabled || self.has(Fault::IgnoresEnableSwitch);
        REFERENCE.skips_handshake(embedded, enabled)
    }

    fn holds_user_requests(&self) -> bool {
        !self.has(Fault::DoesNotBlockUserRequests) && REFERENCE.holds_user_requests()
    }

    fn waits_from_call(&self, client_type: ClientType) -> bool {
        !self.has(Fault::ProducerDeadlineFromStart) && REFERENCE.waits_from_call(client_type)
    }

    fn releases_held_requests(&self, reason: UnblockReason) -> bool {
        match reason {
            UnblockReason::DeadlineExceeded if self.has(Fault::BlocksPastDeadline) => false,
            UnblockReason::Rejected if self.has(Fault::RejectionKeepsRequestsHeld) => false,
            reason => REFERENCE.releases_held_requests(reason),
        }
    }

    fn supports_push_config(&self, min_version: i16, max_version: i16) -> bool {
        let min_version = if self.has(Fault::IgnoresMinVersion) {
            min_version.min(0)
        } else {
            min_version
        };
        REFERENCE.supports_push_config(min_version, max_version)
    }

    fn handshakes_again(&self, state: &HandshakeState) -> bool {
        match state {
            HandshakeState::Completed { .. } if self.has(Fault::HandshakePerConnection) => true,
            HandshakeState::Rejected { .. } if self.has(Fault::RehandshakeAfterRejection) => true,
            state => REFERENCE.handshakes_again(state),
        }
    }

    fn may_push_to(
        &self,
        authenticated: bool,
        advertises: Option<bool>,
        awaiting_api_versions: bool,
    ) -> bool {
        let authenticated = authenticated || self.has(Fault::PushBeforeAuthentication);
        let answered_or_awaited = (self.has(Fault::PushToUnadvertisingBroker)
            && advertises.is_some())
            || (self.has(Fault::PushBeforeApiVersionsAnswer) && awaiting_api_versions);
        REFERENCE.may_push_to(authenticated, advertises, awaiting_api_versions)
            || (authenticated && answered_or_awaited)
    }

    fn choose_node(&self, candidates: &[NodeId], rng: &mut ModelRng) -> NodeId {
        if self.has(Fault::FixedNodeChoice) {
            candidates[0]
        } else {
            REFERENCE.choose_node(candidates, rng)
        }
    }

    fn authentication_succeeded(&self, code: ErrorCode) -> bool {
        self.has(Fault::PushAfterFailedAuthentication) || REFERENCE.authentication_succeeded(code)
    }

    fn honours_throttle(&self, throttle_time_ms: i32) -> bool {
        !self.has(Fault::IgnoresThrottle) && REFERENCE.honours_throttle(throttle_time_ms)
    }

    fn retries_push_error(&self, code: ErrorCode) -> bool {
        let retriable = if self.has(Fault::RetriesEveryOtherCode) {
            true
        } else if self.has(Fault::HardCodedRetriableSet) {
            matches!(
                code,
                ErrorCode::REQUEST_TIMED_OUT
                    | ErrorCode::NETWORK_EXCEPTION
                    | ErrorCode::COORDINATOR_LOAD_IN_PROGRESS
                    | ErrorCode::COORDINATOR_NOT_AVAILABLE
            )
        } else {
            code.retriable()
        };
        (retriable
            && code != ErrorCode::CONFIG_TOO_LARGE
            && code != ErrorCode::INVALID_CONFIG
            && !self.has(Fault::RetriableErrorsNotRetried))
            || (code == ErrorCode::CONFIG_TOO_LARGE && self.has(Fault::RetriesConfigTooLarge))
            || (code == ErrorCode::INVALID_CONFIG && self.has(Fault::RetriesInvalidConfig))
    }

    fn retry_request_after(
        &self,
        code: ErrorCode,
        sent: &PushConfigRequest,
    ) -> Option<PushConfigRequest> {
        if code == ErrorCode::CONFIG_TOO_LARGE
            && self.has(Fault::ShrinksAfterConfigTooLarge)
            && sent.configs.len() > 1
        {
            let mut smaller = sent.clone();
            smaller.configs.truncate(sent.configs.len() / 2);
            return Some(smaller);
        }
        REFERENCE.retry_request_after(code, sent)
    }

    fn retry_backoff_ms(
        &self,
        backoff: &ExponentialBackoff,
        failed_attempts: u32,
        rng: &mut ModelRng,
    ) -> u64 {
        if !self.has(Fault::NoBackoffCap)
            && !self.has(Fault::JitterOutOfBounds)
            && !self.has(Fault::BackoffExponentOffByOne)
        {
            return REFERENCE.retry_backoff_ms(backoff, failed_attempts, rng);
        }
        let mut backoff = *backoff;
        if self.has(Fault::NoBackoffCap) {
            backoff.max_ms = u64::MAX >> 16;
        }
        if self.has(Fault::JitterOutOfBounds) {
            backoff.jitter *= 2.0;
        }
        let exponent = if self.has(Fault::BackoffExponentOffByOne) {
            failed_attempts
        } else {
            failed_attempts.saturating_sub(1)
        };
        backoff.delay(exponent, rng)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::faulty::Faults;
    use crate::model::selection::{select, select_with, ALLOWED_KEYS};
    use crate::model::{client_definitions, SpecProfile};
    use kipcheck_codec::push_config_request::Config;

    fn with(fault: Fault) -> Faulty {
        Faulty(Faults::one(fault))
    }

    #[test]
    fn sensitivity_faults_skip_or_reorder_exactly_their_rule() {
        use SensitivityRule::*;
        let s = ConfigType::String;
        let key = "producer.ssl.truststore.location";
        assert_eq!(REFERENCE.sensitivity(key, Some(s)), Some(SecurityInfix));
        assert_eq!(
            with(Fault::NoSecurityInfixRule).sensitivity(key, Some(s)),
            None
        );
        let list = Some(ConfigType::List);
        assert_eq!(
            with(Fault::NoClassesSuffixRule).sensitivity("interceptor.classes", list),
            None
        );
        assert_eq!(
            with(Fault::NoClassesSuffixRule).sensitivity("partitioner.class", list),
            Some(ClassSuffix)
        );
        let class = Some(ConfigType::Class);
        assert_eq!(
            REFERENCE.sensitivity("key.serializer", class),
            Some(ClassType)
        );
        assert_eq!(
            with(Fault::NoClassTypeRule).sensitivity("key.serializer", class),
            None
        );
        let password = Some(ConfigType::Password);
        assert_eq!(
            REFERENCE.sensitivity("ssl.key.password", password),
            Some(SecurityPrefix)
        );
        assert_eq!(
            with(Fault::PasswordRuleFirst).sensitivity("ssl.key.password", password),
            Some(PasswordType)
        );
        assert_eq!(REFERENCE.sensitivity("my.custom", None), Some(Undefined));
        assert_eq!(
            with(Fault::SendsUndefinedKeys).sensitivity("my.custom", None),
            None
        );
    }

    #[test]
    fn only_sends_undefined_keys_builds_an_entry_for_an_undefined_key() {
        let kip = ConfigTypeNumbering::ConfigDefType;
        assert_eq!(REFERENCE.undefined_key_entry("my.custom", "v", kip), None);
        assert_eq!(
            with(Fault::SendsUndefinedKeys).undefined_key_entry("my.custom", "v", kip),
            Some(Config {
                config_key: "my.custom".into(),
                config_value: "v".into(),
                config_type: 1,
                ..Default::default()
            })
        );
    }

    #[test]
    fn a_variant_without_client_faults_answers_as_the_reference() {
        let broker_only = with(Fault::NoSizeCheck);
        let mut a = ModelRng::new(7);
        let mut b = ModelRng::new(7);
        let backoff = ExponentialBackoff {
            initial_ms: 100,
            max_ms: 1000,
            jitter: 0.2,
        };
        for attempt in 1..6 {
            assert_eq!(
                broker_only.retry_backoff_ms(&backoff, attempt, &mut a),
                REFERENCE.retry_backoff_ms(&backoff, attempt, &mut b)
            );
        }
        assert_eq!(
            broker_only.choose_node(&[1, 2, 3], &mut a),
            REFERENCE.choose_node(&[1, 2, 3], &mut b)
        );
        for code in [
            ErrorCode::NOT_CONTROLLER,
            ErrorCode::CONFIG_TOO_LARGE,
            ErrorCode::INVALID_CONFIG,
            ErrorCode::POLICY_VIOLATION,
        ] {
            assert_eq!(
                broker_only.retries_push_error(code),
                REFERENCE.retries_push_error(code)
            );
        }
        assert!(broker_only.may_push_to(true, Some(true), false));
        assert!(!broker_only.may_push_to(true, Some(false), false));
        assert!(!broker_only.may_push_to(false, Some(true), false));
        assert!(!broker_only.may_push_to(true, None, true));
        assert_eq!(broker_only.skips_handshake(false, true), None);
        let profile = SpecProfile::default();
        let defs = client_definitions(ClientType::Consumer);
        let user = BTreeMap::from([("group.id".to_string(), "g".to_string())]);
        assert_eq!(
            select_with(&defs, &user, &profile, &broker_only),
            select(&defs, &user, &profile)
        );
    }

    #[test]
    fn push_error_faults_retry_exactly_their_codes() {
        let not_controller = ErrorCode::NOT_CONTROLLER;
        assert!(REFERENCE.retries_push_error(not_controller));
        assert!(!REFERENCE.retries_push_error(ErrorCode::CONFIG_TOO_LARGE));
        assert!(!REFERENCE.retries_push_error(ErrorCode::POLICY_VIOLATION));
        assert!(!with(Fault::RetriableErrorsNotRetried).retries_push_error(not_controller));
        assert!(!with(Fault::HardCodedRetriableSet).retries_push_error(not_controller));
        assert!(with(Fault::HardCodedRetriableSet).retries_push_error(ErrorCode::REQUEST_TIMED_OUT));
        assert!(with(Fault::RetriesEveryOtherCode).retries_push_error(ErrorCode::POLICY_VIOLATION));
        assert!(!with(Fault::RetriesEveryOtherCode).retries_push_error(ErrorCode::INVALID_CONFIG));
        assert!(with(Fault::RetriesConfigTooLarge).retries_push_error(ErrorCode::CONFIG_TOO_LARGE));
        assert!(with(Fault::RetriesInvalidConfig).retries_push_error(ErrorCode::INVALID_CONFIG));
        let entry = |k: &str| Config {
            config_key: k.into(),
            ..Default::default()
        };
        let sent = PushConfigRequest {
            configs: vec![entry("a"), entry("b"), entry("c")],
            ..Default::default()
        };
        let too_large = ErrorCode::CONFIG_TOO_LARGE;
        assert_eq!(REFERENCE.retry_request_after(too_large, &sent), None);
        let shrinks = with(Fault::ShrinksAfterConfigTooLarge);
        let smaller = shrinks
            .retry_request_after(too_large, &sent)
            .expect("shrinks");
        assert_eq!(smaller.configs, vec![entry("a")]);
        assert_eq!(shrinks.retry_request_after(too_large, &smaller), None);
        assert_eq!(
            shrinks.retry_request_after(ErrorCode::INVALID_CONFIG, &sent),
            None
        );
    }

    #[test]
    fn selection_faults_change_the_request_exactly() {
        let profile = SpecProfile::default();
        let defs = client_definitions(ClientType::Consumer);
        let user = BTreeMap::from([(ALLOWED_KEYS.to_string(), "client.id".to_string())]);
        let keys = |d: &dyn ClientDecisions| -> Vec<String> {
            select_with(&defs, &user, &profile, d)
                .request
                .map(|r| r.configs.iter().map(|c| c.config_key.to_string()).collect())
                .unwrap_or_default()
        };
        assert_eq!(keys(&REFERENCE), vec!["client.id"]);
        assert_eq!(
            keys(&with(Fault::SendsAllowedKeysList)),
            vec!["client.id", ALLOWED_KEYS]
        );
        assert!(with(Fault::NoClientBudget).fits_budget(10_000, 1));
        assert!(!REFERENCE.fits_budget(10_000, 1));
        assert!(with(Fault::EmptyPushWhenNothingLeft).sends_request(0));
        assert!(!REFERENCE.sends_request(0));
        let list = ConfigType::List;
        let value = Some("a,b".to_string());
        assert_eq!(
            with(Fault::ListRenderedWithToString).config_value_text(list, value.clone()),
            Some("[a, b]".to_string())
        );
        assert_eq!(REFERENCE.config_value_text(list, value), Some("a,b".into()));
        assert_eq!(
            with(Fault::NullValueSentEmpty).config_value_text(list, None),
            Some(String::new())
        );
        assert_eq!(REFERENCE.config_value_text(list, None), None);
        let numbering = ConfigTypeNumbering::ConfigDefType;
        assert_eq!(
            REFERENCE.wire_config_type(ConfigType::Int, numbering),
            Some(2)
        );
        assert_eq!(
            with(Fault::DescribeConfigsTypeNumbering).wire_config_type(ConfigType::Int, numbering),
            Some(3)
        );
    }

    #[test]
    fn state_machine_faults_flip_exactly_their_decision() {
        let rejected = HandshakeState::Rejected {
            error_code: ErrorCode::POLICY_VIOLATION,
        };
        let completed = HandshakeState::Completed { node: 1 };
        assert!(!REFERENCE.handshakes_again(&rejected));
        assert!(with(Fault::RehandshakeAfterRejection).handshakes_again(&rejected));
        assert!(!with(Fault::RehandshakeAfterRejection).handshakes_again(&completed));
        assert!(with(Fault::HandshakePerConnection).handshakes_again(&completed));
        assert!(!REFERENCE.supports_push_config(1, 2));
        assert!(with(Fault::IgnoresMinVersion).supports_push_config(1, 2));
        assert!(!with(Fault::IgnoresMinVersion).supports_push_config(0, -1));
        let deadline = UnblockReason::DeadlineExceeded;
        assert!(!with(Fault::BlocksPastDeadline).releases_held_requests(deadline));
        assert!(with(Fault::BlocksPastDeadline).releases_held_requests(UnblockReason::Rejected));
        assert!(!with(Fault::RejectionKeepsRequestsHeld)
            .releases_held_requests(UnblockReason::Rejected));
        assert_eq!(
            with(Fault::EmbeddedClientsHandshake).skips_handshake(true, false),
            Some(SkipReason::Disabled)
        );
        assert_eq!(
            REFERENCE.skips_handshake(true, false),
            Some(SkipReason::EmbeddedInStreams)
        );
        assert_eq!(
            with(Fault::IgnoresEnableSwitch).skips_handshake(false, false),
            None
        );
        assert!(with(Fault::PushBeforeAuthentication).may_push_to(false, Some(true), false));
        assert!(with(Fault::PushToUnadvertisingBroker).may_push_to(true, Some(false), false));
        assert!(with(Fault::PushBeforeApiVersionsAnswer).may_push_to(true, None, true));
        assert!(!with(Fault::PushBeforeApiVersionsAnswer).may_push_to(true, None, false));
        let mut rng = ModelRng::new(1);
        assert_eq!(
            with(Fault::FixedNodeChoice).choose_node(&[4, 5, 6], &mut rng),
            4
        );
        assert!(with(Fault::PushAfterFailedAuthentication)
            .authentication_succeeded(ErrorCode::UNKNOWN_SERVER_ERROR));
        assert!(!REFERENCE.authentication_succeeded(ErrorCode::UNKNOWN_SERVER_ERROR));
        assert!(!with(Fault::IgnoresThrottle).honours_throttle(100));
        assert!(REFERENCE.honours_throttle(100));
        assert!(!with(Fault::DoesNotBlockUserRequests).holds_user_requests());
        assert!(!with(Fault::ProducerDeadlineFromStart).waits_from_call(ClientType::Producer));
        assert!(REFERENCE.waits_from_call(ClientType::Producer));
        assert!(!REFERENCE.waits_from_call(ClientType::Consumer));
        let backoff = ExponentialBackoff {
            initial_ms: 100,
            max_ms: 1000,
            jitter: 0.0,
        };
        let mut rng = ModelRng::new(1);
        assert_eq!(REFERENCE.retry_backoff_ms(&backoff, 1, &mut rng), 100);
        assert_eq!(REFERENCE.retry_backoff_ms(&backoff, 6, &mut rng), 1000);
        let off_by_one = with(Fault::BackoffExponentOffByOne);
        assert_eq!(off_by_one.retry_backoff_ms(&backoff, 1, &mut rng), 200);
        assert_eq!(
            with(Fault::NoBackoffCap).retry_backoff_ms(&backoff, 6, &mut rng),
            3200
        );
    }
}
