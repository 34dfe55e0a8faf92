//! Codec benchmarks: decode and encode time of kipcheck's generated codec against the
//! `kafka-protocol` crate (0.18, generated from Kafka 4.1.0), on identical bytes.
//!
//! Every fixture is built once with our encoder; before any timing, `kafka-protocol` must
//! decode the same bytes to the value we expect and re-encode them to the same bytes, so
//! both sides are measured on exactly the same input. Results are recorded in
//! `harness/benches/RESULTS.md`. Run with `cargo bench -p kipcheck --bench codec`.
//!
//! Benchmarks per message: `decode` (bytes → value), `encode` (value → a fresh buffer, no
//! size pre-computation, as a typical caller does: our `to_bytes`, which starts with 1 KiB of
//! room, and kafka-protocol into `BytesMut::new()`) and `encode_reuse` (value → a cleared
//! buffer that already has capacity: the cost of the encoder alone).

use std::fmt::Debug;
use std::sync::OnceLock;

use bytes::{Bytes as KBytes, BytesMut};
use divan::{black_box, Bencher};
use kafka_protocol::messages as kp;
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use kipcheck::codec::{
    api_versions_response, broker_registration_request, incremental_alter_configs_request,
    metadata_response, push_config_request, register_broker_record, ApiVersionsResponse,
    BrokerRegistrationRequest, IncrementalAlterConfigsRequest, Message, MetadataResponse,
    PushConfigRequest, RegisterBrokerRecord, SmallVec, Uuid,
};

fn main() {
    // Build and cross-check every fixture before any timing starts.
    let sizes = [
        ("api_versions_response_v4_90_keys", &api_versions().bytes),
        (
            "incremental_alter_configs_request_v1_50_configs",
            &incremental_alter_configs().bytes,
        ),
        (
            "broker_registration_request_v4",
            &broker_registration().bytes,
        ),
        (
            "metadata_response_v12_100_topics_10_partitions",
            &metadata().bytes,
        ),
        (
            "register_broker_record_v5_50_static_configs",
            &register_broker().1,
        ),
        ("push_config_request_v0_10_kb", &push_config().1),
    ];
    for (name, bytes) in sizes {
        eprintln!("fixture {name}: {} B", bytes.len());
    }
    for n in PUSH_CONFIG_ENTRIES {
        eprintln!(
            "push_config_entries {n}: {} B",
            push_config_sized(n).1.len()
        );
    }
    // `KIPCHECK_FIXTURES_OUT=DIR`: write each fixture's bytes to DIR/NAME.bin (with its
    // version in DIR/NAME.version) for the Java benchmark (scripts/bench-vs-java.sh), and
    // exit.
    if let Some(dir) = std::env::var_os("KIPCHECK_FIXTURES_OUT") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).expect("create the fixture directory");
        let versions = [4, 1, 4, 12, 5, 0];
        for ((name, bytes), version) in sizes.iter().zip(versions) {
            std::fs::write(dir.join(format!("{name}.bin")), bytes).expect("write a fixture");
            std::fs::write(dir.join(format!("{name}.version")), format!("{version}\n"))
                .expect("write a fixture version");
        }
        return;
    }
    divan::main();
}

/// A fixture: our value, the same message as a `kafka-protocol` value, and the bytes.
struct Fixture<O, T> {
    ours: O,
    theirs: T,
    bytes: Vec<u8>,
    version: i16,
}

