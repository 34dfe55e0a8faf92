//! Why a request kipcheck makes of a live controller for its own purposes failed: one request
//! ([`CallError`]), learning its cluster id ([`ClusterIdError`]), undoing what a session left
//! there ([`CleanupError`], [`LevelError`]). Their text is what an errored scenario shows, so
//! each names the API, broker id, resource or level concerned. Data only: the requests are
//! `adapter::tcp`'s; these must not hold I/O, and a controller's answer to a scenario's own
//! request is judged by the runner, never returned here.

use std::collections::BTreeSet;
use std::time::Duration;

use super::ProbeError;
use crate::codec::{DecodeError, EncodeError, ErrorCode};
use crate::net::NetError;

/// Why one request to a live controller got no usable answer.
#[derive(Clone, Debug, thiserror::Error)]
pub enum CallError {
    /// kipcheck's own request does not encode at the version both sides speak.
    #[error("{api} v{version} does not encode: {source}")]
    Encode {
        /// The API.
        api: &'static str,
        /// Its version.
        version: i16,
        /// Why.
        #[source]
        source: EncodeError,
    },
    /// No whole answer: the controller could not be reached, the request not written, or
    /// the answer was cut short, over the cap or late (the text names which and the address).
    #[error("no {api} answer: {source}")]
    Net {
        /// The API.
        api: &'static str,
        /// Why.
        #[source]
        source: NetError,
    },
    /// The answer does not decode.
    #[error("the {api} answer does not decode: {source}")]
    Undecodable {
        /// The API.
        api: &'static str,
        /// The codec's error.
        #[source]
        source: DecodeError,
    },
    /// The answer decodes as another API.
    #[error("{api} answered as another API")]
    OtherApi {
        /// The API asked.
        api: &'static str,
    },
}

/// Why a live controller's cluster id (which the scenarios' BrokerRegistration requests
/// carry) is not known.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ClusterIdError {
    /// The target plays a broker.
    #[error("the target is not a controller")]
    NotController,
    /// The probe of the target failed.
    #[error(transparent)]
    Probe(ProbeError),
    /// The controller does not advertise DescribeCluster (and no manifest names the id).
    #[error("the controller does not advertise DescribeCluster")]
    NoDescribeCluster,
    /// DescribeCluster got no usable answer.
    #[error(transparent)]
    Call(#[from] CallError),
    /// DescribeCluster answered an error.
    #[error("DescribeCluster answered {code}: {}", message.as_deref().unwrap_or("no message"))]
    Refused {
        /// The error code.
        code: ErrorCode,
        /// Its message, if any.
        message: Option<String>,
    },
}

/// Why what earlier sessions left on a live controller (brokers registered, configs set,
/// metadata.version moved) could not be undone (the causes boxed: it stays small).
#[derive(Debug, thiserror::Error)]
pub enum CleanupError {
    /// kipcheck's record of what to undo is unreadable (a thread panicked holding it).
    #[error("the {what} lock is poisoned")]
    Poisoned {
        /// Which record.
        what: &'static str,
    },
    /// Brokers to unregister, and no UnregisterBroker.
    #[error(
        "brokers {ids:?} registered by an earlier scenario cannot be unregistered: the \
         controller does not advertise UnregisterBroker"
    )]
    NoUnregisterBroker {
        /// The broker ids.
        ids: Vec<i32>,
    },
    /// UnregisterBroker got no usable answer.
    #[error("unregistering broker {id} (registered by a scenario): {source}")]
    Unregister {
        /// The broker id.
        id: i32,
        /// Why.
        #[source]
        source: Box<CallError>,
    },
    /// UnregisterBroker answered an error other than BROKER_ID_NOT_REGISTERED.
    #[error(
        "UnregisterBroker of broker {id} (registered by a scenario) answered {code}: {}",
        message.as_deref().unwrap_or("no message")
    )]
    UnregisterRefused {
        /// The broker id.
        id: i32,
        /// The error code.
        code: ErrorCode,
        /// Its message, if any.
        message: Option<String>,
    },
    /// Configs to delete, and no IncrementalAlterConfigs.
    #[error(
        "configs set by an earlier scenario cannot be deleted: the controller does not \
         advertise IncrementalAlterConfigs"
    )]
    NoIncrementalAlterConfigs,
    /// IncrementalAlterConfigs (DELETE) got no usable answer.
    #[error(
        "deleting configs {names:?} of resource {resource_type}/{resource_name:?} (set by a \
         scenario): {source}"
    )]
    DeleteConfigs {
        /// The config names.
        names: BTreeSet<String>,
        /// The resource type.
        resource_type: i8,
        /// The resource name.
        resource_name: String,
        /// Why.
        #[source]
        source: Box<CallError>,
    },
    /// A feature (metadata.version, or one of the manifest's `features`) could not be set
    /// back.
    #[error(
        "an earlier scenario changed {feature} and kipcheck could not set it back to \
         {finalized} (the manifest's finalized level): {source}"
    )]
    Level {
        /// The feature.
        feature: String,
        /// The manifest's finalized level.
        finalized: i16,
        /// Why.
        #[source]
        source: Box<LevelError>,
    },
}

/// Why a feature could not be set back to the manifest's finalized level.
#[derive(Debug, thiserror::Error)]
pub enum LevelError {
    /// ApiVersions or UpdateFeatures got no usable answer.
    #[error(transparent)]
    Call(#[from] CallError),
    /// The ApiVersions answer finalizes no metadata.version.
    #[error("its ApiVersions answer gives no finalized metadata.version")]
    NotFinalized,
    /// The level did not come back within the bound.
    #[error("it is still {current} after {after:?}")]
    Stuck {
        /// The level it shows.
        current: i16,
        /// The bound.
        after: Duration,
    },
    /// The level is above `finalized` and the manifest says of no way down.
    #[error(
        "it is {current}, and the manifest declares no downgrade \
         (metadata_version.moves.downgrade, features.NAME.downgrade)"
    )]
    NoDowngrade {
        /// The level it shows.
        current: i16,
    },
    /// The controller cannot be asked to move the level.
    #[error("it is {current}, and the controller does not advertise UpdateFeatures")]
    NoUpdateFeatures {
        /// The level it shows.
        current: i16,
    },
    /// UpdateFeatures answered an error other than NOT_CONTROLLER.
    #[error(
        "it is {current}; UpdateFeatures to {finalized} (UpgradeType {upgrade_type}) answered \
         {code}: {}",
        message.as_deref().unwrap_or("no message")
    )]
    Refused {
        /// The level it shows.
        current: i16,
        /// The level asked.
        finalized: i16,
        /// The UpgradeType sent.
        upgrade_type: i8,
        /// The error code.
        code: ErrorCode,
        /// Its message, if any.
        message: Option<String>,
    },
}
