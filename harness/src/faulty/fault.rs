//! The faulty variants by name: each [`Fault`] is one realistic implementer bug, and
//! [`Faults`] the set a [`Faulty`](super::Faulty) is built with (empty for the reference).
//! This file only names and documents the bugs; their behaviour is in the role files beside
//! it, each at the decision it lives at.

use std::collections::BTreeSet;

macro_rules! faults {
    ($( $(#[doc = $doc:literal])+ $variant:ident => $name:literal, )+) => {
        /// One realistic implementer bug (the doc line of each variant is the bug).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Fault {
            $( $(#[doc = $doc])+ $variant, )+
        }

        impl Fault {
            /// Every fault, in declaration order (client, broker, controller).
            pub const ALL: &'static [Fault] = &[$(Fault::$variant,)+];

            /// The stable kebab-case name (`--target mutant:NAME`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Fault::$variant => $name,)+
                }
            }

            /// The one-line description of the bug.
            pub fn bug(self) -> &'static str {
                match self {
                    $(Fault::$variant => concat!($($doc),+).trim(),)+
                }
            }
        }
    };
}

faults! {
    /// Client: the infix rule is missing, so `.ssl.`/`.sasl.`/`.security.` keys are classified by a later rule (or sent).
    NoSecurityInfixRule => "no-security-infix-rule",
    /// Client: the suffix rule only knows `.class`, so LIST keys ending in `.classes` are sent.
    NoClassesSuffixRule => "no-classes-suffix-rule",
    /// Client: the PASSWORD-type rule is checked first, so the warning names it instead of the first rule in the KIP's order.
    PasswordRuleFirst => "password-rule-first",
    /// Client: keys declared CLASS are not treated as sensitive.
    NoClassTypeRule => "no-class-type-rule",
    /// Client: keys the client does not define are sent (as STRING, the user's raw text).
    SendsUndefinedKeys => "sends-undefined-keys",
    /// Client: `config.push.allowed.keys` itself is always sent, although it is not listed.
    SendsAllowedKeysList => "sends-allowed-keys-list",
    /// Client: when every key is filtered out, it still sends a PushConfig with an empty array.
    EmptyPushWhenNothingLeft => "empty-push-when-nothing-left",
    /// Client: no size budget; a request above `client.config.max.bytes` is sent whole.
    NoClientBudget => "no-client-budget",
    /// Client: ConfigType is numbered with the older KIP enum (SHORT 2, INT 3) whatever the profile says.
    ClientOlderTypeNumbering => "client-older-type-numbering",
    /// Client: IsDefault is always false.
    IsDefaultAlwaysFalse => "is-default-always-false",
    /// Client: `enable.config.push=false` is ignored; the handshake runs anyway.
    IgnoresEnableSwitch => "ignores-enable-switch",
    /// Client: retriable PushConfig errors end the handshake instead of being retried.
    RetriableErrorsNotRetried => "retriable-errors-not-retried",
    /// Client: user requests go ahead while the handshake is still pending.
    DoesNotBlockUserRequests => "does-not-block-user-requests",
    /// Client: CONFIG_TOO_LARGE is retried although it can never succeed.
    RetriesConfigTooLarge => "retries-config-too-large",
    /// Client: INVALID_CONFIG is retried although the policy's verdict is final.
    RetriesInvalidConfig => "retries-invalid-config",
    /// Client: ThrottleTimeMs in the PushConfig response is ignored.
    IgnoresThrottle => "ignores-throttle",
    /// Client: the backoff is never capped at `retry.backoff.max.ms`.
    NoBackoffCap => "no-backoff-cap",
    /// Client: jitter is drawn from twice the allowed range (±40 % instead of ±20 %).
    JitterOutOfBounds => "jitter-out-of-bounds",
    /// Client: the handshake is repeated on every new connection instead of once per instance.
    HandshakePerConnection => "handshake-per-connection",
    /// Client: PushConfig goes to any node that answered ApiVersions, advertised or not.
    PushToUnadvertisingBroker => "push-to-unadvertising-broker",
    /// Client: the handshake node is always the lowest-numbered candidate, never a random one.
    FixedNodeChoice => "fixed-node-choice",
    /// Client: producers/consumers/admins embedded in Kafka Streams do their own handshake.
    EmbeddedClientsHandshake => "embedded-clients-handshake",
    /// Client: a producer's user request waits only until client start + `max.block.ms`, not `max.block.ms` from its own call.
    ProducerDeadlineFromStart => "producer-deadline-from-start",
    /// Client: user requests stay blocked after the handshake deadline passes.
    BlocksPastDeadline => "blocks-past-deadline",
    /// Client: PushConfig is pipelined right after ApiVersions on a new connection, before the answer says whether the node supports it.
    PushBeforeApiVersionsAnswer => "push-before-api-versions-answer",
    /// Client: a node counts as supporting PushConfig whatever MinVersion it advertises, so v0 goes to a broker whose range excludes it.
    IgnoresMinVersion => "ignores-min-version",
    /// Client: ConfigType is numbered as in DescribeConfigs (BOOLEAN 1, STRING 2, INT 3, … PASSWORD 9).
    DescribeConfigsTypeNumbering => "describe-configs-type-numbering",
    /// Client: LIST values are rendered with Java's `List.toString` (`[a, b]`) instead of `convertToString` (`a,b`).
    ListRenderedWithToString => "list-rendered-with-tostring",
    /// Client: IsDefault is `value == default`, so a key the user set to its default value is reported as default.
    IsDefaultByValue => "is-default-by-value",
    /// Client: a key whose value is null is sent with ConfigValue "" instead of being left out.
    NullValueSentEmpty => "null-value-sent-empty",
    /// Client: every error code except CONFIG_TOO_LARGE and INVALID_CONFIG is retried, non-retriable ones too.
    RetriesEveryOtherCode => "retries-every-other-code",
    /// Client: only a hard-coded set of transient codes (timeouts, network, coordinator) is retried; other retriable codes such as NOT_CONTROLLER and THROTTLING_QUOTA_EXCEEDED end the handshake.
    HardCodedRetriableSet => "hard-coded-retriable-set",
    /// Client: the backoff exponent counts the failed attempt too, so the first retry waits 2 × `retry.backoff.ms`.
    BackoffExponentOffByOne => "backoff-exponent-off-by-one",
    /// Client: after CONFIG_TOO_LARGE it drops half of its entries and sends the smaller request again.
    ShrinksAfterConfigTooLarge => "shrinks-after-config-too-large",
    /// Client: after a non-retriable rejection the handshake starts again on the next connection that advertises PushConfig.
    RehandshakeAfterRejection => "rehandshake-after-rejection",
    /// Client: a non-retriable rejection does not release the user requests held for the handshake; they wait for its deadline.
    RejectionKeepsRequestsHeld => "rejection-keeps-requests-held",
    /// Client: on a SASL connection PushConfig goes out as soon as ApiVersions is answered, before SASL authentication has completed.
    PushBeforeAuthentication => "push-before-authentication",
    /// Client: the SaslAuthenticate answer's error code is not checked, so a connection whose authentication failed counts as authenticated and gets the PushConfig.
    PushAfterFailedAuthentication => "push-after-failed-authentication",
    /// Broker: PushConfig is advertised in ApiVersions even without a policy configured.
    AdvertisesWithoutPolicy => "advertises-without-policy",
    /// Broker: no `client.config.max.bytes` check at all.
    NoSizeCheck => "no-size-check",
    /// Broker: the size check runs after the policy instead of before it.
    SizeCheckAfterPolicy => "size-check-after-policy",
    /// Broker: a request of exactly `client.config.max.bytes` is rejected (`>=` instead of `>`).
    SizeLimitInclusive => "size-limit-inclusive",
    /// Broker: the size measured includes the 4-byte frame size prefix.
    MeasuresFramePrefix => "measures-frame-prefix",
    /// Broker: ConfigType is decoded with the older KIP enum whatever the profile says.
    BrokerOlderTypeNumbering => "broker-older-type-numbering",
    /// Broker: with `broker_entry_checks: broker`, entries typed CLASS or PASSWORD are passed to the policy instead of refused.
    AcceptsSensitiveTypes => "accepts-sensitive-types",
    /// Broker: with `broker_entry_checks: broker`, values are not parsed as their ConfigType; unparsable ones reach the policy as strings.
    SkipsValueParsing => "skips-value-parsing",
    /// Broker: entries typed CLASS or PASSWORD are silently left out of what the policy receives, so it cannot detect them by ConfigType.
    DropsSensitiveEntries => "drops-sensitive-entries",
    /// Broker: ThrottleTimeMs is never put in PushConfig responses.
    DropsThrottleTime => "drops-throttle-time",
    /// Broker: StaticConfigs include configs whose report policy is NEVER.
    ReportsNeverConfigs => "reports-never-configs",
    /// Broker: StaticConfigs include configs that have no validator.
    ReportsValidatorlessConfigs => "reports-validatorless-configs",
    /// Broker: StaticConfigs include PASSWORD configs.
    ReportsPasswordConfigs => "reports-password-configs",
    /// Broker: a rejected push is answered POLICY_VIOLATION (as CreateTopicPolicy rejections are) instead of INVALID_CONFIG.
    PolicyViolationInsteadOfInvalidConfig => "policy-violation-instead-of-invalid-config",
    /// Broker: the size compared with `client.config.max.bytes` includes the request header.
    SizeCountsHeader => "size-counts-header",
    /// Broker: a PushConfig with an empty Configs array is refused with INVALID_CONFIG before the policy.
    RefusesEmptyConfigs => "refuses-empty-configs",
    /// Broker: the connection is closed after every PushConfig error response.
    ClosesAfterErrorResponse => "closes-after-error-response",
    /// Broker: a policy rejection is answered INVALID_CONFIG with a null ErrorMessage, so the policy's description of the violation is lost.
    DropsPolicyMessage => "drops-policy-message",
    /// Controller: StaticConfigs are persisted in RegisterBrokerRecord v5 below the enabling metadata.version.
    PersistsBelowEnablingVersion => "persists-below-enabling-version",
    /// Controller: StaticConfigs are persisted only above the enabling metadata.version (`>` instead of `>=`).
    PersistsOnlyAboveEnablingVersion => "persists-only-above-enabling-version",
    /// Controller: replaying RegisterBrokerRecord drops StaticConfigs, so they are lost on failover.
    LosesStaticConfigsOnFailover => "loses-static-configs-on-failover",
    /// Controller: MV validators are chosen by ceiling (lowest level ≥ current) instead of floor.
    MvValidatorCeiling => "mv-validator-ceiling",
    /// Controller: broker registration skips the KIP-1294 static-config audit.
    NoRegistrationAudit => "no-registration-audit",
    /// Controller: a failed registration audit returns INVALID_CONFIG whatever the profile says.
    RegistrationWrongErrorCode => "registration-wrong-error-code",
    /// Controller: the metadata.version audit runs on upgrades only, whatever the profile says.
    AuditOnUpgradeOnly => "audit-on-upgrade-only",
    /// Controller: legacy AlterConfigs does not run the MV-aware validators.
    AlterConfigsSkipsMvValidators => "alter-configs-skips-mv-validators",
    /// Controller: IncrementalAlterConfigs does not run the MV-aware validators.
    IncrementalAlterSkipsMvValidators => "incremental-alter-skips-mv-validators",
    /// Controller: IncrementalAlterConfigs skips the static validator, so values it refuses are written (KIP-1256: "silently dropped").
    IncrementalAlterSkipsStaticValidator => "incremental-alter-skips-static-validator",
    /// Controller: ValidateOnly alter-configs requests write the new configs.
    ValidateOnlyWrites => "validate-only-writes",
    /// Controller: KIP-1256 structural refusals return INVALID_CONFIG instead of INVALID_REQUEST.
    Kip1256WrongErrorCode => "kip1256-wrong-error-code",
    /// Controller: every topic name counts as existing, so alters of a topic nobody created are applied.
    EveryTopicExists => "every-topic-exists",
    /// Broker: StaticConfigs values are rendered with Java's `String.valueOf` (a LIST as `[a, b]`) instead of `ConfigDef.convertToString`.
    StaticConfigsStringValueOf => "static-configs-string-value-of",
    /// Broker: StaticConfigs carry only the keys set in server.properties; keys at their default are left out.
    ReportsOnlyExplicitConfigs => "reports-only-explicit-configs",
    /// Broker: PASSWORD configs are reported with a null Value instead of being left out.
    ReportsPasswordAsNull => "reports-password-as-null",
    /// Controller: StaticConfigs whose value equals the definition's default are dropped at registration (neither held nor persisted).
    DropsDefaultStaticConfigs => "drops-default-static-configs",
    /// Controller: RegisterBrokerRecord v5 carries StaticConfigs under tag 3 instead of tag 2, so a replaying controller does not find them.
    StaticConfigsWrongTag => "static-configs-wrong-tag",
    /// Controller: the registration audit runs at the broker's max supported metadata.version instead of the finalized level.
    RegistrationAuditAtBrokerMax => "registration-audit-at-broker-max",
    /// Controller: a refused registration still writes a (fenced) RegisterBrokerRecord.
    FencedRecordForRefusedRegistration => "fenced-record-for-refused-registration",
    /// Controller: the MV validator in force is the highest key strictly below the level (`<` instead of `<=`).
    MvFloorStrictlyBelow => "mv-floor-strictly-below",
    /// Controller: every MV validator at or below the level is applied, not only the floor entry.
    AppliesEveryMvValidator => "applies-every-mv-validator",
    /// Controller: when an MV validator is in force, the static ConfigDef validator is skipped.
    MvValidatorReplacesStatic => "mv-validator-replaces-static",
    /// Controller: APPEND/SUBTRACT validate the operand instead of the resulting list.
    ListOpValidatesDelta => "list-op-validates-delta",
    /// Controller: UpdateFeatures with ValidateOnly skips the metadata.version audit.
    ValidateOnlySkipsAudit => "validate-only-skips-audit",
    /// Controller: a failed metadata.version audit is reported only in the per-feature result under a NONE top level, so UpdateFeatures v2 (no Results) answers NONE.
    AuditErrorPerFeature => "audit-error-per-feature",
    /// Controller: the metadata.version audit checks dynamic ConfigRecords only, not the brokers' reported StaticConfigs.
    AuditSkipsStaticConfigs => "audit-skips-static-configs",
    /// Controller: the metadata.version audit applies the validators of the current level instead of the target level.
    AuditAtCurrentLevel => "audit-at-current-level",
    /// Controller: an Envelope's ResponseData carries the forwarded response's body without its response header.
    ForwardedResponseWithoutHeader => "forwarded-response-without-header",
}

