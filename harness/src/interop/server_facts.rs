//! The must-hold facts checked against a live server peer (a broker or KRaft controller
//! listener): ApiVersions decodes strictly and does not advertise PushConfig (an older broker,
//! KIP-1324 §compatibility); the KIP-511 fallback for an unknown ApiVersions version; what the
//! peer does with a PushConfig it does not know (and that it survives it); BrokerRegistration v0-5 to a real KRaft
//! controller and v6 (KIP-1326) not advertised; UpdateFeatures and IncrementalAlterConfigs
//! validation with validate-only. Each fact becomes a [`Verdict`]; nothing here panics on
//! what a peer sends.

use crate::codec::generated::broker_registration_request::Listener;
use crate::codec::generated::incremental_alter_configs_request::{
    AlterConfigsResource, AlterableConfig,
};
use crate::codec::generated::update_features_request::FeatureUpdateKey;
use crate::codec::{
    decode_response_frame, encode_request_frame, to_hex, ApiKey, ApiVersionsRequest,
    ApiVersionsResponse, BrokerRegistrationRequest, DecodedResponse, ErrorCode,
    IncrementalAlterConfigsRequest, KString, Message, ProvisionalNumbers, PushConfigRequest,
    RequestBody, RequestHeader, ResponseBody, UpdateFeaturesRequest, Uuid,
};

use super::env::{ServerPeer, ServerRole};
use super::error::InteropError;
use super::metadata_log::probe as exchange;
use super::verdict::{Fact, Verdict};
use crate::net::Exchange;

/// The largest frame a decode of a probe answer accepts.
const MAX_FRAME: usize = 4 * 1024 * 1024;
const CLIENT_ID: &str = "kipcheck-interop";

/// Checks every fact that applies to `peer` and returns them in a fixed order. With
/// `send_push_config` false the last two facts (PushConfig sent anyway, and whether the peer
/// survives it) are left out: some peers do not survive it, and a caller that still needs the
/// peer afterwards must not send it.
pub fn check_server(peer: &ServerPeer, send_push_config: bool) -> Result<Vec<Fact>, InteropError> {
    let suite = peer.role.suite();
    let mut facts = Vec::new();
    let fact = |id: &'static str, verdict, detail: String| Fact {
        id: id.into(),
        suite,
        verdict,
        detail,
    };

    // 1. ApiVersions v3 decodes strictly.
    let (strict, versions) = api_versions(peer, 3)?;
    facts.push(fact("apiversions-strict", strict.0, strict.1));
    // 2. PushConfig not advertised: this peer is an "older broker".
    let push_key = ProvisionalNumbers::default().wire_api_key(ApiKey::PUSH_CONFIG);
    facts.push(match &versions {
        Some(v) => match range(v, push_key) {
            None => fact(
                "no-push-config-advertised",
                Verdict::Pass,
                format!(
                    "{} API keys advertised, PushConfig ({}) not among them",
                    v.api_keys.len(),
                    push_key.0
                ),
            ),
            Some((min, max)) => fact(
                "no-push-config-advertised",
                Verdict::finding(
                    "an implementation without KIP-1324 does not advertise PushConfig",
                    format!("PushConfig ({}) advertised v{min}-{max}", push_key.0),
                ),
                String::new(),
            ),
        },
        None => fact(
            "no-push-config-advertised",
            Verdict::Unsupported("ApiVersions did not decode".into()),
            String::new(),
        ),
    });
    // 3. KIP-511: an ApiVersions version the peer does not know gets a v0 UNSUPPORTED_VERSION.
    let (v, d) = api_versions_fallback(peer)?;
    facts.push(fact("apiversions-fallback", v, d));
    match (peer.role, peer.is_apache_kafka, &versions) {
        (ServerRole::Controller, true, Some(v)) => {
            for version in 0..=5 {
                let (verdict, detail) = broker_registration(peer, v, version)?;
                facts.push(fact(
                    BROKER_REGISTRATION_IDS[version as usize],
                    verdict,
                    detail,
                ));
            }
            let detail = match range(v, ApiKey::BROKER_REGISTRATION) {
                Some((min, max)) => format!("BrokerRegistration v{min}-{max} advertised"),
                None => "BrokerRegistration not advertised".into(),
            };
            let verdict = match range(v, ApiKey::BROKER_REGISTRATION) {
                Some((_, max)) if max >= 6 => Verdict::finding(
                    "a controller without KIP-1326 advertises BrokerRegistration at most v5",
                    detail.clone(),
                ),
                _ => Verdict::Pass,
            };
            facts.push(fact(
                "broker-registration-v6-not-advertised",
                verdict,
                detail,
            ));
            for case in CONFIG_CASES {
                let (verdict, detail) = incremental_alter_configs(peer, v, case)?;
                facts.push(fact(case.id, verdict, detail));
            }
        }
        (ServerRole::Broker, true, Some(v)) => {
            for (id, level, upgrade_type, validate_only) in FEATURE_UPDATES {
                let (verdict, detail) =
                    update_features(peer, v, *level, *upgrade_type, *validate_only)?;
                facts.push(fact(id, verdict, detail));
            }
            for case in CONFIG_CASES {
                let (verdict, detail) = incremental_alter_configs(peer, v, case)?;
                facts.push(fact(case.id, verdict, detail));
            }
        }
        _ => {}
    }
    if send_push_config {
        facts.extend(push_config_facts(peer)?);
    }
    Ok(facts)
}

