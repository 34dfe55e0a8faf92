//! A whole scenario file as parsed ([`ScenarioFile`]): metadata, profile pins, setup, steps
//! with their positions, and `repeat:`. Plain data: parsing is strict (unknown fields are
//! errors) and nothing here validates or runs it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_saphyr::Spanned;

use super::kinds::{Capability, Grade, Role};
use super::setup::Setup;
use super::steps::Step;

/// A parsed scenario file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Unique id; must equal the file stem.
    pub id: String,
    /// One-line title.
    pub title: String,
    /// `KIP-1324`, `KIP-1326`, `KIP-1294` or `KIP-1256`.
    pub kip: String,
    /// Requirement ids from `scenarios/requirements.yaml`.
    #[serde(default)]
    pub requirements: Vec<String>,
    /// MUST or SHOULD.
    pub grade: Grade,
    /// Roles the target plays.
    pub roles: Vec<Role>,
    /// Capabilities needed beyond what the steps imply.
    #[serde(default)]
    pub requires: Vec<Capability>,
    /// Spec profile overrides (merged over the built-in default profile).
    #[serde(default)]
    pub profile: Option<Value>,
    /// Free-form tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Setup.
    #[serde(default)]
    pub setup: Setup,
    /// Steps, with their positions in the file.
    #[schemars(with = "Vec<Step>")]
    pub steps: Vec<Spanned<Step>>,
    /// Run the steps several times, each run a fresh session with the next seed, and judge
    /// what must vary across runs (a random choice): see [`Repeat`].
    #[serde(default)]
    #[schemars(with = "Option<Repeat>")]
    pub repeat: Option<Spanned<Repeat>>,
}

/// A scenario run several times: every run must pass, then each `distinct` capture must have
/// taken enough different values across the runs. For requirements about randomness ("a
/// randomly selected node"), which one run cannot show.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Repeat {
    /// How many runs (2 to 64). Run k (from 0) uses seed `seed + k`; a live target gets a new
    /// session (a new client process) per run.
    pub runs: u32,
    /// Captures that must vary across the runs.
    #[serde(default)]
    pub distinct: Vec<Distinct>,
}

/// A capture that must take at least `at_least` different values across a repeat's runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Distinct {
    /// The capture's name (a `$capture` or a `capture_node` of the steps).
    pub capture: String,
    /// The fewest different values that pass (2 to `runs`).
    pub at_least: usize,
}
