//! Client configuration definitions as data: Kafka's `ConfigDef.Type`, the two wire numberings
//! of it (KIP-1324 §6 A2), typed values parsed and rendered the way `ConfigDef.parseType` and
//! `ConfigDef.convertToString` do, and the key → (type, default) tables of the producer,
//! consumer, admin, share consumer and Kafka Streams.
//!
//! The tables are a documented subset of `ProducerConfig`, `ConsumerConfig`,
//! `AdminClientConfig`, `StreamsConfig` and `CommonClientConfigs` (apache/kafka trunk): every
//! key a KIP-1324 default list names, every sensitive-pattern example, and the timing keys
//! the handshake reads. This file decides nothing about which keys are sent.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Kafka's `org.apache.kafka.common.config.ConfigDef.Type`, in declaration (ordinal) order.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ConfigType {
    /// `BOOLEAN` (ordinal 0).
    Boolean,
    /// `STRING` (ordinal 1).
    String,
    /// `INT` (ordinal 2).
    Int,
    /// `SHORT` (ordinal 3).
    Short,
    /// `LONG` (ordinal 4).
    Long,
    /// `DOUBLE` (ordinal 5).
    Double,
    /// `LIST` (ordinal 6).
    List,
    /// `CLASS` (ordinal 7).
    Class,
    /// `PASSWORD` (ordinal 8).
    Password,
}

impl ConfigType {
    /// Every type, in ordinal order.
    pub const ALL: [ConfigType; 9] = [
        ConfigType::Boolean,
        ConfigType::String,
        ConfigType::Int,
        ConfigType::Short,
        ConfigType::Long,
        ConfigType::Double,
        ConfigType::List,
        ConfigType::Class,
        ConfigType::Password,
    ];

    /// The Java enum constant's name, e.g. `INT`.
    pub fn name(self) -> &'static str {
        match self {
            ConfigType::Boolean => "BOOLEAN",
            ConfigType::String => "STRING",
            ConfigType::Int => "INT",
            ConfigType::Short => "SHORT",
            ConfigType::Long => "LONG",
            ConfigType::Double => "DOUBLE",
            ConfigType::List => "LIST",
            ConfigType::Class => "CLASS",
            ConfigType::Password => "PASSWORD",
        }
    }

    /// The Java ordinal (`ConfigDef.Type.ordinal()`).
    pub fn ordinal(self) -> i8 {
        self as i8
    }

    /// Kafka's `Type.isSensitive()`: true only for PASSWORD.
    pub fn is_sensitive(self) -> bool {
        self == ConfigType::Password
    }
}

impl fmt::Display for ConfigType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How PushConfig's `ConfigType` int8 maps to [`ConfigType`] (kip-notes §6 A2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfigTypeNumbering {
    /// The newest KIP text: the `ConfigDef.Type` ordinal, BOOLEAN 0 … PASSWORD 8.
    #[default]
    ConfigDefType,
    /// The older KIP's `ClientConfigType`: BOOLEAN 0, STRING 1, SHORT 2, INT 3, LONG 4,
    /// DOUBLE 5, LIST 6; CLASS and PASSWORD have no number.
    OlderKipEnum,
}

impl ConfigTypeNumbering {
    /// The wire number of `ty`, or `None` if this numbering has none for it.
    pub fn to_wire(self, ty: ConfigType) -> Option<i8> {
        match self {
            ConfigTypeNumbering::ConfigDefType => Some(ty.ordinal()),
            ConfigTypeNumbering::OlderKipEnum => match ty {
                ConfigType::Boolean => Some(0),
                ConfigType::String => Some(1),
                ConfigType::Short => Some(2),
                ConfigType::Int => Some(3),
                ConfigType::Long => Some(4),
                ConfigType::Double => Some(5),
                ConfigType::List => Some(6),
                ConfigType::Class | ConfigType::Password => None,
            },
        }
    }

    /// The type a wire number means, or `None` if it is outside this numbering.
    pub fn from_wire(self, n: i8) -> Option<ConfigType> {
        ConfigType::ALL
            .into_iter()
            .find(|t| self.to_wire(*t) == Some(n))
    }
}

/// A configuration value of a known type, as `ConfigDef.parseType` produces it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfigValue {
    /// BOOLEAN.
    Boolean(bool),
    /// STRING.
    String(String),
    /// INT.
    Int(i32),
    /// SHORT.
    Short(i16),
    /// LONG.
    Long(i64),
    /// DOUBLE.
    Double(f64),
    /// LIST.
    List(Vec<String>),
    /// CLASS (the class name).
    Class(String),
    /// PASSWORD (the secret; never rendered by [`ConfigValue::convert_to_string`] callers that
    /// send values, because PASSWORD keys are filtered before).
    Password(String),
}

/// A string that does not parse as the declared type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("value {value:?} cannot be parsed as {ty}")]
pub struct ParseValueError {
    /// The declared type.
    pub ty: ConfigType,
    /// The offending text.
    pub value: String,
}

