"""kafka-python producer: bootstraps against the address given as the first argument, produces one
record to the interop topic, waits for it, prints the partition and offset and exits 0; 1 on
failure, 124 at the deadline."""

import sys

from kafka import KafkaProducer

import _peer


def main():
    bootstrap = _peer.start("kafka-python", "kafka_python_client.py BOOTSTRAP")
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
        _peer.fail("kafka-python", e)
    print(f"kafka-python: {md.topic}-{md.partition}@{md.offset}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
