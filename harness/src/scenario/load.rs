//! Loading scenario files: strict YAML parsing (serde-saphyr) and validation, with every
//! error located as `file:line:col`. Reads files; decides nothing about verdicts.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::matcher::{capture_names, resolve_names, unknown_matcher};
use super::types::{ScenarioFile, Step, MAX_REAL_TIME_WAIT_MS};
use crate::codec::{ProvisionalNumbers, RequestBody, ResponseBody};
use crate::model::SpecProfile;

/// A scenario file that cannot be used, located in its file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct LoadError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line (0 when unknown).
    pub line: u64,
    /// 1-based column (0 when unknown).
    pub col: u64,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path.display(),
            self.line,
            self.col,
            self.message
        )
    }
}

/// A loaded, validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The file's content.
    pub file: ScenarioFile,
    /// Where it was read from.
    pub path: PathBuf,
    /// The folder under the scenarios root (the KIP area), e.g. `kip1324-broker`.
    pub area: String,
    /// The spec profile: the default with the file's overrides merged in.
    pub profile: SpecProfile,
}

impl Scenario {
    /// `file:line:col` of step `i`.
    pub fn step_location(&self, i: usize) -> String {
        let s = &self.file.steps[i];
        format!(
            "{}:{}:{}",
            self.path.display(),
            s.referenced.line(),
            s.referenced.column()
        )
    }
}

fn first_line_col(text: &str) -> (u64, u64) {
    // serde-saphyr messages start with "line L column C" when it knows the position.
    let t = text.trim_start_matches("error: ");
    let mut words = t.split_whitespace();
    if words.next() == Some("line") {
        let l = words.next().and_then(|w| w.parse().ok());
        if words.next() == Some("column") {
            let c = words
                .next()
                .and_then(|w| w.trim_end_matches(':').parse().ok());
            if let (Some(l), Some(c)) = (l, c) {
                return (l, c);
            }
        }
    }
    (0, 0)
}

/// Merges `overrides` (a mapping) into `base`, recursively.
fn merge(base: &mut Value, overrides: &Value) {
    match (base, overrides) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                merge(b.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (b, o) => *b = o.clone(),
    }
}

/// The default profile with `overrides` merged in.
pub fn profile_with(overrides: Option<&Value>) -> Result<SpecProfile, String> {
    let Some(o) = overrides else {
        return Ok(SpecProfile::default());
    };
    let mut v = serde_json::to_value(SpecProfile::default()).map_err(|e| e.to_string())?;
    merge(&mut v, o);
    let p: SpecProfile = serde_json::from_value(v).map_err(|e| format!("profile: {e}"))?;
    p.validate().map_err(|e| format!("profile: {e}"))?;
    Ok(p)
}

/// Converts a body pattern into a typed request body (names resolved), for sending.
pub fn request_body(
    api: &str,
    body: Option<&Value>,
    numbers: &ProvisionalNumbers,
) -> Result<RequestBody, String> {
    let info = RequestBody::info_by_name(api).ok_or_else(|| format!("unknown API {api:?}"))?;
    let mut v = body.cloned().unwrap_or(Value::Object(Default::default()));
    resolve_names(&mut v, numbers);
    RequestBody::deserialize_for(info.api_key, v).map_err(|e| format!("body of {api}: {e}"))
}

/// Converts a body into a typed response body (names resolved), for answering a client.
pub fn response_body(
    api: &str,
    body: Option<&Value>,
    numbers: &ProvisionalNumbers,
) -> Result<ResponseBody, String> {
    let info = ResponseBody::info_by_name(api).ok_or_else(|| format!("unknown API {api:?}"))?;
    let mut v = body.cloned().unwrap_or(Value::Object(Default::default()));
    resolve_names(&mut v, numbers);
    ResponseBody::deserialize_for(info.api_key, v).map_err(|e| format!("body of {api}: {e}"))
}