impl ConfigValue {
    /// Parses `text` as `ty` like `ConfigDef.parseType` does for a `String` input: the text
    /// is trimmed; BOOLEAN accepts `true`/`false` in any case; numbers are decimal; LIST splits
    /// on commas with surrounding whitespace and an empty text is the empty list.
    pub fn parse(ty: ConfigType, text: &str) -> Result<ConfigValue, ParseValueError> {
        let t = text.trim();
        let err = || ParseValueError {
            ty,
            value: text.to_string(),
        };
        Ok(match ty {
            ConfigType::Boolean => {
                if t.eq_ignore_ascii_case("true") {
                    ConfigValue::Boolean(true)
                } else if t.eq_ignore_ascii_case("false") {
                    ConfigValue::Boolean(false)
                } else {
                    return Err(err());
                }
            }
            ConfigType::String => ConfigValue::String(t.to_string()),
            ConfigType::Int => ConfigValue::Int(parse_java_int(t).ok_or_else(err)?),
            ConfigType::Short => ConfigValue::Short(parse_java_int(t).ok_or_else(err)?),
            ConfigType::Long => ConfigValue::Long(parse_java_int(t).ok_or_else(err)?),
            ConfigType::Double => ConfigValue::Double(parse_java_double(t).ok_or_else(err)?),
            ConfigType::List => ConfigValue::List(if t.is_empty() {
                Vec::new()
            } else {
                t.split(',').map(|s| s.trim().to_string()).collect()
            }),
            ConfigType::Class => ConfigValue::Class(t.to_string()),
            ConfigType::Password => ConfigValue::Password(t.to_string()),
        })
    }

    /// The type of this value.
    pub fn config_type(&self) -> ConfigType {
        match self {
            ConfigValue::Boolean(_) => ConfigType::Boolean,
            ConfigValue::String(_) => ConfigType::String,
            ConfigValue::Int(_) => ConfigType::Int,
            ConfigValue::Short(_) => ConfigType::Short,
            ConfigValue::Long(_) => ConfigType::Long,
            ConfigValue::Double(_) => ConfigType::Double,
            ConfigValue::List(_) => ConfigType::List,
            ConfigValue::Class(_) => ConfigType::Class,
            ConfigValue::Password(_) => ConfigType::Password,
        }
    }

    /// Kafka's `ConfigDef.convertToString`: BOOLEAN `true`/`false`, numbers in decimal (DOUBLE
    /// as Java's `Double.toString`), LIST joined with `,` and no spaces, CLASS the class name.
    pub fn convert_to_string(&self) -> String {
        match self {
            ConfigValue::Boolean(b) => b.to_string(),
            ConfigValue::String(s) | ConfigValue::Class(s) | ConfigValue::Password(s) => s.clone(),
            ConfigValue::Int(v) => v.to_string(),
            ConfigValue::Short(v) => v.to_string(),
            ConfigValue::Long(v) => v.to_string(),
            ConfigValue::Double(v) => java_double_to_string(*v),
            ConfigValue::List(items) => items.join(","),
        }
    }

    /// The value as an `f64` for range checks (numbers only).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ConfigValue::Int(v) => Some(f64::from(*v)),
            ConfigValue::Short(v) => Some(f64::from(*v)),
            ConfigValue::Long(v) => Some(*v as f64),
            ConfigValue::Double(v) => Some(*v),
            _ => None,
        }
    }
}

