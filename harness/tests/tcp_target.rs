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
