//! The policy host (docs/policy-bridge.md) driven by a fake bridge over a real socket: the
//! exact answer bytes for hello, accept, reject and every protocol violation, and the
//! `policy_invoked` observation a call becomes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::policy_support::eventually;
use kipcheck::adapter::PolicyHost;
use kipcheck::model::PolicyVerdict;
use serde_json::json;

struct Bridge {
    out: TcpStream,
    r: BufReader<TcpStream>,
}

impl Bridge {
    fn connect(host: &PolicyHost) -> Bridge {
        let s = TcpStream::connect(host.local_addr()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        Bridge {
            out: s.try_clone().unwrap(),
            r: BufReader::new(s),
        }
    }

    /// Sends `line` (a newline is added) and returns the answer line, newline included.
    fn call(&mut self, line: &str) -> String {
        self.out.write_all(format!("{line}\n").as_bytes()).unwrap();
        let mut answer = String::new();
        self.r.read_line(&mut answer).unwrap();
        answer
    }

    fn hello(host: &PolicyHost) -> Bridge {
        let mut b = Bridge::connect(host);
        let a = b.call(r#"{"call":"hello","protocol":1,"bridge":"fake 1"}"#);
        assert_eq!(a, "{\"hello\":\"kipcheck-policy-host\",\"protocol\":1}\n");
        b
    }

    /// After an error answer the host closes the connection.
    fn assert_closed(mut self) {
        let mut rest = Vec::new();
        assert_eq!(self.r.read_to_end(&mut rest).unwrap(), 0);
    }
}

const CALL: &str = r#"{"call":"process","id":7,"timestamp":1764600000000,"clock_ms":1764600000003,"context":{"client_id":"c","correlation_id":2},"configs":[{"key":"a.int","value":{"int":5},"type":"INT","is_default":false},{"key":"a.list","value":{"list":["x","y"]},"type":"LIST","is_default":true},{"key":"wrong","value":{"string":"5"},"type":"INT","is_default":false}]}"#;

fn host() -> PolicyHost {
    PolicyHost::bind("127.0.0.1:0").unwrap()
}

#[test]
fn a_call_is_answered_with_the_scopes_verdict_and_observed() {
    let host = host();
    let mut b = Bridge::hello(&host);
    assert_eq!(host.bridges(), vec!["fake 1".to_string()]);

    let scope = host.begin(PolicyVerdict::Accept);
    scope.advance(1234);
    assert_eq!(b.call(CALL), "{\"id\":7,\"verdict\":\"accept\"}\n");
    assert_eq!(
        scope.events(),
        vec![json!({
            "event": "policy_invoked",
            "at": 1234,
            "timestamp": 1234,
            "configs": [
                {"key": "a.int", "value": {"int": 5}, "ty": "INT", "is_default": false},
                {"key": "a.list", "value": {"list": ["x", "y"]}, "ty": "LIST", "is_default": true},
                {"key": "wrong", "value": {"string": "5"}, "ty": "INT", "is_default": false},
            ],
            "broker_timestamp": 1764600000000_i64,
            "broker_clock_ms": 1764600000003_i64,
            "context": {"client_id": "c", "correlation_id": 2},
        })]
    );
    drop(scope);

    let scope = host.begin(PolicyVerdict::Reject {
        message: "no \"thanks\"".into(),
    });
    assert_eq!(
        b.call(CALL),
        "{\"id\":7,\"message\":\"no \\\"thanks\\\"\",\"verdict\":\"reject\"}\n"
    );
    assert_eq!(scope.events().len(), 1);
    assert_eq!(scope.events()[0]["at"], json!(0));
    drop(scope);

    // No scenario running: accepted, not recorded anywhere.
    assert_eq!(b.call(CALL), "{\"id\":7,\"verdict\":\"accept\"}\n");
    assert_eq!(host.unattributed(), 1);
    let later = host.begin(PolicyVerdict::Accept);
    assert_eq!(later.events(), Vec::<serde_json::Value>::new());

    drop(b);
    assert!(eventually(|| host.bridges().is_empty()));
}

#[test]
fn a_newer_scope_replaces_an_older_one() {
    let host = host();
    let mut b = Bridge::hello(&host);
    let old = host.begin(PolicyVerdict::Accept);
    let new = host.begin(PolicyVerdict::Reject {
        message: "m".into(),
    });
    old.advance(50);
    assert_eq!(
        b.call(CALL),
        "{\"id\":7,\"message\":\"m\",\"verdict\":\"reject\"}\n"
    );
    assert_eq!(old.events().len(), 0);
    assert_eq!(new.events()[0]["at"], json!(0));
    drop(old); // does not end the newer scope
    assert_eq!(new.events().len(), 1);
}

#[test]
fn protocol_violations_are_answered_with_the_reason_then_closed() {
    let host = host();
    let cases = [
        (
            CALL.to_string(),
            "{\"error\":\"the first line must be a hello\"}\n",
        ),
        (
            r#"{"call":"hello","protocol":2,"bridge":"b"}"#.to_string(),
            "{\"error\":\"protocol 2 is not supported (the host speaks 1)\"}\n",
        ),
        (
            "not json".to_string(),
            "{\"error\":\"not a protocol line: expected ident at line 1 column 2\"}\n",
        ),
        (
            r#"{"call":"hello","protocol":1,"bridge":"b","extra":1}"#.to_string(),
            "{\"error\":\"not a protocol line: unknown field `extra`, expected `protocol` or `bridge`\"}\n",
        ),
    ];
    for (line, answer) in cases {
        let mut b = Bridge::connect(&host);
        assert_eq!(b.call(&line), answer, "{line}");
        b.assert_closed();
    }
    // A call missing a field, after a good hello.
    let mut b = Bridge::hello(&host);
    let a = b.call(r#"{"call":"process","id":1,"timestamp":0,"context":{},"configs":[]}"#);
    assert_eq!(
        a,
        "{\"error\":\"not a protocol line: missing field `clock_ms`\"}\n"
    );
    b.assert_closed();
    // A connection closed inside a line.
    let mut b = Bridge::connect(&host);
    b.out.write_all(b"{\"call\":").unwrap();
    b.out.shutdown(std::net::Shutdown::Write).unwrap();
    let mut rest = String::new();
    b.r.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "{\"error\":\"connection closed inside a line\"}\n");
    assert!(eventually(|| host.bridges().is_empty()));
}

#[test]
fn a_busy_address_is_a_typed_error() {
    let host = host();
    let addr = host.local_addr().to_string();
    let err = PolicyHost::bind(&addr).unwrap_err();
    assert!(
        matches!(&err, kipcheck::adapter::PolicyHostError::Bind { addr: a, .. } if *a == addr),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with(&format!("--policy-host {addr}: cannot listen: ")),
        "{err}"
    );
}
