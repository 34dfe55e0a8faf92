//! The `metadata.version` a live controller runs at: the finalized level its ApiVersions
//! answer advertises (v3+ `FinalizedFeatures`), which overrides its `--target-manifest`'s
//! `finalized` in the target's own copy of the manifest. Pure: no socket here (the probe in
//! `adapter/tcp.rs` reads the answer); binding to the level is `adapter::binding`'s.

use crate::adapter::error::{AdapterError, SetupError};
use crate::adapter::manifest::TargetManifest;
use crate::codec::ApiVersionsResponse;

/// The `metadata.version` level `answer` finalizes: its `FinalizedFeatures` entry, which is
/// valid only with `FinalizedFeaturesEpoch` >= 0 (the message definition says so).
pub(super) fn finalized_metadata_version(answer: &ApiVersionsResponse) -> Option<i16> {
    answer
        .finalized_features_epoch
        .is_some_and(|e| e >= 0)
        .then(|| finalized_feature(answer, "metadata.version"))
        .flatten()
}

/// The level `answer`'s `FinalizedFeatures` gives `feature`, if it lists it.
pub(super) fn finalized_feature(answer: &ApiVersionsResponse, feature: &str) -> Option<i16> {
    answer
        .finalized_features
        .iter()
        .flatten()
        .find(|f| f.name.as_str() == feature)
        .map(|f| f.max_version_level)
}

/// This target's copy of `manifest` at the level the controller at `addr` finalizes (`wire`),
/// when it advertises one: the wire's level wins over the manifest's `finalized` (each target
/// of a routed run gets its own copy). A level outside the manifest's `min..=max` is a setup
/// error.
pub(super) fn at_wire_level(
    manifest: &TargetManifest,
    addr: &str,
    wire: Option<i16>,
) -> Result<TargetManifest, AdapterError> {
    let mut copy = manifest.clone();
    let Some(level) = wire else {
        return Ok(copy);
    };
    let levels = &mut copy.metadata_version;
    if !(levels.min..=levels.max).contains(&level) {
        return Err(SetupError::WireLevelOutOfRange {
            addr: addr.to_owned(),
            level,
            min: levels.min,
            max: levels.max,
            software: manifest.software.clone(),
        }
        .into());
    }
    levels.finalized = level;
    Ok(copy)
}

#[cfg(test)]
mod tests {
    use super::{at_wire_level, finalized_metadata_version};
    use crate::adapter::error::{AdapterError, SetupError};
    use crate::adapter::manifest::parse_manifest;
    use crate::codec::api_versions_response::FinalizedFeatureKey;
    use crate::codec::ApiVersionsResponse;

    fn answer(epoch: Option<i64>, features: &[(&str, i16)]) -> ApiVersionsResponse {
        ApiVersionsResponse {
            finalized_features_epoch: epoch,
            finalized_features: Some(
                features
                    .iter()
                    .map(|(name, level)| FinalizedFeatureKey {
                        name: (*name).into(),
                        max_version_level: *level,
                        min_version_level: *level,
                        ..Default::default()
                    })
                    .collect(),
            ),
            ..Default::default()
        }
    }

    #[test]
    fn only_a_known_epoch_finalizes_metadata_version() {
        let both = [("kraft.version", 1), ("metadata.version", 35)];
        assert_eq!(
            finalized_metadata_version(&answer(Some(0), &both)),
            Some(35)
        );
        assert_eq!(finalized_metadata_version(&answer(Some(-1), &both)), None);
        assert_eq!(finalized_metadata_version(&answer(None, &both)), None);
        assert_eq!(
            finalized_metadata_version(&answer(Some(3), &[("kraft.version", 1)])),
            None
        );
        assert_eq!(
            finalized_metadata_version(&ApiVersionsResponse::default()),
            None
        );
    }

    #[test]
    fn the_wire_level_replaces_finalized_within_the_range_only() {
        let m = parse_manifest(
            "software: S\nmetadata_version: { min: 7, max: 36, finalized: 33 }\n",
            std::path::Path::new("m.yaml"),
        )
        .unwrap();
        let same = at_wire_level(&m, "c:1", None).unwrap();
        assert_eq!(same, m);
        let moved = at_wire_level(&m, "c:1", Some(35)).unwrap();
        assert_eq!(moved.metadata_version.finalized, 35);
        assert_eq!(
            (moved.metadata_version.min, moved.metadata_version.max),
            (7, 36)
        );
        for level in [6, 37] {
            let e = at_wire_level(&m, "c:1", Some(level)).unwrap_err();
            let AdapterError::Setup(s) = &e else {
                panic!("{e:?}")
            };
            assert!(
                matches!(**s, SetupError::WireLevelOutOfRange { level: l, min: 7, max: 36, .. } if l == level),
                "{e:?}"
            );
        }
    }
}
