//! Shared fixture for the report tests: one synthetic run covering every verdict, two KIP
//! areas, scenario events out of id order, raw bytes and an HTML injection attempt; plus a
//! tiny snapshot helper over `harness/testdata/report/` (`KIPCHECK_BLESS=1` rewrites).

use std::path::PathBuf;

use kipcheck::runner::{
    Direction, Exchange, ExchangeEntry, ExchangeKind, Failure, Grade, Mismatch, RunEvent, RunInfo,
    ScenarioResult, Summary, UnsupportedCause, Verdict,
};

/// The id of the failed scenario, whose title carries a `<script>` injection.
pub(crate) const FAILED_ID: &str = "size-max-plus-one";

pub(crate) const EXPECTED_YAML: &str = "\
ClientInstanceId: AAAAAAAAAAAAAAAAAAAAAA
Configs:
  - ConfigKey: client.id
    ConfigValue: app-1
  - ConfigKey: sasl.jaas.config
    ConfigValue: <redacted:3f2a9c1b>
  - ConfigKey: linger.ms
    ConfigValue: \"5\"
  - ConfigKey: max.poll.records
    ConfigValue: \"500\"
";

/// The actual body: one value differs, and `ClientVersion` is a field the pattern does not
/// name (the subset match ignores it).
pub(crate) const ACTUAL_YAML: &str = "\
ClientInstanceId: AAAAAAAAAAAAAAAAAAAAAA
ClientVersion: 4.4.0
Configs:
  - ConfigKey: client.id
    ConfigValue: app-1
  - ConfigKey: sasl.jaas.config
    ConfigValue: <redacted:3f2a9c1b>
  - ConfigKey: linger.ms
    ConfigValue: \"5\"
  - ConfigKey: max.poll.records
    ConfigValue: \"5000\"
";

/// 21 bytes: two hex rows, with `<`, `>` and `&` in the ASCII column.
pub(crate) const RAW_HEX: &str = "000000170000000d00056b6970636865636b3c3e26";

fn result(id: &str, area: &str, kip: &str, verdict: Verdict) -> ScenarioResult {
    ScenarioResult {
        id: id.to_owned(),
        title: format!("Title of {id}"),
        kip: kip.to_owned(),
        area: area.to_owned(),
        path: format!("scenarios/{area}/{id}.yaml"),
        grade: Grade::Must,
        tags: vec![],
        requirements: vec![],
        verdict,
        unsupported_reason: None,
        unsupported_causes: vec![],
        steps_judged: if verdict == Verdict::Unsupported || verdict == Verdict::Errored {
            0
        } else {
            2
        },
        steps_not_observed: 0,
        failure: None,
        duration_ms: 1.5,
        simulated_ms: 1000,
        timings: vec![],
        reproduce: format!("kipcheck run --target reference --seed 42 --id {id}"),
        line: 2,
        exchange: None,
        attempts: 1,
        flaky: false,
        quarantined: None,
        endpoint: None,
    }
}

/// The failed scenario's exchange: one entry cut, an action, the request kipcheck answered
/// and its answer (with an `<` to escape).
pub(crate) fn exchange() -> Exchange {
    let entry = |seq, at_ms, direction, kind, peer: &str| ExchangeEntry {
        seq,
        at_ms,
        direction,
        kind,
        peer: peer.into(),
        api: None,
        version: None,
        correlation_id: None,
        body: None,
        note: None,
        len: 0,
        hex: None,
        hex_cut: 0,
    };
    let mut connect = entry(1, 0, Direction::Sent, ExchangeKind::Action, "node 1");
    connect.note = Some("connect".into());
    let mut request = entry(2, 5, Direction::Received, ExchangeKind::Request, "node 1");
    request.api = Some("PushConfig".into());
    request.version = Some(0);
    request.correlation_id = Some(7);
    request.body = Some(
        serde_json::json!({"Configs": [{"ConfigKey": "max.poll.records", "ConfigValue": "5000"}]}),
    );
    request.len = 21;
    request.hex = Some(RAW_HEX.into());
    let mut response = entry(3, 6, Direction::Sent, ExchangeKind::Response, "node 1");
    response.api = Some("PushConfig".into());
    response.version = Some(0);
    response.correlation_id = Some(7);
    response.body = Some(serde_json::json!({"ErrorCode": 37, "ErrorMessage": "a <b>"}));
    response.len = 600;
    response.hex = Some("00".repeat(512));
    response.hex_cut = 88;
    Exchange {
        entries: vec![connect, request, response],
        cut_before: 1,
        max_entries: 32,
        max_body_bytes: 4096,
        max_frame_bytes: 512,
    }
}

