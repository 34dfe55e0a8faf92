"""Self-test of the live form's pure parts (no broker): the properties reader against what
java.util.Properties.store writes, the Java-name translations, and the prototype's selection,
sensitivity filter, rendering and request encoding. Run by scripts/kafka-python-kip1324-suite.sh
check; exits 1 on the first failure."""

import os
import sys
import tempfile

import _peer
import kafka
import kip1324_kafka_python as kp


def eq(got, want, what):
    if got != want:
        print(f"test_live_form: {what}: got {got!r}, want {want!r}", file=sys.stderr)
        sys.exit(1)


def main():
    import logging
    logging.basicConfig(level=logging.ERROR)  # the prototype's warnings are expected here
    # Properties.store escapes ':', '=', leading spaces, '#', '!' and non-ASCII as \\uXXXX.
    text = ("# kipcheck scenario x (seed 1)\n! a comment\nkipcheck.client.type=consumer\n"
            "group.id=\\ \\ g1\\ \\ \nweird\\:key\\=x=a\\=b\\:c\nuni=caf\\u00e9\n"
            "cont=one,\\\n    two\nempty=\n  spaced key value\n")
    with tempfile.NamedTemporaryFile("w", suffix=".properties", delete=False) as f:
        f.write(text)
    try:
        props = _peer.read_properties(f.name)
    finally:
        os.unlink(f.name)
    eq(props, {"kipcheck.client.type": "consumer", "group.id": "  g1  ", "weird:key=x": "a=b:c",
               "uni": "caf\u00e9", "cont": "one,two", "empty": "", "spaced": "key value"},
       "read_properties")
    ours, conf = _peer.split_kipcheck(props)
    eq(ours, {"client.type": "consumer"}, "split_kipcheck")

    kwargs, notes = kp.from_properties("consumer", {
        "group.id": "  g1  ", "fetch.min.bytes": " 42 ", "enable.auto.commit": "TRUE",
        "metadata.max.age.ms": "+900", "my.custom": "x", "key.deserializer": "a.B",
        "config.push.allowed.keys": "a, b", "partition.assignment.strategy": "a.B"},
        kafka.KafkaConsumer.DEFAULT_CONFIG)
    eq(kwargs, {"group_id": "g1", "fetch_min_bytes": 42, "enable_auto_commit": True,
                "metadata_max_age_ms": 900, "config_push_allowed_keys": "a,b"}, "from_properties")
    eq(len(notes), 3, "from_properties notes (custom, CLASS, assignor classes)")

    for key, ctype, why in [("ssl.key.password", kp.PASSWORD, "security-related prefix"),
                            ("listener.security.x", kp.STRING, "security-related infix"),
                            ("value.serializer.class", kp.STRING, "class name suffix"),
                            ("key.serializer", kp.CLASS, "type CLASS"),
                            ("client.id", kp.STRING, None),
                            ("my.app", None, "custom configuration (not defined by kafka-python)")]:
        eq(kp.sensitive_reason(key, ctype), why, f"sensitive_reason({key})")
    eq(kp.render(True, kp.BOOLEAN), "true", "render bool")
    eq(kp.render(["a ", "b"], kp.LIST), "a,b", "render list")
    eq(kp.render(None, kp.STRING, "compression_type"), "none", "render compression none")
    eq(kp.render(None, kp.STRING, "group_id"), None, "render null")

    push = kp.ConfigPush("consumer", {**kafka.KafkaConsumer.DEFAULT_CONFIG, "group_id": "g"},
                         {"group_id"}, allowed_keys=["group.id", "max.poll.records", "group.id",
                                                     "sasl.mechanism", "my.app"])
    eq(push.select(), [("group.id", "g", kp.STRING, False),
                       ("max.poll.records", "500", kp.INT, True)], "select")
    push.numbering = "older_kip_enum"
    push.entries = None
    eq([e[2] for e in push.select()], [1, 3], "older enum numbering")
    req = kp.ConfigPush("admin", {"client_id": "c"}, {"client_id"},
                        allowed_keys=["client.id"]).build_request()
    req.with_header(correlation_id=1, client_id="c")
    eq(req.encode(framed=True, header=True).hex(),
       "0000001d005f00000000000100016300020a636c69656e742e6964026301000000",
       "PushConfig bytes (kip-notes 1.5 example)")
    tiny = kp.ConfigPush("consumer", {**kafka.KafkaConsumer.DEFAULT_CONFIG, "group_id": "g"},
                         {"group_id"}, max_bytes=60)
    eq(kp.request_body_size(tiny.build_request()) <= 60, True, "byte budget")
    # The runner's defaults (kipcheck.default.*): the client runs with them, they stay defaults.
    conf = {"group_id": "g", "kip1324": {"defaults": {
        "request_timeout_ms": 3000, "default_api_timeout_ms": 6000, "group_id": "no"}}}
    push = kp._make_push("consumer", conf, kafka.KafkaConsumer.DEFAULT_CONFIG,
                         "default_api_timeout_ms")
    eq((conf["request_timeout_ms"], conf["group_id"], push.deadline_ms, push.request_timeout_ms),
       (3000, "g", 6000, 3000), "runner defaults applied")
    eq({e[0]: e[3] for e in push.select()}["request.timeout.ms"], True, "runner default IsDefault")
    eq({e[0]: e[3] for e in push.select()}["group.id"], False, "user value IsDefault")
    print("test_live_form: ok")


if __name__ == "__main__":
    main()
