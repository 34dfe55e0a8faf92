"""aiokafka client program, in two forms.

One-shot (`aiokafka_client.py BOOTSTRAP`): bootstraps against the address, produces one record
to the interop topic, waits for it, prints the partition and offset and exits 0; 1 on failure,
124 at the deadline.

Live (`aiokafka_client.py --config FILE [--profile FILE] [--bootstrap HOST:PORT]`, the
`client-cmd:` contract of docs/live-clients.md): builds the producer, consumer or admin client
that `kipcheck.client.type` names from the properties file (Java names translated by
_peer.translate; a key aiokafka does not take is skipped with a note on stderr), starts it (it
bootstraps), and exits 0 when stdin closes. aiokafka has no share consumer and no Streams (exit 3)
and does not implement KIP-1324 (the profile is not used).
"""

import asyncio
import inspect
import sys
import threading

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient

import _peer

NAME = "aiokafka"
CLASSES = {"producer": AIOKafkaProducer, "consumer": AIOKafkaConsumer, "admin": AIOKafkaAdminClient}
RENAMES = {"batch.size": "max_batch_size"}


async def produce(bootstrap, budget):
    p = AIOKafkaProducer(
        bootstrap_servers=bootstrap,
        client_id="kipcheck-aiokafka",
        request_timeout_ms=5000,
    )
    await asyncio.wait_for(p.start(), budget)
    try:
        return await asyncio.wait_for(
            p.send_and_wait(_peer.TOPIC, key=b"k", value=b"hello from kipcheck interop"), budget
        )
    finally:
        await asyncio.wait_for(p.stop(), 5)


def one_shot():
    bootstrap = _peer.start(NAME, "aiokafka_client.py BOOTSTRAP | --config FILE [--profile FILE]")
    budget = _peer.deadline_secs() / 3
    try:
        md = asyncio.run(produce(bootstrap, budget))
    except Exception as e:  # noqa: BLE001 - any failure is reported the same way
        _peer.fail(NAME, e)
    print(f"{NAME}: {md.topic}-{md.partition}@{md.offset}")
    return 0


def live(opts):
    state = {}

    def connect(client_type, props):
        cls = CLASSES[client_type]
        accepted = {n: p.default for n, p in inspect.signature(cls.__init__).parameters.items()
                    if p.kind == p.KEYWORD_ONLY or p.default is not p.empty}
        kwargs, notes = _peer.translate(props, accepted, RENAMES)
        for n in notes:
            _peer.note(NAME, n)
        loop = asyncio.new_event_loop()
        state["loop"] = loop

        async def build():
            client = cls(**kwargs)
            state["client"] = client
            await client.start()

        loop.run_until_complete(build())
        state["running"] = True
        threading.Thread(target=loop.run_forever, daemon=True).start()  # background tasks

    def close():
        loop, client = state.get("loop"), state.get("client")
        if loop is None or client is None or not state.get("running"):
            return
        stop = getattr(client, "stop", None) or client.close
        asyncio.run_coroutine_threadsafe(stop(), loop).result(1.4)

    return _peer.live_main(NAME, opts, connect, close)


def main():
    opts = _peer.parse_live_args(NAME)
    return one_shot() if opts is None else live(opts)


if __name__ == "__main__":
    sys.exit(main())
