//! `kipcheck client` (the live reference client) against kipcheck's own emulated broker
//! (`kipcheck serve`'s [`Server`], in-process, on a loopback port): what goes on the wire,
//! when user requests are released on the wall clock, what a faulty variant does instead, and
//! the stdin/stdout channel and exit of the binary. Timing bounds are generous (a loaded
//! 2-core machine): lower bounds are what the model must wait, upper bounds only catch a
//! client that waits for the wrong thing.

use kipcheck::faulty::{Fault, Faults};
use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use kipcheck::codec::{
    self, limits::DEFAULT_MAX_FRAME_SIZE, ApiKey, ErrorCode, PushConfigResponse, RequestBody,
};
use kipcheck::live_client::{run_client, ClientSetup, Control, LiveOptions, Report};
use kipcheck::model::{ClientType, SpecProfile};
use kipcheck::scenario::BrokerSetup;
use kipcheck::serve::{
    Direction, FrameRecord, PushReply, ScriptStep, ServeOptions, ServeScript, Server,
};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

const WAIT: Duration = Duration::from_secs(10);

/// A file path of this test process's own (removed by the OS's temp cleanup).
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kipcheck-live-client-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn config(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

async fn server(steps: Vec<ScriptStep>, broker: BrokerSetup) -> Server {
    let opts = ServeOptions {
        script: ServeScript {
            broker,
            steps: VecDeque::from(steps),
        },
        ..Default::default()
    };
    Server::start("127.0.0.1:0", opts, None)
        .await
        .expect("bind")
}

fn respond(code: ErrorCode, throttle_time_ms: i32) -> ScriptStep {
    ScriptStep {
        delay_ms: 0,
        reply: PushReply::Respond(PushConfigResponse {
            error_code: code.0,
            throttle_time_ms,
            ..Default::default()
        }),
    }
}

/// A running live client and its reports.
struct Client {
    control: Option<mpsc::UnboundedSender<Control>>,
    reports: mpsc::UnboundedReceiver<Report>,
    task: tokio::task::JoinHandle<()>,
    started: Instant,
}

impl Client {
    fn start(srv: &Server, ty: ClientType, user: &[(&str, &str)], faults: Faults) -> Self {
        Self::start_with(srv, ty, false, user, faults)
    }

    fn start_with(
        srv: &Server,
        client_type: ClientType,
        embedded: bool,
        user: &[(&str, &str)],
        faults: Faults,
    ) -> Self {
        let opts = LiveOptions {
            setup: ClientSetup {
                client_type,
                embedded,
                bootstrap: vec![srv.local_addr().to_string()],
                user_config: config(user),
                timing_defaults: Default::default(),
            },
            profile: SpecProfile::default(),
            faults,
            seed: 1,
        };
        let (control, control_rx) = mpsc::unbounded_channel();
        let (report_tx, reports) = mpsc::unbounded_channel();
        let task = tokio::spawn(async move {
            run_client(opts, control_rx, report_tx)
                .await
                .expect("client runs");
        });
        Self {
            control: Some(control),
            reports,
            task,
            started: Instant::now(),
        }
    }

    fn user_request(&self, id: u64) {
        self.control(Control::UserRequest(id));
    }

    /// A line on the control channel.
    fn control(&self, c: Control) {
        self.control
            .as_ref()
            .expect("running")
            .send(c)
            .expect("client alive");
    }

    /// The next release and the wall-clock time since start it came at.
    async fn released(&mut self) -> (u64, Duration) {
        let until = tokio::time::Instant::now() + WAIT;
        loop {
            match tokio::time::timeout_at(until, self.reports.recv()).await {
                Ok(Some(Report::Released { id, .. })) => return (id, self.started.elapsed()),
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => panic!("no release within {WAIT:?}"),
            }
        }
    }

    /// Closes the control channel (stdin) and waits for the client to end.
    async fn stop(mut self) -> Vec<Report> {
        self.control = None;
        tokio::time::timeout(Duration::from_secs(2), &mut self.task)
            .await
            .expect("the client ends when its control channel closes")
            .expect("no panic");
        let mut rest = Vec::new();
        while let Ok(r) = self.reports.try_recv() {
            rest.push(r);
        }
        rest
    }
}

fn requests(records: &[FrameRecord]) -> Vec<&FrameRecord> {
    records.iter().filter(|r| r.dir == Direction::In).collect()
}

fn keys(records: &[FrameRecord]) -> Vec<i16> {
    requests(records).iter().filter_map(|r| r.api_key).collect()
}

const API_VERSIONS: i16 = ApiKey::API_VERSIONS.0;
const PUSH_CONFIG: i16 = 95;

fn push_configs(records: &[FrameRecord]) -> Vec<&FrameRecord> {
    requests(records)
        .into_iter()
        .filter(|r| r.api_key == Some(PUSH_CONFIG))
        .collect()
}

fn decode(r: &FrameRecord) -> RequestBody {
    let bytes = codec::from_hex(&r.hex).expect("hex");
    codec::decode_request_frame(
        &bytes,
        DEFAULT_MAX_FRAME_SIZE,
        &SpecProfile::default().provisional,
    )
    .expect("the client's request decodes")
    .body
}

#[tokio::test]
async fn handshake_then_the_held_user_request_is_released() {
    let srv = server(Vec::new(), BrokerSetup::default()).await;
    let mut c = Client::start(
        &srv,
        ClientType::Consumer,
        &[("group.id", "orders"), ("client.id", "c-7")],
        Faults::none(),
    );
    c.user_request(1);
    assert_eq!(c.released().await.0, 1);
    let rec = srv.recorder().records();
    assert_eq!(keys(&rec), vec![API_VERSIONS, PUSH_CONFIG]);
    let RequestBody::PushConfig(push) = decode(push_configs(&rec)[0]) else {
        panic!("not a PushConfig");
    };
    let sent: BTreeMap<String, (String, bool)> = push
        .configs
        .iter()
        .map(|e| {
            (
                e.config_key.to_string(),
                (e.config_value.to_string(), e.is_default),
            )
        })
        .collect();
    assert_eq!(sent.len(), 11, "the consumer's 11 default keys: {sent:?}");
    assert_eq!(sent["group.id"], ("orders".into(), false));
    assert_eq!(sent["client.id"], ("c-7".into(), false));
    assert_eq!(sent["session.timeout.ms"], ("45000".into(), true));
    // After the handshake a request goes ahead at once.
    c.user_request(2);
    let (id, _) = c.released().await;
    assert_eq!(id, 2);
    assert_eq!(
        keys(&srv.recorder().records()).len(),
        2,
        "no second handshake"
    );
    let rest = c.stop().await;
    assert!(rest.iter().all(|r| !matches!(r, Report::Released { .. })));
}

#[tokio::test]
async fn a_retriable_error_is_retried_after_the_configured_backoff() {
    let srv = server(
        vec![respond(ErrorCode::COORDINATOR_LOAD_IN_PROGRESS, 0)],
        BrokerSetup::default(),
    )
    .await;
    let mut c = Client::start(
        &srv,
        ClientType::Admin,
        &[("retry.backoff.ms", "300"), ("retry.backoff.max.ms", "300")],
        Faults::none(),
    );
    c.user_request(1);
    assert_eq!(c.released().await.0, 1);
    let rec = srv.recorder().records();
    let pushes = push_configs(&rec);
    assert_eq!(pushes.len(), 2, "one retry, then accepted");
    let gap = pushes[1].at_ms - pushes[0].at_ms;
    // 300 ms ± 20 % jitter; the upper bound leaves room for a loaded machine.
    assert!((240..1500).contains(&gap), "retry after {gap} ms");
    c.stop().await;
}

#[tokio::test]
async fn throttle_time_delays_the_retry_and_the_faulty_variant_ignores_it() {
    for (faults, throttled) in [
        (Faults::none(), true),
        (Faults::one(Fault::IgnoresThrottle), false),
    ] {
        let srv = server(
            vec![respond(ErrorCode::REQUEST_TIMED_OUT, 800)],
            BrokerSetup::default(),
        )
        .await;
        let mut c = Client::start(&srv, ClientType::Consumer, &[("group.id", "g")], faults);
        c.user_request(1);
        c.released().await;
        let rec = srv.recorder().records();
        let pushes = push_configs(&rec);
        assert_eq!(pushes.len(), 2);
        let gap = pushes[1].at_ms - pushes[0].at_ms;
        if throttled {
            assert!(gap >= 790, "retry {gap} ms after an 800 ms throttle");
        } else {
            assert!(
                gap < 790,
                "the variant waits {gap} ms: it should ignore the throttle"
            );
        }
        c.stop().await;
    }
}

#[tokio::test]
async fn an_unanswered_push_releases_user_requests_at_the_deadline() {
    // The broker holds the PushConfig answer for 10 s; default.api.timeout.ms is 400.
    let hold = ScriptStep {
        delay_ms: 10_000,
        reply: PushReply::Model,
    };
    let srv = server(vec![hold], BrokerSetup::default()).await;
    let mut c = Client::start(
        &srv,
        ClientType::Admin,
        &[("default.api.timeout.ms", "400")],
        Faults::none(),
    );
    c.user_request(1);
    let (id, at) = c.released().await;
    assert_eq!(id, 1);
    assert!(
        (Duration::from_millis(390)..Duration::from_millis(3000)).contains(&at),
        "released after {at:?}"
    );
    c.stop().await;
}

#[tokio::test]
async fn the_faulty_variant_lets_user_requests_through_during_the_handshake() {
    let hold = ScriptStep {
        delay_ms: 1_000,
        reply: PushReply::Model,
    };
    for (faults, held) in [
        (Faults::none(), true),
        (Faults::one(Fault::DoesNotBlockUserRequests), false),
    ] {
        let srv = server(vec![hold.clone()], BrokerSetup::default()).await;
        let mut c = Client::start(&srv, ClientType::Consumer, &[("group.id", "g")], faults);
        c.user_request(1);
        let (_, at) = c.released().await;
        assert_eq!(
            at >= Duration::from_millis(990),
            held,
            "released after {at:?}"
        );
        c.stop().await;
    }
}

#[tokio::test]
async fn an_older_broker_and_an_embedded_client_get_no_push() {
    let old = BrokerSetup {
        policy: None,
        ..Default::default()
    };
    let srv = server(Vec::new(), old).await;
    let mut c = Client::start(
        &srv,
        ClientType::Consumer,
        &[("group.id", "g")],
        Faults::none(),
    );
    c.user_request(1);
    c.released().await;
    c.stop().await;
    assert_eq!(keys(&srv.recorder().records()), vec![API_VERSIONS]);

    let srv = server(Vec::new(), BrokerSetup::default()).await;
    let mut c = Client::start_with(&srv, ClientType::Consumer, true, &[], Faults::none());
    c.user_request(1);
    c.released().await;
    assert!(
        srv.recorder()
            .wait_until(WAIT, |r| keys(r) == vec![API_VERSIONS])
            .await
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    c.stop().await;
    assert_eq!(keys(&srv.recorder().records()), vec![API_VERSIONS]);
}

#[tokio::test]
async fn a_broker_that_closes_mid_push_is_not_redialled_and_the_deadline_releases() {
    let close = ScriptStep {
        delay_ms: 0,
        reply: PushReply::Disconnect,
    };
    let srv = server(vec![close], BrokerSetup::default()).await;
    let mut c = Client::start(
        &srv,
        ClientType::Consumer,
        &[("group.id", "g"), ("default.api.timeout.ms", "500")],
        Faults::none(),
    );
    c.user_request(1);
    let (_, at) = c.released().await;
    assert!(at >= Duration::from_millis(490), "released after {at:?}");
    c.stop().await;
    // Like the reference model, the client opens no connection the scenario did not give it.
    assert_eq!(
        keys(&srv.recorder().records()),
        vec![API_VERSIONS, PUSH_CONFIG]
    );
}

/// Waits until `srv` has recorded `n` requests.
async fn until_requests(srv: &Server, n: usize) {
    let until = Instant::now() + WAIT;
    while keys(&srv.recorder().records()).len() < n {
        assert!(
            Instant::now() < until,
            "fewer than {n} requests within {WAIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// `connect` on the control channel: a bootstrap address is the same node again (the retry
/// after the disconnect goes out on the new connection after ApiVersions), a new address is a
/// new node (ApiVersions only: the handshake is done once per client).
#[tokio::test]
async fn a_connect_control_reconnects_a_known_node_and_opens_a_new_one() {
    let close = ScriptStep {
        delay_ms: 0,
        reply: PushReply::Disconnect,
    };
    let srv = server(vec![close], BrokerSetup::default()).await;
    let other = server(Vec::new(), BrokerSetup::default()).await;
    let mut c = Client::start(
        &srv,
        ClientType::Consumer,
        &[("group.id", "g")],
        Faults::none(),
    );
    c.user_request(1);
    until_requests(&srv, 2).await;
    c.control(Control::Connect {
        node: 1,
        addr: srv.local_addr().to_string(),
    });
    assert_eq!(c.released().await.0, 1);
    assert_eq!(
        keys(&srv.recorder().records()),
        vec![API_VERSIONS, PUSH_CONFIG, API_VERSIONS, PUSH_CONFIG]
    );
    c.control(Control::Connect {
        node: 2,
        addr: other.local_addr().to_string(),
    });
    until_requests(&other, 1).await;
    c.stop().await;
    assert_eq!(keys(&other.recorder().records()), vec![API_VERSIONS]);
}

/// The binary speaks the contract: `user_request <id>` in, `released <id>` out, exit 0 when
/// stdin closes.
#[tokio::test]
async fn the_binary_speaks_the_user_request_channel_and_exits_when_stdin_closes() {
    let srv = server(Vec::new(), BrokerSetup::default()).await;
    let props = scratch("channel.properties");
    let mut f = std::fs::File::create(&props).unwrap();
    writeln!(
        f,
        "# kipcheck scenario t (seed 1)\nbootstrap.servers={}\ngroup.id=g\nkipcheck.client.embedded=false\nkipcheck.client.type=consumer",
        srv.local_addr()
    )
    .unwrap();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_kipcheck"))
        .args(["client", "--config"])
        .arg(&props)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    stdin.write_all(b"user_request 41\n").await.unwrap();
    let line = tokio::time::timeout(WAIT, stdout.next_line())
        .await
        .expect("a line")
        .unwrap();
    assert_eq!(line.as_deref(), Some("released 41"));
    stdin.write_all(b"user_request 42\n").await.unwrap();
    let line = tokio::time::timeout(WAIT, stdout.next_line())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(line.as_deref(), Some("released 42"));
    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(2), child.wait())
        .await
        .expect("exits within 2 s of stdin closing")
        .unwrap();
    assert!(status.success(), "{status}");
    assert_eq!(
        keys(&srv.recorder().records()),
        vec![API_VERSIONS, PUSH_CONFIG]
    );
}

#[test]
fn the_binary_refuses_a_configuration_without_a_client_type() {
    let props = scratch("no-type.properties");
    std::fs::write(&props, "group.id=g\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kipcheck"))
        .args(["client", "--bootstrap", "127.0.0.1:9", "--config"])
        .arg(&props)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the configuration has no kipcheck.client.type"),
        "{err}"
    );
}

#[test]
fn list_faults_prints_the_client_variants() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kipcheck"))
        .args(["client", "--list-faults"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    let want: Vec<String> = kipcheck::live_client::client_faults()
        .iter()
        .map(|f| f.name().to_owned())
        .collect();
    assert_eq!(names, want);
    assert!(names.iter().any(|n| n == "does-not-block-user-requests"));
}

#[tokio::test]
async fn the_late_answer_to_a_timed_out_push_is_not_taken_for_the_retry() {
    // request.timeout.ms 700: the first PushConfig times out (the broker answers it after
    // 1000 ms, with an error the model would not retry); the retry goes on the same
    // connection (profile `request_timeout: keep`), and only its answer completes.
    let late = ScriptStep {
        delay_ms: 1_000,
        reply: PushReply::Respond(PushConfigResponse {
            error_code: ErrorCode::INVALID_CONFIG.0,
            ..Default::default()
        }),
    };
    let srv = server(vec![late], BrokerSetup::default()).await;
    let mut c = Client::start(
        &srv,
        ClientType::Admin,
        &[
            ("request.timeout.ms", "700"),
            ("default.api.timeout.ms", "5000"),
        ],
        Faults::none(),
    );
    c.user_request(1);
    let (_, at) = c.released().await;
    assert!(at >= Duration::from_millis(990), "released after {at:?}");
    let rest = c.stop().await;
    let rec = srv.recorder().records();
    assert_eq!(push_configs(&rec).len(), 2);
    let rejected = rest.iter().any(|r| {
        matches!(r, Report::Event(e) if matches!(e.event, kipcheck::model::Event::PushRejected { .. }))
    });
    assert!(
        !rejected,
        "the stale INVALID_CONFIG was taken as the retry's answer"
    );
}
