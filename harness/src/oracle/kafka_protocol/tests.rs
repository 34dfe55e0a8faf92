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
