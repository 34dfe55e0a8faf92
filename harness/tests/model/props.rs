//! Property tests of the reference model: the sensitivity filter, backoff bounds, floor
//! selection, the size budget, invariants after arbitrary operation sequences, and
//! determinism (same seed → same event log). Model seeds come from proptest and are printed
//! in every failure message.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;

use crate::model_support::{api_versions, push_response};
use kipcheck::codec::incremental_alter_configs_request as inc;
use kipcheck::codec::push_config_request::Config;
use kipcheck::codec::update_features_request::FeatureUpdateKey;
use kipcheck::codec::{
    ApiKey, ErrorCode, IncrementalAlterConfigsRequest, Message, PushConfigRequest,
    UpdateFeaturesRequest,
};
use kipcheck::model::selection::request_size;
use kipcheck::model::server_config::resource_type::{BROKER, TOPIC, UNKNOWN};
use kipcheck::model::{
    classify, client_definitions, BrokerModel, BrokerRequest, BrokerSettings, ClientInput,
    ClientModel, ClientOutput, ClientType, ControllerModel, ExponentialBackoff, Millis, ModelRng,
    MvValidators, PolicyVerdict, ServerConfigDefs, SizeMeasure, SpecProfile, Validator,
};

fn client_type() -> impl Strategy<Value = ClientType> {
    prop::sample::select(ClientType::ALL.to_vec())
}