/// The last two facts, apart since a peer may not survive them: PushConfig sent anyway ("if
/// a client sends requests, broker throws an error"), then whether the peer still answers
/// ApiVersions on a new connection. A peer that no longer answers ApiVersions v0 before the
/// probe (an earlier PushConfig, e.g. a YAML scenario's, stopped it) gets
/// `push-config-rejected` unsupported and `survives-push-config` as the finding it is.
pub fn push_config_facts(peer: &ServerPeer) -> Result<Vec<Fact>, InteropError> {
    let suite = peer.role.suite();
    let fact = |id: &'static str, verdict, detail: String| Fact {
        id: id.into(),
        suite,
        verdict,
        detail,
    };
    let mut facts = Vec::new();
    let gone = |why: String| {
        (
            Verdict::Unsupported(format!(
                "no longer serving before the probe (an earlier PushConfig, e.g. a YAML scenario's, stopped it?): {why}"
            )),
            String::new(),
        )
    };
    // Alive first: a peer an earlier PushConfig is taking down may still accept a connection
    // for a moment, and a close then would pass for a refusal.
    let (v, d) = match exchange(peer.name, &peer.addr, &api_versions_v0()?) {
        Ok(Exchange::Response(_)) => match push_config_anyway(peer) {
            Err(InteropError::Unreachable { source, .. }) => gone(source.to_string()),
            other => other?,
        },
        Ok(other) => gone(format!("ApiVersions v0 {}", describe(&other))),
        Err(e) => gone(e.to_string()),
    };
    facts.push(fact("push-config-rejected", v, d));
    let alive = match exchange(peer.name, &peer.addr, &api_versions_v0()?) {
        Ok(Exchange::Response(_)) => (Verdict::Pass, "answers ApiVersions v0 on a new connection".to_string()),
        Ok(other) => (
            Verdict::finding(
                "still serving after an unknown API key",
                format!("ApiVersions v0 after PushConfig: {}", describe(&other)),
            ),
            String::new(),
        ),
        Err(e) => (
            Verdict::finding(
                "still serving after an unknown API key (an error answer or a closed connection, not a crash)",
                format!("no longer reachable after PushConfig: {e}"),
            ),
            String::new(),
        ),
    };
    facts.push(fact("survives-push-config", alive.0, alive.1));
    Ok(facts)
}

const BROKER_REGISTRATION_IDS: [&str; 6] = [
    "broker-registration-v0",
    "broker-registration-v1",
    "broker-registration-v2",
    "broker-registration-v3",
    "broker-registration-v4",
    "broker-registration-v5",
];

/// (fact id, metadata.version level, UpgradeType, ValidateOnly): each must be refused with
/// INVALID_UPDATE_VERSION (the cluster runs the newest level, 4.4-IV2 = 33).
const FEATURE_UPDATES: &[(&str, i16, i8, bool)] = &[
    // A downgrade to 3.3-IV3 (7) asked as an upgrade.
    ("update-features-downgrade-as-upgrade", 7, 1, true),
    // A safe downgrade across metadata changes: not possible.
    ("update-features-safe-downgrade", 7, 2, true),
    // An upgrade to a level no release knows.
    ("update-features-unknown-level", 999, 1, true),
];

