"""aiokafka producer: bootstraps against the address given as the first argument, produces one
record to the interop topic, waits for it, prints the partition and offset and exits 0; 1 on
failure, 124 at the deadline."""

import asyncio
import sys

from aiokafka import AIOKafkaProducer

import _peer


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


def main():
    bootstrap = _peer.start("aiokafka", "aiokafka_client.py BOOTSTRAP")
    budget = _peer.deadline_secs() / 3
    try:
        md = asyncio.run(produce(bootstrap, budget))
    except Exception as e:  # noqa: BLE001 - any failure is reported the same way
        _peer.fail("aiokafka", e)
    print(f"aiokafka: {md.topic}-{md.partition}@{md.offset}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
