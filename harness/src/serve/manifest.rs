//! `kipcheck serve --role controller --print-manifest`: the target manifest
//! (docs/live-targets.md) that truthfully describes the served controller, generated from the
//! definitions it validates with, so it cannot drift from them. Each value pair is found by
//! trying candidate values (each validator's boundaries and allowed values, the default, a
//! few fallbacks) against the real validators: a `violating` value is one the validator
//! refuses while the static validator and every lower level's accept it, a `compliant` value
//! one every validator up to that level accepts, a `relaxed` value (a level above another)
//! one the static validator and that level's accept while the level below's refuses. Pure: definitions in, text out.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::adapter::failover::FailoverCommand;
use crate::adapter::manifest::{
    Downgrade, FeatureMoves, ManifestConfig, ManifestResource, MvLevels, MvMoves, TargetManifest,
    ValuePair,
};
use crate::model::config_def::{java_double_to_string, ConfigType, ConfigValue};
use crate::model::{ReportPolicy, ServerConfigDefs, ServerConfigKey, Validator};

use super::controller::{MAX_METADATA_VERSION, MIN_METADATA_VERSION};

/// KIP-848's `group.version` feature.
const GROUP_VERSION: &str = "group.version";

/// What the manifest says besides the configs.
#[derive(Clone, Debug)]
pub struct ManifestFacts {
    /// `software`.
    pub software: String,
    /// The finalized (bootstrap) level.
    pub finalized: i16,
    /// The profile's KIP-1326 persistence level.
    pub persistence_level: i16,
    /// The cluster id.
    pub cluster_id: String,
    /// The controller's node id.
    pub node_id: i32,
    /// How kipcheck makes it fail over (known only to the serving process: its pid).
    pub failover: Option<FailoverCommand>,
}

/// The manifest of a controller serving `defs`. A name both resources define is declared
/// once, as its topic config (a manifest's configs are keyed by name).
pub fn served_manifest(defs: &ServerConfigDefs, facts: &ManifestFacts) -> TargetManifest {
    let mut configs = BTreeMap::new();
    for (resource, map) in [
        (ManifestResource::Broker, &defs.broker),
        (ManifestResource::Topic, &defs.topic),
    ] {
        for (name, key) in map {
            configs.insert(name.clone(), config(name, key, resource));
        }
    }
    let persistence = Some(facts.persistence_level)
        .filter(|l| (MIN_METADATA_VERSION..=MAX_METADATA_VERSION).contains(l));
    TargetManifest {
        software: facts.software.clone(),
        metadata_version: MvLevels {
            min: MIN_METADATA_VERSION,
            max: MAX_METADATA_VERSION,
            finalized: facts.finalized,
            // The reference accepts every level of its range, and downgrades of either type.
            moves: Some(MvMoves {
                levels: (MIN_METADATA_VERSION..=MAX_METADATA_VERSION)
                    .filter(|l| *l != facts.finalized)
                    .collect(),
                downgrade: Downgrade::Unsafe,
            }),
        },
        static_config_persistence_level: persistence,
        cluster_id: Some(facts.cluster_id.clone()),
        node_id: Some(facts.node_id),
        failover: facts.failover.clone(),
        // The reference controller moves any feature between any levels; group.version (KIP-848)
        // is the one a scenario moves, from not finalized (0) to 1 and back.
        features: [(
            GROUP_VERSION.to_owned(),
            FeatureMoves {
                finalized: 0,
                levels: vec![1],
                downgrade: Downgrade::Unsafe,
            },
        )]
        .into(),
        configs,
    }
}