/// One validate-only IncrementalAlterConfigs case of the KIP-1256 table (spec digest §3.4):
/// what the broker answers today, and what the controller answers today or, once KIP-1256 is
/// in, the same as the broker.
struct ConfigCase {
    id: &'static str,
    resource_type: i8,
    /// (name, operation, value) in request order; operation 0 = SET.
    configs: &'static [(&'static str, i8, Option<&'static str>)],
    broker: ErrorCode,
    controller_today: ErrorCode,
}

const RETENTION: &str = "log.retention.ms";
const CONFIG_CASES: &[ConfigCase] = &[
    ConfigCase {
        id: "incremental-alter-configs-valid",
        resource_type: 4,
        configs: &[(RETENTION, 0, Some("3600000"))],
        broker: ErrorCode::NONE,
        controller_today: ErrorCode::NONE,
    },
    ConfigCase {
        id: "incremental-alter-configs-invalid-value",
        resource_type: 4,
        configs: &[(RETENTION, 0, Some("not-a-number"))],
        broker: ErrorCode::INVALID_REQUEST,
        controller_today: ErrorCode::NONE,
    },
    ConfigCase {
        id: "incremental-alter-configs-null-set",
        resource_type: 4,
        configs: &[(RETENTION, 0, None)],
        broker: ErrorCode::INVALID_REQUEST,
        controller_today: ErrorCode::NONE,
    },
    ConfigCase {
        id: "incremental-alter-configs-duplicate-key",
        resource_type: 4,
        configs: &[(RETENTION, 0, Some("1000")), (RETENTION, 0, Some("2000"))],
        broker: ErrorCode::INVALID_REQUEST,
        controller_today: ErrorCode::NONE,
    },
    ConfigCase {
        id: "incremental-alter-configs-unknown-resource-type",
        resource_type: 0,
        configs: &[(RETENTION, 0, Some("1000"))],
        broker: ErrorCode::INVALID_REQUEST,
        controller_today: ErrorCode::UNSUPPORTED_VERSION,
    },
];

fn header(key: ApiKey, version: i16, correlation_id: i32) -> RequestHeader {
    let numbers = ProvisionalNumbers::default();
    RequestHeader {
        request_api_key: numbers.wire_api_key(key).0,
        request_api_version: version,
        correlation_id,
        client_id: Some(KString::from(CLIENT_ID)),
        ..RequestHeader::default()
    }
}

fn request(key: ApiKey, version: i16, body: RequestBody) -> Result<Vec<u8>, InteropError> {
    Ok(encode_request_frame(
        &header(key, version, 7),
        &body,
        &ProvisionalNumbers::default(),
    )?)
}

fn range(v: &ApiVersionsResponse, key: ApiKey) -> Option<(i16, i16)> {
    v.api_keys
        .iter()
        .find(|k| k.api_key == key.0)
        .map(|k| (k.min_version, k.max_version))
}

/// Describes an exchange that did not produce a decodable answer.
fn describe(ex: &Exchange) -> String {
    match ex {
        Exchange::Response(b) => format!("answered {} bytes: {}", b.len(), to_hex(b)),
        Exchange::Closed(b) if b.is_empty() => "closed the connection without answering".into(),
        Exchange::Closed(b) => format!(
            "closed the connection after {} bytes: {}",
            b.len(),
            to_hex(b)
        ),
        Exchange::TimedOut(b) => format!(
            "no whole answer within the probe timeout ({} bytes)",
            b.len()
        ),
        Exchange::Oversized(n) => format!("announced a frame of {n} bytes"),
    }
}

type Outcome = (Verdict, String);

/// What a judge made of a decoded answer.
enum Judged {
    /// The answer is the expected one; the detail says what it was.
    Pass(String),
    /// The answer is not the expected one; this is what it was.
    Observed(String),
}

/// Sends `frame` to `peer`, decodes the answer as `key` at `version` and lets `judge` decide:
/// a pass with its detail, or a finding against `expected` with what was observed. No answer, or an answer
/// that does not decode, is a finding too.
fn ask(
    peer: &ServerPeer,
    frame: &[u8],
    key: ApiKey,
    version: i16,
    expected: &str,
    judge: impl FnOnce(DecodedResponse) -> Judged,
) -> Result<Outcome, InteropError> {
    let ex = exchange(peer.name, &peer.addr, frame)?;
    Ok(judge_exchange(&ex, key, version, expected, judge))
}

