"""What every Python interop program shares: the bootstrap argument, the interop topic and a hard
deadline (SIGALRM, exit status 124 as timeout(1) uses) so no program can hang a test or CI.
It performs no Kafka operation itself."""

import os
import signal
import sys

TOPIC = "kipcheck-interop"


def deadline_secs():
    """The hard deadline in seconds (KIPCHECK_CLIENT_DEADLINE_MS overrides 30 s)."""
    ms = os.environ.get("KIPCHECK_CLIENT_DEADLINE_MS", "").strip()
    return max(1, int(ms) // 1000) if ms else 30


def start(name, usage, argv=None):
    """Checks the arguments, arms the watchdog and returns the bootstrap address."""
    argv = sys.argv if argv is None else argv
    if len(argv) < 2 or not argv[1].strip():
        print("usage: " + usage, file=sys.stderr)
        sys.exit(2)

    def expire(_signum, _frame):
        print(f"{name}: deadline of {deadline_secs()} s passed", file=sys.stderr, flush=True)
        os._exit(124)

    signal.signal(signal.SIGALRM, expire)
    signal.alarm(deadline_secs())
    return argv[1]


def fail(name, err):
    """Prints the failure on standard error and exits with status 1."""
    print(f"{name}: FAILED: {err!r}", file=sys.stderr, flush=True)
    sys.exit(1)
