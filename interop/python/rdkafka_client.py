"""librdkafka (confluent-kafka) producer: bootstraps against the address given as the first
argument, produces one record to the interop topic, waits for its delivery report, prints the
partition and offset and exits 0; 1 on failure, 124 at the deadline."""

import sys

from confluent_kafka import Producer

import _peer


def main():
    bootstrap = _peer.start("rdkafka", "rdkafka_client.py BOOTSTRAP")
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
        _peer.fail("rdkafka", "no delivery report in time")
    if result["err"] is not None:
        _peer.fail("rdkafka", result["err"])
    m = result["msg"]
    print(f"rdkafka: {m.topic()}-{m.partition()}@{m.offset()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
