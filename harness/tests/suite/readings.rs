//! Every contested reading (kip-notes §6, the fields of the spec profile) declared by a target
//! as a live implementation declares it (`--profile FILE`): the reference made to follow it
//! must pass every scenario it is asked, and the only scenarios it is not asked are those that
//! pin a reading to another value (`kipcheck::runner::reading_problems`). A scenario that
//! depends on a reading without pinning it fails here, naming the reading: it would fail a
//! correct implementation that reads the KIP the other way (issue 31 §1). The static lint
//! rules (`kipcheck lint --static-only`) hold for the shipped suite too.

use std::collections::BTreeSet;

use kipcheck::model::SpecProfile;
use kipcheck::runner::{reading_alternatives, reading_problems};
use kipcheck::scenario::{lint_scenario, load_dir};

use crate::suite_support::suite_dir;

/// Every enumerated reading (a string-valued field of the profile) has an alternative tried,
/// so a reading added to the profile is tried too.
#[test]
fn every_enumerated_reading_has_an_alternative() {
    let default = serde_json::to_value(SpecProfile::default()).expect("serialises");
    let tried: BTreeSet<String> = reading_alternatives()
        .iter()
        .flat_map(|a| a.as_object().expect("a mapping").keys().cloned())
        .collect();
    let missing: Vec<&String> = default
        .as_object()
        .expect("a mapping")
        .iter()
        .filter(|(k, v)| v.is_string() && !tried.contains(*k))
        .map(|(k, _)| k)
        .collect();
    assert!(
        missing.is_empty(),
        "readings with no alternative tried: {missing:?}"
    );
}

#[tokio::test]
async fn the_reference_declaring_each_reading_passes_everything_it_is_asked() {
    let scenarios = load_dir(&suite_dir()).unwrap_or_else(|e| panic!("{e:?}"));
    let problems: Vec<String> = reading_problems(&scenarios)
        .await
        .into_iter()
        .map(|p| format!("{} under {}: {}", p.id, p.reading, p.what))
        .collect();
    assert!(
        problems.is_empty(),
        "{} scenarios depend on a reading without pinning it:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_shipped_suite_has_no_static_lint_finding() {
    let scenarios = load_dir(&suite_dir()).unwrap_or_else(|e| panic!("{e:?}"));
    let findings: Vec<String> = scenarios
        .iter()
        .flat_map(|s| {
            let text = std::fs::read_to_string(&s.path).ok();
            lint_scenario(s, text.as_deref())
        })
        .map(|f| f.to_string())
        .collect();
    assert!(findings.is_empty(), "{}", findings.join("\n"));
}
