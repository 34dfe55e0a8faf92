//! The fixtures of messages both codecs have (ApiVersionsResponse v4, IncrementalAlterConfigs
//! v1, BrokerRegistrationRequest v4, MetadataResponse v12), each built once and cross-checked
//! by [`fixture`]. Data only: the timing is in `measure`, the benchmark names in `codec.rs`.

use std::sync::OnceLock;

use super::fixture::{fixture, kuuid, s, uuid, Fixture};
use kafka_protocol::messages as kp;
use kipcheck::codec::{
    api_versions_response, broker_registration_request, incremental_alter_configs_request,
    metadata_response, ApiVersionsResponse, BrokerRegistrationRequest,
    IncrementalAlterConfigsRequest, MetadataResponse, SmallVec,
};

// ---------------------------------------------------------------------------------------
// ApiVersionsResponse v4, 90 API keys.

pub(super) fn api_versions() -> &'static Fixture<ApiVersionsResponse, kp::ApiVersionsResponse> {
    static F: OnceLock<Fixture<ApiVersionsResponse, kp::ApiVersionsResponse>> = OnceLock::new();
    F.get_or_init(|| {
        let keys: Vec<(i16, i16, i16)> = (0..90).map(|k| (k, 0, (k * 7) % 17)).collect();
        let features = [
            ("group.version", 0, 1),
            ("kraft.version", 0, 1),
            ("metadata.version", 7, 27),
        ];
        let ours = ApiVersionsResponse {
            error_code: 0,
            api_keys: keys
                .iter()
                .map(|&(k, lo, hi)| api_versions_response::ApiVersion {
                    api_key: k,
                    min_version: lo,
                    max_version: hi,
                    ..Default::default()
                })
                .collect(),
            throttle_time_ms: Some(0),
            supported_features: Some(
                features
                    .iter()
                    .map(|&(n, lo, hi)| api_versions_response::SupportedFeatureKey {
                        name: n.into(),
                        min_version: lo,
                        max_version: hi,
                        ..Default::default()
                    })
                    .collect(),
            ),
            finalized_features_epoch: Some(4711),
            finalized_features: Some(
                features
                    .iter()
                    .map(|&(n, _, hi)| api_versions_response::FinalizedFeatureKey {
                        name: n.into(),
                        max_version_level: hi,
                        min_version_level: hi,
                        ..Default::default()
                    })
                    .collect(),
            ),
            zk_migration_ready: Some(false),
            ..Default::default()
        };
        let mut theirs = kp::ApiVersionsResponse::default();
        theirs.api_keys = keys
            .iter()
            .map(|&(k, lo, hi)| {
                kp::api_versions_response::ApiVersion::default()
                    .with_api_key(k)
                    .with_min_version(lo)
                    .with_max_version(hi)
            })
            .collect();
        theirs.supported_features = features
            .iter()
            .map(|&(n, lo, hi)| {
                kp::api_versions_response::SupportedFeatureKey::default()
                    .with_name(s(n))
                    .with_min_version(lo)
                    .with_max_version(hi)
            })
            .collect();
        theirs.finalized_features_epoch = 4711;
        theirs.finalized_features = features
            .iter()
            .map(|&(n, _, hi)| {
                kp::api_versions_response::FinalizedFeatureKey::default()
                    .with_name(s(n))
                    .with_max_version_level(hi)
                    .with_min_version_level(hi)
            })
            .collect();
        fixture(ours, theirs, 4)
    })
}

// ---------------------------------------------------------------------------------------
// IncrementalAlterConfigsRequest v1, one topic resource with 50 configs.

