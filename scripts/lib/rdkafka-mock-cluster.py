"""Starts librdkafka's mock cluster (confluent-kafka, test.mock.num.brokers=1), prints the
mock broker's address (HOST:PORT, read from list_topics() metadata) and stays alive until
killed, so `kipcheck load --api-versions-only` can measure it."""
import sys
import time

from confluent_kafka.admin import AdminClient

admin = AdminClient({"test.mock.num.brokers": 1, "bootstrap.servers": "unused:1"})
md = admin.list_topics(timeout=10)
broker = next(iter(md.brokers.values()))
print(f"{broker.host}:{broker.port}", flush=True)
while True:
    time.sleep(3600)
