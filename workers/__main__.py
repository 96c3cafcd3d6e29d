"""`python -m workers <pool>`: run one worker pool until interrupted.

    python -m workers control            # workflows
    python -m workers cpu --concurrency 8
    python -m workers gpu --concurrency 2  # one process per GPU; slots = concurrent sandboxes
    python -m workers llm                  # VL judge calls, rate-limited (ARKEVO_LLM_RPM)
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
from concurrent.futures import ThreadPoolExecutor

from temporalio.client import Client

from contracts import queues
from workers.pools import build_worker
from workers.settings import settings_from_env

DEFAULT_CONCURRENCY = {"control": 50, "cpu": 4, "gpu": 2, "llm": 4}


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m workers", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("pool", choices=sorted(queues.POOLS))
    p.add_argument("--concurrency", type=int, default=None,
                   help="max concurrent activities (gpu: concurrent Blender sandboxes)")
    p.add_argument("--address", default=None, help="Temporal frontend (ARKEVO_TEMPORAL_ADDRESS)")
    p.add_argument("--namespace", default=None, help="namespace (ARKEVO_TEMPORAL_NAMESPACE)")
    return p.parse_args(argv)


async def serve(args: argparse.Namespace) -> None:
    if args.address:
        os.environ["ARKEVO_TEMPORAL_ADDRESS"] = args.address
    if args.namespace:
        os.environ["ARKEVO_TEMPORAL_NAMESPACE"] = args.namespace
    settings = settings_from_env()
    concurrency = args.concurrency or DEFAULT_CONCURRENCY[args.pool]
    client = await Client.connect(settings.address, namespace=settings.namespace)
    with ThreadPoolExecutor(max_workers=concurrency) as executor:
        worker = build_worker(args.pool, client, settings, concurrency=concurrency,
                              executor=executor)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        logging.info("worker %s on %s (%s, %s), concurrency %d", args.pool,
                     queues.POOLS[args.pool], settings.address, settings.namespace, concurrency)
        async with worker:
            await stop.wait()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    asyncio.run(serve(parse_args()))
