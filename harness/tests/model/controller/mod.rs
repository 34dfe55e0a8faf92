//! Controller behaviour of the reference model (KIP-1326 registration and persistence,
//! KIP-1294 MV-aware validation and audits, KIP-1256 request checks), through its public API;
//! `emulated.rs`: the harness's emulated controller APIs (CreateTopics, DescribeCluster,
//! UnregisterBroker) over it.

use crate::model_support::cfg;
use kipcheck::codec::broker_registration_request::StaticConfig;
use kipcheck::codec::create_topics_request::{CreatableTopic, CreatableTopicConfig};
use kipcheck::codec::describe_configs_request::DescribeConfigsResource;
use kipcheck::codec::incremental_alter_configs_request as inc;
use kipcheck::codec::update_features_request::FeatureUpdateKey;
use kipcheck::codec::{
    alter_configs_request as legacy, AlterConfigsRequest, CreateTopicsRequest,
    DescribeClusterRequest, DescribeConfigsRequest, ErrorCode, IncrementalAlterConfigsRequest,
    Message, MetadataRecordBody, RemoveTopicRecord, TopicRecord, UnregisterBrokerRecord,
    UnregisterBrokerRequest, UpdateFeaturesRequest, Uuid,
};
use kipcheck::emulate::controller::with_topics;
use kipcheck::model::server_config::resource_type::{BROKER, TOPIC, UNKNOWN};
use kipcheck::model::{
    AuditDirection, BrokerModel, BrokerSettings, ControllerModel, Event, IncrementalInvalidValue,
    MetadataRecord, Millis, RegistrationRejection, Reregistration, ServerConfigDefs, SpecProfile,
    UpdateFeaturesPrecedence, Validator,
};

mod alter_configs;
mod emulated;
mod envelope;
mod read_back;
mod registration;
mod update_features;

const MIB: f64 = 1048576.0;

/// Definitions where log.segment.bytes and segment.bytes need ≥ 3 MiB from level 40.
fn defs() -> ServerConfigDefs {
    ServerConfigDefs::default()
        .with_mv_validator("log.segment.bytes", 40, Validator::AtLeast(3.0 * MIB))
        .with_mv_validator("segment.bytes", 40, Validator::AtLeast(3.0 * MIB))
}

/// The topics these tests alter and describe: they exist from bootstrap (offsets 1-4).
const TOPICS: [&str; 4] = ["t", "t1", "t2", "u"];

fn controller(profile: &SpecProfile, level: i16) -> ControllerModel {
    let topics: Vec<String> = TOPICS.iter().map(|t| t.to_string()).collect();
    with_topics(
        ControllerModel::new(profile, defs(), level, Millis(0)),
        Millis(0),
        &topics,
    )
}

fn broker(id: i32, props: &[(&str, &str)]) -> BrokerModel {
    let mut s = BrokerSettings::new(id);
    s.server_properties = cfg(props);
    BrokerModel::new(s, &SpecProfile::default()).unwrap()
}

fn register(c: &mut ControllerModel, b: &BrokerModel) -> i16 {
    let (v, req) = b.registration_request(c_max());
    c.handle_broker_registration(Millis(1), v, &req).error_code
}

fn c_max() -> i16 {
    kipcheck::model::controller::MAX_BROKER_REGISTRATION_VERSION
}

fn set(name: &str, value: Option<&str>, op: i8) -> inc::AlterableConfig {
    inc::AlterableConfig {
        name: name.into(),
        config_operation: op,
        value: value.map(Into::into),
        ..Default::default()
    }
}

fn inc_req(
    rtype: i8,
    rname: &str,
    configs: Vec<inc::AlterableConfig>,
    validate_only: bool,
) -> IncrementalAlterConfigsRequest {
    IncrementalAlterConfigsRequest {
        resources: vec![inc::AlterConfigsResource {
            resource_type: rtype,
            resource_name: rname.into(),
            configs,
            ..Default::default()
        }],
        validate_only,
        ..Default::default()
    }
}

/// The error code of a one-resource, one-config IncrementalAlterConfigs (not validate-only).
fn inc_code(c: &mut ControllerModel, rtype: i8, rname: &str, config: inc::AlterableConfig) -> i16 {
    c.handle_incremental_alter_configs(Millis(0), 1, &inc_req(rtype, rname, vec![config], false))
        .responses[0]
        .error_code
}

fn mv_update(level: i16, upgrade_type: i8, validate_only: bool) -> UpdateFeaturesRequest {
    UpdateFeaturesRequest {
        timeout_ms: 60000,
        feature_updates: vec![FeatureUpdateKey {
            feature: "metadata.version".into(),
            max_version_level: level,
            upgrade_type: Some(upgrade_type),
            ..Default::default()
        }],
        validate_only: Some(validate_only),
        ..Default::default()
    }
}

/// Encodes and decodes every record at its version: what another controller would read.
fn through_the_wire(log: &[MetadataRecord]) -> Vec<MetadataRecord> {
    log.iter()
        .map(|r| {
            let bytes = r.body.to_bytes(r.version).unwrap();
            let body = MetadataRecordBody::decode(
                r.body.api_key(),
                &mut kipcheck::codec::Reader::new(&bytes),
                r.version,
            )
            .unwrap();
            MetadataRecord {
                offset: r.offset,
                version: r.version,
                body,
            }
        })
        .collect()
}
