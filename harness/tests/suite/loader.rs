//! Scenario loading: strict parsing with exact `file:line:col` errors, and the validation
//! rules (id = file stem, unique ids, known APIs, matchers and versions).

use std::path::{Path, PathBuf};

use kipcheck::scenario::{
    load_dir, load_file, LoadError, LoadErrorKind, ProfileOverrideError, RepeatError, StepError,
};

/// A fresh scenarios folder under the target dir, named after the test.
fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("suite_loader")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("area")).expect("mkdir");
    d
}

fn write(root: &Path, file: &str, text: &str) -> PathBuf {
    let p = root.join("area").join(file);
    std::fs::write(&p, text).expect("write");
    p
}

const HEAD: &str = "title: t\nkip: KIP-1324\ngrade: MUST\nroles: [broker]\n";

fn load_err(name: &str, file: &str, text: &str) -> LoadError {
    let root = dir(name);
    let p = write(&root, file, text);
    load_file(&p, &root).expect_err("must not load")
}

#[test]
fn unknown_field_is_located() {
    let e = load_err(
        "unknown_field",
        "s1.yaml",
        &format!("id: s1\n{HEAD}steps:\n  - send: {{ api: PushConfig, version: 0, bogus: 1 }}\n"),
    );
    assert_eq!((e.line, e.col), (7, 42), "{e}");
    assert!(e.message().contains("unknown field `bogus`"), "{e}");
    let shown = e.to_string();
    let first = shown.lines().next().unwrap_or_default();
    assert!(first.ends_with(&format!(":7:42: {}", e.message())), "{e}");
    assert_eq!(
        e.snippet.as_deref(),
        Some(" 7 |   - send: { api: PushConfig, version: 0, bogus: 1 }\n   |                                          ^"),
        "the parser's errors get the snippet too"
    );
}

#[test]
fn unknown_step_is_located() {
    let e = load_err(
        "unknown_step",
        "s2.yaml",
        &format!("id: s2\n{HEAD}steps:\n  - teleport: {{}}\n"),
    );
    assert_eq!(e.line, 7, "{e}");
    assert!(e.message().contains("teleport"), "{e}");
}

#[test]
fn id_must_equal_file_stem() {
    let e = load_err("stem", "other.yaml", &format!("id: s3\n{HEAD}steps: []\n"));
    assert_eq!((e.line, e.col), (1, 1));
    assert_eq!(e.message(), "id \"s3\" must equal the file stem \"other\"");
    assert!(
        matches!(&*e.kind, LoadErrorKind::IdNotStem { id, stem } if id == "s3" && stem == "other"),
        "{e:?}"
    );
}

#[test]
fn unknown_api_in_send_is_located_at_the_step() {
    let e = load_err(
        "unknown_api",
        "s4.yaml",
        &format!("id: s4\n{HEAD}steps:\n  - advance: {{ ms: 1 }}\n  - send: {{ api: Nope, version: 0 }}\n"),
    );
    assert_eq!((e.line, e.col), (8, 5), "{e}");
    assert_eq!(e.message(), "send: unknown API \"Nope\"");
    assert!(
        matches!(&*e.kind, LoadErrorKind::Step(StepError::UnknownApi { step: "send", api }) if api == "Nope"),
        "{e:?}"
    );
}

#[test]
fn version_out_of_range_is_refused() {
    let e = load_err(
        "bad_version",
        "s5.yaml",
        &format!("id: s5\n{HEAD}steps:\n  - send: {{ api: PushConfig, version: 1 }}\n"),
    );
    assert_eq!(e.message(), "send: PushConfigRequest has versions 0, not 1");
}

#[test]
fn bad_body_field_is_refused() {
    let e = load_err(
        "bad_body",
        "s6.yaml",
        &format!("id: s6\n{HEAD}steps:\n  - send: {{ api: PushConfig, version: 0, body: {{ Configz: [] }} }}\n"),
    );
    // Checked against the message before it is built: located at the field itself.
    assert_eq!((e.line, e.col), (7, 50));
    assert_eq!(
        e.message(),
        "send: body.Configz: no such field in PushConfigRequest v0; fields there: Configs"
    );
}

