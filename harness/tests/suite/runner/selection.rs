//! Partitions and filters, redaction, the whole suite, the Rust builder, encoded sizes and node
//! lists.

use super::*;

#[test]
fn partitions_are_stable_disjoint_and_complete() {
    let files: Vec<(String, String)> = (0..20)
        .map(|i| (format!("s{i:02}"), PASSING.to_string()))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let all = scenarios("partitions", &refs);
    for kind in ["hash", "count"] {
        let mut seen = Vec::new();
        for m in 1..=3 {
            let p: Partition = format!("{kind}:{m}/3").parse().unwrap();
            let part = select(all.clone(), &Filters::default(), Some(p));
            if kind == "count" {
                assert!((6..=7).contains(&part.len()), "count shards are balanced");
            }
            seen.extend(part.into_iter().map(|s| s.file.id));
        }
        seen.sort();
        let ids: Vec<String> = all.iter().map(|s| s.file.id.clone()).collect();
        assert_eq!(seen, ids, "{kind}: every scenario in exactly one shard");
    }
    // The hash is FNV-1a 64 of the id, documented and fixed.
    assert_eq!(kipcheck::runner::fnv1a64(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(kipcheck::runner::fnv1a64("a"), 0xaf63_dc4c_8601_ec8c);
    let hash1: Vec<String> = select(all, &Filters::default(), Some("hash:1/3".parse().unwrap()))
        .into_iter()
        .map(|s| s.file.id)
        .collect();
    let expected: Vec<String> = (0..20)
        .map(|i| format!("s{i:02}"))
        .filter(|id| kipcheck::runner::fnv1a64(id).is_multiple_of(3))
        .collect();
    assert_eq!(hash1, expected);
    assert!("hash:0/3".parse::<Partition>().is_err());
    assert!("hash:4/3".parse::<Partition>().is_err());
    assert!("mod:1/3".parse::<Partition>().is_err());
}

#[test]
fn filters_by_glob_kip_tag_and_grade() {
    let tagged = PASSING.replace("roles: [broker]", "roles: [broker]\ntags: [boundary]");
    let should = PASSING
        .replace("grade: MUST", "grade: SHOULD")
        .replace("KIP-1324", "KIP-1326");
    let all = scenarios(
        "filters",
        &[("size-a", &tagged), ("size-b", PASSING), ("other", &should)],
    );
    let ids = |f: Filters| -> Vec<String> {
        select(all.clone(), &f, None)
            .into_iter()
            .map(|s| s.file.id)
            .collect()
    };
    assert_eq!(
        ids(Filters {
            ids: vec!["size-*".into()],
            ..Default::default()
        }),
        ["size-a", "size-b"]
    );
    assert_eq!(
        ids(Filters {
            kips: vec!["1326".into()],
            ..Default::default()
        }),
        ["other"]
    );
    assert_eq!(
        ids(Filters {
            tags: vec!["boundary".into()],
            ..Default::default()
        }),
        ["size-a"]
    );
    assert_eq!(
        ids(Filters {
            grade: Some(kipcheck::runner::Grade::Should),
            ..Default::default()
        }),
        ["other"]
    );
}

#[tokio::test]
async fn secrets_never_appear_in_failures() {
    let secret = "hunter2-very-secret";
    let body = format!(
        "title: leaks?
kip: KIP-1324
grade: MUST
roles: [broker]
setup: {{ broker: {{ server_properties: {{ ssl.keystore.password: {secret} }} }} }}
steps:
  - send: {{ api: PushConfig, version: 0, body: {{ Configs: [ {{ ConfigKey: x, ConfigValue: {secret}, ConfigType: 1, IsDefault: false }} ] }} }}
  - expect_response: {{ body: {{ ErrorCode: INVALID_CONFIG, ErrorMessage: {secret} }} }}
"
    );
    let s = scenarios("redaction", &[("r1", &body)]);
    let (results, _, events) = run(Arc::new(ReferenceTarget), s, &options(1)).await;
    assert_eq!(results[0].verdict, Verdict::Failed);
    let all = serde_json::to_string(&events).unwrap();
    assert!(!all.contains(secret), "secret leaked: {all}");
    assert!(all.contains("<redacted:"), "{all}");
}

#[tokio::test]
async fn the_whole_suite_passes_against_the_reference() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let all = load_dir(&root).unwrap_or_else(|errs| {
        panic!(
            "{}",
            errs.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    let n = all.len();
    let (results, summary, _) = run(Arc::new(ReferenceTarget), all, &options(0x6b69_7063)).await;
    let bad: Vec<String> = results
        .iter()
        .filter(|r| r.verdict != Verdict::Passed)
        .map(|r| {
            format!(
                "{} {:?}: {:?}",
                r.id,
                r.verdict,
                r.failure.as_ref().map(|f| &f.message)
            )
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} of {n} did not pass:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert_eq!(summary.passed, n);
}

#[tokio::test]
async fn the_rust_builder_speaks_the_same_vocabulary_as_yaml() {
    use kipcheck::scenario::ScenarioBuilder;
    use serde_json::json;
    let b = ScenarioBuilder::new("built", "ApiVersions from Rust", "KIP-1324")
        .role(Role::Broker)
        .tag("builder")
        .send(
            "ApiVersions",
            3,
            json!({"ClientSoftwareName": "k", "ClientSoftwareVersion": "1"}),
        )
        .expect_response(
            json!({"ErrorCode": "NONE", "ApiKeys": {"$contains": [{"ApiKey": "PushConfig"}]}}),
        );
    // The YAML it renders is a valid scenario file that loads to the same steps.
    let root = dir("builder");
    std::fs::write(root.join("area/built.yaml"), b.to_yaml()).unwrap();
    let loaded = load_dir(&root).unwrap_or_else(|e| panic!("{e:?}"));
    let built = b.clone().build().expect("valid");
    let steps = |s: &Scenario| {
        s.file
            .steps
            .iter()
            .map(|x| x.value.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(steps(&loaded[0]), steps(&built));
    let (results, summary, _) = run(Arc::new(ReferenceTarget), vec![built], &options(1)).await;
    assert_eq!(summary.passed, 1, "{:?}", results[0].failure);
    // Validation is shared: a bad step is refused by the builder too.
    let bad = ScenarioBuilder::new("bad", "t", "KIP-1324")
        .role(Role::Broker)
        .send("NoSuchApi", 0, json!({}))
        .build()
        .expect_err("refused");
    assert_eq!(bad.message(), "send: unknown API \"NoSuchApi\"");
}

/// A client scenario whose PushConfig must fit `max` bytes of `measure`.
fn sized(max: usize, measure: &str) -> String {
    format!(
        "title: s\nkip: KIP-1324\ngrade: MUST\nroles: [client]\nsetup: {{ client: {{ type: consumer, config: {{ group.id: g }} }} }}\nsteps:\n  - start\n  - expect_request: {{ api: ApiVersions }}\n  - respond: {{ to: 1 }}\n  - expect_request: {{ api: PushConfig, encoded_size: {{ max: {max}, measure: {measure} }} }}\n"
    )
}

#[tokio::test]
async fn encoded_size_judges_the_bytes_the_target_sent() {
    let s = scenarios(
        "encoded-size",
        &[
            ("fits", &sized(10240, "request_body")),
            ("too-small", &sized(10, "request_body")),
            ("too-small-array", &sized(10, "configs_array")),
        ],
    );
    let (results, summary, _) = run(Arc::new(ReferenceTarget), s, &options(1)).await;
    assert_eq!((summary.passed, summary.failed), (1, 2));
    let failure = |id: &str| {
        let r = results.iter().find(|r| r.id == id).unwrap();
        let m = &r.failure.as_ref().unwrap().mismatches[0];
        (m.path.clone(), m.expected.clone(), m.actual.clone())
    };
    // The consumer's default push (group.id plus the default keys): the body is one byte
    // longer than its Configs array (the empty tagged-field section).
    let (path, expected, body) = failure("too-small");
    assert_eq!(path, "encoded_size");
    assert_eq!(expected, "at most 10 bytes of request_body");
    let (_, expected, array) = failure("too-small-array");
    assert_eq!(expected, "at most 10 bytes of configs_array");
    let n = |s: &str| s.split(' ').next().unwrap().parse::<usize>().unwrap();
    assert_eq!(n(&body), n(&array) + 1, "{body} vs {array}");
}

#[test]
fn encoded_size_is_checked_at_load() {
    let root = dir("encoded-size-load");
    let bad = sized(10, "configs_array").replace("api: PushConfig,", "api: ApiVersions,");
    std::fs::write(
        root.join("area").join("bad.yaml"),
        format!("id: bad\n{bad}"),
    )
    .unwrap();
    let errors = load_dir(&root).unwrap_err();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0]
            .message()
            .contains("encoded_size measure configs_array is for PushConfig only"),
        "{}",
        errors[0]
    );
}

#[tokio::test]
async fn expect_request_from_a_list_allows_any_of_its_nodes() {
    let client = |from: &str| {
        format!("title: n\nkip: KIP-1324\ngrade: MUST\nroles: [client]\nsetup: {{ client: {{ type: admin }} }}\nsteps:\n  - start\n  - expect_request: {{ from: {from}, api: ApiVersions }}\n")
    };
    let s = scenarios(
        "nodes",
        &[
            ("in-list", &client("[1, 2]")),
            ("not-in-list", &client("[2, 3]")),
        ],
    );
    let (results, summary, _) = run(Arc::new(ReferenceTarget), s, &options(1)).await;
    assert_eq!((summary.passed, summary.failed), (1, 1));
    let r = results.iter().find(|r| r.id == "not-in-list").unwrap();
    let m = &r.failure.as_ref().unwrap().mismatches[0];
    assert_eq!(
        (m.path.as_str(), m.expected.as_str(), m.actual.as_str()),
        ("node", "any of 2, 3", "1")
    );
}

#[tokio::test]
async fn expect_no_release_judges_a_user_request_still_waiting() {
    let blocked = "title: b\nkip: KIP-1324\ngrade: MUST\nroles: [client]\nsetup: { client: { type: consumer, config: { group.id: g } } }\nsteps:\n  - start\n  - user_request: { id: 1 }\n  - expect_request: { api: ApiVersions }\n  - expect_no_release: { within_ms: 0 }\n";
    let s = scenarios("no-release", &[("blocked", blocked)]);
    let (_, summary, _) = run(Arc::new(ReferenceTarget), s.clone(), &options(1)).await;
    assert_eq!((summary.passed, summary.steps_judged), (1, 2));
    // A client that does not hold user requests releases it at once.
    let bug = kipcheck::adapter::MutantTarget {
        fault: kipcheck::faulty::Fault::from_name("does-not-block-user-requests").unwrap(),
    };
    let (results, summary, _) = run(Arc::new(bug), s, &options(1)).await;
    assert_eq!(summary.failed, 1);
    assert_eq!(
        results[0].failure.as_ref().unwrap().message,
        "expected no user request released yet, but user request 1 was released at 0 ms"
    );
}
