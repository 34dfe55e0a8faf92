//! A loaded scenario ([`Scenario`]) and what the loader prepares for its steps ([`Compiled`]):
//! request bodies built from their patterns, `fill:` resolved, raw hex decoded; and
//! [`typed_body`], the one conversion of a body pattern into a typed request or response.
//! Builds values only: reads no file, validates nothing (that is `validate.rs`) and decides
//! nothing about verdicts.

use serde_json::Value;

use super::error::{StepError, TypedBodyError};
use super::matcher::resolve_names;
use super::types::{ScenarioFile, Step};
use crate::codec::{ApiKey, BodyInfo, ProvisionalNumbers, RequestBody, ResponseBody};
use crate::model::SpecProfile;
use std::path::PathBuf;

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
pub(super) fn compile(step: &Step, numbers: &ProvisionalNumbers) -> Result<Compiled, StepError> {
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
