//! The `model_ops` target: arbitrary operation sequences on one client, three brokers and a
//! controller of the reference model, driven by the fuzz input. It mirrors what
//! `harness/tests/model_props.rs` (client, broker and controller operation sequences) and
//! `harness/tests/model_state_machine.rs` (controller steps) do with proptest, and adds
//! wiring: a `Deliver` operation carries the client's oldest unsent request through the
//! codec to its broker and the broker's reply back.
//!
//! Oracle: `check_invariants()` of every model holds after every step; at the end, ticking
//! the client at its deadline leaves nothing blocked and every user request was released
//! exactly once (liveness, as in `model_props.rs`).

use std::collections::{BTreeMap, VecDeque};

use arbitrary::{Arbitrary, Unstructured};

use crate::codec::incremental_alter_configs_request as inc;
use crate::codec::push_config_request::Config;
use crate::codec::update_features_request::FeatureUpdateKey;
use crate::codec::{
    ApiKey, ApiVersionsResponse, IncrementalAlterConfigsRequest, Message, PushConfigRequest,
    PushConfigResponse, Reader, RequestBody, ResponseBody, UpdateFeaturesRequest,
};
use crate::model::emulated_api_versions;
use crate::model::server_config::resource_type::{BROKER, TOPIC, UNKNOWN};
use crate::model::{
    AuditDirection, BrokerModel, BrokerReply, BrokerRequest, BrokerSettings, ClientInput,
    ClientModel, ClientOutput, ClientType, ConfigTypeNumbering, ControllerModel, Millis, NodeId,
    PolicyVerdict, RegistrationRejection, ServerConfigDefs, SizeMeasure, SpecProfile,
    UnadvertisedPushConfigReply, Validator,
};

const NODES: [NodeId; 3] = [1, 2, 3];

/// Runs one operation sequence chosen by `data`.
pub fn model_ops(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let _ = run(&mut u);
}

struct World {
    now: Millis,
    client: ClientModel,
    brokers: BTreeMap<NodeId, BrokerModel>,
    controller: ControllerModel,
    /// Requests the client asked to send, not yet delivered.
    outbox: VecDeque<(NodeId, ApiKey, i16, RequestBody)>,
    issued: usize,
    released: usize,
    steps: Vec<String>,
}

impl World {
    fn client(&mut self, input: ClientInput) {
        let out = self.client.handle(self.now, input);
        for o in out {
            match o {
                ClientOutput::Send {
                    node,
                    api_key,
                    api_version,
                    body,
                } => self.outbox.push_back((node, api_key, api_version, body)),
                ClientOutput::ReleaseUserRequest { .. } => self.released += 1,
                ClientOutput::WakeAt(_) | ClientOutput::Event(_) => {}
            }
        }
    }

    fn deliver(&mut self) {
        let Some((node, api_key, api_version, body)) = self.outbox.pop_front() else {
            return;
        };
        let bytes = body
            .to_bytes(api_version)
            .expect("the client's requests encode");
        let reply = self
            .brokers
            .get_mut(&node)
            .expect("the client only talks to known nodes")
            .handle_request(
                self.now,
                &BrokerRequest {
                    api_key,
                    api_version,
                    body: bytes,
                },
            );
        let input = match reply {
            BrokerReply::Response {
                api_version, body, ..
            } => {
                let bytes = body
                    .to_bytes(api_version)
                    .expect("the broker's responses encode");
                match ResponseBody::decode(body.api_key(), &mut Reader::new(&bytes), api_version)
                    .expect("the broker's responses decode")
                {
                    ResponseBody::ApiVersions(body) => {
                        ClientInput::ApiVersionsResponse { node, body }
                    }
                    ResponseBody::PushConfig(body) => {
                        ClientInput::PushConfigResponse { node, body }
                    }
                    other => panic!("unexpected response {other:?}"),
                }
            }
            BrokerReply::Close { .. } => ClientInput::Disconnected { node },
        };
        self.client(input);
    }

