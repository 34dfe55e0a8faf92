//! `--target-manifest FILE`: what a live controller declares about its own config
//! definitions, since it cannot be handed a scenario's (docs/live-targets.md). A manifest
//! names the controller's supported and finalized `metadata.version` levels, the KIP-1326
//! persistence level if it has one, and, per real config, its resource type, type, static
//! validator and KIP-1294 MV validators as one violating and one compliant value each (the
//! values are what binding substitutes; kipcheck never evaluates the controller's validators
//! itself). The loader is strict (unknown keys refused) and every error is located as
//! `file:line:col`, as scenario files are. Binding a scenario to it is [`super::binding`].

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::model::config_def::ConfigType;
use crate::model::ReportPolicy;
use crate::scenario::error::Located;
use crate::scenario::load::{snippet, yaml_location};

/// A live controller's declaration of its own definitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TargetManifest {
    /// The software it describes, e.g. `Apache Kafka 4.4.0` (named in unsupported reasons).
    pub software: String,
    /// The `metadata.version` feature levels the controller supports and runs at.
    pub metadata_version: MvLevels,
    /// The KIP-1326 level from which the controller persists `StaticConfigs` in
    /// RegisterBrokerRecord v5; absent: it never persists them (no KIP-1326).
    #[serde(default)]
    pub static_config_persistence_level: Option<i16>,
    /// The controller's cluster id (what it was formatted with): every BrokerRegistration
    /// kipcheck sends it carries this id. Absent: learnt from the controller's DescribeCluster
    /// answer when the target is built. Given: it wins.
    #[serde(default)]
    pub cluster_id: Option<String>,
    /// How kipcheck makes the controller fail over for a `failover` step (a shell command
    /// and its bounds). Absent: failover scenarios are unsupported on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failover: Option<super::failover::FailoverCommand>,
    /// The controller's `node.id` (absent: 1, the node scenarios assume unless they set
    /// `setup.controller.node_id`). A scenario that runs its controller as another node is
    /// not bound to this controller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<i32>,
    /// Features other than `metadata.version` (e.g. `group.version`) that kipcheck may move
    /// for a scenario and sets back afterwards, by name. Absent: scenarios that change them
    /// are unsupported.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub features: BTreeMap<String, FeatureMoves>,
    /// Real configs with validators, by name.
    #[serde(default)]
    pub configs: BTreeMap<String, ManifestConfig>,
}

/// A feature other than `metadata.version` the controller lets kipcheck move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FeatureMoves {
    /// The level it is finalized at (0: not finalized, as a freshly formatted cluster has
    /// it), where kipcheck sets it back after a scenario that moved it.
    pub finalized: i16,
    /// The levels UpdateFeatures can move it to besides `finalized`.
    pub levels: Vec<i16>,
    /// Whether, and with which UpgradeType, it can be moved down (setting it back after an
    /// upgrade needs one).
    #[serde(default)]
    pub downgrade: Downgrade,
}

/// The controller's `metadata.version` levels.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MvLevels {
    /// Lowest supported feature level.
    pub min: i16,
    /// Highest supported feature level.
    pub max: i16,
    /// The finalized level the controller runs at (a live controller is never moved to a
    /// scenario's level: the scenario's level binds to this one).
    pub finalized: i16,
    /// The levels UpdateFeatures can move the controller between, and whether it can be
    /// moved down. Absent: kipcheck never moves it (scenarios that change metadata.version
    /// are unsupported). Given: such scenarios are bound onto these levels, and kipcheck sets
    /// the level back to `finalized` after each of them.
    #[serde(default)]
    pub moves: Option<MvMoves>,
}

/// The `metadata.version` changes a controller accepts (UpdateFeatures), declared by it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MvMoves {
    /// The levels it can be set to besides `finalized`, each within `min..=max`. Upgrades
    /// (UpgradeType 1) between any two of them are accepted.
    pub levels: Vec<i16>,
    /// Whether, and with which UpgradeType, it can be moved to a lower level.
    #[serde(default)]
    pub downgrade: Downgrade,
}

/// How a controller can lower `metadata.version` (KIP-778's upgrade types). Kafka refuses
/// most metadata.version downgrades, so the default is that it cannot.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Downgrade {
    /// Never: only upgrades. A scenario that lowers the level, or raises it expecting
    /// success (kipcheck could not set it back), is unsupported.
    #[default]
    None,
    /// A safe downgrade (UpgradeType 2; v0 `AllowDowngrade`) between the listed levels.
    Safe,
    /// Safe (2) and unsafe (3) downgrades between the listed levels.
    Unsafe,
}

