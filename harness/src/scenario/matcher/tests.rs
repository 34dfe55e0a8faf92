//! Tests of the matcher: captures judged across patterns, kept only on a whole match, and the
//! names a pattern captures and reads.

use serde_json::json;

use super::*;
use crate::codec::ProvisionalNumbers;
use crate::scenario::MatchMode;
use serde_json::Value;

fn with(p: Value, actual: Value, captures: &mut Captures) -> Vec<String> {
    let n = ProvisionalNumbers::default();
    compare_with(&p, Some(&actual), MatchMode::Subset, &n, "body", captures)
        .into_iter()
        .map(|m| format!("{}: expected {}, got {}", m.path, m.expected, m.actual))
        .collect()
}

#[test]
fn a_capture_is_judged_by_later_patterns_not_by_its_value() {
    let mut c = Captures::default();
    assert!(with(json!({"E": {"$capture": "e1"}}), json!({"E": 42}), &mut c).is_empty());
    assert_eq!(c.get("e1"), Some(&json!(42)));
    let cases: [(Value, Value, &[&str]); 7] = [
        (
            json!({"E": {"$eq_captured": "e1"}}),
            json!({"E": 42.0}),
            &[],
        ),
        (json!({"E": {"$ne_captured": "e1"}}), json!({"E": 43}), &[]),
        (
            json!({"E": {"$eq_captured": "e1"}}),
            json!({"E": 43}),
            &[r#"body.E: expected {$eq_captured: "e1"} (e1 = 42), got 43"#],
        ),
        (
            json!({"E": {"$ne_captured": "e1"}}),
            json!({"E": 42}),
            &[r#"body.E: expected {$ne_captured: "e1"} (e1 = 42), got 42"#],
        ),
        // An absent field is neither equal nor different.
        (
            json!({"F": {"$ne_captured": "e1"}}),
            json!({"E": 1}),
            &[r#"body.F: expected {$ne_captured: "e1"} (e1 = 42), got <absent>"#],
        ),
        (
            json!({"E": {"$capture": "e2"}}),
            json!({}),
            &[r#"body.E: expected {$capture: "e2"}, got <absent>"#],
        ),
        (
            json!({"E": {"$eq_captured": "e9"}}),
            json!({"E": 1}),
            &[r#"body.E: expected {$eq_captured: "e9"} (e9 was never captured), got 1"#],
        ),
    ];
    for (pattern, actual, expected) in cases {
        assert_eq!(with(pattern.clone(), actual, &mut c), expected, "{pattern}");
    }
}

#[test]
fn a_capture_is_kept_only_when_the_whole_pattern_matches() {
    let mut c = Captures::default();
    let p = json!({"E": {"$capture": "e1"}, "ErrorCode": 0});
    assert_eq!(
        with(p.clone(), json!({"E": 5, "ErrorCode": 1}), &mut c).len(),
        1
    );
    assert_eq!(c, Captures::default());
    // A failed alternative keeps nothing; the one that matched keeps its capture.
    let p = json!({"$any_of": [{"E": {"$capture": "a"}, "X": 1}, {"E": {"$capture": "b"}}]});
    assert!(with(p, json!({"E": 5, "X": 2}), &mut c).is_empty());
    assert_eq!((c.get("a"), c.get("b")), (None, Some(&json!(5))));
    // $contains keeps the capture of the element that matched.
    let p = json!({"$contains": [{"Id": 2, "E": {"$capture": "c"}}]});
    assert!(with(p, json!([{"Id": 1, "E": 10}, {"Id": 2, "E": 20}]), &mut c).is_empty());
    assert_eq!(c.get("c"), Some(&json!(20)));
    // $all_of: every part must match, and keeps every part's capture.
    let p = json!({"E": {"$all_of": [{"$capture": "d"}, {"$ne_captured": "c"}]}});
    assert!(with(p.clone(), json!({"E": 21}), &mut c).is_empty());
    assert_eq!(c.get("d"), Some(&json!(21)));
    assert_eq!(
        with(p, json!({"E": 20}), &mut c),
        [r#"body.E: expected {$all_of: [{"$capture":"d"},{"$ne_captured":"c"}]}, got 20"#]
    );
    assert_eq!(c.get("d"), Some(&json!(21)));
    // A later capture of a name replaces the earlier one.
    assert!(with(json!({"E": {"$capture": "c"}}), json!({"E": 30}), &mut c).is_empty());
    assert_eq!(c.get("c"), Some(&json!(30)));
}

#[test]
fn without_a_capture_map_relations_are_not_judged() {
    let n = ProvisionalNumbers::default();
    let p = json!({"E": {"$ne_captured": "e1"}, "F": {"$capture": "e2"}});
    let actual = json!({"E": 1, "F": 2});
    assert!(compare(&p, Some(&actual), MatchMode::Subset, &n, "body").is_empty());
    // $capture is $any there.
    let absent = json!({"E": 1});
    assert_eq!(
        compare(&p, Some(&absent), MatchMode::Subset, &n, "body").len(),
        1
    );
}

#[test]
fn capture_names_lists_captures_and_reads() {
    let p = json!({"A": {"$capture": "x"}, "B": [{"$eq_captured": "y"}], "C": {"$any_of": [{"$ne_captured": "z"}]}});
    assert_eq!(
        capture_names(&p),
        Ok((vec!["x".to_owned()], vec!["y".to_owned(), "z".to_owned()]))
    );
}
