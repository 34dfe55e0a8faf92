//! The words a scenario's metadata is written in: its [`Grade`], the [`Role`]s a target plays
//! and the [`Capability`]s a scenario may need, with their file spellings. Plain data: no
//! setup, no steps, nothing that runs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Severity of a requirement a scenario checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
#[derive(schemars::JsonSchema)]
pub enum Grade {
    /// A MUST of the KIP: a failure is a finding.
    Must,
    /// A SHOULD of the KIP.
    Should,
}

/// A role an implementation plays.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A Kafka client (producer, consumer, admin, share consumer, Streams).
    Client,
    /// A broker.
    Broker,
    /// A KRaft controller.
    Controller,
}

/// Something a scenario needs from the target beyond its roles.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Capability {
    /// The target's model events can be observed (policy invocations, warnings, records).
    Events,
    /// The target's clock is virtual and can be advanced.
    VirtualClock,
    /// The broker's ClientConfigPolicy and its verdict can be set.
    PolicyControl,
    /// `client.config.max.bytes` can be set.
    MaxBytes,
    /// The broker's PushConfig throttle can be set.
    Throttle,
    /// The controller's metadata.version and config definitions (with MV validators) can be set.
    MetadataVersion,
    /// The controller can be failed over (rebuilt from its metadata log).
    Failover,
    /// The broker's static config definitions and server.properties can be set.
    StaticConfigs,
    /// The client's user configuration and type can be set.
    ClientConfig,
    /// The target runs on the wall clock (`client-cmd:`, always): timed steps are judged on it
    /// with the profile's `timing` tolerance, scaled by `--time-scale` (docs/live-clients.md).
    RealClock,
    /// The `client-cmd:` client program speaks the user-request channel: a `user_request <id>`
    /// line on its stdin per application request, `released <id>` on its stdout when the
    /// request may proceed (in-process and `exec:` targets take user requests through their
    /// own interface and need no declaration).
    UserRequests,
    /// The `client-cmd:` client program takes `connect <node> <host:port>` lines on its stdin
    /// and opens a connection to that address: how a scenario's `connect` step (the network
    /// giving the client a connection to another node, or back to one it lost) reaches a live
    /// client. In-process and `exec:` targets need no declaration.
    ConnectRequests,
    /// The live controller's KRaft metadata log is read back as an observer (`tcp://` in the
    /// controller role with `--metadata-log HOST:PORT`, docs/live-targets.md): observation
    /// steps on `record_appended` events are judged on the records the log holds.
    MetadataLog,
    /// Whether the client principal holds CLUSTER_ACTION on the cluster can be set per
    /// scenario (`setup.broker.client_cluster_action`); a live broker's ACLs cannot.
    Authorization,
}

impl Role {
    /// The name scenario files and `--role` use: `client`, `broker`, `controller`.
    pub fn name(self) -> String {
        serde_name(&self)
    }
}

impl Capability {
    /// The name scenario files and `--capability` use, e.g. `virtual_clock`.
    pub fn name(self) -> String {
        serde_name(&self)
    }
}

/// The serde name of a unit enum variant (its `rename_all` spelling).
pub(crate) fn serde_name<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