/// Encodes `ours`, checks both codecs decode the bytes back to the values given, and that
/// `kafka-protocol` re-encodes the very same bytes.
fn fixture<O: Message, T: Decodable + Encodable + PartialEq + Debug>(
    ours: O,
    theirs: T,
    version: i16,
) -> Fixture<O, T> {
    let bytes = ours
        .to_bytes(version)
        .expect("our encoder accepts the fixture");
    assert_eq!(
        O::from_bytes(&bytes, version).expect("we decode our own bytes"),
        ours
    );
    let mut buf = KBytes::from(bytes.clone());
    let decoded = T::decode(&mut buf, version).expect("kafka-protocol decodes our bytes");
    assert!(buf.is_empty(), "kafka-protocol left bytes unread");
    assert_eq!(decoded, theirs, "kafka-protocol decodes a different value");
    let mut out = BytesMut::new();
    theirs
        .encode(&mut out, version)
        .expect("kafka-protocol encodes");
    assert_eq!(
        &out[..],
        &bytes[..],
        "kafka-protocol encodes different bytes"
    );
    Fixture {
        ours,
        theirs,
        bytes,
        version,
    }
}

fn s(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_owned())
}

fn uuid(n: u8) -> Uuid {
    let mut b = [0u8; 16];
    for (i, x) in b.iter_mut().enumerate() {
        *x = n.wrapping_mul(31).wrapping_add(i as u8 * 17);
    }
    Uuid(b)
}

/// `kafka-protocol` does not re-export `uuid`; its `Uuid` implements `TryFrom<Vec<u8>>`,
/// so the target type is left to inference.
fn kuuid<U: TryFrom<Vec<u8>>>(u: &Uuid) -> U
where
    U::Error: Debug,
{
    u.0.to_vec().try_into().expect("16 bytes")
}

// ---------------------------------------------------------------------------------------
// ApiVersionsResponse v4, 90 API keys.

fn api_versions() -> &'static Fixture<ApiVersionsResponse, kp::ApiVersionsResponse> {
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

