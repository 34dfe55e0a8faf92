"""A stdlib-only Kafka client without KIP-1324, for kipcheck's client-cmd: tests.

Usage: older_client.py HOST:PORT [MODE] [CONFIG]
  (no mode, or "normal")  ApiVersions v3, then Metadata v4 (all topics), read both answers,
             then wait for kipcheck to close stdin (the client-cmd: process lifetime); exit 0.
             User requests (`user_request <id>` lines on stdin) are released (`released <id>`
             on stdout) once the ApiVersions answer is in: an older client never waits for a
             handshake.
  push       the same, then a PushConfig v0 (api key 95, an empty config list).
  garbage    send a negative frame size, then wait for stdin to close.
  crash      send ApiVersions v3, read the answer, print to stderr, exit 3.
  exit       the normal exchange, then exit 0 at once (without waiting for stdin to close).
  sasl       ApiVersions v3, then SASL/PLAIN as a Java client does it (SaslHandshake v1,
             SaslAuthenticate v2), ApiVersions v3 again on the authenticated connection (what
             Java's NetworkClient sends), then PushConfig v0 (an empty config list), each answer
             read before the next request; then wait for stdin to close.
  sasl-early the same, but PushConfig right after the SaslHandshake answer (before
             authenticating), then SaslAuthenticate.
CONFIG (kipcheck's {config}) is read and checked to name kipcheck.client.type when given.
"""
import socket
import struct
import sys
import threading

lock = threading.Lock()
state = {"released": False, "pending": []}


def release(ids):
    for i in ids:
        sys.stdout.write("released %d\n" % i)
    sys.stdout.flush()


def read_stdin(eof):
    """The user-request channel: queue requests until the ApiVersions answer, then release."""
    for line in sys.stdin:
        parts = line.split()
        if len(parts) == 2 and parts[0] == "user_request":
            with lock:
                if state["released"]:
                    release([int(parts[1])])
                else:
                    state["pending"].append(int(parts[1]))
    eof.set()


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


def sasl(sock, mode, eof):
    """The SASL exchange of mode `sasl` / `sasl-early` (see the module doc)."""
    mech = b"PLAIN"
    sock.sendall(frame(17, 1, 2, struct.pack(">h", len(mech)) + mech, False))
    read_frame(sock)
    push = frame(95, 0, 5, b"\x01\x00", True)
    if mode == "sasl-early":
        sock.sendall(push)
    token = b"\x00alice\x00secret"
    sock.sendall(frame(36, 2, 3, bytes([len(token) + 1]) + token + b"\x00", True))
    read_frame(sock)
    name, ver = b"older", b"1.0"
    body = bytes([len(name) + 1]) + name + bytes([len(ver) + 1]) + ver + b"\x00"
    sock.sendall(frame(18, 3, 4, body, True))
    read_frame(sock)
    if mode == "sasl":
        sock.sendall(push)
    eof.wait()
    sock.close()
    return 0


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    mode = sys.argv[2] if len(sys.argv) > 2 else "normal"
    if len(sys.argv) > 3:
        with open(sys.argv[3], encoding="utf-8") as f:
            if "\nkipcheck.client.type=" not in f.read():
                raise SystemExit("older_client: the config names no kipcheck.client.type")
    eof = threading.Event()
    threading.Thread(target=read_stdin, args=(eof,), daemon=True).start()
    sock = socket.create_connection((host, int(port)), timeout=10)
    if mode == "garbage":
        sock.sendall(struct.pack(">i", -5) + b"junk")
        eof.wait()
        return 0
    # ApiVersions v3 (flexible): compact strings software name/version, tagged fields.
    name, ver = b"older", b"1.0"
    body = bytes([len(name) + 1]) + name + bytes([len(ver) + 1]) + ver + b"\x00"
    sock.sendall(frame(18, 3, 1, body, True))
    read_frame(sock)
    with lock:
        state["released"] = True
        release(state["pending"])
    if mode in ("sasl", "sasl-early"):
        return sasl(sock, mode, eof)
    if mode == "crash":
        sys.stderr.write("older_client: simulated crash after ApiVersions\n")
        return 3
    # Metadata v4 (not flexible): null topic array = all topics, allow_auto_topic_creation.
    sock.sendall(frame(3, 4, 2, struct.pack(">i", -1) + b"\x01", False))
    read_frame(sock)
    if mode == "push":
        # PushConfig v0 (flexible): an empty compact array of configs, tagged fields.
        sock.sendall(frame(95, 0, 3, b"\x01\x00", True))
    if mode == "exit":
        sys.stderr.write("older_client: done, exiting early\n")
        return 0
    eof.wait()
    sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
