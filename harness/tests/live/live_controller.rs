//! A `tcp://` target in the controller role against an in-process fake KRaft controller
//! that keeps registrations as a real one does: every BrokerRegistration kipcheck sends
//! carries the controller's cluster id (learnt from DescribeCluster, or the manifest's
//! `cluster_id`), and the brokers a scenario registered are unregistered when its session
//! ends, so the next scenario starts without them.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use crate::fake_controller;
use kipcheck::adapter::Target;
use kipcheck::codec::{
    ApiKey, ApiVersionsResponse, BrokerRegistrationResponse, DescribeClusterResponse, ErrorCode,
    RequestBody, ResponseBody, UnregisterBrokerResponse,
};
use kipcheck::runner::{execute, Verdict};
use kipcheck::scenario::{Role, Scenario, ScenarioBuilder};
use serde_json::json;

/// What the fake controller saw: every request body it decoded.
#[derive(Default)]
struct Seen {
    requests: Vec<RequestBody>,
}

/// The fake's state: its real cluster id, what DescribeCluster answers, who is registered.
struct Fake {
    cluster_id: String,
    describes: String,
    registered: BTreeSet<i32>,
    /// How many more UnregisterBroker requests to answer UNKNOWN_SERVER_ERROR.
    refuse_unregister: u32,
    seen: Seen,
}

fn answer(fake: &Mutex<Fake>, body: &RequestBody) -> ResponseBody {
    let mut f = fake.lock().unwrap();
    f.seen.requests.push(body.clone());
    match body {
        RequestBody::ApiVersions(_) => ResponseBody::ApiVersions(ApiVersionsResponse {
            api_keys: fake_controller::api_keys(&[
                (ApiKey::API_VERSIONS, 0, 3),
                (ApiKey::DESCRIBE_CLUSTER, 0, 2),
                (ApiKey::BROKER_REGISTRATION, 0, 4),
                (ApiKey::UNREGISTER_BROKER, 0, 0),
            ]),
            ..Default::default()
        }),
        RequestBody::DescribeCluster(d) => {
            assert_eq!(d.endpoint_type, Some(2), "controllers are described");
            ResponseBody::DescribeCluster(DescribeClusterResponse {
                cluster_id: f.describes.as_str().into(),
                controller_id: 1,
                ..Default::default()
            })
        }
        RequestBody::BrokerRegistration(r) => {
            let (code, epoch) = if r.cluster_id != f.cluster_id {
                (ErrorCode::INCONSISTENT_CLUSTER_ID, -1)
            } else {
                f.registered.insert(r.broker_id);
                (ErrorCode::NONE, 10)
            };
            ResponseBody::BrokerRegistration(BrokerRegistrationResponse {
                error_code: code.0,
                broker_epoch: epoch,
                ..Default::default()
            })
        }
        RequestBody::UnregisterBroker(u) => {
            let code = if f.refuse_unregister > 0 {
                f.refuse_unregister -= 1;
                ErrorCode::UNKNOWN_SERVER_ERROR
            } else if f.registered.remove(&u.broker_id) {
                ErrorCode::NONE
            } else {
                ErrorCode::BROKER_ID_NOT_REGISTERED
            };
            ResponseBody::UnregisterBroker(UnregisterBrokerResponse {
                error_code: code.0,
                ..Default::default()
            })
        }
        other => panic!("unexpected request {other:?}"),
    }
}

/// Starts the fake controller (formatted with `cluster_id`; DescribeCluster answers
/// `describes`).
async fn fake(cluster_id: &str, describes: &str) -> (String, Arc<Mutex<Fake>>) {
    let state = Arc::new(Mutex::new(Fake {
        cluster_id: cluster_id.into(),
        describes: describes.into(),
        registered: BTreeSet::new(),
        refuse_unregister: 0,
        seen: Seen::default(),
    }));
    let shared = state.clone();
    let addr = fake_controller::start(move |body| answer(&shared, body));
    (addr, state)
}