    fn check(&self) {
        let fail = |what: String| -> ! {
            panic!("{what}\n  after steps:\n    {}", self.steps.join("\n    "))
        };
        if let Err(v) = self.client.check_invariants() {
            fail(v.to_string());
        }
        for b in self.brokers.values() {
            if let Err(v) = b.check_invariants() {
                fail(v.to_string());
            }
        }
        if let Err(v) = self.controller.check_invariants() {
            fail(v.to_string());
        }
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
    emulated_api_versions(push.then_some(ApiKey(95)))
}

fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let p = profile(u)?;
    let client_type = *u.choose(&ClientType::ALL)?;
    let seed = u64::arbitrary(u)?;
    let user = client_config(u)?;
    let Ok(client) = ClientModel::new(client_type, user, &p, seed) else {
        return Ok(());
    };
    let mut brokers = BTreeMap::new();
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
        brokers.insert(id, b);
    }
    let strict = Validator::AtLeast(3.0 * 1_048_576.0);
    let defs = ServerConfigDefs::default()
        .with_mv_validator("segment.bytes", 38, strict.clone())
        .with_mv_validator("log.segment.bytes", 42, strict);
    let level = u.int_in_range(30..=45)?;
    let controller = ControllerModel::new(&p, defs, level, Millis(0));
    let mut w = World {
        now: Millis(0),
        client,
        brokers,
        controller,
        outbox: VecDeque::new(),
        issued: 0,
        released: 0,
        steps: Vec::new(),
    };
    w.client(ClientInput::Start);
    w.check();
    let steps = u.int_in_range(0..=64)?;
    for _ in 0..steps {
        if u.is_empty() {
            break;
        }
        step(&mut w, u)?;
        w.check();
    }
    let end = w.now.max(w.client.deadline());
    w.now = end;
    w.client(ClientInput::Tick);
    w.check();
    assert!(
        !w.client.is_blocking(),
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
    let now = w.now;
    match u.int_in_range(0..=16)? {
        0 | 1 => {
            w.steps.push("deliver".into());
            w.deliver();
        }
        2 => {
            w.steps.push(format!("connect {node}"));
            w.client(ClientInput::Connected { node });
        }
        3 => {
            w.steps.push(format!("disconnect {node}"));
            w.outbox.retain(|(n, ..)| *n != node);
            w.client(ClientInput::Disconnected { node });
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
            w.now = w.now.plus(ms);
            w.client(ClientInput::Tick);
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
            let b = w.brokers.get_mut(&node).expect("node");
            b.handle_request(
                now,
                &BrokerRequest {
                    api_key: ApiKey(95),
                    api_version: 0,
                    body,
                },
            );
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
            let b = w.brokers.get_mut(&node).expect("node");
            b.handle_request(
                now,
                &BrokerRequest {
                    api_key,
                    api_version,
                    body,
                },
            );
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
            let b = w.brokers.get_mut(&node).expect("node");
            b.set_policy(policy);
            b.set_throttle_time_ms(throttle);
        }
        12 => {
            let max_version = u.int_in_range(0..=7)?;
            w.steps.push(format!(
                "register broker {node} (controller max v{max_version})"
            ));
            let (v, req) = w.brokers[&node].registration_request(max_version);
            w.controller.handle_broker_registration(now, v, &req);
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
            w.controller.handle_incremental_alter_configs(now, 1, &req);
        }
        14 => {
            let v = u.int_in_range(0..=1)?;
            let req = IncrementalAlterConfigsRequest::arbitrary(u)?.project(v);
            w.steps
                .push(format!("arbitrary IncrementalAlterConfigs v{v}: {req:?}"));
            w.controller.handle_incremental_alter_configs(now, v, &req);
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
            w.controller.handle_update_features(now, 1, &req);
        }
        _ => {
            let lo = UpdateFeaturesRequest::VALID_VERSIONS.min;
            let hi = UpdateFeaturesRequest::VALID_VERSIONS.max;
            let v = u.int_in_range(lo..=hi)?;
            let req = UpdateFeaturesRequest::arbitrary(u)?.project(v);
            w.steps
                .push(format!("arbitrary UpdateFeatures v{v}: {req:?}"));
            w.controller.handle_update_features(now, v, &req);
        }
    }
    Ok(())
}
