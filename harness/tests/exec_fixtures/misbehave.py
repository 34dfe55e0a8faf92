#!/usr/bin/env python3
"""An exec: adapter that misbehaves on purpose, one way per MODE (argv[1]), for
harness/tests/exec_adapter.rs. Until it misbehaves it speaks protocol v1 as a broker that
accepts `open` and answers nothing else correctly.

Modes: crash_at_start, crash_mid, garbage, wrong_type, silent PIDFILE, wrong_version, long_line.
"""

import json
import subprocess
import sys
import time

mode = sys.argv[1]


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


if mode == "crash_at_start":
    print("misbehave: cannot load my configuration", file=sys.stderr, flush=True)
    sys.exit(3)

version = 99 if mode == "wrong_version" else 1
say('{"type": "hello", "protocol": %d, "roles": ["broker"], "capabilities": ["events", "policy_control"], '
    '"encoding": "json"}' % version)

for line in sys.stdin:
    if json.loads(line)["type"] == "open":
        say('{"type": "ok"}')
        continue
    # The first message after open: misbehave.
    print("misbehave: about to misbehave (%s)" % mode, file=sys.stderr, flush=True)
    if mode == "crash_mid":
        sys.exit(4)
    elif mode == "garbage":
        say("this is not JSON")
    elif mode == "wrong_type":
        say('{"type": "hello", "protocol": 1}')
    elif mode == "silent":
        # A grandchild in the same process group, to show the whole group is killed.
        child = subprocess.Popen(["sleep", "600"])
        with open(sys.argv[2], "w") as f:
            f.write(str(child.pid))
        time.sleep(600)
    elif mode == "long_line":
        say("x" * 200000)
    else:
        say('{"type": "ok"}')
