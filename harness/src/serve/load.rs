//! The load driver behind `kipcheck load`: N connections to a Kafka-protocol server, each
//! repeating a handshake (ApiVersions v3, then a one-entry PushConfig v0 unless ApiVersions
//! only) until a deadline, or holding N idle connections open. Measures handshakes/s and
//! latency percentiles; judges nothing (an error answer still counts as an answer, a close
//! or a bad frame counts as an error).

use std::time::{Duration, Instant};

use tokio::net::TcpStream;

use crate::codec::limits::PEER_MAX_FRAME_SIZE;
use crate::codec::{
    self, push_config_request, ApiVersionsRequest, ProvisionalNumbers, PushConfigRequest,
    RequestBody, RequestHeader,
};
use crate::net::{self, FrameStream};

/// What to run.
#[derive(Clone, Debug)]
pub struct LoadPlan {
    /// `HOST:PORT`.
    pub addr: String,
    /// Concurrent connections.
    pub connections: usize,
    /// How long to run.
    pub duration: Duration,
    /// Only ApiVersions (for servers without PushConfig, e.g. librdkafka's mock cluster).
    pub api_versions_only: bool,
    /// Each handshake on a connection of its own (connect, handshake, close), as a client
    /// instance does; otherwise each connection repeats the handshake.
    pub new_connection: bool,
    /// Offered handshakes per second over all connections (each connection paces at its
    /// share); `None`: as fast as the server answers.
    pub rate: Option<u32>,
    /// Provisional numbers (PushConfig's wire key).
    pub numbers: ProvisionalNumbers,
}

/// What was measured.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct LoadReport {
    /// Completed handshakes.
    pub handshakes: u64,
    /// Connections or requests that failed (refused, closed, bad frame).
    pub errors: u64,
    /// Handshakes per second over the run.
    pub per_second: f64,
    /// Median handshake latency, µs.
    pub p50_us: u64,
    /// 99th-percentile handshake latency, µs.
    pub p99_us: u64,
}

fn request(api: RequestBody, version: i16, corr: i32, numbers: &ProvisionalNumbers) -> Vec<u8> {
    let header = RequestHeader {
        request_api_key: numbers.wire_api_key(api.api_key()).0,
        request_api_version: version,
        correlation_id: corr,
        client_id: Some("kipcheck-load".into()),
        ..Default::default()
    };
    codec::encode_request_frame(&header, &api, numbers).unwrap_or_default()
}

/// The requests of one handshake.
fn handshake(plan: &LoadPlan) -> Vec<Vec<u8>> {
    let av = RequestBody::ApiVersions(ApiVersionsRequest {
        client_software_name: Some("kipcheck-load".into()),
        client_software_version: Some("1".into()),
        ..Default::default()
    });
    let mut out = vec![request(av, 3, 1, &plan.numbers)];
    if !plan.api_versions_only {
        let push = RequestBody::PushConfig(PushConfigRequest {
            configs: vec![push_config_request::Config {
                config_key: "client.id".into(),
                config_value: "load".into(),
                config_type: 1, // STRING (ConfigDef.Type numbering)
                is_default: false,
                ..Default::default()
            }],
            ..Default::default()
        });
        out.push(request(push, 0, 2, &plan.numbers));
    }
    out
}

async fn one_connection(plan: LoadPlan, start: Instant, deadline: Instant) -> (Vec<u32>, u64) {
    let reqs = handshake(&plan);
    let mut lat = Vec::new();
    let mut errors = 0;
    // This connection's share of the offered rate: one handshake every `every`.
    let every = plan
        .rate
        .filter(|r| *r > 0)
        .map(|r| Duration::from_secs_f64(plan.connections.max(1) as f64 / f64::from(r)));
    let mut next = start;
    let pace = |next: &mut Instant| {
        let at = *next;
        if let Some(e) = every {
            *next += e;
        }
        tokio::time::sleep_until(at.into())
    };
    while Instant::now() < deadline {
        if plan.new_connection {
            pace(&mut next).await;
        }
        let Ok(Ok(s)) =
            tokio::time::timeout(Duration::from_secs(5), TcpStream::connect(&plan.addr)).await
        else {
            errors += 1;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = s.set_nodelay(true);
        let mut s = FrameStream::new(s, plan.addr.as_str(), PEER_MAX_FRAME_SIZE);
        while Instant::now() < deadline {
            if !plan.new_connection {
                pace(&mut next).await;
            }
            let t0 = Instant::now();
            let mut ok = true;
            for r in &reqs {
                let step = async {
                    net::write_frame(s.get_mut(), &plan.addr, r).await?;
                    s.next(None).await.map(drop)
                };
                if !matches!(
                    tokio::time::timeout(Duration::from_secs(5), step).await,
                    Ok(Ok(()))
                ) {
                    ok = false;
                    break;
                }
            }
            if !ok {
                errors += 1;
                break;
            }
            lat.push(u32::try_from(t0.elapsed().as_micros()).unwrap_or(u32::MAX));
            if plan.new_connection {
                break;
            }
        }
    }
    (lat, errors)
}

/// Runs `plan`: every connection repeats the handshake (on itself, or on a new connection
/// each time) until the duration is over, paced when `rate` is set.
pub async fn run_load(plan: &LoadPlan) -> LoadReport {
    let start = Instant::now();
    let deadline = start + plan.duration;
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..plan.connections {
        set.spawn(one_connection(plan.clone(), start, deadline));
    }
    let mut all = Vec::new();
    let mut errors = 0;
    while let Some(r) = set.join_next().await {
        if let Ok((lat, e)) = r {
            all.extend(lat);
            errors += e;
        }
    }
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    all.sort_unstable();
    let pct = |p: f64| -> u64 {
        if all.is_empty() {
            return 0;
        }
        let i = ((all.len() as f64 - 1.0) * p).round() as usize;
        u64::from(all[i.min(all.len() - 1)])
    };
    LoadReport {
        handshakes: all.len() as u64,
        errors,
        per_second: all.len() as f64 / secs,
        p50_us: pct(0.50),
        p99_us: pct(0.99),
    }
}

/// Opens `n` connections to `addr` and holds them, idle, for `hold`; returns how many opened.
pub async fn hold_idle(addr: &str, n: usize, hold: Duration) -> usize {
    let mut conns = Vec::with_capacity(n);
    for _ in 0..n {
        if let Ok(Ok(s)) =
            tokio::time::timeout(Duration::from_secs(5), TcpStream::connect(addr)).await
        {
            conns.push(s);
        }
    }
    let opened = conns.len();
    tokio::time::sleep(hold).await;
    drop(conns);
    opened
}