/// The six results, one per verdict, in id order.
pub(crate) fn results() -> Vec<ScenarioResult> {
    let client = "kip1324-client";
    let validation = "kip1294-validation";

    let mut passed = result(
        "push-once-per-instance",
        client,
        "KIP-1324",
        Verdict::Passed,
    );
    passed.tags = vec!["reconnect".into()];
    passed.requirements = vec!["KIP-1324-TP-07".into()];
    passed.duration_ms = 1.25;
    passed.simulated_ms = 120_000;

    let mut failed = result(FAILED_ID, client, "KIP-1324", Verdict::Failed);
    failed.title = "Rejects <script>alert('x')</script> & oversize pushes".into();
    failed.tags = vec!["size".into(), "boundary".into()];
    failed.requirements = vec!["KIP-1324-TP-03".into(), "KIP-1324-MUST-12".into()];
    failed.duration_ms = 2.5;
    failed.simulated_ms = 3500;
    failed.failure = Some(Failure {
        step: Some(2),
        location: "scenarios/kip1324-client/size-max-plus-one.yaml:14:5".into(),
        step_yaml: "expect:\n  message: PushConfigsRequest\n  version: 0\n".into(),
        message: "body.Configs[3].ConfigValue: expected \"500\", actual \"5000\"".into(),
        expected: Some(EXPECTED_YAML.into()),
        actual: Some(ACTUAL_YAML.into()),
        mismatches: vec![
            Mismatch {
                path: "version".into(),
                expected: "0".into(),
                actual: "1".into(),
            },
            Mismatch {
                path: "body.Configs[3].ConfigValue".into(),
                expected: "\"500\"".into(),
                actual: "\"5000\"".into(),
            },
        ],
        raw_hex: Some(RAW_HEX.into()),
    });
    failed.exchange = Some(exchange());

    let mut unsupported = result(
        "streams-single-handshake",
        client,
        "KIP-1324",
        Verdict::Unsupported,
    );
    unsupported.grade = Grade::Should;
    unsupported.unsupported_reason = Some("target lacks capability: client type streams".into());
    unsupported.unsupported_causes = vec![UnsupportedCause::Target(
        "target lacks capability: client type streams".into(),
    )];
    unsupported.simulated_ms = 0;
    unsupported.duration_ms = 0.25;

    let mut expected_failure = result(
        "floor-below-lowest",
        validation,
        "KIP-1294",
        Verdict::ExpectedFailure,
    );
    expected_failure.failure = Some(Failure {
        step: Some(0),
        location: "scenarios/kip1294-validation/floor-below-lowest.yaml:9:3".into(),
        step_yaml: "expect:\n  error_code: INVALID_CONFIG\n".into(),
        message: "error_code: expected INVALID_CONFIG, actual NONE".into(),
        expected: Some("error_code: INVALID_CONFIG\n".into()),
        actual: Some("error_code: NONE\n".into()),
        mismatches: vec![Mismatch {
            path: "error_code".into(),
            expected: "INVALID_CONFIG".into(),
            actual: "NONE".into(),
        }],
        raw_hex: None,
    });

    let unexpected_pass = result(
        "audit-upgrade-static",
        validation,
        "KIP-1294",
        Verdict::UnexpectedPass,
    );

    let mut errored = result(
        "registration-rejected",
        validation,
        "KIP-1294",
        Verdict::Errored,
    );
    errored.failure = Some(Failure {
        step: None,
        location: "scenarios/kip1294-validation/registration-rejected.yaml:1:1".into(),
        step_yaml: String::new(),
        message: "target crashed: connection reset by peer".into(),
        expected: None,
        actual: None,
        mismatches: vec![],
        raw_hex: None,
    });

    let mut all = vec![
        passed,
        failed,
        unsupported,
        expected_failure,
        unexpected_pass,
        errored,
    ];
    all.sort_by(|a, b| a.id.cmp(&b.id));
    all
}

pub(crate) fn run_info() -> RunInfo {
    RunInfo {
        target: "reference".into(),
        seed: 42,
        selected: 6,
        command: "kipcheck run --target reference --seed 42".into(),
        min_judged: None,
        kipcheck_version: "0.1.0".into(),
        started_unix_ms: 1_764_590_400_000,
        hostname: "ci-runner-7".into(),
    }
}

pub(crate) fn summary() -> Summary {
    Summary {
        passed: 1,
        failed: 1,
        unsupported: 1,
        expected_failures: 1,
        unexpected_passes: 1,
        errored: 1,
        total: 6,
        judged: 4,
        steps_judged: 8,
        steps_not_observed: 0,
        unsupported_by_cause: [(
            "declined: target lacks capability: client type streams".to_owned(),
            1,
        )]
        .into_iter()
        .collect(),
        ..Summary::default()
    }
}

/// The event stream: scenarios start and finish interleaved, not in id order.
pub(crate) fn events() -> Vec<RunEvent> {
    let by_id = |id: &str| {
        results()
            .into_iter()
            .find(|r| r.id == id)
            .expect("fixture id")
    };
    let order = [
        "streams-single-handshake",
        FAILED_ID,
        "registration-rejected",
        "push-once-per-instance",
        "floor-below-lowest",
        "audit-upgrade-static",
    ];
    let mut events = vec![RunEvent::Started(run_info())];
    for pair in order.chunks(2) {
        for id in pair {
            events.push(RunEvent::ScenarioStarted { id: (*id).into() });
        }
        for id in pair.iter().rev() {
            events.push(RunEvent::ScenarioFinished(Box::new(by_id(id))));
        }
    }
    events.push(RunEvent::Finished {
        summary: summary(),
        duration_ms: 12.5,
        simulated_ms: results().iter().map(|r| r.simulated_ms).sum(),
    });
    events
}

/// Compares `actual` with `harness/testdata/report/<name>`; `KIPCHECK_BLESS=1` rewrites it.
pub(crate) fn assert_snapshot(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/report")
        .join(name);
    if std::env::var_os("KIPCHECK_BLESS").is_some_and(|v| !v.is_empty()) {
        std::fs::write(&path, actual).expect("write snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("read {}: {e} (run with KIPCHECK_BLESS=1)", path.display()));
    if expected != actual {
        let diff = similar::TextDiff::from_lines(expected.as_str(), actual)
            .unified_diff()
            .context_radius(3)
            .header("expected (snapshot)", "actual")
            .to_string();
        panic!(
            "{} differs from the output (KIPCHECK_BLESS=1 to accept):\n{diff}",
            path.display()
        );
    }
}

/// A fresh, empty directory under cargo's per-target test tmpdir.
pub(crate) fn fresh_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
