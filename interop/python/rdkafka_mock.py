"""Starts librdkafka's built-in mock cluster (confluent-kafka, `test.mock.num.brokers=1`) on
loopback, prints its broker address ("127.0.0.1:PORT", read from list_topics() metadata) on
standard output and stays alive until SIGTERM/SIGINT or --max-life seconds. The mock cluster
lives inside this process's librdkafka handle, so the handle is kept open for the whole time."""

import argparse
import signal
import sys
import time

from confluent_kafka.admin import AdminClient


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--max-life", type=float, default=7200.0, help="stop after this many seconds")
    args = ap.parse_args()

    admin = AdminClient({"test.mock.num.brokers": 1, "client.id": "kipcheck-rdkafka-mock-holder"})
    md = admin.list_topics(timeout=10)
    brokers = sorted(md.brokers.values(), key=lambda b: b.id)
    if not brokers:
        print("rdkafka-mock: no broker in metadata", file=sys.stderr)
        return 1
    print(f"{brokers[0].host}:{brokers[0].port}", flush=True)

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    until = time.monotonic() + args.max_life
    while not stop and time.monotonic() < until:
        time.sleep(0.2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
