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


# --- the live-client form: `PROGRAM --config FILE [--profile FILE]` ------------------------------
# kipcheck's `client-cmd:` target writes a java.util.Properties file per scenario (`{config}`),
# starts the program, writes `user_request <id>` lines on its stdin and closes stdin when the
# scenario is over (docs/live-clients.md). Keys starting with `kipcheck.` are kipcheck's own.


def _unescape(text):
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            if n == "u" and i + 5 < len(text):
                out.append(chr(int(text[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append({"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def read_properties(path):
    """A java.util.Properties file as an ordered dict (comments, continuations, escapes)."""
    with open(path, encoding="utf-8") as f:
        raw = f.read().splitlines()
    logical, buf = [], ""
    for line in raw:
        line = line.lstrip() if not buf else line.lstrip()
        if not buf and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2 == 1:
            buf += line[:-1]
            continue
        logical.append(buf + line)
        buf = ""
    if buf:
        logical.append(buf)
    props = {}
    for line in logical:
        i = 0
        while i < len(line) and line[i] not in "=: \t\f":
            i += 2 if line[i] == "\\" else 1
        key = line[:i]
        rest = line[i:].lstrip(" \t\f")
        if rest[:1] in ("=", ":"):
            rest = rest[1:].lstrip(" \t\f")
        props[_unescape(key)] = _unescape(rest)
    return props


def load_config(opts):
    """(kipcheck's keys, the client configuration) of the live form's --config file;
    --bootstrap is the address when the file has no bootstrap.servers (kipcheck writes every
    bootstrap node there; `{bootstrap}` is only the first)."""
    ours, conf = split_kipcheck(read_properties(opts["--config"]))
    if opts.get("--bootstrap") and not conf.get("bootstrap.servers", "").strip():
        conf["bootstrap.servers"] = opts["--bootstrap"]
    return ours, conf


def split_kipcheck(props):
    """(kipcheck's keys without the prefix, the client configuration)."""
    ours = {k[len("kipcheck."):]: v for k, v in props.items() if k.startswith("kipcheck.")}
    conf = {k: v for k, v in props.items() if not k.startswith("kipcheck.")}
    return ours, conf


def note(name, text):
    print(f"{name}: {text}", file=sys.stderr, flush=True)


def parse_live_args(name, argv=None):
    """`--config FILE [--profile FILE] [--bootstrap HOST:PORT]` -> {"--config": path,
    "--profile": path or None, "--bootstrap": override of bootstrap.servers or None}; None when
    the arguments are the one-shot form (`PROGRAM BOOTSTRAP`)."""
    argv = sys.argv[1:] if argv is None else argv[1:]
    if not argv or argv[0] not in ("--config", "--bootstrap", "--profile"):
        return None
    opts = {"--config": None, "--profile": None, "--bootstrap": None}
    it = iter(argv)
    for a in it:
        if a not in opts:
            note(name, f"unknown argument {a!r}")
            sys.exit(2)
        opts[a] = next(it, None)
        if opts[a] is None:
            note(name, f"{a} needs a value")
            sys.exit(2)
    if opts["--config"] is None:
        note(name, "--config FILE is required")
        sys.exit(2)
    return opts


def serve_stdin(name, on_user_request):
    """Reads kipcheck's stdin until it closes: `user_request <id>` calls on_user_request(id)."""
    for line in sys.stdin:
        parts = line.split()
        if len(parts) == 2 and parts[0] == "user_request" and parts[1].isdigit():
            on_user_request(int(parts[1]))
        elif parts:
            note(name, f"ignored stdin line {line.strip()!r}")


def released(request_id):
    """Tells kipcheck the application request `request_id` may proceed."""
    print(f"released {request_id}", flush=True)
