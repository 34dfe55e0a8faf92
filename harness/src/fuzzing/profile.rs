//! The spec-profile readings the model targets vary: the size measure (kip-notes §6) and the
//! `ConfigType` numbering, drawn from the fuzzer's bytes. Shared by `push_config_limit` and
//! `sensitive_filter` so both explore the same readings; it checks nothing.

use arbitrary::{Arbitrary, Unstructured};

use crate::model::{ConfigTypeNumbering, SizeMeasure, SpecProfile};

/// The default profile with an arbitrary size measure (one of three) and `ConfigType`
/// numbering, in that order.
pub(crate) fn arbitrary_readings(u: &mut Unstructured<'_>) -> arbitrary::Result<SpecProfile> {
    Ok(SpecProfile {
        size_measure: *u.choose(&[
            SizeMeasure::RequestBody,
            SizeMeasure::ConfigsArray,
            SizeMeasure::KeyValueBytes,
        ])?,
        config_type_numbering: if bool::arbitrary(u)? {
            ConfigTypeNumbering::OlderKipEnum
        } else {
            ConfigTypeNumbering::ConfigDefType
        },
        ..SpecProfile::default()
    })
}
