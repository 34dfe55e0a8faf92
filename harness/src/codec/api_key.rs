//! `ApiKey(i16)`: an open newtype over Kafka API keys with a named constant for every key
//! Kafka defines. Unknown keys round-trip unchanged. Pure data; no I/O.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A Kafka API key. Unknown values are kept as they are.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[serde(transparent)]
pub struct ApiKey(pub i16);

macro_rules! api_keys {
    ($( $(#[$doc:meta])* $name:ident = $key:expr, $display:expr; )*) => {
        impl ApiKey {
            $( $(#[$doc])* pub const $name: ApiKey = ApiKey($key); )*

            /// Every key this table names, ascending: (key, Kafka's API name).
            pub const TABLE: &'static [(ApiKey, &'static str)] = &[
                $( (ApiKey($key), $display), )*
            ];
        }
    };
}

api_keys! {
    /// Produce.
    PRODUCE = 0, "Produce";
    /// Fetch.
    FETCH = 1, "Fetch";
    /// Metadata.
    METADATA = 3, "Metadata";
    /// ApiVersions.
    API_VERSIONS = 18, "ApiVersions";
    /// AlterConfigs.
    ALTER_CONFIGS = 33, "AlterConfigs";
    /// IncrementalAlterConfigs.
    INCREMENTAL_ALTER_CONFIGS = 44, "IncrementalAlterConfigs";
    /// UpdateFeatures.
    UPDATE_FEATURES = 57, "UpdateFeatures";
    /// BrokerRegistration.
    BROKER_REGISTRATION = 62, "BrokerRegistration";
    /// GetTelemetrySubscriptions.
    GET_TELEMETRY_SUBSCRIPTIONS = 71, "GetTelemetrySubscriptions";
    /// PushTelemetry.
    PUSH_TELEMETRY = 72, "PushTelemetry";
    /// PROVISIONAL (KIP-1324 says NEXT; see [`ProvisionalNumbers`](super::ProvisionalNumbers)):
    /// PushConfig.
    PUSH_CONFIG = 95, "PushConfig";
}

impl ApiKey {
    /// Kafka's name for a known key (`PushConfig` for the provisional default).
    pub fn name(self) -> Option<&'static str> {
        Self::TABLE
            .binary_search_by_key(&self, |(k, _)| *k)
            .ok()
            .map(|i| Self::TABLE[i].1)
    }

    /// Looks a key up by Kafka's API name (`ApiVersions`) or the constant's name (`API_VERSIONS`).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::TABLE
            .iter()
            .find(|(_, n)| {
                n.eq_ignore_ascii_case(name) || n.eq_ignore_ascii_case(&name.replace('_', ""))
            })
            .map(|(k, _)| *k)
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "ApiKey({})", self.0),
        }
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n} ({})", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}