impl Downgrade {
    /// Whether a downgrade of this UpgradeType (2 safe, 3 unsafe) is accepted.
    pub fn accepts(self, upgrade_type: i8) -> bool {
        match self {
            Downgrade::None => false,
            Downgrade::Safe => upgrade_type == 2,
            Downgrade::Unsafe => upgrade_type == 2 || upgrade_type == 3,
        }
    }

    /// The UpgradeType kipcheck lowers the level with (`None`: it cannot).
    pub fn upgrade_type(self) -> Option<i8> {
        match self {
            Downgrade::None => None,
            Downgrade::Safe => Some(2),
            Downgrade::Unsafe => Some(3),
        }
    }
}

/// Which `ConfigResource` a config belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ManifestResource {
    /// A broker config (`ConfigResource.Type` BROKER, 4).
    Broker,
    /// A topic config (TOPIC, 2).
    Topic,
}

/// One real config as the controller validates it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManifestConfig {
    /// Its resource type.
    pub resource: ManifestResource,
    /// Its `ConfigDef` type (`INT`, `LONG`, `STRING`, ...).
    #[serde(rename = "type")]
    pub ty: ConfigType,
    /// Its static `ConfigDef` validator, as one value it refuses and one it accepts.
    #[serde(default)]
    pub static_validator: Option<ValuePair>,
    /// KIP-1294 MV validators: feature level → one value the validator in force from that
    /// level refuses (while passing the static validator and every lower level's), one every
    /// validator up to that level accepts, and optionally one this level's validator accepts
    /// while the level below's refuses (`relaxed`).
    #[serde(default)]
    pub mv_validators: BTreeMap<i16, ValuePair>,
    /// KIP-1326 report policy (`DEFAULT` or `NEVER`).
    #[serde(default)]
    pub report_policy: ReportPolicy,
    /// The value the config has where nothing set it (a freshly created topic's, for a topic
    /// config), as `convertToString` renders it: the list an IncrementalAlterConfigs APPEND
    /// or SUBTRACT starts from. Needed only to bind a scenario that appends to or subtracts
    /// from the config.
    #[serde(default)]
    pub default: Option<String>,
}

/// A value a validator refuses and one it accepts; for an MV level above another, optionally
/// a value that shows the level relaxing the one below it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValuePair {
    /// Refused.
    pub violating: String,
    /// Accepted.
    pub compliant: String,
    /// MV levels only, not the lowest: a value the static validator and this level's MV
    /// validator accept while the MV validator of the level below refuses it (under KIP-1294's
    /// floor semantics, refused at the level below and accepted from this one). Lets a
    /// scenario whose value only a higher level accepts be bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relaxed: Option<String>,
}

/// A manifest file that cannot be used, located in its file (`file:line:col: what`).
pub type ManifestError = Located<ManifestErrorKind>;

