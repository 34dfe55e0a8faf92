//! Matching an expected pattern (from a scenario file) against an actual value (a decoded
//! message or event, as JSON). Patterns are plain values plus a few matchers written as a
//! one-key mapping or a string:
//!
//! | pattern | matches |
//! |---|---|
//! | `"$any"` | anything present |
//! | `"$absent"` | the field is absent (not in this version, or not set) |
//! | `{$any_of: [p, …]}` | any of the patterns |
//! | `{$all_of: [p, …]}` | every one of the patterns |
//! | `{$not: p}` | anything `p` does not match |
//! | `{$range: [min, max]}` | a number in the inclusive range |
//! | `{$contains: "s"}` | a string containing `s` |
//! | `{$contains: [p, …]}` | an array with, for each pattern, some element matching it |
//! | `{$each: p}` | an array whose every element matches `p` |
//! | `{$len: n}` | an array or string of length `n` |
//! | `{$capture: name}` | anything present; remembers it as `name` for later steps |
//! | `{$eq_captured: name}` | a value equal to the one captured as `name` |
//! | `{$ne_captured: name}` | a present value different from the one captured as `name` |
//!
//! Captures relate values across the steps of one scenario run (e.g. a broker epoch: a new
//! one after re-registration, the same one after failover) without fixing the values
//! themselves. They live in a [`Captures`] map the caller owns and passes to
//! [`compare_with`]; a capture is kept only when the whole pattern matched, and a later
//! capture of a name replaces the earlier one. The loader checks that every name is captured
//! in an earlier step than the one that reads it ([`capture_names`]). [`compare`] has no map:
//! there `$capture` is `$any` and the relations are not judged.
//!
//! Under a key ending in `ErrorCode`, a string pattern is an error-code name
//! (`INVALID_CONFIG`); under `ApiKey`, an API name (`PushConfig`). Provisional numbers
//! resolve to the profile's.
//! Pure: no I/O.
//!
//! The parts: `matching.rs` matches a pattern against a value (and keeps captures);
//! `names.rs` is the patterns' vocabulary read without a value (the matcher names, capture
//! names, operands, error-code and API names). This file only declares them and re-exports
//! their names, so `scenario::matcher::X` paths stay as they were.

pub mod matching;
pub mod names;
#[cfg(test)]
mod tests;

pub use matching::{compare, compare_with, render, Captures, Mismatch};
pub use names::{
    capture_names, error_code_by_name, holds_api_key, holds_error_code, operands, resolve_names,
    unknown_matcher, Operands, OperandsMatch, MATCHERS,
};
