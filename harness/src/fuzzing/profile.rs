//! The spec-profile readings the model targets vary: the size measure (kip-notes §6) and the
//! `ConfigType` numbering, drawn from the fuzzer's bytes. Shared by `push_config_limit` and
//! `sensitive_filter` so both explore the same readings; it checks nothing.

use arbitrary::{Arbitrary, Unstructured};

use crate::model::{ConfigTypeNumbering, SizeMeasure, SpecProfile};

/// The default profile with an arbitrary size measure and `ConfigType` numbering (two bytes'
/// worth of choices, in that order).
pub(crate) fn arbitrary_readings(u: &mut Unstructured<'_>) -> arbitrary::Result<SpecProfile> {
    Ok(SpecProfile {
        size_measure: if bool::arbitrary(u)? {
            SizeMeasure::ConfigsArray
        } else {
            SizeMeasure::RequestBody
        },
        config_type_numbering: if bool::arbitrary(u)? {
            ConfigTypeNumbering::OlderKipEnum
        } else {
            ConfigTypeNumbering::ConfigDefType
        },
        ..SpecProfile::default()
    })
}
