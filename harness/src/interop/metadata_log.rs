//! The metadata-log proof against a real KRaft controller (issue 15 §1): kipcheck registers a
//! broker with BrokerRegistration (at the highest version both speak, at most v5: Kafka 4.4 has
//! no KIP-1326), then reads `__cluster_metadata` back as an observer
//! ([`crate::adapter::metadata_log`]) and checks that the record at the offset the answer's
//! `BrokerEpoch` names is the RegisterBrokerRecord it caused, field for field, at whatever
//! version the controller wrote. The broker is unregistered afterwards (UnregisterBroker), so
//! the controller suite that follows sees no extra broker.

use std::collections::BTreeSet;
use std::time::Duration;

use super::env::{ServerPeer, ServerRole};
use super::error::InteropError;
use super::verdict::{Fact, Verdict};
use crate::adapter::metadata_log::{LogPayload, LogRecord, MetadataLogError, MetadataLogReader};
use crate::codec::broker_registration_request::{Feature, Listener};
use crate::codec::{
    decode_response_frame, encode_request_frame, ApiKey, ApiVersionsRequest,
    BrokerRegistrationRequest, DecodeError, DescribeClusterRequest, ErrorCode, KString,
    MetadataRecordBody, ProvisionalNumbers, RequestBody, RequestHeader, ResponseBody,
    UnregisterBrokerRequest, Uuid,
};
use crate::net::{self, Exchange};

/// The broker id kipcheck registers (far from any real node id of the interop cluster).
pub const PROBE_BROKER_ID: i32 = 4242;
/// Its incarnation id (fixed: a second run re-registers the same incarnation).
const PROBE_INCARNATION: Uuid = Uuid([
    0x6b, 0x69, 0x70, 0x63, 0x68, 0x65, 0x63, 0x6b, 0, 0, 0, 0, 0, 0, 0, 1,
]);
/// Its one log directory.
const PROBE_LOG_DIR: Uuid = Uuid([
    0x6b, 0x69, 0x70, 0x63, 0x68, 0x65, 0x63, 0x6b, 0, 0, 0, 0, 0, 0, 0, 2,
]);
/// How long reading the log back may take.
const READ_DEADLINE: Duration = Duration::from_secs(30);

/// The fact ids, in the order they are reported.
pub const METADATA_LOG_FACTS: [&str; 2] = [
    "metadata-log-decodes",
    "metadata-log-register-broker-record",
];

