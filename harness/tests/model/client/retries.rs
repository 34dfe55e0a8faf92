//! Retries, errors, throttling, deadline.

use super::*;

#[test]
fn retriable_errors_are_retried_with_exponential_backoff() {
    let mut c = consumer(&[]);
    let out = start_and_connect(&mut c, 1, true);
    assert_eq!(push_targets(&out), vec![1]);
    let mut now = Millis(0);
    let mut delays = Vec::new();
    for _ in 0..5 {
        let out = c.handle(
            now,
            ClientInput::PushConfigResponse {
                node: 1,
                body: push_response(ErrorCode::REQUEST_TIMED_OUT, 0, None),
            },
        );
        let (at, backoff) = events(&out)
            .into_iter()
            .find_map(|e| match e {
                Event::RetryScheduled {
                    at,
                    backoff_ms,
                    cause: RetryCause::RetriableError(ErrorCode::REQUEST_TIMED_OUT),
                    ..
                } => Some((at, backoff_ms)),
                _ => None,
            })
            .expect("retry scheduled");
        assert_eq!(wake(&out), Some(at));
        assert!(
            push_targets(&c.handle(Millis(at.0 - 1), ClientInput::Tick)).is_empty(),
            "not before the backoff"
        );
        now = at;
        assert_eq!(push_targets(&c.handle(now, ClientInput::Tick)), vec![1]);
        delays.push(backoff);
    }
    let bounds = [(80, 120), (160, 240), (320, 480), (640, 960), (800, 1000)];
    for (d, (lo, hi)) in delays.iter().zip(bounds) {
        assert!((lo..=hi).contains(d), "{delays:?}");
    }
    assert_eq!(c.attempts(), 6);
}

#[test]
fn config_too_large_and_invalid_config_are_logged_and_never_retried() {
    for (code, msg) in [
        (ErrorCode::CONFIG_TOO_LARGE, "too big"),
        (ErrorCode::INVALID_CONFIG, "bad entry 'x'"),
    ] {
        let mut c = consumer(&[]);
        start_and_connect(&mut c, 1, true);
        c.handle(Millis(0), ClientInput::UserRequest { id: 9 });
        let out = c.handle(
            Millis(1),
            ClientInput::PushConfigResponse {
                node: 1,
                body: push_response(code, 0, Some(msg)),
            },
        );
        assert!(events(&out).contains(&Event::PushRejected {
            node: 1,
            error_code: code,
            error_message: Some(msg.into())
        }));
        assert!(out.contains(&ClientOutput::ReleaseUserRequest { id: 9 }));
        assert_eq!(c.state(), &HandshakeState::Rejected { error_code: code });
        assert!(push_targets(&c.handle(Millis(100_000), ClientInput::Tick)).is_empty());
        assert_eq!(c.attempts(), 1);
    }
}

#[test]
fn config_too_large_follows_the_provisional_wire_code() {
    let mut p = SpecProfile::default();
    p.provisional.config_too_large = ErrorCode(150);
    let mut c = ClientModel::new(ClientType::Admin, cfg(&[]), &p, 1).unwrap();
    start_and_connect(&mut c, 1, true);
    let out = c.handle(
        Millis(0),
        ClientInput::PushConfigResponse {
            node: 1,
            body: push_response(ErrorCode(150), 0, None),
        },
    );
    assert!(events(&out).iter().any(|e| matches!(
        e,
        Event::PushRejected {
            error_code: ErrorCode::CONFIG_TOO_LARGE,
            ..
        }
    )));
}

#[test]
fn provisional_api_key_is_used_to_detect_and_send() {
    let mut p = SpecProfile::default();
    p.provisional.push_config_api_key = ApiKey(99);
    let mut c = ClientModel::new(ClientType::Admin, cfg(&[]), &p, 1).unwrap();
    // Advertising 95 means nothing under this profile.
    let out = start_and_connect(&mut c, 1, true);
    assert!(push_targets(&out).is_empty());
    let mut body = api_versions(false);
    body.api_keys
        .push(kipcheck::codec::api_versions_response::ApiVersion {
            api_key: 99,
            min_version: 0,
            max_version: 0,
            ..Default::default()
        });
    c.handle(Millis(0), ClientInput::Connected { node: 2 });
    let out = c.handle(
        Millis(0),
        ClientInput::ApiVersionsResponse { node: 2, body },
    );
    assert!(out.iter().any(|o| matches!(
        o,
        ClientOutput::Send {
            node: 2,
            api_key: ApiKey(99),
            api_version: 0,
            ..
        }
    )));
}

