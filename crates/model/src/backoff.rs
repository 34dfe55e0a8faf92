//! Retry backoff as Kafka's `org.apache.kafka.common.utils.ExponentialBackoff` computes it:
//! `retry.backoff.ms × 2^n`, the exponent capped where the term reaches `retry.backoff.max.ms`,
//! times a random factor in `[1 − jitter, 1 + jitter)` from the model's seeded RNG, and the
//! result capped at the maximum. Computes delays only; scheduling is the client's job.

use super::rng::ModelRng;

/// The backoff parameters of one client.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExponentialBackoff {
    /// `retry.backoff.ms`.
    pub initial_ms: u64,
    /// `retry.backoff.max.ms`.
    pub max_ms: u64,
    /// Relative jitter, e.g. 0.2.
    pub jitter: f64,
}

/// The multiplier Kafka's clients use for retries.
pub const RETRY_BACKOFF_MULTIPLIER: f64 = 2.0;

impl ExponentialBackoff {
    /// `initial × 2^min(attempts, exp_max)`, before jitter and cap: the growing term.
    pub fn term(&self, attempts: u32) -> f64 {
        let exp_max = if self.max_ms > self.initial_ms {
            (self.max_ms as f64 / self.initial_ms.max(1) as f64).ln()
                / RETRY_BACKOFF_MULTIPLIER.ln()
        } else {
            0.0
        };
        if exp_max == 0.0 {
            return self.initial_ms as f64;
        }
        let exp = f64::from(attempts).min(exp_max);
        self.initial_ms as f64 * RETRY_BACKOFF_MULTIPLIER.powf(exp)
    }

    /// The delay before retry number `attempts + 1` (`attempts` failures so far, from 0).
    /// Draws one number from `rng` unless jitter is zero or the backoff is constant.
    pub fn delay(&self, attempts: u32, rng: &mut ModelRng) -> u64 {
        if self.max_ms <= self.initial_ms {
            return self.initial_ms;
        }
        let term = self.term(attempts);
        // With jitter 0 the range is empty: range_f64 gives 1.0 and draws nothing.
        let factor = rng.range_f64(1.0 - self.jitter, 1.0 + self.jitter);
        let value = (factor * term) as u64;
        value.min(self.max_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kafka_default_terms() {
        let b = ExponentialBackoff {
            initial_ms: 100,
            max_ms: 1000,
            jitter: 0.2,
        };
        let terms: Vec<u64> = (0..6).map(|n| b.term(n).round() as u64).collect();
        assert_eq!(terms, [100, 200, 400, 800, 1000, 1000]);
        assert_eq!(b.bounds(0), (80, 120));
        assert_eq!(b.bounds(5), (800, 1000));
    }

    #[test]
    fn zero_jitter_is_exact_and_constant_backoff_is_initial() {
        let mut rng = ModelRng::new(1);
        let b = ExponentialBackoff {
            initial_ms: 100,
            max_ms: 1000,
            jitter: 0.0,
        };
        assert_eq!(b.delay(2, &mut rng), 400);
        let c = ExponentialBackoff {
            initial_ms: 100,
            max_ms: 100,
            jitter: 0.2,
        };
        assert_eq!(c.delay(7, &mut rng), 100);
    }
}
