#!/usr/bin/env python3
"""A KIP-1324 broker (the PushConfig side) behind kipcheck's exec: adapter protocol v1.

Run by kipcheck:  kipcheck run --target exec:"python3 examples/python-broker/adapter.py" --kip 1324

It reads one JSON message per line on stdin and writes exactly one JSON reply per line on
stdout (docs/adapter-protocol.md); logs go to stderr. Frames arrive as decoded JSON bodies
("encoding": "json"), so no Kafka codec is needed here. Standard library only, Python 3.9+.

What it implements (kip-notes §4): ApiVersions advertising PushConfig 0-0 iff a
ClientConfigPolicy is configured (with the KIP-511 v0 fallback for an unsupported
ApiVersions version); PushConfig: the client.config.max.bytes size check (CONFIG_TOO_LARGE,
policy not called), per-entry checks (unknown ConfigType -> INVALID_CONFIG; with the profile's
broker_entry_checks "broker" also sensitive ConfigTypes and values that do not parse as their
type, which by default, "policy", reach the policy instead), the policy verdict from the scenario setup
(INVALID_CONFIG with the policy's message on reject), ThrottleTimeMs on every PushConfig
response; a malformed or unsupported request closes the connection. Time is virtual: it
moves only on "advance". KIP-1326: on "peer register" it sends a BrokerRegistration to the
emulated controller at the highest version both support (its own highest is 6), with
StaticConfigs from v6 (the profile's first_static_configs_version): every definition in the
open message's broker_definitions that has a validator, is not PASSWORD and not report_policy
NEVER, at its server.properties value else its default, rendered as ConfigDef.convertToString
does; null values are left out.
"""

import decimal
import json
import math
import re
import sys

PROTOCOL = 1
API_VERSIONS = 18
BROKER_REGISTRATION = 62
BROKER_REGISTRATION_MAX = 6   # this broker's highest BrokerRegistration version
CONTROLLER_NODE = 3000
NODE_ID = 1
PUSH_CONFIG = 95          # canonical key; the wire key comes from the profile
UNSUPPORTED_VERSION = 35
INVALID_CONFIG = 40
UNKNOWN_SERVER_ERROR = -1
CONFIG_TOO_LARGE = 137    # canonical code; the wire code comes from the profile

TYPES_CONFIG_DEF = ["BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE", "LIST", "CLASS", "PASSWORD"]
TYPES_OLDER_KIP = ["BOOLEAN", "STRING", "SHORT", "INT", "LONG", "DOUBLE", "LIST"]
INT_RANGES = {"SHORT": (-2**15, 2**15 - 1), "INT": (-2**31, 2**31 - 1), "LONG": (-2**63, 2**63 - 1)}
JAVA_INT = re.compile(r"[+-]?[0-9]+\Z")
JAVA_DOUBLE = re.compile(r"([+-]?)(?:(NaN|Infinity)|([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?[fFdD]?)\Z")


def log(*args):
    print("python-broker:", *args, file=sys.stderr, flush=True)


def parse_double(t):
    """Java's Double.parseDouble on a trimmed string (no hexadecimal literals)."""
    m = JAVA_DOUBLE.match(t)
    if not m:
        return None
    sign, special, whole, frac, exp = m.groups()
    if special:
        v = math.nan if special == "NaN" else math.inf
    else:
        if not whole and not frac:
            return None
        v = float("%s.%s0e%s" % (whole or "0", frac or "", exp or "0"))
    return -v if sign == "-" else v


def parse_value(ty, text):
    """ConfigDef.parseType for a String input: returns the typed value or raises ValueError."""
    t = text.strip()
    if ty == "BOOLEAN":
        if t.lower() in ("true", "false"):
            return t.lower() == "true"
        raise ValueError
    if ty in INT_RANGES:
        lo, hi = INT_RANGES[ty]
        if not JAVA_INT.match(t) or not lo <= int(t) <= hi:
            raise ValueError
        return int(t)
    if ty == "DOUBLE":
        v = parse_double(t)
        if v is None:
            raise ValueError
        return v if math.isfinite(v) else None  # JSON has no NaN/Infinity: null, as kipcheck does
    if ty == "LIST":
        return [] if t == "" else [s.strip() for s in t.split(",")]
    return t


