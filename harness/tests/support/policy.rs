//! What the policy host's tests share.

use std::time::Duration;

/// Waits (at most 5 s) until `f` holds: the host's threads update its state asynchronously.
pub(crate) fn eventually(f: impl Fn() -> bool) -> bool {
    for _ in 0..500 {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}
