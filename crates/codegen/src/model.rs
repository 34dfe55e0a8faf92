//! Resolves a parsed [`MessageSpec`] into the shapes the emitter needs: one struct per
//! message and nested struct, each field with its type, version sets and Rust
//! representation (plain, nullable, possibly-absent).

use std::collections::BTreeMap;

use crate::spec::{FieldSpec, MessageSpec, Versions};
use crate::GenError;

/// What kind of definition a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A request body.
    Request,
    /// A response body.
    Response,
    /// A request or response header.
    Header,
    /// A KRaft metadata record.
    Metadata,
}

/// A field type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    /// bool
    Bool,
    /// int8
    I8,
    /// int16
    I16,
    /// uint16
    U16,
    /// int32
    I32,
    /// uint32
    U32,
    /// int64
    I64,
    /// float64
    F64,
    /// string
    Str,
    /// bytes
    Bytes,
    /// records (encoded as nullable-capable bytes)
    Records,
    /// uuid
    Uuid,
    /// A struct by name.
    Struct(String),
    /// An array.
    Array(Box<Ty>),
}

impl Ty {
    fn parse(s: &str) -> Ty {
        if let Some(inner) = s.strip_prefix("[]") {
            return Ty::Array(Box::new(Ty::parse(inner)));
        }
        match s {
            "bool" => Ty::Bool,
            "int8" => Ty::I8,
            "int16" => Ty::I16,
            "uint16" => Ty::U16,
            "int32" => Ty::I32,
            "uint32" => Ty::U32,
            "int64" => Ty::I64,
            "float64" => Ty::F64,
            "string" => Ty::Str,
            "bytes" => Ty::Bytes,
            "records" => Ty::Records,
            "uuid" => Ty::Uuid,
            other => Ty::Struct(other.to_owned()),
        }
    }

    /// True for types whose null is representable on the wire.
    pub fn can_be_null(&self) -> bool {
        matches!(
            self,
            Ty::Str | Ty::Bytes | Ty::Records | Ty::Array(_) | Ty::Struct(_)
        )
    }

    /// The struct this type names, directly or as an array element.
    pub fn struct_name(&self) -> Option<&str> {
        match self {
            Ty::Struct(n) => Some(n),
            Ty::Array(inner) => inner.struct_name(),
            _ => None,
        }
    }
}

/// A resolved field.
#[derive(Clone, Debug)]
pub struct Field {
    /// Kafka's PascalCase name.
    pub name: String,
    /// Rust field name.
    pub ident: String,
    /// Type.
    pub ty: Ty,
    /// Versions in which the field exists (within the struct's context).
    pub versions: Versions,
    /// Versions in which it is tagged.
    pub tagged: Versions,
    /// Its tag.
    pub tag: Option<u32>,
    /// Versions in which it may be null.
    pub nullable: Versions,
    /// Versions in which it uses the compact encoding.
    pub flexible: Versions,
    /// Default text from the spec, if any.
    pub default: Option<String>,
    /// Whether it may be dropped in versions that lack it.
    pub ignorable: bool,
    /// Documentation.
    pub about: String,
    /// The field exists in every version in which its struct exists.
    pub always_present: bool,
}

impl Field {
    /// True if the field can be null in some version.
    pub fn nullable_any(&self) -> bool {
        !self.nullable.intersect(self.versions).is_empty()
    }
}

/// A resolved struct (the message itself or a nested one).
#[derive(Clone, Debug)]
pub struct Struct {
    /// Rust type name.
    pub name: String,
    /// Fields in wire order.
    pub fields: Vec<Field>,
    /// Versions in which the struct is used.
    pub context: Versions,
    /// Documentation.
    pub about: String,
}

/// A resolved message file.
#[derive(Clone, Debug)]
pub struct Message {
    /// Message name, e.g. `PushConfigRequest`.
    pub name: String,
    /// What it is.
    pub kind: Kind,
    /// API key or record type.
    pub api_key: Option<i16>,
    /// Valid versions.
    pub valid: Versions,
    /// Flexible versions.
    pub flexible: Versions,
    /// The root struct first, then nested structs in definition order.
    pub structs: Vec<Struct>,
    /// Source file name.
    pub source: String,
}

/// Converts `ClientSoftwareName` to `client_software_name`.
pub fn snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1);
            let boundary = match prev {
                None => false,
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(*c);
        }
    }
    out
}

fn ident(name: &str) -> String {
    let s = snake(name);
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true",
        "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final",
        "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
    ];
    if KEYWORDS.contains(&s.as_str()) {
        format!("r#{s}")
    } else {
        s
    }
}

fn versions_of(spec: &Option<String>, what: &str) -> Result<Versions, GenError> {
    match spec {
        Some(s) => Versions::parse(s),
        None if what == "versions" => Err(GenError::Spec("field without versions".into())),
        None => Ok(Versions::NONE),
    }
}