fn config(name: &str, key: &ServerConfigKey, resource: ManifestResource) -> ManifestConfig {
    let cands = candidates(key);
    let accepts = |v: &Validator, c: &ConfigValue| v.ensure_valid(name, c).is_ok();
    let passes_static = |c: &ConfigValue| key.validator.as_ref().is_none_or(|v| accepts(v, c));
    let levels: Vec<(i16, &Validator)> = key.mv_validators.0.iter().map(|(l, v)| (*l, v)).collect();
    let all_mv = |c: &ConfigValue| levels.iter().all(|(_, v)| accepts(v, c));
    let static_validator = key.validator.as_ref().and_then(|v| {
        // Numbers ascend: the largest refused is the boundary. Words: the first refused.
        let refused = |(_, c): &&(String, ConfigValue)| !accepts(v, c);
        let violating = if numeric(key.ty) {
            cands.iter().rev().find(refused)?
        } else {
            cands.iter().find(refused)?
        };
        let compliant = cands
            .iter()
            .find(|(_, c)| accepts(v, c) && all_mv(c))
            .or_else(|| cands.iter().find(|(_, c)| accepts(v, c)))?;
        Some(pair(&violating.0, &compliant.0))
    });
    let mut mv_validators = BTreeMap::new();
    for (i, (level, v)) in levels.iter().enumerate() {
        let lower = &levels[..i];
        let below_ok =
            |c: &ConfigValue| passes_static(c) && lower.iter().all(|(_, w)| accepts(w, c));
        // Numbers: the largest refused (the boundary). Lists: the longest refused, which holds
        // the default, so an APPEND to the default can reach it. Words: the last refused.
        let refused_here = |(_, c): &&(String, ConfigValue)| below_ok(c) && !accepts(v, c);
        let violating = if key.ty == ConfigType::List {
            cands.iter().find(refused_here)
        } else {
            cands.iter().rev().find(refused_here)
        };
        let compliant = cands.iter().find(|(_, c)| below_ok(c) && accepts(v, c));
        // A level that relaxes the one below: a value it accepts and that one refuses.
        let relaxed = i.checked_sub(1).and_then(|j| {
            let (_, prev) = levels[j];
            cands
                .iter()
                .find(|(_, c)| passes_static(c) && accepts(v, c) && !accepts(prev, c))
        });
        if let (Some(bad), Some(good)) = (violating, compliant) {
            let mut p = pair(&bad.0, &good.0);
            p.relaxed = relaxed.map(|r| r.0.clone());
            mv_validators.insert(*level, p);
        }
    }
    ManifestConfig {
        resource,
        ty: key.ty,
        static_validator,
        mv_validators,
        report_policy: key.report_policy,
        default: key.default.clone(),
    }
}

fn pair(violating: &str, compliant: &str) -> ValuePair {
    ValuePair {
        violating: violating.to_owned(),
        compliant: compliant.to_owned(),
        relaxed: None,
    }
}

/// Candidate values for `key` that parse as its type, with their parsed form: numbers
/// ascending (so the largest refused and the smallest accepted are the boundaries), other
/// types in a fixed order (longest lists first).
fn candidates(key: &ServerConfigKey) -> Vec<(String, ConfigValue)> {
    let validators: Vec<&Validator> = key
        .validator
        .iter()
        .chain(key.mv_validators.0.values())
        .collect();
    let mut texts: Vec<String> = Vec::new();
    if numeric(key.ty) {
        let mut nums: Vec<f64> = vec![-1.0, 0.0, 1.0];
        for v in &validators {
            let bounds: &[f64] = match v {
                Validator::AtLeast(a) => &[*a][..],
                Validator::Between(a, b) => &[*a, *b][..],
                _ => &[],
            };
            for b in bounds {
                nums.extend([b - 1.0, *b, b + 1.0]);
            }
        }
        nums.sort_by(f64::total_cmp);
        nums.dedup();
        for n in nums {
            texts.push(match key.ty {
                ConfigType::Double => java_double_to_string(n),
                _ => format!("{}", n as i64),
            });
        }
    } else {
        let mut words: Vec<String> = key.default.iter().cloned().collect();
        for v in &validators {
            match v {
                Validator::ValidString(w) | Validator::CaseInsensitiveValidString(w) => {
                    words.extend(w.iter().cloned())
                }
                Validator::ValidList { valid, .. } => {
                    let defaults = key.default.iter().flat_map(|d| d.split(','));
                    let mut all: Vec<String> = Vec::new();
                    for w in defaults
                        .map(str::trim)
                        .map(String::from)
                        .chain(valid.iter().cloned())
                    {
                        if !w.is_empty() && !all.contains(&w) {
                            all.push(w);
                        }
                    }
                    words.push(all.join(","));
                    words.extend(valid.iter().cloned());
                }
                _ => {}
            }
        }
        if key.ty == ConfigType::List {
            words.sort_by_key(|w| std::cmp::Reverse(w.matches(',').count()));
        }
        words.extend(["bogus", "/tmp/kafka-logs", "true", "false", ""].map(String::from));
        let mut seen = std::collections::BTreeSet::new();
        texts = words
            .into_iter()
            .filter(|w| seen.insert(w.clone()))
            .collect();
    }
    texts
        .into_iter()
        .filter_map(|t| ConfigValue::parse(key.ty, &t).ok().map(|c| (t, c)))
        .collect()
}

