//! The ledger file: the real `scenarios/requirements.yaml` loads and validates, and malformed
//! ledgers fail with `path:line:col` errors.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use kipcheck::ledger::{Kind, Kip, Ledger, LedgerError};

fn ledger_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/requirements.yaml")
}

fn real() -> Ledger {
    Ledger::load(&ledger_path()).unwrap_or_else(|e| panic!("{e}"))
}

fn parse_err(text: &str) -> String {
    Ledger::parse(text, Path::new("bad.yaml"))
        .expect_err("the ledger must be rejected")
        .to_string()
}

#[test]
fn real_ledger_loads_with_unique_ids() {
    let ledger = real();
    let ids: HashSet<&str> = ledger.requirements.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), ledger.requirements.len());
    assert_eq!(ledger.requirements.len(), 137);
}

#[test]
fn real_ledger_counts_per_kip_and_kind() {
    let ledger = real();
    let counts: Vec<(Kip, Kind, usize)> = Kip::ALL
        .iter()
        .flat_map(|&kip| Kind::ALL.iter().map(move |&kind| (kip, kind)))
        .map(|(kip, kind)| (kip, kind, ledger.count(kip, kind)))
        .filter(|&(_, _, n)| n > 0)
        .collect();
    assert_eq!(
        counts,
        vec![
            (Kip::Kip1324, Kind::TestPlan, 23),
            (Kip::Kip1324, Kind::Must, 67),
            (Kip::Kip1324, Kind::Should, 5),
            (Kip::Kip1324, Kind::May, 2),
            (Kip::Kip1326, Kind::Must, 16),
            (Kip::Kip1294, Kind::Must, 18),
            (Kip::Kip1256, Kind::Must, 6),
        ]
    );
}

/// Every item of kip-notes §1.14 (the KIP-1324 test plan), one entry each.
#[test]
fn every_test_plan_item_is_present() {
    let ledger = real();
    let expected = [
        // Integration: happy path
        "kip1324.tp.happy.complete-handshake",
        // Client startup
        "kip1324.tp.startup.enabled-performs-handshake",
        "kip1324.tp.startup.disabled-skips-handshake",
        "kip1324.tp.startup.streams-single-handshake",
        // Broker configuration
        "kip1324.tp.broker.policy-advertises",
        "kip1324.tp.broker.no-policy-not-advertised",
        "kip1324.tp.broker.policy-process-invoked",
        // Mixed broker versions
        "kip1324.tp.mixed.old-not-advertised",
        "kip1324.tp.mixed.new-advertised",
        "kip1324.tp.mixed.handshake-only-new",
        "kip1324.tp.mixed.works-with-mix",
        // Retries
        "kip1324.tp.retries.retriable-retried",
        "kip1324.tp.retries.no-retry-config-too-large-or-invalid-config",
        "kip1324.tp.retries.exponential-backoff",
        // Timeout handling
        "kip1324.tp.timeout.respects-default-api-timeout",
        "kip1324.tp.timeout.continues-after-timeout",
        "kip1324.tp.timeout.does-not-block-subsequent",
        // Throttling
        "kip1324.tp.throttle.waits-throttle-time",
        // System tests: multiple client types
        "kip1324.tp.system.client-type-configs",
        // Large payloads
        "kip1324.tp.payload.near-max-bytes",
        "kip1324.tp.payload.exceeding-max-bytes",
        // Policy
        "kip1324.tp.policy.rejects-via-invalid-config-exception",
        "kip1324.tp.policy.client-receives-invalid-config",
    ];
    let test_plan: Vec<&str> = ledger
        .requirements
        .iter()
        .filter(|r| r.kind == Kind::TestPlan)
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(test_plan, expected);
    for id in expected {
        let r = ledger.get(id).unwrap();
        assert_eq!(r.kip, Kip::Kip1324, "{id}");
        assert!(
            r.excluded.is_none(),
            "{id}: test-plan items are never excluded"
        );
        assert!(r.id.starts_with("kip1324.tp."), "{id}");
    }
}

