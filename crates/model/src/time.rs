//! Simulated time for the model: [`Millis`], a point on a millisecond clock that the caller
//! owns. The model never reads a clock; every handler takes `now` as a value.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A point in simulated time, in milliseconds since the simulation began.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Millis(pub u64);

impl Millis {
    /// The start of the simulation.
    pub const ZERO: Millis = Millis(0);

    /// `self + ms`, saturating at `u64::MAX`.
    pub fn plus(self, ms: u64) -> Millis {
        Millis(self.0.saturating_add(ms))
    }
}

impl fmt::Debug for Millis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ms", self.0)
    }
}

impl fmt::Display for Millis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ms", self.0)
    }
}
