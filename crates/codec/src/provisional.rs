//! The two numbers KIP-1324 leaves open, in one place: PushConfig's API key (the KIP says
//! `NEXT`; provisional 95) and CONFIG_TOO_LARGE's error code (none given; provisional 137).
//! Both can be overridden at run time; everything that meets them on the wire goes through
//! [`ProvisionalNumbers`].

use serde::{Deserialize, Serialize};

use super::{ApiKey, ErrorCode};

/// The provisional wire numbers in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct ProvisionalNumbers {
    /// PushConfig's API key on the wire.
    pub push_config_api_key: ApiKey,
    /// CONFIG_TOO_LARGE's error code on the wire.
    pub config_too_large: ErrorCode,
}

impl Default for ProvisionalNumbers {
    fn default() -> Self {
        Self {
            push_config_api_key: ApiKey::PUSH_CONFIG,
            config_too_large: ErrorCode::CONFIG_TOO_LARGE,
        }
    }
}

impl ProvisionalNumbers {
    /// Maps an API key read from the wire to the canonical key the codec dispatches on.
    /// With an override, the override's number means PushConfig and 95 means nothing.
    pub fn canonical_api_key(&self, wire: ApiKey) -> ApiKey {
        if wire == self.push_config_api_key {
            ApiKey::PUSH_CONFIG
        } else if wire == ApiKey::PUSH_CONFIG {
            ApiKey(i16::MIN)
        } else {
            wire
        }
    }

    /// Maps a canonical API key to the number written on the wire.
    pub fn wire_api_key(&self, canonical: ApiKey) -> ApiKey {
        if canonical == ApiKey::PUSH_CONFIG {
            self.push_config_api_key
        } else {
            canonical
        }
    }

    /// Maps an error code read from the wire to the canonical code.
    pub fn canonical_error(&self, wire: ErrorCode) -> ErrorCode {
        if wire == self.config_too_large {
            ErrorCode::CONFIG_TOO_LARGE
        } else if wire == ErrorCode::CONFIG_TOO_LARGE {
            ErrorCode(i16::MIN)
        } else {
            wire
        }
    }

    /// Maps a canonical error code to the number written on the wire.
    pub fn wire_error(&self, canonical: ErrorCode) -> ErrorCode {
        if canonical == ErrorCode::CONFIG_TOO_LARGE {
            self.config_too_large
        } else {
            canonical
        }
    }
}