/// The areas the issue asks the ledger to hold each have their entries.
#[test]
fn required_areas_are_present() {
    let ledger = real();
    for id in [
        "kip1324.client.sensitive.prefix",
        "kip1324.client.sensitive.infix",
        "kip1324.client.sensitive.suffix",
        "kip1324.client.sensitive.class-type",
        "kip1324.client.sensitive.password-type",
        "kip1324.client.sensitive.custom",
        "kip1324.client.allowed-keys.replaces-default",
        "kip1324.client.allowed-keys.not-sent-unless-listed",
        "kip1324.client.allowed-keys.filtered",
        "kip1324.client.sensitive.all-sensitive-no-request",
        "kip1324.broker.size-check-before-policy",
        "kip1324.broker.size-exceeds-config-too-large",
        "kip1324.broker.size-at-limit-accepted",
        "kip1324.client.once.per-instance",
        "kip1324.client.retries.exhausted-continue",
        "kip1324.broker.advertise-with-policy",
        "kip1324.broker.no-policy-request-error",
        "kip1326.broker.inclusion-rule",
        "kip1326.wire.v6-negotiation",
        "kip1326.controller.persist-at-mv",
        "kip1326.controller.no-persist-below-mv",
        "kip1326.controller.survives-failover",
        "kip1294.validator.floor",
        "kip1294.registration.reject",
        "kip1294.alter.alter-configs-invalid-config",
        "kip1294.alter.incremental-alter-configs-invalid-config",
        "kip1294.audit.upgrade",
        "kip1294.audit.downgrade",
        "kip1294.audit.validate-only",
        "kip1256.null-value-non-delete",
        "kip1256.duplicate-key",
        "kip1256.unknown-resource-type",
    ] {
        assert!(ledger.get(id).is_some(), "missing {id}");
    }
}

#[test]
fn excluded_entries_have_reasons_and_are_listed() {
    let ledger = real();
    let excluded: Vec<&str> = ledger
        .requirements
        .iter()
        .filter(|r| r.excluded.is_some())
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(
        excluded,
        vec![
            "kip1324.client.blocking.constructor-non-blocking",
            "kip1324.client.latency-estimate",
            "kip1324.client.metrics-none",
            "kip1324.errors.config-too-large.exception-class",
            "kip1324.broker.no-policy-no-impact",
            "kip1324.policy.must-not-block",
            "kip1324.policy.lifecycle",
            "kip1324.broker.metrics",
            "kip1326.configdef.define-security",
            "kip1326.configdef.no-always",
            "kip1326.scope.no-validation",
            "kip1294.validator.configkey-field",
            "kip1294.testing.unit-and-integration",
        ]
    );
}

#[test]
fn missing_file_is_an_io_error_naming_the_path() {
    let err = Ledger::load(Path::new("/nonexistent/requirements.yaml")).unwrap_err();
    assert!(matches!(err, LedgerError::Io { .. }));
    assert!(err
        .to_string()
        .starts_with("/nonexistent/requirements.yaml: "));
}

const GOOD_ENTRY: &str = "\
requirements:
  - id: kip1324.a
    kip: KIP-1324
    kind: must
    text: some text
    source: somewhere
";

#[test]
fn a_minimal_ledger_parses() {
    let ledger = Ledger::parse(GOOD_ENTRY, Path::new("ok.yaml")).unwrap();
    assert_eq!(ledger.requirements.len(), 1);
    let r = &ledger.requirements[0];
    assert_eq!(
        (r.id.as_str(), r.kip, r.kind, r.line),
        ("kip1324.a", Kip::Kip1324, Kind::Must, 2)
    );
}

#[test]
fn unknown_key_reports_line_and_column() {
    let text = format!("{GOOD_ENTRY}    colour: blue\n");
    let msg = parse_err(&text);
    assert!(msg.starts_with("bad.yaml:7:5: "), "{msg}");
    assert!(msg.contains("colour"), "{msg}");
}

#[test]
fn unknown_kip_reports_line_and_column() {
    let text = GOOD_ENTRY.replace("kip: KIP-1324", "kip: KIP-9999");
    let msg = parse_err(&text);
    assert!(msg.starts_with("bad.yaml:3:10: "), "{msg}");
    assert!(msg.contains("KIP-9999"), "{msg}");
}

#[test]
fn unknown_kind_reports_line_and_column() {
    let text = GOOD_ENTRY.replace("kind: must", "kind: shall");
    let msg = parse_err(&text);
    assert!(msg.starts_with("bad.yaml:4:11: "), "{msg}");
    assert!(msg.contains("shall"), "{msg}");
}

#[test]
fn syntax_error_reports_line_and_column() {
    let text = GOOD_ENTRY.replace("text: some text", "text: \"some text");
    assert_eq!(parse_err(&text), "bad.yaml:5:11: unclosed quote");
}

