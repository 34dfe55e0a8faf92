#!/usr/bin/env python3
"""An exec: adapter that misbehaves on purpose, one way per MODE (argv[1]), for
harness/tests/exec_adapter.rs. Until it misbehaves it speaks protocol v1 as a broker that
accepts `open` and answers nothing else correctly.

Modes: crash_at_start, crash_mid, garbage, wrong_type, silent PIDFILE, wrong_version, long_line;
client_clock, a well-behaved client on a virtual clock whose retry is due at 100 ms, and
overshoot, the same client moving its clock 1 ms past what it was asked to; and base64, which behaves: it chooses base64 frames, checks it is sent nothing decoded, and
answers every request with the same hand-built ApiVersions v0 response frame.
"""

import base64
import json
import struct
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
encoding = "base64" if mode == "base64" else "json"
role = "client" if mode in ("client_clock", "overshoot") else "broker"
say('{"type": "hello", "protocol": %d, "roles": ["%s"], "capabilities": ["events", "policy_control"], '
    '"encoding": "%s"}' % (version, role, encoding))
now, retried = 0, False


def api_versions_request(correlation_id):
    return {"node": 1, "api_key": 18, "version": 3, "correlation_id": correlation_id, "client_id": "c",
            "body": {"ClientSoftwareName": "c", "ClientSoftwareVersion": "1"}}


for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "open":
        say('{"type": "ok"}')
        continue
    if role == "client":
        reply = {"type": "ok"}
        if m["type"] == "peer" and m["action"] == "start":
            reply["requests"] = [api_versions_request(1)]
        elif m["type"] == "advance":
            end = now + m["ms"]
            if not retried and end >= 100:
                retried = True
                reply["requests"] = [api_versions_request(2)]
                end = 100 if m.get("until") == "request" else end
            now = end + (1 if mode == "overshoot" else 0)
        reply["now_ms"] = now
        say(json.dumps(reply))
        continue
    if mode == "base64":
        if sorted(m) != ["conn", "frame", "type"]:
            say(json.dumps({"type": "error", "message": "base64 send with fields %s" % sorted(m)}))
            continue
        request = base64.b64decode(m["frame"])
        correlation_id = struct.unpack(">i", request[8:12])[0]
        # ApiVersions v0 response: correlation id | ErrorCode | ApiKeys [ApiKey Min Max].
        payload = struct.pack(">ihi3h", correlation_id, 0, 1, 18, 0, 4)
        frame = struct.pack(">i", len(payload)) + payload
        say(json.dumps({"type": "ok", "outputs": [{"conn": m["conn"], "frame": base64.b64encode(frame).decode()}]}))
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
