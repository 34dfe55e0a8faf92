//! The load driver against `kipcheck serve`: every handshake it counts really reached the
//! broker model (one policy invocation per PushConfig), and idle connections are held.
//! A correctness test only; the speed numbers are in the README (bench/run.sh).

use std::time::Duration;

use kipcheck::model::SpecProfile;
use kipcheck::serve::{hold_idle, run_load, LoadPlan, ServeOptions, Server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_counted_handshake_reached_the_policy() {
    let srv = Server::start(
        "127.0.0.1:0",
        ServeOptions {
            keep_records: false,
            ..Default::default()
        },
        None,
    )
    .await
    .unwrap();
    let plan = LoadPlan {
        addr: srv.local_addr().to_string(),
        connections: 4,
        duration: Duration::from_millis(300),
        api_versions_only: false,
        numbers: SpecProfile::default().provisional,
    };
    let r = tokio::time::timeout(Duration::from_secs(30), run_load(&plan))
        .await
        .unwrap();
    assert_eq!(r.errors, 0);
    assert!(r.handshakes > 0);
    assert!(r.p50_us <= r.p99_us);
    assert_eq!(srv.policy_invocations(), r.handshakes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_are_held_and_counted() {
    let srv = Server::start("127.0.0.1:0", ServeOptions::default(), None)
        .await
        .unwrap();
    let addr = srv.local_addr().to_string();
    let holder =
        tokio::spawn(async move { hold_idle(&addr, 50, Duration::from_millis(500)).await });
    let seen = tokio::time::timeout(Duration::from_secs(10), async {
        while srv.live_connections() < 50 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(
        seen.is_ok(),
        "server saw {} connections",
        srv.live_connections()
    );
    assert_eq!(holder.await.unwrap(), 50);
}
