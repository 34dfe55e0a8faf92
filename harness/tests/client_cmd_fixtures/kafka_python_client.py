"""kafka-python (an older client: no KIP-1324) listing the cluster's topics, for kipcheck's
client-cmd: target. Usage: kafka_python_client.py HOST:PORT [CONFIG]. Lists the topics, then
waits for kipcheck to close its stdin (the client-cmd: process lifetime) and exits 0. CONFIG
(kipcheck's {config}) is accepted and not applied: this client predates KIP-1324, and the
scenarios it runs configure only the KIP's own settings."""
import sys

from kafka import KafkaConsumer

consumer = KafkaConsumer(bootstrap_servers=sys.argv[1], request_timeout_ms=5000)
print(sorted(consumer.topics()), flush=True)
sys.stdin.read()
consumer.close()