const TOPIC_CONFIGS: [(&str, Option<&str>); 50] = [
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

fn incremental_alter_configs(
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

fn broker_registration(
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
// PushConfigRequest v0 (ours only: kafka-protocol has no API 95).

// (key, value, type): 1 BOOLEAN, 2 STRING, 3 INT, 5 LONG, 6 DOUBLE, 7 LIST, 8 CLASS.
const BASE: [(&str, &str, i8); 50] = [
    (
        "bootstrap.servers",
        "b-1.prod-eu-west-1.kafka.example.com:9094,b-2.prod-eu-west-1.kafka.example.com:9094",
        7,
    ),
    ("client.id", "payments-order-service-7f9c4d8b6-x2kqp", 2),
    ("client.dns.lookup", "use_all_dns_ips", 2),
    ("security.protocol", "SASL_SSL", 2),
    ("sasl.mechanism", "SCRAM-SHA-512", 2),
    ("ssl.endpoint.identification.algorithm", "https", 2),
    ("ssl.enabled.protocols", "TLSv1.2,TLSv1.3", 7),
    ("ssl.truststore.type", "PEM", 2),
    ("request.timeout.ms", "30000", 3),
    ("retry.backoff.ms", "100", 5),
    ("retry.backoff.max.ms", "1000", 5),
    ("reconnect.backoff.ms", "50", 5),
    ("reconnect.backoff.max.ms", "1000", 5),
    ("socket.connection.setup.timeout.ms", "10000", 5),
    ("socket.connection.setup.timeout.max.ms", "30000", 5),
    ("connections.max.idle.ms", "540000", 5),
    ("metadata.max.age.ms", "300000", 5),
    ("metrics.num.samples", "2", 3),
    ("metrics.sample.window.ms", "30000", 5),
    ("metrics.recording.level", "INFO", 2),
    ("send.buffer.bytes", "131072", 3),
    ("receive.buffer.bytes", "65536", 3),
    ("enable.metrics.push", "true", 1),
    (
        "key.serializer",
        "org.apache.kafka.common.serialization.StringSerializer",
        8,
    ),
    (
        "value.serializer",
        "io.confluent.kafka.serializers.KafkaAvroSerializer",
        8,
    ),
    ("acks", "all", 2),
    ("enable.idempotence", "true", 1),
    ("linger.ms", "5", 5),
    ("batch.size", "65536", 3),
    ("buffer.memory", "33554432", 5),
    ("compression.type", "zstd", 2),
    ("max.in.flight.requests.per.connection", "5", 3),
    ("max.request.size", "1048576", 3),
    ("delivery.timeout.ms", "120000", 3),
    ("partitioner.ignore.keys", "false", 1),
    ("transaction.timeout.ms", "60000", 3),
    (
        "key.deserializer",
        "org.apache.kafka.common.serialization.StringDeserializer",
        8,
    ),
    (
        "value.deserializer",
        "io.confluent.kafka.serializers.KafkaAvroDeserializer",
        8,
    ),
    ("group.id", "payments-order-service", 2),
    ("group.protocol", "consumer", 2),
    ("auto.offset.reset", "earliest", 2),
    ("enable.auto.commit", "false", 1),
    ("fetch.min.bytes", "1", 3),
    ("fetch.max.wait.ms", "500", 3),
    ("max.poll.records", "500", 3),
    ("max.poll.interval.ms", "300000", 3),
    ("session.timeout.ms", "45000", 3),
    ("isolation.level", "read_committed", 2),
    (
        "interceptor.classes",
        "io.opentelemetry.instrumentation.kafkaclients.v2_6.TracingConsumerInterceptor",
        7,
    ),
    (
        "partition.assignment.strategy",
        "org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
        7,
    ),
];
/// A PushConfigRequest with `n` client configs: the 50 base configs, then again under the
/// prefixes `producer.`, `consumer.`, `admin.`, then `x4.`, `x5.` and so on.
fn push_config_n(n: usize) -> PushConfigRequest {
    let configs = (0..n)
        .map(|i| {
            let (k, v, t) = BASE[i % BASE.len()];
            let prefix = match i / BASE.len() {
                0 => String::new(),
                1 => "producer.".to_owned(),
                2 => "consumer.".to_owned(),
                3 => "admin.".to_owned(),
                j => format!("x{j}."),
            };
            push_config_request::Config {
                config_key: format!("{prefix}{k}").into(),
                config_value: v.into(),
                config_type: t,
                is_default: i % 3 == 0,
                ..Default::default()
            }
        })
        .collect();
    PushConfigRequest {
        configs,
        ..Default::default()
    }
}

/// The largest request of this shape within the KIP-1324 default `client.config.max.bytes`
/// (10 KB = 10240 bytes, body only).
fn push_config() -> &'static (PushConfigRequest, Vec<u8>) {
    static F: OnceLock<(PushConfigRequest, Vec<u8>)> = OnceLock::new();
    F.get_or_init(|| {
        let mut n = 1;
        while push_config_n(n + 1).encoded_len(0).expect("encodes") <= 10240 {
            n += 1;
        }
        let ours = push_config_n(n);
        let bytes = ours.to_bytes(0).expect("our encoder accepts the fixture");
        assert_eq!(
            PushConfigRequest::from_bytes(&bytes, 0).expect("decodes"),
            ours
        );
        (ours, bytes)
    })
}

/// PushConfigRequests with 10, 100, 1000 and 10000 configs (scripts/scaling.sh).
fn push_config_sized(n: usize) -> &'static (PushConfigRequest, Vec<u8>) {
    type BySize = Vec<(usize, (PushConfigRequest, Vec<u8>))>;
    static F: OnceLock<BySize> = OnceLock::new();
    let all = F.get_or_init(|| {
        PUSH_CONFIG_ENTRIES
            .iter()
            .map(|&n| {
                let ours = push_config_n(n);
                let bytes = ours.to_bytes(0).expect("our encoder accepts the fixture");
                (n, (ours, bytes))
            })
            .collect()
    });
    &all.iter().find(|(k, _)| *k == n).expect("a listed size").1
}

const PUSH_CONFIG_ENTRIES: [usize; 4] = [10, 100, 1000, 10000];

// ---------------------------------------------------------------------------------------
// MetadataResponse v12: 3 brokers, 100 topics x 10 partitions (replication factor 3).

fn metadata() -> &'static Fixture<MetadataResponse, kp::MetadataResponse> {
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

// ---------------------------------------------------------------------------------------
// RegisterBrokerRecord v5 (KIP-1326; ours only: kafka-protocol has no metadata records),
// 2 endpoints, 3 features, 2 log dirs, 50 static configs (5 sensitive, value null).

fn register_broker() -> &'static (RegisterBrokerRecord, Vec<u8>) {
    static F: OnceLock<(RegisterBrokerRecord, Vec<u8>)> = OnceLock::new();
    F.get_or_init(|| {
        let static_configs = TOPIC_CONFIGS
            .iter()
            .enumerate()
            .map(|(i, &(n, v))| register_broker_record::BrokerStaticConfig {
                name: format!("log.{n}").into(),
                value: if i % 10 == 9 {
                    None
                } else {
                    Some(v.unwrap_or("1").into())
                },
                ..Default::default()
            })
            .collect();
        let ours = RegisterBrokerRecord {
            broker_id: 3,
            is_migrating_zk_broker: Some(false),
            incarnation_id: uuid(9),
            broker_epoch: 21474836480,
            end_points: [
                (
                    "BROKER",
                    "kafka-3.kafka-headless.streaming.svc.cluster.local",
                    9092,
                    1,
                ),
                ("EXTERNAL", "b-3.prod-eu-west-1.kafka.example.com", 9094, 3),
            ]
            .iter()
            .map(|&(n, h, p, sp)| register_broker_record::BrokerEndpoint {
                name: n.into(),
                host: h.into(),
                port: p,
                security_protocol: sp,
                ..Default::default()
            })
            .collect(),
            features: [
                ("metadata.version", 7, 27),
                ("kraft.version", 0, 1),
                ("group.version", 0, 1),
            ]
            .iter()
            .map(|&(n, lo, hi)| register_broker_record::BrokerFeature {
                name: n.into(),
                min_supported_version: lo,
                max_supported_version: hi,
                ..Default::default()
            })
            .collect(),
            rack: Some("eu-west-1b".into()),
            fenced: true,
            in_controlled_shutdown: Some(false),
            log_dirs: Some(vec![uuid(1), uuid(2)]),
            cordoned_log_dirs: Some(Vec::new()),
            static_configs: Some(static_configs),
            ..Default::default()
        };
        let bytes = ours.to_bytes(5).expect("our encoder accepts the fixture");
        assert_eq!(
            RegisterBrokerRecord::from_bytes(&bytes, 5).expect("decodes"),
            ours
        );
        (ours, bytes)
    })
}

