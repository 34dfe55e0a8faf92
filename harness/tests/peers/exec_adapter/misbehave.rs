//! Each way an adapter can misbehave, with its exact error kind.

use super::*;

#[test]
fn crash_at_start_is_crashed_with_the_stderr_tail() {
    match ExecTarget::start(&misbehave("crash_at_start"), small()) {
        Err(AdapterError::Crashed(e)) => match *e {
            Crash::ProcessGone {
                end: ProcessEnd::Exited(status),
                moment: Moment::BeforeAnswering,
                tails,
                ..
            } => {
                assert_eq!(status.code(), Some(3));
                assert!(
                    tails
                        .stderr
                        .contains("misbehave: cannot load my configuration"),
                    "{tails:?}"
                );
            }
            other => panic!("{other:?}"),
        },
        other => panic!("expected Crashed, got {:?}", other.map(|t| t.name())),
    }
}

#[test]
fn wrong_protocol_version_is_a_protocol_error() {
    match ExecTarget::start(&misbehave("wrong_version"), small()) {
        Err(AdapterError::Protocol(e)) => match *e {
            ProtocolViolation {
                violation: Violation::Version { theirs, ours },
                ..
            } => assert_eq!((theirs, ours), (Some(99), 1)),
            other => panic!("{other:?}"),
        },
        other => panic!("expected Protocol, got {:?}", other.map(|t| t.name())),
    }
}

/// A PushConfig request frame, as kipcheck sends it.
fn push_frame() -> Vec<u8> {
    let header = RequestHeader {
        request_api_key: 95,
        request_api_version: 0,
        correlation_id: 1,
        client_id: Some("t".into()),
        ..Default::default()
    };
    codec::encode_request_frame(
        &header,
        &RequestBody::PushConfig(Default::default()),
        &ProvisionalNumbers::default(),
    )
    .expect("encodes")
}

/// Starts the fixture in `mode` and opens a session for a simple broker scenario.
async fn open_session(
    mode: &str,
    opts: ExecOptions,
    encoding: FrameEncoding,
) -> Box<dyn kipcheck::adapter::Session> {
    let target = ExecTarget::start(&misbehave(mode), opts).expect("hello");
    assert_eq!(target.encoding(), encoding);
    open_scenario(&target, "b1324-empty-configs-accepted").await
}

/// Opens a session of `target` for scenario `id`'s setup and profile.
async fn open_scenario(target: &ExecTarget, id: &str) -> Box<dyn kipcheck::adapter::Session> {
    let s = one(id);
    let config = SessionConfig {
        id: s.file.id.clone(),
        setup: s.file.setup.clone(),
        profile: s.profile.clone(),
        seed: 1,
        roles: s.file.roles.clone(),
    };
    bounded(target.open(config)).await.expect("open")
}