pub(super) const TOPIC_CONFIGS: [(&str, Option<&str>); 50] = [
    ("cleanup.policy", Some("compact,delete")),
    ("compression.type", Some("zstd")),
    ("delete.retention.ms", Some("86400000")),
    ("file.delete.delay.ms", Some("60000")),
    ("flush.messages", Some("9223372036854775807")),
    ("flush.ms", Some("9223372036854775807")),
    ("follower.replication.throttled.replicas", Some("")),
    ("index.interval.bytes", Some("4096")),
    ("leader.replication.throttled.replicas", Some("")),
    ("local.retention.bytes", Some("-2")),
    ("local.retention.ms", Some("-2")),
    ("max.compaction.lag.ms", Some("9223372036854775807")),
    ("max.message.bytes", Some("1048588")),
    ("message.downconversion.enable", Some("true")),
    (
        "message.timestamp.after.max.ms",
        Some("9223372036854775807"),
    ),
    (
        "message.timestamp.before.max.ms",
        Some("9223372036854775807"),
    ),
    ("message.timestamp.type", Some("CreateTime")),
    ("min.cleanable.dirty.ratio", Some("0.5")),
    ("min.compaction.lag.ms", Some("0")),
    ("min.insync.replicas", Some("2")),
    ("preallocate", Some("false")),
    ("remote.storage.enable", Some("false")),
    ("retention.bytes", Some("-1")),
    ("retention.ms", Some("604800000")),
    ("segment.bytes", Some("1073741824")),
    ("segment.index.bytes", Some("10485760")),
    ("segment.jitter.ms", Some("0")),
    ("segment.ms", Some("604800000")),
    ("unclean.leader.election.enable", Some("false")),
    ("message.format.version", None),
    ("compression.gzip.level", Some("-1")),
    ("compression.lz4.level", Some("9")),
    ("compression.zstd.level", Some("3")),
    ("remote.log.copy.disable", Some("false")),
    ("remote.log.delete.on.disable", Some("false")),
    ("diskless.enable", None),
    ("confluent.placement.constraints", None),
    ("confluent.tier.enable", Some("false")),
    ("confluent.value.schema.validation", Some("true")),
    ("confluent.key.schema.validation", Some("false")),
    (
        "confluent.value.subject.name.strategy",
        Some("io.confluent.kafka.serializers.subject.TopicNameStrategy"),
    ),
    (
        "confluent.key.subject.name.strategy",
        Some("io.confluent.kafka.serializers.subject.TopicNameStrategy"),
    ),
    ("message.timestamp.difference.max.ms", None),
    ("leader.imbalance.per.broker.percentage", Some("10")),
    ("log.cleaner.min.compaction.lag.ms", Some("0")),
    ("log.roll.jitter.ms", None),
    ("retention.check.interval.ms", Some("300000")),
    ("segment.delete.delay.ms", Some("60000")),
    ("app.owner", Some("payments-platform@example.com")),
    (
        "app.description",
        Some("Order lifecycle events, partitioned by customer id"),
    ),
];

pub(super) fn incremental_alter_configs(
) -> &'static Fixture<IncrementalAlterConfigsRequest, kp::IncrementalAlterConfigsRequest> {
    static F: OnceLock<
        Fixture<IncrementalAlterConfigsRequest, kp::IncrementalAlterConfigsRequest>,
    > = OnceLock::new();
    F.get_or_init(|| {
        // SET (0) for a value, DELETE (1) for none.
        let op = |v: Option<&str>| if v.is_some() { 0i8 } else { 1 };
        let ours = IncrementalAlterConfigsRequest {
            resources: vec![incremental_alter_configs_request::AlterConfigsResource {
                resource_type: 2,
                resource_name: "payments.orders.lifecycle-events.v2".into(),
                configs: TOPIC_CONFIGS
                    .iter()
                    .map(
                        |&(n, v)| incremental_alter_configs_request::AlterableConfig {
                            name: n.into(),
                            config_operation: op(v),
                            value: v.map(Into::into),
                            ..Default::default()
                        },
                    )
                    .collect(),
                ..Default::default()
            }],
            validate_only: false,
            ..Default::default()
        };
        let mut theirs = kp::IncrementalAlterConfigsRequest::default();
        theirs.resources = vec![
            kp::incremental_alter_configs_request::AlterConfigsResource::default()
                .with_resource_type(2)
                .with_resource_name(s("payments.orders.lifecycle-events.v2"))
                .with_configs(
                    TOPIC_CONFIGS
                        .iter()
                        .map(|&(n, v)| {
                            kp::incremental_alter_configs_request::AlterableConfig::default()
                                .with_name(s(n))
                                .with_config_operation(op(v))
                                .with_value(v.map(s))
                        })
                        .collect(),
                ),
        ];
        fixture(ours, theirs, 1)
    })
}

// ---------------------------------------------------------------------------------------
// BrokerRegistrationRequest v4: 2 listeners, 3 features, 2 log dirs.

