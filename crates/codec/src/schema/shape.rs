//! The types of the schema table: per struct, its fields with their types and version sets,
//! exactly as `kipcheck-codegen` resolved them from the JSON definitions. The generated table
//! (`generated/schemas.rs`) imports these; this file must not import the table (the lookup
//! by name is the parent module's, one layer up). Nothing here encodes or decodes.

use crate::VersionRange;

/// What a definition file describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemaKind {
    /// A request body.
    Request,
    /// A response body.
    Response,
    /// A request or response header.
    Header,
    /// A KRaft metadata record.
    Metadata,
}

/// A scalar field type, named as in Kafka's JSON definitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// `bool`
    Bool,
    /// `int8`
    Int8,
    /// `int16`
    Int16,
    /// `uint16`
    Uint16,
    /// `int32`
    Int32,
    /// `uint32`
    Uint32,
    /// `int64`
    Int64,
    /// `float64`
    Float64,
    /// `string`
    String,
    /// `bytes` (hex text in JSON/YAML)
    Bytes,
    /// `records` (hex text in JSON/YAML)
    Records,
    /// `uuid` (Kafka's base64 text)
    Uuid,
}

impl Scalar {
    /// Kafka's name of the type (`int16`).
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Int8 => "int8",
            Scalar::Int16 => "int16",
            Scalar::Uint16 => "uint16",
            Scalar::Int32 => "int32",
            Scalar::Uint32 => "uint32",
            Scalar::Int64 => "int64",
            Scalar::Float64 => "float64",
            Scalar::String => "string",
            Scalar::Bytes => "bytes",
            Scalar::Records => "records",
            Scalar::Uuid => "uuid",
        }
    }

    /// True for the types written as text in JSON/YAML: strings, hex bytes and records,
    /// base64 UUIDs.
    pub fn is_text(self) -> bool {
        matches!(
            self,
            Scalar::String | Scalar::Bytes | Scalar::Records | Scalar::Uuid
        )
    }

    /// True for the integer and float types (JSON numbers).
    pub fn is_number(self) -> bool {
        !matches!(
            self,
            Scalar::Bool | Scalar::String | Scalar::Bytes | Scalar::Records | Scalar::Uuid
        )
    }
}

/// The type of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldType {
    /// One scalar.
    Scalar(Scalar),
    /// An array of scalars.
    ScalarArray(Scalar),
    /// A nested struct.
    Struct(&'static StructSchema),
    /// An array of structs.
    StructArray(&'static StructSchema),
}

impl FieldType {
    /// Kafka's spelling of the type: `int16`, `[]string`, `ConfigEntry`, `[]ConfigEntry`.
    pub fn describe(self) -> String {
        match self {
            FieldType::Scalar(s) => s.name().to_owned(),
            FieldType::ScalarArray(s) => format!("[]{}", s.name()),
            FieldType::Struct(s) => s.name.to_owned(),
            FieldType::StructArray(s) => format!("[]{}", s.name),
        }
    }
}

/// One field of a struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldSchema {
    /// Kafka's PascalCase name: the serde name in JSON/YAML.
    pub name: &'static str,
    /// Its type.
    pub ty: FieldType,
    /// Versions in which it exists (within its struct's versions).
    pub versions: VersionRange,
    /// Versions in which it may be null (within `versions`).
    pub nullable: VersionRange,
    /// Versions in which it is a tagged field (within `versions`).
    pub tagged: VersionRange,
    /// Its tag, if it is tagged in some version.
    pub tag: Option<u32>,
}

/// A struct: a message's root or a nested/common struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StructSchema {
    /// Its name (the Rust type name).
    pub name: &'static str,
    /// Versions in which the struct is used.
    pub versions: VersionRange,
    /// Versions in which it carries a tagged-field section, kept in JSON/YAML as
    /// [`UNKNOWN_TAGGED_KEY`] for tags the version does not know (empty if never).
    pub unknown_tagged: VersionRange,
    /// Fields in wire order.
    pub fields: &'static [FieldSchema],
}

/// The JSON/YAML key under which a struct keeps its unknown tagged fields.
pub const UNKNOWN_TAGGED_KEY: &str = "_tagged";

impl StructSchema {
    /// The field named exactly `name`.
    pub fn field(&self, name: &str) -> Option<&'static FieldSchema> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// One message definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageSchema {
    /// Message name, e.g. `PushConfigResponse`.
    pub name: &'static str,
    /// What it is.
    pub kind: SchemaKind,
    /// API key or metadata record type (canonical numbers of the JSON files).
    pub api_key: Option<i16>,
    /// Valid versions.
    pub valid: VersionRange,
    /// Flexible versions.
    pub flexible: VersionRange,
    /// The message's own fields.
    pub root: &'static StructSchema,
}