/// Why the proof stopped before the comparison: a finding against the controller.
#[derive(Debug, thiserror::Error)]
enum Unproven {
    /// An answer that does not decode.
    #[error("{api:?} v{version} answer does not decode: {error}")]
    Undecodable {
        /// The API asked.
        api: ApiKey,
        /// Its version.
        version: i16,
        /// Why.
        #[source]
        error: DecodeError,
    },
    /// No whole answer.
    #[error("{api:?} v{version}: no answer ({exchange:?})")]
    NoAnswer {
        /// The API asked.
        api: ApiKey,
        /// Its version.
        version: i16,
        /// What came instead.
        exchange: Exchange,
    },
    /// An answer, but not one the proof can go on from.
    #[error("{api:?} v{version} answered {answer}")]
    Refused {
        /// The API asked.
        api: ApiKey,
        /// Its version.
        version: i16,
        /// The answer's error code, or its body (`Debug`-printed).
        answer: String,
    },
    /// An API the proof needs is not advertised in the range it speaks.
    #[error("{api:?} not advertised at a version kipcheck speaks (at most v{cap})")]
    NotAdvertised {
        /// The API.
        api: ApiKey,
        /// The highest version the proof uses.
        cap: i16,
    },
    /// The log could not be read.
    #[error(transparent)]
    Log(#[from] MetadataLogError),
}

/// One bounded exchange with the peer `peer` at `addr` ([`net::exchange`] within
/// [`net::EXCHANGE_TIMEOUT`]); a peer that cannot be reached is an
/// [`InteropError::Unreachable`] that names it.
fn probe(peer: &str, addr: &str, request: &[u8]) -> Result<Exchange, InteropError> {
    net::exchange(addr, request, net::EXCHANGE_TIMEOUT).map_err(|source| {
        InteropError::Unreachable {
            peer: peer.to_owned(),
            addr: addr.to_owned(),
            source,
        }
    })
}

/// One request to `peer` and its decoded answer, or why there is none.
fn ask(
    peer: &ServerPeer,
    key: ApiKey,
    version: i16,
    body: RequestBody,
) -> Result<Result<ResponseBody, Unproven>, InteropError> {
    let header = RequestHeader {
        request_api_key: key.0,
        request_api_version: version,
        correlation_id: 11,
        client_id: Some(KString::from("kipcheck-interop-metadata-log")),
        ..RequestHeader::default()
    };
    let frame = encode_request_frame(&header, &body, &ProvisionalNumbers::default())?;
    Ok(match probe(peer.name, &peer.addr, &frame)? {
        Exchange::Response(bytes) => decode_response_frame(&bytes, bytes.len(), key, version)
            .map(|d| d.body)
            .map_err(|error| Unproven::Undecodable {
                api: key,
                version,
                error,
            }),
        exchange => Err(Unproven::NoAnswer {
            api: key,
            version,
            exchange,
        }),
    })
}

/// The metadata-log facts of a KRaft controller peer (none for other peers).
pub fn metadata_log_facts(peer: &ServerPeer) -> Result<Vec<Fact>, InteropError> {
    if peer.role != ServerRole::Controller || !peer.is_apache_kafka {
        return Ok(Vec::new());
    }
    let fact = |id: &'static str, verdict, detail: String| Fact {
        id: id.into(),
        suite: "controller",
        verdict,
        detail,
    };
    let (decodes, registered) = match prove(peer)? {
        Ok(p) => p,
        Err(why) => {
            let v = Verdict::finding(
                "the controller's metadata log read back as an observer",
                why.to_string(),
            );
            return Ok(vec![
                fact(METADATA_LOG_FACTS[0], v.clone(), String::new()),
                fact(METADATA_LOG_FACTS[1], v, String::new()),
            ]);
        }
    };
    Ok(vec![
        fact(METADATA_LOG_FACTS[0], decodes.0, decodes.1),
        fact(METADATA_LOG_FACTS[1], registered.0, registered.1),
    ])
}

type Outcome = (Verdict, String);

fn refused(api: ApiKey, version: i16, answer: String) -> Unproven {
    Unproven::Refused {
        api,
        version,
        answer,
    }
}