// ---------------------------------------------------------------------------------------
// The benchmarks.

fn decode_ours<O: Message, T>(b: Bencher, f: &Fixture<O, T>) {
    b.bench_local(|| O::from_bytes(black_box(&f.bytes), black_box(f.version)).unwrap());
}

fn decode_theirs<O, T: Decodable>(b: Bencher, f: &Fixture<O, T>) {
    let bytes = KBytes::from(f.bytes.clone());
    b.bench_local(|| {
        let mut buf = black_box(&bytes).clone();
        T::decode(&mut buf, black_box(f.version)).unwrap()
    });
}

fn encode_ours<O: Message, T>(b: Bencher, f: &Fixture<O, T>) {
    b.bench_local(|| black_box(&f.ours).to_bytes(black_box(f.version)).unwrap());
}

fn encode_theirs<O, T: Encodable>(b: Bencher, f: &Fixture<O, T>) {
    b.bench_local(|| {
        let mut buf = BytesMut::new();
        black_box(&f.theirs)
            .encode(&mut buf, black_box(f.version))
            .unwrap();
        buf
    });
}

fn encode_reuse_ours<O: Message, T>(b: Bencher, f: &Fixture<O, T>) {
    let mut buf = Vec::with_capacity(f.bytes.len());
    b.bench_local(|| {
        buf.clear();
        black_box(&f.ours)
            .encode(&mut buf, black_box(f.version))
            .unwrap();
        black_box(buf.len());
    });
}

