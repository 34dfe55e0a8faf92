//! Scenarios: the YAML conformance cases as plain data, their loader (strict, with
//! `file:line:col` errors) and the pattern matcher expectations use. Nothing here performs
//! I/O beyond reading scenario files, and nothing here is async. The shipped suite is also
//! built into the crate (`embedded`), so an installed binary needs no checkout.

pub mod body_schema;
pub mod builder;
pub mod compiled;
pub mod embedded;
pub mod error;
pub mod fill;
pub mod lint;
pub mod load;
pub mod locate;
pub mod matcher;
mod pairing;
pub mod pins;
pub mod schema;
pub mod types;
pub mod validate;

pub use builder::ScenarioBuilder;
pub use compiled::{typed_body, Compiled, Scenario, TypedBody};
pub use embedded::load_embedded;
pub use error::{
    CaptureError, FillError, LoadError, LoadErrorKind, Located, ProfileOverrideError, RepeatError,
    StepError, TypedBodyError,
};
pub use fill::fill_push_config;
pub use lint::{lint_scenario, LintFinding, LintRule};
pub use load::{load_dir, load_file, load_text};
pub use matcher::Mismatch;
pub use pins::{differing_pins, pinned_readings, profile_over};
pub use schema::scenario_schema;
pub use types::{
    BrokerSetup, Capability, ClientSetup, ControllerSetup, Distinct, EmulatedBroker, EncodedSize,
    ExpectCloseStep, ExpectEventStep, ExpectNoRequestStep, ExpectReleasedStep, ExpectRequestStep,
    ExpectResponseStep, Fill, Grade, MatchMode, Nodes, Outcome, Repeat, RespondStep, Role,
    ScenarioFile, SendRawStep, SendStep, Setup, Step, MAX_FILL_BYTES,
};
pub use validate::{rebase, validate};
