//! Kafka's `ConfigDef.Type` ([`ConfigType`]) in ordinal order and the two wire numberings of
//! it ([`ConfigTypeNumbering`], KIP-1324 §6 A2). No values or tables here.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Kafka's `org.apache.kafka.common.config.ConfigDef.Type`, in declaration (ordinal) order.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ConfigType {
    /// `BOOLEAN` (ordinal 0).
    Boolean,
    /// `STRING` (ordinal 1).
    String,
    /// `INT` (ordinal 2).
    Int,
    /// `SHORT` (ordinal 3).
    Short,
    /// `LONG` (ordinal 4).
    Long,
    /// `DOUBLE` (ordinal 5).
    Double,
    /// `LIST` (ordinal 6).
    List,
    /// `CLASS` (ordinal 7).
    Class,
    /// `PASSWORD` (ordinal 8).
    Password,
}

impl ConfigType {
    /// Every type, in ordinal order.
    pub const ALL: [ConfigType; 9] = [
        ConfigType::Boolean,
        ConfigType::String,
        ConfigType::Int,
        ConfigType::Short,
        ConfigType::Long,
        ConfigType::Double,
        ConfigType::List,
        ConfigType::Class,
        ConfigType::Password,
    ];

    /// The Java ordinal (`ConfigDef.Type.ordinal()`).
    pub fn ordinal(self) -> i8 {
        self as i8
    }

    /// Kafka's `Type.isSensitive()`: true only for PASSWORD.
    pub fn is_sensitive(self) -> bool {
        self == ConfigType::Password
    }
}

/// The Java enum constant's name, e.g. `INT` (text for people: messages and reports).
impl fmt::Display for ConfigType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConfigType::Boolean => "BOOLEAN",
            ConfigType::String => "STRING",
            ConfigType::Int => "INT",
            ConfigType::Short => "SHORT",
            ConfigType::Long => "LONG",
            ConfigType::Double => "DOUBLE",
            ConfigType::List => "LIST",
            ConfigType::Class => "CLASS",
            ConfigType::Password => "PASSWORD",
        })
    }
}

/// How PushConfig's `ConfigType` int8 maps to [`ConfigType`] (kip-notes §6 A2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfigTypeNumbering {
    /// The newest KIP text: the `ConfigDef.Type` ordinal, BOOLEAN 0 … PASSWORD 8.
    #[default]
    ConfigDefType,
    /// The older KIP's `ClientConfigType`: BOOLEAN 0, STRING 1, SHORT 2, INT 3, LONG 4,
    /// DOUBLE 5, LIST 6; CLASS and PASSWORD have no number.
    OlderKipEnum,
}

impl ConfigTypeNumbering {
    /// The wire number of `ty`, or `None` if this numbering has none for it.
    pub fn to_wire(self, ty: ConfigType) -> Option<i8> {
        match self {
            ConfigTypeNumbering::ConfigDefType => Some(ty.ordinal()),
            ConfigTypeNumbering::OlderKipEnum => match ty {
                ConfigType::Boolean => Some(0),
                ConfigType::String => Some(1),
                ConfigType::Short => Some(2),
                ConfigType::Int => Some(3),
                ConfigType::Long => Some(4),
                ConfigType::Double => Some(5),
                ConfigType::List => Some(6),
                ConfigType::Class | ConfigType::Password => None,
            },
        }
    }

    /// The type a wire number means, or `None` if it is outside this numbering.
    pub fn from_wire(self, n: i8) -> Option<ConfigType> {
        ConfigType::ALL
            .into_iter()
            .find(|t| self.to_wire(*t) == Some(n))
    }
}