impl Fault {
    /// The fault named `name`, if any.
    pub fn from_name(name: &str) -> Option<Fault> {
        Fault::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// Every name, comma-separated (for usage errors).
    pub fn names() -> String {
        Fault::ALL
            .iter()
            .map(|f| f.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The faults a model is built with: empty for the reference.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Faults(BTreeSet<Fault>);

impl Faults {
    /// No fault: the reference behaviour.
    pub fn none() -> Self {
        Self::default()
    }

    /// Exactly one fault.
    pub fn one(fault: Fault) -> Self {
        Self(BTreeSet::from([fault]))
    }

    /// True if `fault` is switched on.
    pub fn has(&self, fault: Fault) -> bool {
        self.0.contains(&fault)
    }

    /// True if no fault is switched on.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_kebab_case_and_round_trip() {
        let mut seen = BTreeSet::new();
        for f in Fault::ALL {
            assert!(seen.insert(f.name()), "duplicate name {}", f.name());
            assert!(f
                .name()
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
            assert_eq!(Fault::from_name(f.name()), Some(*f));
            assert!(!f.bug().is_empty() && !f.bug().contains('\n'));
        }
        assert_eq!(Fault::from_name("no-such-bug"), None);
        assert_eq!(
            Fault::NoSizeCheck.bug(),
            "Broker: no `client.config.max.bytes` check at all."
        );
    }
}
