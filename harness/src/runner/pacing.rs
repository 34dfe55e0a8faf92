//! Pacing of scenarios on a real clock (`client-cmd:` and `tcp://` targets): how many of the
//! scenarios in flight may be *busy* at once, and in which order they start.
//!
//! A live scenario spends most of its wall time in long quiet watches ("no PushConfig within
//! 120 s", scaled) that need no CPU and are not hurt by a late peer, and a short busy part
//! (starting the client process, the handshake, backoff timings of tens of ms) that is. So
//! `--jobs` scenarios may be in flight, but only `--active-jobs` of them busy: a scenario takes
//! a busy slot before its session opens and gives it back for good at its first quiet watch of
//! at least [`QUIET_RELEASE_MS`] real ms (or when it ends). Longest scenarios start first, so
//! the run is not left waiting on one long scenario started last.
//!
//! This module owns only the slots and the order; it judges nothing and must not change what a
//! scenario's steps wait for.

use std::cmp::Reverse;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use crate::scenario::{Scenario, Step};

/// A quiet watch (`expect_no_request`, `expect_no_release`, `advance`) at least this long on
/// the real clock lets the scenario's busy slot go while it lasts.
pub const QUIET_RELEASE_MS: u64 = 500;

/// The busy slots of one run: how many scenarios are busy, and the limit new ones wait for.
#[derive(Debug)]
struct Slots {
    busy: Mutex<usize>,
    limit: usize,
    freed: Notify,
}

impl Slots {
    fn take(&self) {
        if let Ok(mut b) = self.busy.lock() {
            *b += 1;
        }
    }

    fn give(&self) {
        if let Ok(mut b) = self.busy.lock() {
            *b = b.saturating_sub(1);
        }
        self.freed.notify_waiters();
    }
}

/// The busy slots of one run (cheap to clone: the clones share them).
#[derive(Clone, Debug)]
pub struct Pacer {
    slots: Arc<Slots>,
}

impl Pacer {
    /// At most `active` scenarios start while `active` are busy (at least 1).
    pub fn new(active: usize) -> Self {
        Self {
            slots: Arc::new(Slots {
                busy: Mutex::new(0),
                limit: active.max(1),
                freed: Notify::new(),
            }),
        }
    }

    /// Waits until fewer than the limit are busy and takes a slot; the returned [`Pace`] holds
    /// it until the scenario's quiet watches give it back, or it is dropped.
    pub async fn admit(&self) -> Pace {
        loop {
            let freed = self.slots.freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            if let Ok(mut b) = self.slots.busy.lock() {
                if *b < self.slots.limit {
                    *b += 1;
                    return Pace(Some(Arc::new(Held {
                        slots: Arc::clone(&self.slots),
                        held: AtomicBool::new(true),
                    })));
                }
            }
            freed.await;
        }
    }

    /// Scenarios busy now.
    pub fn busy(&self) -> usize {
        self.slots.busy.lock().map_or(0, |b| *b)
    }
}

/// One scenario's slot: given back when the last clone of its [`Pace`] goes.
#[derive(Debug)]
struct Held {
    slots: Arc<Slots>,
    held: AtomicBool,
}

impl Drop for Held {
    fn drop(&mut self) {
        if self.held.swap(false, Ordering::SeqCst) {
            self.slots.give();
        }
    }
}

/// One scenario's busy slot, if the run paces scenarios (cheap to clone: the clones share it).
/// `Pace::default()` paces nothing (in-process targets): every call is a no-op.
#[derive(Clone, Debug, Default)]
pub struct Pace(Option<Arc<Held>>);

impl Pace {
    /// The scenario is about to watch `real_ms` of quiet: from [`QUIET_RELEASE_MS`] on, its
    /// slot goes to a waiting scenario while the watch lasts.
    pub fn quiet(&self, real_ms: u64) {
        if real_ms >= QUIET_RELEASE_MS {
            self.release();
        }
    }

    /// The watch is over: the scenario is busy again at once. It never waits for a slot (a
    /// wait would shift its own timeline), so the busy count may pass the limit for a while;
    /// new scenarios wait until it is back under.
    pub fn resume(&self) {
        if let Some(h) = &self.0 {
            if !h.held.swap(true, Ordering::SeqCst) {
                h.slots.take();
            }
        }
    }

    /// Gives the slot back (idempotent).
    pub fn release(&self) {
        if let Some(h) = &self.0 {
            if h.held.swap(false, Ordering::SeqCst) {
                h.slots.give();
            }
        }
    }

    /// True while this scenario holds a busy slot.
    pub fn is_busy(&self) -> bool {
        self.0
            .as_ref()
            .is_some_and(|h| h.held.load(Ordering::SeqCst))
    }
}

