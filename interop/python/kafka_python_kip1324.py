"""The kafka-python KIP-1324 prototype as a live client program:
`kafka_python_kip1324.py --config FILE [--profile FILE]` is `kafka_python_client.py --kip1324 ...`
(the client-cmd: contract of docs/live-clients.md, the handshake from kip1324_kafka_python)."""

import sys

import kafka_python_client

if __name__ == "__main__":
    sys.exit(kafka_python_client.main(sys.argv + ["--kip1324"]))
