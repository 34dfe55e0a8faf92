//! The `tcp://` target over real sockets: capability discovery from ApiVersions, scenarios
//! run against `kipcheck serve` as a live broker, and a misbehaving peer (malformed answer,
//! hang, refused connection) becomes a verdict naming what went wrong, never a crash.

use std::sync::Arc;
use std::time::Duration;

use kipcheck::adapter::{target_from_spec, Target, TargetOptions};
use kipcheck::runner::{execute, Verdict};
use kipcheck::scenario::{BrokerSetup, Capability, Role, ScenarioBuilder, Setup};
use kipcheck::serve::{ServeOptions, ServeScript, Server};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

async fn target(spec: String, caps: Vec<Capability>) -> Arc<dyn Target> {
    let opts = TargetOptions {
        role: Some(Role::Broker),
        capabilities: caps,
        ..TargetOptions::default()
    };
    // The probe is blocking I/O: keep it off the runtime's workers.
    tokio::task::spawn_blocking(move || target_from_spec(&spec, &opts))
        .await
        .unwrap()
        .unwrap()
}

fn no_policy() -> ServeOptions {
    ServeOptions {
        script: ServeScript {
            broker: BrokerSetup {
                policy: None,
                ..Default::default()
            },
            ..Default::default()
        },
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capabilities_follow_the_api_versions_answer() {
    let with = Server::start("127.0.0.1:0", ServeOptions::default(), None)
        .await
        .unwrap();
    let t = target(format!("tcp://{}", with.local_addr()), vec![]).await;
    let caps = t.capabilities();
    assert_eq!(caps.roles, vec![Role::Broker]);
    assert_eq!(caps.capabilities, vec![]);
    let t = target(
        format!("tcp://{}", with.local_addr()),
        vec![Capability::PolicyControl, Capability::VirtualClock],
    )
    .await;
    // Declared knobs are taken; a virtual clock never is.
    assert_eq!(
        t.capabilities().capabilities,
        vec![Capability::PolicyControl]
    );
    // A broker without PushConfig is known to have no policy.
    let without = Server::start("127.0.0.1:0", no_policy(), None)
        .await
        .unwrap();
    let t = target(format!("tcp://{}", without.local_addr()), vec![]).await;
    assert_eq!(
        t.capabilities().capabilities,
        vec![Capability::PolicyControl]
    );
}

fn push_config_sent_anyway() -> ScenarioBuilder {
    ScenarioBuilder::new("old-broker", "PushConfig to a broker without it", "KIP-1324")
        .role(Role::Broker)
        .requires(Capability::PolicyControl)
        .setup(Setup {
            broker: Some(BrokerSetup {
                policy: None,
                ..Default::default()
            }),
            ..Default::default()
        })
        .send(
            "ApiVersions",
            3,
            json!({"ClientSoftwareName": "k", "ClientSoftwareVersion": "1"}),
        )
        .expect_response(json!({"ErrorCode": "NONE", "ApiKeys": {"$not": {"$contains": [{"ApiKey": "PushConfig"}]}}}))
        .send("PushConfig", 0, json!({"Configs": []}))
        .step(serde_saphyr::from_str("expect_close: {}").unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn older_broker_scenario_runs_against_a_live_broker() {
    let srv = Server::start("127.0.0.1:0", no_policy(), None)
        .await
        .unwrap();
    let t = target(format!("tcp://{}", srv.local_addr()), vec![]).await;
    let s = push_config_sent_anyway().build().unwrap();
    let out = execute(t.as_ref(), &s, 1).await;
    assert_eq!(out.verdict, Verdict::Passed, "{:?}", out.failure);
    // Against a broker that does advertise PushConfig the scenario cannot run: unsupported.
    let srv2 = Server::start("127.0.0.1:0", ServeOptions::default(), None)
        .await
        .unwrap();
    let t2 = target(
        format!("tcp://{}", srv2.local_addr()),
        vec![Capability::PolicyControl],
    )
    .await;
    let out = execute(t2.as_ref(), &s, 1).await;
    assert_eq!(out.verdict, Verdict::Unsupported);
    assert_eq!(
        out.unsupported_reason.as_deref(),
        Some("the live broker advertises PushConfig; this scenario needs one without a policy")
    );
}

/// A fake broker: answers the probe's ApiVersions properly, then answers the next request
/// on each later connection with `reply` (or nothing, if `None`).
async fn fake_broker(reply: Option<Vec<u8>>) -> String {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let srv = Server::start("127.0.0.1:0", ServeOptions::default(), None)
        .await
        .unwrap();
    let probe_answer = srv.local_addr();
    tokio::spawn(async move {
        let _serve = srv;
        let mut first = true;
        loop {
            let Ok((mut s, _)) = l.accept().await else {
                return;
            };
            let mut buf = vec![0u8; 4096];
            let n = s.read(&mut buf).await.unwrap_or(0);
            if first {
                // Relay the probe to a real serve instance.
                first = false;
                let mut up = tokio::net::TcpStream::connect(probe_answer).await.unwrap();
                up.write_all(&buf[..n]).await.unwrap();
                let mut ans = vec![0u8; 4096];
                let m = up.read(&mut ans).await.unwrap();
                s.write_all(&ans[..m]).await.unwrap();
                continue;
            }
            let corr = buf[8..12].to_vec();
            if let Some(r) = &reply {
                let mut r = r.clone();
                r[4..8].copy_from_slice(&corr);
                s.write_all(&r).await.unwrap();
            }
            tokio::time::sleep(Duration::from_secs(5)).await;
        }
    });
    addr
}

fn api_versions_scenario() -> ScenarioBuilder {
    ScenarioBuilder::new("av", "ApiVersions", "KIP-1324")
        .role(Role::Broker)
        .send(
            "ApiVersions",
            3,
            json!({"ClientSoftwareName": "k", "ClientSoftwareVersion": "1"}),
        )
        .expect_response(json!({"ErrorCode": "NONE"}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_answer_is_a_finding_with_field_and_offset() {
    // size 12, correlation id, ErrorCode 0, then an ApiKeys compact array claiming 200
    // entries (varint 201) with 4 bytes left.
    let mut bad = 12i32.to_be_bytes().to_vec();
    bad.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0xc9, 0x01, 0, 0, 0, 0]);
    let addr = fake_broker(Some(bad)).await;
    let t = target(format!("tcp://{addr}"), vec![]).await;
    let out = execute(t.as_ref(), &api_versions_scenario().build().unwrap(), 1).await;
    assert_eq!(out.verdict, Verdict::Failed);
    let f = out.failure.unwrap();
    assert_eq!(
        f.message,
        "the response does not decode: ApiVersionsResponse.ApiKeys at byte 10: \
         array count 200 exceeds the 4 remaining bytes"
    );
    // The bytes reached the runner unchanged (the correlation id is the request's, 1).
    assert_eq!(
        f.raw_hex.as_deref(),
        Some("0000000c000000010000c90100000000")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_target_is_a_failed_verdict() {
    let addr = fake_broker(None).await;
    let t = target(format!("tcp://{addr}"), vec![]).await;
    let out = execute(t.as_ref(), &api_versions_scenario().build().unwrap(), 1).await;
    assert_eq!(out.verdict, Verdict::Failed);
    assert_eq!(
        out.failure.unwrap().message,
        "expected a response, but none came"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_target_errors_every_scenario() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    drop(l);
    let t = target(format!("tcp://{addr}"), vec![]).await;
    let out = execute(t.as_ref(), &api_versions_scenario().build().unwrap(), 1).await;
    assert_eq!(out.verdict, Verdict::Errored);
    let msg = out.failure.unwrap().message;
    assert!(
        msg.starts_with(&format!(
            "target failed: target unreachable: cannot connect to {addr}"
        )),
        "{msg}"
    );
}

// ---------------------------------------------------------------------------------------
// setup.controller.topics against a live controller: DeleteTopics then CreateTopics when a
// session opens, against an in-process fake controller that answers from a script.
// ---------------------------------------------------------------------------------------

mod topics {
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};

    use kipcheck::adapter::tcp::{prepare_topics, AdvertisedApi, Probe};
    use kipcheck::adapter::{AdapterError, SetupError, Unsupported};
    use kipcheck::codec::create_topics_response::CreatableTopicResult;
    use kipcheck::codec::delete_topics_response::DeletableTopicResult;
    use kipcheck::codec::limits::DEFAULT_MAX_FRAME_SIZE;
    use kipcheck::codec::{
        decode_request_frame, encode_response_frame, ApiKey, CreateTopicsResponse,
        DeleteTopicsResponse, ErrorCode, ProvisionalNumbers, RequestBody, ResponseBody,
        ResponseHeader,
    };
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    /// One scripted round: the code DeleteTopics and CreateTopics answer for every topic.
    type Round = (ErrorCode, ErrorCode);

    /// Starts a fake controller: each DeleteTopics/CreateTopics pair takes the next round
    /// of `script`; every request it decoded is kept as (key, version, body).
    async fn fake(script: Vec<Round>) -> (String, Arc<Mutex<Vec<(i16, i16, RequestBody)>>>) {
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = l.local_addr().unwrap().to_string();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        tokio::spawn(async move {
            let mut script: VecDeque<Round> = script.into();
            let mut round = (ErrorCode::NONE, ErrorCode::NONE);
            let Ok((mut s, _)) = l.accept().await else {
                return;
            };
            loop {
                let mut size = [0u8; 4];
                if s.read_exact(&mut size).await.is_err() {
                    return;
                }
                let mut frame = size.to_vec();
                frame.resize(4 + i32::from_be_bytes(size) as usize, 0);
                s.read_exact(&mut frame[4..]).await.unwrap();
                let req = decode_request_frame(
                    &frame,
                    DEFAULT_MAX_FRAME_SIZE,
                    &ProvisionalNumbers::default(),
                )
                .unwrap();
                let version = req.header.request_api_version;
                log.lock()
                    .unwrap()
                    .push((req.header.request_api_key, version, req.body.clone()));
                let body = match &req.body {
                    RequestBody::DeleteTopics(d) => {
                        round = script.pop_front().unwrap_or(round);
                        let names: Vec<_> =
                            d.topics.iter().flatten().map(|t| t.name.clone()).collect();
                        ResponseBody::DeleteTopics(DeleteTopicsResponse {
                            responses: names
                                .into_iter()
                                .map(|name| DeletableTopicResult {
                                    name,
                                    error_code: round.0 .0,
                                    ..Default::default()
                                })
                                .collect(),
                            ..Default::default()
                        })
                    }
                    RequestBody::CreateTopics(c) => {
                        ResponseBody::CreateTopics(CreateTopicsResponse {
                            topics: c
                                .topics
                                .iter()
                                .map(|t| CreatableTopicResult {
                                    name: t.name.clone(),
                                    error_code: round.1 .0,
                                    error_message: (round.1 != ErrorCode::NONE)
                                        .then(|| "scripted refusal".into()),
                                    ..Default::default()
                                })
                                .collect(),
                            ..Default::default()
                        })
                    }
                    other => panic!("unexpected request {other:?}"),
                };
                let header = ResponseHeader {
                    correlation_id: req.header.correlation_id,
                    ..Default::default()
                };
                let out = encode_response_frame(&header, &body, version).unwrap();
                s.write_all(&out).await.unwrap();
            }
        });
        (addr, seen)
    }

    /// A controller advertising DeleteTopics v1-6 and CreateTopics v2-7 (Kafka 4.4).
    fn probe() -> Probe {
        Probe {
            version: 3,
            apis: vec![
                AdvertisedApi {
                    api_key: ApiKey::CREATE_TOPICS.0,
                    min_version: 2,
                    max_version: 7,
                },
                AdvertisedApi {
                    api_key: ApiKey::DELETE_TOPICS.0,
                    min_version: 1,
                    max_version: 6,
                },
            ],
            finalized_metadata_version: None,
        }
    }

    fn topics() -> Vec<String> {
        vec!["orders".into(), "logs".into()]
    }

    #[tokio::test]
    async fn every_setup_topic_is_deleted_then_created_with_one_partition() {
        let (addr, seen) = fake(vec![(
            ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
            ErrorCode::NONE,
        )])
        .await;
        prepare_topics(&addr, &probe(), &ProvisionalNumbers::default(), &topics())
            .await
            .unwrap();
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 2);
        let (key, version, RequestBody::DeleteTopics(d)) = &seen[0] else {
            panic!("{:?}", seen[0]);
        };
        assert_eq!((*key, *version), (ApiKey::DELETE_TOPICS.0, 6));
        let names: Vec<_> = d
            .topics
            .iter()
            .flatten()
            .map(|t| t.name.as_deref())
            .collect();
        assert_eq!(names, vec![Some("orders"), Some("logs")]);
        let (key, version, RequestBody::CreateTopics(c)) = &seen[1] else {
            panic!("{:?}", seen[1]);
        };
        assert_eq!((*key, *version), (ApiKey::CREATE_TOPICS.0, 7));
        let created: Vec<_> = c
            .topics
            .iter()
            .map(|t| (t.name.as_str(), t.num_partitions, t.replication_factor))
            .collect();
        assert_eq!(created, vec![("orders", 1, -1), ("logs", 1, -1)]);
        assert!(!c.validate_only);
    }

    #[tokio::test]
    async fn a_topic_that_already_exists_is_accepted_and_no_topics_send_nothing() {
        let (addr, seen) = fake(vec![(ErrorCode::NONE, ErrorCode::TOPIC_ALREADY_EXISTS)]).await;
        let numbers = ProvisionalNumbers::default();
        prepare_topics(&addr, &probe(), &numbers, &topics())
            .await
            .unwrap();
        assert_eq!(seen.lock().unwrap().len(), 2);
        // No setup topics: not even a connection (the address is not listening).
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let nowhere = closed.local_addr().unwrap().to_string();
        drop(closed);
        prepare_topics(&nowhere, &probe(), &numbers, &[])
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn not_controller_is_retried_and_another_refusal_errors_the_scenario() {
        let (addr, seen) = fake(vec![
            (ErrorCode::NOT_CONTROLLER, ErrorCode::NONE),
            (ErrorCode::NONE, ErrorCode::NONE),
        ])
        .await;
        let numbers = ProvisionalNumbers::default();
        prepare_topics(&addr, &probe(), &numbers, &topics())
            .await
            .unwrap();
        // Delete (NOT_CONTROLLER), then delete and create again.
        let keys: Vec<i16> = seen.lock().unwrap().iter().map(|(k, _, _)| *k).collect();
        assert_eq!(
            keys,
            vec![
                ApiKey::DELETE_TOPICS.0,
                ApiKey::DELETE_TOPICS.0,
                ApiKey::CREATE_TOPICS.0
            ]
        );
        let (addr, _) = fake(vec![(
            ErrorCode::NONE,
            ErrorCode::INVALID_REPLICATION_FACTOR,
        )])
        .await;
        let err = prepare_topics(&addr, &probe(), &numbers, &topics())
            .await
            .unwrap_err();
        let AdapterError::Setup(e) = err else {
            panic!("{err:?}");
        };
        let SetupError::Topic {
            api,
            topic,
            code,
            message,
        } = *e
        else {
            panic!("{e:?}");
        };
        assert_eq!(
            (api, topic.as_str(), code),
            (
                "CreateTopics",
                "orders",
                ErrorCode::INVALID_REPLICATION_FACTOR
            )
        );
        assert!(
            message
                .as_deref()
                .is_some_and(|m| m.contains("scripted refusal")),
            "{message:?}"
        );
    }

    #[tokio::test]
    async fn a_controller_without_the_topic_apis_is_unsupported() {
        let p = Probe {
            version: 3,
            apis: vec![],
            finalized_metadata_version: None,
        };
        let err = prepare_topics("127.0.0.1:9", &p, &ProvisionalNumbers::default(), &topics())
            .await
            .unwrap_err();
        assert!(
            matches!(&err, AdapterError::Unsupported(u) if matches!(**u, Unsupported::NoTopicApis)),
            "{err:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// metadata.version on a live controller: a scenario that sends UpdateFeatures is bound onto
// the levels the manifest declares (metadata_version.moves), and when its session ends
// kipcheck sets the level back to the manifest's finalized one; when it cannot, the next
// scenarios are errored with the reason. Against an in-process fake controller that applies
// UpdateFeatures and reports its level in ApiVersions' FinalizedFeatures.
// ---------------------------------------------------------------------------------------

mod levels;
