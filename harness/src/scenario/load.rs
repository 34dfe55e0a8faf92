//! Loading scenario files: strict YAML parsing (serde-saphyr) and validation, with every
//! error located as `file:line:col`. Reads files; decides nothing about verdicts.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_saphyr::Spanned;

use super::body_schema::{check_body, check_body_at, Against, BodyError, Seg};
use super::error::{
    FillError, LoadError, LoadErrorKind, ProfileOverrideError, RepeatError, StepError,
    TypedBodyError,
};
use super::matcher::{capture_names, resolve_names, unknown_matcher};
use super::types::{
    ExpectRequestStep, Nodes, Outcome, Repeat, ScenarioFile, Step, MAX_REAL_TIME_WAIT_MS,
};
use crate::codec::schema::{message_schema, MessageSchema};
use crate::codec::{ApiKey, BodyInfo, ProvisionalNumbers, RequestBody, ResponseBody};
use crate::model::SpecProfile;

/// Line `line` of `text` and a caret under column `col` (both 1-based, columns counted in
/// characters), rustc style; `None` if the line does not exist.
///
/// ```text
///    7 |   - expect_response: { body: { ErrorCod: 0 } }
///      |                                ^
/// ```
pub fn snippet(text: &str, line: u64, col: u64) -> Option<String> {
    let idx = usize::try_from(line.checked_sub(1)?).ok()?;
    let src = text.lines().nth(idx)?;
    let number = line.to_string();
    let pad: String = src
        .chars()
        .take(usize::try_from(col.saturating_sub(1)).unwrap_or(usize::MAX))
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let gutter = " ".repeat(number.len());
    Some(format!(" {number} | {src}\n {gutter} | {pad}^"))
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
    /// What the loader prepared for each step (same order as `file.steps`), so the runner
    /// builds nothing from text at run time.
    pub compiled: Vec<Compiled>,
}

/// A step made ready to run: request bodies built from their patterns (names resolved
/// under the profile's provisional numbers), fills resolved to exact-size bodies, raw hex
/// decoded.
#[derive(Clone, Debug, PartialEq)]
pub enum Compiled {
    /// Nothing to prepare (the step acts or judges at run time).
    Nothing,
    /// A `send` step's typed request body (boxed: most steps have none).
    Request(Box<RequestBody>),
    /// A `send_raw` step's frame bytes.
    Raw(Vec<u8>),
    /// A `send` step's Envelope body and the typed request it forwards (its `RequestData`
    /// is encoded when sent, with the correlation id of the moment).
    Enveloped {
        /// The Envelope body (`RequestData` left empty).
        envelope: Box<RequestBody>,
        /// The forwarded request's API key (canonical), version and client id.
        header: (crate::codec::ApiKey, i16, String),
        /// The forwarded request's body.
        inner: Box<RequestBody>,
    },
}

