"""librdkafka (confluent-kafka) client program, in two forms.

One-shot (`rdkafka_client.py BOOTSTRAP`): produces one record to the interop topic, waits for its
delivery report, prints the partition and offset and exits 0; 1 on failure, 124 at the deadline.

Live (`rdkafka_client.py --config FILE [--profile FILE] [--bootstrap HOST:PORT]`, the
`client-cmd:` contract of docs/live-clients.md): builds the producer, consumer or admin client
that `kipcheck.client.type` names from the properties file (librdkafka takes Java's property
names; a property it refuses is dropped with a note on stderr), asks for cluster metadata (its
first connection) and exits 0 when stdin closes. librdkafka has no share consumer and no Streams
(exit 3) and does not implement KIP-1324 (the profile is not used).
"""

import sys

from confluent_kafka import KafkaException, Producer
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient

import _peer

NAME = "rdkafka"


def one_shot():
    bootstrap = _peer.start(NAME, "rdkafka_client.py BOOTSTRAP | --config FILE [--profile FILE]")
    budget = _peer.deadline_secs() / 3
    p = Producer({
        "bootstrap.servers": bootstrap,
        "client.id": "kipcheck-librdkafka",
        "message.timeout.ms": int(budget * 1000),
        "socket.timeout.ms": 5000,
        "reconnect.backoff.max.ms": 1000,
    })
    result = {}

    def on_delivery(err, msg):
        result["err"] = err
        result["msg"] = msg

    p.produce(_peer.TOPIC, key=b"k", value=b"hello from kipcheck interop", on_delivery=on_delivery)
    p.flush(budget)
    if "msg" not in result:
        _peer.fail(NAME, "no delivery report in time")
    if result["err"] is not None:
        _peer.fail(NAME, result["err"])
    m = result["msg"]
    print(f"{NAME}: {m.topic()}-{m.partition()}@{m.offset()}")
    return 0


def build(cls, conf):
    """cls(conf), dropping each property librdkafka refuses (it refuses unknown ones)."""
    conf = dict(conf)
    while True:
        try:
            return cls(conf)
        except (KafkaException, ValueError, TypeError) as e:
            text = str(e)
            bad = [k for k in conf if f'"{k}"' in text or f"'{k}'" in text or f" {k}:" in text]
            if not bad:
                raise
            for k in bad:
                _peer.note(NAME, f"{k}: refused by librdkafka ({text.strip()}), skipped")
                del conf[k]


def live(opts):
    state = {}

    def connect(client_type, props):
        cls = {"producer": Producer, "consumer": Consumer, "admin": AdminClient}[client_type]
        conf = dict(props)
        if client_type == "consumer" and "group.id" not in conf:
            _peer.note(NAME, "librdkafka's consumer needs group.id: none given, the client is an admin client")
            cls = AdminClient
        client = build(cls, conf)
        state["client"] = client
        client.list_topics(timeout=_peer.deadline_secs() / 3)

    def close():
        client = state.get("client")
        if isinstance(client, Consumer):
            client.close()
        elif isinstance(client, Producer):
            client.flush(1)

    return _peer.live_main(NAME, opts, connect, close)


def main():
    opts = _peer.parse_live_args(NAME)
    return one_shot() if opts is None else live(opts)


if __name__ == "__main__":
    sys.exit(main())
