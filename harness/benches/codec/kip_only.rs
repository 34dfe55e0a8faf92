//! The fixtures of the KIP messages kafka-protocol does not have (PushConfigRequest v0, at
//! the standard size and by entry count, and RegisterBrokerRecord v5 with static configs),
//! as `(value, bytes)`, each built once. Data only: the timing is in `measure` and `codec.rs`.

use std::sync::OnceLock;

use super::compared::TOPIC_CONFIGS;
use super::fixture::uuid;
use kipcheck::codec::{
    push_config_request, register_broker_record, Message, PushConfigRequest, RegisterBrokerRecord,
};

// ---------------------------------------------------------------------------------------
// PushConfigRequest v0 (ours only: kafka-protocol has no API 95).

// (key, value, type): 1 BOOLEAN, 2 STRING, 3 INT, 5 LONG, 6 DOUBLE, 7 LIST, 8 CLASS.
pub(super) const BASE: [(&str, &str, i8); 50] = [
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
pub(super) fn push_config_n(n: usize) -> PushConfigRequest {
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
pub(super) fn push_config() -> &'static (PushConfigRequest, Vec<u8>) {
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
pub(super) fn push_config_sized(n: usize) -> &'static (PushConfigRequest, Vec<u8>) {
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

pub(super) const PUSH_CONFIG_ENTRIES: [usize; 4] = [10, 100, 1000, 10000];
// ---------------------------------------------------------------------------------------
// RegisterBrokerRecord v5 (KIP-1326; ours only: kafka-protocol has no metadata records),
// 2 endpoints, 3 features, 2 log dirs, 50 static configs (5 sensitive, value null).

pub(super) fn register_broker() -> &'static (RegisterBrokerRecord, Vec<u8>) {
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
