//! [`pick_response`]: the fuzz corpus's way of naming a response (API and version) with two
//! bytes. The top of the codec's layering: it reads the generated [`ResponseBody`] list, and
//! nothing in the codec imports it.

use super::{ApiKey, ResponseBody};

/// Picks the API and version for a response from the first two input bytes (the
/// `decode_response` fuzz corpus's format: the fuzz target and the Java-codec oracle, which
/// replays that corpus, both read it with this one function).
pub fn pick_response(data: &[u8]) -> Option<(ApiKey, i16, &[u8])> {
    let (&a, rest) = data.split_first()?;
    let (&v, rest) = rest.split_first()?;
    let info = ResponseBody::KNOWN.get(usize::from(a) % ResponseBody::KNOWN.len())?;
    let span = (info.valid.max - info.valid.min + 1) as u16;
    let version = info.valid.min + (u16::from(v) % span) as i16;
    Some((info.api_key, version, rest))
}
