//! The `model_ops` target: arbitrary operation sequences on one client, three brokers and a
//! controller of the reference model, driven by the fuzz input. It mirrors what
//! `harness/tests/model/props.rs` (client, broker and controller operation sequences) and
//! `harness/tests/model/state_machine.rs` (controller steps) do with proptest, and adds
//! wiring: the models are one [`Cluster`], and a `Deliver` operation carries the client's
//! oldest unsent request through the codec to its broker and the broker's reply back
//! ([`Cluster::deliver`]).
//!
//! Oracle: `check_invariants()` of every model holds after every step (the cluster checks); at the end, ticking
//! the client at its deadline leaves nothing blocked and every user request was released
//! exactly once (liveness, as in `model_props.rs`).

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};

use crate::codec::incremental_alter_configs_request as inc;
use crate::codec::push_config_request::Config;
use crate::codec::update_features_request::FeatureUpdateKey;
use crate::codec::{
    ApiKey, ApiVersionsResponse, IncrementalAlterConfigsRequest, Message, PushConfigRequest,
    PushConfigResponse, UpdateFeaturesRequest,
};
use crate::emulate::{emulated_api_versions, Cluster, ClusterError};
use crate::model::server_config::resource_type::{BROKER, TOPIC, UNKNOWN};
use crate::model::{
    AuditDirection, BrokerModel, BrokerRequest, BrokerSettings, ClientInput, ClientModel,
    ClientType, ConfigTypeNumbering, ControllerModel, Millis, NodeId, PolicyVerdict,
    RegistrationRejection, ServerConfigDefs, SizeMeasure, SpecProfile, UnadvertisedPushConfigReply,
    Validator,
};

const NODES: [NodeId; 3] = [1, 2, 3];

/// Runs one operation sequence chosen by `data`.
pub fn model_ops(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let _ = run(&mut u);
}

/// The cluster under operation, with what the oracle counts and the steps so far (for the
/// panic message).
struct World {
    cluster: Cluster,
    issued: usize,
    released: usize,
    steps: Vec<String>,
}

impl World {
    /// Applies one cluster step; a broken invariant (or a model message that does not cross
    /// the codec) fails with the steps that led there.
    fn apply<R>(&mut self, step: impl FnOnce(&mut Cluster) -> Result<R, ClusterError>) -> R {
        match step(&mut self.cluster) {
            Ok(r) => {
                while self.cluster.take_release().is_some() {
                    self.released += 1;
                }
                r
            }
            Err(e) => panic!("{e}\n  after steps:\n    {}", self.steps.join("\n    ")),
        }
    }

    fn client(&mut self, input: ClientInput) {
        self.apply(|c| c.input(input));
    }

    fn client_model(&self) -> &ClientModel {
        self.cluster.client().expect("the world has a client")
    }
}

fn profile(u: &mut Unstructured<'_>) -> arbitrary::Result<SpecProfile> {
    let mut p = SpecProfile {
        size_measure: *u.choose(&[SizeMeasure::RequestBody, SizeMeasure::ConfigsArray])?,
        config_type_numbering: *u.choose(&[
            ConfigTypeNumbering::ConfigDefType,
            ConfigTypeNumbering::OlderKipEnum,
        ])?,
        unadvertised_push_config: *u.choose(&[
            UnadvertisedPushConfigReply::Close,
            UnadvertisedPushConfigReply::UnsupportedVersion,
        ])?,
        registration_rejection: *u.choose(&[
            RegistrationRejection::InvalidRegistration,
            RegistrationRejection::InvalidConfig,
        ])?,
        audit_direction: *u.choose(&[AuditDirection::Both, AuditDirection::UpgradeOnly])?,
        static_config_persistence_level: u.int_in_range(30..=45)?,
        ..SpecProfile::default()
    };
    p.defaults.client_config_max_bytes = *u.choose(&[10_240, 300, 60, 0])?;
    Ok(p)
}

fn client_config(u: &mut Unstructured<'_>) -> arbitrary::Result<BTreeMap<String, String>> {
    let mut user = BTreeMap::new();
    let lists = [
        "client.id,request.timeout.ms",
        "client.id,ssl.keystore.password,partitioner.class,my.custom",
        "",
        "retries,retry.backoff.ms,client.id",
    ];
    if bool::arbitrary(u)? {
        user.insert(
            "config.push.allowed.keys".into(),
            u.choose(&lists)?.to_string(),
        );
    }
    for (k, vals) in [
        ("client.id", &["app-1", "", "x"][..]),
        ("retry.backoff.ms", &["0", "1", "100"][..]),
        ("retry.backoff.max.ms", &["0", "50", "1000"][..]),
        ("request.timeout.ms", &["1", "1000", "30000"][..]),
        ("enable.config.push", &["true", "false"][..]),
    ] {
        if bool::arbitrary(u)? {
            user.insert(k.into(), u.choose(vals)?.to_string());
        }
    }
    Ok(user)
}

