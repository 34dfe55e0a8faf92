//! Proof with a client kipcheck did not write: kafka-python (PyPI) bootstraps against
//! `kipcheck serve`, lists its topics, and every frame it exchanged decodes with kipcheck's
//! codec. The interpreter comes from `KIPCHECK_PYTHON` (set by `.ci/run`, which installs
//! kafka-python into `target/venv`); unset, the test says it is skipped — unless
//! `KIPCHECK_REQUIRE_PEERS=1`, which makes a missing peer a failure.

use std::process::Stdio;
use std::time::Duration;

use kipcheck::codec::{self, from_hex, limits::DEFAULT_MAX_FRAME_SIZE, ApiKey, ProvisionalNumbers};
use kipcheck::serve::{Direction, ServeOptions, Server};

const SCRIPT: &str = r#"
import sys
from kafka import KafkaConsumer
c = KafkaConsumer(bootstrap_servers=sys.argv[1], request_timeout_ms=5000)
print(",".join(sorted(c.topics())))
c.close()
"#;

fn python() -> Option<String> {
    match std::env::var("KIPCHECK_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            assert!(
                std::env::var("KIPCHECK_REQUIRE_PEERS").as_deref() != Ok("1"),
                "KIPCHECK_REQUIRE_PEERS=1 but KIPCHECK_PYTHON is not set"
            );
            eprintln!("skipped: KIPCHECK_PYTHON is not set (the venv with kafka-python)");
            None
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_python_bootstraps_and_lists_topics() {
    let Some(py) = python() else { return };
    let opts = ServeOptions {
        topics: vec!["orders".into(), "payments".into()],
        ..Default::default()
    };
    let srv = Server::start("127.0.0.1:0", opts, None).await.unwrap();
    let child = tokio::process::Command::new(&py)
        .arg("-c")
        .arg(SCRIPT)
        .arg(srv.local_addr().to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {py}: {e}"));
    let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("kafka-python finishes within 60 s")
        .unwrap();
    assert!(
        out.status.success(),
        "kafka-python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "orders,payments"
    );

    // Every request decodes strictly, and so does every response, as the API it answers.
    let numbers = ProvisionalNumbers::default();
    let records = srv.recorder().records();
    let mut apis = Vec::new();
    let mut pending = std::collections::BTreeMap::new();
    for r in &records {
        let bytes = from_hex(&r.hex).unwrap_or_default();
        match r.dir {
            Direction::In => {
                let d = codec::decode_request_frame(&bytes, DEFAULT_MAX_FRAME_SIZE, &numbers)
                    .unwrap_or_else(|e| panic!("request {} does not decode: {e}", r.hex));
                apis.push(d.api_key);
                pending.insert(r.conn, (d.api_key, d.header.request_api_version));
            }
            Direction::Out => {
                let (key, version) = pending.remove(&r.conn).expect("a response to a request");
                codec::decode_response_frame(&bytes, DEFAULT_MAX_FRAME_SIZE, key, version)
                    .unwrap_or_else(|e| panic!("response {} does not decode: {e}", r.hex));
            }
            Direction::Close => {
                assert_eq!(r.note.as_deref(), Some("closed by the client"));
            }
        }
    }
    assert_eq!(apis.first(), Some(&ApiKey::API_VERSIONS), "{apis:?}");
    assert!(apis.contains(&ApiKey::METADATA), "{apis:?}");
    srv.shutdown().await;
}