/// Loads and validates one scenario file. `root` is the scenarios folder (for the area).
pub fn load_file(path: &Path, root: &Path) -> Result<Scenario, LoadError> {
    let err = |line: u64, col: u64, message: String| LoadError {
        path: path.to_owned(),
        line,
        col,
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| err(0, 0, e.to_string()))?;
    let file: ScenarioFile = serde_saphyr::from_str(&text).map_err(|e| {
        let (line, col) = match e.location() {
            Some(l) => (l.line(), l.column()),
            None => first_line_col(&e.to_string()),
        };
        let message = e.to_string();
        let message = message.lines().next().unwrap_or("").to_owned();
        err(line, col, message)
    })?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    if file.id != stem {
        return Err(err(
            1,
            1,
            format!("id {:?} must equal the file stem {stem:?}", file.id),
        ));
    }
    let area = path
        .parent()
        .and_then(|p| p.strip_prefix(root).ok())
        .map(|p| p.display().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "scenarios".into());
    validate(file, path, &area)
}

/// Validates a parsed scenario (from a file or the Rust builder): known KIP, roles, profile
/// overrides and every step. Errors point at `path` and the step's position.
pub fn validate(file: ScenarioFile, path: &Path, area: &str) -> Result<Scenario, LoadError> {
    let err = |line: u64, col: u64, message: String| LoadError {
        path: path.to_owned(),
        line,
        col,
        message,
    };
    if !["KIP-1324", "KIP-1326", "KIP-1294", "KIP-1256"].contains(&file.kip.as_str()) {
        return Err(err(1, 1, format!("unknown kip {:?}", file.kip)));
    }
    if file.roles.is_empty() {
        return Err(err(1, 1, "roles must name at least one role".into()));
    }
    let profile = profile_with(file.profile.as_ref()).map_err(|m| err(1, 1, m))?;
    let numbers = profile.provisional;
    let mut captured = BTreeSet::new();
    for s in &file.steps {
        let at = |m: String| err(s.referenced.line(), s.referenced.column(), m);
        validate_step(&s.value, &numbers).map_err(at)?;
        check_captures(&s.value, &mut captured).map_err(at)?;
    }
    let area = area.to_owned();
    Ok(Scenario {
        file,
        path: path.to_owned(),
        area,
        profile,
    })
}

fn check_pattern(p: Option<&Value>) -> Result<(), String> {
    match p.and_then(unknown_matcher) {
        Some(m) => Err(format!("unknown matcher {m}")),
        None => Ok(()),
    }
}

/// The patterns of a step, for the checks that span steps.
fn step_patterns(step: &Step) -> Vec<&Value> {
    match step {
        Step::ExpectResponse(e) => e.body.iter().collect(),
        Step::ExpectOneOf(outcomes) => outcomes
            .iter()
            .filter_map(|o| match o {
                super::types::Outcome::Response(r) => r.body.as_ref(),
                super::types::Outcome::Close(_) => None,
            })
            .collect(),
        Step::ExpectRequest(e) => e.body.iter().chain(e.after_ms.iter()).collect(),
        Step::ExpectReleased(e) => e.after_ms.iter().collect(),
        Step::ExpectEvent(e) => vec![&e.event],
        Step::ExpectNoEvent { event } => vec![event],
        _ => Vec::new(),
    }
}

/// Every `$eq_captured` / `$ne_captured` names a value `$capture`d by an earlier step; a step
/// that matches nothing (`expect_no_event`) captures nothing. Adds the step's captures.
fn check_captures(step: &Step, captured: &mut BTreeSet<String>) -> Result<(), String> {
    let mut new = Vec::new();
    for p in step_patterns(step) {
        let (caps, refs) = capture_names(p)?;
        if let Some(r) = refs.iter().find(|r| !captured.contains(*r)) {
            return Err(format!("{r} is not captured by an earlier step"));
        }
        new.extend(caps);
    }
    if let (Step::ExpectNoEvent { .. }, Some(name)) = (step, new.first()) {
        return Err(format!("expect_no_event cannot $capture {name}"));
    }
    captured.extend(new);
    Ok(())
}

