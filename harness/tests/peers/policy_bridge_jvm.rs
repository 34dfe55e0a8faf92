//! The Java policy bridge (interop/policy-bridge) against kipcheck's policy host: its
//! `BrokerHarness` loads `dev.kipcheck.policy.KipcheckClientConfigPolicy` by class name and
//! calls it as a KIP-1324 broker would (configure, process with values typed by
//! `ConfigDef.parseType`, close). Checked: accept, reject with the scenario's message, the
//! typed values, types, IsDefault, timestamp and request context kipcheck observes, a host
//! that goes away and comes back. Builds nothing: the jars come from
//! `KIPCHECK_POLICY_BRIDGE_DIR` (the Maven `target/` folder; `.ci/run` sets it); without it
//! the test says "skipped" and passes, unless `KIPCHECK_REQUIRE_PEERS=1`.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::policy_support::eventually;
use kipcheck::adapter::PolicyHost;
use kipcheck::model::PolicyVerdict;
use serde_json::{json, Value};

const DIR_ENV: &str = "KIPCHECK_POLICY_BRIDGE_DIR";
const POLICY_CLASS: &str = "dev.kipcheck.policy.KipcheckClientConfigPolicy";

fn bridge_dir() -> Option<PathBuf> {
    match std::env::var_os(DIR_ENV) {
        Some(d) => Some(PathBuf::from(d)),
        None => {
            assert!(
                std::env::var("KIPCHECK_REQUIRE_PEERS").as_deref() != Ok("1"),
                "KIPCHECK_REQUIRE_PEERS=1 but {DIR_ENV} is not set"
            );
            println!(
                "skipped: {DIR_ENV} is not set (mvn -q -B -f interop/policy-bridge/pom.xml package, then {DIR_ENV}=interop/policy-bridge/target)"
            );
            None
        }
    }
}

/// The broker harness JVM, driven line by line.
struct Harness {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Harness {
    fn start(dir: &std::path::Path, addr: &str) -> Harness {
        let cp = [
            "kipcheck-policy-bridge.jar",
            "kipcheck-policy-bridge-api.jar",
            "kipcheck-policy-bridge-harness.jar",
            "lib/*",
        ]
        .map(|f| dir.join(f).display().to_string())
        .join(":");
        for jar in [
            "kipcheck-policy-bridge.jar",
            "kipcheck-policy-bridge-harness.jar",
        ] {
            assert!(
                dir.join(jar).is_file(),
                "{} is missing",
                dir.join(jar).display()
            );
        }
        let mut child = Command::new("java")
            .args(["-cp", &cp, "dev.kipcheck.policy.harness.BrokerHarness"])
            .args([POLICY_CLASS, addr])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("java starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Harness {
            child,
            stdin: Some(stdin),
            lines,
        }
    }

    fn line(&self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(60))
            .expect("the harness answers")
    }

