#!/usr/bin/env python3
"""cargo-mutants' outcome of the model (`crates/model/src/`, `harness/src/model/` in runs before
the crate split; `.cargo/mutants.toml`) with every
survivor triaged: reads OUT/mutants.out/outcomes.json and the triage rules, prints Markdown.

    python3 scripts/mutants-triage.py OUT [OUT ...] [--rules RULES.tsv] [--listed LIST] [--check]

The rules default to scripts/mutants-triage.tsv (beside this script: hand-written input, kept
with the tool that reads it; the outputs it triages are generated and live in reports/).

OUT is a cargo-mutants output folder (`cargo mutants -o OUT`), or the prefix of committed lists
(`reports/mutants-full/shard-0-of-8` reads shard-0-of-8.caught.txt, .missed.txt, ...). Several OUTs
are one run in parts (a run and its `--iterate` continuation): their outcomes are added up, each
mutant under the name (and line numbers) of the part that tested it.

A rule is one line of the TSV file: a regular expression searched in the mutant's name
(`file:line:col: replace … in Function`), a disposition, and the reason. The first rule that
matches a survivor (a missed mutant; a timeout is detected: the suite did not pass) triages it. Dispositions:

    gap              a scenario should catch it (none does yet)
    equivalent       no outcome the KIPs allow changes
    fault-internal   inside a faulty variant's branch: the variant is still caught by its witness
    off-suite        code the suite never runs: fuzz oracles, model-test accessors, the
                     emulated cluster's non-KIP answers, randomness and naming
    outside-kips     Kafka behaviour the reference has so that scenarios can set a target up
                     (CreateTopics, DescribeCluster, ...): a scenario judging it would judge
                     an implementation of the KIPs on what the KIPs do not say
    removed          the code was deleted after the run (nothing called it)
    killed           a scenario added after the run catches it (checked by applying it by hand)
    to-read          not yet read: neither a gap nor explained (counted as a survivor)

`--listed LIST` (the `cargo mutants --list` output of the last part's commit) counts each mutant
that commit lists once, with the outcome of the last part that tested it, and leaves out
mutants it no longer lists.

`--check` exits 1 when a survivor matches no rule, so the file stays complete."""

import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

# Where the model's files are named: the model crate, or the harness before the crate split.
MODEL_PREFIXES = ("crates/model/src/", "harness/src/model/")


def short(name):
    """A mutant's or file's name without the model's folder (either layout)."""
    for prefix in MODEL_PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix):]
    return name

DISPOSITIONS = ("gap", "equivalent", "fault-internal", "off-suite", "outside-kips", "removed", "killed", "to-read")


def load_rules(path):
    rules = []
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3 or parts[1] not in DISPOSITIONS:
            sys.exit(f"{path}:{n}: want PATTERN<TAB>{'|'.join(DISPOSITIONS)}<TAB>REASON")
        try:
            rules.append((re.compile(parts[0]), parts[1], parts[2], n))
        except re.error as e:
            sys.exit(f"{path}:{n}: bad pattern: {e}")
    return rules


LISTS = {"caught": "CaughtMutant", "missed": "MissedMutant", "timeout": "Timeout",
         "unviable": "Unviable"}