#[test]
fn version_range_without_zero_is_not_support() {
    let mut c = consumer(&[]);
    c.handle(Millis(0), ClientInput::Start);
    c.handle(Millis(0), ClientInput::Connected { node: 1 });
    let mut body = api_versions(false);
    body.api_keys
        .push(kipcheck::codec::api_versions_response::ApiVersion {
            api_key: 95,
            min_version: 1,
            max_version: 2,
            ..Default::default()
        });
    let out = c.handle(
        Millis(0),
        ClientInput::ApiVersionsResponse { node: 1, body },
    );
    assert!(events(&out).contains(&Event::NodeSupport {
        node: 1,
        push_config: false
    }));
}

#[test]
fn disconnects_and_request_timeouts_are_retried() {
    let mut c = consumer(&[]);
    start_and_connect(&mut c, 1, true);
    let out = c.handle(Millis(10), ClientInput::Disconnected { node: 1 });
    assert!(events(&out).iter().any(|e| matches!(
        e,
        Event::RetryScheduled {
            cause: RetryCause::Disconnected,
            ..
        }
    )));
    c.handle(Millis(20), ClientInput::Connected { node: 1 });
    let out = c.handle(
        Millis(500),
        ClientInput::ApiVersionsResponse {
            node: 1,
            body: api_versions(true),
        },
    );
    assert_eq!(push_targets(&out), vec![1]);
    // No response within request.timeout.ms (30000): the timer fires.
    let out = c.handle(Millis(30_500), ClientInput::Tick);
    assert!(events(&out).iter().any(|e| matches!(
        e,
        Event::RetryScheduled {
            cause: RetryCause::RequestTimedOut,
            failed_attempt: 2,
            ..
        }
    )));
    // The runner may also declare a timeout.
    let out = c.handle(Millis(32_000), ClientInput::Tick);
    assert_eq!(push_targets(&out), vec![1]);
    let out = c.handle(Millis(32_001), ClientInput::RequestTimedOut { node: 1 });
    assert!(events(&out).iter().any(|e| matches!(
        e,
        Event::RetryScheduled {
            cause: RetryCause::RequestTimedOut,
            failed_attempt: 3,
            ..
        }
    )));
}

#[test]
fn request_timeout_disconnect_closes_the_connection_and_retries_on_a_new_one() {
    let p = SpecProfile {
        request_timeout: RequestTimeoutAction::Disconnect,
        ..SpecProfile::default()
    };
    let mut c = ClientModel::new(
        ClientType::Consumer,
        cfg(&[("request.timeout.ms", "2000")]),
        &p,
        1,
    )
    .unwrap();
    let out = start_and_connect(&mut c, 1, true);
    assert_eq!(push_targets(&out), vec![1]);
    let out = c.handle(Millis(2000), ClientInput::Tick);
    assert!(events(&out).contains(&Event::ConnectionClosed {
        reason: "PushConfig to node 1 timed out".into()
    }));
    let retry_at = events(&out)
        .iter()
        .find_map(|e| match e {
            Event::RetryScheduled {
                at,
                cause: RetryCause::RequestTimedOut,
                failed_attempt: 1,
                ..
            } => Some(*at),
            _ => None,
        })
        .unwrap();
    assert!(
        (Millis(2080)..=Millis(2120)).contains(&retry_at),
        "{retry_at:?}"
    );
    // Nothing is sent while there is no connection, even long after the backoff.
    assert!(push_targets(&c.handle(Millis(9000), ClientInput::Tick)).is_empty());
    // A new connection starts with ApiVersions, then the push.
    let out = c.handle(Millis(9000), ClientInput::Connected { node: 1 });
    assert!(out.iter().any(|o| matches!(
        o,
        ClientOutput::Send {
            api_key: ApiKey::API_VERSIONS,
            ..
        }
    )));
    let out = c.handle(
        Millis(9001),
        ClientInput::ApiVersionsResponse {
            node: 1,
            body: api_versions(true),
        },
    );
    assert_eq!(push_targets(&out), vec![1]);
    assert_eq!(c.attempts(), 2);
    // With the default (keep) the retry goes on the same connection at the backoff.
    let mut k = ClientModel::new(
        ClientType::Consumer,
        cfg(&[("request.timeout.ms", "2000")]),
        &SpecProfile::default(),
        1,
    )
    .unwrap();
    start_and_connect(&mut k, 1, true);
    let out = k.handle(Millis(2000), ClientInput::Tick);
    assert!(!events(&out)
        .iter()
        .any(|e| matches!(e, Event::ConnectionClosed { .. })));
    assert_eq!(
        push_targets(&k.handle(retry_at, ClientInput::Tick)),
        vec![1]
    );
}

