"""kafka-python client program, in two forms.

One-shot (`kafka_python_client.py BOOTSTRAP`): bootstraps against the address, produces one
record to the interop topic, waits for it, prints the partition and offset and exits 0; 1 on
failure, 124 at the deadline.

Live (`kafka_python_client.py --config FILE [--profile FILE] [--bootstrap HOST:PORT] [--kip1324]`, the `client-cmd:`
contract of docs/live-clients.md): builds the client type `kipcheck.client.type` names
(producer, consumer or admin; kafka-python has no share consumer and no Streams: exit 3) from the
properties file (Java names translated to kafka-python's, see kip1324_kafka_python.from_properties;
a key kafka-python does not take is skipped with a note on stderr), lets it connect, answers each
`user_request <id>` line on stdin with `released <id>` once the client may send a request, and
exits 0 when stdin closes. With `--kip1324` the client is the KIP-1324 prototype
(kip1324_kafka_python); `--profile` then applies the spec profile's wire numbers, ConfigType
numbering, byte budget and default key lists.
"""

import logging
import os
import sys

import _peer

NAME = "kafka-python"


def one_shot():
    from kafka import KafkaProducer

    bootstrap = _peer.start(NAME, "kafka_python_client.py BOOTSTRAP | --config FILE [--profile FILE] [--kip1324]")
    budget = _peer.deadline_secs() / 3
    try:
        p = KafkaProducer(
            bootstrap_servers=bootstrap,
            client_id="kipcheck-kafka-python",
            request_timeout_ms=5000,
            max_block_ms=int(budget * 1000),
        )
        md = p.send(_peer.TOPIC, key=b"k", value=b"hello from kipcheck interop").get(timeout=budget)
        p.close(timeout=5)
    except Exception as e:  # noqa: BLE001 - any failure is reported the same way
        _peer.fail(NAME, e)
    print(f"{NAME}: {md.topic}-{md.partition}@{md.offset}")
    return 0


def live(opts, kip1324):
    import kafka
    import kip1324_kafka_python as kp

    name = NAME + (" + KIP-1324" if kip1324 else "")
    logging.basicConfig(level=os.environ.get("KIPCHECK_CLIENT_LOG", "INFO"), stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    stock = {"producer": kafka.KafkaProducer, "consumer": kafka.KafkaConsumer,
             "admin": kafka.KafkaAdminClient}
    ours = {"producer": kp.KafkaProducer, "consumer": kp.KafkaConsumer,
            "admin": kp.KafkaAdminClient}
    state = {}

    def connect(client_type, props):
        kwargs, notes = kp.from_properties(client_type, props, stock[client_type].DEFAULT_CONFIG,
                                           with_kip=kip1324)
        for n in notes:
            _peer.note(name, n)
        cls = ours[client_type] if kip1324 else stock[client_type]
        defaults = stock[client_type].DEFAULT_CONFIG
        # kipcheck's `kipcheck.default.KEY` lines (--time-scale): the prototype's defaults for
        # those keys, not user-set (IsDefault stays true); the stock client keeps its own.
        given = {}
        if kip1324:
            given, dnotes = kp.from_properties(client_type, {
                k[len("default."):]: v for k, v in _peer.load_config(opts)[0].items()
                if k.startswith("default.")}, defaults)
            for n in dnotes:
                _peer.note(name, "kipcheck.default." + n)
            given = {k: v for k, v in given.items() if k not in kwargs}
        timeout = kwargs.get("request_timeout_ms",
                             given.get("request_timeout_ms", defaults["request_timeout_ms"]))
        if (client_type == "consumer" and "fetch_max_wait_ms" not in kwargs
                and timeout <= defaults["fetch_max_wait_ms"]):
            # kafka-python refuses request_timeout_ms <= fetch_max_wait_ms (500 by default),
            # e.g. a scaled request.timeout.ms of 200: lower the wait the file left unset (a
            # default of the prototype's, as the file did not set it).
            (given if kip1324 else kwargs)["fetch_max_wait_ms"] = wait = max(1, timeout // 2)
            _peer.note(name, f"fetch.max.wait.ms lowered to {wait}: "
                       "kafka-python needs it below request.timeout.ms")
        if kip1324 and opts["--profile"]:
            prof = kp.read_profile(opts["--profile"])
            lists = prof.pop("default_keys_by_type")
            if client_type in lists:
                prof["default_keys"] = lists[client_type]
            kwargs["kip1324"] = prof
        if given:
            kwargs.setdefault("kip1324", {})["defaults"] = given
        # The KIP-1324 state exists as soon as __init__ starts, before its blocking bootstrap.
        client = state["client"] = cls.__new__(cls)
        client.__init__(**kwargs)
        state["built"] = True

    def gate():
        """The release condition of an application request arriving now: the KIP-1324 client's
        own (a producer's send() waits at most max.block.ms from its call), or, for the stock
        client, its construction (bootstrap) being over."""
        held = {}

        def may_go():
            if "gate" not in held:
                push = getattr(state.get("client"), "config_push", None)
                if push is None:
                    return state.get("built", False)
                held["gate"] = push.user_request_gate()
            return held["gate"]()
        may_go()
        return may_go

    def close():
        if state.get("built"):
            state["client"].close()

    return _peer.live_main(name, opts, connect, close, gate=gate)



def main(argv=None):
    argv = sys.argv if argv is None else argv
    kip1324 = "--kip1324" in argv
    argv = [a for a in argv if a != "--kip1324"]
    opts = _peer.parse_live_args(NAME, argv)
    if opts is None:
        return one_shot()
    return live(opts, kip1324)


if __name__ == "__main__":
    sys.exit(main())
