//! The traits the generated code implements: [`Pair`] (one message definition in both
//! codecs: versions, field comparison, field-by-field mapping) and [`Visit`] (a function of a
//! pair, picked by index). Declarations only: the driver is `check.rs`.

use std::fmt::Debug;

use arbitrary::Arbitrary;
use kafka_protocol::protocol::{Decodable, Encodable};

use super::cmp::Cmp;
use crate::codec::Message;

/// A function of a [`Pair`] type, for [`generated::visit`](super::generated::visit) (which picks the pair by index).
pub trait Visit {
    /// What the function returns.
    type Out;
    /// Runs it for `P`.
    fn visit<P: Pair>(self) -> Self::Out;
}

/// One message definition in both codecs.
pub trait Pair {
    /// kipcheck's message.
    type Ours: Message + for<'a> Arbitrary<'a>;
    /// kafka-protocol's message.
    type Theirs: Decodable + Encodable + Debug + kafka_protocol::protocol::Message;
    /// Versions both codecs support.
    const VERSIONS: std::ops::RangeInclusive<i16>;
    /// Every field of `version`, nested ones included.
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16);
    /// The same message as a kafka-protocol value, field by field (`o` is projected).
    fn to_theirs(o: &Self::Ours, v: i16) -> Self::Theirs;
}