/// Java's `Integer.parseInt`/`Long.parseLong`/`Short.parseShort`: optional sign, decimal digits.
fn parse_java_int<T: std::str::FromStr>(t: &str) -> Option<T> {
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// Java's `Double.parseDouble` on a trimmed string: an optional sign, then `NaN`,
/// `Infinity`, or decimal digits with an optional fraction and exponent and an optional
/// `f`/`F`/`d`/`D` suffix. (Hexadecimal floating literals are not accepted.)
pub fn parse_java_double(t: &str) -> Option<f64> {
    let (sign, body) = match t.as_bytes().first() {
        Some(b'-') => (-1.0, &t[1..]),
        Some(b'+') => (1.0, &t[1..]),
        _ => (1.0, t),
    };
    match body {
        "NaN" => return Some(f64::NAN),
        "Infinity" => return Some(sign * f64::INFINITY),
        _ => {}
    }
    let body = body.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(body);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() && frac.is_empty() || !digits(int) || !digits(frac) {
        return None;
    }
    if let Some(e) = exponent {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        if e.is_empty() || !digits(e) {
            return None;
        }
    }
    let normalized = match exponent {
        Some(e) => format!("{int}.{frac}0e{e}"),
        None => format!("{int}.{frac}0"),
    };
    normalized.parse::<f64>().ok().map(|v| sign * v)
}

/// Java's `Double.toString` for the values configs use: `1.0`, `0.2`, `1.0E10`, `NaN`.
pub fn java_double_to_string(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let a = v.abs();
    if a == 0.0 || (1e-3..1e7).contains(&a) {
        let s = format!("{v}");
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        let s = format!("{v:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let mantissa = if mantissa.contains('.') {
            mantissa.to_string()
        } else {
            format!("{mantissa}.0")
        };
        format!("{mantissa}E{exp}")
    }
}

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

const fn k(name: &'static str, ty: ConfigType, default: Option<&'static str>) -> ConfigKeyDef {
    ConfigKeyDef { name, ty, default }
}

use ConfigType::{Boolean as B, Class as C, Int as I, List as L, Long as G};
use ConfigType::{Password as P, String as S};

/// Keys every Java client defines (`CommonClientConfigs`, KIP-1324's own client keys).
/// `config.push.allowed.keys` has no static default: its default is the profile's list for
/// the client type, supplied by [`client_definitions`]'s caller.
const COMMON: &[ConfigKeyDef] = &[
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
const PRODUCER: &[ConfigKeyDef] = &[
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
const CONSUMER: &[ConfigKeyDef] = &[
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
const ADMIN: &[ConfigKeyDef] = &[
    k("default.api.timeout.ms", I, Some("60000")),
    k("retries", I, Some("2147483647")),
];

/// `StreamsConfig` keys beyond [`COMMON`].
const STREAMS: &[ConfigKeyDef] = &[
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_match_configdef_type() {
        let names: Vec<_> = ConfigType::ALL
            .iter()
            .map(|t| (t.ordinal(), t.name()))
            .collect();
        assert_eq!(
            names,
            [
                (0, "BOOLEAN"),
                (1, "STRING"),
                (2, "INT"),
                (3, "SHORT"),
                (4, "LONG"),
                (5, "DOUBLE"),
                (6, "LIST"),
                (7, "CLASS"),
                (8, "PASSWORD")
            ]
        );
    }

    #[test]
    fn older_enum_swaps_int_and_short_and_lacks_class_password() {
        let o = ConfigTypeNumbering::OlderKipEnum;
        assert_eq!(o.to_wire(ConfigType::Int), Some(3));
        assert_eq!(o.to_wire(ConfigType::Short), Some(2));
        assert_eq!(o.to_wire(ConfigType::Class), None);
        assert_eq!(o.from_wire(7), None);
        assert_eq!(
            ConfigTypeNumbering::ConfigDefType.from_wire(8),
            Some(ConfigType::Password)
        );
        assert_eq!(ConfigTypeNumbering::ConfigDefType.from_wire(9), None);
        assert_eq!(ConfigTypeNumbering::ConfigDefType.from_wire(-1), None);
    }

    #[test]
    fn parse_and_convert_to_string_follow_configdef() {
        let p = |t, s| ConfigValue::parse(t, s).map(|v| v.convert_to_string());
        assert_eq!(p(ConfigType::List, " a , b,c ").unwrap(), "a,b,c");
        assert_eq!(p(ConfigType::List, "  ").unwrap(), "");
        assert_eq!(p(ConfigType::Boolean, "TRUE").unwrap(), "true");
        assert_eq!(p(ConfigType::Int, " 42 ").unwrap(), "42");
        assert_eq!(p(ConfigType::Double, "1").unwrap(), "1.0");
        assert_eq!(p(ConfigType::Double, "0.2").unwrap(), "0.2");
        assert_eq!(p(ConfigType::Double, "1e10").unwrap(), "1.0E10");
        assert_eq!(p(ConfigType::Double, "NaN").unwrap(), "NaN");
        assert_eq!(p(ConfigType::Double, "-Infinity").unwrap(), "-Infinity");
        assert_eq!(p(ConfigType::Double, "1.5d").unwrap(), "1.5");
        assert_eq!(p(ConfigType::Double, ".5").unwrap(), "0.5");
        assert_eq!(p(ConfigType::Double, "5.").unwrap(), "5.0");
        assert_eq!(p(ConfigType::Double, "2E-3F").unwrap(), "0.002");
        for bad in [
            "nan", "inf", "infinity", "", ".", "1e", "1e+", "0x1p3", "1..2", "e5", "1.5dd",
        ] {
            assert!(
                p(ConfigType::Double, bad).is_err(),
                "{bad:?} must not parse"
            );
        }
        assert!(p(ConfigType::Int, "2147483648").is_err());
        assert!(p(ConfigType::Short, "40000").is_err());
        assert!(p(ConfigType::Boolean, "yes").is_err());
        assert!(p(ConfigType::Long, "1.5").is_err());
        assert!(p(ConfigType::Double, "inf").is_err());
    }

    #[test]
    fn every_kip_default_key_is_defined() {
        let profile = crate::profile::SpecProfile::default();
        for t in ClientType::ALL {
            let defs = client_definitions(t);
            for key in profile.default_keys.for_client(t) {
                assert!(defs.get(key).is_some(), "{t:?} {key}");
            }
        }
        assert_eq!(profile.default_keys.consumer.len(), 11);
        let share = client_definitions(ClientType::ShareConsumer);
        assert_eq!(
            share.get("share.acquire.mode").unwrap().ty,
            ConfigType::String
        );
        assert_eq!(
            client_definitions(ClientType::Producer)
                .get("key.serializer")
                .unwrap()
                .ty,
            ConfigType::Class
        );
    }
}
