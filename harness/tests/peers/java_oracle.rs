//! Kafka's own codec (kafka-clients / kafka-metadata 4.4.0, `interop/java-codec/`) as a
//! differential oracle: every (message, version) both codecs know, on generated valid
//! messages and on the replayed fuzz corpus. Builds nothing: the jar comes from
//! `KIPCHECK_JAVA_CODEC_JAR` (set by `.ci/run`); without it the test says "skipped" and
//! passes, unless `KIPCHECK_REQUIRE_PEERS=1`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use kipcheck::oracle::{
    compare, corpus_inputs, generated_inputs, JavaCodec, Kind, Pair, BYTES_FIELDS,
    JAVA_CODEC_JAR_ENV, LOWER_CASE_NAMES, RANDOM_PER_VERSION,
};

/// The seed of the generated values.
const SEED: u64 = 0x6f72_6163_6c65;

/// Every (message, versions) both codecs know, so coverage cannot silently shrink: Kafka
/// 4.4.0 has ApiVersions v0-5 (we: v0-4), Metadata v0-13 (we: v4-13), BrokerRegistration
/// v0-4 (we: v0-6, v5 CordonedLogDirs from trunk, v6 KIP-1326), RegisterBrokerRecord v0-4
/// (we: v0-5, KIP-1326), and no PushConfig. Listed in API-key order, as the pairs come.
const EXPECTED: &[(&str, i16, i16)] = &[
    ("MetadataRequest", 0, 13),
    ("SaslHandshakeRequest", 0, 1),
    ("ApiVersionsRequest", 0, 5),
    ("CreateTopicsRequest", 2, 7),
    ("DeleteTopicsRequest", 1, 6),
    ("DescribeConfigsRequest", 1, 4),
    ("AlterConfigsRequest", 0, 2),
    ("SaslAuthenticateRequest", 0, 2),
    ("IncrementalAlterConfigsRequest", 0, 1),
    ("UpdateFeaturesRequest", 0, 2),
    ("EnvelopeRequest", 0, 0),
    ("DescribeClusterRequest", 0, 2),
    ("BrokerRegistrationRequest", 0, 4),
    ("UnregisterBrokerRequest", 0, 0),
    ("GetTelemetrySubscriptionsRequest", 0, 0),
    ("PushTelemetryRequest", 0, 0),
    ("MetadataResponse", 0, 13),
    ("SaslHandshakeResponse", 0, 1),
    ("ApiVersionsResponse", 0, 5),
    ("CreateTopicsResponse", 2, 7),
    ("DeleteTopicsResponse", 1, 6),
    ("DescribeConfigsResponse", 1, 4),
    ("AlterConfigsResponse", 0, 2),
    ("SaslAuthenticateResponse", 0, 2),
    ("IncrementalAlterConfigsResponse", 0, 1),
    ("UpdateFeaturesResponse", 0, 2),
    ("EnvelopeResponse", 0, 0),
    ("DescribeClusterResponse", 0, 2),
    ("BrokerRegistrationResponse", 0, 4),
    ("UnregisterBrokerResponse", 0, 0),
    ("GetTelemetrySubscriptionsResponse", 0, 0),
    ("PushTelemetryResponse", 0, 0),
    ("RegisterBrokerRecord", 0, 4),
    ("UnregisterBrokerRecord", 0, 0),
    ("TopicRecord", 0, 0),
    ("ConfigRecord", 0, 0),
    ("RemoveTopicRecord", 0, 0),
    ("FeatureLevelRecord", 0, 0),
];

/// The number of (message, version) pairs in [`EXPECTED`].
const EXPECTED_PAIRS: usize = 132;

