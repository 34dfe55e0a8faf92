//! [`Leaf`]: a leaf value of ours (int, string, UUID, bytes, and options and lists of them)
//! and its kafka-protocol counterpart, both ways, for the generated field mappings. Maps
//! values only; compares nothing.

use std::fmt::Debug;

use bytes::Bytes as KBytes;
use kafka_protocol::messages as kp;
use kafka_protocol::protocol::StrBytes;

use crate::codec::{Bytes, KString, SmallVec, Uuid};

/// A leaf value of ours (int, string, UUID, bytes, and options and lists of them) and its
/// kafka-protocol counterpart `K`, both ways. The generated code names only our type;
/// kafka-protocol's (`StrBytes` or an entity newtype such as `TopicName`, `BrokerId`) is
/// inferred from its field.
pub trait Leaf<K>: Sized {
    /// Our value as kafka-protocol's.
    fn to_kp(&self) -> K;
    /// kafka-protocol's value as ours.
    fn from_kp(k: &K) -> Self;
}

macro_rules! same_leaf {
    ($($t:ty),*) => {$(
        impl Leaf<$t> for $t {
            fn to_kp(&self) -> $t {
                *self
            }
            fn from_kp(k: &$t) -> $t {
                *k
            }
        }
    )*};
}
same_leaf!(bool, i8, i16, u16, i32, u32, i64, f64);

impl Leaf<kp::BrokerId> for i32 {
    fn to_kp(&self) -> kp::BrokerId {
        kp::BrokerId(*self)
    }
    fn from_kp(k: &kp::BrokerId) -> i32 {
        k.0
    }
}

impl Leaf<StrBytes> for KString {
    fn to_kp(&self) -> StrBytes {
        StrBytes::from_string(self.to_string())
    }
    fn from_kp(k: &StrBytes) -> KString {
        KString::from(k.as_str())
    }
}

impl Leaf<kp::TopicName> for KString {
    fn to_kp(&self) -> kp::TopicName {
        kp::TopicName(self.to_kp())
    }
    fn from_kp(k: &kp::TopicName) -> KString {
        KString::from(k.0.as_str())
    }
}

impl Leaf<KBytes> for Bytes {
    fn to_kp(&self) -> KBytes {
        KBytes::from(self.0.clone())
    }
    fn from_kp(k: &KBytes) -> Bytes {
        Bytes(k.to_vec())
    }
}

/// `kafka-protocol` does not re-export `uuid`: any 16-byte type its fields use.
impl<U: TryFrom<Vec<u8>> + AsRef<[u8]>> Leaf<U> for Uuid
where
    U::Error: Debug,
{
    fn to_kp(&self) -> U {
        self.0.to_vec().try_into().expect("16 bytes")
    }
    fn from_kp(k: &U) -> Uuid {
        Uuid(k.as_ref().try_into().expect("16 bytes"))
    }
}

impl<O: Leaf<K>, K> Leaf<Option<K>> for Option<O> {
    fn to_kp(&self) -> Option<K> {
        self.as_ref().map(O::to_kp)
    }
    fn from_kp(k: &Option<K>) -> Option<O> {
        k.as_ref().map(O::from_kp)
    }
}

impl<O: Leaf<K>, K> Leaf<Vec<K>> for Vec<O> {
    fn to_kp(&self) -> Vec<K> {
        self.iter().map(O::to_kp).collect()
    }
    fn from_kp(k: &Vec<K>) -> Vec<O> {
        k.iter().map(O::from_kp).collect()
    }
}

/// Our arrays of fixed-size primitives ([`SmallVec`]) are kafka-protocol's `Vec`s.
impl<O: Leaf<K>, K, const N: usize> Leaf<Vec<K>> for SmallVec<[O; N]> {
    fn to_kp(&self) -> Vec<K> {
        self.iter().map(O::to_kp).collect()
    }
    fn from_kp(k: &Vec<K>) -> SmallVec<[O; N]> {
        k.iter().map(O::from_kp).collect()
    }
}