def java_double(v):
    """Java's Double.toString: plain decimal in [1e-3, 1e7), else d.dddE[-]n; shortest digits."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0:
        return "-0.0" if math.copysign(1, v) < 0 else "0.0"
    if 1e-3 <= abs(v) < 1e7:
        text = repr(v)
        return text if "." in text else text + ".0"
    sign, digits, exp = decimal.Decimal(repr(v)).as_tuple()
    e = exp + len(digits) - 1
    rest = "".join(map(str, digits[1:])).rstrip("0") or "0"
    return "%s%d.%sE%d" % ("-" if sign else "", digits[0], rest, e)


def convert_to_string(ty, text):
    """ConfigDef.parseType then convertToString, for a String input; None if it does not parse."""
    try:
        value = parse_value(ty, text)
    except ValueError:
        return None
    if ty == "BOOLEAN":
        return "true" if value else "false"
    if ty == "DOUBLE":
        d = parse_double(text.strip())
        return None if d is None else java_double(d)
    if ty == "LIST":
        return ",".join(value)
    return str(value)


def uvarint_len(n):
    size = 1
    while n >= 0x80:
        n >>= 7
        size += 1
    return size


def tagged_section_len(tagged):
    """Bytes of a tagged-field section holding `tagged` ({tag: hex})."""
    total = uvarint_len(len(tagged))
    for tag, hexdata in tagged.items():
        n = len(hexdata) // 2
        total += uvarint_len(int(tag)) + uvarint_len(n) + n
    return total


class Broker:
    """One scenario's broker: settings from the open message, a virtual clock, an event log."""

    def __init__(self, setup, profile, definitions):
        broker = setup.get("broker") or {}
        self.policy = broker.get("policy", "accept")
        self.max_bytes = broker.get("client_config_max_bytes") or profile["defaults"]["client_config_max_bytes"]
        self.throttle = broker.get("throttle_time_ms", 0)
        self.push_key = profile["provisional"]["push_config_api_key"]
        self.too_large_wire = profile["provisional"]["config_too_large"]
        self.measure = profile["size_measure"]
        self.numbering = TYPES_CONFIG_DEF if profile["config_type_numbering"] == "config_def_type" else TYPES_OLDER_KIP
        self.unadvertised = profile["unadvertised_push_config"]
        self.first_static_configs_version = profile["first_static_configs_version"]
        self.server_properties = broker.get("server_properties", {})
        self.definitions = definitions
        self.broker_checks = profile.get("broker_entry_checks", "policy") == "broker"
        # Reading: does an MV-aware validator alone count as "a Validator" for KIP-1326?
        self.mv_counts = profile.get("mv_validator_inclusion", "static_only") == "counts"
        self.now = 0
        self.closed = set()
        self.correlation_id = 0

    # Each handler returns (outputs, events) for one message.

    def event(self, events, kind, **fields):
        fields = dict(event=kind, **fields)
        fields["at"] = self.now
        events.append(fields)

    def close(self, conn, events, reason):
        self.closed.add(conn)
        self.event(events, "connection_closed", reason=reason)
        return [{"conn": conn, "close": True}]

    def handle_send(self, m):
        events = []
        conn = m["conn"]
        if conn in self.closed:
            return [{"conn": conn, "close": True}], events
        key, version = m.get("api_key"), m.get("version")
        if key is None:
            return self.close(conn, events, "undecodable frame: " + m.get("error", "")), events
        if key == API_VERSIONS:
            return self.api_versions(m, events), events
        if key != self.push_key:
            return self.close(conn, events, "unsupported API key %d" % key), events
        if self.policy is None:
            if self.unadvertised == "close" or version != 0:
                return self.close(conn, events, "PushConfig is not enabled (no policy configured)"), events
            message = "PushConfig is not enabled (no policy configured)"
            self.event(events, "push_config_rejected", error_code=UNSUPPORTED_VERSION, message=message,
                       policy_called=False)
            return [self.push_response(m, UNSUPPORTED_VERSION, message, 0)], events
        if version != 0:
            return self.close(conn, events, "PushConfig version %d unsupported" % version), events
        if m.get("body") is None:
            return self.close(conn, events, "PushConfig decode error: " + m.get("error", "")), events
        return [self.push_config(m, events)], events

    def static_configs(self):
        """KIP-1326's inclusion rule over the broker's definitions, sorted by name."""
        out = []
        for name in sorted(self.definitions):
            d = self.definitions[name]
            validated = d.get("validator") is not None or (self.mv_counts and bool(d.get("mv_validators")))
            if not validated or d["ty"] == "PASSWORD" or d.get("report_policy") == "NEVER":
                continue
            raw = self.server_properties.get(name, d.get("default"))
            value = None if raw is None else convert_to_string(d["ty"], raw)
            if value is not None:
                out.append({"Name": name, "Value": value})
        return out

    def register(self, controller_max_version):
        """The BrokerRegistration request to the emulated controller."""
        version = max(0, min(controller_max_version, BROKER_REGISTRATION_MAX))
        self.correlation_id += 1
        body = {"BrokerId": NODE_ID, "ClusterId": "kipcheck-cluster",
                "IncarnationId": "AAAAAAAAAAAAAAAAAAAAAQ",
                "Listeners": [{"Name": "PLAINTEXT", "Host": "localhost", "Port": 9093, "SecurityProtocol": 0}],
                "Features": [{"Name": "metadata.version", "MinSupportedVersion": 1, "MaxSupportedVersion": 40}]}
        if version >= self.first_static_configs_version:
            body["StaticConfigs"] = self.static_configs()
        return {"node": CONTROLLER_NODE, "api_key": BROKER_REGISTRATION, "version": version,
                "correlation_id": self.correlation_id, "client_id": "broker-%d" % NODE_ID, "body": body}

    def api_versions(self, m, events):
        version = m["version"]
        keys = [{"ApiKey": API_VERSIONS, "MinVersion": 0, "MaxVersion": 4}]
        if self.policy is not None:
            keys.append({"ApiKey": self.push_key, "MinVersion": 0, "MaxVersion": 0})
            keys.sort(key=lambda k: k["ApiKey"])
        if version > 4 or version < 0:
            # KIP-511: answer in the v0 layout with UNSUPPORTED_VERSION.
            return [self.response(m, 0, {"ErrorCode": UNSUPPORTED_VERSION, "ApiKeys": keys})]
        if m.get("body") is None:
            return self.close(m["conn"], events, "ApiVersions decode error: " + m.get("error", ""))
        body = {"ErrorCode": 0, "ApiKeys": keys}
        if version >= 1:
            body["ThrottleTimeMs"] = 0
        self.event(events, "api_versions_answered", version=version,
                   push_config_advertised=self.policy is not None)
        return [self.response(m, version, body)]

    def response(self, m, version, body):
        return {"conn": m["conn"], "api_key": m["api_key"], "version": version,
                "correlation_id": m["correlation_id"], "body": body}

    def push_response(self, m, code, message, throttle):
        wire = self.too_large_wire if code == CONFIG_TOO_LARGE else code
        return self.response(m, 0, {"ThrottleTimeMs": throttle, "ErrorCode": wire, "ErrorMessage": message})

    def push_config(self, m, events):
        body = m["body"]
        size = m["body_size"]
        if self.measure == "configs_array":
            size -= tagged_section_len(body.get("_tagged", {}))
        elif self.measure == "key_value_bytes":
            # UTF-8 bytes of key and value, each key once (its last value).
            last = {}
            for c in body["Configs"]:
                last[c["ConfigKey"]] = len(c["ConfigValue"].encode("utf-8"))
            size = sum(len(k.encode("utf-8")) + n for k, n in last.items())
        self.event(events, "push_config_received", size=size, max_bytes=self.max_bytes)

        def reject(code, message, policy_called):
            self.event(events, "push_config_rejected", error_code=code, message=message,
                       policy_called=policy_called)
            return self.push_response(m, code, message, self.throttle)

        if size > self.max_bytes:
            return reject(CONFIG_TOO_LARGE, "PushConfig request of %d bytes exceeds client.config.max.bytes (%d)"
                          % (size, self.max_bytes), False)
        configs = []
        for c in body["Configs"]:
            key, n = c["ConfigKey"], c["ConfigType"]
            if not 0 <= n < len(self.numbering):
                return reject(INVALID_CONFIG, "Config entry '%s' has unknown ConfigType %d" % (key, n), False)
            ty = self.numbering[n]
            if self.broker_checks and ty in ("CLASS", "PASSWORD"):
                return reject(INVALID_CONFIG, "Config entry '%s' has sensitive ConfigType %s and must not be sent"
                              % (key, ty), False)
            try:
                value = parse_value(ty, c["ConfigValue"])
            except ValueError:
                if self.broker_checks:
                    return reject(INVALID_CONFIG, "Config entry '%s' value '%s' cannot be parsed as %s"
                                  % (key, c["ConfigValue"], ty), False)
                # The policy judges it: it gets the raw text.
                configs.append({"key": key, "value": {"string": c["ConfigValue"]}, "ty": ty,
                                "is_default": c["IsDefault"]})
                continue
            configs.append({"key": key, "value": {ty.lower(): value}, "ty": ty, "is_default": c["IsDefault"]})
        # ClientConfigPolicy.process(ClientConfigData(configs, timestamp = the broker's clock)).
        self.event(events, "policy_invoked", configs=configs, timestamp=self.now)
        if isinstance(self.policy, dict) and "reject" in self.policy:
            return reject(INVALID_CONFIG, self.policy["reject"]["message"], True)
        if isinstance(self.policy, dict) and "fail" in self.policy:
            # The policy threw something other than its rejection: refused, connection kept.
            return reject(UNKNOWN_SERVER_ERROR, "policy failed: " + self.policy["fail"]["message"], True)
        self.event(events, "push_config_accepted", throttle_time_ms=self.throttle)
        return self.push_response(m, 0, None, self.throttle)