fn encode_reuse_theirs<O, T: Encodable>(b: Bencher, f: &Fixture<O, T>) {
    let mut buf = BytesMut::with_capacity(f.bytes.len());
    b.bench_local(|| {
        buf.clear();
        black_box(&f.theirs)
            .encode(&mut buf, black_box(f.version))
            .unwrap();
        black_box(buf.len());
    });
}

macro_rules! suite {
    ($name:ident, $fixture:ident) => {
        mod $name {
            use super::*;

            #[divan::bench]
            fn decode_ours(b: Bencher) {
                super::decode_ours(b, $fixture());
            }
            #[divan::bench]
            fn decode_theirs(b: Bencher) {
                super::decode_theirs(b, $fixture());
            }
            #[divan::bench]
            fn encode_ours(b: Bencher) {
                super::encode_ours(b, $fixture());
            }
            #[divan::bench]
            fn encode_theirs(b: Bencher) {
                super::encode_theirs(b, $fixture());
            }
            #[divan::bench]
            fn encode_reuse_ours(b: Bencher) {
                super::encode_reuse_ours(b, $fixture());
            }
            #[divan::bench]
            fn encode_reuse_theirs(b: Bencher) {
                super::encode_reuse_theirs(b, $fixture());
            }
        }
    };
}

suite!(api_versions_response_v4_90_keys, api_versions);
suite!(
    incremental_alter_configs_request_v1_50_configs,
    incremental_alter_configs
);
suite!(broker_registration_request_v4, broker_registration);

suite!(metadata_response_v12_100_topics_10_partitions, metadata);

/// The benchmarks of a message kafka-protocol does not have: `$fixture()` gives
/// `(value, bytes)`.
macro_rules! ours_only {
    ($name:ident, $fixture:ident, $version:expr) => {
        mod $name {
            use super::*;

            #[divan::bench]
            fn decode_ours(b: Bencher) {
                let (ours, bytes) = $fixture();
                b.bench_local(|| decode_as(ours, black_box(bytes), black_box($version)));
            }
            #[divan::bench]
            fn encode_ours(b: Bencher) {
                let (ours, _) = $fixture();
                b.bench_local(|| black_box(ours).to_bytes(black_box($version)).unwrap());
            }
            #[divan::bench]
            fn encode_reuse_ours(b: Bencher) {
                let (ours, bytes) = $fixture();
                let mut buf = Vec::with_capacity(bytes.len());
                b.bench_local(|| {
                    buf.clear();
                    black_box(ours)
                        .encode(&mut buf, black_box($version))
                        .unwrap();
                    black_box(buf.len());
                });
            }
        }
    };
}

/// Decodes `bytes` as the type of `_like`.
fn decode_as<M: Message>(_like: &M, bytes: &[u8], version: i16) -> M {
    M::from_bytes(bytes, version).unwrap()
}

ours_only!(
    register_broker_record_v5_50_static_configs,
    register_broker,
    5
);
ours_only!(push_config_request_v0_10_kb, push_config, 0);

/// Decode time by size (scripts/scaling.sh): PushConfigRequest v0 with N configs.
mod push_config_entries {
    use super::*;

    #[divan::bench(args = PUSH_CONFIG_ENTRIES)]
    fn decode_ours(b: Bencher, n: usize) {
        let (_, bytes) = push_config_sized(n);
        b.counter(divan::counter::BytesCount::new(bytes.len()))
            .bench_local(|| PushConfigRequest::from_bytes(black_box(bytes), 0).unwrap());
    }
}