/// What a step sends, built once.
fn compile(step: &Step, numbers: &ProvisionalNumbers) -> Result<Compiled, StepError> {
    Ok(match step {
        Step::Send(s) if s.inner.is_some() => {
            let inner = s.inner.as_ref().ok_or(StepError::InnerNotEnvelope)?;
            let body = typed_body::<RequestBody>(&inner.api, inner.body.as_ref(), numbers)?;
            Compiled::Enveloped {
                envelope: Box::new(typed_body::<RequestBody>(&s.api, s.body.as_ref(), numbers)?),
                header: (
                    body.api_key(),
                    inner.version,
                    inner.client_id.clone().unwrap_or_else(|| "kipcheck".into()),
                ),
                inner: Box::new(body),
            }
        }
        Step::Send(s) => Compiled::Request(Box::new(match &s.fill {
            Some(fill) => RequestBody::PushConfig(
                super::fill::fill_push_config(fill).map_err(StepError::Fill)?,
            ),
            None => typed_body::<RequestBody>(&s.api, s.body.as_ref(), numbers)?,
        })),
        Step::SendRaw(s) => Compiled::Raw(crate::codec::from_hex(&s.hex).ok_or(StepError::BadHex)?),
        _ => Compiled::Nothing,
    })
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

/// Where a serde-saphyr error points (1-based line and column; `(0, 0)` when unknown): every
/// YAML file kipcheck reads (scenarios, target manifests) locates its errors this way.
pub(crate) fn yaml_location(e: &serde_saphyr::Error) -> (u64, u64) {
    match e.location() {
        Some(l) => (l.line(), l.column()),
        None => first_line_col(&e.to_string()),
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
pub fn profile_with(overrides: Option<&Value>) -> Result<SpecProfile, ProfileOverrideError> {
    profile_over(&SpecProfile::default(), overrides)
}

/// `base` with `overrides` merged in: a scenario's pins over the readings a target follows.
pub fn profile_over(
    base: &SpecProfile,
    overrides: Option<&Value>,
) -> Result<SpecProfile, ProfileOverrideError> {
    let Some(o) = overrides else {
        return Ok(base.clone());
    };
    let mut v = serde_json::to_value(base).map_err(ProfileOverrideError::Shape)?;
    merge(&mut v, o);
    let p: SpecProfile = serde_json::from_value(v).map_err(ProfileOverrideError::Shape)?;
    p.validate().map_err(ProfileOverrideError::Invalid)?;
    Ok(p)
}

/// A dispatch enum a body pattern can be built into: [`RequestBody`] (what kipcheck sends
/// to a broker) or [`ResponseBody`] (what it answers a client with).
pub trait TypedBody: Sized {
    /// The message of API `name`.
    fn info_by_name(name: &str) -> Option<&'static BodyInfo>;
    /// The body of API `key` from Kafka's JSON.
    fn from_json(key: ApiKey, v: Value) -> Result<Self, serde_json::Error>;
}

impl TypedBody for RequestBody {
    fn info_by_name(name: &str) -> Option<&'static BodyInfo> {
        RequestBody::info_by_name(name)
    }
    fn from_json(key: ApiKey, v: Value) -> Result<Self, serde_json::Error> {
        RequestBody::deserialize_for(key, v)
    }
}

impl TypedBody for ResponseBody {
    fn info_by_name(name: &str) -> Option<&'static BodyInfo> {
        ResponseBody::info_by_name(name)
    }
    fn from_json(key: ApiKey, v: Value) -> Result<Self, serde_json::Error> {
        ResponseBody::deserialize_for(key, v)
    }
}

/// Converts a body pattern of API `api` into a typed body (error-code and API names
/// resolved under `numbers`; no body = every field its default): a request kipcheck sends,
/// or a response it answers with.
pub fn typed_body<B: TypedBody>(
    api: &str,
    body: Option<&Value>,
    numbers: &ProvisionalNumbers,
) -> Result<B, TypedBodyError> {
    let info = B::info_by_name(api).ok_or_else(|| TypedBodyError::UnknownApi {
        api: api.to_owned(),
    })?;
    let mut v = body.cloned().unwrap_or(Value::Object(Default::default()));
    resolve_names(&mut v, numbers);
    B::from_json(info.api_key, v).map_err(|source| TypedBodyError::Body {
        api: api.to_owned(),
        source,
    })
}

/// Loads and validates one scenario file. `root` is the scenarios folder (for the area).
pub fn load_file(path: &Path, root: &Path) -> Result<Scenario, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|e| LoadError {
        path: path.to_owned(),
        line: 0,
        col: 0,
        kind: Box::new(LoadErrorKind::Read(e)),
        snippet: None,
    })?;
    load_text(&text, path, root)
}