#[test]
fn a_fill_that_cannot_be_built_is_a_load_error_at_its_step() {
    // The loader builds every request body once; an exact size no PushConfig can have (an
    // empty one is already 2 bytes) is refused when the file loads, not when it runs.
    let e = load_err(
        "bad_fill",
        "s9.yaml",
        &format!("id: s9\n{HEAD}steps:\n  - send: {{ api: PushConfig, version: 0, fill: {{ size: 1, measure: request_body }} }}\n"),
    );
    assert_eq!((e.line, e.col), (7, 5), "{e}");
    assert!(
        e.message()
            .starts_with("send: cannot build a PushConfig of exactly 1 bytes"),
        "{e}"
    );
}

#[test]
fn unknown_matcher_is_refused() {
    let e = load_err(
        "bad_matcher",
        "s7.yaml",
        &format!("id: s7\n{HEAD}steps:\n  - expect_response: {{ body: {{ ErrorCode: {{ $between: [1, 2] }} }} }}\n"),
    );
    assert_eq!(e.message(), "unknown matcher $between");
}

#[test]
fn fill_and_body_are_exclusive() {
    let e = load_err(
        "fill_body",
        "s8.yaml",
        &format!(
            "id: s8\n{HEAD}steps:\n  - send: {{ api: PushConfig, version: 0, body: {{}}, fill: {{ size: 10, measure: request_body }} }}\n"
        ),
    );
    assert_eq!(e.message(), "send: body and fill are exclusive");
}

#[test]
fn an_oversized_fill_is_refused_at_its_step() {
    let e = load_err(
        "fill_huge",
        "s8b.yaml",
        &format!(
            "id: s8b\n{HEAD}steps:\n  - send: {{ api: PushConfig, version: 0, fill: {{ size: 16777217, measure: request_body }} }}\n"
        ),
    );
    assert_eq!((e.line, e.col), (7, 5), "{e}");
    assert_eq!(
        e.message(),
        "send: fill.size 16777217 is over the 16777216 bytes kipcheck builds"
    );
}

#[test]
fn fill_of_the_largest_size_is_built_exactly() {
    use kipcheck::codec::Message;
    use kipcheck::model::SizeMeasure;
    use kipcheck::runner::fill_push_config;
    use kipcheck::scenario::{Fill, FillError, MAX_FILL_BYTES};
    let fill = Fill {
        size: MAX_FILL_BYTES,
        measure: SizeMeasure::RequestBody,
    };
    let req = fill_push_config(&fill).expect("builds");
    assert_eq!(req.encoded_len(0), Ok(MAX_FILL_BYTES));
    let over = Fill {
        size: MAX_FILL_BYTES + 1,
        measure: SizeMeasure::RequestBody,
    };
    let e = fill_push_config(&over).unwrap_err();
    assert_eq!(
        e,
        FillError::TooLarge {
            size: MAX_FILL_BYTES + 1,
            max: MAX_FILL_BYTES
        }
    );
    assert_eq!(
        e.to_string(),
        "fill.size 16777217 is over the 16777216 bytes kipcheck builds"
    );
}

#[test]
fn bad_profile_override_is_refused() {
    let e = load_err(
        "bad_profile",
        "s9.yaml",
        &format!("id: s9\n{HEAD}profile: {{ size_measure: whole_frame }}\nsteps: []\n"),
    );
    assert!(e.message().starts_with("profile:"), "{e}");
    assert!(
        matches!(
            *e.kind,
            LoadErrorKind::Profile(ProfileOverrideError::Shape(_))
        ),
        "{e:?}"
    );
}

#[test]
fn duplicate_ids_across_folders_are_refused() {
    let root = dir("dupes");
    write(&root, "d1.yaml", &format!("id: d1\n{HEAD}steps: []\n"));
    std::fs::create_dir_all(root.join("other")).unwrap();
    std::fs::write(
        root.join("other/d1.yaml"),
        format!("id: d1\n{HEAD}steps: []\n"),
    )
    .unwrap();
    let errs = load_dir(&root).expect_err("duplicate");
    assert_eq!(errs.len(), 1);
    assert!(
        errs[0].message().starts_with("duplicate id \"d1\""),
        "{}",
        errs[0]
    );
}

