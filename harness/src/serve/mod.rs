//! `kipcheck serve`: kipcheck as a Kafka broker on a real TCP socket, for live clients (and
//! for kipcheck's own `tcp://` target and load driver), or (`--role controller`) as the
//! reference KRaft controller with its metadata log served over Fetch. Declarations and
//! re-exports only.

pub mod controller;
pub mod definitions;
pub mod load;
pub mod manifest;
pub mod record;
pub mod script;
pub mod server;

pub use controller::{
    is_controller_fault, ControllerOptions, ControllerSetupError, FailoverFailed,
};
pub use definitions::served_definitions;
pub use load::{hold_idle, run_load, LoadPlan, LoadReport};
pub use manifest::{render_manifest, served_manifest, ManifestFacts};
pub use record::{Direction, FrameRecord, Recorder};
pub use script::{PushReply, ScriptError, ScriptStep, ServeScript};
pub use server::{ServeError, ServeOptions, Server};
