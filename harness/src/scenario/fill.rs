//! Builds a PushConfig body of an exact size under a size measure (the boundary scenarios'
//! `fill:`), so `client.config.max.bytes` is tested at exactly max and max + 1. The loader
//! builds it once, when the file loads; a size that cannot be built is a load error.

use super::error::FillError;
use super::types::Fill;
use crate::codec::{push_config_request, Message, PushConfigRequest};

/// Builds a PushConfig body whose size under the fill's measure is exactly `fill.size`.
pub fn fill_push_config(fill: &Fill) -> Result<PushConfigRequest, FillError> {
    let entry = |key: String, len: usize| push_config_request::Config {
        config_key: key.into(),
        config_value: "x".repeat(len).into(),
        config_type: 1,
        is_default: false,
        ..Default::default()
    };
    let size = |req: &PushConfigRequest| -> usize {
        let body = req.encoded_len(0).unwrap_or(usize::MAX);
        crate::model::broker::measure(fill.measure, req, body)
    };
    if fill.size > crate::scenario::MAX_FILL_BYTES {
        return Err(FillError::TooLarge {
            size: fill.size,
            max: crate::scenario::MAX_FILL_BYTES,
        });
    }
    let mut req = PushConfigRequest::default();
    // Whole entries of up to 8000 value bytes, then one entry tuned to hit the size exactly.
    // Each entry adds over 8000 bytes under every measure, so this many always suffice. The
    // keys are distinct, so under `key_value_bytes` every entry counts (no de-duplication);
    // that measure cannot be filled below one key's length (a load error).
    let max_entries = fill.size / 8000 + 1;
    while req.configs.len() < max_entries {
        let mut trial = req.clone();
        trial
            .configs
            .push(entry(format!("kipcheck.fill.{}", req.configs.len()), 8000));
        if size(&trial).saturating_add(64) > fill.size {
            break;
        }
        req = trial;
    }
    for key_pad in 0..4usize {
        let key = format!("kipcheck.fill.{}{}", req.configs.len(), "k".repeat(key_pad));
        let mut base = req.clone();
        base.configs.push(entry(key.clone(), 0));
        let s0 = size(&base);
        if s0 > fill.size {
            continue;
        }
        let mut n = fill.size - s0;
        for _ in 0..4 {
            let mut t = req.clone();
            t.configs.push(entry(key.clone(), n));
            let s = size(&t);
            if s == fill.size {
                return Ok(t);
            }
            if s > fill.size {
                n = n.saturating_sub(s - fill.size);
            } else {
                n += fill.size - s;
            }
        }
    }
    if req.configs.is_empty() && size(&req) == fill.size {
        return Ok(req);
    }
    Err(FillError::Unreachable { size: fill.size })
}
