//! [`ClientDecisions`] for [`Faulty`]: the client faults, each at the decision it lives at.

use super::Faulty;
#[allow(unused_imports)]
use super::{Fault, REFERENCE};
use crate::model::ClientDecisions;

impl ClientDecisions for Faulty {}