struct Resolver<'a> {
    msg: &'a MessageSpec,
    flexible: Versions,
    structs: Vec<Struct>,
    common: BTreeMap<String, &'a crate::spec::StructSpec>,
}

impl Resolver<'_> {
    fn add_struct(
        &mut self,
        name: &str,
        about: &str,
        fields: &[FieldSpec],
        context: Versions,
    ) -> Result<(), GenError> {
        if let Some(existing) = self.structs.iter_mut().find(|s| s.name == name) {
            existing.context = existing.context.hull(context);
            return Ok(());
        }
        let idx = self.structs.len();
        self.structs.push(Struct {
            name: name.to_owned(),
            fields: Vec::new(),
            context,
            about: about.to_owned(),
        });
        let mut resolved = Vec::new();
        let mut tags = BTreeMap::new();
        for f in fields {
            let field = self.field(f, context)?;
            if let Some(tag) = field.tag {
                if let Some(other) = tags.insert(tag, field.name.clone()) {
                    return Err(GenError::Spec(format!(
                        "{}: fields {other} and {} share tag {tag}",
                        name, field.name
                    )));
                }
            }
            resolved.push(field);
        }
        self.structs[idx].fields = resolved;
        Ok(())
    }

    fn field(&mut self, f: &FieldSpec, context: Versions) -> Result<Field, GenError> {
        let versions = versions_of(&f.versions, "versions")?.intersect(context);
        let tagged = versions_of(&f.tagged_versions, "tagged")?.intersect(versions);
        let nullable = versions_of(&f.nullable_versions, "nullable")?;
        let flexible = match &f.flexible_versions {
            Some(s) => Versions::parse(s)?,
            None => self.flexible,
        };
        let tag = f.tag.as_ref().map(|t| t.value()).transpose()?;
        if tag.is_some() != f.tagged_versions.is_some() {
            return Err(GenError::Spec(format!(
                "{}: tag and taggedVersions must come together",
                f.name
            )));
        }
        if !tagged.is_empty() && !self.flexible.covers(tagged) {
            return Err(GenError::Spec(format!(
                "{}: tagged in versions that are not flexible",
                f.name
            )));
        }
        let ty = Ty::parse(&f.type_);
        if !nullable.is_empty() && !ty.can_be_null() {
            return Err(GenError::Spec(format!(
                "{}: {} cannot be nullable",
                f.name, f.type_
            )));
        }
        if let Some(struct_name) = ty.struct_name() {
            let struct_name = struct_name.to_owned();
            match &f.fields {
                Some(nested) => self.add_struct(
                    &struct_name,
                    f.about.as_deref().unwrap_or(""),
                    nested,
                    versions,
                )?,
                None => {
                    let common = *self.common.get(&struct_name).ok_or_else(|| {
                        GenError::Spec(format!("{}: unknown struct {struct_name}", f.name))
                    })?;
                    let cv = Versions::parse(&common.versions)?.intersect(versions);
                    self.add_struct(&struct_name, "", &common.fields, cv)?
                }
            }
        } else if f.fields.is_some() {
            return Err(GenError::Spec(format!(
                "{}: fields on a non-struct type",
                f.name
            )));
        }
        Ok(Field {
            name: f.name.clone(),
            ident: ident(&f.name),
            ty,
            versions,
            tagged,
            tag,
            nullable,
            flexible,
            default: f.default.as_ref().map(|d| d.as_text()),
            ignorable: f.ignorable,
            about: f.about.clone().unwrap_or_default(),
            always_present: versions.covers(context),
        })
    }
}

/// Resolves a parsed spec.
pub fn resolve(spec: &MessageSpec, source: &str) -> Result<Message, GenError> {
    let kind = match spec.type_.as_str() {
        "request" => Kind::Request,
        "response" => Kind::Response,
        "header" => Kind::Header,
        "metadata" => Kind::Metadata,
        other => {
            return Err(GenError::Spec(format!(
                "unsupported message type {other:?}"
            )))
        }
    };
    let valid = Versions::parse(&spec.valid_versions)?;
    let flexible = Versions::parse(&spec.flexible_versions)?;
    let mut r = Resolver {
        msg: spec,
        flexible,
        structs: Vec::new(),
        common: spec
            .common_structs
            .iter()
            .map(|s| (s.name.clone(), s))
            .collect(),
    };
    let name = r.msg.name.clone();
    r.add_struct(&name, "", &spec.fields, valid)?;
    Ok(Message {
        name,
        kind,
        api_key: spec.api_key,
        valid,
        flexible,
        structs: r.structs,
        source: source.to_owned(),
    })
}