pub(super) fn broker_registration(
) -> &'static Fixture<BrokerRegistrationRequest, kp::BrokerRegistrationRequest> {
    static F: OnceLock<Fixture<BrokerRegistrationRequest, kp::BrokerRegistrationRequest>> =
        OnceLock::new();
    F.get_or_init(|| {
        let listeners = [
            (
                "BROKER",
                "kafka-3.kafka-headless.streaming.svc.cluster.local",
                9092u16,
                1i16,
            ),
            ("EXTERNAL", "b-3.prod-eu-west-1.kafka.example.com", 9094, 3),
        ];
        let features = [
            ("metadata.version", 7i16, 27i16),
            ("kraft.version", 0, 1),
            ("group.version", 0, 1),
        ];
        let log_dirs = [uuid(1), uuid(2)];
        let ours = BrokerRegistrationRequest {
            broker_id: 3,
            cluster_id: "MkU3OEVBNTcwNTJENDM2Qk".into(),
            incarnation_id: uuid(9),
            listeners: listeners
                .iter()
                .map(|&(n, h, p, sp)| broker_registration_request::Listener {
                    name: n.into(),
                    host: h.into(),
                    port: p,
                    security_protocol: sp,
                    ..Default::default()
                })
                .collect(),
            features: features
                .iter()
                .map(|&(n, lo, hi)| broker_registration_request::Feature {
                    name: n.into(),
                    min_supported_version: lo,
                    max_supported_version: hi,
                    ..Default::default()
                })
                .collect(),
            rack: Some("eu-west-1b".into()),
            is_migrating_zk_broker: Some(false),
            log_dirs: Some(log_dirs.to_vec()),
            previous_broker_epoch: Some(21474836480),
            ..Default::default()
        };
        let mut theirs = kp::BrokerRegistrationRequest::default();
        theirs.broker_id = 3.into();
        theirs.cluster_id = s("MkU3OEVBNTcwNTJENDM2Qk");
        theirs.incarnation_id = kuuid(&uuid(9));
        theirs.listeners = listeners
            .iter()
            .map(|&(n, h, p, sp)| {
                kp::broker_registration_request::Listener::default()
                    .with_name(s(n))
                    .with_host(s(h))
                    .with_port(p)
                    .with_security_protocol(sp)
            })
            .collect();
        theirs.features = features
            .iter()
            .map(|&(n, lo, hi)| {
                kp::broker_registration_request::Feature::default()
                    .with_name(s(n))
                    .with_min_supported_version(lo)
                    .with_max_supported_version(hi)
            })
            .collect();
        theirs.rack = Some(s("eu-west-1b"));
        theirs.log_dirs = log_dirs.iter().map(kuuid).collect();
        theirs.previous_broker_epoch = 21474836480;
        fixture(ours, theirs, 4)
    })
}
// ---------------------------------------------------------------------------------------
// MetadataResponse v12: 3 brokers, 100 topics x 10 partitions (replication factor 3).

pub(super) fn metadata() -> &'static Fixture<MetadataResponse, kp::MetadataResponse> {
    static F: OnceLock<Fixture<MetadataResponse, kp::MetadataResponse>> = OnceLock::new();
    F.get_or_init(|| {
        let hosts = [
            "b-1.prod-eu-west-1.kafka.example.com",
            "b-2.prod-eu-west-1.kafka.example.com",
            "b-3.prod-eu-west-1.kafka.example.com",
        ];
        let racks = ["eu-west-1a", "eu-west-1b", "eu-west-1c"];
        let topic_name = |t: usize| format!("payments.orders.events-{t:03}");
        let replicas = |t: usize, p: usize| -> Vec<i32> {
            (0..3).map(|r| ((t + p + r) % 3 + 1) as i32).collect()
        };
        let ours = MetadataResponse {
            throttle_time_ms: Some(0),
            brokers: (0..3)
                .map(|b| metadata_response::MetadataResponseBroker {
                    node_id: b as i32 + 1,
                    host: hosts[b].into(),
                    port: 9094,
                    rack: Some(Some(racks[b].into())),
                    ..Default::default()
                })
                .collect(),
            cluster_id: Some(Some("MkU3OEVBNTcwNTJENDM2Qk".into())),
            controller_id: Some(2),
            topics: (0..100)
                .map(|t| metadata_response::MetadataResponseTopic {
                    error_code: 0,
                    name: Some(topic_name(t).into()),
                    topic_id: Some(uuid(t as u8)),
                    is_internal: Some(false),
                    partitions: (0..10)
                        .map(|p| metadata_response::MetadataResponsePartition {
                            error_code: 0,
                            partition_index: p as i32,
                            leader_id: replicas(t, p)[0],
                            leader_epoch: Some(7),
                            replica_nodes: replicas(t, p).into(),
                            isr_nodes: replicas(t, p).into(),
                            offline_replicas: Some(SmallVec::new()),
                            ..Default::default()
                        })
                        .collect(),
                    topic_authorized_operations: Some(-2147483648),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        let mut theirs = kp::MetadataResponse::default();
        theirs.throttle_time_ms = 0;
        theirs.brokers = (0..3)
            .map(|b| {
                kp::metadata_response::MetadataResponseBroker::default()
                    .with_node_id((b as i32 + 1).into())
                    .with_host(s(hosts[b]))
                    .with_port(9094)
                    .with_rack(Some(s(racks[b])))
            })
            .collect();
        theirs.cluster_id = Some(s("MkU3OEVBNTcwNTJENDM2Qk"));
        theirs.controller_id = 2.into();
        theirs.topics = (0..100)
            .map(|t| {
                kp::metadata_response::MetadataResponseTopic::default()
                    .with_name(Some(s(&topic_name(t)).into()))
                    .with_topic_id(kuuid(&uuid(t as u8)))
                    .with_is_internal(false)
                    .with_partitions(
                        (0..10)
                            .map(|p| {
                                let r: Vec<kp::BrokerId> =
                                    replicas(t, p).into_iter().map(Into::into).collect();
                                kp::metadata_response::MetadataResponsePartition::default()
                                    .with_partition_index(p as i32)
                                    .with_leader_id(r[0])
                                    .with_leader_epoch(7)
                                    .with_replica_nodes(r.clone())
                                    .with_isr_nodes(r)
                            })
                            .collect(),
                    )
            })
            .collect();
        fixture(ours, theirs, 12)
    })
}