#[test]
fn a_valid_file_loads_with_its_area_and_step_locations() {
    let root = dir("valid");
    write(
        &root,
        "ok.yaml",
        &format!("id: ok\n{HEAD}tags: [x]\nsteps:\n  - send: {{ api: ApiVersions, version: 3 }}\n  - expect_response: {{ body: {{ ErrorCode: NONE }} }}\n"),
    );
    let all = load_dir(&root).expect("loads");
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].area, "area");
    assert_eq!(all[0].file.steps.len(), 2);
    assert!(
        all[0].step_location(1).ends_with("area/ok.yaml:9:5"),
        "{}",
        all[0].step_location(1)
    );
}

#[test]
fn the_real_suite_loads() {
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
    assert!(!all.is_empty());
}

#[test]
fn misused_captures_are_refused_at_their_step() {
    let e1 = "e1 is not captured by an earlier step";
    let cases = [
        // Read a step before the capture, or in the same step (the order of a pattern's
        // fields decides nothing).
        (
            "expect_response: { body: { B: { $ne_captured: e1 } } }\n  - expect_response: { body: { B: { $capture: e1 } } }",
            e1,
        ),
        ("expect_response: { body: { A: { $capture: e1 }, B: { $eq_captured: e1 } } }", e1),
        ("expect_response: { body: { A: { $capture: 3 } } }", "$capture needs a name (a string), not 3"),
        (
            "expect_response: { body: { A: { $eq_captured: \"\" } } }",
            "$eq_captured needs a name (a string), not \"\"",
        ),
        (
            "expect_response: { body: { A: { $not: { $capture: e1 } } } }",
            "$capture e1 under $not captures nothing",
        ),
        ("expect_no_event: { event: { epoch: { $capture: e1 } } }", "expect_no_event cannot $capture e1"),
    ];
    for (i, (steps, message)) in cases.into_iter().enumerate() {
        let id = format!("c{i}");
        let e = load_err(
            &format!("bad_capture_{i}"),
            &format!("{id}.yaml"),
            &format!("id: {id}\n{HEAD}steps:\n  - {steps}\n"),
        );
        assert_eq!((e.line, e.message().as_str()), (7, message), "{steps}");
    }
}

/// `repeat:` is checked where it stands: `runs` in 2..=64, `at_least` in 2..=runs, and each
/// distinct capture made by a step (`$capture` or `capture_node`).
#[test]
fn repeat_out_of_bounds_or_uncaptured_is_located() {
    let client_head = "title: t\nkip: KIP-1324\ngrade: MUST\nroles: [client]\n";
    let steps = "steps:\n  - start\n  - expect_request: { api: ApiVersions, capture_node: n }\n";
    let cases: [(&str, RepeatError); 4] = [
        ("repeat:\n  runs: 1\n", RepeatError::Runs { runs: 1 }),
        ("repeat:\n  runs: 65\n", RepeatError::Runs { runs: 65 }),
        (
            "repeat:\n  runs: 4\n  distinct:\n    - { capture: n, at_least: 5 }\n",
            RepeatError::AtLeast {
                capture: "n".into(),
                at_least: 5,
                runs: 4,
            },
        ),
        (
            "repeat:\n  runs: 4\n  distinct:\n    - { capture: m, at_least: 2 }\n",
            RepeatError::NotCaptured {
                capture: "m".into(),
            },
        ),
    ];
    for (i, (repeat, want)) in cases.into_iter().enumerate() {
        let id = format!("r{i}");
        let e = load_err(
            &format!("repeat_{i}"),
            &format!("{id}.yaml"),
            &format!("id: {id}\n{client_head}{repeat}{steps}"),
        );
        assert_eq!((e.line, e.col), (7, 3), "{e}");
        match &*e.kind {
            LoadErrorKind::Repeat(got) => assert_eq!(got, &want),
            other => panic!("expected a repeat error, got {other:?}"),
        }
    }
    // In bounds and captured: it loads.
    let root = dir("repeat_ok");
    let text = format!(
        "id: ok\n{client_head}repeat:\n  runs: 4\n  distinct:\n    - {{ capture: n, at_least: 2 }}\n{steps}"
    );
    let p = write(&root, "ok.yaml", &text);
    let s = load_file(&p, &root).expect("loads");
    assert_eq!(s.file.repeat.map(|r| r.value.runs), Some(4));
}
