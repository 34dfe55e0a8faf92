//! [`BrokerDecisions`]: the decisions the broker model takes, each with the reference's answer as
//! its default body.

use std::fmt::Debug;

/// The decisions of the broker model; every default is the reference (see the module docs of
/// `decisions`).
pub trait BrokerDecisions: Debug + Send + Sync {}
