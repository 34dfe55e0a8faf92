//! What a broker model is configured with and exchanges: [`BrokerSettings`], the configured
//! policy's [`PolicyVerdict`], [`BrokerConfigError`], and the framed [`BrokerRequest`] /
//! [`BrokerReply`]. Types only: no request is answered here.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::events::NodeId;
use crate::server_config::{ConfigCheckFailure, ServerConfigDefs};
use kipcheck_codec::{ApiKey, ResponseBody};

/// What the configured `ClientConfigPolicy` does with a push.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(schemars::JsonSchema)]
pub enum PolicyVerdict {
    /// `process` returns normally.
    Accept,
    /// `process` throws `InvalidConfigException(message)` → INVALID_CONFIG.
    Reject {
        /// The exception message, returned as ErrorMessage.
        message: String,
    },
    /// `process` throws an exception that is not the KIP's rejection (a bug in the policy, a
    /// `RuntimeException`). The KIP says nothing of it; the reference answers as Kafka does
    /// for any unexpected exception and as the KIP-CFG prototype does: UNKNOWN_SERVER_ERROR,
    /// the connection kept.
    Fail {
        /// The exception message.
        message: String,
    },
}

/// How a broker is set up. Loadable from YAML (absent fields take [`BrokerSettings::new`]`(0)`'s
/// values) so scenarios can declare brokers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BrokerSettings {
    /// `node.id`.
    pub node_id: NodeId,
    /// The cluster id sent at registration.
    pub cluster_id: String,
    /// `client.config.policy.class.name`: `None` disables KIP-1324 on this broker.
    pub policy: Option<PolicyVerdict>,
    /// `client.config.max.bytes`; `None` takes the profile default.
    pub client_config_max_bytes: Option<u32>,
    /// ThrottleTimeMs put in every PushConfig response.
    pub throttle_time_ms: i32,
    /// Explicit values from server.properties.
    pub server_properties: BTreeMap<String, String>,
    /// The broker's config definitions.
    pub defs: ServerConfigDefs,
    /// metadata.version levels this broker supports (min, max).
    pub metadata_version_range: (i16, i16),
    /// Whether the pushing client's principal holds CLUSTER_ACTION on the cluster (judged
    /// only under the `cluster_action` reading of `push_config_authorization`).
    pub client_cluster_action: bool,
}

impl Default for BrokerSettings {
    fn default() -> Self {
        Self::new(0)
    }
}

impl BrokerSettings {
    /// A broker with a policy that accepts everything, default limits and definitions.
    pub fn new(node_id: NodeId) -> Self {
        Self {
            node_id,
            cluster_id: "kipcheck-cluster".into(),
            policy: Some(PolicyVerdict::Accept),
            client_config_max_bytes: None,
            throttle_time_ms: 0,
            server_properties: BTreeMap::new(),
            defs: ServerConfigDefs::default(),
            metadata_version_range: (1, 40),
            client_cluster_action: true,
        }
    }
}

/// A broker configuration the model refuses to start with (Kafka would throw ConfigException).
#[derive(Debug, thiserror::Error)]
pub enum BrokerConfigError {
    /// A server.properties value fails its type or static validator.
    #[error("server.properties: {0}")]
    InvalidStaticConfig(#[from] ConfigCheckFailure),
}

/// A request as the broker receives it: wire API key, version, encoded body (after the header).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokerRequest {
    /// The API key on the wire (PushConfig's is the profile's provisional number).
    pub api_key: ApiKey,
    /// The request version.
    pub api_version: i16,
    /// The encoded body.
    pub body: Vec<u8>,
}

/// What the broker does with a request.
#[derive(Clone, Debug, PartialEq)]
pub enum BrokerReply {
    /// Send this response.
    Response {
        /// Wire API key of the response.
        api_key: ApiKey,
        /// Response version.
        api_version: i16,
        /// The body.
        body: ResponseBody,
        /// Close the connection once the response is sent (the reference never does: see
        /// `BrokerDecisions::closes_after_push_response`).
        then_close: bool,
    },
    /// Close the connection without a response.
    Close {
        /// Why.
        reason: String,
    },
}
