//! A Rust builder for scenarios: the same [`ScenarioFile`] and [`Step`] vocabulary the YAML
//! files use, validated by the same code, so a scenario written in Rust (a test, a generated
//! case) runs through the same runner as one loaded from a file. Plain data; no I/O.

use std::path::PathBuf;

use serde_json::Value;
use serde_saphyr::{Location, Spanned};

use super::compiled::Scenario;
use super::error::LoadError;
use super::types::Grade;
use super::types::{
    Capability, ExpectRequestStep, ExpectResponseStep, MatchMode, RespondStep, Role, ScenarioFile,
    SendStep, Setup, Step,
};
use super::validate::validate;

/// Builds a [`Scenario`] step by step.
#[derive(Clone, Debug)]
pub struct ScenarioBuilder {
    file: ScenarioFile,
}

impl ScenarioBuilder {
    /// A MUST scenario with no roles, setup or steps yet.
    pub fn new(id: &str, title: &str, kip: &str) -> Self {
        Self {
            file: ScenarioFile {
                id: id.to_owned(),
                title: title.to_owned(),
                kip: kip.to_owned(),
                requirements: Vec::new(),
                grade: Grade::Must,
                roles: Vec::new(),
                requires: Vec::new(),
                profile: None,
                tags: Vec::new(),
                setup: Setup::default(),
                steps: Vec::new(),
                repeat: None,
            },
        }
    }

    /// Sets the grade.
    pub fn grade(mut self, grade: Grade) -> Self {
        self.file.grade = grade;
        self
    }

    /// Adds a role the target plays.
    pub fn role(mut self, role: Role) -> Self {
        self.file.roles.push(role);
        self
    }

    /// Adds a requirement id from the ledger.
    pub fn requirement(mut self, id: &str) -> Self {
        self.file.requirements.push(id.to_owned());
        self
    }

    /// Adds a tag.
    pub fn tag(mut self, tag: &str) -> Self {
        self.file.tags.push(tag.to_owned());
        self
    }

    /// Adds a required capability.
    pub fn requires(mut self, c: Capability) -> Self {
        self.file.requires.push(c);
        self
    }

    /// Sets the spec-profile overrides.
    pub fn profile(mut self, overrides: Value) -> Self {
        self.file.profile = Some(overrides);
        self
    }

    /// Sets the setup.
    pub fn setup(mut self, setup: Setup) -> Self {
        self.file.setup = setup;
        self
    }

    /// Appends any step.
    pub fn step(mut self, step: Step) -> Self {
        self.file
            .steps
            .push(Spanned::new(step, Location::UNKNOWN, Location::UNKNOWN));
        self
    }

    /// Appends `send: {api, version, body}` on connection 0.
    pub fn send(self, api: &str, version: i16, body: Value) -> Self {
        self.step(Step::Send(SendStep {
            api: api.to_owned(),
            version,
            conn: 0,
            body: Some(body),
            fill: None,
            client_id: None,
            inner: None,
        }))
    }

    /// Appends `expect_response: {body}` (subset match) on connection 0.
    pub fn expect_response(self, body: Value) -> Self {
        self.step(Step::ExpectResponse(ExpectResponseStep {
            conn: 0,
            body: Some(body),
            mode: MatchMode::Subset,
            inner: None,
        }))
    }

    /// Appends `expect_request: {api, body}` (from any node, within 1000 ms).
    pub fn expect_request(self, api: &str, body: Option<Value>) -> Self {
        self.step(Step::ExpectRequest(ExpectRequestStep {
            from: None,
            api: api.to_owned(),
            version: None,
            body,
            mode: MatchMode::Subset,
            within_ms: 1000,
            after_ms: None,
            encoded_size: None,
            capture_node: None,
            optional: false,
        }))
    }

    /// Appends `respond: {to, body}`.
    pub fn respond(self, to: i32, body: Option<Value>) -> Self {
        self.step(Step::Respond(RespondStep { to, body }))
    }

    /// The scenario file as YAML, exactly as a file would hold it.
    pub fn to_yaml(&self) -> String {
        serde_saphyr::to_string(&self.file).unwrap_or_default()
    }

    /// Validates and returns the scenario (errors name `<builder>/<id>`).
    pub fn build(self) -> Result<Scenario, LoadError> {
        let path = PathBuf::from(format!("<builder>/{}", self.file.id));
        validate(self.file, &path, "builder")
    }
}