/// [`ask`] for an exchange already made.
fn judge_exchange(
    ex: &Exchange,
    key: ApiKey,
    version: i16,
    expected: &str,
    judge: impl FnOnce(DecodedResponse) -> Judged,
) -> Outcome {
    let Exchange::Response(bytes) = ex else {
        return (Verdict::finding(expected, describe(ex)), String::new());
    };
    match decode_response_frame(bytes, MAX_FRAME, key, version) {
        Ok(d) => match judge(d) {
            Judged::Pass(detail) => (Verdict::Pass, detail),
            Judged::Observed(observed) => (Verdict::finding(expected, observed), String::new()),
        },
        Err(e) => {
            // An ApiVersions answer in another version's layout: say which, so the diff reads.
            let layout = if key == ApiKey::API_VERSIONS {
                api_versions_layout(bytes).map_or(String::new(), |l| format!("; {l}"))
            } else {
                String::new()
            };
            (
                Verdict::finding(expected, format!("{e}{layout}; bytes {}", to_hex(bytes))),
                String::new(),
            )
        }
    }
}

fn api_versions_body() -> RequestBody {
    RequestBody::ApiVersions(ApiVersionsRequest {
        client_software_name: Some(KString::from("kipcheck")),
        client_software_version: Some(KString::from(env!("CARGO_PKG_VERSION"))),
        ..ApiVersionsRequest::default()
    })
}

fn api_versions(
    peer: &ServerPeer,
    version: i16,
) -> Result<(Outcome, Option<ApiVersionsResponse>), InteropError> {
    let frame = request(ApiKey::API_VERSIONS, version, api_versions_body())?;
    let expected =
        format!("an ApiVersions v{version} response that decodes strictly with error NONE");
    let mut body = None;
    let outcome = ask(
        peer,
        &frame,
        ApiKey::API_VERSIONS,
        version,
        &expected,
        |d| match d.body {
            ResponseBody::ApiVersions(b) if !d.fallback_v0 && b.error_code == 0 => {
                let detail = format!(
                    "{} API keys; ApiVersions v{}",
                    b.api_keys.len(),
                    range(&b, ApiKey::API_VERSIONS).map_or("?".into(), |(a, z)| format!("{a}-{z}"))
                );
                body = Some(b);
                Judged::Pass(detail)
            }
            other => Judged::Observed(format!("fallback_v0={} body {other:?}", d.fallback_v0)),
        },
    )?;
    Ok((outcome, body))
}

fn api_versions_v0() -> Result<Vec<u8>, InteropError> {
    request(
        ApiKey::API_VERSIONS,
        0,
        RequestBody::ApiVersions(ApiVersionsRequest::default()),
    )
}

fn api_versions_fallback(peer: &ServerPeer) -> Result<Outcome, InteropError> {
    // Encoded as the newest version the codec knows, relabelled 127 (KIP-511 clients do the same).
    let mut frame = request(ApiKey::API_VERSIONS, 4, api_versions_body())?;
    frame[6..8].copy_from_slice(&127i16.to_be_bytes());
    let expected =
        "a v0 ApiVersions response: UNSUPPORTED_VERSION (35) and the ApiVersions range (KIP-511)";
    ask(
        peer,
        &frame,
        ApiKey::API_VERSIONS,
        127,
        expected,
        |d| match &d.body {
            ResponseBody::ApiVersions(b)
                if d.fallback_v0 && ErrorCode(b.error_code) == ErrorCode::UNSUPPORTED_VERSION =>
            {
                match range(b, ApiKey::API_VERSIONS) {
                    Some((min, max)) => {
                        Judged::Pass(format!("v0 UNSUPPORTED_VERSION, ApiVersions v{min}-{max}"))
                    }
                    None => Judged::Observed(format!("no ApiVersions range in {b:?}")),
                }
            }
            other => Judged::Observed(format!("fallback_v0={} body {other:?}", d.fallback_v0)),
        },
    )
}

