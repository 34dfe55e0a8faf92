//! The load driver against `kipcheck serve`: every handshake it counts really reached the
//! broker model (one policy invocation per PushConfig), and idle connections are held.
//! A correctness test only; the speed numbers are in the README (scripts/bench-serve.sh).

use std::time::Duration;

use kipcheck::model::SpecProfile;
use kipcheck::serve::{hold_idle, run_load, LoadPlan, ServeOptions, Server};

/// `kipcheck serve`'s server on a free port, keeping no records.
async fn server() -> Server {
    Server::start(
        "127.0.0.1:0",
        ServeOptions {
            keep_records: false,
            ..Default::default()
        },
        None,
    )
    .await
    .unwrap()
}

/// `connections` connections repeating the whole handshake for `ms` milliseconds, unpaced.
fn plan(srv: &Server, connections: usize, ms: u64) -> LoadPlan {
    LoadPlan {
        addr: srv.local_addr().to_string(),
        connections,
        duration: Duration::from_millis(ms),
        api_versions_only: false,
        new_connection: false,
        rate: None,
        numbers: SpecProfile::default().provisional,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_counted_handshake_reached_the_policy() {
    let srv = server().await;
    let plan = plan(&srv, 4, 300);
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paced_load_on_new_connections_offers_at_most_its_rate() {
    let srv = server().await;
    // 100 handshakes/s over 2 connections: one every 20 ms each, the first at once, so at
    // most 26 each in 500 ms; unpaced, a loopback server answers thousands.
    let plan = LoadPlan {
        new_connection: true,
        rate: Some(100),
        ..plan(&srv, 2, 500)
    };
    let r = tokio::time::timeout(Duration::from_secs(30), run_load(&plan))
        .await
        .unwrap();
    assert_eq!(r.errors, 0);
    assert!(r.handshakes > 0 && r.handshakes <= 52, "{r:?}");
    // Every handshake reached the policy, and each connection was closed after its one
    // handshake: none is left open.
    assert_eq!(srv.policy_invocations(), r.handshakes);
    for _ in 0..100 {
        if srv.live_connections() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(srv.live_connections(), 0);
}