/// Keys mixing real definitions, sensitive patterns and arbitrary text.
fn key() -> impl Strategy<Value = String> {
    let real: Vec<String> = ClientType::ALL
        .iter()
        .flat_map(|t| {
            client_definitions(*t)
                .keys()
                .map(|d| d.name.to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    prop_oneof![
        prop::sample::select(real),
        "(sasl|ssl|security|my|x)\\.[a-z.]{0,12}",
        "[a-z]{1,6}\\.(ssl|sasl|security)\\.[a-z]{1,6}",
        "[a-z.]{1,12}\\.class(es)?",
        "[ -~]{0,20}",
    ]
}

/// Sensitive, undefined and CLASS/PASSWORD keys never reach the request.
fn check_sensitive_never_emitted(
    t: ClientType,
    keys: Vec<String>,
    vals: Vec<String>,
) -> Result<(), TestCaseError> {
    let mut user: BTreeMap<String, String> = keys.iter().cloned().zip(vals).collect();
    user.insert("config.push.allowed.keys".into(), keys.join(","));
    // Values that do not parse make the constructor fail: the configuration-error path.
    let Ok(c) = ClientModel::new(t, user, &SpecProfile::default(), 0) else {
        return Ok(());
    };
    let defs = client_definitions(t);
    let sent = c
        .selected_request()
        .map(|r| r.configs.clone())
        .unwrap_or_default();
    for e in sent {
        let key = e.config_key.as_str();
        let ty = defs.get(key).map(|d| d.ty);
        prop_assert!(ty.is_some(), "undefined key {} sent", key);
        prop_assert_eq!(classify(key, ty), None);
        prop_assert!(e.config_type != 7 && e.config_type != 8);
        for w in ["sasl.", "ssl.", "security."] {
            let infix = format!(".{w}");
            prop_assert!(!key.starts_with(w) && !key.contains(&infix), "{}", key);
        }
        prop_assert!(
            !key.ends_with(".class") && !key.ends_with(".classes"),
            "{}",
            key
        );
    }
    Ok(())
}

/// Every delay is within the jitter bounds of its term and the cap; terms never shrink.
fn check_backoff(initial: u64, extra: u64, jitter: f64, seed: u64) -> Result<(), TestCaseError> {
    let b = ExponentialBackoff {
        initial_ms: initial,
        max_ms: initial + extra,
        jitter,
    };
    let mut rng = ModelRng::new(seed);
    let mut last_term = 0.0;
    for n in 0..16 {
        let d = b.delay(n, &mut rng);
        let (lo, hi) = b.bounds(n);
        prop_assert!(
            lo <= d && d <= hi,
            "seed {seed}: attempt {n}: {d} not in [{lo}, {hi}]"
        );
        prop_assert!(d <= b.max_ms, "seed {seed}: {d} over cap");
        let term = b.term(n);
        prop_assert!(term >= last_term, "seed {seed}: term shrank at attempt {n}");
        last_term = term;
    }
    // The term reaches the cap (max/initial < 2^15 here).
    prop_assert!(
        (b.term(15) - b.max_ms as f64).abs() < 1e-6 || extra == 0,
        "seed {seed}"
    );
    Ok(())
}

/// `MvValidators::floor` picks what a linear scan picks.
fn check_floor(levels: BTreeSet<i16>, at: i16) -> Result<(), TestCaseError> {
    let m = MvValidators(
        levels
            .iter()
            .map(|l| (*l, Validator::AtLeast(f64::from(*l))))
            .collect(),
    );
    let brute = levels.iter().copied().filter(|l| *l <= at).max();
    prop_assert_eq!(m.floor(at).map(|(l, _)| l), brute);
    if let Some((l, v)) = m.floor(at) {
        prop_assert_eq!(v, &Validator::AtLeast(f64::from(l)));
    }
    Ok(())
}

/// Whatever the budget and measure, the selected request fits.
fn check_budget(
    t: ClientType,
    budget: u32,
    measure: SizeMeasure,
    long: String,
) -> Result<(), TestCaseError> {
    let mut p = SpecProfile {
        size_measure: measure,
        ..SpecProfile::default()
    };
    p.defaults.client_config_max_bytes = budget;
    let all: Vec<&str> = client_definitions(t).keys().map(|d| d.name).collect();
    let mut user = BTreeMap::new();
    user.insert("config.push.allowed.keys".to_string(), all.join(","));
    user.insert("client.id".to_string(), long);
    let c = ClientModel::new(t, user, &p, 0).unwrap();
    if let Some(req) = c.selected_request() {
        prop_assert!(request_size(measure, req) <= budget as usize);
        prop_assert!(!req.configs.is_empty());
    }
    c.check_invariants()
        .map_err(|v| TestCaseError::fail(v.to_string()))
}

fn measure() -> impl Strategy<Value = SizeMeasure> {
    prop::sample::select(vec![SizeMeasure::RequestBody, SizeMeasure::ConfigsArray])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn sensitive_keys_are_never_emitted(
        t in client_type(),
        keys in prop::collection::vec(key(), 0..12),
        vals in prop::collection::vec("[ -~]{0,8}", 0..12),
    ) {
        check_sensitive_never_emitted(t, keys, vals)?;
    }

    #[test]
    fn backoff_stays_in_jitter_bounds_grows_and_respects_the_cap(
        initial in 1u64..2000,
        extra in 0u64..20000,
        jitter in 0.0f64..0.9,
        seed in any::<u64>(),
    ) {
        check_backoff(initial, extra, jitter, seed)?;
    }

    #[test]
    fn floor_selection_equals_brute_force(
        levels in prop::collection::btree_set(-5i16..60, 0..8),
        at in -10i16..70,
    ) {
        check_floor(levels, at)?;
    }

    #[test]
    fn no_request_over_budget(
        t in client_type(),
        budget in 1u32..600,
        m in measure(),
        long in "[a-z]{0,300}",
    ) {
        check_budget(t, budget, m, long)?;
    }
}

// ----- operation sequences -----

#[derive(Clone, Debug)]
enum ClientOp {
    Connect(i32),
    ApiVersions(i32, bool),
    Response(i32, i16, i32),
    Disconnect(i32),
    Timeout(i32),
    User(u64),
    Advance(u64),
}

fn client_op() -> impl Strategy<Value = ClientOp> {
    let node = 1i32..4;
    let code = prop::sample::select(vec![0i16, 7, 13, 35, 40, 41, 89, 137, 999]);
    prop_oneof![
        node.clone().prop_map(ClientOp::Connect),
        (node.clone(), any::<bool>()).prop_map(|(n, b)| ClientOp::ApiVersions(n, b)),
        (
            node.clone(),
            code,
            prop::sample::select(vec![0i32, 0, 100, 5000])
        )
            .prop_map(|(n, c, t)| ClientOp::Response(n, c, t)),
        node.clone().prop_map(ClientOp::Disconnect),
        node.prop_map(ClientOp::Timeout),
        (0u64..100).prop_map(ClientOp::User),
        prop::sample::select(vec![0u64, 1, 50, 100, 1000, 30000, 70000])
            .prop_map(ClientOp::Advance),
    ]
}

/// Runs `ops` on a fresh client, checking invariants after each and, at the end, that every
/// user request is released exactly once by the deadline at the latest (liveness). Returns
/// the event log rendered as JSON lines.
fn run_client(t: ClientType, seed: u64, ops: &[ClientOp]) -> Result<String, TestCaseError> {
    let mut user = BTreeMap::new();
    user.insert(
        "config.push.allowed.keys".to_string(),
        "client.id,request.timeout.ms".to_string(),
    );
    let mut c = ClientModel::new(t, user, &SpecProfile::default(), seed).unwrap();
    let mut now = Millis(0);
    let mut issued = 0usize;
    let mut released = 0usize;
    let mut count = |out: Vec<ClientOutput>| {
        released += out
            .iter()
            .filter(|o| matches!(o, ClientOutput::ReleaseUserRequest { .. }))
            .count();
    };
    count(c.handle(now, ClientInput::Start));
    for op in ops {
        let input = match op.clone() {
            ClientOp::Connect(node) => ClientInput::Connected { node },
            ClientOp::ApiVersions(node, push) => ClientInput::ApiVersionsResponse {
                node,
                body: api_versions(push),
            },
            ClientOp::Response(node, code, throttle) => ClientInput::PushConfigResponse {
                node,
                body: push_response(ErrorCode(code), throttle, None),
            },
            ClientOp::Disconnect(node) => ClientInput::Disconnected { node },
            ClientOp::Timeout(node) => ClientInput::RequestTimedOut { node },
            ClientOp::User(id) => {
                issued += 1;
                ClientInput::UserRequest { id }
            }
            ClientOp::Advance(ms) => {
                now = now.plus(ms);
                ClientInput::Tick
            }
        };
        count(c.handle(now, input));
        if let Err(v) = c.check_invariants() {
            return Err(TestCaseError::fail(format!(
                "seed {seed}: {v} after {op:?}"
            )));
        }
    }
    let end = now.max(c.deadline());
    count(c.handle(end, ClientInput::Tick));
    prop_assert!(
        !c.is_blocking(),
        "seed {seed}: still blocking at the deadline"
    );
    prop_assert_eq!(
        issued,
        released,
        "seed {}: user requests lost or duplicated",
        seed
    );
    Ok(c.events()
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect::<Vec<_>>()
        .join("\n"))
}

#[derive(Clone, Debug)]
enum BrokerOp {
    Push(Vec<(String, String, i8, bool)>),
    Raw(Vec<u8>),
    Policy(Option<bool>),
    Throttle(i32),
}

fn broker_op() -> impl Strategy<Value = BrokerOp> {
    prop_oneof![
        prop::collection::vec(
            ("[a-z.]{0,10}", "[ -~]{0,40}", -1i8..10, any::<bool>()),
            0..30
        )
        .prop_map(BrokerOp::Push),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(BrokerOp::Raw),
        prop::option::of(any::<bool>()).prop_map(BrokerOp::Policy),
        (0i32..1000).prop_map(BrokerOp::Throttle),
    ]
}

#[derive(Clone, Debug)]
enum ControllerOp {
    Register(i32, i16, u32),
    Alter(i8, u8, String, Option<String>, i8, bool),
    Features(i16, i8, bool),
}

fn controller_op() -> impl Strategy<Value = ControllerOp> {
    let names = prop::sample::select(vec![
        "segment.bytes".to_string(),
        "retention.ms".into(),
        "cleanup.policy".into(),
        "log.segment.bytes".into(),
        "num.partitions".into(),
        "x".into(),
    ]);
    let values = prop::option::of(prop::sample::select(vec![
        "100".to_string(),
        "4194304".into(),
        "2097152".into(),
        "compact".into(),
        "-1".into(),
        "abc".into(),
        "".into(),
    ]));
    prop_oneof![
        (
            1i32..4,
            4i16..7,
            prop::sample::select(vec![1048576u32, 2097152, 4194304])
        )
            .prop_map(|(b, v, s)| ControllerOp::Register(b, v, s)),
        (
            prop::sample::select(vec![TOPIC, BROKER, UNKNOWN]),
            0u8..3,
            names,
            values,
            -1i8..5,
            any::<bool>()
        )
            .prop_map(|(t, r, n, v, o, vo)| ControllerOp::Alter(t, r, n, v, o, vo)),
        (30i16..50, 1i8..4, any::<bool>()).prop_map(|(l, t, v)| ControllerOp::Features(l, t, v)),
    ]
}

/// Runs broker operations, checking invariants after each.
fn run_broker(ops: &[BrokerOp]) -> Result<(), TestCaseError> {
    let mut s = BrokerSettings::new(1);
    s.client_config_max_bytes = Some(300);
    let mut b = BrokerModel::new(s, &SpecProfile::default()).unwrap();
    for (i, op) in ops.iter().enumerate() {
        let now = Millis(i as u64);
        let push = |body| BrokerRequest {
            api_key: ApiKey(95),
            api_version: 0,
            body,
        };
        match op.clone() {
            BrokerOp::Push(entries) => {
                let configs = entries
                    .into_iter()
                    .map(|(k, v, t, d)| Config {
                        config_key: k.into(),
                        config_value: v.into(),
                        config_type: t,
                        is_default: d,
                        ..Default::default()
                    })
                    .collect();
                let req = PushConfigRequest {
                    configs,
                    ..Default::default()
                };
                b.handle_request(now, &push(req.to_bytes(0).unwrap()));
            }
            BrokerOp::Raw(body) => {
                b.handle_request(now, &push(body));
            }
            BrokerOp::Policy(p) => b.set_policy(p.map(|ok| {
                if ok {
                    PolicyVerdict::Accept
                } else {
                    PolicyVerdict::Reject {
                        message: "no".into(),
                    }
                }
            })),
            BrokerOp::Throttle(t) => b.set_throttle_time_ms(t),
        }
        b.check_invariants()
            .map_err(|v| TestCaseError::fail(format!("{v} after {op:?}")))?;
    }
    Ok(())
}

/// Runs controller operations, checking invariants (including replay) after each.
fn run_controller(ops: &[ControllerOp]) -> Result<(), TestCaseError> {
    let p = SpecProfile {
        static_config_persistence_level: 40,
        ..SpecProfile::default()
    };
    let strict = Validator::AtLeast(3.0 * 1048576.0);
    let defs = ServerConfigDefs::default()
        .with_mv_validator("segment.bytes", 38, strict.clone())
        .with_mv_validator("log.segment.bytes", 42, strict);
    let mut c = ControllerModel::new(&p, defs, 35, Millis(0));
    for op in ops {
        match op.clone() {
            ControllerOp::Register(id, version, seg) => {
                let mut s = BrokerSettings::new(id);
                s.server_properties
                    .insert("log.segment.bytes".into(), seg.to_string());
                let b = BrokerModel::new(s, &p).unwrap();
                let (v, req) = b.registration_request(version);
                c.handle_broker_registration(Millis(1), v, &req);
            }
            ControllerOp::Alter(rtype, r, name, value, operation, validate_only) => {
                let resource_name = if rtype == BROKER {
                    String::new()
                } else {
                    format!("t{r}")
                };
                let config = inc::AlterableConfig {
                    name: name.into(),
                    config_operation: operation,
                    value: value.map(Into::into),
                    ..Default::default()
                };
                let req = IncrementalAlterConfigsRequest {
                    resources: vec![inc::AlterConfigsResource {
                        resource_type: rtype,
                        resource_name: resource_name.into(),
                        configs: vec![config],
                        ..Default::default()
                    }],
                    validate_only,
                    ..Default::default()
                };
                c.handle_incremental_alter_configs(Millis(2), 1, &req);
            }
            ControllerOp::Features(level, upgrade_type, validate_only) => {
                let update = FeatureUpdateKey {
                    feature: "metadata.version".into(),
                    max_version_level: level,
                    upgrade_type: Some(upgrade_type),
                    ..Default::default()
                };
                let req = UpdateFeaturesRequest {
                    timeout_ms: 60000,
                    feature_updates: vec![update],
                    validate_only: Some(validate_only),
                    ..Default::default()
                };
                c.handle_update_features(Millis(3), 1, &req);
            }
        }
        c.check_invariants()
            .map_err(|v| TestCaseError::fail(format!("{v} after {op:?}")))?;
    }
    // With audits in both directions, every dynamic value satisfies the current level.
    let violations = c.audit(c.metadata_version());
    prop_assert!(
        violations.iter().all(|v| v.contains("static config")),
        "{:?}",
        violations
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn client_invariants_hold_and_same_seed_gives_same_log(
        t in client_type(),
        seed in any::<u64>(),
        ops in prop::collection::vec(client_op(), 0..60),
    ) {
        let a = run_client(t, seed, &ops)?;
        let b = run_client(t, seed, &ops)?;
        prop_assert_eq!(a, b, "seed {}", seed);
    }

    #[test]
    fn broker_invariants_hold(ops in prop::collection::vec(broker_op(), 0..30)) {
        run_broker(&ops)?;
    }

    #[test]
    fn controller_invariants_hold_and_replay_restores_state(
        ops in prop::collection::vec(controller_op(), 0..25),
    ) {
        run_controller(&ops)?;
    }
}
