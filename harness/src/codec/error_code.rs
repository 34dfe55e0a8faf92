//! `ErrorCode(i16)`: an open newtype over Kafka's error codes, with a named constant and
//! the `retriable` flag of `org.apache.kafka.common.protocol.Errors` for every code.
//! Unknown codes round-trip unchanged. Pure data; no I/O.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A Kafka error code. Unknown values are kept as they are.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[serde(transparent)]
pub struct ErrorCode(pub i16);

macro_rules! error_codes {
    ($( $(#[$doc:meta])* $name:ident = $code:expr, $retriable:expr; )*) => {
        impl ErrorCode {
            $( $(#[$doc])* pub const $name: ErrorCode = ErrorCode($code); )*

            /// Every code this table names, in ascending order: (code, name, retriable).
            pub const TABLE: &'static [(ErrorCode, &'static str, bool)] = &[
                $( (ErrorCode($code), stringify!($name), $retriable), )*
            ];
        }
    };
}

error_codes! {
    /// The server experienced an unexpected error when processing the request.
    UNKNOWN_SERVER_ERROR = -1, false;
    /// No error.
    NONE = 0, false;
    /// The requested offset is not within the range of offsets maintained by the server.
    OFFSET_OUT_OF_RANGE = 1, false;
    /// The request timed out.
    REQUEST_TIMED_OUT = 7, true;
    /// The server disconnected before a response was received.
    NETWORK_EXCEPTION = 13, true;
    /// Cluster authorization failed.
    CLUSTER_AUTHORIZATION_FAILED = 31, false;
    /// The version of API is not supported.
    UNSUPPORTED_VERSION = 35, false;
    /// Configuration is invalid.
    INVALID_CONFIG = 40, false;
    /// This is not the correct controller for this cluster.
    NOT_CONTROLLER = 41, true;
    /// This most likely occurs because of a request being malformed by the client library or
    /// the message was sent to an incompatible broker.
    INVALID_REQUEST = 42, false;
    /// Request parameters do not satisfy the configured policy.
    POLICY_VIOLATION = 44, false;
    /// The throttling quota has been exceeded.
    THROTTLING_QUOTA_EXCEEDED = 89, true;
    /// The given update version was invalid.
    INVALID_UPDATE_VERSION = 95, false;
    /// Unable to update finalized features due to an unexpected server error.
    FEATURE_UPDATE_FAILED = 96, false;
    /// The registration was invalid.
    INVALID_REGISTRATION = 119, false;
    /// PROVISIONAL (KIP-1324 gives no number; see [`ProvisionalNumbers`](super::ProvisionalNumbers)):
    /// the PushConfig request exceeded `client.config.max.bytes`.
    CONFIG_TOO_LARGE = 137, false;
}

impl ErrorCode {
    /// The name of a known code (`CONFIG_TOO_LARGE` for the provisional default).
    pub fn name(self) -> Option<&'static str> {
        Self::TABLE
            .binary_search_by_key(&self, |(c, _, _)| *c)
            .ok()
            .map(|i| Self::TABLE[i].1)
    }

    /// Whether Kafka's `Errors` marks this code retriable (its exception extends
    /// `RetriableException`). Unknown codes are not retriable.
    pub fn retriable(self) -> bool {
        Self::TABLE
            .binary_search_by_key(&self, |(c, _, _)| *c)
            .map(|i| Self::TABLE[i].2)
            .unwrap_or(false)
    }

    /// Looks a code up by its name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::TABLE
            .iter()
            .find(|(_, n, _)| *n == name)
            .map(|(c, _, _)| *c)
    }

    /// True for `NONE` (0).
    pub fn is_ok(self) -> bool {
        self.0 == 0
    }
}

impl fmt::Debug for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "ErrorCode({})", self.0),
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n} ({})", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}