/// Which ApiVersions response versions `frame` decodes as (strictly), with its error code and
/// key count: e.g. `it decodes as ApiVersions v3-5: error NONE, 35 API keys`.
fn api_versions_layout(frame: &[u8]) -> Option<String> {
    let mut fits = (0..=ApiVersionsResponse::VALID_VERSIONS.max).filter_map(|v| {
        match decode_response_frame(frame, MAX_FRAME, ApiKey::API_VERSIONS, v) {
            Ok(DecodedResponse {
                body: ResponseBody::ApiVersions(b),
                fallback_v0: false,
                ..
            }) => Some((v, b)),
            _ => None,
        }
    });
    let (lo, b) = fits.next()?;
    let hi = fits.next_back().map_or(lo, |(v, _)| v);
    let versions = if hi == lo {
        format!("v{lo}")
    } else {
        format!("v{lo}-{hi}")
    };
    Some(format!(
        "it decodes as ApiVersions {versions}: error {}, {} API keys",
        ErrorCode(b.error_code),
        b.api_keys.len()
    ))
}

fn push_config_anyway(peer: &ServerPeer) -> Result<Outcome, InteropError> {
    let body = RequestBody::PushConfig(PushConfigRequest {
        configs: vec![crate::codec::generated::push_config_request::Config {
            config_key: KString::from("acks"),
            config_value: KString::from("all"),
            config_type: 2,
            is_default: true,
            ..Default::default()
        }],
        ..PushConfigRequest::default()
    });
    let frame = request(ApiKey::PUSH_CONFIG, 0, body)?;
    let expected = "an error (error response or closed connection), never success";
    // A closed connection is the usual answer to an API key the peer does not know.
    let ex = exchange(peer.name, &peer.addr, &frame)?;
    if matches!(&ex, Exchange::Closed(b) if b.is_empty()) {
        return Ok((Verdict::Pass, "closed the connection".into()));
    }
    Ok(judge_exchange(
        &ex,
        ApiKey::PUSH_CONFIG,
        0,
        expected,
        |d| match d.body {
            ResponseBody::PushConfig(b) if b.error_code != 0 => {
                Judged::Pass(format!("answered error {}", ErrorCode(b.error_code)))
            }
            other => Judged::Observed(format!("answered {other:?}")),
        },
    ))
}

fn broker_registration(
    peer: &ServerPeer,
    versions: &ApiVersionsResponse,
    version: i16,
) -> Result<Outcome, InteropError> {
    let Some((min, max)) = range(versions, ApiKey::BROKER_REGISTRATION) else {
        return Ok((
            Verdict::Unsupported("BrokerRegistration not advertised".into()),
            String::new(),
        ));
    };
    if version < min || version > max {
        return Ok((
            Verdict::Unsupported(format!("v{version} outside the advertised v{min}-{max}")),
            String::new(),
        ));
    }
    let body = RequestBody::BrokerRegistration(BrokerRegistrationRequest {
        broker_id: 1000,
        cluster_id: KString::from("kipcheck-not-this-cluster"),
        incarnation_id: Uuid([7; 16]),
        listeners: vec![Listener {
            name: KString::from("PLAINTEXT"),
            host: KString::from("127.0.0.1"),
            port: 1,
            security_protocol: 0,
            ..Default::default()
        }],
        ..BrokerRegistrationRequest::default()
    });
    let frame = request(ApiKey::BROKER_REGISTRATION, version, body)?;
    let expected = format!(
        "a BrokerRegistration v{version} response that decodes strictly with INCONSISTENT_CLUSTER_ID (104)"
    );
    ask(
        peer,
        &frame,
        ApiKey::BROKER_REGISTRATION,
        version,
        &expected,
        |d| match d.body {
            ResponseBody::BrokerRegistration(b)
                if ErrorCode(b.error_code) == ErrorCode::INCONSISTENT_CLUSTER_ID =>
            {
                Judged::Pass(ErrorCode(b.error_code).to_string())
            }
            other => Judged::Observed(format!("{other:?}")),
        },
    )
}

fn newest(versions: &ApiVersionsResponse, key: ApiKey, codec_max: i16) -> Option<i16> {
    range(versions, key).and_then(|(min, max)| {
        let v = max.min(codec_max);
        (v >= min).then_some(v)
    })
}

