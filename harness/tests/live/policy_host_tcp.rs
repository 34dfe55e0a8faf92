//! `tcp://` with `--policy-host`, end to end: a small broker (this file: it relays everything
//! to `kipcheck serve` except PushConfig, which it parses and hands to its policy hook, the
//! non-JVM form of the bridge in docs/policy-bridge.md) runs the suite's own policy scenarios,
//! and the runner judges their `policy_invoked` observations and verdicts.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;

use kipcheck::adapter::{target_from_spec, Target, TargetOptions};
use kipcheck::codec::{
    self, ErrorCode, ProvisionalNumbers, PushConfigResponse, RequestBody, ResponseBody,
    ResponseHeader,
};
use kipcheck::model::{ConfigType, ConfigTypeNumbering, ConfigValue};
use kipcheck::runner::{execute, Verdict};
use kipcheck::scenario::{load_embedded, Capability, Role, Scenario};
use kipcheck::serve::{ServeOptions, Server};
use serde_json::{json, Value};

fn read_frame(s: &mut TcpStream) -> Option<Vec<u8>> {
    let mut size = [0u8; 4];
    s.read_exact(&mut size).ok()?;
    let n = usize::try_from(i32::from_be_bytes(size)).ok()?;
    let mut frame = size.to_vec();
    frame.resize(4 + n, 0);
    s.read_exact(&mut frame[4..]).ok()?;
    Some(frame)
}

/// The broker's policy hook: one JSON line per call to the policy host, one answer back.
struct Hook {
    out: TcpStream,
    r: BufReader<TcpStream>,
    next_id: u64,
}

impl Hook {
    fn connect(host: SocketAddr) -> Hook {
        let s = TcpStream::connect(host).unwrap();
        let mut h = Hook {
            out: s.try_clone().unwrap(),
            r: BufReader::new(s),
            next_id: 1,
        };
        let hello = h.line(&json!({"call": "hello", "protocol": 1, "bridge": "rust-broker"}));
        assert_eq!(hello["protocol"], json!(1));
        h
    }

    fn line(&mut self, v: &Value) -> Value {
        self.out.write_all(format!("{v}\n").as_bytes()).unwrap();
        let mut a = String::new();
        self.r.read_line(&mut a).unwrap();
        serde_json::from_str(&a).unwrap()
    }

    /// `process`: `None` to accept, `Some(message)` to reject.
    fn process(
        &mut self,
        client_id: &str,
        correlation_id: i32,
        configs: Vec<Value>,
    ) -> Option<String> {
        let now = i64::try_from(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_millis(),
        )
        .unwrap();
        let id = self.next_id;
        self.next_id += 1;
        let answer = self.line(&json!({
            "call": "process", "id": id, "timestamp": now, "clock_ms": now,
            "context": {"client_id": client_id, "correlation_id": correlation_id},
            "configs": configs,
        }));
        assert_eq!(answer["id"], json!(id));
        match answer["verdict"].as_str() {
            Some("accept") => None,
            _ => Some(answer["message"].as_str().unwrap().to_owned()),
        }
    }
}

/// One client connection: PushConfig handled here, everything else relayed to `upstream`.
/// With `string_values` the broker has a bug: it hands the policy every value as a string.
fn serve_conn(mut c: TcpStream, upstream: SocketAddr, host: SocketAddr, string_values: bool) {
    let mut up = TcpStream::connect(upstream).unwrap();
    let mut hook: Option<Hook> = None;
    let numbers = ProvisionalNumbers::default();
    while let Some(frame) = read_frame(&mut c) {
        let decoded = codec::decode_request_frame(&frame, 1 << 20, &numbers);
        let Ok(req) = decoded else {
            return; // a malformed request: close, as a Java broker does
        };
        let RequestBody::PushConfig(push) = &req.body else {
            up.write_all(&frame).unwrap();
            let Some(answer) = read_frame(&mut up) else {
                return;
            };
            c.write_all(&answer).unwrap();
            continue;
        };
        let mut configs = Vec::new();
        let mut invalid = None;
        for e in &push.configs {
            let parsed = ConfigTypeNumbering::ConfigDefType
                .from_wire(e.config_type)
                .filter(|t| !matches!(t, ConfigType::Class | ConfigType::Password))
                .ok_or(())
                .and_then(|t| {
                    ConfigValue::parse(t, &e.config_value)
                        .map(|v| (t, v))
                        .map_err(|_| ())
                });
            match parsed {
                Ok((t, v)) => {
                    let v = if string_values {
                        json!({"string": e.config_value.as_str()})
                    } else {
                        json!(v)
                    };
                    configs.push(json!({
                        "key": e.config_key.as_str(), "value": v, "type": t, "is_default": e.is_default,
                    }))
                }
                Err(()) => invalid = Some(format!("{}: cannot be parsed", e.config_key.as_str())),
            }
        }
        let message = invalid.or_else(|| {
            hook.get_or_insert_with(|| Hook::connect(host)).process(
                req.header.client_id.as_deref().unwrap_or(""),
                req.header.correlation_id,
                configs,
            )
        });
        let resp = PushConfigResponse {
            error_code: message
                .as_ref()
                .map_or(ErrorCode::NONE.0, |_| ErrorCode::INVALID_CONFIG.0),
            error_message: message.map(Into::into),
            ..Default::default()
        };
        let header = ResponseHeader {
            correlation_id: req.header.correlation_id,
            ..Default::default()
        };
        let out =
            codec::encode_response_frame(&header, &ResponseBody::PushConfig(resp), 0).unwrap();
        c.write_all(&out).unwrap();
    }
}

