//! Validating a parsed scenario: known KIP and roles, profile overrides, every step (known
//! APIs and versions, matchers, fills), captures read only after an earlier step made them,
//! `repeat:` bounds, and every body pattern against the message it will meet (`pairing.rs`);
//! then each step compiled once (`compiled.rs`). Errors are located `file:line:col`. Reads no
//! file (that is `load.rs`) and decides nothing about verdicts.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use super::compiled::{compile, Scenario};
use super::error::{FillError, LoadError, LoadErrorKind, RepeatError, StepError};
use super::locate::{locate, snippet};
use super::matcher::{capture_names, unknown_matcher};
use super::pairing::Pairing;
use super::pins::profile_over;
use super::types::{ExpectRequestStep, Repeat, ScenarioFile, Step, MAX_REAL_TIME_WAIT_MS};
use crate::codec::{BodyInfo, RequestBody, ResponseBody};
use crate::model::SpecProfile;

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

/// [`validate`], with the file's text when there is one: body errors then point at the
/// pattern key itself and carry a snippet.
pub(super) fn validate_in(
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
