//! The numbers of a profile: the default `config.push.allowed.keys` per client type, the
//! client and broker defaults the KIPs and Kafka fix, timing tolerance, and the timeline keys a
//! real-clock run scales. Data only; loading and validation are in `spec`.

use serde::{Deserialize, Serialize};

use crate::config_def::ClientType;

/// The default value of `config.push.allowed.keys` per client type (kip-notes §1.2, §6 A6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DefaultKeyLists {
    /// `KafkaProducer`: empty, the KIP text elides it.
    pub producer: Vec<String>,
    /// `KafkaConsumer`: the newest text's list.
    pub consumer: Vec<String>,
    /// `Admin`: the newest text's list.
    pub admin: Vec<String>,
    /// `KafkaShareConsumer`: the first (client-config) block of the newest text.
    pub share_consumer: Vec<String>,
    /// `KafkaStreams`: empty, the KIP does not give it.
    pub streams: Vec<String>,
}

impl DefaultKeyLists {
    /// The list for `client_type`.
    pub fn for_client(&self, client_type: ClientType) -> &[String] {
        match client_type {
            ClientType::Producer => &self.producer,
            ClientType::Consumer => &self.consumer,
            ClientType::Admin => &self.admin,
            ClientType::ShareConsumer => &self.share_consumer,
            ClientType::Streams => &self.streams,
        }
    }
}

pub(super) fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

impl Default for DefaultKeyLists {
    fn default() -> Self {
        Self {
            producer: Vec::new(),
            consumer: strings(&[
                "auto.offset.reset",
                "client.id",
                "enable.auto.commit",
                "fetch.max.wait.ms",
                "fetch.min.bytes",
                "group.id",
                "isolation.level",
                "max.poll.interval.ms",
                "max.poll.records",
                "request.timeout.ms",
                "session.timeout.ms",
            ]),
            admin: strings(&["client.id", "request.timeout.ms", "retries"]),
            share_consumer: strings(&[
                "client.id",
                "fetch.max.wait.ms",
                "fetch.min.bytes",
                "group.id",
                "max.poll.interval.ms",
                "max.poll.records",
                "share.acknowledgement.mode",
                "share.acquire.mode",
            ]),
            streams: Vec::new(),
        }
    }
}

/// Client and broker defaults the KIPs and Kafka fix (kip-notes §1.8, §1.10, §6 A4, A7).
/// A client's own configuration overrides the timing values for that client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Defaults {
    /// Broker `client.config.max.bytes` and the client's own budget: 10240 ("10 KB", binary).
    pub client_config_max_bytes: u32,
    /// `retry.backoff.ms`: 100.
    pub retry_backoff_ms: u64,
    /// `retry.backoff.max.ms`: 1000.
    pub retry_backoff_max_ms: u64,
    /// Relative jitter of each backoff: 0.2 (±20 %).
    pub retry_backoff_jitter: f64,
    /// `default.api.timeout.ms`, the handshake deadline of consumer, admin, share consumer and
    /// Streams: 60000.
    pub default_api_timeout_ms: u64,
    /// Producer `max.block.ms`, the producer's handshake deadline: 60000.
    pub producer_max_block_ms: u64,
    /// `request.timeout.ms`, the per-attempt timeout of a PushConfig: 30000.
    pub request_timeout_ms: u64,
}

impl Default for Defaults {
    fn default() -> Self {
        Self {
            client_config_max_bytes: 10240,
            retry_backoff_ms: 100,
            retry_backoff_max_ms: 1000,
            retry_backoff_jitter: 0.2,
            default_api_timeout_ms: 60000,
            producer_max_block_ms: 60000,
            request_timeout_ms: 30000,
        }
    }
}

/// How far a timing measured on a real clock (a `client-cmd:` target) may stray from the
/// scenario's expected value: `tolerance_ms + tolerance_ratio × expected` either way
/// (docs/live-clients.md). Not a reading: no target follows another "timing", and the model
/// never reads it (a virtual clock is exact).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Timing {
    /// Absolute slack, ms: 25 (scheduling, loopback I/O, reading a pipe).
    pub tolerance_ms: u64,
    /// Relative slack: 0.10 (timer granularity grows with the duration).
    pub tolerance_ratio: f64,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            tolerance_ms: 25,
            tolerance_ratio: 0.10,
        }
    }
}

/// The client configuration keys that set the handshake's timeline (the profile's timing
/// defaults stand for them): the keys a real-clock run scales with `--time-scale`.
pub const TIMELINE_CONFIG_KEYS: [&str; 5] = [
    "retry.backoff.ms",
    "retry.backoff.max.ms",
    "request.timeout.ms",
    "default.api.timeout.ms",
    "max.block.ms",
];

/// The prefix under which a live client's `{config}` carries the scaled defaults of the
/// [`TIMELINE_CONFIG_KEYS`] (`kipcheck.default.request.timeout.ms=3000`): written by
/// `client-cmd:`, read by `kipcheck client`; the keys stay defaults, not user-set.
pub const TIMELINE_DEFAULT_PREFIX: &str = "kipcheck.default.";
