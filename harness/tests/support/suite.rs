//! What the suite's own tests share: where the shipped scenarios are, and which scenario
//! must catch each built-in faulty variant (its witness). `conformance_suite` (what
//! cargo-mutants runs) checks every witness alone; `mutants` checks the whole kill matrix.

use std::path::{Path, PathBuf};

/// The shipped suite, `scenarios/`.
pub(crate) fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
}

/// Every variant, in declaration order, with one scenario that must catch it.
pub(crate) const WITNESSES: &[(&str, &str)] = &[
    ("no-security-infix-rule", "c1324-sensitive-infix"),
    ("no-classes-suffix-rule", "c1324-sensitive-suffix"),
    ("password-rule-first", "c1324-sensitive-password-type"),
    ("no-class-type-rule", "c1324-sensitive-class-type"),
    ("sends-undefined-keys", "c1324-sensitive-custom-key"),
    (
        "sends-allowed-keys-list",
        "c1324-allowed-keys-replace-default",
    ),
    (
        "empty-push-when-nothing-left",
        "c1324-all-sensitive-no-request",
    ),
    ("no-client-budget", "c1324-budget-fits-max-bytes"),
    ("client-older-type-numbering", "c1324-value-rendering"),
    (
        "is-default-always-false",
        "c1324-is-default-explicit-default-value",
    ),
    ("ignores-enable-switch", "c1324-disabled-consumer"),
    (
        "retriable-errors-not-retried",
        "c1324-retry-coordinator-load-in-progress",
    ),
    (
        "does-not-block-user-requests",
        "c1324-user-request-blocked-until-response",
    ),
    (
        "retries-config-too-large",
        "c1324-config-too-large-not-retried",
    ),
    ("retries-invalid-config", "c1324-invalid-config-not-retried"),
    ("ignores-throttle", "c1324-throttle-waits-before-retry"),
    ("no-backoff-cap", "c1324-backoff-exponential-growth"),
    ("jitter-out-of-bounds", "c1324-backoff-exponential-growth"),
    ("handshake-per-connection", "c1324-once-not-per-connection"),
    (
        "push-to-unadvertising-broker",
        "c1324-mixed-push-only-to-new",
    ),
    ("fixed-node-choice", "c1324-random-node-varies-across-runs"),
    (
        "embedded-clients-handshake",
        "c1324-streams-embedded-producer-no-handshake",
    ),
    (
        "producer-deadline-from-start",
        "c1324-deadline-producer-late-send",
    ),
    ("blocks-past-deadline", "c1324-deadline-default-60000"),
    (
        "push-before-api-versions-answer",
        "c1324-handshake-waits-for-api-versions",
    ),
    (
        "ignores-min-version",
        "c1324-mixed-range-without-v0-push-to-v0-node",
    ),
    (
        "describe-configs-type-numbering",
        "c1324-consumer-default-keys-exact",
    ),
    (
        "list-rendered-with-tostring",
        "c1324-allowed-keys-self-listed",
    ),
    (
        "is-default-by-value",
        "c1324-is-default-explicit-default-value",
    ),
    (
        "null-value-sent-empty",
        "c1324-null-only-allowed-key-no-request",
    ),
    (
        "retries-every-other-code",
        "c1324-policy-violation-not-retried",
    ),
    ("hard-coded-retriable-set", "c1324-retry-not-controller"),
    (
        "backoff-exponent-off-by-one",
        "c1324-backoff-exponential-growth",
    ),
    (
        "shrinks-after-config-too-large",
        "c1324-config-too-large-no-handshake-on-other-node",
    ),
    (
        "rehandshake-after-rejection",
        "c1324-invalid-config-no-handshake-on-reconnect",
    ),
    (
        "rejection-keeps-requests-held",
        "c1324-policy-violation-not-retried",
    ),
    (
        "push-before-authentication",
        "c1324-push-after-sasl-authenticate",
    ),
    (
        "push-after-failed-authentication",
        "c1324-no-push-after-sasl-authentication-failed",
    ),
    (
        "advertises-without-policy",
        "b1324-no-policy-not-advertised-every-version",
    ),
    ("no-size-check", "b1324-size-body-over-max-rejected"),
    (
        "size-check-after-policy",
        "b1324-rejecting-policy-oversized-gets-too-large",
    ),
    ("size-limit-inclusive", "b1324-size-body-at-max-accepted"),
    (
        "measures-frame-prefix",
        "b1324-size-body-max-minus-one-accepted",
    ),
    (
        "broker-older-type-numbering",
        "b1324-config-def-numbering-int-2-short-3",
    ),
    (
        "accepts-sensitive-types",
        "b1324-broker-checks-sensitive-types-rejected",
    ),
    (
        "skips-value-parsing",
        "b1324-broker-checks-unparsable-values-rejected",
    ),
    (
        "drops-sensitive-entries",
        "b1324-config-type-class-rejected",
    ),
    (
        "drops-throttle-time",
        "b1324-throttle-time-returned-on-success",
    ),
    (
        "reports-never-configs",
        "k1326-broker-never-with-validator-excluded",
    ),
    (
        "reports-validatorless-configs",
        "k1326-broker-no-validator-excluded",
    ),
    (
        "reports-password-configs",
        "k1326-broker-password-with-validator-excluded",
    ),
    (
        "policy-violation-instead-of-invalid-config",
        "b1324-policy-reject-invalid-config",
    ),
    ("size-counts-header", "b1324-size-body-at-max-accepted"),
    (
        "refuses-empty-configs",
        "b1324-empty-configs-rejecting-policy",
    ),
    (
        "closes-after-error-response",
        "b1324-policy-reject-connection-stays-open",
    ),
    ("drops-policy-message", "b1324-policy-reject-invalid-config"),
    (
        "persists-below-enabling-version",
        "k1326-ctrl-no-persist-below-level",
    ),
    (
        "persists-only-above-enabling-version",
        "k1326-ctrl-persist-at-level",
    ),
    (
        "loses-static-configs-on-failover",
        "k1326-ctrl-failover-static-survives",
    ),
    ("mv-validator-ceiling", "k1294-floor-between-levels"),
    (
        "no-registration-audit",
        "k1294-registration-reject-invalid-registration",
    ),
    (
        "registration-wrong-error-code",
        "k1294-registration-reject-invalid-registration",
    ),
    (
        "audit-on-upgrade-only",
        "k1294-audit-downgrade-dynamic-violation",
    ),
    (
        "alter-configs-skips-mv-validators",
        "k1294-alter-configs-invalid-config",
    ),
    (
        "incremental-alter-skips-mv-validators",
        "k1294-iac-invalid-config",
    ),
    (
        "incremental-alter-skips-static-validator",
        "k1294-iac-static-validator-refused",
    ),
    (
        "validate-only-writes",
        "k1294-alter-configs-validate-only-valid",
    ),
    ("kip1256-wrong-error-code", "k1294-k1256-duplicate-key"),
    ("every-topic-exists", "k1294-k1256-unknown-topic"),
    (
        "static-configs-string-value-of",
        "k1326-broker-list-convert-to-string",
    ),
    (
        "reports-only-explicit-configs",
        "k1326-broker-v6-defaults-exact-set",
    ),
    ("reports-password-as-null", "k1326-broker-values-never-null"),
    (
        "drops-default-static-configs",
        "k1326-ctrl-default-value-persisted-as-given",
    ),
    (
        "static-configs-wrong-tag",
        "k1326-ctrl-default-value-persisted-as-given",
    ),
    (
        "registration-audit-at-broker-max",
        "k1294-registration-below-lowest-level-accepted",
    ),
    (
        "fenced-record-for-refused-registration",
        "k1294-registration-rejected-then-fixed",
    ),
    ("mv-floor-strictly-below", "k1294-floor-exact-lowest-level"),
    (
        "applies-every-mv-validator",
        "k1294-audit-against-target-level-only",
    ),
    (
        "mv-validator-replaces-static",
        "k1294-static-validator-still-applies",
    ),
    (
        "list-op-validates-delta",
        "k1294-iac-append-validates-resulting-list",
    ),
    (
        "validate-only-skips-audit",
        "k1294-audit-validate-only-dynamic-violation",
    ),
    ("audit-error-per-feature", "k1294-audit-update-features-v2"),
    (
        "audit-skips-static-configs",
        "k1294-audit-default-valued-static-violation",
    ),
    (
        "audit-at-current-level",
        "k1294-audit-upgrade-static-violation",
    ),
    (
        "forwarded-response-without-header",
        "k1294-envelope-iac-compliant-stored",
    ),
];
