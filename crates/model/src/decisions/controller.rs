//! [`ControllerDecisions`]: the decisions the controller model takes, each with the reference's answer as
//! its default body.

use std::fmt::Debug;

/// The decisions of the controller model; every default is the reference (see the module docs of
/// `decisions`).
pub trait ControllerDecisions: Debug + Send + Sync {}
