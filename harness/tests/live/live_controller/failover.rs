//! The `failover` step on a live controller (a module of `live_controller.rs`): the manifest's
//! `failover:` command, run for the step. `kipcheck serve --role controller --write-manifest FILE`
//! (a child process) fails over on SIGHUP and writes the entry that triggers it; a failing
//! command errors the scenario; without the entry the step is unsupported.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::Arc;

use kipcheck::adapter::failover::FailoverCommand;
use kipcheck::adapter::manifest::{load_manifest, parse_manifest, TargetManifest};
use kipcheck::adapter::{target_from_spec, Target, TargetOptions};
use kipcheck::model::SpecProfile;
use kipcheck::runner::{execute, Verdict};
use kipcheck::scenario::{load_file, load_text, Capability, Role, Scenario};
use kipcheck::serve::{
    render_manifest, served_manifest, ControllerOptions, ManifestFacts, ServeOptions, Server,
};

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
}

fn scenario(rel: &str) -> Scenario {
    load_file(&suite().join(rel), &suite()).unwrap()
}

/// A `kipcheck serve --role controller` child, killed (by its own pid) when dropped.
struct Served {
    child: Child,
    _stdout: BufReader<ChildStdout>,
    addr: String,
    manifest: TargetManifest,
    dir: PathBuf,
}

impl Served {
    /// Starts it at `level` with `args`; returns once it printed its address (its stdout
    /// closing first means it did not start: the test fails with its stderr).
    fn start(name: &str, level: i16, args: &[&str]) -> Served {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("failover-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let manifest_path = dir.join("manifest.yaml");
        let mut child = Command::new(env!("CARGO_BIN_EXE_kipcheck"))
            .args(["serve", "--role", "controller", "--listen", "127.0.0.1:0"])
            .args(["--metadata-version", &level.to_string()])
            .arg("--write-manifest")
            .arg(&manifest_path)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let Some(addr) = line.trim().strip_prefix("kipcheck serve: listening on ") else {
            let _ = child.kill();
            let mut err = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut err);
            panic!("serve did not start: {line:?} {err}");
        };
        let manifest = load_manifest(&manifest_path).unwrap();
        Served {
            addr: addr.to_owned(),
            child,
            _stdout: stdout,
            manifest,
            dir,
        }
    }

    /// The `tcp://` target for it, bound through `manifest`, following `readings`.
    async fn target(
        &self,
        manifest: TargetManifest,
        readings: Option<SpecProfile>,
    ) -> Arc<dyn Target> {
        let opts = TargetOptions {
            role: Some(Role::Controller),
            manifest: Some(manifest),
            readings,
            metadata_log: Some(self.addr.clone()),
            ..TargetOptions::default()
        };
        let spec = format!("tcp://{}", self.addr);
        tokio::task::spawn_blocking(move || target_from_spec(&spec, &opts))
            .await
            .unwrap()
            .unwrap()
    }

