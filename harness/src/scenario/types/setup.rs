//! A scenario's `setup:` as plain data: the client, broker or controller the target is set
//! up as, and the brokers kipcheck emulates for a client target. Only the model settings a
//! broker setup maps to are built here; nothing is started or run.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::{BrokerSettings, ClientType, PolicyVerdict, ServerConfigKey, Validator};

/// The client a client-role target is set up as.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClientSetup {
    /// Client type.
    #[serde(rename = "type")]
    pub client_type: ClientType,
    /// User configuration (`key: value`, values as in a .properties file).
    #[serde(default)]
    pub config: BTreeMap<String, String>,
    /// A client embedded in Kafka Streams (does no handshake of its own).
    #[serde(default)]
    pub embedded: bool,
    /// Nodes the client connects to when it starts, in order.
    #[serde(default = "default_connect")]
    pub connect: Vec<i32>,
}

fn default_controller_node_id() -> i32 {
    crate::model::controller::DEFAULT_CONTROLLER_NODE_ID
}

fn default_connect() -> Vec<i32> {
    vec![1]
}

/// An MV-aware validator added to a definition: key, level, validator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MvValidatorSetup {
    /// Config name (broker or topic definition).
    pub key: String,
    /// Feature level from which the validator applies (floor semantics).
    pub level: i16,
    /// The validator.
    pub validator: Validator,
}

/// The controller a controller-role target is set up as.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ControllerSetup {
    /// The finalized metadata.version level at start.
    pub metadata_version: i16,
    /// The controller's `node.id` (BROKER config resources for other ids are refused).
    #[serde(default = "default_controller_node_id")]
    pub node_id: i32,
    /// MV-aware validators to add to the built-in definitions.
    #[serde(default)]
    pub mv_validators: Vec<MvValidatorSetup>,
    /// Broker config definitions added to (or replacing) the built-in ones, as the
    /// controller validates them.
    #[serde(default)]
    pub definitions: BTreeMap<String, ServerConfigKey>,
    /// The topics that exist when the scenario starts (each with 1 partition). A TOPIC
    /// resource that is not listed here, and not created by the scenario, does not exist.
    #[serde(default)]
    pub topics: Vec<String>,
}

/// How the target and kipcheck's emulated peers are set up.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// The client (client-role targets).
    #[serde(default)]
    pub client: Option<ClientSetup>,
    /// The broker (broker-role targets): policy, max bytes, throttle, server.properties.
    #[serde(default)]
    pub broker: Option<BrokerSetup>,
    /// The controller (controller-role targets).
    #[serde(default)]
    pub controller: Option<ControllerSetup>,
    /// Brokers kipcheck emulates for a client target: node id → whether it advertises
    /// PushConfig (a new broker) or not (an old one).
    #[serde(default)]
    pub emulated_brokers: BTreeMap<i32, EmulatedBroker>,
}

/// A broker kipcheck emulates for a client target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EmulatedBroker {
    /// Whether it advertises PushConfig in ApiVersions.
    #[serde(default = "yes")]
    pub push_config: bool,
}

fn yes() -> bool {
    true
}

/// Broker setup: the model's settings plus shorthands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrokerSetup {
    /// `client.config.policy.class.name` configured, and what it answers (`null` = none).
    #[serde(default = "accept")]
    pub policy: Option<PolicyVerdict>,
    /// `client.config.max.bytes` (default from the profile).
    #[serde(default)]
    pub client_config_max_bytes: Option<u32>,
    /// ThrottleTimeMs the broker puts in PushConfig responses.
    #[serde(default)]
    pub throttle_time_ms: i32,
    /// Explicit server.properties values.
    #[serde(default)]
    pub server_properties: BTreeMap<String, String>,
    /// Config definitions added to (or replacing) the broker's built-in ones: type,
    /// default, static validator, MV validators, KIP-1326 report policy.
    #[serde(default)]
    pub definitions: BTreeMap<String, ServerConfigKey>,
    /// Whether kipcheck's client principal holds CLUSTER_ACTION on the cluster (default
    /// `true`); `false` needs the `authorization` capability.
    #[serde(default = "yes")]
    pub client_cluster_action: bool,
}

fn accept() -> Option<PolicyVerdict> {
    Some(PolicyVerdict::Accept)
}

impl Default for BrokerSetup {
    /// A broker with a policy that accepts everything and the built-in definitions.
    fn default() -> Self {
        Self {
            policy: accept(),
            client_config_max_bytes: None,
            throttle_time_ms: 0,
            server_properties: BTreeMap::new(),
            definitions: BTreeMap::new(),
            client_cluster_action: true,
        }
    }
}

impl BrokerSetup {
    /// The model settings for node `node_id`.
    pub fn settings(&self, node_id: i32) -> BrokerSettings {
        let mut s = BrokerSettings::new(node_id);
        s.policy = self.policy.clone();
        s.client_config_max_bytes = self.client_config_max_bytes;
        s.throttle_time_ms = self.throttle_time_ms;
        s.server_properties = self.server_properties.clone();
        s.defs.broker.extend(self.definitions.clone());
        s.client_cluster_action = self.client_cluster_action;
        s
    }
}
