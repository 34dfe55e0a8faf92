//! What an emulated broker (a node kipcheck plays for a client under test) advertises in
//! ApiVersions: one place, shared by the runner, the fuzz targets and the model tests.
//! Pure data; it decides nothing about PushConfig itself.

use crate::codec::api_versions_response::ApiVersion;
use crate::codec::{ApiKey, ApiVersionsRequest, ApiVersionsResponse, ErrorCode, Message};

/// The ApiVersions answer of an emulated broker: Metadata v4-13 and ApiVersions v0-5 (as Kafka
/// 4.4 brokers; the codec's range), plus
/// PushConfig v0 under `push_config` (its provisional api key) when the broker supports it.
/// Keys are sorted, as Kafka sends them.
pub fn emulated_api_versions(push_config: Option<ApiKey>) -> ApiVersionsResponse {
    let range = |key: ApiKey, min_version, max_version| ApiVersion {
        api_key: key.0,
        min_version,
        max_version,
        ..Default::default()
    };
    let mut keys = vec![
        range(ApiKey::METADATA, 4, 13),
        range(
            ApiKey::API_VERSIONS,
            ApiVersionsRequest::VALID_VERSIONS.min,
            ApiVersionsRequest::VALID_VERSIONS.max,
        ),
    ];
    if let Some(key) = push_config {
        keys.push(range(key, 0, 0));
    }
    keys.sort_by_key(|k| k.api_key);
    ApiVersionsResponse {
        api_keys: keys,
        throttle_time_ms: Some(0),
        ..Default::default()
    }
}

/// KIP-511: what a broker that advertises `advertised` answers to an ApiVersions request at a
/// version it does not speak: UNSUPPORTED_VERSION with its supported ranges, in the v0 layout
/// (encode it at version 0). The one place the reference broker, `kipcheck serve` and the
/// `client-cmd:` listeners build it.
pub fn api_versions_unsupported(advertised: ApiVersionsResponse) -> ApiVersionsResponse {
    ApiVersionsResponse {
        error_code: ErrorCode::UNSUPPORTED_VERSION.0,
        ..advertised
    }
    .project(0)
}
