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


def _parse_like(default, raw):
    v = raw.strip()
    if isinstance(default, bool):
        if v.lower() not in ("true", "false"):
            raise ValueError(raw)
        return v.lower() == "true"
    if isinstance(default, int):
        return int(v)
    if isinstance(default, float):
        return float(v)
    return v


def translate(props, accepted, renames=None):
    """Java-style properties -> keyword arguments of a Python client whose parameters are
    `accepted` (name -> default value): `a.b.c` becomes `a_b_c` (or renames[key]), the value is
    parsed like the default (booleans, numbers; `acks` and `compression.type` as the Kafka
    clients spell them). Returns (kwargs, notes on each key skipped)."""
    kwargs, notes = {}, []
    for key, raw in props.items():
        name = (renames or {}).get(key, key.replace(".", "_").replace("-", "_"))
        if name not in accepted:
            notes.append(f"{key}: not a configuration of this library, skipped")
            continue
        v = raw.strip()
        try:
            if name == "bootstrap_servers":
                value = [s.strip() for s in v.split(",") if s.strip()]
            elif name == "acks":
                value = v if v == "all" else int(v)
            elif name == "compression_type":
                value = None if v == "none" else v
            else:
                value = _parse_like(accepted[name], raw)
        except ValueError:
            notes.append(f"{key}={raw!r}: not a valid value here, skipped")
            continue
        kwargs[name] = value
    return kwargs, notes


def live_main(name, opts, connect, close, supported=("producer", "consumer", "admin"),
              gate=None):
    """The live form shared by the Python programs: `connect(client_type, props)` builds the
    client and starts its first connection (in a thread: it may block); a user request is
    answered with `released <id>` once the predicate `gate()` made when it arrived is true
    (default: connect has returned, for libraries without a handshake to wait for); when stdin
    closes, `close()` gets 1.5 s, then exit 0."""
    import threading
    import time

    ours, props = load_config(opts)
    client_type = ours.get("client.type", "producer")
    if ours.get("client.embedded", "false") == "true" or client_type not in supported:
        note(name, f"this library has no {client_type} client"
             + (" (embedded in Streams)" if ours.get("client.embedded") == "true" else ""))
        return 3
    ready = threading.Event()

    def build():
        try:
            connect(client_type, props)
        except Exception as e:  # noqa: BLE001 - reported; the program stays up until stdin closes
            note(name, f"client failed: {e!r}")
        ready.set()

    threading.Thread(target=build, daemon=True).start()

    def on_user_request(request_id):
        may_go = gate() if gate is not None else None

        def wait():
            if may_go is None:
                ready.wait()
            else:
                while not may_go():
                    time.sleep(0.002)
            released(request_id)
        threading.Thread(target=wait, daemon=True).start()

    serve_stdin(name, on_user_request)
    closer = threading.Thread(target=close, daemon=True)
    closer.start()
    closer.join(1.5)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
