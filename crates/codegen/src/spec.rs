//! A faithful serde model of Kafka's JSON message definition format
//! (`clients/src/main/resources/common/message/*.json`), and the version-range type.
//!
//! Unknown keys are rejected so that a new key in a future spec file is noticed rather than
//! silently ignored.

use std::fmt;

use serde::Deserialize;

use crate::GenError;

/// An inclusive version range such as `0+`, `3-4` or `5`; `none` is the empty range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Versions {
    /// Lowest version, inclusive.
    pub lo: i16,
    /// Highest version, inclusive (`i16::MAX` for an open range).
    pub hi: i16,
}

impl Versions {
    /// The empty range.
    pub const NONE: Versions = Versions { lo: 0, hi: -1 };
    /// Every version.
    pub const ALL: Versions = Versions {
        lo: 0,
        hi: i16::MAX,
    };

    /// Parses `none`, `N`, `N+`, `N-M`.
    pub fn parse(s: &str) -> Result<Self, GenError> {
        let s = s.trim();
        let bad = || GenError::Spec(format!("invalid version range {s:?}"));
        if s == "none" {
            return Ok(Self::NONE);
        }
        if let Some(lo) = s.strip_suffix('+') {
            let lo = lo.parse().map_err(|_| bad())?;
            return Ok(Versions { lo, hi: i16::MAX });
        }
        if let Some((lo, hi)) = s.split_once('-') {
            let lo = lo.parse().map_err(|_| bad())?;
            let hi = hi.parse().map_err(|_| bad())?;
            if hi < lo {
                return Err(bad());
            }
            return Ok(Versions { lo, hi });
        }
        let v = s.parse().map_err(|_| bad())?;
        Ok(Versions { lo: v, hi: v })
    }

    /// True if no version is in the range.
    pub fn is_empty(self) -> bool {
        self.hi < self.lo
    }

    /// True if `v` is in the range.
    pub fn contains(self, v: i16) -> bool {
        self.lo <= v && v <= self.hi
    }

    /// The versions in both ranges.
    pub fn intersect(self, other: Versions) -> Versions {
        let r = Versions {
            lo: self.lo.max(other.lo),
            hi: self.hi.min(other.hi),
        };
        if r.is_empty() {
            Self::NONE
        } else {
            r
        }
    }

    /// True if every version of `other` is in `self`.
    pub fn covers(self, other: Versions) -> bool {
        other.is_empty() || (self.lo <= other.lo && other.hi <= self.hi)
    }

    /// The smallest range containing both.
    pub fn hull(self, other: Versions) -> Versions {
        if self.is_empty() {
            return other;
        }
        if other.is_empty() {
            return self;
        }
        Versions {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }
}

impl fmt::Display for Versions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            f.write_str("none")
        } else if self.hi == i16::MAX {
            write!(f, "{}+", self.lo)
        } else if self.lo == self.hi {
            write!(f, "{}", self.lo)
        } else {
            write!(f, "{}-{}", self.lo, self.hi)
        }
    }
}

/// A tag may be written as a number or a string.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Tag {
    /// `"tag": 0`
    Int(u32),
    /// `"tag": "0"`
    Str(String),
}

impl Tag {
    /// The tag number.
    pub fn value(&self) -> Result<u32, GenError> {
        match self {
            Tag::Int(v) => Ok(*v),
            Tag::Str(s) => s
                .trim()
                .parse()
                .map_err(|_| GenError::Spec(format!("invalid tag {s:?}"))),
        }
    }
}

/// A default may be a string, a boolean or a number.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum DefaultValue {
    /// `"default": "-1"`
    Str(String),
    /// `"default": true`
    Bool(bool),
    /// `"default": 0`
    Num(serde_json::Number),
}

impl DefaultValue {
    /// The default as the string Kafka's generator would read.
    pub fn as_text(&self) -> String {
        match self {
            DefaultValue::Str(s) => s.clone(),
            DefaultValue::Bool(b) => b.to_string(),
            DefaultValue::Num(n) => n.to_string(),
        }
    }
}

/// One field of a message or struct.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FieldSpec {
    /// PascalCase name.
    pub name: String,
    /// `int32`, `string`, `[]Foo`, `Foo`, ...
    #[serde(rename = "type")]
    pub type_: String,
    /// Versions in which the field exists.
    pub versions: Option<String>,
    /// Versions in which the field is tagged.
    pub tagged_versions: Option<String>,
    /// The tag number.
    pub tag: Option<Tag>,
    /// Versions in which the field may be null.
    pub nullable_versions: Option<String>,
    /// Field-level override of the flexible versions (`none` keeps the classic encoding).
    pub flexible_versions: Option<String>,
    /// The default value.
    pub default: Option<DefaultValue>,
    /// Whether the field may be dropped silently in versions that lack it.
    #[serde(default)]
    pub ignorable: bool,
    /// Whether the field is a key of a map-like array (does not change the encoding).
    #[serde(default)]
    pub map_key: bool,
    /// Entity type (does not change the encoding).
    pub entity_type: Option<String>,
    /// Documentation.
    pub about: Option<String>,
    /// Zero-copy hint (does not change the encoding).
    #[serde(default)]
    pub zero_copy: bool,
    /// Nested fields of an inline struct type.
    pub fields: Option<Vec<FieldSpec>>,
}

/// A `commonStructs` entry.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StructSpec {
    /// Struct name.
    pub name: String,
    /// Versions in which it is used.
    pub versions: String,
    /// Its fields.
    pub fields: Vec<FieldSpec>,
}

/// A whole message definition file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MessageSpec {
    /// API key (or metadata record type); absent for headers.
    pub api_key: Option<i16>,
    /// `request`, `response`, `header`, `metadata` or `data`.
    #[serde(rename = "type")]
    pub type_: String,
    /// Listeners that accept the request.
    pub listeners: Option<Vec<String>>,
    /// Message name.
    pub name: String,
    /// Valid versions.
    pub valid_versions: String,
    /// Deprecated versions.
    pub deprecated_versions: Option<String>,
    /// Flexible versions.
    pub flexible_versions: String,
    /// Whether the latest version is unstable.
    #[serde(default)]
    pub latest_version_unstable: bool,
    /// Fields.
    pub fields: Vec<FieldSpec>,
    /// Shared struct definitions.
    #[serde(default)]
    pub common_structs: Vec<StructSpec>,
}

/// Removes `//` comments outside string literals.
pub fn strip_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut in_str = false;
    let mut escaped = false;
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        if c == '"' {
            in_str = true;
            out.push(c);
        } else if c == '/' && chars.peek() == Some(&'/') {
            for c in chars.by_ref() {
                if c == '\n' {
                    out.push('\n');
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Parses one spec file's text.
pub fn parse(src: &str) -> Result<MessageSpec, GenError> {
    serde_json::from_str(&strip_comments(src)).map_err(|e| GenError::Spec(e.to_string()))
}