fn update_features(
    peer: &ServerPeer,
    versions: &ApiVersionsResponse,
    level: i16,
    upgrade_type: i8,
    validate_only: bool,
) -> Result<Outcome, InteropError> {
    let Some(version) = newest(versions, ApiKey::UPDATE_FEATURES, 2).filter(|v| *v >= 1) else {
        return Ok((
            Verdict::Unsupported("UpdateFeatures v1+ not advertised".into()),
            String::new(),
        ));
    };
    let body = RequestBody::UpdateFeatures(UpdateFeaturesRequest {
        timeout_ms: 10_000,
        feature_updates: vec![FeatureUpdateKey {
            feature: KString::from("metadata.version"),
            max_version_level: level,
            upgrade_type: Some(upgrade_type),
            ..Default::default()
        }],
        validate_only: Some(validate_only),
        ..UpdateFeaturesRequest::default()
    });
    let frame = request(ApiKey::UPDATE_FEATURES, version, body)?;
    let expected = format!(
        "UpdateFeatures v{version} (metadata.version -> {level}, UpgradeType {upgrade_type}, ValidateOnly) refused with INVALID_UPDATE_VERSION (95)"
    );
    ask(
        peer,
        &frame,
        ApiKey::UPDATE_FEATURES,
        version,
        &expected,
        |d| {
            let ResponseBody::UpdateFeatures(b) = d.body else {
                return Judged::Observed(format!("{:?}", d.body));
            };
            let results = b.results.iter().flatten();
            let codes: Vec<ErrorCode> = std::iter::once(b.error_code)
                .chain(results.clone().map(|r| r.error_code))
                .map(ErrorCode)
                .filter(|c| *c != ErrorCode::NONE)
                .collect();
            let msg = b
                .error_message
                .iter()
                .chain(results.filter_map(|r| r.error_message.as_ref()))
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join("; ");
            let detail = format!("errors {codes:?}: {msg}");
            if codes.contains(&ErrorCode::INVALID_UPDATE_VERSION) {
                Judged::Pass(detail)
            } else {
                Judged::Observed(detail)
            }
        },
    )
}

fn incremental_alter_configs(
    peer: &ServerPeer,
    versions: &ApiVersionsResponse,
    case: &ConfigCase,
) -> Result<Outcome, InteropError> {
    let Some(version) = newest(versions, ApiKey::INCREMENTAL_ALTER_CONFIGS, 1) else {
        return Ok((
            Verdict::Unsupported("IncrementalAlterConfigs not advertised".into()),
            String::new(),
        ));
    };
    let body = RequestBody::IncrementalAlterConfigs(IncrementalAlterConfigsRequest {
        resources: vec![AlterConfigsResource {
            resource_type: case.resource_type,
            resource_name: KString::from("1"),
            configs: case
                .configs
                .iter()
                .map(|&(name, op, value)| AlterableConfig {
                    name: KString::from(name),
                    config_operation: op,
                    value: value.map(KString::from),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }],
        validate_only: true,
        ..IncrementalAlterConfigsRequest::default()
    });
    let frame = request(ApiKey::INCREMENTAL_ALTER_CONFIGS, version, body)?;
    // The broker's answer is fixed; a controller may answer as today or, with KIP-1256, as the broker.
    let allowed: Vec<ErrorCode> = match peer.role {
        ServerRole::Broker => vec![case.broker],
        ServerRole::Controller => vec![case.controller_today, case.broker],
    };
    let expected = format!(
        "IncrementalAlterConfigs v{version} validate-only {:?} (resource type {}) answers {} (KIP-1256 table, {} side)",
        case.configs,
        case.resource_type,
        allowed.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" or "),
        peer.role.suite()
    );
    ask(
        peer,
        &frame,
        ApiKey::INCREMENTAL_ALTER_CONFIGS,
        version,
        &expected,
        |d| {
            let ResponseBody::IncrementalAlterConfigs(b) = d.body else {
                return Judged::Observed(format!("{:?}", d.body));
            };
            let got: Vec<(ErrorCode, String)> = b
                .responses
                .iter()
                .map(|r| {
                    (
                        ErrorCode(r.error_code),
                        r.error_message.as_deref().unwrap_or("").to_string(),
                    )
                })
                .collect();
            let detail = format!("{got:?}");
            if got.len() == 1 && allowed.contains(&got[0].0) {
                Judged::Pass(detail)
            } else {
                Judged::Observed(detail)
            }
        },
    )
}