def main():
    out = sys.stdout
    caps = ["events", "virtual_clock", "policy_control", "max_bytes", "throttle", "static_configs"]
    hello = {"type": "hello", "protocol": PROTOCOL, "name": "python-broker", "roles": ["broker"],
             "capabilities": caps, "encoding": "json"}
    out.write(json.dumps(hello) + "\n")
    out.flush()
    broker = None
    for line in sys.stdin:
        if not line.strip():
            continue
        m = json.loads(line)
        kind = m.get("type")
        reply = {"type": "ok"}
        if kind == "open":
            if m["roles"] != ["broker"]:
                reply = {"type": "unsupported", "reason": "this adapter plays only the broker"}
            else:
                broker = Broker(m["setup"], m["profile"], m["broker_definitions"])
        elif broker is None:
            reply = {"type": "error", "message": "%s before open" % kind}
        elif kind == "send":
            reply["outputs"], reply["events"] = broker.handle_send(m)
        elif kind == "advance":
            # Nothing here is timer-driven: time just passes.
            broker.now += m["ms"]
        elif kind == "peer" and m["action"] == "register" and m["node"] == CONTROLLER_NODE:
            reply["requests"] = [broker.register(m["controller_max_version"])]
        elif kind == "respond" and m["node"] == CONTROLLER_NODE and m.get("api") == "BrokerRegistration":
            # Registered (or refused): nothing this broker does depends on the answer.
            log("registration answered:", m.get("body", m.get("error")))
        elif kind in ("peer", "respond"):
            reply = {"type": "unsupported", "reason": "%s %s: not implemented by this broker"
                     % (kind, m.get("action", ""))}
        else:
            reply = {"type": "error", "message": "unknown message type %r" % kind}
        if reply["type"] == "ok" and broker is not None:
            reply["now_ms"] = broker.now
        out.write(json.dumps(reply, allow_nan=False) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