#[test]
fn throttle_time_is_honoured_before_the_retry() {
    let mut c = consumer(&[]);
    start_and_connect(&mut c, 1, true);
    let out = c.handle(
        Millis(0),
        ClientInput::PushConfigResponse {
            node: 1,
            body: push_response(ErrorCode::THROTTLING_QUOTA_EXCEEDED, 5000, None),
        },
    );
    assert!(events(&out).contains(&Event::ThrottleApplied {
        node: 1,
        until: Millis(5000)
    }));
    let at = events(&out)
        .into_iter()
        .find_map(|e| match e {
            Event::RetryScheduled { at, .. } => Some(at),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        at,
        Millis(5000),
        "backoff (≤120 ms) is shorter than the throttle"
    );
    assert!(push_targets(&c.handle(Millis(4999), ClientInput::Tick)).is_empty());
    assert_eq!(
        push_targets(&c.handle(Millis(5000), ClientInput::Tick)),
        vec![1]
    );
}

#[test]
fn throttle_delays_api_versions_on_a_new_connection_to_that_node() {
    let mut c = consumer(&[]);
    start_and_connect(&mut c, 1, true);
    c.handle(
        Millis(0),
        ClientInput::PushConfigResponse {
            node: 1,
            body: push_response(ErrorCode::THROTTLING_QUOTA_EXCEEDED, 5000, None),
        },
    );
    c.handle(Millis(1), ClientInput::Disconnected { node: 1 });
    let out = c.handle(Millis(2), ClientInput::Connected { node: 1 });
    assert!(!out.iter().any(|o| matches!(o, ClientOutput::Send { .. })));
    assert!(events(&out).contains(&Event::ApiVersionsDeferred {
        node: 1,
        until: Millis(5000)
    }));
    assert_eq!(wake(&out), Some(Millis(5000)));
    let out = c.handle(Millis(5000), ClientInput::Tick);
    assert!(out.iter().any(|o| matches!(
        o,
        ClientOutput::Send {
            api_key: ApiKey::API_VERSIONS,
            ..
        }
    )));
}

#[test]
fn deadline_is_default_api_timeout_and_the_client_continues() {
    let mut c = consumer(&[("default.api.timeout.ms", "2000")]);
    start_and_connect(&mut c, 1, true);
    assert_eq!(c.deadline(), Millis(2000));
    c.handle(Millis(1), ClientInput::UserRequest { id: 1 });
    let out = c.handle(Millis(1999), ClientInput::Tick);
    assert!(!out.contains(&ClientOutput::ReleaseUserRequest { id: 1 }));
    let out = c.handle(Millis(2000), ClientInput::Tick);
    assert!(events(&out).contains(&Event::HandshakeAbandoned { attempts: 1 }));
    assert!(out.contains(&ClientOutput::ReleaseUserRequest { id: 1 }));
    assert_eq!(c.state(), &HandshakeState::Abandoned);
    // Later operations are not blocked, and a late response is ignored.
    let out = c.handle(Millis(2001), ClientInput::UserRequest { id: 2 });
    assert!(out.contains(&ClientOutput::ReleaseUserRequest { id: 2 }));
    let out = c.handle(
        Millis(2002),
        ClientInput::PushConfigResponse {
            node: 1,
            body: push_response(ErrorCode::NONE, 0, None),
        },
    );
    assert!(events(&out).contains(&Event::ResponseIgnored { node: 1 }));
}

#[test]
fn producer_deadline_is_max_block_ms() {
    let p = SpecProfile::default();
    let mut c = ClientModel::new(
        ClientType::Producer,
        cfg(&[("config.push.allowed.keys", "acks")]),
        &p,
        1,
    )
    .unwrap();
    c.handle(Millis(10), ClientInput::Start);
    assert_eq!(c.deadline(), Millis(60_010));
    let mut c = ClientModel::new(
        ClientType::Producer,
        cfg(&[
            ("config.push.allowed.keys", "acks"),
            ("max.block.ms", "500"),
        ]),
        &p,
        1,
    )
    .unwrap();
    c.handle(Millis(0), ClientInput::Start);
    assert_eq!(c.deadline(), Millis(500));
}

#[test]
fn a_producer_send_waits_max_block_ms_from_its_own_call() {
    let mut c = ClientModel::new(
        ClientType::Producer,
        cfg(&[
            ("config.push.allowed.keys", "acks"),
            ("max.block.ms", "7000"),
            ("request.timeout.ms", "60000"),
        ]),
        &SpecProfile::default(),
        1,
    )
    .unwrap();
    start_and_connect(&mut c, 1, true);
    assert_eq!(c.deadline(), Millis(7000));
    c.handle(Millis(0), ClientInput::UserRequest { id: 1 });
    let out = c.handle(Millis(5000), ClientInput::UserRequest { id: 2 });
    assert!(events(&out).contains(&Event::UserRequestBlocked { id: 2 }));
    assert!(out.contains(&ClientOutput::WakeAt(Millis(7000))));
    assert_eq!(c.deadline(), Millis(12000), "extended to the late call");
    // id 1 goes at 7000 (its own max.block.ms); the handshake is still pending.
    let out = c.handle(Millis(7000), ClientInput::Tick);
    assert_eq!(
        out.iter()
            .filter(|o| matches!(o, ClientOutput::ReleaseUserRequest { .. }))
            .collect::<Vec<_>>(),
        vec![&ClientOutput::ReleaseUserRequest { id: 1 }]
    );
    assert!(out.contains(&ClientOutput::WakeAt(Millis(12000))));
    assert!(c.is_blocking());
    assert_eq!(c.state(), &HandshakeState::Pending);
    // id 2 goes at 12000, with the handshake abandoned.
    let out = c.handle(Millis(11999), ClientInput::Tick);
    assert!(!out.contains(&ClientOutput::ReleaseUserRequest { id: 2 }));
    let out = c.handle(Millis(12000), ClientInput::Tick);
    assert!(out.contains(&ClientOutput::ReleaseUserRequest { id: 2 }));
    assert!(events(&out).contains(&Event::HandshakeAbandoned { attempts: 1 }));
    c.check_invariants().unwrap();
}

#[test]
fn retries_stop_at_the_deadline() {
    let mut c = consumer(&[("default.api.timeout.ms", "1000")]);
    start_and_connect(&mut c, 1, true);
    let mut now = Millis(0);
    while c.state() == &HandshakeState::Pending {
        let out = c.handle(
            now,
            ClientInput::PushConfigResponse {
                node: 1,
                body: push_response(ErrorCode::NOT_CONTROLLER, 0, None),
            },
        );
        now = wake(&out).unwrap_or(Millis(now.0 + 1));
        c.handle(now, ClientInput::Tick);
    }
    assert_eq!(c.state(), &HandshakeState::Abandoned);
    assert!(now <= Millis(1000));
    c.check_invariants().unwrap();
}