def read_outcome(out):
    """(name, file, summary) per tested mutant, and how many the run listed: from a cargo-mutants
    output folder (OUT/mutants.out/outcomes.json), or from committed lists PREFIX.caught.txt,
    PREFIX.missed.txt, ... (reports/mutants-full/shard-K-of-8), where the listed total is unknown."""
    if (out / "mutants.out" / "outcomes.json").exists():
        d = json.loads((out / "mutants.out" / "outcomes.json").read_text())
        # Every mutant the run listed (outcomes.json's total counts those tested so far).
        total = len(json.loads((out / "mutants.out" / "mutants.json").read_text()))
        rows = []
        for o in d["outcomes"]:
            m = o["scenario"]
            if isinstance(m, dict) and "Mutant" in m:  # not the unmutated baseline
                rows.append((m["Mutant"]["name"], m["Mutant"]["file"], o["summary"]))
        return rows, total
    rows = []
    for kind, summary in LISTS.items():
        f = out.parent / f"{out.name}.{kind}.txt"
        if not f.exists():
            sys.exit(f"{out}: neither {out}/mutants.out/outcomes.json nor {f}")
        for name in f.read_text().splitlines():
            if name.strip():
                rows.append((name, name.split(":")[0], summary))
    return rows, None


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if not args:
        sys.exit(__doc__)
    rules_path = str(Path(__file__).with_name("mutants-triage.tsv"))
    if "--rules" in argv:
        rules_path = argv[argv.index("--rules") + 1]
        args = [a for a in args if a != rules_path]
    listed_path = None
    if "--listed" in argv:
        listed_path = argv[argv.index("--listed") + 1]
        args = [a for a in args if a != listed_path]
    rules = load_rules(rules_path)
    rows, total = [], 0
    for out in args:
        part, listed = read_outcome(Path(out))
        rows += part
        total = None if listed is None or total is None else total + listed
    if listed_path:
        # One run in parts across commits (a run, then `--iterate` after a change): the mutants
        # the last commit lists, each with the outcome of the last part that tested it (an
        # iteration re-tests what survived); a mutant no longer listed (its code left the
        # model, or moved to other lines, which the iteration tested under the new name) is
        # left out.
        names = [n for n in Path(listed_path).read_text().splitlines() if n.strip()]
        latest = {}
        for name, file, summary in rows:
            latest[name] = (name, file, summary)
        rows = [latest[n] for n in names if n in latest]
        total = len(names)
    kinds = Counter(s for _, _, s in rows)
    caught, missed = kinds["CaughtMutant"], kinds["MissedMutant"]
    timeout, unviable = kinds["Timeout"], kinds["Unviable"]
    viable = caught + missed + timeout
    tested = len(rows)
    print(f"# cargo-mutants outcome: {tested} of {total if total else 'the listed'} mutants tested\n")
    print(f"- caught **{caught}**, missed **{missed}**, timeout {timeout}, unviable {unviable}")
    if viable:
        print(f"- caught of viable: {caught}/{viable} = **{100 * caught / viable:.1f} %** "
              f"({100 * (caught + timeout) / viable:.1f} % counting a timeout as detected)")
    # A timeout is detected (the suite did not pass); only a missed mutant survived.
    survivors = [(n, f) for n, f, s in rows if s == "MissedMutant"]
    triaged, untriaged = [], []
    for name, f in survivors:
        for rx, disp, reason, line in rules:
            if rx.search(name):
                triaged.append((name, f, disp, reason, line))
                break
        else:
            untriaged.append(name)
    by = Counter(t[2] for t in triaged)
    killed = by["killed"]
    removed = by["removed"]
    if viable:
        print(f"- with the {killed} survivors killed since by new scenarios (and the {removed} "
              f"whose code was deleted left out): {caught + killed}/{viable - removed} = "
              f"**{100 * (caught + killed) / (viable - removed):.1f} %**")
    if viable:
        # Two narrower denominators, each stated with what it leaves out: mutants no outcome the
        # KIPs allow can reveal (equivalent), and code the suite does not judge on purpose
        # (off-suite: fuzz oracles, test accessors, live-only paths; outside-kips: Kafka
        # behaviour the KIPs leave alone). Survivors still to-read or untriaged stay in both.
        eq, off, out_k = by["equivalent"], by["off-suite"], by["outside-kips"]
        base = viable - removed - eq
        found = caught + killed + timeout  # a timeout is detected (see above)
        if base > 0:
            print(f"- leaving out the {eq} equivalent mutants, a timeout counted as detected: "
                  f"{found}/{base} = **{100 * found / base:.1f} %**")
        judged = base - off - out_k
        if judged > 0:
            print(f"- of the mutants in code the suite judges (also leaving out {off} off-suite "
                  f"and {out_k} outside-kips): {found}/{judged} = "
                  f"**{100 * found / judged:.1f} %**")
    print("- survivors by disposition: " + ", ".join(f"{k} {by[k]}" for k in DISPOSITIONS)
          + (f", **untriaged {len(untriaged)}**" if untriaged else ""))
    per_file = defaultdict(Counter)
    for _, f, s in rows:
        per_file[f][s] += 1
    print("\n| file | caught | missed | timeout | unviable |\n|---|---:|---:|---:|---:|")
    for f in sorted(per_file):
        c = per_file[f]
        print(f"| `{short(f)}` | {c['CaughtMutant']} | "
              f"{c['MissedMutant']} | {c['Timeout']} | {c['Unviable']} |")
    print("\n## Every survivor\n\n| mutant | disposition | why |\n|---|---|---|")
    for name, _, disp, reason, _ in sorted(triaged):
        print(f"| `{short(name)}` | {disp} | {reason} |")
    for name in sorted(untriaged):
        print(f"| `{short(name)}` | **untriaged** | |")
    timeouts = sorted(n for n, _, s in rows if s == "Timeout")
    if timeouts:
        print("\n## Timeouts (detected: the suite hung until cargo-mutants stopped it)\n")
        for name in timeouts:
            print(f"- `{short(name)}`")
    if "--check" in argv and untriaged:
        print("\n".join(["untriaged:"] + untriaged), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
