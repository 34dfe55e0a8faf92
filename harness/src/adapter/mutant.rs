//! The faulty-variant targets (`--target mutant:NAME`): the reference model with one built-in
//! [`Fault`] switched on, driven exactly like the reference. They exist to measure what the
//! suite catches; this module only wraps the reference session, it judges nothing.

use crate::faulty::{Fault, Faults};
use async_trait::async_trait;

use super::error::SetupError;
use super::reference::{reference_capabilities, ReferenceSession};
use super::target::{AdapterError, Capabilities, Session, SessionConfig, Target};

/// The prefix of a faulty-variant target specification.
pub const MUTANT_PREFIX: &str = "mutant:";

/// The reference with one fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MutantTarget {
    /// The bug this variant has.
    pub fault: Fault,
}

impl MutantTarget {
    /// The variant named by `name` (without the `mutant:` prefix); a usage error listing
    /// every name if there is none.
    pub fn from_name(name: &str) -> Result<Self, AdapterError> {
        Fault::from_name(name)
            .map(|fault| Self { fault })
            .ok_or_else(|| {
                SetupError::UnknownMutant {
                    name: name.to_owned(),
                    available: Fault::names(),
                }
                .into()
            })
    }
}

#[async_trait]
impl Target for MutantTarget {
    fn name(&self) -> String {
        format!("{MUTANT_PREFIX}{}", self.fault.name())
    }

    fn capabilities(&self) -> Capabilities {
        reference_capabilities()
    }

    async fn open(&self, config: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
        Ok(Box::new(ReferenceSession::with_faults(
            config,
            Faults::one(self.fault),
        )?))
    }
}
