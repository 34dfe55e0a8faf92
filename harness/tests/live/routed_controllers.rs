//! Two live controllers at two `metadata.version` levels in one run (`kipcheck run|list
//! --target tcp://A --target tcp://B --role controller --target-manifest F`): two in-process
//! fake KRaft controllers, one at 33 (below the KIP-1326 persistence level 35) and one that
//! advertises 35 as its finalized level in ApiVersions (overriding the manifest's 33). Each
//! scenario runs on the first controller that binds it, and the one report names the
//! endpoint; the combinations of flags that cannot be routed are usage errors (exit 2). And
//! against `kipcheck serve --role controller`: what one scenario set is gone before the next.

use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::cli_support::{code, kipcheck, suite, text};
use crate::fake_controller;
use kipcheck::codec::api_versions_response::FinalizedFeatureKey;
use kipcheck::codec::{
    ApiKey, ApiVersionsResponse, BrokerRegistrationResponse, ErrorCode, RequestBody, ResponseBody,
    UnregisterBrokerResponse,
};

const CLUSTER: &str = "route-cluster";

/// One manifest for both controllers: it says 33; the second one's ApiVersions says 35.
const MANIFEST: &str = "software: Route Test Controller\nmetadata_version: { min: 7, max: 36, finalized: 33 }\nstatic_config_persistence_level: 35\ncluster_id: route-cluster\n";

/// Broker ids each fake registered (in order).
type Registered = Arc<Mutex<Vec<i32>>>;

/// What a fake advertises: its finalized metadata.version level and FinalizedFeaturesEpoch.
#[derive(Clone, Copy)]
struct Finalized {
    level: i16,
    epoch: i64,
}

fn answer(f: Finalized, registered: &Registered, body: &RequestBody) -> ResponseBody {
    match body {
        RequestBody::ApiVersions(_) => ResponseBody::ApiVersions(ApiVersionsResponse {
            api_keys: fake_controller::api_keys(&[
                (ApiKey::API_VERSIONS, 0, 3),
                (ApiKey::BROKER_REGISTRATION, 0, 4),
                (ApiKey::UNREGISTER_BROKER, 0, 0),
            ]),
            finalized_features_epoch: Some(f.epoch),
            finalized_features: Some(vec![FinalizedFeatureKey {
                name: "metadata.version".into(),
                max_version_level: f.level,
                min_version_level: f.level,
                ..Default::default()
            }]),
            ..Default::default()
        }),
        RequestBody::BrokerRegistration(r) => {
            let code = if r.cluster_id == CLUSTER {
                registered.lock().unwrap().push(r.broker_id);
                ErrorCode::NONE
            } else {
                ErrorCode::INCONSISTENT_CLUSTER_ID
            };
            ResponseBody::BrokerRegistration(BrokerRegistrationResponse {
                error_code: code.0,
                broker_epoch: 10,
                ..Default::default()
            })
        }
        RequestBody::UnregisterBroker(_) => {
            ResponseBody::UnregisterBroker(UnregisterBrokerResponse::default())
        }
        other => panic!("unexpected request {other:?}"),
    }
}

/// A fake controller whose ApiVersions finalizes metadata.version `level`.
fn controller(level: i16) -> (String, Registered) {
    controller_with(Finalized { level, epoch: 4 })
}

fn controller_with(f: Finalized) -> (String, Registered) {
    let registered = Registered::default();
    let shared = registered.clone();
    let addr = fake_controller::start(move |body| answer(f, &shared, body));
    (addr, registered)
}

/// Registers broker `id` at metadata.version `level`.
fn registers(id: i32, level: i16) -> String {
    format!(
        "title: registers at {level}\nkip: KIP-1326\ngrade: MUST\nroles: [controller]\nrequires: [metadata_version]\nsetup:\n  controller:\n    metadata_version: {level}\nsteps:\n  - send: {{ api: BrokerRegistration, version: 4, body: {{ BrokerId: {id}, ClusterId: kipcheck-cluster, IncarnationId: AAAAAAAAAAAAAAAAAAAAAQ, Listeners: [ {{ Name: PLAINTEXT, Host: localhost, Port: 9093, SecurityProtocol: 0 }} ], Features: [ {{ Name: metadata.version, MinSupportedVersion: 1, MaxSupportedVersion: 40 }} ] }} }}\n  - expect_response: {{ body: {{ ErrorCode: NONE }} }}\n"
    )
}

