//! [`ClientDecisions`]: the decisions the client model takes, each with the reference's answer as
//! its default body.

use std::fmt::Debug;

/// The decisions of the client model; every default is the reference (see the module docs of
/// `decisions`).
pub trait ClientDecisions: Debug + Send + Sync {}