/// Loads and validates one scenario from its text; `path` names it in errors and reports and
/// lies under `root` (the scenarios folder, for the area): a file read from disk or one of
/// the suite built into the binary ([`super::embedded`]).
pub fn load_text(text: &str, path: &Path, root: &Path) -> Result<Scenario, LoadError> {
    let err = |line: u64, col: u64, kind: LoadErrorKind| LoadError {
        path: path.to_owned(),
        line,
        col,
        kind: Box::new(kind),
        snippet: snippet(text, line, col),
    };
    let file: ScenarioFile = serde_saphyr::from_str(text).map_err(|e| {
        let (line, col) = yaml_location(&e);
        err(line, col, LoadErrorKind::Yaml(e))
    })?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    if file.id != stem {
        return Err(err(
            1,
            1,
            LoadErrorKind::IdNotStem {
                id: file.id.clone(),
                stem: stem.to_owned(),
            },
        ));
    }
    let area = path
        .parent()
        .and_then(|p| p.strip_prefix(root).ok())
        .map(|p| p.display().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "scenarios".into());
    validate_in(file, path, &area, Some(text), &SpecProfile::default())
}

/// Validates a parsed scenario (from a file or the Rust builder): known KIP, roles, profile
/// overrides and every step. Errors point at `path` and the step's position.
pub fn validate(file: ScenarioFile, path: &Path, area: &str) -> Result<Scenario, LoadError> {
    validate_in(file, path, area, None, &SpecProfile::default())
}

/// `scenario` as it runs on a target that follows the readings `base`: its profile is `base`
/// with the scenario's own pins (`profile:`) merged in, and its steps are compiled again
/// under that profile (provisional numbers). The pins are what the scenario depends on;
/// every other reading is the target's.
pub fn rebase(scenario: &Scenario, base: &SpecProfile) -> Result<Scenario, LoadError> {
    validate_in(
        scenario.file.clone(),
        &scenario.path,
        &scenario.area,
        None,
        base,
    )
}

/// The readings a scenario pins (`profile:`), one `(path, value)` per leaf, e.g.
/// `("provisional.push_config_api_key", 99)`; arrays are leaves. Timing is not a reading.
pub fn pinned_readings(scenario: &Scenario) -> Vec<(String, Value)> {
    fn walk(path: &str, v: &Value, out: &mut Vec<(String, Value)>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(&p, x, out);
                }
            }
            leaf => out.push((path.to_owned(), leaf.clone())),
        }
    }
    let mut out = Vec::new();
    if let Some(p) = &scenario.file.profile {
        walk("", p, &mut out);
    }
    out.retain(|(path, _)| path != "timing" && !path.starts_with("timing."));
    out
}

/// Every reading `scenario` pins to a value other than `fixed`'s: `(path, fixed's value,
/// the pinned value)`.
pub fn differing_pins(fixed: &SpecProfile, scenario: &Scenario) -> Vec<(String, String, String)> {
    let Ok(target) = serde_json::to_value(fixed) else {
        return Vec::new();
    };
    pinned_readings(scenario)
        .into_iter()
        .filter_map(|(path, pinned)| {
            let held = path
                .split('.')
                .try_fold(&target, |v, k| v.get(k))
                .cloned()
                .unwrap_or(serde_json::Value::Null);
            (held != pinned).then(|| (path, held.to_string(), pinned.to_string()))
        })
        .collect()
}

