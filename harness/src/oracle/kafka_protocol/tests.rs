//! Tests of the differential machinery: each generated pair's versions are exactly those
//! both codecs have, in the fuzz target's selector order.

use super::*;
use crate::codec::Message;

/// Each generated pair's versions are exactly the versions both codecs have: ours
/// (`VALID_VERSIONS`) and kafka-protocol's (`Message::VERSIONS`), so a kafka-protocol
/// upgrade that adds versions shows here (then update `KAFKA_PROTOCOL_PAIRS` in
/// kipcheck-codegen).
#[test]
fn pair_versions_are_those_both_codecs_have() {
    struct Versions;
    impl Visit for Versions {
        type Out = (&'static str, std::ops::RangeInclusive<i16>, (i16, i16));
        fn visit<P: Pair>(self) -> Self::Out {
            let ours = <P::Ours as Message>::VALID_VERSIONS;
            let theirs = <P::Theirs as kafka_protocol::protocol::Message>::VERSIONS;
            let both = (ours.min.max(theirs.min), ours.max.min(theirs.max));
            (<P::Ours as Message>::NAME, P::VERSIONS, both)
        }
    }
    let mut names = Vec::new();
    for i in 0..generated::PAIRS {
        let (name, versions, (lo, hi)) = generated::visit(i, Versions);
        assert_eq!(versions, lo..=hi, "{name}");
        names.push(name);
    }
    // The fuzz target's selector order (its corpus depends on it).
    assert_eq!(
        names,
        [
            "ApiVersionsRequest",
            "ApiVersionsResponse",
            "MetadataRequest",
            "MetadataResponse",
            "AlterConfigsRequest",
            "AlterConfigsResponse",
            "IncrementalAlterConfigsRequest",
            "IncrementalAlterConfigsResponse",
            "UpdateFeaturesRequest",
            "UpdateFeaturesResponse",
            "BrokerRegistrationRequest",
            "BrokerRegistrationResponse",
        ]
    );
}

/// [`random_bytes`] gives, for seed 1, exactly the bytes `ModelRng::bytes` gave before it
/// moved here (the differential run's inputs, hence its reproducible seeds, depend on them).
#[test]
fn random_bytes_are_those_of_the_model_rng_before_the_move() {
    let mut rng = crate::model::ModelRng::new(1);
    let got: Vec<Vec<u8>> = (0..3).map(|_| random_bytes(&mut rng, 40)).collect();
    let want: [&[u8]; 3] = [
        &[
            103, 236, 142, 101, 161, 141, 235, 190, 94, 85, 50, 251, 238, 162, 147, 248, 11, 201,
            66, 238, 144, 134, 193, 113, 185, 181, 1,
        ],
        &[
            165, 60, 54, 215, 108, 236, 153, 224, 117, 133, 39, 18, 15, 187, 231, 133, 168, 61,
            126, 53, 222, 24, 23, 73, 150, 103, 97, 116, 142, 92, 67, 203, 97,
        ],
        &[
            192, 93, 170, 75, 138, 207, 118, 116, 138, 162, 215, 144, 214, 65, 179, 135, 168, 87,
            76, 111, 174,
        ],
    ];
    assert_eq!(got, want);
    assert!(random_bytes(&mut crate::model::ModelRng::new(1), 0).is_empty());
}
