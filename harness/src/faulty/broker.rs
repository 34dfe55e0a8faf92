//! [`BrokerDecisions`] for [`Faulty`]: the broker faults, each at the decision it lives at.

use super::Faulty;
#[allow(unused_imports)]
use super::{Fault, REFERENCE};
use crate::model::BrokerDecisions;

impl BrokerDecisions for Faulty {}
