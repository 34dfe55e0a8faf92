//! Staleness guard for the generated codec: a fresh generation from `harness/messages/`
//! must equal the checked-in `crates/codec/src/generated/` (and the kafka-protocol oracle's
//! `harness/src/oracle/kafka_protocol/generated.rs`) byte for byte. Also checks that
//! the KIP-1326 spec files supersede their upstream originals and agree with them on every
//! version the upstream files define.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kipcheck_codegen::model::{resolve, Message};
use kipcheck_codegen::spec::parse;

fn harness() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn messages_dir() -> PathBuf {
    harness().join("messages")
}

/// The checked-in generated files, by file name.
fn checked_in() -> BTreeMap<String, String> {
    let dir = harness().join("..").join(kipcheck_codegen::CODEC_OUTPUT);
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("generated dir") {
        let entry = entry.expect("dir entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".rs") {
            let text = std::fs::read_to_string(entry.path()).expect("readable");
            out.insert(name, text);
        }
    }
    out
}

const FIX: &str =
    "the checked-in generated code is stale: run `cargo run -p kipcheck-codegen` and \
                   commit what it writes";

/// Fails unless `fresh` and `checked_in` hold the same files with identical contents.
fn assert_same(fresh: &BTreeMap<String, String>, checked_in: &BTreeMap<String, String>) {
    let fresh_names: Vec<&String> = fresh.keys().collect();
    let checked_names: Vec<&String> = checked_in.keys().collect();
    assert_eq!(
        checked_names, fresh_names,
        "file sets differ (left: checked in, right: generated); {FIX}"
    );
    let stale: Vec<String> = fresh
        .iter()
        .filter(|(name, text)| checked_in.get(*name) != Some(*text))
        .map(|(name, text)| {
            let old = &checked_in[name];
            let line = old
                .lines()
                .zip(text.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| old.lines().count().min(text.lines().count()))
                + 1;
            format!("{name} (first difference at line {line})")
        })
        .collect();
    assert!(
        stale.is_empty(),
        "{FIX}; differing files: {}",
        stale.join(", ")
    );
}

/// The exact check: what the generator writes is what is checked in (rustfmt skips the
/// generated module, so the two stay byte-identical).
#[test]
fn generated_code_is_up_to_date() {
    let fresh = kipcheck_codegen::generate(&messages_dir()).expect("generation succeeds");
    assert_same(&fresh, &checked_in());
}

/// The same for the kafka-protocol oracle's generated field mappings.
#[test]
fn kafka_protocol_pairs_are_up_to_date() {
    let fresh = kipcheck_codegen::generate_kafka_protocol_pairs(&messages_dir())
        .expect("generation succeeds");
    let path = harness().join(kipcheck_codegen::kafka_protocol::OUTPUT);
    let checked_in = std::fs::read_to_string(&path).expect("checked in");
    let name = kipcheck_codegen::kafka_protocol::OUTPUT.to_owned();
    assert_same(
        &BTreeMap::from([(name.clone(), fresh)]),
        &BTreeMap::from([(name, checked_in)]),
    );
}

#[test]
fn kip_files_supersede_the_upstream_ones() {
    let files = kipcheck_codegen::spec_files(&messages_dir()).expect("spec files");
    for kip in [
        "BrokerRegistrationRequest.kip1326.json",
        "BrokerRegistrationResponse.kip1326.json",
        "RegisterBrokerRecord.kip1326.json",
    ] {
        assert!(
            files.iter().any(|f| f == kip),
            "{kip} missing from {files:?}"
        );
        let upstream = kip.replace(".kip1326.json", ".json");
        assert!(
            messages_dir().join(&upstream).is_file(),
            "{upstream} should stay in messages/ as the upstream reference"
        );
        assert!(
            !files.contains(&upstream),
            "{upstream} is superseded by {kip} but still listed"
        );
    }
    // Every other JSON file is listed, sorted.
    let mut expected: Vec<String> = std::fs::read_dir(messages_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .filter(|n| {
            !matches!(
                n.as_str(),
                "BrokerRegistrationRequest.json"
                    | "BrokerRegistrationResponse.json"
                    | "RegisterBrokerRecord.json"
            )
        })
        .collect();
    expected.sort();
    assert_eq!(files, expected);
}

#[test]
fn spec_files_rule_in_a_scratch_directory() {
    let dir = std::env::temp_dir().join(format!("kipcheck-codec-fresh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in [
        "B.json",
        "A.kip1326.json",
        "A.json",
        "C.kip1326.json",
        "notes.md",
    ] {
        std::fs::write(dir.join(name), "{}").unwrap();
    }
    let files = kipcheck_codegen::spec_files(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        files.unwrap(),
        vec!["A.kip1326.json", "B.json", "C.kip1326.json"]
    );
}

fn load(file: &str) -> Message {
    let text = std::fs::read_to_string(messages_dir().join(file)).expect("readable");
    let spec = parse(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    resolve(&spec, file).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// Everything about a message at one version that affects the wire or the generated
/// types, in a comparable form: per struct used in `v`, its fields present in `v`.
fn wire_view(m: &Message, v: i16) -> Vec<String> {
    let mut out = vec![format!(
        "{} kind={:?} key={:?} valid={} flexible={}",
        m.name,
        m.kind,
        m.api_key,
        m.valid.contains(v),
        m.flexible.contains(v)
    )];
    for s in m.structs.iter().filter(|s| s.context.contains(v)) {
        out.push(format!("struct {}", s.name));
        for f in s.fields.iter().filter(|f| f.versions.contains(v)) {
            let tagged = f.tagged.contains(v);
            out.push(format!(
                "  {} ({}) ty={:?} tagged={} tag={:?} nullable={} flexible={} default={:?} \
                 ignorable={}",
                f.name,
                f.ident,
                f.ty,
                tagged,
                f.tag.filter(|_| tagged),
                f.nullable.contains(v),
                f.flexible.contains(v),
                f.default,
                f.ignorable,
            ));
        }
    }
    out
}

#[test]
fn kip_files_agree_with_upstream_on_upstream_versions() {
    for (stem, last_upstream) in [
        ("BrokerRegistrationRequest", 5),
        ("BrokerRegistrationResponse", 5),
        ("RegisterBrokerRecord", 4),
    ] {
        let upstream = load(&format!("{stem}.json"));
        let kip = load(&format!("{stem}.kip1326.json"));
        assert_eq!(upstream.valid.hi, last_upstream, "{stem}: upstream range");
        assert_eq!(
            kip.valid.hi,
            last_upstream + 1,
            "{stem}: KIP adds one version"
        );
        assert_eq!(upstream.valid.lo, kip.valid.lo, "{stem}");
        for v in upstream.valid.lo..=last_upstream {
            assert_eq!(
                wire_view(&upstream, v),
                wire_view(&kip, v),
                "{stem} v{v}: the KIP file changes an upstream version"
            );
        }
        // And the new version does differ (otherwise the KIP file would be pointless),
        // except for the response, whose v6 only signals the request change.
        let new = last_upstream + 1;
        if stem != "BrokerRegistrationResponse" {
            let fields_now: Vec<String> = wire_view(&kip, new);
            let fields_before: Vec<String> = wire_view(&kip, last_upstream);
            assert_ne!(fields_now[1..], fields_before[1..], "{stem} v{new}");
            assert!(
                fields_now.iter().any(|l| l.contains("StaticConfigs")),
                "{stem} v{new} has StaticConfigs"
            );
        }
    }
}

#[test]
fn messages_dir_is_where_the_generator_reads() {
    assert!(Path::new(&messages_dir()).join("README.md").is_file());
}
