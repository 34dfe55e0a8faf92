"""A stdlib-only Kafka client without KIP-1324, for kipcheck's client-cmd: tests.

Usage: older_client.py HOST:PORT [MODE]
  (no mode)  ApiVersions v3, then Metadata v4 (all topics), read both answers, exit 0.
  push       the same, then a PushConfig v0 (api key 95, an empty config list); exit 0.
  garbage    send a negative frame size, then exit 0.
  crash      send ApiVersions v3, read the answer, print to stderr, exit 3.
"""
import socket
import struct
import sys


def frame(api_key, version, corr, body, flexible):
    client_id = b"older"
    header = struct.pack(">hhih", api_key, version, corr, len(client_id)) + client_id
    if flexible:
        header += b"\x00"  # header tagged fields
    payload = header + body
    return struct.pack(">i", len(payload)) + payload


def read_frame(sock):
    size = struct.unpack(">i", read_exact(sock, 4))[0]
    return read_exact(sock, size)


def read_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise SystemExit("connection closed by kipcheck")
        buf += chunk
    return buf


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    mode = sys.argv[2] if len(sys.argv) > 2 else ""
    sock = socket.create_connection((host, int(port)), timeout=10)
    if mode == "garbage":
        sock.sendall(struct.pack(">i", -5) + b"junk")
        return 0
    # ApiVersions v3 (flexible): compact strings software name/version, tagged fields.
    name, ver = b"older", b"1.0"
    body = bytes([len(name) + 1]) + name + bytes([len(ver) + 1]) + ver + b"\x00"
    sock.sendall(frame(18, 3, 1, body, True))
    read_frame(sock)
    if mode == "crash":
        sys.stderr.write("older_client: simulated crash after ApiVersions\n")
        return 3
    # Metadata v4 (not flexible): null topic array = all topics, allow_auto_topic_creation.
    sock.sendall(frame(3, 4, 2, struct.pack(">i", -1) + b"\x01", False))
    read_frame(sock)
    if mode == "push":
        # PushConfig v0 (flexible): an empty compact array of configs, tagged fields.
        sock.sendall(frame(95, 0, 3, b"\x01\x00", True))
    sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