    /// Ends it and returns what it wrote on stderr.
    fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut err = String::new();
        let _ = self.child.stderr.take().unwrap().read_to_string(&mut err);
        err
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_written_manifest_fails_the_served_controller_over_and_the_scenario_passes() {
    let served = Served::start("reference", 35, &[]);
    let f = served.manifest.failover.clone().unwrap();
    assert_eq!(
        f,
        FailoverCommand {
            command: format!(
                "m='{}/manifest.yaml.failing-over'; : > \"$m\" && kill -HUP {} && \
                 while [ -e \"$m\" ] && [ ! -s \"$m\" ]; do sleep 0.01; done; \
                 if [ -s \"$m\" ]; then cat \"$m\" >&2; rm -f \"$m\"; exit 1; fi",
                served.dir.display(),
                served.child.id()
            ),
            timeout_ms: 10_000,
            ready_timeout_ms: 10_000,
        }
    );
    let t = served.target(served.manifest.clone(), None).await;
    assert!(t
        .capabilities()
        .capabilities
        .contains(&Capability::Failover));
    let s = scenario("kip1326/k1326-ctrl-failover-log-continues.yaml");
    let out = execute(t.as_ref(), &s, 1).await;
    // Judged after the failover on a new connection (the served controller closes the
    // ones open at its failover): broker 2's registration and record, broker 1's
    // unregistration and record, all read from the same, continued log.
    assert_eq!(out.verdict, Verdict::Passed, "{:?}", out.failure);
    assert_eq!(out.steps_judged, 6);
    drop(t);
    let err = served.stop();
    assert_eq!(
        err,
        "kipcheck serve: failover 1: rebuilt from the metadata log\n"
    );
}

/// Broker 1 registers with one static config, the controller fails over, broker 1
/// re-registers with another: under `reregistration: merge` the new record carries both,
/// which only a controller that rebuilt broker 1's StaticConfigs from its log can write.
const MERGED_AFTER_FAILOVER: &str = r#"
id: failover-merged-static-configs
title: StaticConfigs merged across a failover
kip: KIP-1326
grade: MUST
roles: [controller]
requires: [static_configs, metadata_version]
profile: { first_static_configs_version: 6, reregistration: merge }
setup:
  controller:
    metadata_version: 35
steps:
  - send:
      api: BrokerRegistration
      version: 6
      body:
        BrokerId: 1
        ClusterId: kipcheck-cluster
        IncarnationId: AAAAAAAAAAAAAAAAAAAAAQ
        Listeners: [ { Name: PLAINTEXT, Host: localhost, Port: 9093, SecurityProtocol: 0 } ]
        Features: [ { Name: metadata.version, MinSupportedVersion: 1, MaxSupportedVersion: 40 } ]
        StaticConfigs: [ { Name: num.io.threads, Value: "16" } ]
  - expect_response: { body: { ErrorCode: NONE } }
  - failover
  - send:
      api: BrokerRegistration
      version: 6
      body:
        BrokerId: 1
        ClusterId: kipcheck-cluster
        IncarnationId: AAAAAAAAAAAAAAAAAAAAAg
        Listeners: [ { Name: PLAINTEXT, Host: localhost, Port: 9093, SecurityProtocol: 0 } ]
        Features: [ { Name: metadata.version, MinSupportedVersion: 1, MaxSupportedVersion: 40 } ]
        StaticConfigs: [ { Name: num.network.threads, Value: "4" } ]
  - expect_response: { body: { ErrorCode: NONE } }
  - expect_event:
      count: 1
      event: { event: record_appended, version: 5, record: { BrokerId: 1, StaticConfigs: { $len: 2 } } }
"#;

/// The built-in profile with the other re-registration reading, as a file.
fn merge_profile(dir: &Path) -> PathBuf {
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../crates/model/src/default_profile.yaml"
    ))
    .replace("reregistration: replace", "reregistration: merge");
    assert!(text.contains("reregistration: merge"));
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("merge-profile.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_faulty_replay_is_caught_live_through_the_failover_step() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("failover-profiles");
    let profile = merge_profile(&dir);
    let readings = SpecProfile::from_yaml(&std::fs::read_to_string(&profile).unwrap()).unwrap();
    let profile = profile.to_str().unwrap();
    let s = load_text(
        MERGED_AFTER_FAILOVER,
        &suite().join("kip1326/failover-merged-static-configs.yaml"),
        &suite(),
    )
    .unwrap();
    for (name, fault, verdict) in [
        ("merge-reference", None, Verdict::Passed),
        (
            "merge-faulty",
            Some("loses-static-configs-on-failover"),
            Verdict::Failed,
        ),
    ] {
        let mut args = vec!["--profile", profile];
        if let Some(f) = fault {
            args.extend(["--fault", f]);
        }
        let served = Served::start(name, 35, &args);
        let t = served
            .target(served.manifest.clone(), Some(readings.clone()))
            .await;
        let out = execute(t.as_ref(), &s, 1).await;
        assert_eq!(
            out.verdict, verdict,
            "{name}: {:?} {:?}",
            out.failure, out.unsupported_reason
        );
        assert_eq!(out.steps_judged, 3, "{name}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_failover_command_errors_the_scenario_with_its_status_and_stderr() {
    let c = ControllerOptions {
        metadata_version: 35,
        ..ControllerOptions::default()
    };
    let facts = ManifestFacts {
        software: "served".into(),
        finalized: 35,
        persistence_level: SpecProfile::default().static_config_persistence_level,
        cluster_id: c.cluster_id.clone(),
        node_id: 1,
        failover: Some(FailoverCommand {
            command: "echo no standby controller >&2; exit 3".into(),
            timeout_ms: 10_000,
            ready_timeout_ms: 10_000,
        }),
    };
    let text = render_manifest(&served_manifest(&c.defs, &facts));
    let manifest = parse_manifest(&text, Path::new("served.yaml")).unwrap();
    let opts = ServeOptions {
        controller: Some(c),
        keep_records: false,
        ..ServeOptions::default()
    };
    let server = Server::start("127.0.0.1:0", opts, None).await.unwrap();
    let addr = server.local_addr().to_string();
    let topts = TargetOptions {
        manifest: Some(manifest),
        metadata_log: Some(addr.clone()),
        ..TargetOptions::default()
    };
    let t = crate::fake_controller::tcp_controller(&addr, topts).await;
    let s = scenario("kip1326/k1326-ctrl-failover-log-continues.yaml");
    let out = execute(t.as_ref(), &s, 1).await;
    assert_eq!(out.verdict, Verdict::Errored, "{:?}", out.failure);
    let failure = format!("{:?}", out.failure.unwrap());
    assert!(
        failure.contains(
            "failover: `echo no standby controller >&2; exit 3` exited with status 3; \
             stderr tail:\\nno standby controller"
        ),
        "{failure}"
    );
    // Judged before the failover: the first registration and its record.
    assert_eq!(out.steps_judged, 2);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_failover_entry_the_step_is_unsupported() {
    let served = Served::start("no-entry", 35, &[]);
    let mut m = served.manifest.clone();
    m.failover = None;
    let t = served.target(m, None).await;
    assert!(!t
        .capabilities()
        .capabilities
        .contains(&Capability::Failover));
    let out = execute(
        t.as_ref(),
        &scenario("kip1326/k1326-ctrl-failover-log-continues.yaml"),
        1,
    )
    .await;
    assert_eq!(out.verdict, Verdict::Unsupported);
}
