//! The exchange log the runner records for failing scenarios: each frame in order with its
//! direction, peer, API, version, correlation id and decoded body; nothing for passing
//! scenarios; bounded (the last entries kept, the cut counted); secrets redacted and frames
//! holding them shown without hex.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use kipcheck::adapter::{MutantTarget, ReferenceTarget, Target};
use kipcheck::runner::{run_suite, Direction, ExchangeKind, RunOptions, ScenarioResult, Verdict};
use kipcheck::scenario::{load_dir, Scenario};
use serde_json::json;

fn scenarios(name: &str, files: &[(&str, String)]) -> Vec<Scenario> {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("report_exchange")
        .join(name);
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("area")).expect("mkdir");
    for (id, body) in files {
        std::fs::write(
            root.join("area").join(format!("{id}.yaml")),
            format!("# a comment line first\nid: {id}\n{body}"),
        )
        .expect("write");
    }
    load_dir(&root).unwrap_or_else(|e| panic!("{e:?}"))
}

fn run(target: Arc<dyn Target>, s: Vec<Scenario>) -> Vec<ScenarioResult> {
    let options = RunOptions {
        seed: 3,
        jobs: 1,
        scenario_timeout: Duration::from_secs(10),
        baseline: None,
        command: "kipcheck run --target reference".into(),
        min_judged: None,
        flaky: Default::default(),
        active_jobs: None,
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(run_suite(target, s, &options, &mut |_| {})).0
}

const HEAD: &str = "title: t\nkip: KIP-1324\ngrade: MUST\nroles: [broker]\nsteps:\n";
const SEND: &str = "  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }\n";
const PASS: &str = "  - expect_response: { body: { ErrorCode: NONE } }\n";
const FAIL: &str = "  - expect_response: { body: { ErrorCode: INVALID_REQUEST } }\n";

#[test]
fn a_failing_scenario_carries_each_frame_and_a_passing_one_nothing() {
    let results = run(
        Arc::new(ReferenceTarget),
        scenarios(
            "basic",
            &[
                ("f1", format!("{HEAD}{SEND}{FAIL}")),
                ("p1", format!("{HEAD}{SEND}{PASS}")),
            ],
        ),
    );
    let (f1, p1) = (&results[0], &results[1]);
    assert_eq!(p1.verdict, Verdict::Passed);
    assert_eq!(p1.exchange, None);
    assert_eq!(f1.verdict, Verdict::Failed);
    // The line of `id:`, after the comment.
    assert_eq!(f1.line, 2);
    let x = f1.exchange.as_ref().expect("an exchange");
    assert_eq!((x.cut_before, x.entries.len()), (0, 2));
    let (sent, got) = (&x.entries[0], &x.entries[1]);
    assert_eq!(
        (sent.seq, sent.direction, sent.kind, sent.peer.as_str()),
        (0, Direction::Sent, ExchangeKind::Request, "conn 0")
    );
    assert_eq!(
        (sent.api.as_deref(), sent.version, sent.correlation_id),
        (Some("ApiVersions"), Some(3), Some(1))
    );
    assert_eq!(
        sent.body,
        Some(json!({"ClientSoftwareName": "k", "ClientSoftwareVersion": "1"}))
    );
    // The whole frame as hex: size prefix, key 18, version 3, correlation id 1.
    let hex = sent.hex.as_deref().expect("hex");
    assert_eq!(hex.len(), 2 * sent.len);
    assert!(
        hex.starts_with(&format!("{:08x}00120003", sent.len - 4)),
        "{hex}"
    );
    assert!(hex[16..].starts_with("00000001"));
    assert_eq!(sent.hex_cut, 0);
    assert_eq!(
        (got.seq, got.direction, got.kind, got.peer.as_str()),
        (1, Direction::Received, ExchangeKind::Response, "conn 0")
    );
    assert_eq!(
        (got.api.as_deref(), got.version, got.correlation_id),
        (Some("ApiVersions"), Some(3), Some(1))
    );
    assert_eq!(got.body.as_ref().unwrap()["ErrorCode"], 0);
    assert!(got.note.is_none());
}

#[test]
fn the_log_keeps_the_last_entries_and_counts_the_cut() {
    let mut body = HEAD.to_owned();
    for _ in 0..40 {
        body.push_str(SEND);
        body.push_str(PASS);
    }
    body.push_str(SEND);
    body.push_str(FAIL);
    let results = run(
        Arc::new(ReferenceTarget),
        scenarios("cap", &[("long", body)]),
    );
    let x = results[0].exchange.as_ref().expect("an exchange");
    // 41 requests and 41 answers: the last 32 kept.
    assert_eq!(x.max_entries, 32);
    assert_eq!(x.entries.len(), 32);
    assert_eq!(x.cut_before, 82 - 32);
    assert_eq!(x.entries.first().unwrap().seq, 50);
    let last = x.entries.last().unwrap();
    assert_eq!((last.seq, last.correlation_id), (81, Some(41)));
}

fn suite_scenario(id: &str) -> Vec<Scenario> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    load_dir(&root)
        .expect("the suite loads")
        .into_iter()
        .filter(|s| s.file.id == id)
        .collect()
}