async fn controller(addr: &str, manifest: Option<&str>) -> Arc<dyn Target> {
    fake_controller::target(addr, manifest).await
}

fn registration(id: i32) -> serde_json::Value {
    json!({
        "BrokerId": id,
        "ClusterId": "kipcheck-cluster",
        "IncarnationId": "AAAAAAAAAAAAAAAAAAAAAQ",
        "Listeners": [{"Name": "PLAINTEXT", "Host": "localhost", "Port": 9093, "SecurityProtocol": 0}],
        "Features": [{"Name": "metadata.version", "MinSupportedVersion": 1, "MaxSupportedVersion": 40}],
    })
}

/// Registers broker 1 and expects `code`.
fn registers(id: &str, code: &str) -> Scenario {
    ScenarioBuilder::new(id, "registers broker 1", "KIP-1294")
        .role(Role::Controller)
        .send("BrokerRegistration", 4, registration(1))
        .expect_response(json!({"ErrorCode": code}))
        .build()
        .unwrap()
}

/// As `k1294-registration-*`: broker 1 is not registered, then registers.
fn starts_clean() -> Scenario {
    ScenarioBuilder::new("clean", "broker 1 is not registered yet", "KIP-1294")
        .role(Role::Controller)
        .send("UnregisterBroker", 0, json!({"BrokerId": 1}))
        .expect_response(json!({"ErrorCode": "BROKER_ID_NOT_REGISTERED"}))
        .send("BrokerRegistration", 4, registration(1))
        .expect_response(json!({"ErrorCode": "NONE", "BrokerEpoch": {"$not": -1}}))
        .build()
        .unwrap()
}

