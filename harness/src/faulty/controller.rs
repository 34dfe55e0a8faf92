//! [`ControllerDecisions`] for [`Faulty`]: the controller faults, each at the decision it lives at.

use super::Faulty;
#[allow(unused_imports)]
use super::{Fault, REFERENCE};
use crate::model::ControllerDecisions;

impl ControllerDecisions for Faulty {}