/// [`validate`], with the file's text when there is one: body errors then point at the
/// pattern key itself and carry a snippet.
fn validate_in(
    file: ScenarioFile,
    path: &Path,
    area: &str,
    text: Option<&str>,
    base: &SpecProfile,
) -> Result<Scenario, LoadError> {
    let err = |line: u64, col: u64, kind: LoadErrorKind| LoadError {
        path: path.to_owned(),
        line,
        col,
        kind: Box::new(kind),
        snippet: text.and_then(|t| snippet(t, line, col)),
    };
    if !["KIP-1324", "KIP-1326", "KIP-1294", "KIP-1256"].contains(&file.kip.as_str()) {
        let kip = file.kip.clone();
        return Err(err(1, 1, LoadErrorKind::UnknownKip { kip }));
    }
    if file.roles.is_empty() {
        return Err(err(1, 1, LoadErrorKind::NoRoles));
    }
    let profile = profile_over(base, file.profile.as_ref()).map_err(|e| err(1, 1, e.into()))?;
    let numbers = profile.provisional;
    let mut captured = BTreeSet::new();
    let mut pairing = Pairing::default();
    let mut compiled = Vec::with_capacity(file.steps.len());
    for (i, s) in file.steps.iter().enumerate() {
        let at = |e: StepError| err(s.referenced.line(), s.referenced.column(), e.into());
        validate_step(&s.value).map_err(at)?;
        // Before compiling: a body kipcheck sends is checked against its message first, so a
        // bad field is reported at the field, with its type and the value found.
        pairing.step(i, &s.value).map_err(|e| {
            let (line, col) = text
                .and_then(|t| locate(t, i, &e.at))
                .unwrap_or((s.referenced.line(), s.referenced.column()));
            err(line, col, e.into())
        })?;
        compiled.push(compile(&s.value, &numbers).map_err(at)?);
        check_captures(&s.value, &mut captured).map_err(at)?;
    }
    if let Some(r) = &file.repeat {
        let at = |e: RepeatError| err(r.referenced.line(), r.referenced.column(), e.into());
        check_repeat(&r.value, &captured).map_err(at)?;
    }
    let area = area.to_owned();
    Ok(Scenario {
        file,
        path: path.to_owned(),
        area,
        profile,
        compiled,
    })
}