/// The ClusterId of every BrokerRegistration the fake saw.
fn sent_ids(state: &Mutex<Fake>) -> Vec<String> {
    state
        .lock()
        .unwrap()
        .seen
        .requests
        .iter()
        .filter_map(|r| match r {
            RequestBody::BrokerRegistration(b) => Some(b.cluster_id.to_string()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registrations_carry_the_cluster_id_describe_cluster_answers() {
    let (addr, state) = fake("MkU3OEVBNTcwNTJENDM2Qg", "MkU3OEVBNTcwNTJENDM2Qg").await;
    let t = controller(&addr, None).await;
    let s = registers("reg", "NONE");
    // The bound scenario (what the report shows) carries the real id.
    let bound = t.bind(&s).unwrap().unwrap();
    let kipcheck::scenario::Step::Send(send) = &bound.file.steps[0].value else {
        panic!("not a send");
    };
    assert_eq!(
        send.body.as_ref().unwrap()["ClusterId"],
        "MkU3OEVBNTcwNTJENDM2Qg"
    );
    let out = execute(t.as_ref(), &s, 1).await;
    assert_eq!(out.verdict, Verdict::Passed, "{:?}", out.failure);
    assert_eq!(sent_ids(&state), ["MkU3OEVBNTcwNTJENDM2Qg"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_manifest_cluster_id_wins() {
    let (addr, state) = fake("right-id", "wrong-id").await;
    let manifest = "software: Fake 1\nmetadata_version: { min: 7, max: 33, finalized: 33 }\ncluster_id: right-id\n";
    let t = controller(&addr, Some(manifest)).await;
    let out = execute(t.as_ref(), &registers("reg", "NONE"), 1).await;
    assert_eq!(out.verdict, Verdict::Passed, "{:?}", out.failure);
    assert_eq!(sent_ids(&state), ["right-id"]);
    // The manifest's id is taken without asking.
    assert!(!state
        .lock()
        .unwrap()
        .seen
        .requests
        .iter()
        .any(|r| matches!(r, RequestBody::DescribeCluster(_))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_scenario_starts_without_the_brokers_an_earlier_one_registered() {
    // Formatted with kipcheck's own id: only the registrations carried over can fail it.
    let (addr, state) = fake("kipcheck-cluster", "kipcheck-cluster").await;
    let t = controller(&addr, None).await;
    // Passed, then failed (a step failed after the registration), then clean each time.
    for first in [
        registers("reg", "NONE"),
        registers("reg", "INVALID_REGISTRATION"),
    ] {
        let out = execute(t.as_ref(), &first, 1).await;
        assert_ne!(out.verdict, Verdict::Errored, "{:?}", out.failure);
        let out = execute(t.as_ref(), &starts_clean(), 2).await;
        assert_eq!(out.verdict, Verdict::Passed, "{:?}", out.failure);
    }
    // The last scenario's broker is gone too once its session ended.
    assert!(state.lock().unwrap().registered.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_registration_is_not_unregistered() {
    // Formatted with another id than DescribeCluster answers: every registration is refused,
    // so kipcheck sends no UnregisterBroker of its own.
    let (addr, state) = fake("real", "other").await;
    let t = controller(&addr, None).await;
    let out = execute(t.as_ref(), &registers("reg", "INCONSISTENT_CLUSTER_ID"), 1).await;
    assert_eq!(out.verdict, Verdict::Passed, "{:?}", out.failure);
    let execute_again = execute(t.as_ref(), &registers("reg", "INCONSISTENT_CLUSTER_ID"), 1).await;
    assert_eq!(execute_again.verdict, Verdict::Passed);
    assert!(!state
        .lock()
        .unwrap()
        .seen
        .requests
        .iter()
        .any(|r| matches!(r, RequestBody::UnregisterBroker(_))));
}

#[tokio::test]
async fn on_a_single_threaded_runtime_the_next_session_waits_for_the_unregistration() {
    let (addr, state) = fake("kipcheck-cluster", "kipcheck-cluster").await;
    let t = controller(&addr, None).await;
    for _ in 0..3 {
        let out = execute(t.as_ref(), &registers("reg", "NONE"), 1).await;
        assert_eq!(out.verdict, Verdict::Passed, "{:?}", out.failure);
        let out = execute(t.as_ref(), &starts_clean(), 2).await;
        assert_eq!(out.verdict, Verdict::Passed, "{:?}", out.failure);
    }
    drop(state);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_that_cannot_be_unregistered_errors_the_next_scenario_until_it_can() {
    let (addr, state) = fake("kipcheck-cluster", "kipcheck-cluster").await;
    let t = controller(&addr, None).await;
    // The next two UnregisterBroker requests are refused.
    state.lock().unwrap().refuse_unregister = 2;
    let out = execute(t.as_ref(), &registers("reg", "NONE"), 1).await;
    assert_eq!(out.verdict, Verdict::Passed, "{:?}", out.failure);
    // Its end could not unregister broker 1; the next session retries, and is errored.
    let out = execute(t.as_ref(), &starts_clean(), 2).await;
    assert_eq!(out.verdict, Verdict::Errored);
    let message = out.failure.unwrap().message;
    assert!(
        message.contains(
            "UnregisterBroker of broker 1 (registered by a scenario) answered UNKNOWN_SERVER_ERROR"
        ),
        "{message}"
    );
    // The controller recovers: the next session unregisters it first and runs.
    let out = execute(t.as_ref(), &starts_clean(), 3).await;
    assert_eq!(out.verdict, Verdict::Passed, "{:?}", out.failure);
}

// ---------------------------------------------------------------------------------------------
// `kipcheck serve --role controller`: the reference controller served in-process on a real
// TCP port, judged live through `tcp://` with its generated manifest and `--metadata-log`.

mod served {
    use std::path::{Path, PathBuf};
    use std::sync::Arc;
    use std::time::Duration;

    use kipcheck::adapter::binding::bind;
    use kipcheck::adapter::manifest::{parse_manifest, TargetManifest};
    use kipcheck::adapter::metadata_log::{LogPayload, MetadataLogReader};
    use kipcheck::adapter::{Target, TargetOptions};
    use kipcheck::codec::MetadataRecordBody;
    use kipcheck::faulty::Fault;
    use kipcheck::runner::{execute, Verdict};
    use kipcheck::scenario::{load_file, Scenario};
    use kipcheck::serve::{
        render_manifest, served_manifest, ControllerOptions, ManifestFacts, ServeOptions, Server,
    };

    fn suite() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
    }

    fn scenario(rel: &str) -> Scenario {
        load_file(&suite().join(rel), &suite()).unwrap()
    }

    /// The served controller at `level` (with `fault`) and the manifest describing it.
    async fn serve(level: i16, fault: Option<Fault>) -> (Server, TargetManifest) {
        let c = ControllerOptions {
            metadata_version: level,
            fault,
            ..ControllerOptions::default()
        };
        let facts = ManifestFacts {
            software: "served".into(),
            finalized: level,
            persistence_level: 35,
            cluster_id: c.cluster_id.clone(),
            node_id: 1,
            failover: None,
        };
        let text = render_manifest(&served_manifest(&c.defs, &facts));
        let manifest = parse_manifest(&text, Path::new("served.yaml")).unwrap();
        let opts = ServeOptions {
            controller: Some(c),
            keep_records: false,
            ..ServeOptions::default()
        };
        (
            Server::start("127.0.0.1:0", opts, None).await.unwrap(),
            manifest,
        )
    }

    async fn target(server: &Server, manifest: TargetManifest) -> Arc<dyn Target> {
        let addr = server.local_addr().to_string();
        let opts = TargetOptions {
            manifest: Some(manifest),
            metadata_log: Some(addr.clone()),
            ..TargetOptions::default()
        };
        crate::fake_controller::tcp_controller(&addr, opts).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_served_reference_passes_bound_scenarios_judged_on_its_log() {
        let (server, manifest) = serve(30, None).await;
        let t = target(&server, manifest).await;
        // (scenario, steps judged): the log's record_appended observations among them.
        for (rel, judged) in [
            ("kip1294/k1294-floor-between-levels.yaml", 5),
            ("kip1294/k1294-iac-topic-invalid-config.yaml", 3),
            ("kip1294/k1294-alter-configs-invalid-config.yaml", 3),
            ("kip1294/k1294-envelope-iac-compliant-stored.yaml", 2),
            (
                "kip1294/k1294-registration-reject-invalid-registration.yaml",
                3,
            ),
            ("kip1326/k1326-ctrl-no-persist-below-level.yaml", 3),
        ] {
            let out = execute(t.as_ref(), &scenario(rel), 1).await;
            assert_eq!(out.verdict, Verdict::Passed, "{rel}: {:?}", out.failure);
            assert_eq!(out.steps_judged, judged, "{rel}");
        }
        server.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_moved_feature_is_set_back_so_the_scenario_passes_again() {
        // It moves group.version 0 -> 1 and expects that FeatureLevelRecord: run twice on one
        // controller, the second passes only if kipcheck set group.version back to 0 (the
        // manifest's `features`) when the first session ended.
        let (server, manifest) = serve(30, None).await;
        assert_eq!(manifest.features["group.version"].finalized, 0);
        let t = target(&server, manifest).await;
        let s = scenario("kip1294/k1294-audit-other-feature-not-audited.yaml");
        for run in 1..=2 {
            let out = execute(t.as_ref(), &s, run).await;
            assert_eq!(out.verdict, Verdict::Passed, "run {run}: {:?}", out.failure);
            assert_eq!(out.steps_judged, 3, "run {run}");
        }
        server.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_served_faulty_controller_is_caught_live() {
        // At 30 the floor is exact (an MV validator at 30): `<` for `<=` picks the one at 10.
        let (server, manifest) = serve(30, Some(Fault::MvFloorStrictlyBelow)).await;
        let t = target(&server, manifest).await;
        let s = scenario("kip1294/k1294-alter-configs-invalid-config.yaml");
        let out = execute(t.as_ref(), &s, 1).await;
        assert_eq!(out.verdict, Verdict::Failed, "{:?}", out.failure);
        server.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_metadata_log_is_served_over_fetch() {
        let (server, _) = serve(30, None).await;
        let addr = server.local_addr().to_string();
        let read = tokio::task::spawn_blocking(move || {
            let mut r = MetadataLogReader::connect(&addr).unwrap();
            r.read_from(0, 0, Duration::from_secs(5)).unwrap()
        })
        .await
        .unwrap();
        // The bootstrap level, then the colocated broker's registration.
        assert_eq!(read.high_watermark, 2);
        assert_eq!(read.next_offset, 2);
        let offsets: Vec<(i64, i32, i16)> = read
            .records
            .iter()
            .map(|r| (r.offset, r.leader_epoch, r.record_type))
            .collect();
        assert_eq!(offsets, [(0, 1, 12), (1, 1, 0)]);
        let LogPayload::Decoded(MetadataRecordBody::FeatureLevelRecord(f)) =
            &read.records[0].payload
        else {
            panic!("{:?}", read.records[0]);
        };
        assert_eq!((f.name.as_str(), f.feature_level), ("metadata.version", 30));
        let LogPayload::Decoded(MetadataRecordBody::RegisterBrokerRecord(b)) =
            &read.records[1].payload
        else {
            panic!("{:?}", read.records[1]);
        };
        assert_eq!(b.broker_id, 100);
        server.shutdown().await;
    }

    fn kipcheck(args: &[&str]) -> std::process::Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_kipcheck"))
            .args(args)
            .output()
            .unwrap()
    }

    #[test]
    fn the_printed_manifest_parses_and_binds() {
        let out = kipcheck(&[
            "serve",
            "--role",
            "controller",
            "--metadata-version",
            "35",
            "--cluster-id",
            "MkU3OEVBNTcwNTJENDM2Qg",
            "--print-manifest",
        ]);
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let m = parse_manifest(&text, Path::new("printed.yaml")).unwrap();
        assert_eq!(m.metadata_version.finalized, 35);
        assert_eq!(m.static_config_persistence_level, Some(35));
        assert_eq!(m.cluster_id.as_deref(), Some("MkU3OEVBNTcwNTJENDM2Qg"));
        // The served controller moves between every level of its range, either way.
        let moves = m.metadata_version.moves.as_ref().expect("moves printed");
        assert_eq!(moves.levels.len(), 49);
        assert!(!moves.levels.contains(&35));
        assert_eq!(
            moves.downgrade,
            kipcheck::adapter::manifest::Downgrade::Unsafe
        );
        // An UpdateFeatures scenario binds onto those levels.
        let s = scenario("kip1294/k1294-audit-fixed-then-upgrade.yaml");
        assert!(bind(&s, Some(&m)).unwrap().is_some(), "bound");
        let s = scenario("kip1294/k1294-floor-between-levels.yaml");
        let bound = bind(&s, Some(&m)).unwrap().unwrap();
        let c = bound.file.setup.controller.unwrap();
        assert_eq!(c.metadata_version, 35);
        let levels: Vec<(String, i16)> = c
            .mv_validators
            .iter()
            .map(|v| (v.key.clone(), v.level))
            .collect();
        assert_eq!(
            levels,
            [
                ("log.segment.bytes".into(), 30),
                ("log.segment.bytes".into(), 45)
            ]
        );
    }

    #[test]
    fn a_broker_fault_is_refused_with_exit_2() {
        let out = kipcheck(&["serve", "--role", "controller", "--fault", "no-size-check"]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(
            err,
            "kipcheck: --fault no-size-check is not a controller fault (Broker: no \
             `client.config.max.bytes` check at all.)\n"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The `failover` step on a live controller: the manifest's `failover:` command, run for the
// step. `kipcheck serve --role controller --write-manifest FILE` (a child process) fails over
// on SIGHUP and writes the entry that triggers it.

mod failover;
