//! The terminal reporter: exact plain output, colour only when asked, `NO_COLOR` and TTY
//! detection.

use crate::report_support::{assert_snapshot, events};
use kipcheck::report::{Reporter, TerminalOptions, TerminalReporter};

fn run(options: TerminalOptions) -> String {
    let mut reporter = TerminalReporter::new(Vec::new(), options);
    for event in events() {
        reporter.on_event(&event).expect("on_event");
    }
    reporter.finish().expect("finish");
    String::from_utf8(reporter.into_inner()).expect("utf-8")
}

const SUMMARY_LINE: &str =
    "Summary: 6 scenarios in 12.5 ms, 2.1 min simulated: 1 passed, 1 failed, \
1 unsupported, 1 expected failure, 1 unexpected pass, 1 errored";

#[test]
fn plain_output_has_no_ansi_escapes_and_the_exact_summary() {
    let out = run(TerminalOptions::default());
    assert!(!out.contains('\x1b'), "ANSI escape in plain output:\n{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.contains(&SUMMARY_LINE), "no summary line in:\n{out}");
    assert_eq!(lines.last(), Some(&"FAILED (seed 42, target reference)"));
    assert_snapshot("terminal.txt", &out);
}

#[test]
fn plain_output_shows_each_findings_diff_location_and_reproduction() {
    let out = run(TerminalOptions::default());
    assert!(
        out.contains("  at scenarios/kip1324-client/size-max-plus-one.yaml:14:5 (step index 2)\n")
    );
    assert!(out.contains("  -expected +actual ·not compared (the pattern does not name it)\n"));
    assert!(out.contains("   10     │-    ConfigValue: \"500\"\n"));
    assert!(out.contains("       11 │+    ConfigValue: \"5000\"\n"));
    // A field the pattern does not name is set apart from the mismatch.
    assert!(out.contains("        2 │·ClientVersion: 4.4.0\n"));
    assert!(out.contains("    00000010  63 6b 3c 3e 26"));
    assert!(out.contains(
        "  reproduce: kipcheck run --target reference --seed 42 --id size-max-plus-one\n"
    ));
    assert!(out.contains("UNEXPECTED PASS audit-upgrade-static"));
    // Only findings are detailed: the expected failure and the pass are not.
    assert!(!out.contains("EXPECTED FAILURE floor-below-lowest"));
    // The last entries of the exchange, one line each, bodies cut short.
    assert!(out.contains("  exchange (3 entries, 1 earlier not shown):\n    #1      0 ms → node 1 connect\n    #2      5 ms ← node 1 PushConfig v0 request corr 7 (21 bytes)\n      {\"Configs\":[{\"ConfigKey\":\"max.poll.records\",\"ConfigValue\":\"5000\"}]}\n"), "{out}");
}

#[test]
fn coloured_output_uses_ansi_escapes_and_underlines_changed_tokens() {
    let out = run(TerminalOptions {
        color: true,
        ..TerminalOptions::default()
    });
    assert!(out.contains("\x1b[1;31mFAILED\x1b[0m"));
    assert!(out.contains("\x1b[32;1;4m\"5000\"\x1b[0m"), "{out}");
}

#[test]
fn verbose_output_lists_every_scenario_and_details_expected_failures() {
    let out = run(TerminalOptions {
        verbose: true,
        ..TerminalOptions::default()
    });
    // The count words, as the summary says them.
    for tag in [
        "PASSED",
        "FAILED",
        "UNSUPPORTED",
        "EXPECTED FAILURE",
        "UNEXPECTED PASS",
        "ERRORED",
    ] {
        assert!(
            out.contains(&format!("{tag:>16} [")),
            "no {tag} line:\n{out}"
        );
    }
    assert!(out.contains("EXPECTED FAILURE floor-below-lowest"));
    assert!(out.contains("    - version: expected 0, actual 1\n"));
    assert!(out.contains("  step:\n"));
}

#[test]
fn colour_needs_a_tty_and_no_no_color() {
    let tty = TerminalOptions::from_environment(true, None);
    assert!(tty.color && tty.progress && !tty.verbose);
    assert!(!TerminalOptions::from_environment(true, Some("1")).color);
    assert!(!TerminalOptions::from_environment(true, Some("yes")).color);
    // An empty NO_COLOR counts as unset (no-color.org).
    assert!(TerminalOptions::from_environment(true, Some("")).color);
    let pipe = TerminalOptions::from_environment(false, None);
    assert!(!pipe.color && !pipe.progress);
}

#[test]
fn colour_choice_flag_and_environment_follow_the_conventions() {
    use kipcheck::report::ColorChoice::{Always, Auto, Never};
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |k: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| (*v).to_owned())
        }
    };
    let color = |choice, tty, pairs| TerminalOptions::resolve(choice, tty, env(pairs)).color;
    // The flag decides alone.
    assert!(color(Always, false, &[("NO_COLOR", "1"), ("TERM", "dumb")]));
    assert!(!color(Never, true, &[("CLICOLOR_FORCE", "1")]));
    // auto: a terminal colours, a pipe does not.
    assert!(color(Auto, true, &[]));
    assert!(!color(Auto, false, &[]));
    // NO_COLOR (non-empty) wins over everything else; empty counts as unset.
    assert!(!color(
        Auto,
        true,
        &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]
    ));
    assert!(color(Auto, true, &[("NO_COLOR", "")]));
    // CLICOLOR_FORCE colours a pipe, unless it is 0 or empty.
    assert!(color(Auto, false, &[("CLICOLOR_FORCE", "1")]));
    assert!(!color(Auto, false, &[("CLICOLOR_FORCE", "0")]));
    assert!(!color(Auto, false, &[("CLICOLOR_FORCE", "")]));
    // TERM=dumb and CLICOLOR=0 turn a terminal's colour off; dumb also drops the bar.
    assert!(!color(Auto, true, &[("TERM", "dumb")]));
    assert!(!color(Auto, true, &[("CLICOLOR", "0")]));
    assert!(color(Auto, true, &[("TERM", "xterm-256color")]));
    assert!(!TerminalOptions::resolve(Auto, true, env(&[("TERM", "dumb")])).progress);
    assert!(TerminalOptions::resolve(Never, true, env(&[])).progress);
}

#[test]
fn detect_refuses_colour_when_no_color_is_set() {
    // The environment is not modified here (tests run in parallel); when NO_COLOR is set,
    // detection must refuse colour whatever stdout is, and colour implies a TTY.
    let detected = TerminalOptions::detect();
    let no_color = std::env::var("NO_COLOR").is_ok_and(|v| !v.is_empty());
    if no_color {
        assert!(!detected.color);
    }
    assert!(!detected.verbose);
    assert!(!detected.color || detected.progress);
}