#[test]
fn duplicate_mapping_key_reports_line_and_column() {
    let text = GOOD_ENTRY.replace("text: some text", "text: some text\n    text: again");
    let msg = parse_err(&text);
    assert!(
        msg.starts_with("bad.yaml:6:5: duplicate mapping key: text"),
        "{msg}"
    );
}

#[test]
fn duplicate_ids_are_rejected_at_the_second() {
    let text = format!("{GOOD_ENTRY}{}", GOOD_ENTRY.replace("requirements:\n", ""));
    assert_eq!(
        parse_err(&text),
        "bad.yaml:7:9: duplicate requirement id `kip1324.a` (first defined at line 2)"
    );
}

#[test]
fn empty_text_is_rejected() {
    let text = GOOD_ENTRY.replace("text: some text", "text: \"  \"");
    assert_eq!(
        parse_err(&text),
        "bad.yaml:5:11: requirement `kip1324.a`: `text` must not be empty"
    );
}

#[test]
fn empty_exclusion_reason_is_rejected() {
    let text = format!("{GOOD_ENTRY}    excluded: \"\"\n");
    assert_eq!(
        parse_err(&text),
        "bad.yaml:7:15: requirement `kip1324.a`: `excluded` must not be empty"
    );
}

#[test]
fn id_must_match_its_kip() {
    let text = GOOD_ENTRY.replace("kip: KIP-1324", "kip: KIP-1326");
    assert_eq!(
        parse_err(&text),
        "bad.yaml:2:9: invalid requirement id `kip1324.a`: ids of KIP-1326 start with `kip1326.`"
    );
    let text = GOOD_ENTRY.replace("kip1324.a", "kip1324.Big");
    assert_eq!(
        parse_err(&text),
        "bad.yaml:2:9: invalid requirement id `kip1324.Big`: segment `Big` may only hold a-z, 0-9 and `-`"
    );
}

#[test]
fn reading_must_name_kip_notes_items() {
    let text = format!("{GOOD_ENTRY}    reading: A3, D1\n");
    assert_eq!(
        parse_err(&text),
        "bad.yaml:7:14: requirement `kip1324.a`: invalid reading `A3, D1` (expected e.g. `A3` or `A3, A4`)"
    );
    let ok = format!("{GOOD_ENTRY}    reading: A3, B12, C5\n");
    assert!(Ledger::parse(&ok, Path::new("ok.yaml")).is_ok());
}

#[test]
fn missing_field_is_rejected() {
    let text = GOOD_ENTRY.replace("    source: somewhere\n", "");
    let msg = parse_err(&text);
    assert!(msg.starts_with("bad.yaml:"), "{msg}");
    assert!(msg.contains("source"), "{msg}");
}

/// The words of `s` worth matching: lower-case runs of letters and digits, four or more long.
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 4)
        .map(str::to_lowercase)
        .collect()
}

/// The first and last line number a `source` names (`…, line 12`, `…, lines 12-14`).
fn cited_lines(source: &str) -> Option<(usize, usize)> {
    let at = source.rfind(", line")?;
    let nums: Vec<usize> = source[at..]
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    Some((*nums.first()?, *nums.last()?))
}

#[test]
fn every_source_is_a_shipped_spec_file_and_its_lines_hold_the_quote() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut checked = 0;
    for r in &real().requirements {
        let file = r.source.split(" §").next().unwrap();
        assert!(
            file.starts_with("docs/spec/"),
            "{}: source {:?} is not under docs/spec/",
            r.id,
            r.source
        );
        let text = std::fs::read_to_string(root.join(file))
            .unwrap_or_else(|e| panic!("{}: {file}: {e}", r.id));
        let Some((first, last)) = cited_lines(&r.source) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            first >= 1 && first <= last && last <= lines.len(),
            "{}: lines {first}-{last} of {file}, which has {}",
            r.id,
            lines.len()
        );
        // The quote (diff artefacts fixed, see `note`) is mostly the words of the cited lines.
        let window = words(&lines[first.saturating_sub(2)..(last + 1).min(lines.len())].join(" "));
        let quote = words(&r.text);
        let found = quote.iter().filter(|w| window.contains(w)).count();
        assert!(
            quote.is_empty() || found * 10 >= quote.len() * 7,
            "{}: only {found} of {} quoted words are in {file} lines {first}-{last}",
            r.id,
            quote.len()
        );
        checked += 1;
    }
    assert!(checked >= 130, "only {checked} sources name lines");
}