/// Registers, reads back, unregisters. `Err(Unproven)` when a step before the comparison fails.
fn prove(peer: &ServerPeer) -> Result<Result<(Outcome, Outcome), Unproven>, InteropError> {
    // 1. ApiVersions: versions and the finalized features a broker must support to register.
    let body = RequestBody::ApiVersions(ApiVersionsRequest {
        client_software_name: Some("kipcheck".into()),
        client_software_version: Some(env!("CARGO_PKG_VERSION").into()),
        ..Default::default()
    });
    let av = match ask(peer, ApiKey::API_VERSIONS, 3, body)? {
        Ok(ResponseBody::ApiVersions(av)) => av,
        Ok(other) => return Ok(Err(refused(ApiKey::API_VERSIONS, 3, format!("{other:?}")))),
        Err(e) => return Ok(Err(e)),
    };
    let newest = |key: ApiKey, cap: i16| {
        let ours = RequestBody::info(key)?.valid;
        let theirs = av.api_keys.iter().find(|k| k.api_key == key.0)?;
        let v = theirs.max_version.min(ours.max).min(cap);
        (v >= theirs.min_version && v >= ours.min).then_some(v)
    };
    let [reg_v, dc_v, unreg_v] = [
        (ApiKey::BROKER_REGISTRATION, 5),
        (ApiKey::DESCRIBE_CLUSTER, 2),
        (ApiKey::UNREGISTER_BROKER, 0),
    ]
    .map(|(api, cap)| newest(api, cap).ok_or(Unproven::NotAdvertised { api, cap }));
    let (reg_v, dc_v, unreg_v) = match (reg_v, dc_v, unreg_v) {
        (Ok(r), Ok(d), Ok(u)) => (r, d, u),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return Ok(Err(e)),
    };
    let features: Vec<Feature> = av
        .finalized_features
        .iter()
        .flatten()
        .map(|f| Feature {
            name: f.name.clone(),
            min_supported_version: f.max_version_level,
            max_supported_version: f.max_version_level,
            ..Default::default()
        })
        .collect();
    // 2. The cluster id (DescribeCluster, controller endpoints).
    let body = RequestBody::DescribeCluster(DescribeClusterRequest {
        endpoint_type: (dc_v >= 1).then_some(2),
        ..Default::default()
    });
    let cluster_id = match ask(peer, ApiKey::DESCRIBE_CLUSTER, dc_v, body)? {
        Ok(ResponseBody::DescribeCluster(d)) if d.error_code == 0 => d.cluster_id,
        Ok(other) => {
            let answer = format!("{other:?}");
            return Ok(Err(refused(ApiKey::DESCRIBE_CLUSTER, dc_v, answer)));
        }
        Err(e) => return Ok(Err(e)),
    };
    // 3. Where the log ends now: only what follows is this run's.
    let mut log = match MetadataLogReader::connect(&peer.addr) {
        Ok(l) => l,
        Err(e) => return Ok(Err(e.into())),
    };
    // 4. BrokerRegistration.
    let request = BrokerRegistrationRequest {
        broker_id: PROBE_BROKER_ID,
        cluster_id: cluster_id.clone(),
        incarnation_id: PROBE_INCARNATION,
        listeners: vec![Listener {
            name: KString::from("PLAINTEXT"),
            host: KString::from("127.0.0.1"),
            port: 9,
            security_protocol: 0,
            ..Default::default()
        }],
        features,
        rack: None,
        is_migrating_zk_broker: (reg_v >= 1).then_some(false),
        log_dirs: (reg_v >= 2).then(|| vec![PROBE_LOG_DIR]),
        previous_broker_epoch: (reg_v >= 3).then_some(-1),
        ..Default::default()
    };
    let epoch = match ask(
        peer,
        ApiKey::BROKER_REGISTRATION,
        reg_v,
        RequestBody::BrokerRegistration(request.clone()),
    )? {
        Ok(ResponseBody::BrokerRegistration(r)) if r.error_code == 0 => r.broker_epoch,
        Ok(ResponseBody::BrokerRegistration(r)) => {
            let answer = ErrorCode(r.error_code).to_string();
            return Ok(Err(refused(ApiKey::BROKER_REGISTRATION, reg_v, answer)));
        }
        Ok(other) => {
            let answer = format!("{other:?}");
            return Ok(Err(refused(ApiKey::BROKER_REGISTRATION, reg_v, answer)));
        }
        Err(e) => return Ok(Err(e)),
    };
    // 5. The log from the start, up to the high watermark (the registration is committed
    //    before it is answered).
    let read = log.read_from(0, 0, READ_DEADLINE);
    // 6. Unregister whatever the read gave.
    let unregister = RequestBody::UnregisterBroker(UnregisterBrokerRequest {
        broker_id: PROBE_BROKER_ID,
        ..Default::default()
    });
    let _ = ask(peer, ApiKey::UNREGISTER_BROKER, unreg_v, unregister)?;
    let read = match read {
        Ok(r) => r,
        Err(e) => return Ok(Err(e.into())),
    };
    let malformed: Vec<&LogRecord> = read
        .records
        .iter()
        .filter(|r| matches!(r.payload, LogPayload::Malformed(_)))
        .collect();
    let decoded = read
        .records
        .iter()
        .filter(|r| matches!(r.payload, LogPayload::Decoded(_)))
        .count();
    let skipped = read.snapshot_skipped.map_or(String::new(), |s| {
        format!(" (offsets before {s} only in a snapshot, skipped)")
    });
    let summary = format!(
        "Fetch v{}: {} records up to offset {} (high watermark {}){skipped}, {decoded} decoded by kipcheck's codec",
        read.fetch_version,
        read.records.len(),
        read.next_offset,
        read.high_watermark
    );
    let decodes = if malformed.is_empty() {
        (Verdict::Pass, summary)
    } else {
        let first = malformed[0].to_event();
        (
            Verdict::finding(
                "every record of the metadata log decodes strictly",
                format!("{} malformed, first: {first}", malformed.len()),
            ),
            summary,
        )
    };
    let registered = compare(&request, epoch, &read.records);
    Ok(Ok((decodes, registered)))
}

