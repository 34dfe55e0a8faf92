//! `kipcheck list` (and `run --dry-run`): the scenarios a run would select, with their KIP,
//! roles, grade and tags, and for the target whether each would run or why not (a missing
//! role or capability, a reading the live target does not follow, a setup the target's
//! manifest cannot bind). The decision is the runner's own ([`kipcheck::runner::admit`]),
//! the one `run` applies to every scenario before opening a session. With several
//! `--target`s, each scenario that would run names the one it would run on.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use kipcheck::adapter::Target;
use kipcheck::runner::{admit, Grade, UnsupportedCause};
use kipcheck::scenario::Scenario;
use serde_json::json;

use super::selection::SelectArgs;
use super::target_args::Reach;
use super::target_args::TargetArgs;

/// Arguments of `kipcheck list`.
#[derive(Debug, Args)]
pub(super) struct ListArgs {
    /// `--target` (default `reference`, which runs everything) and the options of live and
    /// `exec:` targets.
    #[command(flatten)]
    target: TargetArgs,
    /// `--scenarios`, `--id`, `--kip`, `--tag`, `--grade`, `--partition`.
    #[command(flatten)]
    select: SelectArgs,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `kipcheck list`.
pub(super) fn run(a: ListArgs) -> anyhow::Result<ExitCode> {
    let (target, chosen) = match prepare(&a.target, &a.select, Reach::NotNeeded) {
        Ok(p) => p,
        Err((code, _)) => return Ok(code),
    };
    print!("{}", plan(&chosen, target.as_ref(), a.json)?);
    Ok(ExitCode::SUCCESS)
}

/// A built target and the scenarios selected for it.
pub(super) type Prepared = (Arc<dyn Target>, Vec<Scenario>);

/// The target (built first: a bad or unreachable one ends the command before the suite is
/// read) and the selected scenarios, or the exit code to end with and why (printed already).
pub(super) fn prepare(
    target: &TargetArgs,
    select: &SelectArgs,
    reach: Reach,
) -> Result<Prepared, (ExitCode, String)> {
    let target = target.build_with(reach)?;
    let chosen = select.select().map_err(|code| {
        (
            code,
            "the scenarios were not loaded (see the error above)".to_owned(),
        )
    })?;
    Ok((target, chosen))
}

pub(super) fn grade_name(g: Grade) -> &'static str {
    match g {
        Grade::Must => "MUST",
        Grade::Should => "SHOULD",
    }
}

fn roles(s: &Scenario) -> String {
    let r: Vec<String> = s.file.roles.iter().map(|r| r.name()).collect();
    r.join(",")
}

/// The selection as text (a table and a summary) or JSON, with each scenario's gate verdict
/// on `target`: `run`, or `skip` with the causes the run would report as unsupported.
pub(super) fn plan(chosen: &[Scenario], target: &dyn Target, json: bool) -> anyhow::Result<String> {
    let caps = target.capabilities();
    let verdicts: Vec<Vec<UnsupportedCause>> =
        chosen.iter().map(|s| admit(target, &caps, s).1).collect();
    // Where each scenario that runs would run, when the target routes (after `admit` bound it).
    let endpoints: Vec<Option<String>> = chosen
        .iter()
        .zip(&verdicts)
        .map(|(s, causes)| {
            causes
                .is_empty()
                .then(|| target.endpoint(&s.file.id))
                .flatten()
        })
        .collect();
    let mut by_cause: BTreeMap<String, usize> = BTreeMap::new();
    for causes in &verdicts {
        for c in causes {
            *by_cause.entry(c.group()).or_default() += 1;
        }
    }
    let runs = verdicts.iter().filter(|c| c.is_empty()).count();
    let name = target.name();
    if json {
        let scenarios: Vec<serde_json::Value> = chosen
            .iter()
            .zip(&verdicts)
            .zip(&endpoints)
            .map(|((s, causes), endpoint)| {
                let mut entry = json!({
                    "id": s.file.id,
                    "title": s.file.title,
                    "kip": s.file.kip,
                    "roles": s.file.roles,
                    "grade": s.file.grade,
                    "tags": s.file.tags,
                    "path": s.path.display().to_string(),
                    "runs": causes.is_empty(),
                    "unsupported_reason": (!causes.is_empty()).then(|| UnsupportedCause::sentence(causes)),
                    "unsupported_causes": causes,
                });
                if let Some(e) = endpoint {
                    entry["endpoint"] = json!(e);
                }
                entry
            })
            .collect();
        let v = json!({
            "target": name,
            "selected": chosen.len(),
            "would_run": runs,
            "would_not_run": chosen.len() - runs,
            "unsupported_by_cause": by_cause,
            "scenarios": scenarios,
        });
        let mut s = serde_json::to_string_pretty(&v)?;
        s.push('\n');
        return Ok(s);
    }
    let id_w = chosen
        .iter()
        .map(|s| s.file.id.len())
        .max()
        .unwrap_or(2)
        .max(2);
    let roles_w = chosen
        .iter()
        .map(|s| roles(s).len())
        .max()
        .unwrap_or(5)
        .max(5);
    let tags: Vec<String> = chosen.iter().map(|s| s.file.tags.join(",")).collect();
    let tags_w = tags.iter().map(String::len).max().unwrap_or(4).max(4);
    let mut out = format!(
        "{:<id_w$}  {:<8}  {:<roles_w$}  {:<6}  {:<tags_w$}  RUNS\n",
        "ID", "KIP", "ROLES", "GRADE", "TAGS"
    );
    for (((s, causes), tags), endpoint) in chosen.iter().zip(&verdicts).zip(&tags).zip(&endpoints) {
        let runs = if let Some(e) = endpoint {
            format!("yes, on {e}")
        } else if causes.is_empty() {
            "yes".to_owned()
        } else {
            format!("no: {}", UnsupportedCause::sentence(causes))
        };
        out.push_str(&format!(
            "{:<id_w$}  {:<8}  {:<roles_w$}  {:<6}  {:<tags_w$}  {runs}\n",
            s.file.id,
            s.file.kip,
            roles(s),
            grade_name(s.file.grade),
            tags,
        ));
    }
    out.push_str(&format!(
        "\n{} selected, {runs} would run against {name}, {} would not\n",
        chosen.len(),
        chosen.len() - runs
    ));
    for (cause, n) in &by_cause {
        out.push_str(&format!("  {n:>4}  {cause}\n"));
    }
    Ok(out)
}
