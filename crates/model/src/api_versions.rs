//! The ApiVersions entries the reference broker itself answers with (KIP-511 included): its
//! handshake list (ApiVersions at every version the codec speaks, PushConfig v0 under its wire
//! key when advertised) and the UNSUPPORTED_VERSION answer to an ApiVersions version it does
//! not speak. The harness's emulated nodes (`kipcheck::emulate`) start from the same pieces;
//! what they add (Metadata, SASL) lives there, not here. Pure: builds values, sends nothing.

use kipcheck_codec::api_versions_response::ApiVersion;
use kipcheck_codec::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, ErrorCode, Message, VersionRange,
};

/// One ApiVersions entry: `key` at `versions`.
pub fn api_version_range(key: ApiKey, versions: VersionRange) -> ApiVersion {
    ApiVersion {
        api_key: key.0,
        min_version: versions.min,
        max_version: versions.max,
        ..Default::default()
    }
}

/// The handshake's own entries, sorted by key: ApiVersions at every version the codec speaks
/// (what every emulated node and the reference broker answer), and PushConfig v0 under
/// `push_config`, its wire key, when the node advertises it. The reference broker lists just
/// these; a node that also serves Metadata adds it (`kipcheck::emulate::advertise_metadata`).
pub fn handshake_api_versions(push_config: Option<ApiKey>) -> Vec<ApiVersion> {
    let mut keys = vec![api_version_range(
        ApiKey::API_VERSIONS,
        ApiVersionsRequest::VALID_VERSIONS,
    )];
    if let Some(key) = push_config {
        keys.push(api_version_range(key, VersionRange::new(0, 0)));
    }
    keys.sort_by_key(|k| k.api_key);
    keys
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handshake_list_is_api_versions_0_to_5_and_push_config_when_advertised() {
        let keys = |l: Vec<ApiVersion>| -> Vec<(i16, i16, i16)> {
            l.iter()
                .map(|k| (k.api_key, k.min_version, k.max_version))
                .collect()
        };
        assert_eq!(keys(handshake_api_versions(None)), [(18, 0, 5)]);
        assert_eq!(
            keys(handshake_api_versions(Some(ApiKey(95)))),
            [(18, 0, 5), (95, 0, 0)]
        );
        assert_eq!(
            keys(handshake_api_versions(Some(ApiKey(7)))),
            [(7, 0, 0), (18, 0, 5)]
        );
    }

    #[test]
    fn the_unsupported_answer_keeps_the_ranges_with_unsupported_version() {
        let advertised = ApiVersionsResponse {
            api_keys: handshake_api_versions(None),
            throttle_time_ms: Some(3),
            ..Default::default()
        };
        let answer = api_versions_unsupported(advertised.clone());
        assert_eq!(answer.error_code, ErrorCode::UNSUPPORTED_VERSION.0);
        assert_eq!(answer.api_keys, advertised.api_keys);
        // The v0 layout has no throttle time.
        assert_eq!(answer.throttle_time_ms, None);
    }
}