/// What makes a manifest unusable.
#[derive(Debug, thiserror::Error)]
pub enum ManifestErrorKind {
    /// The file cannot be read.
    #[error("{0}")]
    Read(#[source] std::io::Error),
    /// The YAML does not parse or does not match the format (unknown key, wrong type).
    #[error("{}", .0.to_string().lines().next().unwrap_or(""))]
    Yaml(#[source] serde_saphyr::Error),
    /// `metadata_version` is not `min <= finalized <= max`.
    #[error("metadata_version needs min <= finalized <= max, got min {min}, finalized {finalized}, max {max}")]
    Levels {
        /// `min`.
        min: i16,
        /// `finalized`.
        finalized: i16,
        /// `max`.
        max: i16,
    },
    /// A level (an MV validator's or the persistence level) outside the supported range.
    #[error("{what} level {level} is outside the supported metadata_version range {min}..={max}")]
    LevelOutOfRange {
        /// Which level (`static_config_persistence_level`, `CONFIG mv_validators`).
        what: String,
        /// The level.
        level: i16,
        /// Lowest supported.
        min: i16,
        /// Highest supported.
        max: i16,
    },
    /// A value pair whose two values are the same.
    #[error("{config}: {which} has the same violating and compliant value {value:?}")]
    SameValues {
        /// The config.
        config: String,
        /// `static_validator` or `mv_validators LEVEL`.
        which: String,
        /// The value.
        value: String,
    },
    /// `features` names `metadata.version`, which `metadata_version` declares.
    #[error("features: metadata.version is declared by metadata_version, not features")]
    MetadataVersionFeature,
    /// A `relaxed` value where none can be: on the static validator or the lowest MV level
    /// (no level below to relax), or equal to the pair's other values.
    #[error("{config}: {which} declares relaxed {value:?}, {why}")]
    Relaxed {
        /// The config.
        config: String,
        /// `static_validator` or `mv_validators LEVEL`.
        which: String,
        /// The value.
        value: String,
        /// What is wrong with it.
        why: &'static str,
    },
}

/// Reads and checks the manifest at `path`.
pub fn load_manifest(path: &Path) -> Result<TargetManifest, ManifestError> {
    let text = std::fs::read_to_string(path).map_err(|e| ManifestError {
        path: path.to_owned(),
        line: 0,
        col: 0,
        kind: Box::new(ManifestErrorKind::Read(e)),
        snippet: None,
    })?;
    parse_manifest(&text, path)
}

/// Parses and checks a manifest's text; `path` names it in errors.
pub fn parse_manifest(text: &str, path: &Path) -> Result<TargetManifest, ManifestError> {
    let err = |(line, col): (u64, u64), kind| ManifestError {
        path: path.to_owned(),
        line,
        col,
        kind: Box::new(kind),
        snippet: snippet(text, line, col),
    };
    let m: TargetManifest = serde_saphyr::from_str(text)
        .map_err(|e| err(yaml_location(&e), ManifestErrorKind::Yaml(e)))?;
    let MvLevels {
        min,
        max,
        finalized,
        ..
    } = m.metadata_version;
    if !(min <= finalized && finalized <= max) {
        return Err(err(
            key_position(text, &["metadata_version"]),
            ManifestErrorKind::Levels {
                min,
                finalized,
                max,
            },
        ));
    }
    let out_of_range = |what: String, level: i16, at: (u64, u64)| {
        err(
            at,
            ManifestErrorKind::LevelOutOfRange {
                what,
                level,
                min,
                max,
            },
        )
    };
    if let Some(level) = m.static_config_persistence_level {
        if !(min..=max).contains(&level) {
            let at = key_position(text, &["static_config_persistence_level"]);
            return Err(out_of_range(
                "static_config_persistence_level".into(),
                level,
                at,
            ));
        }
    }
    for level in m.metadata_version.moves.iter().flat_map(|v| &v.levels) {
        if !(min..=max).contains(level) {
            let at = key_position(text, &["metadata_version", "moves", "levels"]);
            let at = if at.0 == 0 {
                key_position(text, &["metadata_version"])
            } else {
                at
            };
            return Err(out_of_range("metadata_version.moves".into(), *level, at));
        }
    }
    if m.features.contains_key("metadata.version") {
        return Err(err(
            key_position(text, &["features"]),
            ManifestErrorKind::MetadataVersionFeature,
        ));
    }
    for (name, c) in &m.configs {
        let same = |which: String, v: &ValuePair| {
            (v.violating == v.compliant).then(|| {
                err(
                    key_position(text, &["configs", name]),
                    ManifestErrorKind::SameValues {
                        config: name.clone(),
                        which,
                        value: v.compliant.clone(),
                    },
                )
            })
        };
        let relaxed = |which: String, v: &ValuePair, lowest: bool| {
            let r = v.relaxed.as_ref()?;
            let why = if lowest {
                "but only an MV level with a level below it can relax that one"
            } else if *r == v.violating || *r == v.compliant {
                "the same as the pair's violating or compliant value"
            } else {
                return None;
            };
            Some(err(
                key_position(text, &["configs", name]),
                ManifestErrorKind::Relaxed {
                    config: name.clone(),
                    which,
                    value: r.clone(),
                    why,
                },
            ))
        };
        if let Some(v) = &c.static_validator {
            let which = || "static_validator".to_owned();
            if let Some(e) = same(which(), v).or_else(|| relaxed(which(), v, true)) {
                return Err(e);
            }
        }
        for (i, (level, v)) in c.mv_validators.iter().enumerate() {
            if !(min..=max).contains(level) {
                let at = key_position(text, &["configs", name, "mv_validators"]);
                return Err(out_of_range(format!("{name} mv_validators"), *level, at));
            }
            let which = || format!("mv_validators {level}");
            if let Some(e) = same(which(), v).or_else(|| relaxed(which(), v, i == 0)) {
                return Err(e);
            }
        }
    }
    Ok(m)
}

/// Where the mapping key at `path` (each key nested under the previous, block style) starts
/// in `text`: 1-based line and column, `(0, 0)` if not found. For errors found after parsing.
fn key_position(text: &str, path: &[&str]) -> (u64, u64) {
    let mut at = (0, 0);
    let mut from = 0;
    for key in path {
        let found = text.lines().enumerate().skip(from).find_map(|(i, l)| {
            let t = l.trim_start();
            let bare = t.strip_prefix(key).is_some_and(|r| r.starts_with(':'));
            let quoted = t
                .strip_prefix(&format!("\"{key}\""))
                .is_some_and(|r| r.starts_with(':'));
            (bare || quoted).then_some((i, l.len() - t.len()))
        });
        let Some((i, indent)) = found else {
            return at;
        };
        at = (i as u64 + 1, indent as u64 + 1);
        from = i + 1;
    }
    at
}

#[cfg(test)]
mod tests;
