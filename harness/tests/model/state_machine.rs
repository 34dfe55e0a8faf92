//! A proptest-state-machine test of the controller model against a much simpler reference:
//! a map of dynamic configs per resource, a set of registered brokers and the
//! metadata.version level. Every generated step is applied to both; after each step the
//! controller must agree with the reference, answer with the expected error code, pass its
//! invariants, and rebuild the same state from its metadata log.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest_state_machine::{prop_state_machine, ReferenceStateMachine, StateMachineTest};

use kipcheck::codec::incremental_alter_configs_request as inc;
use kipcheck::codec::update_features_request::FeatureUpdateKey;
use kipcheck::codec::{IncrementalAlterConfigsRequest, UpdateFeaturesRequest};
use kipcheck::emulate::controller::with_topics;
use kipcheck::model::server_config::resource_type::{BROKER, TOPIC};
use kipcheck::model::{
    BrokerModel, BrokerSettings, ControllerModel, Millis, ServerConfigDefs, SpecProfile,
};

type Resource = (i8, String);

/// The reference: what the controller's state must be.
#[derive(Clone, Debug, Default)]
struct RefState {
    configs: BTreeMap<Resource, BTreeMap<String, String>>,
    /// Registered brokers → whether their static configs were persisted at registration.
    brokers: BTreeMap<i32, bool>,
    level: i16,
}

#[derive(Clone, Debug)]
enum Step {
    /// SET a value the definitions accept.
    SetValid {
        res: Resource,
        name: String,
        value: String,
        validate_only: bool,
    },
    /// SET a value the static validator rejects (→ the default `incremental_invalid_value`,
    /// INVALID_REQUEST; nothing changes).
    SetInvalid {
        res: Resource,
        name: String,
        value: String,
    },
    /// The same key twice in one resource (→ INVALID_REQUEST, nothing changes).
    Duplicate { res: Resource, name: String },
    /// DELETE a key (present or not).
    Delete {
        res: Resource,
        name: String,
        validate_only: bool,
    },
    /// Register (or re-register) a broker at BrokerRegistration v6.
    Register { broker: i32 },
    /// Upgrade metadata.version (no MV validators are defined, so the audit passes).
    Upgrade { level: i16 },
}

/// (resource type, key, valid values, invalid values).
fn keys() -> Vec<(i8, &'static str, Vec<&'static str>, Vec<&'static str>)> {
    vec![
        (
            TOPIC,
            "retention.ms",
            vec!["1", "100", "604800000"],
            vec!["-2", "x"],
        ),
        (TOPIC, "min.insync.replicas", vec!["1", "2"], vec!["0"]),
        (
            TOPIC,
            "cleanup.policy",
            vec!["compact", "delete", "compact,delete"],
            vec!["bogus"],
        ),
        (BROKER, "num.io.threads", vec!["1", "8"], vec!["0"]),
        (BROKER, "message.max.bytes", vec!["0", "100"], vec!["-1"]),
    ]
}

fn resource(rtype: i8) -> impl Strategy<Value = Resource> {
    let names: Vec<String> = if rtype == BROKER {
        vec![String::new(), "1".into()]
    } else {
        vec!["t1".into(), "t2".into()]
    };
    prop::sample::select(names).prop_map(move |n| (rtype, n))
}

struct Reference;

impl ReferenceStateMachine for Reference {
    type State = RefState;
    type Transition = Step;

    fn init_state() -> BoxedStrategy<RefState> {
        Just(RefState {
            level: 20,
            ..RefState::default()
        })
        .boxed()
    }

    fn transitions(state: &RefState) -> BoxedStrategy<Step> {
        let level = state.level;
        let key = prop::sample::select(keys());
        prop_oneof![
            3 => (key.clone(), any::<bool>(), any::<prop::sample::Index>()).prop_flat_map(|((t, n, valid, _), vo, i)| {
                let value = valid[i.index(valid.len())].to_string();
                resource(t).prop_map(move |res| Step::SetValid { res, name: n.into(), value: value.clone(), validate_only: vo })
            }),
            1 => (key.clone(), any::<prop::sample::Index>()).prop_flat_map(|((t, n, _, invalid), i)| {
                let value = invalid[i.index(invalid.len())].to_string();
                resource(t).prop_map(move |res| Step::SetInvalid { res, name: n.into(), value: value.clone() })
            }),
            1 => key.clone().prop_flat_map(|(t, n, _, _)| resource(t).prop_map(move |res| Step::Duplicate { res, name: n.into() })),
            2 => (key, any::<bool>()).prop_flat_map(|((t, n, _, _), vo)| resource(t).prop_map(move |res| Step::Delete { res, name: n.into(), validate_only: vo })),
            1 => (1i32..4).prop_map(|broker| Step::Register { broker }),
            1 => (level..level + 5).prop_map(|level| Step::Upgrade { level }),
        ]
        .boxed()
    }