fn validate_step(step: &Step, numbers: &ProvisionalNumbers) -> Result<(), String> {
    match step {
        Step::Send(s) => {
            match (&s.body, &s.fill) {
                (Some(_), Some(_)) => return Err("send: body and fill are exclusive".into()),
                (_, Some(_)) if !s.api.eq_ignore_ascii_case("PushConfig") => {
                    return Err("send: fill is for PushConfig only".into())
                }
                (_, Some(f)) if f.size > super::types::MAX_FILL_BYTES => {
                    return Err(format!(
                        "send: fill.size {} is over the {} bytes kipcheck builds",
                        f.size,
                        super::types::MAX_FILL_BYTES
                    ))
                }
                _ => {}
            }
            let info = RequestBody::info_by_name(&s.api)
                .ok_or_else(|| format!("send: unknown API {:?}", s.api))?;
            if !info.valid.contains(s.version) {
                return Err(format!(
                    "send: {} has versions {}, not {}",
                    info.message, info.valid, s.version
                ));
            }
            if s.fill.is_none() {
                request_body(&s.api, s.body.as_ref(), numbers).map(|_| ())?;
            }
            Ok(())
        }
        Step::SendRaw(s) => {
            crate::codec::from_hex(&s.hex).ok_or("send_raw: hex is not valid hex")?;
            if let Some(api) = &s.api {
                ResponseBody::info_by_name(api)
                    .ok_or_else(|| format!("send_raw: unknown API {api:?}"))?;
            }
            Ok(())
        }
        Step::ExpectResponse(e) => check_pattern(e.body.as_ref()),
        Step::ExpectOneOf(outcomes) => {
            if outcomes.len() < 2 {
                return Err("expect_one_of needs at least two outcomes".into());
            }
            let conns: Vec<u32> = outcomes
                .iter()
                .map(|o| match o {
                    super::types::Outcome::Response(r) => r.conn,
                    super::types::Outcome::Close(c) => c.conn,
                })
                .collect();
            if conns.windows(2).any(|w| w[0] != w[1]) {
                return Err("expect_one_of: every outcome must name the same conn".into());
            }
            for o in outcomes {
                if let super::types::Outcome::Response(r) = o {
                    check_pattern(r.body.as_ref())?;
                }
            }
            Ok(())
        }
        Step::ExpectRequest(e) => {
            let info = RequestBody::info_by_name(&e.api)
                .ok_or_else(|| format!("expect_request: unknown API {:?}", e.api))?;
            if let Some(size) = &e.encoded_size {
                if size.measure == crate::model::SizeMeasure::ConfigsArray
                    && info.api_key != crate::codec::ApiKey::PUSH_CONFIG
                {
                    return Err(
                        "expect_request: encoded_size measure configs_array is for PushConfig only"
                            .into(),
                    );
                }
                if size.min.is_none() && size.max.is_none() {
                    return Err("expect_request: encoded_size needs min, max or both".into());
                }
            }
            check_pattern(e.body.as_ref())?;
            check_pattern(e.after_ms.as_ref())
        }
        Step::ExpectNoRequest(e) if e.real_time && e.within_ms > MAX_REAL_TIME_WAIT_MS => Err(
            format!(
                "expect_no_request: a real_time watch is at most {MAX_REAL_TIME_WAIT_MS} ms, not {}",
                e.within_ms
            ),
        ),
        Step::ExpectNoRequest(e) => match &e.api {
            Some(api) => RequestBody::info_by_name(api)
                .map(|_| ())
                .ok_or_else(|| format!("expect_no_request: unknown API {api:?}")),
            None => Ok(()),
        },
        Step::ExpectReleased(e) => check_pattern(e.after_ms.as_ref()),
        Step::ExpectEvent(e) => check_pattern(Some(&e.event)),
        Step::ExpectNoEvent { event } => check_pattern(Some(event)),
        _ => Ok(()),
    }
}

/// Loads every `*.yaml` scenario below `root` (except `requirements.yaml` and files whose
/// name starts with `_`), sorted by id; ids must be unique.
pub fn load_dir(root: &Path) -> Result<Vec<Scenario>, Vec<LoadError>> {
    let mut files = Vec::new();
    collect(root, &mut files);
    files.sort();
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
    for f in files {
        match load_file(&f, root) {
            Ok(s) => {
                if let Some(first) = seen.insert(s.file.id.clone(), f.clone()) {
                    errors.push(LoadError {
                        path: f.clone(),
                        line: 1,
                        col: 1,
                        message: format!("duplicate id {:?} (also {})", s.file.id, first.display()),
                    });
                } else {
                    out.push(s);
                }
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        out.sort_by(|a, b| a.file.id.cmp(&b.file.id));
        Ok(out)
    } else {
        Err(errors)
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name != "requirements.yaml" && !name.starts_with('_') {
                out.push(p);
            }
        }
    }
}
