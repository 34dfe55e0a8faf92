//! The client kinds ([`ClientType`]) and the key → (type, default) tables of the producer,
//! consumer, admin, share consumer and Kafka Streams ([`client_definitions`]). Data and lookup
//! only: it decides nothing about which keys are sent.

use super::types::ConfigType;
use serde::{Deserialize, Serialize};

/// The client kinds KIP-1324 covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(schemars::JsonSchema)]
pub enum ClientType {
    /// `KafkaProducer`.
    Producer,
    /// `KafkaConsumer` (classic and consumer protocols).
    Consumer,
    /// `Admin`.
    Admin,
    /// `KafkaShareConsumer`.
    ShareConsumer,
    /// `KafkaStreams` (one handshake per application).
    Streams,
}

impl ClientType {
    /// Every client type.
    pub const ALL: [ClientType; 5] = [
        ClientType::Producer,
        ClientType::Consumer,
        ClientType::Admin,
        ClientType::ShareConsumer,
        ClientType::Streams,
    ];
}

/// One key of a client's `ConfigDef`: its type and default (`None` = Java `null` or no default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConfigKeyDef {
    /// The key.
    pub name: &'static str,
    /// Its `ConfigDef.Type`.
    pub ty: ConfigType,
    /// Its default, as `convertToString` renders it; `None` for a null default.
    pub default: Option<&'static str>,
}

pub(super) const fn k(
    name: &'static str,
    ty: ConfigType,
    default: Option<&'static str>,
) -> ConfigKeyDef {
    ConfigKeyDef { name, ty, default }
}

use ConfigType::{Boolean as B, Class as C, Int as I, List as L, Long as G};
use ConfigType::{Password as P, String as S};

/// Keys every Java client defines (`CommonClientConfigs`, KIP-1324's own client keys).
/// `config.push.allowed.keys` has no static default: its default is the profile's list for
/// the client type, supplied by [`client_definitions`]'s caller.
pub(super) const COMMON: &[ConfigKeyDef] = &[
    k("bootstrap.servers", L, Some("")),
    k("client.dns.lookup", S, Some("use_all_dns_ips")),
    k("client.id", S, Some("")),
    k("config.push.allowed.keys", L, None),
    k("connections.max.idle.ms", G, Some("540000")),
    k("enable.config.push", B, Some("true")),
    k("enable.metrics.push", B, Some("true")),
    k("interceptor.classes", L, Some("")),
    k("metadata.max.age.ms", G, Some("300000")),
    k("metric.reporters", L, Some("")),
    k("metrics.num.samples", I, Some("2")),
    k("metrics.recording.level", S, Some("INFO")),
    k("metrics.sample.window.ms", G, Some("30000")),
    k("receive.buffer.bytes", I, Some("65536")),
    k("reconnect.backoff.max.ms", G, Some("1000")),
    k("reconnect.backoff.ms", G, Some("50")),
    k("request.timeout.ms", I, Some("30000")),
    k("retry.backoff.max.ms", G, Some("1000")),
    k("retry.backoff.ms", G, Some("100")),
    k("sasl.client.callback.handler.class", C, None),
    k("sasl.jaas.config", P, None),
    k("sasl.kerberos.service.name", S, None),
    k("sasl.login.callback.handler.class", C, None),
    k("sasl.mechanism", S, Some("GSSAPI")),
    k("security.protocol", S, Some("PLAINTEXT")),
    k("security.providers", S, None),
    k("send.buffer.bytes", I, Some("131072")),
    k("socket.connection.setup.timeout.max.ms", G, Some("30000")),
    k("socket.connection.setup.timeout.ms", G, Some("10000")),
    k("ssl.endpoint.identification.algorithm", S, Some("https")),
    k("ssl.key.password", P, None),
    k("ssl.keystore.location", S, None),
    k("ssl.keystore.password", P, None),
    k("ssl.keystore.type", S, Some("JKS")),
    k("ssl.protocol", S, Some("TLSv1.3")),
    k("ssl.truststore.location", S, None),
    k("ssl.truststore.password", P, None),
    k("ssl.truststore.type", S, Some("JKS")),
];

