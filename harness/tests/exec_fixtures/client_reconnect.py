#!/usr/bin/env python3
"""A minimal KIP-1324 client behind the exec: adapter protocol (JSON encoding), for
harness/tests/exec_adapter.rs. It follows docs/adapter-protocol.md on connections: it connects
only when told (`start`: node 1, `connect`), never reconnects by itself after `disconnect`
(the node's unanswered requests are gone), and after `timeout` keeps the connection open and
sends the timed-out request again at once.

Every `respond` must carry the decoded body of the answer to this node's oldest unanswered
request, with that request's API (`api`) and no decode `error`; anything else is answered with
an `error` reply naming what arrived, so a test sees kipcheck decoding an answer against the
wrong request.
"""

import json
import sys


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


say({"type": "hello", "protocol": 1, "name": "client-reconnect", "roles": ["client"],
     "capabilities": [], "encoding": "json"})

push_key = 95
correlation = 0
in_flight = {}      # node -> [api name, ...], oldest first
connected = set()
pushed = False


def request(node, api):
    global correlation
    correlation += 1
    in_flight.setdefault(node, []).append(api)
    if api == "ApiVersions":
        return {"node": node, "api_key": 18, "version": 3, "correlation_id": correlation,
                "client_id": "c", "body": {"ClientSoftwareName": "c", "ClientSoftwareVersion": "1"}}
    return {"node": node, "api_key": push_key, "version": 0, "correlation_id": correlation,
            "client_id": "c", "body": {"Configs": [
                {"ConfigKey": "client.id", "ConfigValue": "c", "ConfigType": 1, "IsDefault": False}]}}


for line in sys.stdin:
    m = json.loads(line)
    kind = m["type"]
    reply = {"type": "ok", "now_ms": 0}
    requests = []
    if kind == "open":
        push_key = m["profile"]["provisional"]["push_config_api_key"]
    elif kind == "peer" and m["action"] in ("start", "connect"):
        node = 1 if m["action"] == "start" else m["node"]
        connected.add(node)
        in_flight[node] = []
        requests.append(request(node, "ApiVersions"))
    elif kind == "peer" and m["action"] == "disconnect":
        connected.discard(m["node"])
        in_flight[m["node"]] = []
    elif kind == "peer" and m["action"] == "timeout":
        lost = in_flight.get(m["node"], [])
        if lost:
            requests.append(request(m["node"], lost.pop(0)))
    elif kind == "respond":
        node = m["node"]
        waiting = in_flight.get(node, [])
        expected = waiting.pop(0) if waiting else None
        if expected is None or m.get("api") != expected or "body" not in m:
            reply = {"type": "error", "message": "respond to node %d: expected a decoded %s answer, got api %s, "
                     "error %s" % (node, expected, m.get("api"), m.get("error"))}
        elif expected == "ApiVersions" and not pushed and node in connected:
            if any(k["ApiKey"] == push_key for k in m["body"]["ApiKeys"]):
                requests.append(request(node, "PushConfig"))
        elif expected == "PushConfig":
            pushed = m["body"]["ErrorCode"] == 0
    if requests and reply["type"] == "ok":
        reply["requests"] = requests
    say(reply)