/// The virtual ms a scenario spends in quiet watches and `advance` steps: what dominates its
/// wall time on a real clock (the runner starts the longest first).
pub fn quiet_ms(scenario: &Scenario) -> u64 {
    scenario
        .file
        .steps
        .iter()
        .map(|s| match &s.value {
            Step::ExpectNoRequest(e) => e.within_ms,
            Step::ExpectNoRelease { within_ms } => *within_ms,
            Step::Advance { ms } => *ms,
            _ => 0,
        })
        .fold(0u64, u64::saturating_add)
        .saturating_mul(
            scenario
                .file
                .repeat
                .as_ref()
                .map_or(1, |r| u64::from(r.value.runs)),
        )
}

/// Orders `scenarios` longest first by [`quiet_ms`] (ties by id, so the order is stable).
pub fn longest_first(scenarios: &mut [Scenario]) {
    scenarios.sort_by_cached_key(|s| (Reverse(quiet_ms(s)), s.file.id.clone()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    async fn blocked(pacer: &Pacer) -> bool {
        tokio::time::timeout(Duration::from_millis(20), pacer.admit())
            .await
            .is_err()
    }

    #[tokio::test]
    async fn a_slot_goes_during_a_long_quiet_watch_and_comes_back_without_waiting() {
        let pacer = Pacer::new(1);
        let first = pacer.admit().await;
        assert!(first.is_busy());
        // A short watch keeps the slot: nothing else starts.
        first.quiet(QUIET_RELEASE_MS - 1);
        assert!(first.is_busy());
        assert!(
            blocked(&pacer).await,
            "admitted while the only slot was busy"
        );
        // A long one lends it out.
        first.clone().quiet(QUIET_RELEASE_MS);
        assert_eq!((first.is_busy(), pacer.busy()), (false, 0));
        let second = pacer.admit().await;
        assert_eq!(pacer.busy(), 1);
        // The first resumes at once, over the limit; a third waits until both are quiet.
        first.resume();
        assert_eq!((first.is_busy(), pacer.busy()), (true, 2));
        assert!(blocked(&pacer).await, "admitted over the limit");
        first.release();
        first.release();
        assert_eq!(pacer.busy(), 1, "a second release freed a second slot");
        assert!(blocked(&pacer).await);
        drop(second);
        assert_eq!(pacer.busy(), 0);
        let third = pacer.admit().await;
        assert!(third.is_busy());
        drop(first);
        assert_eq!(
            pacer.busy(),
            1,
            "dropping a released pace frees nothing more"
        );
    }

    #[tokio::test]
    async fn a_waiting_scenario_is_woken_by_a_release() {
        let pacer = Pacer::new(1);
        let first = pacer.admit().await;
        let waiter = tokio::spawn({
            let pacer = pacer.clone();
            async move { pacer.admit().await.is_busy() }
        });
        tokio::task::yield_now().await;
        first.quiet(QUIET_RELEASE_MS);
        assert!(tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("the waiter was not woken")
            .expect("the waiter panicked"));
    }

    #[test]
    fn no_pacing_is_never_busy() {
        let p = Pace::default();
        p.resume();
        p.quiet(10_000);
        assert!(!p.is_busy());
    }

    #[test]
    fn quiet_watches_order_the_longest_first() {
        let text = |id: &str, steps: &str| {
            format!("id: {id}\ntitle: t\nkip: KIP-1324\ngrade: MUST\nroles: [client]\nsetup: {{ client: {{ type: producer }} }}\nsteps:\n{steps}")
        };
        let load = |(id, t): (&str, String)| {
            let path = std::path::PathBuf::from(format!("s/c/{id}.yaml"));
            crate::scenario::load_text(&t, &path, std::path::Path::new("s")).expect("parses")
        };
        let mut all = vec![
            load(("a-short", text("a-short", "  - start\n  - expect_no_request: { api: PushConfig, within_ms: 1000 }\n"))),
            load(("b-long", text("b-long", "  - start\n  - advance: { ms: 5000 }\n  - expect_no_release: { within_ms: 2000 }\n  - expect_no_request: { api: PushConfig, within_ms: 120000 }\n"))),
            load(("c-none", text("c-none", "  - start\n"))),
            load(("d-short", text("d-short", "  - start\n  - expect_no_request: { api: PushConfig, within_ms: 1000 }\n"))),
        ];
        assert_eq!(quiet_ms(&all[1]), 127_000);
        longest_first(&mut all);
        let ids: Vec<&str> = all.iter().map(|s| s.file.id.as_str()).collect();
        assert_eq!(ids, ["b-long", "a-short", "d-short", "c-none"]);
    }
}