/// Checks the record at offset `epoch` against the registration.
fn compare(request: &BrokerRegistrationRequest, epoch: i64, records: &[LogRecord]) -> Outcome {
    let expected_text = format!(
        "a RegisterBrokerRecord at offset {epoch} (the BrokerEpoch answered) with BrokerId {}, \
         the IncarnationId, listeners, features and log dirs registered, BrokerEpoch {epoch}, Fenced true",
        request.broker_id
    );
    let Some(rec) = records.iter().find(|r| r.offset == epoch) else {
        return (
            Verdict::finding(
                expected_text,
                format!("no record at offset {epoch} was read"),
            ),
            String::new(),
        );
    };
    let LogPayload::Decoded(MetadataRecordBody::RegisterBrokerRecord(got)) = &rec.payload else {
        return (
            Verdict::finding(expected_text, rec.to_event().to_string()),
            String::new(),
        );
    };
    let mut diffs = Vec::new();
    let mut check = |field: &str, same: bool, got: String, want: String| {
        if !same {
            diffs.push(format!("{field}: {got} (registered {want})"));
        }
    };
    check(
        "BrokerId",
        got.broker_id == request.broker_id,
        got.broker_id.to_string(),
        request.broker_id.to_string(),
    );
    check(
        "IncarnationId",
        got.incarnation_id == request.incarnation_id,
        format!("{:?}", got.incarnation_id),
        format!("{:?}", request.incarnation_id),
    );
    check(
        "BrokerEpoch",
        got.broker_epoch == epoch,
        got.broker_epoch.to_string(),
        epoch.to_string(),
    );
    // Listeners and features as (name, ...) tuples: the record's order is the controller's.
    let got_endpoints: BTreeSet<_> = got
        .end_points
        .iter()
        .map(|e| {
            (
                e.name.as_str(),
                e.host.as_str(),
                e.port,
                e.security_protocol,
            )
        })
        .collect();
    let want_endpoints: BTreeSet<_> = request
        .listeners
        .iter()
        .map(|l| {
            (
                l.name.as_str(),
                l.host.as_str(),
                l.port,
                l.security_protocol,
            )
        })
        .collect();
    check(
        "EndPoints",
        got_endpoints == want_endpoints && got.end_points.len() == request.listeners.len(),
        format!("{got_endpoints:?}"),
        format!("{want_endpoints:?}"),
    );
    let got_features: BTreeSet<_> = got
        .features
        .iter()
        .map(|f| {
            (
                f.name.as_str(),
                f.min_supported_version,
                f.max_supported_version,
            )
        })
        .collect();
    let want_features: BTreeSet<_> = request
        .features
        .iter()
        .map(|f| {
            (
                f.name.as_str(),
                f.min_supported_version,
                f.max_supported_version,
            )
        })
        .collect();
    check(
        "Features",
        got_features == want_features && got.features.len() == request.features.len(),
        format!("{got_features:?}"),
        format!("{want_features:?}"),
    );
    check(
        "Rack",
        got.rack == request.rack,
        format!("{:?}", got.rack),
        format!("{:?}", request.rack),
    );
    check("Fenced", got.fenced, got.fenced.to_string(), "true".into());
    if let Some(dirs) = &request.log_dirs {
        check(
            "LogDirs",
            got.log_dirs.as_ref() == Some(dirs),
            format!("{:?}", got.log_dirs),
            format!("{dirs:?}"),
        );
    }
    let detail = format!(
        "RegisterBrokerRecord v{} at offset {epoch} (leader epoch {}): BrokerId {}, {} endpoint(s), {} feature(s)",
        rec.version,
        rec.leader_epoch,
        got.broker_id,
        got.end_points.len(),
        got.features.len()
    );
    if diffs.is_empty() {
        (Verdict::Pass, detail)
    } else {
        (Verdict::finding(expected_text, diffs.join("; ")), detail)
    }
}
