//! Field-by-field comparison of our value with kafka-protocol's: [`Cmp`] collects every
//! mismatch as `path: ours … != kafka-protocol …` (the generated `Pair::compare` calls it per
//! field), plus the string and tagged-field views both sides are compared in. Generates and
//! encodes nothing.

use std::collections::BTreeMap;
use std::fmt::Debug;

use bytes::Bytes as KBytes;
use kafka_protocol::protocol::StrBytes;

use crate::codec::TaggedFields;

/// Collects mismatches as `path: ours … != kafka-protocol …`.
#[derive(Default)]
pub struct Cmp {
    /// The mismatches found so far.
    pub errs: Vec<String>,
}

impl Cmp {
    /// Records a mismatch unless `ours == theirs`.
    pub fn eq<T: PartialEq + Debug>(&mut self, path: &str, ours: T, theirs: T) {
        if ours != theirs {
            self.errs.push(format!(
                "{path}: ours {ours:?} != kafka-protocol {theirs:?}"
            ));
        }
    }

    /// A field the version has: ours must hold `Some`.
    pub fn present<'a, T>(&mut self, path: &str, v: &'a Option<T>) -> Option<&'a T> {
        if v.is_none() {
            self.errs
                .push(format!("{path}: exists in this version but ours is None"));
        }
        v.as_ref()
    }

    /// A field the version lacks: ours must hold `None`.
    pub fn absent<T: Debug>(&mut self, path: &str, v: &Option<T>) {
        if let Some(v) = v {
            self.errs.push(format!(
                "{path}: absent in this version but ours holds {v:?}"
            ));
        }
    }

    /// A field that `exists` in the version or not: [`Self::present`] or [`Self::absent`];
    /// the value when it exists and ours holds it.
    pub fn versioned<'a, T: Debug>(
        &mut self,
        path: &str,
        exists: bool,
        v: &'a Option<T>,
    ) -> Option<&'a T> {
        if exists {
            self.present(path, v)
        } else {
            self.absent(path, v);
            None
        }
    }

    /// Compares lengths, then element by element with `f`.
    pub fn list<O, T>(
        &mut self,
        path: &str,
        o: &[O],
        t: &[T],
        mut f: impl FnMut(&mut Self, &str, &O, &T),
    ) {
        self.eq(&format!("{path}.len()"), o.len(), t.len());
        for (i, (o, t)) in o.iter().zip(t).enumerate() {
            f(self, &format!("{path}[{i}]"), o, t);
        }
    }

    /// A nullable value: both null, or both not null and compared with `f`.
    pub fn nullable<O, T>(
        &mut self,
        path: &str,
        o: &Option<O>,
        t: &Option<T>,
        f: impl FnOnce(&mut Self, &str, &O, &T),
    ) {
        match (o, t) {
            (Some(o), Some(t)) => f(self, path, o, t),
            (o, t) => self.eq(&format!("{path} is null"), o.is_none(), t.is_none()),
        }
    }

    /// Unknown tagged fields: compared in flexible versions, must be empty otherwise.
    pub fn tags(
        &mut self,
        path: &str,
        flexible: bool,
        o: &TaggedFields,
        t: &BTreeMap<i32, KBytes>,
    ) {
        let path = format!("{path}._tagged");
        let o: Vec<(i64, &[u8])> = o.0.iter().map(|(k, v)| (i64::from(*k), &v.0[..])).collect();
        let t: Vec<(i64, &[u8])> = t.iter().map(|(k, v)| (i64::from(*k), &v[..])).collect();
        if flexible {
            self.eq(&path, o, t);
        } else {
            self.eq(&path, o, Vec::new());
            self.eq(&format!("{path} (kafka-protocol)"), t, Vec::new());
        }
    }
}

/// A kafka-protocol string as `&str`.
pub fn st(s: &StrBytes) -> &str {
    s.as_str()
}

/// Our unknown tagged fields as kafka-protocol keeps them (`i32` keys; [`sanitize`](super::sanitize) has
/// removed the tags above `i32::MAX` it cannot hold).
pub(crate) fn ktags(t: &TaggedFields) -> BTreeMap<i32, KBytes> {
    t.0.iter()
        .map(|(k, v)| {
            let k = i32::try_from(*k).expect("sanitize keeps tags <= i32::MAX");
            (k, KBytes::from(v.0.clone()))
        })
        .collect()
}
