"""kafka-python (an older client: no KIP-1324) listing the cluster's topics, for kipcheck's
client-cmd: target. Usage: kafka_python_client.py HOST:PORT. Exits 0 once it has the list."""
import sys

from kafka import KafkaConsumer

consumer = KafkaConsumer(bootstrap_servers=sys.argv[1], request_timeout_ms=5000)
print(sorted(consumer.topics()))
consumer.close()
