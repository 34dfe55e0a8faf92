//! The scenario file format as plain data: metadata words, setup, steps and the whole file.
//! Parsing is strict (unknown fields are errors). Nothing here runs anything; the runner
//! interprets steps. This file only declares the parts and re-exports their names, so
//! `scenario::types::X` paths stay as they were.

pub mod file;
pub mod kinds;
pub mod setup;
pub mod steps;

pub use file::{Distinct, Repeat, ScenarioFile};
pub(crate) use kinds::serde_name;
pub use kinds::{Capability, Grade, Role};
pub use setup::{
    BrokerSetup, ClientSetup, ControllerSetup, EmulatedBroker, MvValidatorSetup, Setup,
};
pub use steps::{
    EncodedSize, ExpectCloseStep, ExpectEventStep, ExpectNoRequestStep, ExpectReleasedStep,
    ExpectRequestStep, ExpectResponseStep, Fill, InnerRequest, MatchMode, Nodes, Outcome,
    RespondStep, SendRawStep, SendStep, Step, MAX_FILL_BYTES, MAX_REAL_TIME_WAIT_MS,
};