/// Opens a session on `mode`, sends one request and returns the error it gives.
async fn first_send_error(mode: &str, opts: ExecOptions) -> AdapterError {
    let mut session = open_session(mode, opts, FrameEncoding::Json).await;
    bounded(session.send(0, Outbound::raw(push_frame())))
        .await
        .expect_err("the adapter misbehaves")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_mid_scenario_is_crashed_with_the_stderr_tail() {
    match first_send_error("crash_mid", small()).await {
        AdapterError::Crashed(e) => match *e {
            Crash::ProcessGone {
                end: ProcessEnd::Exited(status),
                tails,
                ..
            } => {
                assert_eq!(status.code(), Some(4));
                assert!(
                    tails
                        .stderr
                        .contains("misbehave: about to misbehave (crash_mid)"),
                    "{tails:?}"
                );
            }
            other => panic!("{other:?}"),
        },
        e => panic!("expected Crashed, got {e:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_is_a_protocol_error() {
    match first_send_error("garbage", small()).await {
        AdapterError::Protocol(e) => match *e {
            ProtocolViolation {
                violation: Violation::NotJson { line, .. },
                ..
            } => assert_eq!(line, "this is not JSON"),
            other => panic!("{other:?}"),
        },
        e => panic!("expected Protocol, got {e:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_of_the_wrong_type_is_a_protocol_error() {
    match first_send_error("wrong_type", small()).await {
        AdapterError::Protocol(e) => match *e {
            ProtocolViolation {
                violation: Violation::UnexpectedReply { sent, .. },
                ..
            } => assert_eq!(sent, "send"),
            other => panic!("{other:?}"),
        },
        e => panic!("expected Protocol, got {e:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_over_long_line_is_a_protocol_error() {
    match first_send_error("long_line", small()).await {
        AdapterError::Protocol(e) => match *e {
            ProtocolViolation {
                violation: Violation::LineTooLong { max },
                ..
            } => assert_eq!(max, 65536),
            other => panic!("{other:?}"),
        },
        e => panic!("expected Protocol, got {e:?}"),
    }
}

fn alive(pid: u32) -> bool {
    // A killed process may linger as a zombie until reaped: that is not alive.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silence_times_out_and_the_process_group_is_killed() {
    let pidfile = Path::new(env!("CARGO_TARGET_TMPDIR")).join("exec_silent.pid");
    let _ = std::fs::remove_file(&pidfile);
    let opts = ExecOptions {
        call_timeout: Duration::from_secs(3),
        ..small()
    };
    let mode = format!("silent {}", pidfile.display());
    match first_send_error(&mode, opts).await {
        AdapterError::Timeout(e) => match *e {
            TimedOut::Process {
                waiting: Waiting::Answer,
                ms,
                tails,
                ..
            } => {
                assert_eq!(ms, 3000);
                assert!(
                    tails
                        .stderr
                        .contains("misbehave: about to misbehave (silent)"),
                    "{tails:?}"
                );
            }
            other => panic!("{other:?}"),
        },
        e => panic!("expected Timeout, got {e:?}"),
    }
    // The session was dropped with the error: its grandchild `sleep` must go too.
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .expect("the fixture wrote its grandchild's pid")
        .trim()
        .parse()
        .expect("a pid");
    let mut gone = false;
    for _ in 0..100 {
        if !alive(pid) {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(gone, "grandchild {pid} survived the session");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_misbehaving_adapter_is_an_errored_verdict_not_a_panic() {
    let target = ExecTarget::start(&misbehave("crash_mid"), small()).expect("hello");
    let s = one("b1324-empty-configs-accepted");
    let outcome = bounded(execute(&target, &s, 1)).await;
    assert_eq!(outcome.verdict, Verdict::Errored, "{outcome:?}");
    let f = outcome.failure.expect("a failure");
    assert_eq!(f.step, Some(0));
    assert!(f.message.starts_with("target failed: "), "{}", f.message);
    assert!(
        f.message
            .contains("misbehave: about to misbehave (crash_mid)"),
        "{}",
        f.message
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn base64_encoding_passes_frames_through_untouched_both_ways() {
    let mut session = open_session("base64", small(), FrameEncoding::Base64).await;
    let header = RequestHeader {
        request_api_key: 18,
        request_api_version: 0,
        correlation_id: 0x0102_0304,
        client_id: Some("t".into()),
        ..Default::default()
    };
    let request = codec::encode_request_frame(
        &header,
        &RequestBody::ApiVersions(Default::default()),
        &ProvisionalNumbers::default(),
    )
    .expect("encodes");
    bounded(session.send(0, Outbound::raw(request)))
        .await
        .expect("sent");
    let out = bounded(session.recv(0, 0)).await.expect("recv");
    // The fixture's hand-built frame, byte for byte: size 16, correlation id, ErrorCode 0,
    // one ApiKeys entry (18, 0, 4).
    let expected: Vec<u8> = vec![0, 0, 0, 16, 1, 2, 3, 4, 0, 0, 0, 0, 0, 1, 0, 18, 0, 0, 0, 4];
    assert_eq!(out, Some(ConnOutput::Frame(expected)));
    assert_eq!(bounded(session.recv(0, 0)).await.expect("recv"), None);
}

#[test]
fn kipcheck_run_exits_3_when_the_adapter_cannot_say_hello() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kipcheck"))
        .current_dir(repo())
        .args(["run", "--kip", "1324", "--report-dir"])
        .arg(Path::new(env!("CARGO_TARGET_TMPDIR")).join("exec_exit3"))
        .arg("--target")
        .arg(format!("exec:{}", misbehave("crash_at_start")))
        .output()
        .expect("kipcheck runs");
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("misbehave: cannot load my configuration"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn advance_until_request_stops_the_virtual_clock_at_the_request() {
    let mut session = open_session("client_clock", small(), FrameEncoding::Json).await;
    bounded(session.act(PeerAction::Start))
        .await
        .expect("start");
    // Already queued: no time passes.
    let first = bounded(session.next_request(0)).await.expect("request");
    assert_eq!(first.as_ref().map(|r| (r.node, r.at_ms)), Some((1, 0)));
    // The retry is due at 100 ms: waiting up to 5000 ms stops exactly there.
    let retry = bounded(session.next_request(5000))
        .await
        .expect("request")
        .expect("the retry");
    assert_eq!((retry.node, retry.at_ms), (1, 100));
    assert_eq!(session.now_ms(), 100);
    let decoded = codec::decode_request_frame(
        &retry.frame,
        codec::limits::DEFAULT_MAX_FRAME_SIZE,
        &ProvisionalNumbers::default(),
    )
    .expect("kipcheck encoded the adapter's JSON request");
    assert_eq!(decoded.header.correlation_id, 2);
    // Nothing more: the whole wait passes.
    assert_eq!(bounded(session.next_request(250)).await.expect("ok"), None);
    assert_eq!(session.now_ms(), 350);
    bounded(session.advance(50)).await.expect("advance");
    assert_eq!(session.now_ms(), 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clock_moved_past_the_advance_is_a_protocol_error() {
    let mut session = open_session("overshoot", small(), FrameEncoding::Json).await;
    match bounded(session.advance(10)).await {
        Err(AdapterError::Protocol(e)) => match *e {
            ProtocolViolation {
                violation: Violation::Overshot { ms, start, now },
                ..
            } => assert_eq!((ms, start, now), (10, 0, 11)),
            other => panic!("{other:?}"),
        },
        other => panic!("expected Protocol, got {other:?}"),
    }
}

#[test]
fn exec_line_cap_is_set_from_the_command_line_and_kept_in_the_reproduction() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kipcheck"))
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .args([
            "run",
            "--id",
            "b1324-advertise-every-api-versions-version",
            "--seed",
            "3",
        ])
        .args(["--exec-max-line-bytes", "1000", "--report-dir"])
        .arg(Path::new(env!("CARGO_TARGET_TMPDIR")).join("exec_line_cap"))
        .arg("--target")
        .arg(format!("exec:{}", misbehave("long_line")))
        .output()
        .expect("kipcheck runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.contains("wrote a line longer than 1000 bytes"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "--exec-max-line-bytes 1000 --seed 3 --id b1324-advertise-every-api-versions-version"
        ),
        "{stdout}"
    );
}

type BoxedSession = Box<dyn kipcheck::adapter::Session>;

/// A session on the client fixture (`exec_fixtures/client_reconnect.py`), which fails any
/// `respond` not decoded against the request it answers.
async fn client_session() -> BoxedSession {
    let command = format!(
        "python3 {}",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/exec_fixtures/client_reconnect.py")
            .display()
    );
    let target = ExecTarget::start(&command, small()).expect("hello");
    open_scenario(&target, "c1324-retry-on-disconnect").await
}

async fn act(session: &mut BoxedSession, action: PeerAction) {
    bounded(session.act(action)).await.expect("peer action");
}

/// The client's next request to node 1, which must be `api`: (api, version, correlation id).
async fn expect_next(session: &mut BoxedSession, api: &'static str) -> (&'static str, i16, i32) {
    let req = bounded(session.next_request(0))
        .await
        .expect("request")
        .expect("a request is queued");
    let d = codec::decode_request_frame(
        &req.frame,
        codec::limits::DEFAULT_MAX_FRAME_SIZE,
        &ProvisionalNumbers::default(),
    )
    .expect("decodes");
    assert_eq!(
        (req.node, RequestBody::info(d.api_key).map(|i| i.name)),
        (1, Some(api))
    );
    (api, d.header.request_api_version, d.header.correlation_id)
}

/// kipcheck's answer, as emulated node 1, to `(api, version, correlation id)`; the fixture
/// refuses it unless kipcheck decoded it as that API.
async fn answer(session: &mut BoxedSession, (api, version, correlation_id): (&str, i16, i32)) {
    let body = match api {
        "ApiVersions" => ResponseBody::ApiVersions(emulated_api_versions(Some(ApiKey(95)), false)),
        _ => ResponseBody::PushConfig(Default::default()),
    };
    let header = ResponseHeader {
        correlation_id,
        ..Default::default()
    };
    let frame = codec::encode_response_frame(&header, &body, version).expect("encodes");
    bounded(session.respond(1, frame))
        .await
        .unwrap_or_else(|e| panic!("{api} answered: {e:?}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_disconnect_the_new_connections_answers_decode_as_their_own_requests() {
    let mut session = client_session().await;
    act(&mut session, PeerAction::Start).await;
    let av = expect_next(&mut session, "ApiVersions").await;
    answer(&mut session, av).await;
    expect_next(&mut session, "PushConfig").await;
    // The PushConfig is lost with the connection; the client reconnects only when told.
    act(&mut session, PeerAction::Disconnect(1)).await;
    assert!(bounded(session.next_request(0))
        .await
        .expect("ok")
        .is_none());
    act(&mut session, PeerAction::Connect(1)).await;
    // Decoded as ApiVersions, not as the PushConfig the disconnect discarded.
    let av = expect_next(&mut session, "ApiVersions").await;
    answer(&mut session, av).await;
    let push = expect_next(&mut session, "PushConfig").await;
    answer(&mut session, push).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_request_is_not_the_one_the_next_answer_is_decoded_for() {
    let mut session = client_session().await;
    act(&mut session, PeerAction::Start).await;
    let first = expect_next(&mut session, "ApiVersions").await;
    // The first ApiVersions times out (never answered); the client sends it again at once.
    act(&mut session, PeerAction::Timeout(1)).await;
    let again = expect_next(&mut session, "ApiVersions").await;
    assert_ne!(again.2, first.2);
    answer(&mut session, again).await;
    // Decoded as PushConfig, not as the retried ApiVersions the timeout left behind.
    let push = expect_next(&mut session, "PushConfig").await;
    answer(&mut session, push).await;
}