fn numeric(ty: ConfigType) -> bool {
    matches!(
        ty,
        ConfigType::Int | ConfigType::Short | ConfigType::Long | ConfigType::Double
    )
}

/// The manifest as YAML, in the layout docs/live-targets.md shows (values double-quoted).
pub fn render_manifest(m: &TargetManifest) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let pair = |p: &ValuePair| {
        let relaxed = p
            .relaxed
            .as_ref()
            .map_or(String::new(), |r| format!(", relaxed: {}", q(r)));
        format!(
            "{{ violating: {}, compliant: {}{relaxed} }}",
            q(&p.violating),
            q(&p.compliant)
        )
    };
    let mut out = String::new();
    let _ = writeln!(out, "software: {}", q(&m.software));
    let mv = &m.metadata_version;
    let moves = mv.moves.as_ref().map_or(String::new(), |mo| {
        let levels: Vec<String> = mo.levels.iter().map(i16::to_string).collect();
        format!(
            ", moves: {{ levels: [{}], downgrade: {} }}",
            levels.join(", "),
            downgrade_name(mo.downgrade)
        )
    });
    let _ = writeln!(
        out,
        "metadata_version: {{ min: {}, max: {}, finalized: {}{moves} }}",
        mv.min, mv.max, mv.finalized
    );
    if let Some(l) = m.static_config_persistence_level {
        let _ = writeln!(out, "static_config_persistence_level: {l}");
    }
    if let Some(id) = &m.cluster_id {
        let _ = writeln!(out, "cluster_id: {}", q(id));
    }
    if let Some(n) = m.node_id {
        let _ = writeln!(out, "node_id: {n}");
    }
    if let Some(f) = &m.failover {
        let _ = writeln!(
            out,
            "failover: {{ command: {}, timeout_ms: {}, ready_timeout_ms: {} }}",
            q(&f.command),
            f.timeout_ms,
            f.ready_timeout_ms
        );
    }
    if !m.features.is_empty() {
        out.push_str("features:\n");
        for (name, f) in &m.features {
            let levels: Vec<String> = f.levels.iter().map(i16::to_string).collect();
            let _ = writeln!(
                out,
                "  {}: {{ finalized: {}, levels: [{}], downgrade: {} }}",
                q(name),
                f.finalized,
                levels.join(", "),
                downgrade_name(f.downgrade)
            );
        }
    }
    out.push_str("configs:\n");
    for (name, c) in &m.configs {
        let _ = writeln!(out, "  {}:", q(name));
        let resource = match c.resource {
            ManifestResource::Broker => "broker",
            ManifestResource::Topic => "topic",
        };
        let _ = writeln!(out, "    resource: {resource}");
        let _ = writeln!(out, "    type: {}", type_name(c.ty));
        if let Some(d) = &c.default {
            let _ = writeln!(out, "    default: {}", q(d));
        }
        if let Some(p) = &c.static_validator {
            let _ = writeln!(out, "    static_validator: {}", pair(p));
        }
        if !c.mv_validators.is_empty() {
            out.push_str("    mv_validators:\n");
            for (l, p) in &c.mv_validators {
                let _ = writeln!(out, "      {l}: {}", pair(p));
            }
        }
        if c.report_policy == ReportPolicy::Never {
            out.push_str("    report_policy: NEVER\n");
        }
    }
    out
}

