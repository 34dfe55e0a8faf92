//! `Cluster` (`kipcheck::emulate`), the harness's one deterministic driver of the models:
//! requests taken and answered in order, timers fired in order, in-process delivery across the
//! codec, failover keeping events.

use crate::model_support::{api_versions, cfg};
use kipcheck::codec::{ApiKey, RequestBody, ResponseBody};
use kipcheck::emulate::{Awaited, Cluster, ClusterError, Sender};
use kipcheck::model::{
    BrokerModel, BrokerSettings, ClientInput, ClientModel, ClientType, ControllerModel,
    HandshakeState, Millis, ServerConfigDefs, SpecProfile,
};

fn admin() -> ClientModel {
    ClientModel::new(ClientType::Admin, cfg(&[]), &SpecProfile::default(), 1).unwrap()
}

fn broker(node: i32) -> BrokerModel {
    BrokerModel::new(BrokerSettings::new(node), &SpecProfile::default()).unwrap()
}

#[test]
fn a_taken_request_awaits_its_answer_and_the_answer_reaches_the_client() {
    let mut c = Cluster::new().with_client(admin());
    c.input(ClientInput::Start).unwrap();
    c.input(ClientInput::Connected { node: 1 }).unwrap();
    let out = c.take_request().unwrap();
    assert_eq!(
        (out.from, out.node, out.api_key, out.api_version, out.at),
        (Sender::Client, 1, ApiKey::API_VERSIONS, 3, Millis(0))
    );
    assert!(!c.has_request());
    assert_eq!(
        c.awaited(1),
        Some(Awaited {
            from: Sender::Client,
            api_key: ApiKey::API_VERSIONS,
            api_version: 3
        })
    );
    let answered = c
        .answer(1, ResponseBody::ApiVersions(api_versions(true)))
        .unwrap();
    assert_eq!(answered.map(|a| a.api_key), Some(ApiKey::API_VERSIONS));
    assert_eq!(c.awaited(1), None);
    let push = c.take_request().unwrap();
    assert!(matches!(push.body, RequestBody::PushConfig(_)));
    assert_eq!(push.api_key, ApiKey(95));
    // Nothing awaits node 2's answer.
    assert!(c
        .answer(2, ResponseBody::ApiVersions(api_versions(true)))
        .unwrap()
        .is_none());
}

#[test]
fn delivery_crosses_the_codec_to_the_broker_and_back() {
    let mut c = Cluster::new().with_client(admin()).with_broker(broker(1));
    c.input(ClientInput::Start).unwrap();
    c.input(ClientInput::Connected { node: 1 }).unwrap();
    let mut keys = Vec::new();
    while let Some(out) = c.deliver().unwrap() {
        keys.push(out.body.api_key());
    }
    assert_eq!(keys, vec![ApiKey::API_VERSIONS, ApiKey::PUSH_CONFIG]);
    assert_eq!(
        c.client().unwrap().state(),
        &HandshakeState::Completed { node: 1 }
    );
    assert_eq!(c.brokers()[&1].policy_invocations(), 1);
    assert_eq!(c.now(), Millis(0));
}

#[test]
fn drive_until_fires_timers_in_order_and_stops_when_told() {
    let mut c = Cluster::new().with_client(admin());
    c.input(ClientInput::Start).unwrap();
    c.input(ClientInput::Connected { node: 1 }).unwrap();
    c.take_request().unwrap();
    c.answer(1, ResponseBody::ApiVersions(api_versions(true)))
        .unwrap();
    c.take_request().unwrap();
    c.time_out(1).unwrap();
    assert_eq!(c.awaited(1), None);
    let retry = c.next_wake().unwrap();
    assert!(retry > Millis(0));
    c.drive_until(Millis(10_000_000), Cluster::has_request)
        .unwrap();
    assert_eq!(c.now(), retry, "stopped at the timer that sent the retry");
    assert!(c.has_request());
    // With nothing to stop it, time ends exactly where it was driven to.
    let mut quiet = Cluster::new();
    quiet.drive_until(Millis(500), |_| false).unwrap();
    assert_eq!(quiet.now(), Millis(500));
    assert!(!quiet.step().unwrap());
}

#[test]
fn failover_keeps_the_old_controllers_events_and_its_state() {
    let profile = SpecProfile::default();
    let controller =
        ControllerModel::new(&profile, ServerConfigDefs::default(), 42, Millis(0)).with_node_id(7);
    let mut c = Cluster::new().with_controller(controller);
    let before = c.events().len();
    assert!(before > 0);
    c.failover().unwrap();
    assert_eq!(
        c.events().len(),
        before,
        "retired events kept, replay logs none"
    );
    let ctl = c.controller().unwrap();
    assert_eq!((ctl.node_id(), ctl.metadata_version()), (7, 42));
}

#[test]
fn steps_a_cluster_cannot_take_are_typed_errors() {
    let mut c = Cluster::new();
    assert!(matches!(
        c.input(ClientInput::Start),
        Err(ClusterError::NoClient)
    ));
    assert!(matches!(
        c.register(1, 3000, 6),
        Err(ClusterError::NoBroker { node: 1 })
    ));
    assert!(matches!(c.failover(), Err(ClusterError::NoController)));
}