fn jar() -> Option<PathBuf> {
    match std::env::var_os(JAVA_CODEC_JAR_ENV) {
        Some(j) => Some(PathBuf::from(j)),
        None => {
            assert!(
                std::env::var("KIPCHECK_REQUIRE_PEERS").as_deref() != Ok("1"),
                "KIPCHECK_REQUIRE_PEERS=1 but {JAVA_CODEC_JAR_ENV} is not set"
            );
            println!(
                "skipped: {JAVA_CODEC_JAR_ENV} is not set (mvn -q -B -f interop/java-codec/pom.xml package)"
            );
            None
        }
    }
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

#[test]
fn kafka_codec_agrees_with_ours() {
    let Some(jar) = jar() else { return };
    let mut java = JavaCodec::spawn(&jar, Duration::from_secs(300)).expect("the JVM starts");
    let pairs = Pair::shared(&mut java).expect("versions");
    let expected: Vec<(String, i16)> = EXPECTED
        .iter()
        .flat_map(|(m, lo, hi)| (*lo..=*hi).map(move |v| (m.to_string(), v)))
        .collect();
    let shared: Vec<(String, i16)> = pairs
        .iter()
        .map(|p| (p.message.to_string(), p.version))
        .collect();
    assert_eq!(
        shared, expected,
        "the (message, version) pairs both codecs know"
    );
    assert_eq!(expected.len(), EXPECTED_PAIRS);
    let mut inputs = generated_inputs(&pairs, SEED);
    let generated = inputs.len();
    inputs.extend(corpus_inputs(&repo().join("corpus"), &pairs).expect("corpus"));
    let report = compare(&mut java, &pairs, &inputs).expect("the oracle runs");
    println!(
        "pairs {} (compared {}), inputs {} ({generated} generated, {RANDOM_PER_VERSION} random per version), both accepted {}, both rejected {}, known differences {:?}",
        pairs.len(),
        report.compared.len(),
        report.inputs,
        report.both_accepted,
        report.both_rejected,
        report.known_counts()
    );
    let mut kinds = std::collections::BTreeMap::new();
    for d in report.unexplained() {
        let sig: String = format!("{} [{}] {}", d.pair.message, d.category, d.what)
            .chars()
            .map(|c| if c.is_ascii_digit() { 'N' } else { c })
            .take(160)
            .collect();
        kinds.entry(sig).or_insert_with(|| d.to_string());
    }
    for (sig, example) in &kinds {
        println!("{sig}\n  e.g. {example}\n");
    }
    assert_eq!(
        report.unexplained().count(),
        0,
        "unexplained disagreements with Kafka's codec"
    );
    assert_eq!(
        report.compared.len(),
        pairs.len(),
        "every shared pair compared"
    );
    assert_eq!(pairs.len(), EXPECTED_PAIRS);
}

/// `BYTES_FIELDS` (the only values whose JSON differs: base64 in Kafka's, hex in ours) lists
/// exactly the bytes fields of our message definitions, `LOWER_CASE_NAMES` exactly the field
/// names spelled in lower case (kept as they are when mapping Kafka's names); and none has a `float64` or
/// `records` field, whose JSON the normalisation does not handle (Jackson's `NaN`, Kafka's
/// records printed as empty). Runs without the jar.
#[test]
fn bytes_fields_table_matches_the_definitions() {
    use kipcheck_codegen::model::Ty;
    fn base(t: &Ty) -> &Ty {
        match t {
            Ty::Array(inner) => base(inner),
            t => t,
        }
    }
    let messages = kipcheck_codegen::load(&repo().join("harness/messages")).expect("specs load");
    let mut found = Vec::new();
    let mut lower = std::collections::BTreeSet::new();
    for m in messages
        .iter()
        .filter(|m| !kipcheck::oracle::java::NOT_COMPARED.contains(&m.name.as_str()))
    {
        for s in &m.structs {
            for f in &s.fields {
                if f.name.starts_with(|c: char| c.is_ascii_lowercase()) {
                    lower.insert((m.name.clone(), f.name.clone()));
                }
                match base(&f.ty) {
                    Ty::Bytes => found.push((m.name.clone(), f.name.clone())),
                    Ty::F64 | Ty::Records => {
                        panic!("{}.{}: normalise float64/records first", m.name, f.name)
                    }
                    _ => {}
                }
            }
        }
    }
    let table: Vec<(String, String)> = BYTES_FIELDS
        .iter()
        .map(|(m, f)| (m.to_string(), f.to_string()))
        .collect();
    assert_eq!(found, table);
    let lower: Vec<(String, String)> = lower.into_iter().collect();
    let table: Vec<(String, String)> = LOWER_CASE_NAMES
        .iter()
        .map(|(m, f)| (m.to_string(), f.to_string()))
        .collect();
    assert_eq!(
        lower, table,
        "names spelled in lower case in the definitions"
    );
}

/// Each documented difference, pinned on one hand-written input: exactly that difference and
/// nothing else.
#[test]
fn known_differences_are_exactly_these() {
    use kipcheck::oracle::{Input, InputSource, KnownDifference as K};
    let Some(jar) = jar() else { return };
    let mut java = JavaCodec::spawn(&jar, Duration::from_secs(120)).expect("the JVM starts");
    let pairs = Pair::shared(&mut java).expect("versions");
    let input = |kind, api_key, version, hex: &str| Input {
        kind,
        api_key,
        version,
        bytes: kipcheck::codec::from_hex(hex).unwrap(),
        source: InputSource::Default,
    };
    let cases = [
        // ApiVersionsRequest v3, ClientSoftwareName "a\xff": Kafka reads "a\u{fffd}".
        (
            input(Kind::Request, 18, 3, "0361ff023100"),
            vec![(K::KafkaAcceptsInvalidUtf8, "accept/reject")],
        ),
        // ApiVersionsRequest v3 with unknown tags 5 then 1 (both empty): Kafka reads them in
        // wire order and cannot write them again; we write them as 1, 5.
        (
            input(Kind::Request, 18, 3, "026102310205000100"),
            vec![(K::UnknownTagsOutOfOrder, "re-encoding")],
        ),
        // The same with one tag 2^31: Kafka reads it as a negative int (as kafka-protocol).
        (
            input(Kind::Request, 18, 3, "0261023101808080800800"),
            vec![(K::TagAboveI32Max, "re-encoding")],
        ),
        // RegisterBrokerRecord v4 default: CordonedLogDirs [] is written by Kafka (default null).
        (
            input(
                Kind::Record,
                0,
                4,
                "0000000000000000000000000000000000000000000000000000000000010101010000",
            ),
            vec![(K::CordonedLogDirsDefaultNull, "encode")],
        ),
    ];
    for (input, expected) in cases {
        let report = compare(&mut java, &pairs, std::slice::from_ref(&input)).expect("runs");
        let got: Vec<(K, &str)> = report
            .disagreements
            .iter()
            .map(|d| {
                (
                    d.known.unwrap_or_else(|| panic!("unexplained: {d}")),
                    d.category,
                )
            })
            .collect();
        assert_eq!(got, expected, "{input:?}");
    }
}

/// `kipcheck oracle --jar` (defaults and the corpus; the binary is built without the
/// `arbitrary` feature) agrees and says so.
#[test]
fn oracle_command_reports_no_unexplained_disagreement() {
    let Some(jar) = jar() else { return };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kipcheck"))
        .current_dir(repo())
        .arg("oracle")
        .arg("--jar")
        .arg(&jar)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with(&format!(
            "{EXPECTED_PAIRS} (message, version) pairs shared with Kafka's codec, {EXPECTED_PAIRS} compared\n"
        )),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("\n0 unexplained disagreement(s)\n"),
        "{stdout}"
    );
}
