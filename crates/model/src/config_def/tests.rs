//! Unit tests of the configuration definitions: ordinals, the older numbering, Java parsing
//! and rendering, and that every KIP default key is defined. Tests only.

use super::*;

#[test]
fn ordinals_match_configdef_type() {
    let names: Vec<_> = ConfigType::ALL
        .iter()
        .map(|t| (t.ordinal(), t.to_string()))
        .collect();
    assert_eq!(
        names,
        [
            (0, "BOOLEAN".to_string()),
            (1, "STRING".to_string()),
            (2, "INT".to_string()),
            (3, "SHORT".to_string()),
            (4, "LONG".to_string()),
            (5, "DOUBLE".to_string()),
            (6, "LIST".to_string()),
            (7, "CLASS".to_string()),
            (8, "PASSWORD".to_string())
        ]
    );
}

#[test]
fn older_enum_swaps_int_and_short_and_lacks_class_password() {
    let o = ConfigTypeNumbering::OlderKipEnum;
    assert_eq!(o.to_wire(ConfigType::Int), Some(3));
    assert_eq!(o.to_wire(ConfigType::Short), Some(2));
    assert_eq!(o.to_wire(ConfigType::Class), None);
    assert_eq!(o.from_wire(7), None);
    assert_eq!(
        ConfigTypeNumbering::ConfigDefType.from_wire(8),
        Some(ConfigType::Password)
    );
    assert_eq!(ConfigTypeNumbering::ConfigDefType.from_wire(9), None);
    assert_eq!(ConfigTypeNumbering::ConfigDefType.from_wire(-1), None);
}

#[test]
fn parse_and_convert_to_string_follow_configdef() {
    let p = |t, s| ConfigValue::parse(t, s).map(|v| v.convert_to_string());
    assert_eq!(p(ConfigType::List, " a , b,c ").unwrap(), "a,b,c");
    assert_eq!(p(ConfigType::List, "  ").unwrap(), "");
    assert_eq!(p(ConfigType::Boolean, "TRUE").unwrap(), "true");
    assert_eq!(p(ConfigType::Int, " 42 ").unwrap(), "42");
    assert_eq!(p(ConfigType::Double, "1").unwrap(), "1.0");
    assert_eq!(p(ConfigType::Double, "0.2").unwrap(), "0.2");
    assert_eq!(p(ConfigType::Double, "1e10").unwrap(), "1.0E10");
    assert_eq!(p(ConfigType::Double, "NaN").unwrap(), "NaN");
    assert_eq!(p(ConfigType::Double, "-Infinity").unwrap(), "-Infinity");
    assert_eq!(p(ConfigType::Double, "1.5d").unwrap(), "1.5");
    assert_eq!(p(ConfigType::Double, ".5").unwrap(), "0.5");
    assert_eq!(p(ConfigType::Double, "5.").unwrap(), "5.0");
    assert_eq!(p(ConfigType::Double, "2E-3F").unwrap(), "0.002");
    for bad in [
        "nan", "inf", "infinity", "", ".", "1e", "1e+", "0x1p3", "1..2", "e5", "1.5dd",
    ] {
        assert!(
            p(ConfigType::Double, bad).is_err(),
            "{bad:?} must not parse"
        );
    }
    assert!(p(ConfigType::Int, "2147483648").is_err());
    assert!(p(ConfigType::Short, "40000").is_err());
    assert!(p(ConfigType::Boolean, "yes").is_err());
    assert!(p(ConfigType::Long, "1.5").is_err());
    assert!(p(ConfigType::Double, "inf").is_err());
}

#[test]
fn every_kip_default_key_is_defined() {
    let profile = crate::profile::SpecProfile::default();
    for t in ClientType::ALL {
        let defs = client_definitions(t);
        for key in profile.default_keys.for_client(t) {
            assert!(defs.get(key).is_some(), "{t:?} {key}");
        }
    }
    assert_eq!(profile.default_keys.consumer.len(), 11);
    let share = client_definitions(ClientType::ShareConsumer);
    assert_eq!(
        share.get("share.acquire.mode").unwrap().ty,
        ConfigType::String
    );
    assert_eq!(
        client_definitions(ClientType::Producer)
            .get("key.serializer")
            .unwrap()
            .ty,
        ConfigType::Class
    );
}