fn api_versions(push: bool) -> ApiVersionsResponse {
    emulated_api_versions(push.then_some(ApiKey(95)), false)
}

fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let p = profile(u)?;
    let client_type = *u.choose(&ClientType::ALL)?;
    let seed = u64::arbitrary(u)?;
    let user = client_config(u)?;
    let Ok(client) = ClientModel::new(client_type, user, &p, seed) else {
        return Ok(());
    };
    let mut brokers = Vec::new();
    for id in NODES {
        let mut s = BrokerSettings::new(id);
        s.policy = u
            .choose(&[
                Some(PolicyVerdict::Accept),
                Some(PolicyVerdict::Reject {
                    message: "no".into(),
                }),
                None,
            ])?
            .clone();
        s.client_config_max_bytes = *u.choose(&[None, Some(0), Some(100), Some(300)])?;
        if bool::arbitrary(u)? {
            s.server_properties
                .insert("log.segment.bytes".into(), "1048576".into());
        }
        let Ok(b) = BrokerModel::new(s, &p) else {
            return Ok(());
        };
        brokers.push(b);
    }
    let strict = Validator::AtLeast(3.0 * 1_048_576.0);
    let defs = ServerConfigDefs::default()
        .with_mv_validator("segment.bytes", 38, strict.clone())
        .with_mv_validator("log.segment.bytes", 42, strict);
    let level = u.int_in_range(30..=45)?;
    let controller = ControllerModel::new(&p, defs, level, Millis(0));
    let mut cluster = Cluster::new()
        .with_client(client)
        .with_controller(controller);
    for b in brokers {
        cluster.insert_broker(b);
    }
    let mut w = World {
        cluster,
        issued: 0,
        released: 0,
        steps: Vec::new(),
    };
    w.client(ClientInput::Start);
    let steps = u.int_in_range(0..=64)?;
    for _ in 0..steps {
        if u.is_empty() {
            break;
        }
        step(&mut w, u)?;
    }
    let end = w.cluster.now().max(w.client_model().deadline());
    w.apply(|c| c.tick_at(end));
    assert!(
        !w.client_model().is_blocking(),
        "still blocking at the deadline after:\n  {}",
        w.steps.join("\n  ")
    );
    assert_eq!(
        w.issued,
        w.released,
        "user requests lost or duplicated after:\n  {}",
        w.steps.join("\n  ")
    );
    Ok(())
}