fn check_pattern(p: Option<&Value>) -> Result<(), StepError> {
    match p.and_then(unknown_matcher) {
        Some(m) => Err(StepError::UnknownMatcher(m.to_string())),
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
fn check_captures(step: &Step, captured: &mut BTreeSet<String>) -> Result<(), StepError> {
    let mut new = Vec::new();
    for p in step_patterns(step) {
        let (caps, refs) = capture_names(p)?;
        if let Some(r) = refs.iter().find(|r| !captured.contains(*r)) {
            let name = r.clone();
            return Err(StepError::NotCaptured { name });
        }
        new.extend(caps);
    }
    if let Step::ExpectRequest(ExpectRequestStep {
        capture_node: Some(name),
        ..
    }) = step
    {
        new.push(name.clone());
    }
    if let (Step::ExpectNoEvent { .. }, Some(name)) = (step, new.first()) {
        let name = name.clone();
        return Err(StepError::NoEventCapture { name });
    }
    captured.extend(new);
    Ok(())
}

/// `runs` and every `distinct` are in bounds, and every distinct capture is made by a step.
fn check_repeat(r: &Repeat, captured: &BTreeSet<String>) -> Result<(), RepeatError> {
    if !(2..=64).contains(&r.runs) {
        return Err(RepeatError::Runs { runs: r.runs });
    }
    for d in &r.distinct {
        if d.at_least < 2 || d.at_least > r.runs as usize {
            return Err(RepeatError::AtLeast {
                capture: d.capture.clone(),
                at_least: d.at_least,
                runs: r.runs,
            });
        }
        if !captured.contains(&d.capture) {
            let capture = d.capture.clone();
            return Err(RepeatError::NotCaptured { capture });
        }
    }
    Ok(())
}

fn validate_step(step: &Step) -> Result<(), StepError> {
    match step {
        Step::Send(s) => {
            match (&s.body, &s.fill) {
                (Some(_), Some(_)) => return Err(StepError::BodyAndFill),
                (_, Some(_)) if !s.api.eq_ignore_ascii_case("PushConfig") => {
                    return Err(StepError::FillNotPushConfig)
                }
                (_, Some(f)) if f.size > super::types::MAX_FILL_BYTES => {
                    return Err(StepError::Fill(FillError::TooLarge {
                        size: f.size,
                        max: super::types::MAX_FILL_BYTES,
                    }))
                }
                _ => {}
            }
            let info =
                RequestBody::info_by_name(&s.api).ok_or_else(|| unknown_api("send", &s.api))?;
            if !info.valid.contains(s.version) {
                return Err(version_error("send", info, s.version));
            }
            if let Some(inner) = &s.inner {
                if info.api_key != crate::codec::ApiKey::ENVELOPE || s.fill.is_some() {
                    return Err(StepError::InnerNotEnvelope);
                }
                let i = RequestBody::info_by_name(&inner.api)
                    .ok_or_else(|| unknown_api("send.inner", &inner.api))?;
                if !i.valid.contains(inner.version) {
                    return Err(version_error("send.inner", i, inner.version));
                }
            }
            // The body itself is built (and so checked) by `compile`.
            Ok(())
        }
        Step::SendRaw(s) => {
            if let Some(api) = &s.api {
                ResponseBody::info_by_name(api).ok_or_else(|| unknown_api("send_raw", api))?;
            }
            Ok(())
        }
        Step::ExpectResponse(e) => {
            check_pattern(e.body.as_ref())?;
            check_pattern(e.inner.as_ref())
        }
        Step::ExpectOneOf(outcomes) => {
            if outcomes.len() < 2 {
                return Err(StepError::OneOfTooFew);
            }
            let conns: Vec<u32> = outcomes
                .iter()
                .map(|o| match o {
                    super::types::Outcome::Response(r) => r.conn,
                    super::types::Outcome::Close(c) => c.conn,
                })
                .collect();
            if conns.windows(2).any(|w| w[0] != w[1]) {
                return Err(StepError::OneOfConns);
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
                .ok_or_else(|| unknown_api("expect_request", &e.api))?;
            if let Some(size) = &e.encoded_size {
                if size.measure == crate::model::SizeMeasure::ConfigsArray
                    && info.api_key != crate::codec::ApiKey::PUSH_CONFIG
                {
                    return Err(StepError::ConfigsArrayNotPushConfig);
                }
                if size.min.is_none() && size.max.is_none() {
                    return Err(StepError::EncodedSizeUnbounded);
                }
            }
            if let Some(v) = e.version.filter(|v| !info.valid.contains(*v)) {
                return Err(version_error("expect_request", info, v));
            }
            check_pattern(e.body.as_ref())?;
            check_pattern(e.after_ms.as_ref())
        }
        Step::ExpectNoRequest(e) if e.real_time && e.within_ms > MAX_REAL_TIME_WAIT_MS => {
            Err(StepError::RealTimeTooLong {
                within_ms: e.within_ms,
                max_ms: MAX_REAL_TIME_WAIT_MS,
            })
        }
        Step::ExpectNoRequest(e) => match &e.api {
            Some(api) => RequestBody::info_by_name(api)
                .map(|_| ())
                .ok_or_else(|| unknown_api("expect_no_request", api)),
            None => Ok(()),
        },
        Step::ExpectReleased(e) => check_pattern(e.after_ms.as_ref()),
        Step::ExpectEvent(e) => check_pattern(Some(&e.event)),
        Step::ExpectNoEvent { event } => check_pattern(Some(event)),
        _ => Ok(()),
    }
}

fn unknown_api(step: &'static str, api: &str) -> StepError {
    StepError::UnknownApi {
        step,
        api: api.to_owned(),
    }
}

fn version_error(step: &'static str, info: &BodyInfo, version: i16) -> StepError {
    StepError::Version {
        step,
        message: info.message,
        valid: info.valid,
        version,
    }
}

/// Loads every `*.yaml` scenario below `root` (except `requirements.yaml` and files whose
/// name starts with `_`), sorted by id; ids must be unique.
pub fn load_dir(root: &Path) -> Result<Vec<Scenario>, Vec<LoadError>> {
    let mut files = Vec::new();
    collect(root, &mut files);
    files.sort();
    load_many(files.into_iter().map(|f| {
        let loaded = load_file(&f, root);
        (f, loaded)
    }))
}

/// Every loaded scenario sorted by id, or every error (a failed file, a duplicate id).
pub(super) fn load_many(
    loaded: impl Iterator<Item = (PathBuf, Result<Scenario, LoadError>)>,
) -> Result<Vec<Scenario>, Vec<LoadError>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
    for (f, loaded) in loaded {
        match loaded {
            Ok(s) => {
                if let Some(first) = seen.insert(s.file.id.clone(), f.clone()) {
                    errors.push(LoadError {
                        path: f.clone(),
                        line: 1,
                        col: 1,
                        kind: Box::new(LoadErrorKind::Duplicate {
                            id: s.file.id.clone(),
                            first,
                        }),
                        snippet: None,
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

/// True for a file name the loader reads as a scenario: `*.yaml`/`*.yml`, except
/// `requirements.yaml` and names starting with `_`.
pub(super) fn is_scenario_name(name: &str) -> bool {
    (name.ends_with(".yaml") || name.ends_with(".yml"))
        && name != "requirements.yaml"
        && !name.starts_with('_')
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(is_scenario_name)
        {
            out.push(p);
        }
    }
}

/// A request whose answer a later expectation judges.
#[derive(Clone, Copy)]
struct Pending {
    /// The response's schema.
    schema: &'static MessageSchema,
    /// The request's version.
    version: i16,
    /// Index of the step that sent it.
    step: usize,
    /// An Envelope's forwarded request: the schema of its answer and its version.
    inner: Option<(&'static MessageSchema, i16)>,
}

/// Pairs body patterns with the message and version they will be compared with, in step
/// order and exactly as the runner pairs them: per connection, each expectation takes the
/// oldest unanswered `send` (or `send_raw` naming `api` and `version`); per emulated node,
/// each `respond` answers the oldest request taken by an `expect_request` for that node (one
/// without `from` counts for the first node answered).
#[derive(Default)]
struct Pairing {
    sent: BTreeMap<u32, VecDeque<Pending>>,
    /// The requests `expect_request` took, oldest first: node (`None` = not said), the
    /// response's schema, the step.
    asked: VecDeque<(Option<i32>, &'static MessageSchema, usize)>,
    /// A request may have been taken whose API the file does not say (a filtered
    /// `expect_no_request`): later `respond` bodies are not checked.
    asked_unknown: bool,
}

/// The schema of the message `info` names; every dispatched body has one.
fn schema_of(info: &BodyInfo) -> Option<&'static MessageSchema> {
    message_schema(info.message)
}

/// Prefixes a body error's path with the step's own keys.
fn under(kind: &str, inner: &[Seg], e: BodyError) -> BodyError {
    let mut at = vec![Seg::Key(kind.to_owned())];
    at.extend_from_slice(inner);
    at.extend(e.at);
    BodyError {
        at,
        message: format!("{kind}: {}", e.message),
    }
}

impl Pairing {
    fn response(&mut self, conn: u32) -> Option<Pending> {
        self.sent.get_mut(&conn).and_then(VecDeque::pop_front)
    }

    /// Takes the oldest request the client sent to `node`.
    fn answered(&mut self, node: i32) -> Option<(&'static MessageSchema, usize)> {
        let i = self
            .asked
            .iter()
            .position(|(n, _, _)| n.is_none_or(|n| n == node))?;
        self.asked.remove(i).map(|(_, schema, step)| (schema, step))
    }

    fn step(&mut self, i: usize, step: &Step) -> Result<(), BodyError> {
        let body = [Seg::Key("body".into())];
        match step {
            Step::Send(s) => {
                check_sent(&s.api, s.version, s.body.as_ref(), &body)?;
                let inner = match &s.inner {
                    Some(r) => {
                        let at = [Seg::Key("inner".into()), Seg::Key("body".into())];
                        check_sent(&r.api, r.version, r.body.as_ref(), &at)?;
                        let answer = ResponseBody::info_by_name(&r.api).and_then(schema_of);
                        answer.map(|schema| (schema, r.version))
                    }
                    None => None,
                };
                if let Some(schema) = ResponseBody::info_by_name(&s.api).and_then(schema_of) {
                    self.sent.entry(s.conn).or_default().push_back(Pending {
                        schema,
                        version: s.version,
                        step: i,
                        inner,
                    });
                }
            }
            Step::SendRaw(s) => {
                if let (Some(api), Some(version)) = (&s.api, s.version) {
                    if let Some(schema) = ResponseBody::info_by_name(api).and_then(schema_of) {
                        self.sent.entry(s.conn).or_default().push_back(Pending {
                            schema,
                            version,
                            step: i,
                            inner: None,
                        });
                    }
                }
            }
            Step::ExpectResponse(e) => {
                let answered = self.response(e.conn);
                if let (Some(p), Some(b)) = (answered, &e.body) {
                    check_response(b, p, "body").map_err(|x| under("expect_response", &body, x))?;
                }
                if let (Some(p), Some(b)) = (answered, &e.inner) {
                    if let Some((schema, version)) = p.inner {
                        let inner = Pending {
                            schema,
                            version,
                            inner: None,
                            ..p
                        };
                        let at = [Seg::Key("inner".into())];
                        check_response(b, inner, "inner")
                            .map_err(|x| under("expect_response", &at, x))?;
                    }
                }
            }
            Step::ExpectClose(c) => {
                self.response(c.conn);
            }
            Step::ExpectOneOf(outcomes) => {
                let conn = match outcomes.first() {
                    Some(Outcome::Response(r)) => r.conn,
                    Some(Outcome::Close(c)) => c.conn,
                    None => return Ok(()),
                };
                let Some(p) = self.response(conn) else {
                    return Ok(());
                };
                for (j, o) in outcomes.iter().enumerate() {
                    if let Outcome::Response(r) = o {
                        if let Some(b) = &r.body {
                            let inner =
                                [Seg::Index(j), Seg::Key("response".into()), body[0].clone()];
                            check_response(b, p, "body")
                                .map_err(|x| under("expect_one_of", &inner, x))?;
                        }
                    }
                }
            }
            Step::ExpectRequest(e) => {
                let Some(info) = RequestBody::info_by_name(&e.api) else {
                    return Ok(());
                };
                if let (Some(schema), Some(b)) = (schema_of(info), &e.body) {
                    let pinned = e.version.map(|v| [v]);
                    let to = Against {
                        message: schema,
                        versions: pinned.as_ref().map(|v| v.as_slice()),
                        what: "request",
                        note: None,
                        literal: false,
                    };
                    check_body(b, &to).map_err(|x| under("expect_request", &body, x))?;
                }
                match ResponseBody::info(info.api_key).and_then(schema_of) {
                    // An optional request is answered by its own step.
                    _ if e.optional => {}
                    Some(schema) => {
                        self.asked
                            .push_back((e.from.as_ref().and_then(Nodes::single), schema, i))
                    }
                    None => self.asked_unknown = true,
                }
            }
            Step::ExpectNoRequest(e) if e.api.is_some() || e.from.is_some() => {
                self.asked_unknown = true;
            }
            Step::Timeout { node } => {
                self.answered(*node);
            }
            Step::Disconnect { node } => {
                self.asked.retain(|(n, _, _)| *n != Some(*node));
            }
            Step::Respond(r) => {
                let asked = self.answered(r.to);
                if let (Some((schema, from)), Some(b), false) = (asked, &r.body, self.asked_unknown)
                {
                    let note = format!("the answer to the request of step {}", from + 1);
                    let to = Against {
                        message: schema,
                        versions: None,
                        what: "response",
                        note: Some(&note),
                        literal: true,
                    };
                    check_body(b, &to).map_err(|x| under("respond", &body, x))?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Checks a body `send` sends as written (at `at`: `body`, `inner.body`) against the request
/// of `api` at `version`.
fn check_sent(api: &str, version: i16, b: Option<&Value>, at: &[Seg]) -> Result<(), BodyError> {
    let request = RequestBody::info_by_name(api).and_then(schema_of);
    let (Some(schema), Some(b)) = (request, b) else {
        return Ok(());
    };
    let version = [version];
    let to = Against {
        message: schema,
        versions: Some(&version),
        what: "request",
        note: None,
        literal: true,
    };
    let root: Vec<String> = at
        .iter()
        .filter_map(|s| match s {
            Seg::Key(k) => Some(k.clone()),
            _ => None,
        })
        .collect();
    check_body_at(b, &to, &root.join(".")).map_err(|x| under("send", at, x))
}

/// Checks an expected response body against the answer to `p`.
fn check_response(body: &Value, p: Pending, root: &str) -> Result<(), BodyError> {
    let key = crate::codec::ApiKey(p.schema.api_key.unwrap_or(-1));
    let versions = crate::codec::response_body_versions(key, p.version);
    if versions.is_empty() {
        return Ok(());
    }
    let note = format!("the answer to step {}", p.step + 1);
    let to = Against {
        message: p.schema,
        versions: Some(&versions),
        what: "response",
        note: Some(&note),
        literal: false,
    };
    check_body_at(body, &to, root)
}

/// A YAML node with the positions of its keys and elements, for pointing at one place of
/// a file after it was parsed into plain values.
enum Node {
    Map(Vec<(Spanned<Key>, Node)>),
    Seq(Vec<Spanned<Node>>),
    Scalar,
}

/// A mapping key as text (`1` and `"1"` alike).
struct Key(String);

struct KeyVisitor;

impl Visitor<'_> for KeyVisitor {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a scalar key")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Key, E> {
        Ok(Key(v.to_owned()))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Key, E> {
        Ok(Key(v.to_string()))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Key, E> {
        Ok(Key(v.to_string()))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Key, E> {
        Ok(Key(v.to_string()))
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Key, E> {
        Ok(Key(v.to_string()))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Key, E> {
        Ok(Key("null".into()))
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(KeyVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML node")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_i128<E>(self, _: i128) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_u128<E>(self, _: u128) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_str<E>(self, _: &str) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_bytes<E>(self, _: &[u8]) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(x) = a.next_element::<Spanned<Node>>()? {
            items.push(x);
        }
        Ok(Node::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(k) = a.next_key::<Spanned<Key>>()? {
            entries.push((k, a.next_value::<Node>()?));
        }
        Ok(Node::Map(entries))
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

/// `line:col` of the node at `at` inside step `step` of a scenario file's `text`: the key's
/// own position for a mapping key, the element's for an index; as deep as the path can be
/// followed (`None` if not even the step can be found).
pub(crate) fn locate(text: &str, step: usize, at: &[Seg]) -> Option<(u64, u64)> {
    let root: Node = serde_saphyr::from_str(text).ok()?;
    let mut path = vec![Seg::Key("steps".into()), Seg::Index(step)];
    path.extend_from_slice(at);
    let mut node = &root;
    let mut found = None;
    for seg in &path {
        let next = match (seg, node) {
            (Seg::Key(k), Node::Map(entries)) => entries
                .iter()
                .find(|(key, _)| &key.value.0 == k)
                .map(|(key, v)| (&key.referenced, v)),
            (Seg::Index(i), Node::Seq(items)) => items.get(*i).map(|x| (&x.referenced, &x.value)),
            _ => None,
        };
        let Some((loc, n)) = next else { break };
        if loc.line() > 0 {
            found = Some((loc.line(), loc.column()));
        }
        node = n;
    }
    found
}
