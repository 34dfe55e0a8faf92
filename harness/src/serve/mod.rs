//! `kipcheck serve`: kipcheck as a Kafka broker on a real TCP socket, for live clients (and
//! for kipcheck's own `tcp://` target and load driver). Declarations and re-exports only.

pub mod load;
pub mod record;
pub mod script;
pub mod server;

pub use load::{hold_idle, run_load, LoadPlan, LoadReport};
pub use record::{Direction, FrameRecord, Recorder};
pub use script::{PushReply, ScriptError, ScriptStep, ServeScript};
pub use server::{ServeError, ServeOptions, Server};
