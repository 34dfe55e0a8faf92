//! A `tcp://` target in the controller role against an in-process fake KRaft controller
//! that keeps registrations as a real one does: every BrokerRegistration kipcheck sends
//! carries the controller's cluster id (learnt from DescribeCluster, or the manifest's
//! `cluster_id`), and the brokers a scenario registered are unregistered when its session
//! ends, so the next scenario starts without them.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex};

use kipcheck::adapter::manifest::parse_manifest;
use kipcheck::adapter::{target_from_spec, Target, TargetOptions};
use kipcheck::codec::api_versions_response::ApiVersion;
use kipcheck::codec::limits::DEFAULT_MAX_FRAME_SIZE;
use kipcheck::codec::{
    decode_request_frame, encode_response_frame, ApiKey, ApiVersionsResponse,
    BrokerRegistrationResponse, DescribeClusterResponse, ErrorCode, ProvisionalNumbers,
    RequestBody, ResponseBody, ResponseHeader, UnregisterBrokerResponse,
};
use kipcheck::runner::{execute, Verdict};
use kipcheck::scenario::{Role, Scenario, ScenarioBuilder};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

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
            api_keys: [
                (ApiKey::API_VERSIONS, 0, 3),
                (ApiKey::DESCRIBE_CLUSTER, 0, 2),
                (ApiKey::BROKER_REGISTRATION, 0, 4),
                (ApiKey::UNREGISTER_BROKER, 0, 0),
            ]
            .into_iter()
            .map(|(k, min, max)| ApiVersion {
                api_key: k.0,
                min_version: min,
                max_version: max,
                ..Default::default()
            })
            .collect(),
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
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let state = Arc::new(Mutex::new(Fake {
        cluster_id: cluster_id.into(),
        describes: describes.into(),
        registered: BTreeSet::new(),
        refuse_unregister: 0,
        seen: Seen::default(),
    }));
    let shared = state.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut s, _)) = l.accept().await else {
                return;
            };
            let state = shared.clone();
            tokio::spawn(async move {
                loop {
                    let mut size = [0u8; 4];
                    if s.read_exact(&mut size).await.is_err() {
                        return;
                    }
                    let mut frame = size.to_vec();
                    frame.resize(4 + i32::from_be_bytes(size) as usize, 0);
                    if s.read_exact(&mut frame[4..]).await.is_err() {
                        return;
                    }
                    let req = decode_request_frame(
                        &frame,
                        DEFAULT_MAX_FRAME_SIZE,
                        &ProvisionalNumbers::default(),
                    )
                    .unwrap();
                    let body = answer(&state, &req.body);
                    let header = ResponseHeader {
                        correlation_id: req.header.correlation_id,
                        ..Default::default()
                    };
                    let out = encode_response_frame(&header, &body, req.header.request_api_version)
                        .unwrap();
                    if s.write_all(&out).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (addr, state)
}

async fn controller(addr: &str, manifest: Option<&str>) -> Arc<dyn Target> {
    let opts = TargetOptions {
        role: Some(Role::Controller),
        manifest: manifest.map(|m| parse_manifest(m, Path::new("m.yaml")).unwrap()),
        ..TargetOptions::default()
    };
    let spec = format!("tcp://{addr}");
    tokio::task::spawn_blocking(move || target_from_spec(&spec, &opts))
        .await
        .unwrap()
        .unwrap()
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
