//! Dispatch by API key: the `bodies!` macro that the generated `mod.rs` invokes to build
//! [`RequestBody`](super::RequestBody), [`ResponseBody`](super::ResponseBody) and
//! [`MetadataRecordBody`](super::MetadataRecordBody) over every generated message.
//! Keys here are the canonical numbers of the JSON files; translating a provisional key
//! seen on the wire is [`ProvisionalNumbers`](super::ProvisionalNumbers)' job.

use serde::Serialize;

use super::{ApiKey, VersionRange};

/// What the codec knows about one API (or record type) in one direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BodyInfo {
    /// Canonical API key (or record type).
    pub api_key: ApiKey,
    /// API name without the Request/Response suffix, e.g. `PushConfig`.
    pub name: &'static str,
    /// Message name, e.g. `PushConfigRequest`.
    pub message: &'static str,
    /// Valid versions.
    pub valid: VersionRange,
    /// Flexible versions.
    pub flexible: VersionRange,
}

impl BodyInfo {
    /// True if `version` is flexible.
    pub fn is_flexible(&self, version: i16) -> bool {
        self.flexible.contains(version)
    }
}

/// Builds a dispatch enum over generated messages.
macro_rules! bodies {
    ($(#[$doc:meta])* $enum:ident { $( $variant:ident($key:literal) => $ty:ident, )* }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize)]
        #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
        #[serde(untagged)]
        pub enum $enum {
            $(
                #[doc = concat!("`", stringify!($ty), "`.")]
                $variant($ty),
            )*
        }

        impl $enum {
            /// Every message of this enum, ascending by key.
            pub const KNOWN: &'static [$crate::BodyInfo] = &[
                $(
                    $crate::BodyInfo {
                        api_key: $crate::ApiKey($key),
                        name: stringify!($variant),
                        message: <$ty as $crate::Message>::NAME,
                        valid: <$ty as $crate::Message>::VALID_VERSIONS,
                        flexible: <$ty as $crate::Message>::FLEXIBLE_VERSIONS,
                    },
                )*
            ];

            /// What the codec knows about `api_key`, if anything.
            pub fn info(api_key: $crate::ApiKey) -> Option<&'static $crate::BodyInfo> {
                Self::KNOWN.iter().find(|i| i.api_key == api_key)
            }

            /// Looks up by API name (`PushConfig`), message name (`PushConfigRequest`) or key.
            pub fn info_by_name(name: &str) -> Option<&'static $crate::BodyInfo> {
                if let Ok(k) = name.parse::<i16>() {
                    return Self::info($crate::ApiKey(k));
                }
                Self::KNOWN.iter().find(|i| {
                    i.name.eq_ignore_ascii_case(name) || i.message.eq_ignore_ascii_case(name)
                })
            }

            /// The canonical API key of this body.
            pub fn api_key(&self) -> $crate::ApiKey {
                match self {
                    $( Self::$variant(_) => $crate::ApiKey($key), )*
                }
            }

            /// The message name of this body.
            pub fn message_name(&self) -> &'static str {
                match self {
                    $( Self::$variant(_) => <$ty as $crate::Message>::NAME, )*
                }
            }

            /// Decodes a body of API `api_key` (canonical) at `version`.
            pub fn decode(
                api_key: $crate::ApiKey,
                r: &mut $crate::Reader<'_>,
                version: i16,
            ) -> Result<Self, $crate::DecodeError> {
                match api_key.0 {
                    $( $key => <$ty as $crate::Message>::decode(r, version).map(Self::$variant), )*
                    _ => Err(r.error($crate::DecodeErrorKind::UnknownApiKey { api_key })),
                }
            }

            /// Encodes at `version`.
            pub fn encode<S: $crate::Sink>(
                &self,
                s: &mut S,
                version: i16,
            ) -> Result<(), $crate::EncodeError> {
                match self {
                    $( Self::$variant(m) => $crate::Message::encode(m, s, version), )*
                }
            }

            /// Encodes at `version` into a new vector.
            pub fn to_bytes(&self, version: i16) -> Result<Vec<u8>, $crate::EncodeError> {
                let mut out = Vec::new();
                self.encode(&mut out, version)?;
                Ok(out)
            }

            /// The projection onto `version` (see [`Message::project`]($crate::Message::project)).
            pub fn project(&self, version: i16) -> Self {
                match self {
                    $( Self::$variant(m) => Self::$variant($crate::Message::project(m, version)), )*
                }
            }

            /// The default body of API `api_key`.
            pub fn default_for(api_key: $crate::ApiKey) -> Option<Self> {
                match api_key.0 {
                    $( $key => Some(Self::$variant(<$ty>::default())), )*
                    _ => None,
                }
            }

            /// Deserializes a body of API `api_key` (Kafka's JSON field names).
            pub fn deserialize_for<'de, D: serde::Deserializer<'de>>(
                api_key: $crate::ApiKey,
                d: D,
            ) -> Result<Self, D::Error> {
                match api_key.0 {
                    $( $key => <$ty as serde::Deserialize>::deserialize(d).map(Self::$variant), )*
                    _ => Err(<D::Error as serde::de::Error>::custom(format!("unknown API key {}", api_key.0))),
                }
            }
        }
    };
}

pub(crate) use bodies;