/// Needs no level: the first controller runs it.
const PLAIN: &str = "title: api versions\nkip: KIP-1326\ngrade: MUST\nroles: [controller]\nsteps:\n  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }\n  - expect_response: { body: { ErrorCode: NONE } }\n";

/// Injects a DOUBLE config the manifest lacks: neither controller binds it.
const NOWHERE: &str = "title: injects a config\nkip: KIP-1294\ngrade: MUST\nroles: [controller]\nrequires: [metadata_version]\nsetup:\n  controller:\n    metadata_version: 34\n    definitions:\n      my.ratio: { ty: DOUBLE, default: \"0.5\", validator: { at_least: 0.1 }, report_policy: DEFAULT }\nsteps:\n  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }\n  - expect_response: { body: { ErrorCode: NONE } }\n";

fn scenarios(name: &str) -> std::path::PathBuf {
    suite(
        "routed_controllers",
        name,
        &[
            ("below", registers(1, 34)),
            ("at", registers(2, 35)),
            ("plain", PLAIN.to_owned()),
            ("nowhere", NOWHERE.to_owned()),
        ],
    )
}

fn write_manifest(d: &Path, text: &str) -> String {
    let p = d.join("controller.yaml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn each_scenario_runs_on_the_controller_at_the_level_it_needs_in_one_report() {
    let (a, on_a) = controller(33);
    let (b, on_b) = controller(35);
    let d = scenarios("run");
    let manifest = write_manifest(&d, MANIFEST);
    let (ta, tb) = (format!("tcp://{a}"), format!("tcp://{b}"));
    let out = kipcheck()
        .args(["run", "--role", "controller", "--seed", "3", "--verbose"])
        .args([
            "--target",
            &ta,
            "--target",
            &tb,
            "--target-manifest",
            &manifest,
        ])
        .args(["--scenarios", d.join("scenarios").to_str().unwrap()])
        .args(["--report-dir", d.join("reports").to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(code(&out), 0, "{stdout}{}", text(&out.stderr));
    let name = format!("{ta} + {tb} (controllers)");
    assert!(stdout.contains(&format!("target {name}")), "{stdout}");
    // The controller at 33 registered the broker below the level, the one at 35 the other.
    assert_eq!(*on_a.lock().unwrap(), vec![1]);
    assert_eq!(*on_b.lock().unwrap(), vec![2]);

    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("reports/results.json")).unwrap())
            .unwrap();
    assert_eq!(results["target"], name.as_str());
    let rows: Vec<(String, String, Option<String>)> = results["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_owned(),
                s["verdict"].as_str().unwrap().to_owned(),
                s["endpoint"].as_str().map(str::to_owned),
            )
        })
        .collect();
    let row = |id: &str, verdict: &str, e: Option<&str>| {
        (id.to_owned(), verdict.to_owned(), e.map(str::to_owned))
    };
    assert_eq!(
        rows,
        vec![
            row("at", "passed", Some(&tb)),
            row("below", "passed", Some(&ta)),
            row("nowhere", "unsupported", None),
            row("plain", "passed", Some(&ta)),
        ]
    );
    let nowhere = &results["scenarios"][2];
    assert_eq!(
        nowhere["unsupported_reason"],
        format!("no target runs it: {ta}, {tb}: the manifest (Route Test Controller) declares no broker config of type DOUBLE with a static validator to bind my.ratio to").as_str(),
        "{nowhere}"
    );
    let reproduce = results["scenarios"][0]["reproduce"].as_str().unwrap();
    for kept in [
        format!("kipcheck run --target {ta} --target {tb} --role controller "),
        format!(" --target-manifest {manifest} --seed 3 --id at"),
    ] {
        assert!(reproduce.contains(&kept), "{reproduce}");
    }
    assert!(stdout.contains(&format!(" at on {tb} [")), "{stdout}");
    let junit = std::fs::read_to_string(d.join("reports/junit.xml")).unwrap();
    assert!(
        junit.contains(&format!(r#"<property name="endpoint" value="{tb}"/>"#)),
        "{junit}"
    );
}

#[test]
fn list_names_the_controller_each_scenario_would_run_on() {
    let (a, _) = controller(33);
    let (b, _) = controller(35);
    let d = scenarios("list");
    let manifest = write_manifest(&d, MANIFEST);
    let (ta, tb) = (format!("tcp://{a}"), format!("tcp://{b}"));
    let out = kipcheck()
        .args(["list", "--role", "controller", "--json"])
        .args([
            "--target",
            &ta,
            "--target",
            &tb,
            "--target-manifest",
            &manifest,
        ])
        .args(["--scenarios", d.join("scenarios").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let endpoints: Vec<(&str, Option<&str>)> = plan["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_str().unwrap(), s["endpoint"].as_str()))
        .collect();
    assert_eq!(
        endpoints,
        vec![
            ("at", Some(tb.as_str())),
            ("below", Some(ta.as_str())),
            ("nowhere", None),
            ("plain", Some(ta.as_str())),
        ]
    );
    assert_eq!(plan["would_run"], 3);
}

/// `kipcheck run ARGS` against the suite in `d`: (exit code, stderr).
fn run_with(d: &Path, args: &[&str]) -> (i32, String) {
    let out = kipcheck()
        .arg("run")
        .args(["--scenarios", d.join("scenarios").to_str().unwrap()])
        .args(["--report-dir", d.join("reports").to_str().unwrap()])
        .args(args)
        .output()
        .unwrap();
    (code(&out), text(&out.stderr))
}

#[test]
fn several_targets_that_cannot_be_routed_are_usage_errors() {
    let (a, b) = ("tcp://127.0.0.1:9", "tcp://127.0.0.1:10");
    let d = scenarios("usage");
    for (args, why) in [
        (
            vec!["--target", a, "--target", "reference", "--role", "controller"],
            "--target given 2 times: only tcp:// controllers are routed between (each scenario runs on the one whose metadata.version it needs); reference is not tcp://",
        ),
        (
            vec!["--target", a, "--target", b],
            "--target given 2 times: several targets are live controllers at different metadata.version levels, so they need --role controller",
        ),
        (
            vec!["--target", a, "--target", b, "--role", "controller", "--metadata-log", "127.0.0.1:9"],
            "--metadata-log given once for 2 --target(s): give it once per --target, in the same order, or not at all",
        ),
        (
            vec!["--target", a, "--target", b, "--role", "controller", "--target-manifest", "x", "--target-manifest", "y", "--target-manifest", "z"],
            "--target-manifest given 3 times for 2 --target(s): give it once (for every target) or once per --target, in the same order",
        ),
    ] {
        let (code, stderr) = run_with(&d, &args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(stderr, format!("kipcheck: {why}\n"), "{args:?}");
    }
}

#[test]
fn a_finalized_level_outside_the_manifest_is_a_usage_error() {
    let (a, _) = controller(33);
    let (c, _) = controller(40);
    let d = scenarios("out_of_range");
    let manifest = write_manifest(&d, MANIFEST);
    let (code, stderr) = run_with(
        &d,
        &[
            "--role",
            "controller",
            "--target",
            &format!("tcp://{a}"),
            "--target",
            &format!("tcp://{c}"),
            "--target-manifest",
            &manifest,
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        stderr,
        format!("kipcheck: target setup failed: tcp://{c} runs at metadata.version 40 (the finalized level its ApiVersions answer advertises), outside the range 7..=36 its --target-manifest (Route Test Controller) declares\n")
    );
}

#[test]
fn finalized_features_with_an_unknown_epoch_leave_the_manifest_level() {
    // FinalizedFeatures are "valid only if FinalizedFeaturesEpoch >= 0": this controller's 35
    // is not its level, so it runs at the manifest's 33 and the at-level scenario has no home.
    let (a, _) = controller_with(Finalized {
        level: 35,
        epoch: -1,
    });
    let d = scenarios("unknown_epoch");
    let manifest = write_manifest(&d, MANIFEST);
    let out = kipcheck()
        .args(["list", "--role", "controller", "--json", "--id", "at"])
        .args([
            "--target",
            &format!("tcp://{a}"),
            "--target-manifest",
            &manifest,
        ])
        .args(["--scenarios", d.join("scenarios").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        plan["scenarios"][0]["unsupported_reason"],
        "the scenario registers at metadata.version 35 (at or above the persistence level 35); the controller runs at 33, below its persistence level 35"
    );
}

#[test]
fn a_finding_names_the_controller_it_came_from() {
    let (a, _) = controller(33);
    let (b, _) = controller(35);
    let refused = registers(2, 35).replace("ErrorCode: NONE", "ErrorCode: INVALID_REGISTRATION");
    let d = suite("routed_controllers", "finding", &[("refused", refused)]);
    let manifest = write_manifest(&d, MANIFEST);
    let (ta, tb) = (format!("tcp://{a}"), format!("tcp://{b}"));
    let out = kipcheck()
        .args(["run", "--role", "controller", "--seed", "3"])
        .args([
            "--target",
            &ta,
            "--target",
            &tb,
            "--target-manifest",
            &manifest,
        ])
        .args(["--scenarios", d.join("scenarios").to_str().unwrap()])
        .args(["--report-dir", d.join("reports").to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(code(&out), 1, "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains(&format!(" refused on {tb} [")), "{stdout}");
    let summary = std::fs::read_to_string(d.join("reports/summary.md")).unwrap();
    assert!(summary.contains(&format!("\n  - on `{tb}`\n")), "{summary}");
}

/// Kills the served controller when the test ends, however it ends.
struct Served(std::process::Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `kipcheck serve --role controller` at `level` on a free port: the process and its address.
fn serve_controller(level: &str) -> (Served, String) {
    use std::io::BufRead;
    let mut child = kipcheck()
        .args(["serve", "--role", "controller", "--listen", "127.0.0.1:0"])
        .args(["--metadata-version", level])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("kipcheck serve starts");
    let stdout = child.stdout.take().expect("piped");
    let served = Served(child);
    let mut line = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the listening line");
    let addr = line
        .trim()
        .strip_prefix("kipcheck serve: listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    (served, addr)
}

/// Two scenarios that set the same broker config to the same value and each expect its
/// ConfigRecord: against a live controller the second passes only because kipcheck deleted
/// the first one's config when its session ended (before, the value was already there, no
/// record was written, and the second failed in a full run while passing alone).
#[test]
fn a_config_set_by_one_scenario_is_gone_before_the_next() {
    let (_served, addr) = serve_controller("30");
    let dir = std::env::temp_dir().join(format!("kipcheck-cleanup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = dir.join("manifest.yaml");
    let out = kipcheck()
        .args(["serve", "--role", "controller", "--metadata-version", "30"])
        .arg("--print-manifest")
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    std::fs::write(&manifest, &out.stdout).unwrap();
    let reports = dir.join("reports");
    let out = kipcheck()
        .args(["run", "--role", "controller", "--jobs", "1", "--seed", "1"])
        .args([
            "--target",
            &format!("tcp://{addr}"),
            "--metadata-log",
            &addr,
        ])
        .arg("--target-manifest")
        .arg(&manifest)
        .args(["--id", "k1294-between-validator-lower-bound"])
        .args(["--id", "k1294-between-validator-upper-bound"])
        .arg("--report-dir")
        .arg(&reports)
        .output()
        .unwrap();
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(reports.join("results.json")).unwrap())
            .unwrap();
    let verdicts: Vec<(String, String)> = results["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_owned(),
                s["verdict"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            (
                "k1294-between-validator-lower-bound".into(),
                "passed".into()
            ),
            (
                "k1294-between-validator-upper-bound".into(),
                "passed".into()
            ),
        ],
        "{}",
        text(&out.stdout)
    );
    assert_eq!(code(&out), 0);
    let _ = std::fs::remove_dir_all(&dir);
}
