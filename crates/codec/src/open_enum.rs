//! The one shape of an open wire-number newtype (`ApiKey(i16)`, `ErrorCode(i16)`): given a
//! type whose `TABLE` is sorted by value and whose rows start `(value, name, ..)`, the
//! [`named_open_newtype!`] macro writes `name()` and the `Debug` / `Display` forms every such
//! type shares. Unknown values have no name and print as their number. Pure; no I/O.

/// `name()`, `Debug` (`INVALID_CONFIG`, or `ErrorCode(-999)` for an unknown value) and
/// `Display` (`INVALID_CONFIG (40)`, or `-999`) for an open newtype with a sorted `TABLE`.
macro_rules! named_open_newtype {
    ($ty:ident) => {
        impl $ty {
            /// The table's name for a known value; `None` for a value it does not name.
            pub fn name(self) -> Option<&'static str> {
                Self::TABLE
                    .binary_search_by_key(&self, |row| row.0)
                    .ok()
                    .map(|i| Self::TABLE[i].1)
            }
        }

        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self.name() {
                    Some(n) => f.write_str(n),
                    None => write!(f, concat!(stringify!($ty), "({})"), self.0),
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self.name() {
                    Some(n) => write!(f, "{n} ({})", self.0),
                    None => write!(f, "{}", self.0),
                }
            }
        }
    };
}

pub(crate) use named_open_newtype;