    fn say(&mut self, command: &str) -> String {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{command}").unwrap();
        stdin.flush().unwrap();
        self.line()
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn now_ms() -> i64 {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    i64::try_from(d.as_millis()).unwrap()
}

/// The configs BrokerHarness pushes, as the policy received them.
fn expected_configs() -> Value {
    json!([
        {"key": "enable.auto.commit", "value": {"boolean": false}, "ty": "BOOLEAN", "is_default": false},
        {"key": "client.id", "value": {"string": "app-1"}, "ty": "STRING", "is_default": false},
        {"key": "request.timeout.ms", "value": {"int": 30000}, "ty": "INT", "is_default": true},
        {"key": "custom.short", "value": {"short": 7}, "ty": "SHORT", "is_default": false},
        {"key": "metadata.max.age.ms", "value": {"long": 300000}, "ty": "LONG", "is_default": true},
        {"key": "retry.backoff.jitter", "value": {"double": 0.2}, "ty": "DOUBLE", "is_default": true},
        {"key": "partition.assignment.strategy", "value": {"list": ["range", "cooperative-sticky"]}, "ty": "LIST", "is_default": false},
        {"key": "custom.class", "value": {"class": "java.lang.String"}, "ty": "CLASS", "is_default": false},
        {"key": "custom.password", "value": {"password": "secret"}, "ty": "PASSWORD", "is_default": false},
    ])
}

#[test]
fn the_java_bridge_reports_every_call_and_answers_the_verdict() {
    let Some(dir) = bridge_dir() else { return };
    let host = PolicyHost::bind("127.0.0.1:0").unwrap();
    let addr = host.local_addr().to_string();
    let mut jvm = Harness::start(&dir, &addr);
    assert_eq!(jvm.line(), "configured");
    // configure() connects at once and says hello.
    assert!(eventually(
        || host.bridges() == vec!["kipcheck-policy-bridge 0.1.0".to_string()]
    ));

    // Accept: process() returns, and kipcheck saw every typed value.
    let scope = host.begin(PolicyVerdict::Accept);
    scope.advance(1234);
    let before = now_ms();
    assert_eq!(jvm.say("process"), "accepted");
    let after = now_ms();
    let events = scope.events();
    assert_eq!(events.len(), 1, "{events:?}");
    let ev = &events[0];
    assert_eq!(ev["event"], json!("policy_invoked"));
    assert_eq!(ev["at"], json!(1234));
    assert_eq!(ev["timestamp"], json!(1234), "{ev}");
    assert_eq!(ev["configs"], expected_configs());
    assert_eq!(
        ev["context"],
        json!({
            "client_id": "kipcheck-harness",
            "correlation_id": 1,
            "request_type": 95,
            "request_version": 0,
            "listener_name": "PLAINTEXT",
            "security_protocol": "PLAINTEXT",
            "principal": "User:ANONYMOUS",
            "client_address": "127.0.0.1",
        })
    );
    let ts = ev["broker_timestamp"].as_i64().unwrap();
    assert!(
        (before..=after).contains(&ts),
        "{before} <= {ts} <= {after}"
    );
    drop(scope);

    // Reject: InvalidConfigurationException with exactly the scenario's message.
    let message = "config push refused: client.id \"app-1\" is not allowed";
    let scope = host.begin(PolicyVerdict::Reject {
        message: message.into(),
    });
    // A rejection is the KIP's ClientConfigPolicyException (the harness names any other type).
    assert_eq!(jvm.say("process"), format!("rejected {message}"));
    assert_eq!(scope.events().len(), 1);
    assert_eq!(scope.events()[0]["context"]["correlation_id"], json!(2));
    drop(scope);

    // Fail: the policy throws something other than the KIP's rejection (a bug in it); the
    // broker sees that exception type, which a prototype-like broker maps to
    // UNKNOWN_SERVER_ERROR.
    let scope = host.begin(PolicyVerdict::Fail {
        message: "policy bug".into(),
    });
    assert_eq!(
        jvm.say("process"),
        "failed java.lang.IllegalStateException: policy bug"
    );
    drop(scope);

    // A broker whose timestamp is not its clock (zero): the observation shows it.
    let scope = host.begin(PolicyVerdict::Accept);
    scope.advance(10);
    assert_eq!(jvm.say("process-at 0"), "accepted");
    let ev = &scope.events()[0];
    assert_eq!(ev["broker_timestamp"], json!(0));
    let shown = ev["timestamp"].as_i64().unwrap();
    assert_eq!(shown, 10 - ev["broker_clock_ms"].as_i64().unwrap());
    drop(scope);

    // The host goes away: the call is refused with the bridge's own message, as Kafka's
    // InvalidConfigurationException, not the KIP's policy rejection (a verdict the policy
    // never gave) ...
    drop(host);
    let answer = jvm.say("process");
    let prefix = format!(
        "rejected-as InvalidConfigurationException kipcheck policy bridge: no answer from the policy host {addr} ("
    );
    assert!(answer.starts_with(&prefix), "{answer}");
    // ... and once it is back, the next call reconnects.
    let host = PolicyHost::bind(&addr).unwrap();
    let scope = host.begin(PolicyVerdict::Accept);
    assert_eq!(jvm.say("process"), "accepted");
    assert_eq!(scope.events()[0]["configs"], expected_configs());

    assert_eq!(jvm.say("close"), "closed");
    assert!(eventually(|| host.bridges().is_empty()));
    jvm.stdin = None; // end of input: the harness exits
    let status = jvm.child.wait().unwrap();
    assert!(status.success(), "{status}");
}
