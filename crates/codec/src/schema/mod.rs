//! A static description of every generated message: per struct, its fields with their
//! types and version sets, exactly as `kipcheck-codegen` resolved them from the JSON
//! definitions. The types live in [`shape`] (below the generated table, which imports them);
//! the table is generated (`generated/schemas.rs`); this file holds the lookup by name, above
//! both. Nothing here encodes or decodes: it lets other code (the scenario loader) ask which
//! fields a message has in which version.

mod shape;

pub use shape::{
    FieldSchema, FieldType, MessageSchema, Scalar, SchemaKind, StructSchema, UNKNOWN_TAGGED_KEY,
};

use crate::generated::schemas::SCHEMAS;

/// The schema of the message named `name` (`PushConfigResponse`), as written in
/// [`BodyInfo::message`](super::BodyInfo::message).
pub fn message_schema(name: &str) -> Option<&'static MessageSchema> {
    SCHEMAS.iter().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::VersionRange;
    use crate::{MetadataRecordBody, RequestBody, ResponseBody};

    #[test]
    fn every_dispatched_body_has_its_schema() {
        let all = RequestBody::KNOWN
            .iter()
            .map(|i| (i, SchemaKind::Request))
            .chain(
                ResponseBody::KNOWN
                    .iter()
                    .map(|i| (i, SchemaKind::Response)),
            )
            .chain(
                MetadataRecordBody::KNOWN
                    .iter()
                    .map(|i| (i, SchemaKind::Metadata)),
            );
        for (info, kind) in all {
            let s = message_schema(info.message).unwrap_or_else(|| panic!("{}", info.message));
            assert_eq!(s.kind, kind, "{}", info.message);
            assert_eq!(s.api_key, Some(info.api_key.0), "{}", info.message);
            assert_eq!((s.valid, s.flexible), (info.valid, info.flexible));
            assert_eq!(s.root.name, info.message);
            assert_eq!(s.root.versions, info.valid);
        }
    }

    #[test]
    fn fields_carry_versions_types_and_tags() {
        let req = message_schema("BrokerRegistrationRequest").expect("known");
        let f = req.root.field("StaticConfigs").expect("KIP-1326 field");
        assert_eq!(f.versions, VersionRange::new(6, 6));
        let FieldType::StructArray(entry) = f.ty else {
            panic!("{f:?}")
        };
        assert_eq!(entry.versions, VersionRange::new(6, 6));
        let names: Vec<&str> = entry.fields.iter().map(|f| f.name).collect();
        assert_eq!(names, ["Name", "Value"]);
        assert_eq!(f.ty.describe(), "[]StaticConfig");

        let rec = message_schema("RegisterBrokerRecord").expect("known");
        let f = rec.root.field("StaticConfigs").expect("KIP-1326 field");
        assert_eq!((f.tagged, f.tag), (VersionRange::new(5, 5), Some(2)));

        let resp = message_schema("PushConfigResponse").expect("known");
        let names: Vec<&str> = resp.root.fields.iter().map(|f| f.name).collect();
        assert_eq!(names, ["ThrottleTimeMs", "ErrorCode", "ErrorMessage"]);
        let msg = resp.root.field("ErrorMessage").expect("field");
        assert_eq!(msg.ty, FieldType::Scalar(Scalar::String));
        assert_eq!(msg.nullable, VersionRange::new(0, 0));
        assert_eq!(resp.root.unknown_tagged, VersionRange::new(0, 0));
        assert!(resp.root.field("errorcode").is_none());
    }
}
