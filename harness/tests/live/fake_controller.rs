//! What the in-process fake KRaft controllers of the `live` tests share (`live_controller`,
//! `routed_controllers`, `tcp_target::levels`): a loopback listener whose connections are
//! each served on a thread, every request decoded and answered with the test's `answer`,
//! the ApiVersions key list a fake advertises, and the `tcp://` controller target pointed
//! at a fake. What a fake answers and the state it
//! keeps stay in its test; this never decides an answer.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;

use kipcheck::adapter::manifest::parse_manifest;
use kipcheck::adapter::{target_from_spec, Target, TargetOptions};
use kipcheck::codec::api_versions_response::ApiVersion;
use kipcheck::codec::limits::DEFAULT_MAX_FRAME_SIZE;
use kipcheck::codec::{
    decode_request_frame, encode_response_frame, ApiKey, ProvisionalNumbers, RequestBody,
    ResponseBody, ResponseHeader,
};
use kipcheck::scenario::Role;

/// How a fake answers one decoded request body.
pub(crate) type Answer = Arc<dyn Fn(&RequestBody) -> ResponseBody + Send + Sync>;

/// Starts a fake on a loopback port and returns its address. It lives as long as the test
/// process; an unexpected request panics its connection's thread (the client sees the
/// connection close).
pub(crate) fn start(
    answer: impl Fn(&RequestBody) -> ResponseBody + Send + Sync + 'static,
) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let answer: Answer = Arc::new(answer);
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let answer = answer.clone();
            std::thread::spawn(move || serve(s, &*answer));
        }
    });
    addr
}

fn serve(mut s: TcpStream, answer: &(dyn Fn(&RequestBody) -> ResponseBody + Send + Sync)) {
    loop {
        let mut size = [0u8; 4];
        if s.read_exact(&mut size).is_err() {
            return;
        }
        let mut frame = size.to_vec();
        frame.resize(4 + i32::from_be_bytes(size) as usize, 0);
        if s.read_exact(&mut frame[4..]).is_err() {
            return;
        }
        let req = decode_request_frame(
            &frame,
            DEFAULT_MAX_FRAME_SIZE,
            &ProvisionalNumbers::default(),
        )
        .unwrap();
        let body = answer(&req.body);
        let header = ResponseHeader {
            correlation_id: req.header.correlation_id,
            ..Default::default()
        };
        let out = encode_response_frame(&header, &body, req.header.request_api_version).unwrap();
        if s.write_all(&out).is_err() {
            return;
        }
    }
}

/// The ApiVersions entries for `(api, min, max)`.
pub(crate) fn api_keys(keys: &[(ApiKey, i16, i16)]) -> Vec<ApiVersion> {
    keys.iter()
        .map(|&(k, min, max)| ApiVersion {
            api_key: k.0,
            min_version: min,
            max_version: max,
            ..Default::default()
        })
        .collect()
}

/// The `tcp://` target in the controller role at `addr`, with `manifest` (YAML) if given.
pub(crate) async fn target(addr: &str, manifest: Option<&str>) -> Arc<dyn Target> {
    let opts = TargetOptions {
        manifest: manifest.map(|m| parse_manifest(m, Path::new("m.yaml")).unwrap()),
        ..TargetOptions::default()
    };
    tcp_controller(addr, opts).await
}

/// The `tcp://` target at `addr` with `opts` in the controller role (built off the runtime's
/// threads: building it connects).
pub(crate) async fn tcp_controller(addr: &str, opts: TargetOptions) -> Arc<dyn Target> {
    let opts = TargetOptions {
        role: Some(Role::Controller),
        ..opts
    };
    let spec = format!("tcp://{addr}");
    tokio::task::spawn_blocking(move || target_from_spec(&spec, &opts))
        .await
        .unwrap()
        .unwrap()
}
