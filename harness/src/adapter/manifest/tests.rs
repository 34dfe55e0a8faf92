//! Unit tests of loading and checking a target manifest.
use super::*;

const GOOD: &str = "software: Example 1.0
metadata_version: { min: 7, max: 33, finalized: 33 }
configs:
  log.segment.bytes:
    resource: broker
    type: INT
    static_validator: { violating: \"1048575\", compliant: \"1048576\" }
    mv_validators:
      30: { violating: \"2097151\", compliant: \"2097152\" }
";

fn parse(text: &str) -> Result<TargetManifest, ManifestError> {
    parse_manifest(text, Path::new("m.yaml"))
}

#[test]
fn a_good_manifest_loads() {
    let m = parse(GOOD).unwrap();
    assert_eq!(m.metadata_version.finalized, 33);
    let c = &m.configs["log.segment.bytes"];
    assert_eq!(c.resource, ManifestResource::Broker);
    assert_eq!(c.ty, ConfigType::Int);
    assert_eq!(c.mv_validators[&30].compliant, "2097152");
    assert_eq!(c.report_policy, ReportPolicy::Default);
    assert_eq!(m.static_config_persistence_level, None);
}

#[test]
fn an_unknown_key_is_refused_at_its_position() {
    let text = GOOD.replace(
        "    resource: broker",
        "    resource: broker\n    validator: x",
    );
    let e = parse(&text).unwrap_err();
    assert!(matches!(*e.kind, ManifestErrorKind::Yaml(_)), "{e}");
    assert_eq!((e.line, e.col), (6, 5), "{e}");
    assert!(e.to_string().starts_with("m.yaml:6:5: "), "{e}");
    assert!(e.to_string().contains("validator"), "{e}");
}

#[test]
fn a_level_outside_the_range_is_refused_at_its_config() {
    let text = GOOD.replace("30: {", "40: {");
    let e = parse(&text).unwrap_err();
    assert_eq!((e.line, e.col), (8, 5), "{e}");
    assert!(
        matches!(e.kind.as_ref(), ManifestErrorKind::LevelOutOfRange { what, level: 40, min: 7, max: 33 } if what == "log.segment.bytes mv_validators"),
        "{e}"
    );
}

#[test]
fn finalized_outside_the_range_is_refused() {
    let text = GOOD.replace("finalized: 33", "finalized: 34");
    let e = parse(&text).unwrap_err();
    assert_eq!((e.line, e.col), (2, 1), "{e}");
    assert!(matches!(
        *e.kind,
        ManifestErrorKind::Levels {
            min: 7,
            finalized: 34,
            max: 33
        }
    ));
}

#[test]
fn moves_declare_levels_and_downgrades() {
    let text = GOOD.replace(
        "finalized: 33 }",
        "finalized: 31,\n  moves: { levels: [30, 33], downgrade: safe } }",
    );
    let m = parse(&text).unwrap();
    let moves = m.metadata_version.moves.unwrap();
    assert_eq!(moves.levels, [30, 33]);
    assert_eq!(moves.downgrade, Downgrade::Safe);
    assert!(moves.downgrade.accepts(2) && !moves.downgrade.accepts(3));
    assert_eq!(moves.downgrade.upgrade_type(), Some(2));
    // Absent: no downgrade.
    let text = GOOD.replace(
        "finalized: 33 }",
        "finalized: 31, moves: { levels: [33] } }",
    );
    let moves = parse(&text).unwrap().metadata_version.moves.unwrap();
    assert_eq!(moves.downgrade, Downgrade::None);
    assert_eq!(moves.downgrade.upgrade_type(), None);
    // A level outside min..=max, an unknown key, an unknown downgrade: refused.
    let text = GOOD.replace(
        "finalized: 33 }",
        "finalized: 31, moves: { levels: [34] } }",
    );
    let e = parse(&text).unwrap_err();
    assert_eq!((e.line, e.col), (2, 1), "{e}");
    assert!(
        matches!(e.kind.as_ref(), ManifestErrorKind::LevelOutOfRange { what, level: 34, min: 7, max: 33 } if what == "metadata_version.moves"),
        "{e}"
    );
    let text = GOOD.replace(
        "finalized: 33 }",
        "finalized: 31, moves: { levels: [33], up: true } }",
    );
    let e = parse(&text).unwrap_err();
    assert!(matches!(*e.kind, ManifestErrorKind::Yaml(_)), "{e}");
    assert!(e.to_string().starts_with("m.yaml:2:"), "{e}");
    let text = GOOD.replace(
        "finalized: 33 }",
        "finalized: 31, moves: { levels: [33], downgrade: always } }",
    );
    assert!(parse(&text).is_err());
}

#[test]
fn identical_values_are_refused() {
    let text = GOOD.replace("violating: \"1048575\"", "violating: \"1048576\"");
    let e = parse(&text).unwrap_err();
    assert_eq!((e.line, e.col), (4, 3), "{e}");
    assert!(
        matches!(e.kind.as_ref(), ManifestErrorKind::SameValues { config, which, value } if config == "log.segment.bytes" && which == "static_validator" && value == "1048576"),
        "{e}"
    );
}

#[test]
fn a_relaxed_value_loads_on_a_level_above_another() {
    let text = GOOD.replace(
            "      30: { violating: \"2097151\", compliant: \"2097152\" }\n",
            "      20: { violating: \"1048575\", compliant: \"1048576\" }\n      30: { violating: \"2097151\", compliant: \"2097152\", relaxed: \"900000\" }\n",
        );
    let m = parse(&text).unwrap();
    let c = &m.configs["log.segment.bytes"];
    assert_eq!(c.mv_validators[&30].relaxed.as_deref(), Some("900000"));
    assert_eq!(c.mv_validators[&20].relaxed, None);
}

#[test]
fn a_relaxed_value_without_a_level_below_is_refused() {
    let relaxed = |from: &str, to: &str| parse(&GOOD.replace(from, to)).unwrap_err();
    // The lowest (here the only) MV level has nothing below it to relax.
    let e = relaxed(
        "compliant: \"2097152\" }",
        "compliant: \"2097152\", relaxed: \"3\" }",
    );
    assert_eq!((e.line, e.col), (4, 3), "{e}");
    assert!(
        matches!(e.kind.as_ref(), ManifestErrorKind::Relaxed { config, which, value, .. } if config == "log.segment.bytes" && which == "mv_validators 30" && value == "3"),
        "{e}"
    );
    assert_eq!(
        e.kind.to_string(),
        "log.segment.bytes: mv_validators 30 declares relaxed \"3\", but only an MV level \
             with a level below it can relax that one"
    );
    // Nor does the static validator.
    let e = relaxed(
        "compliant: \"1048576\" }",
        "compliant: \"1048576\", relaxed: \"3\" }",
    );
    assert!(
        matches!(e.kind.as_ref(), ManifestErrorKind::Relaxed { which, .. } if which == "static_validator"),
        "{e}"
    );
}

#[test]
fn the_documented_manifest_loads() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/live-targets.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let start = doc.find("```yaml\nsoftware:").unwrap() + "```yaml\n".len();
    let end = start + doc[start..].find("```").unwrap();
    let m = parse(&doc[start..end]).unwrap();
    let moves = m.metadata_version.moves.unwrap();
    assert_eq!(
        (moves.levels, moves.downgrade),
        (vec![30, 33], Downgrade::Safe)
    );
}

#[test]
fn the_shipped_kafka_manifest_loads() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../interop/manifests/kafka-4.4.0.yaml");
    let m = load_manifest(&path).unwrap();
    assert_eq!(
        m.metadata_version,
        MvLevels {
            min: 7,
            max: 33,
            finalized: 33,
            moves: None
        }
    );
    assert!(m.configs.values().all(|c| c.mv_validators.is_empty()));
    assert_eq!(m.static_config_persistence_level, None);
}