/// `ProducerConfig` keys beyond [`COMMON`].
pub(super) const PRODUCER: &[ConfigKeyDef] = &[
    k("acks", S, Some("all")),
    k("batch.size", I, Some("16384")),
    k("buffer.memory", G, Some("33554432")),
    k("compression.type", S, Some("none")),
    k("delivery.timeout.ms", I, Some("120000")),
    k("enable.idempotence", B, Some("true")),
    k("key.serializer", C, None),
    k("linger.ms", G, Some("5")),
    k("max.block.ms", G, Some("60000")),
    k("max.in.flight.requests.per.connection", I, Some("5")),
    k("max.request.size", I, Some("1048576")),
    k("partitioner.class", C, None),
    k("partitioner.ignore.keys", B, Some("false")),
    k("retries", I, Some("2147483647")),
    k("transaction.timeout.ms", I, Some("60000")),
    k("transactional.id", S, None),
    k("value.serializer", C, None),
];

/// `ConsumerConfig` keys beyond [`COMMON`] (the share consumer reads the same `ConfigDef`).
pub(super) const CONSUMER: &[ConfigKeyDef] = &[
    k("allow.auto.create.topics", B, Some("true")),
    k("auto.commit.interval.ms", I, Some("5000")),
    k("auto.offset.reset", S, Some("latest")),
    k("check.crcs", B, Some("true")),
    k("client.rack", S, Some("")),
    k("default.api.timeout.ms", I, Some("60000")),
    k("enable.auto.commit", B, Some("true")),
    k("exclude.internal.topics", B, Some("true")),
    k("fetch.max.bytes", I, Some("52428800")),
    k("fetch.max.wait.ms", I, Some("500")),
    k("fetch.min.bytes", I, Some("1")),
    k("group.id", S, None),
    k("group.instance.id", S, None),
    k("group.protocol", S, Some("classic")),
    k("heartbeat.interval.ms", I, Some("3000")),
    k("isolation.level", S, Some("read_uncommitted")),
    k("key.deserializer", C, None),
    k("max.partition.fetch.bytes", I, Some("1048576")),
    k("max.poll.interval.ms", I, Some("300000")),
    k("max.poll.records", I, Some("500")),
    k(
        "partition.assignment.strategy",
        L,
        Some("org.apache.kafka.clients.consumer.RangeAssignor,org.apache.kafka.clients.consumer.CooperativeStickyAssignor"),
    ),
    k("session.timeout.ms", I, Some("45000")),
    k("share.acknowledgement.mode", S, Some("implicit")),
    k("share.acquire.mode", S, Some("batch_optimized")),
    k("value.deserializer", C, None),
];

/// `AdminClientConfig` keys beyond [`COMMON`].
pub(super) const ADMIN: &[ConfigKeyDef] = &[
    k("default.api.timeout.ms", I, Some("60000")),
    k("retries", I, Some("2147483647")),
];

/// `StreamsConfig` keys beyond [`COMMON`].
pub(super) const STREAMS: &[ConfigKeyDef] = &[
    k("application.id", S, None),
    k("application.server", S, Some("")),
    k("commit.interval.ms", G, Some("30000")),
    k("default.deserialization.exception.handler", C, None),
    k("default.key.serde", C, None),
    k("default.value.serde", C, None),
    k("num.standby.replicas", I, Some("0")),
    k("num.stream.threads", I, Some("1")),
    k("processing.guarantee", S, Some("at_least_once")),
    k("replication.factor", I, Some("-1")),
    k("state.dir", S, Some("/tmp/kafka-streams")),
    k("statestore.cache.max.bytes", G, Some("10485760")),
    k("topology.optimization", S, Some("none")),
];

/// The definitions of one client type, looked up by key.
#[derive(Clone, Debug)]
pub struct ClientDefinitions {
    client_type: ClientType,
    keys: std::collections::BTreeMap<&'static str, ConfigKeyDef>,
}

impl ClientDefinitions {
    /// The client type these definitions belong to.
    pub fn client_type(&self) -> ClientType {
        self.client_type
    }

    /// The definition of `key`, if the client library defines it.
    pub fn get(&self, key: &str) -> Option<&ConfigKeyDef> {
        self.keys.get(key)
    }

    /// Every defined key, sorted.
    pub fn keys(&self) -> impl Iterator<Item = &ConfigKeyDef> {
        self.keys.values()
    }
}

/// The `ConfigDef` subset of `client_type` (see the module doc for what is covered).
pub fn client_definitions(client_type: ClientType) -> ClientDefinitions {
    let specific: &[ConfigKeyDef] = match client_type {
        ClientType::Producer => PRODUCER,
        ClientType::Consumer | ClientType::ShareConsumer => CONSUMER,
        ClientType::Admin => ADMIN,
        ClientType::Streams => STREAMS,
    };
    let keys = COMMON
        .iter()
        .chain(specific)
        .map(|d| (d.name, *d))
        .collect();
    ClientDefinitions { client_type, keys }
}
