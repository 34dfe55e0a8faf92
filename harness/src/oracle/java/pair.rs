//! Which (message, version) pairs the Java oracle compares: [`Pair`], the ones both codecs
//! know (asked of the JVM), and [`NOT_COMPARED`]. Shared by [`super::inputs`] (which builds
//! inputs per pair) and [`super::compare`] (which runs them); it must not import either.

use std::fmt;

use serde_json::json;

use super::body::AnyBody;
use super::{JavaCodec, Kind, OracleError};

/// One (message, version) both codecs know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pair {
    /// Request, response or record.
    pub kind: Kind,
    /// Canonical API key (record type).
    pub api_key: i16,
    /// Message name, e.g. `ApiVersionsRequest`.
    pub message: &'static str,
    /// Version.
    pub version: i16,
    /// Whether the version is flexible (ours).
    pub flexible: bool,
}

impl fmt::Display for Pair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} v{}", self.message, self.version)
    }
}

/// Messages the Java oracle does not compare, and why: Fetch carries record batches (the
/// `records` type), which the oracle's JSON exchange does not carry. kipcheck reads Fetch
/// only to observe a controller's metadata log; the record-batch decoder is checked by its
/// own hostile-input tests, its fuzz target and Kafka 4.4's real log (`kipcheck interop`).
pub const NOT_COMPARED: &[&str] = &["FetchRequest", "FetchResponse"];

impl Pair {
    /// Every (message, version) of ours that Kafka's codec also has, asking the JVM for
    /// each message's version range ([`NOT_COMPARED`] left out).
    pub fn shared(java: &mut JavaCodec) -> Result<Vec<Pair>, OracleError> {
        let mut asked = Vec::new();
        let mut reqs = Vec::new();
        for kind in Kind::ALL {
            for info in AnyBody::known(kind) {
                if NOT_COMPARED.contains(&info.message) {
                    continue;
                }
                asked.push((kind, info));
                reqs.push(
                    json!({"op": "versions", "kind": kind.as_str(), "apiKey": info.api_key.0}),
                );
            }
        }
        let answers = java.call(&reqs)?;
        let mut out = Vec::new();
        for ((kind, info), a) in asked.into_iter().zip(answers) {
            let (Some(lo), Some(hi)) = (a.lowest, a.highest) else {
                continue; // Kafka does not know this API (PushConfig).
            };
            for version in info.valid.iter().filter(|v| (lo..=hi).contains(v)) {
                out.push(Pair {
                    kind,
                    api_key: info.api_key.0,
                    message: info.message,
                    version,
                    flexible: info.is_flexible(version),
                });
            }
        }
        Ok(out)
    }
}