fn step(w: &mut World, u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let node = *u.choose(&NODES)?;
    match u.int_in_range(0..=16)? {
        0 | 1 => {
            w.steps.push("deliver".into());
            w.apply(Cluster::deliver);
        }
        2 => {
            w.steps.push(format!("connect {node}"));
            w.client(ClientInput::Connected { node });
        }
        3 => {
            w.steps.push(format!("disconnect {node}"));
            w.apply(|c| c.disconnect(node));
        }
        4 => {
            w.steps.push(format!("timeout {node}"));
            w.client(ClientInput::RequestTimedOut { node });
        }
        5 => {
            let id = u64::arbitrary(u)? % 100;
            w.steps.push(format!("user request {id}"));
            w.issued += 1;
            w.client(ClientInput::UserRequest { id });
        }
        6 => {
            let ms = *u.choose(&[0u64, 1, 50, 100, 1000, 30_000, 70_000])?;
            w.steps.push(format!("advance {ms} ms"));
            let t = w.cluster.now().plus(ms);
            w.apply(|c| c.tick_at(t));
        }
        7 => {
            let push = bool::arbitrary(u)?;
            w.steps
                .push(format!("fake ApiVersions from {node} (push {push})"));
            w.client(ClientInput::ApiVersionsResponse {
                node,
                body: api_versions(push),
            });
        }
        8 => {
            let code = *u.choose(&[0i16, 7, 13, 35, 40, 41, 89, 137, 999])?;
            let throttle = *u.choose(&[0i32, 100, 5000, -1])?;
            w.steps.push(format!(
                "fake PushConfig response from {node}: {code}, {throttle} ms"
            ));
            w.client(ClientInput::PushConfigResponse {
                node,
                body: PushConfigResponse {
                    throttle_time_ms: throttle,
                    error_code: code,
                    ..Default::default()
                },
            });
        }
        9 => {
            let req = if bool::arbitrary(u)? {
                PushConfigRequest::arbitrary(u)?
            } else {
                let n = u.int_in_range(0..=20)?;
                let configs = (0..n)
                    .map(|i| {
                        Ok(Config {
                            config_key: format!("k{i}").into(),
                            config_value: "x".repeat(u.int_in_range(0..=40)?).into(),
                            config_type: u.int_in_range(-1..=9)?,
                            is_default: bool::arbitrary(u)?,
                            ..Default::default()
                        })
                    })
                    .collect::<arbitrary::Result<Vec<_>>>()?;
                PushConfigRequest {
                    configs,
                    ..Default::default()
                }
            };
            let Ok(body) = req.to_bytes(0) else {
                return Ok(());
            };
            w.steps.push(format!("push {} bytes to {node}", body.len()));
            let request = BrokerRequest {
                api_key: ApiKey(95),
                api_version: 0,
                body,
            };
            w.apply(|c| c.broker_request(node, &request, 0));
        }
        10 => {
            let api_key = ApiKey(*u.choose(&[95i16, 18, 3, 0])?);
            let api_version = u.int_in_range(-1..=5)?;
            let body = Vec::<u8>::arbitrary(u)?;
            w.steps.push(format!(
                "raw request to {node}: key {} v{api_version} {} bytes",
                api_key.0,
                body.len()
            ));
            let request = BrokerRequest {
                api_key,
                api_version,
                body,
            };
            w.apply(|c| c.broker_request(node, &request, 0));
        }
        11 => {
            let policy = u
                .choose(&[
                    Some(PolicyVerdict::Accept),
                    Some(PolicyVerdict::Reject {
                        message: "no".into(),
                    }),
                    None,
                ])?
                .clone();
            let throttle = *u.choose(&[0i32, 10, 1000])?;
            w.steps.push(format!(
                "broker {node}: policy {policy:?}, throttle {throttle}"
            ));
            w.apply(|c| {
                c.on_broker(node, |b, _| {
                    b.set_policy(policy);
                    b.set_throttle_time_ms(throttle);
                })
            });
        }
        12 => {
            let max_version = u.int_in_range(0..=7)?;
            w.steps.push(format!(
                "register broker {node} (controller max v{max_version})"
            ));
            let (v, req) =
                w.apply(|c| c.on_broker(node, |b, _| b.registration_request(max_version)));
            w.apply(|c| c.on_controller(|ctl, now| ctl.handle_broker_registration(now, v, &req)));
        }
        13 => {
            let rtype = *u.choose(&[TOPIC, BROKER, UNKNOWN])?;
            let name = *u.choose(&[
                "segment.bytes",
                "retention.ms",
                "cleanup.policy",
                "log.segment.bytes",
                "num.partitions",
                "min.insync.replicas",
                "x",
            ])?;
            let value = *u.choose(&[
                None,
                Some("100"),
                Some("4194304"),
                Some("2097152"),
                Some("compact"),
                Some("-1"),
                Some("abc"),
                Some(""),
            ])?;
            let operation = u.int_in_range(-1..=4)?;
            let validate_only = bool::arbitrary(u)?;
            let resource_name = if rtype == BROKER {
                String::new()
            } else {
                format!("t{}", u.int_in_range(0..=2)?)
            };
            w.steps.push(format!(
                "alter {rtype}:{resource_name} {name} op {operation} = {value:?} (validate only {validate_only})"
            ));
            let req = IncrementalAlterConfigsRequest {
                resources: vec![inc::AlterConfigsResource {
                    resource_type: rtype,
                    resource_name: resource_name.into(),
                    configs: vec![inc::AlterableConfig {
                        name: name.into(),
                        config_operation: operation,
                        value: value.map(Into::into),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                validate_only,
                ..Default::default()
            };
            w.apply(|c| {
                c.on_controller(|ctl, now| ctl.handle_incremental_alter_configs(now, 1, &req))
            });
        }
        14 => {
            let v = u.int_in_range(0..=1)?;
            let req = IncrementalAlterConfigsRequest::arbitrary(u)?.project(v);
            w.steps
                .push(format!("arbitrary IncrementalAlterConfigs v{v}: {req:?}"));
            w.apply(|c| {
                c.on_controller(|ctl, now| ctl.handle_incremental_alter_configs(now, v, &req))
            });
        }
        15 => {
            let level = u.int_in_range(25..=50)?;
            let upgrade_type = u.int_in_range(0..=4)?;
            let validate_only = bool::arbitrary(u)?;
            w.steps.push(format!(
                "metadata.version -> {level} (upgrade type {upgrade_type}, validate only {validate_only})"
            ));
            let req = UpdateFeaturesRequest {
                timeout_ms: 60_000,
                feature_updates: vec![FeatureUpdateKey {
                    feature: "metadata.version".into(),
                    max_version_level: level,
                    upgrade_type: Some(upgrade_type),
                    ..Default::default()
                }],
                validate_only: Some(validate_only),
                ..Default::default()
            };
            w.apply(|c| c.on_controller(|ctl, now| ctl.handle_update_features(now, 1, &req)));
        }
        _ => {
            let lo = UpdateFeaturesRequest::VALID_VERSIONS.min;
            let hi = UpdateFeaturesRequest::VALID_VERSIONS.max;
            let v = u.int_in_range(lo..=hi)?;
            let req = UpdateFeaturesRequest::arbitrary(u)?.project(v);
            w.steps
                .push(format!("arbitrary UpdateFeatures v{v}: {req:?}"));
            w.apply(|c| c.on_controller(|ctl, now| ctl.handle_update_features(now, v, &req)));
        }
    }
    Ok(())
}
