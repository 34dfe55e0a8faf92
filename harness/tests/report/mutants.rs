//! `mutants.html`: the variant × scenario matrix with its links, the survivors and the
//! scenarios that catch nothing, bugs with their code spans, and no literal Markdown.

use kipcheck::report::{render_mutants_html, render_mutants_text_with};
use kipcheck::runner::{KillMatrix, VariantOutcome};

fn matrix() -> KillMatrix {
    KillMatrix {
        seed: 9,
        scenarios: vec!["a-size".into(), "b-dead".into(), "c-sens".into()],
        reference_failures: vec![],
        variants: vec![
            VariantOutcome {
                name: "no-size-check".into(),
                bug: "Broker: no `client.config.max.bytes` check <at all>.".into(),
                killed_by: vec!["a-size".into(), "c-sens".into()],
            },
            VariantOutcome {
                name: "survivor".into(),
                bug: "Client: nobody notices.".into(),
                killed_by: vec![],
            },
        ],
        observed: true,
    }
}

#[test]
fn the_matrix_links_variants_and_scenarios_and_marks_survivors_and_dead_weight() {
    let html = render_mutants_html(&matrix());
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_eq!(html.matches("<script>").count(), 1);
    assert!(!html.contains("http://") && !html.contains("https://"));
    // No literal backticks outside the script; the bug's code span is code, escaped.
    let without_script = &html[..html.find("<script>").unwrap()];
    assert!(!without_script.contains('`'), "backtick left in the page");
    assert!(html.contains(
        "<td>Broker: no <code>client.config.max.bytes</code> check &lt;at all&gt;.</td>"
    ));
    // Header: survivors linked, dead weight counted.
    assert!(html.contains("<b>1 survivor</b> (no scenario catches them): <a href=\"#v-survivor\"><code>survivor</code></a>"), "{html}");
    assert!(html.contains(
        "1 scenario catches no variant (<a href=\"#matrix\" id=\"show-dead\">show them</a>)"
    ));
    // Columns: one per variant, the survivor marked; rows: one per scenario.
    assert!(html.contains("<th class=\"var\" data-variant=\"no-size-check\"><a href=\"#v-no-size-check\" title=\"Broker: no client.config.max.bytes check &lt;at all&gt;.\"><span>no-size-check</span></a></th>"));
    assert!(html.contains("<th class=\"var survived\" data-variant=\"survivor\">"));
    assert!(html.contains("<tr id=\"m-a-size\" class=\"\" data-scenario=\"a-size\"><th class=\"sid\"><code>a-size</code></th><td class=\"n\">1</td><td class=\"hit\" title=\"a-size catches no-size-check: kipcheck run --target mutant:no-size-check --seed 9 --id a-size\">●</td><td class=\"miss survived\"></td></tr>"), "{html}");
    assert!(html.contains("<tr id=\"m-b-dead\" class=\"dead\" data-scenario=\"b-dead\"><th class=\"sid\"><code>b-dead</code></th><td class=\"n\">0</td><td class=\"miss\"></td><td class=\"miss survived\"></td></tr>"));
    assert_eq!(html.matches("<tr id=\"m-").count(), 3);
    // Variants: survivors first, the catching scenarios linked to their rows.
    let survivor = html
        .find("<tr id=\"v-survivor\" class=\"survived\">")
        .unwrap();
    let caught = html
        .find("<tr id=\"v-no-size-check\" class=\"caught\">")
        .unwrap();
    assert!(survivor < caught);
    assert!(html.contains("<a href=\"#m-a-size\"><code>a-size</code></a> <a href=\"#m-c-sens\"><code>c-sens</code></a>"));
    // Filters.
    for id in ["m-text", "m-dead", "m-survivors", "m-shown"] {
        assert!(html.contains(&format!("id=\"{id}\"")), "no {id}");
    }
}

#[test]
fn the_terminal_text_colours_only_when_asked() {
    let plain = render_mutants_text_with(&matrix(), false);
    assert!(!plain.contains('\x1b'));
    assert!(plain.contains("SURVIVED survivor"));
    let coloured = render_mutants_text_with(&matrix(), true);
    assert!(
        coloured.contains("\x1b[31m\x1b[1mSURVIVED\x1b[0m\x1b[0m survivor"),
        "{coloured:?}"
    );
    assert!(coloured.contains("\x1b[32mcaught  \x1b[0m no-size-check"));
}