fn downgrade_name(d: Downgrade) -> &'static str {
    match d {
        Downgrade::None => "none",
        Downgrade::Safe => "safe",
        Downgrade::Unsafe => "unsafe",
    }
}

fn type_name(ty: ConfigType) -> String {
    serde_json::to_value(ty)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::adapter::manifest::parse_manifest;
    use crate::serve::definitions::served_definitions;

    fn facts() -> ManifestFacts {
        ManifestFacts {
            software: "kipcheck reference controller".into(),
            finalized: 30,
            persistence_level: 35,
            cluster_id: "kipcheck-cluster".into(),
            node_id: 1,
            failover: Some(FailoverCommand {
                command: "kill -HUP 4242".into(),
                timeout_ms: 10_000,
                ready_timeout_ms: 5_000,
            }),
        }
    }

    #[test]
    fn every_validator_gets_its_pairs_and_the_text_parses_back() {
        let defs = served_definitions();
        let m = served_manifest(&defs, &facts());
        for (name, c) in &m.configs {
            let key = defs.topic.get(name).or(defs.broker.get(name)).unwrap();
            assert_eq!(
                c.static_validator.is_some(),
                key.validator.is_some(),
                "{name}"
            );
            assert_eq!(c.mv_validators.len(), key.mv_validators.0.len(), "{name}");
        }
        let text = render_manifest(&m);
        let back = parse_manifest(&text, Path::new("served.yaml")).unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn pairs_are_the_boundaries() {
        let m = served_manifest(&served_definitions(), &facts());
        let lsb = &m.configs["log.segment.bytes"];
        // The static pair's compliant value passes every MV validator too.
        assert_eq!(lsb.static_validator, Some(pair("1048575", "16777216")));
        assert_eq!(lsb.mv_validators[&10], pair("2097151", "2097152"));
        assert_eq!(lsb.mv_validators[&50], pair("16777215", "16777216"));
        let cp = &m.configs["cleanup.policy"];
        assert_eq!(cp.mv_validators[&30], pair("", "delete,compact"));
        assert_eq!(cp.mv_validators[&45], pair("delete,compact", "delete"));
        let ct = &m.configs["compression.type"];
        assert_eq!(ct.resource, ManifestResource::Topic);
        assert_eq!(ct.mv_validators[&10], pair("uncompressed", "producer"));
        assert_eq!(m.configs["log.dirs"].mv_validators[&30].violating, "");
    }

    #[test]
    fn a_level_relaxing_the_one_below_gets_a_relaxed_value_and_no_other_does() {
        let m = served_manifest(&served_definitions(), &facts());
        for name in ["segment.index.bytes", "log.index.size.max.bytes"] {
            let c = &m.configs[name];
            // Level 10 allows 1-12 MiB, level 30 8-64 MiB: 12 MiB + 1 only from 30 on.
            assert_eq!(c.mv_validators[&10], pair("67108865", "1048576"), "{name}");
            let mut at30 = pair("8388607", "8388608");
            at30.relaxed = Some("12582913".into());
            assert_eq!(c.mv_validators[&30], at30, "{name}");
        }
        let relaxed: Vec<&str> = m
            .configs
            .iter()
            .filter(|(_, c)| c.mv_validators.values().any(|p| p.relaxed.is_some()))
            .map(|(n, _)| n.as_str())
            .collect();
        assert_eq!(relaxed, ["log.index.size.max.bytes", "segment.index.bytes"]);
    }
}