fn bridging_broker(upstream: SocketAddr, host: SocketAddr, string_values: bool) -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    std::thread::spawn(move || {
        for c in l.incoming().map_while(Result::ok) {
            std::thread::spawn(move || serve_conn(c, upstream, host, string_values));
        }
    });
    addr
}

/// `kipcheck serve`, the bridging broker in front of it, and the `tcp://` target on that
/// broker with `--policy-host` on a free port.
async fn hosted_broker(string_values: bool) -> (Server, Arc<dyn Target>) {
    let serve = Server::start("127.0.0.1:0", ServeOptions::default(), None)
        .await
        .unwrap();
    // A free port for the host: bind, read it, release it.
    let host_addr = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let broker = bridging_broker(serve.local_addr(), host_addr, string_values);
    let opts = TargetOptions {
        role: Some(Role::Broker),
        policy_host: Some(host_addr.to_string()),
        ..TargetOptions::default()
    };
    let spec = format!("tcp://{broker}");
    let target = tokio::task::spawn_blocking(move || target_from_spec(&spec, &opts).unwrap())
        .await
        .unwrap();
    (serve, target)
}

fn scenario(all: &[Scenario], id: &str) -> Scenario {
    all.iter()
        .find(|s| s.file.id == id)
        .unwrap_or_else(|| panic!("no scenario {id}"))
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_suites_policy_scenarios_run_on_a_live_broker_through_the_host() {
    let (_serve, target) = hosted_broker(false).await;
    assert_eq!(
        target.capabilities().capabilities,
        vec![Capability::PolicyControl]
    );
    assert_eq!(target.observed_events(), vec!["policy_invoked"]);

    let all = load_embedded().unwrap();
    // Typed values and IsDefault observed; a rejecting policy's message on the wire, and the
    // policy called again on the same connection.
    for id in [
        "b1324-typed-value-boundaries-accepted",
        "b1324-is-default-nonzero-byte-is-true",
        "b1324-duplicate-keys-accepted",
        "b1324-name-sensitive-keys-reach-policy",
        "b1324-policy-reject-invalid-config",
        "b1324-policy-reject-connection-stays-open",
        "b1324-empty-configs-rejecting-policy",
    ] {
        let out = execute(target.as_ref(), &scenario(&all, id), 1).await;
        assert_eq!(
            out.verdict,
            Verdict::Passed,
            "{id}: {:?} {:?}",
            out.failure,
            out.unsupported_reason
        );
        assert!(out.steps_judged > 0, "{id}");
    }
    // Observation steps about other events (connection_closed) are not observed: three
    // responses and the policy_invoked count are judged.
    let out = execute(
        target.as_ref(),
        &scenario(&all, "b1324-policy-reject-connection-stays-open"),
        1,
    )
    .await;
    assert_eq!(
        (out.steps_judged, out.steps_not_observed),
        (4, 1),
        "{out:?}"
    );
    // The timestamp scenario waits 1234 ms with `advance`: a virtual clock only.
    let out = execute(
        target.as_ref(),
        &scenario(&all, "b1324-policy-invoked-exact-configs-and-timestamp"),
        1,
    )
    .await;
    assert_eq!(out.verdict, Verdict::Unsupported);
    // A scenario that needs a broker without a policy cannot be put on this one.
    let out = execute(
        target.as_ref(),
        &scenario(&all, "b1324-no-policy-push-closes"),
        1,
    )
    .await;
    assert_eq!(out.verdict, Verdict::Unsupported);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_that_hands_the_policy_strings_is_caught_by_the_observation() {
    let (_serve, target) = hosted_broker(true).await;
    let all = load_embedded().unwrap();
    let s = scenario(&all, "b1324-typed-value-boundaries-accepted");
    let out = execute(target.as_ref(), &s, 1).await;
    assert_eq!(out.verdict, Verdict::Failed);
    let f = out.failure.unwrap();
    assert!(
        f.message.starts_with("expected 1 event(s) matching"),
        "{}",
        f.message
    );
    assert!(
        f.mismatches
            .iter()
            .any(|m| m.path == "event.configs[0].value.int" && m.actual == "<absent>"),
        "{:?}",
        f.mismatches
    );
}