    fn apply(mut state: RefState, step: &Step) -> RefState {
        match step {
            Step::SetValid {
                res,
                name,
                value,
                validate_only: false,
            } => {
                state
                    .configs
                    .entry(res.clone())
                    .or_default()
                    .insert(name.clone(), value.clone());
            }
            Step::Delete {
                res,
                name,
                validate_only: false,
            } => {
                if let Some(m) = state.configs.get_mut(res) {
                    m.remove(name);
                    if m.is_empty() {
                        state.configs.remove(res);
                    }
                }
            }
            Step::Register { broker } => {
                let persisted = state.level >= PERSISTENCE_LEVEL;
                state.brokers.insert(*broker, persisted);
            }
            Step::Upgrade { level } => state.level = *level,
            _ => {}
        }
        state
    }
}

struct ControllerUnderTest;

const PERSISTENCE_LEVEL: i16 = 22;

fn profile() -> SpecProfile {
    SpecProfile {
        static_config_persistence_level: PERSISTENCE_LEVEL,
        ..SpecProfile::default()
    }
}

fn alter(
    c: &mut ControllerModel,
    res: &Resource,
    configs: Vec<inc::AlterableConfig>,
    validate_only: bool,
) -> i16 {
    let req = IncrementalAlterConfigsRequest {
        resources: vec![inc::AlterConfigsResource {
            resource_type: res.0,
            resource_name: res.1.as_str().into(),
            configs,
            ..Default::default()
        }],
        validate_only,
        ..Default::default()
    };
    c.handle_incremental_alter_configs(Millis(0), 1, &req)
        .responses[0]
        .error_code
}

fn op(name: &str, operation: i8, value: Option<&str>) -> inc::AlterableConfig {
    inc::AlterableConfig {
        name: name.into(),
        config_operation: operation,
        value: value.map(Into::into),
        ..Default::default()
    }
}

impl StateMachineTest for ControllerUnderTest {
    type SystemUnderTest = ControllerModel;
    type Reference = Reference;

    fn init_test(state: &RefState) -> ControllerModel {
        // The topics the steps alter exist from bootstrap.
        let model = ControllerModel::new(
            &profile(),
            ServerConfigDefs::default(),
            state.level,
            Millis(0),
        );
        with_topics(model, Millis(0), &["t1".into(), "t2".into()])
    }

    fn apply(mut c: ControllerModel, _state: &RefState, step: Step) -> ControllerModel {
        let code = match &step {
            Step::SetValid {
                res,
                name,
                value,
                validate_only,
            } => alter(&mut c, res, vec![op(name, 0, Some(value))], *validate_only),
            Step::SetInvalid { res, name, value } => {
                alter(&mut c, res, vec![op(name, 0, Some(value))], false)
            }
            Step::Duplicate { res, name } => alter(
                &mut c,
                res,
                vec![op(name, 1, None), op(name, 1, None)],
                false,
            ),
            Step::Delete {
                res,
                name,
                validate_only,
            } => alter(&mut c, res, vec![op(name, 1, None)], *validate_only),
            Step::Register { broker } => {
                let b = BrokerModel::new(BrokerSettings::new(*broker), &profile()).unwrap();
                let (v, req) = b.registration_request(6);
                c.handle_broker_registration(Millis(0), v, &req).error_code
            }
            Step::Upgrade { level } => {
                let req = UpdateFeaturesRequest {
                    timeout_ms: 60000,
                    feature_updates: vec![FeatureUpdateKey {
                        feature: "metadata.version".into(),
                        max_version_level: *level,
                        upgrade_type: Some(1),
                        ..Default::default()
                    }],
                    validate_only: Some(false),
                    ..Default::default()
                };
                c.handle_update_features(Millis(0), 1, &req).error_code
            }
        };
        let expected = match step {
            Step::SetInvalid { .. } => 42,
            Step::Duplicate { .. } => 42,
            _ => 0,
        };
        assert_eq!(code, expected, "{step:?}");
        c
    }

    fn check_invariants(c: &ControllerModel, state: &RefState) {
        c.check_invariants().unwrap();
        let actual: BTreeMap<Resource, BTreeMap<String, String>> = c.all_configs().clone();
        assert_eq!(actual, state.configs);
        let brokers: BTreeMap<i32, bool> = c
            .brokers()
            .iter()
            .map(|(id, b)| (*id, b.static_configs_persisted))
            .collect();
        assert_eq!(brokers, state.brokers);
        assert_eq!(c.metadata_version(), state.level);
        let failover =
            ControllerModel::replay(&profile(), ServerConfigDefs::default(), c.metadata_log())
                .unwrap();
        assert_eq!(failover.all_configs(), c.all_configs());
        assert_eq!(failover.topics(), c.topics());
        for (id, persisted) in &state.brokers {
            let restored = &failover.brokers()[id].static_configs;
            assert_eq!(restored.is_empty(), !persisted, "broker {id}");
        }
    }
}

prop_state_machine! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn controller_agrees_with_the_reference(sequential 1..40 => ControllerUnderTest);
}