#[test]
fn secrets_are_redacted_in_bodies_and_their_frames_have_no_hex() {
    // A client that sends keys it does not define sends the secret values of the setup.
    let target = MutantTarget::from_name("sends-undefined-keys").expect("variant");
    let results = run(
        Arc::new(target),
        suite_scenario("c1324-sensitive-custom-key"),
    );
    assert_eq!(results[0].verdict, Verdict::Failed);
    let x = results[0].exchange.as_ref().expect("an exchange");
    let push = x
        .entries
        .iter()
        .find(|e| e.api.as_deref() == Some("PushConfig"))
        .expect("the PushConfig request");
    assert_eq!(
        (push.direction, push.peer.as_str()),
        (Direction::Received, "node 1")
    );
    let text = serde_json::to_string(x).unwrap();
    assert!(!text.contains("top-secret-value"), "{text}");
    assert!(!text.contains(&kipcheck::codec::to_hex(b"top-secret-value")));
    assert!(push
        .body
        .as_ref()
        .unwrap()
        .to_string()
        .contains("<redacted:"));
    assert_eq!(push.hex, None);
    assert_eq!(push.hex_cut, push.len);
    assert_eq!(
        push.note.as_deref(),
        Some("hex withheld: the frame holds a redacted value")
    );
    // The frames without secrets keep their hex.
    assert!(x
        .entries
        .iter()
        .any(|e| e.api.as_deref() == Some("ApiVersions") && e.hex.is_some()));
}

#[test]
fn a_scenario_cut_off_at_its_timeout_keeps_the_exchange_so_far() {
    let target = kipcheck::adapter::target_from_spec(
        "client-cmd:sleep 30 # {bootstrap}",
        &kipcheck::adapter::TargetOptions::default(),
    )
    .expect("a client-cmd target");
    let waits = "title: w\nkip: KIP-1324\ngrade: MUST\nroles: [client]\nsetup:\n  client:\n    type: consumer\n    config: {}\nsteps:\n  - start\n  - expect_request: { from: 1, api: ApiVersions, within_ms: 60000 }\n";
    let options = RunOptions {
        seed: 3,
        jobs: 1,
        scenario_timeout: Duration::from_millis(700),
        baseline: None,
        command: "kipcheck run".into(),
        min_judged: None,
        flaky: Default::default(),
        active_jobs: None,
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let s = scenarios("timeout", &[("w", waits.to_owned())]);
    let results = rt.block_on(run_suite(target, s, &options, &mut |_| {})).0;
    let r = &results[0];
    assert_eq!(r.verdict, Verdict::Errored);
    assert_eq!(
        r.failure.as_ref().unwrap().message,
        "the target did not finish within 700 ms"
    );
    let x = r.exchange.as_ref().expect("the exchange up to the timeout");
    assert_eq!(x.entries.len(), 1);
    assert_eq!(x.entries[0].kind, ExchangeKind::Action);
    assert_eq!(x.entries[0].note.as_deref(), Some("start"));
}
