//! Timed steps on a real clock (docs/live-clients.md): every expected duration is first
//! multiplied by the target's `--time-scale` F, then given the profile's `timing` tolerance
//! (`tolerance_ms + tolerance_ratio × scaled`) on the side where an allowed outcome could
//! land: `after_ms` ranges widen both ways, a wait for something due within W lasts W·F plus
//! the tolerance, a watch that nothing happens within W lasts W·F less the tolerance (so a
//! correct client whose event lands just after W, measured a little early, is not flagged).
//! Pure arithmetic on patterns and numbers; the steps use it in `client_steps.rs`.

use serde_json::{json, Value};

use crate::adapter::client_cmd::properties::scale_ms;
use crate::adapter::client_cmd::MAX_REAL_WAIT_MS;
use crate::model::Timing;

/// Longest wait for the first request after `start` on a real clock: starting the client
/// process (a JVM, an interpreter) is not on the scenario's timeline.
pub const STARTUP_ALLOWANCE_MS: u64 = 10_000;

/// What a real-clock timing record says for the `after_ms` of the first request after `start`,
/// which includes the client process's start-up and is therefore not judged.
pub(super) const STARTUP_NOT_JUDGED: &str = "not judged: includes the client's start-up";

/// The slack a real-clock check allows around an expected `ms`: the profile's
/// `tolerance_ms + tolerance_ratio × ms` (rounded up). The runner's judging slack, not a
/// KIP's number.
fn tolerance(timing: &Timing, ms: u64) -> u64 {
    timing
        .tolerance_ms
        .saturating_add((ms as f64 * timing.tolerance_ratio).ceil() as u64)
}

/// How one scenario's timed steps are judged on a real-clock target.
#[derive(Clone, Debug, PartialEq)]
pub struct RealTiming {
    /// `--time-scale` F.
    pub scale: f64,
    /// The scenario's profile `timing`.
    pub timing: Timing,
}

impl RealTiming {
    /// `ms` of the scenario's timeline on the target's (×F, as the client's `{config}` is).
    pub fn scaled(&self, ms: u64) -> u64 {
        scale_ms(ms, self.scale)
    }

    /// A wait for something due within `ms`: scaled, plus the tolerance, at most
    /// [`MAX_REAL_WAIT_MS`].
    pub fn deadline(&self, ms: u64) -> u64 {
        let s = self.scaled(ms);
        s.saturating_add(tolerance(&self.timing, s))
            .min(MAX_REAL_WAIT_MS)
    }

    /// A watch that nothing happens within `ms`: scaled, less the tolerance (0 stays "so far").
    pub fn quiet(&self, ms: u64) -> u64 {
        let s = self.scaled(ms);
        s.saturating_sub(tolerance(&self.timing, s))
            .min(MAX_REAL_WAIT_MS)
    }

    /// The `[lo, hi]` a measured duration may take for an expected `[lo, hi]`.
    pub fn window(&self, lo: u64, hi: u64) -> (u64, u64) {
        let (l, h) = (self.scaled(lo), self.scaled(hi));
        (
            l.saturating_sub(tolerance(&self.timing, l)),
            h.saturating_add(tolerance(&self.timing, h)),
        )
    }

    /// An `after_ms` pattern on this clock: a number `n` becomes the range around it, a
    /// `$range` widens, `$any_of` / `$all_of` widen each branch; anything else (`$not`, `$any`,
    /// non-numeric bounds) is kept as written.
    pub fn widen(&self, p: &Value) -> Value {
        match p {
            Value::Number(n) => match n.as_u64() {
                Some(n) => {
                    let (lo, hi) = self.window(n, n);
                    json!({ "$range": [lo, hi] })
                }
                None => p.clone(),
            },
            Value::Object(m) if m.len() == 1 => {
                let (op, arg) = m.iter().next().expect("one entry");
                match (op.as_str(), arg) {
                    ("$range", Value::Array(b)) if b.len() == 2 => {
                        match (b[0].as_u64(), b[1].as_u64()) {
                            (Some(lo), Some(hi)) => {
                                let (lo, hi) = self.window(lo, hi);
                                json!({ "$range": [lo, hi] })
                            }
                            _ => p.clone(),
                        }
                    }
                    ("$any_of" | "$all_of", Value::Array(xs)) => {
                        json!({ op.clone(): xs.iter().map(|x| self.widen(x)).collect::<Vec<_>>() })
                    }
                    _ => p.clone(),
                }
            }
            _ => p.clone(),
        }
    }

    /// A `ThrottleTimeMs` (any field of that name) in a response body kipcheck sends, scaled.
    pub fn scale_body(&self, body: &Value) -> Value {
        match body {
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| {
                        let v = match (k.as_str(), v.as_u64()) {
                            ("ThrottleTimeMs", Some(ms)) => Value::from(self.scaled(ms)),
                            _ => self.scale_body(v),
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            Value::Array(xs) => Value::Array(xs.iter().map(|x| self.scale_body(x)).collect()),
            other => other.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_tolerance_is_25_ms_and_10_percent_rounded_up() {
        let t = Timing::default();
        assert_eq!(
            [0, 100, 101, 3000].map(|ms| tolerance(&t, ms)),
            [25, 35, 36, 325]
        );
    }

    fn t(scale: f64) -> RealTiming {
        RealTiming {
            scale,
            timing: Timing::default(),
        }
    }

    #[test]
    fn after_ms_windows_widen_by_25_ms_and_10_percent_of_the_scaled_value() {
        let r = t(1.0);
        assert_eq!(r.window(80, 120), (80 - 33, 120 + 37));
        assert_eq!(r.window(0, 0), (0, 25));
        assert_eq!(
            r.widen(&json!({ "$range": [80, 120] })),
            json!({ "$range": [47, 157] })
        );
        assert_eq!(r.widen(&json!(0)), json!({ "$range": [0, 25] }));
        assert_eq!(r.widen(&json!(3000)), json!({ "$range": [2675, 3325] }));
        assert_eq!(
            r.widen(&json!({ "$any_of": [0, { "$range": [100, 200] }] })),
            json!({ "$any_of": [{ "$range": [0, 25] }, { "$range": [65, 245] }] })
        );
        let kept = json!({ "$not": { "$range": [0, 10] } });
        assert_eq!(r.widen(&kept), kept);
    }

    #[test]
    fn time_scale_applies_before_the_tolerance() {
        let r = t(0.1);
        // 800..1000 ms at F = 0.1 is 80..100 ms, then 25 ms + 10 %.
        assert_eq!(r.window(800, 1000), (80 - 33, 100 + 35));
        assert_eq!(r.deadline(1000), 100 + 35);
        assert_eq!(r.quiet(120_000), 12_000 - 1225);
        assert_eq!(r.quiet(100), 0);
        assert_eq!(r.quiet(0), 0);
        assert_eq!(t(1.0).deadline(1_000_000), MAX_REAL_WAIT_MS);
    }

    #[test]
    fn throttle_times_kipcheck_sends_are_scaled() {
        let r = t(0.5);
        assert_eq!(
            r.scale_body(
                &json!({ "ThrottleTimeMs": 3000, "ErrorCode": 0, "X": [{ "ThrottleTimeMs": 1 }] })
            ),
            json!({ "ThrottleTimeMs": 1500, "ErrorCode": 0, "X": [{ "ThrottleTimeMs": 1 }] })
        );
    }
}
