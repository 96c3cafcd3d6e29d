"""`python -m workers <pool>`: run one worker pool until interrupted.

    python -m workers control            # workflows
    python -m workers cpu --concurrency 8
    python -m workers gpu --concurrency 2  # one process per GPU; slots = concurrent sandboxes
    python -m workers llm                  # VL judge calls, rate-limited (ARKEVO_LLM_RPM)

Server and namespace: --address / --namespace, else ARKEVO_TEMPORAL_ADDRESS /
ARKEVO_TEMPORAL_NAMESPACE, else the Temporal client profile (TEMPORAL_PROFILE,
TEMPORAL_CONFIG_FILE, TEMPORAL_ADDRESS, TEMPORAL_API_KEY, TEMPORAL_TLS*), else localhost:7233.
Logs: one JSON object per line on stderr (ARKEVO_LOG_FORMAT=text for plain lines,
ARKEVO_LOG_LEVEL). Metrics: ARKEVO_METRICS_ADDRESS=0.0.0.0:9464 serves /metrics there.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from concurrent.futures import ThreadPoolExecutor

from contracts import queues

DEFAULT_CONCURRENCY = {"control": 50, "cpu": 4, "gpu": 2, "llm": 4}

log = logging.getLogger("workers")


EXIT_CODES = """\
exit codes:
  0  stopped by SIGINT or SIGTERM
  1  the worker failed: the Temporal server did not answer, or an error while serving
  2  bad usage or configuration: an unknown pool or option, an unreadable client profile,
     a bad ARKEVO_LOG_FORMAT / ARKEVO_LOG_LEVEL / ARKEVO_METRICS_ADDRESS, a bad
     ARKEVO_LLM_RPM / ARKEVO_LLM_BURST (llm)"""


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m workers", description=__doc__, epilog=EXIT_CODES,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("pool", choices=sorted(queues.POOLS))
    p.add_argument("--concurrency", type=int, default=None,
                   help="max concurrent activities (gpu: concurrent Blender sandboxes)")
    p.add_argument("--address", default=None,
                   help="Temporal frontend (else ARKEVO_TEMPORAL_ADDRESS, else the client profile)")
    p.add_argument("--namespace", default=None,
                   help="namespace (else ARKEVO_TEMPORAL_NAMESPACE, else the client profile)")
    return p.parse_args(argv)


async def serve(args: argparse.Namespace) -> None:
    from observability import telemetry
    from workers.client import connect, connect_config, describe
    from workers.pools import build_worker
    from workers.settings import settings_from_env

    settings = settings_from_env()
    concurrency = args.concurrency or DEFAULT_CONCURRENCY[args.pool]
    metrics = telemetry.metrics_address()
    runtime = telemetry.worker_runtime(metrics=metrics, pool=args.pool,
                                       forward_logs=telemetry.log_format() == "json")
    if metrics:
        log.info("metrics on http://%s/metrics", metrics, extra={"metrics_address": metrics})
    else:
        log.info("no metrics endpoint (set %s to serve one)", telemetry.METRICS_ADDRESS_ENV)
    target = describe(connect_config(args.namespace, args.address))
    client = await connect(args.namespace, args.address, runtime=runtime)
    with ThreadPoolExecutor(max_workers=concurrency) as executor:
        worker = build_worker(args.pool, client, settings, concurrency=concurrency,
                              executor=executor)
        if args.pool == "gpu":
            from activities.trial_backends import warm_sandbox
            warm_sandbox()  # here, in the event loop's thread, which lives as long as the worker
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        log.info("worker %s on %s, %s, concurrency %d", args.pool, queues.POOLS[args.pool],
                 target, concurrency,
                 extra={"task_queue": queues.POOLS[args.pool], "concurrency": concurrency,
                        "metrics_address": metrics})
        async with worker:
            await stop.wait()
        from sandbox.prestart import close_all
        await close_all()  # the gpu pool's waiting sandboxes (sandbox/prestart.py)
        log.info("worker %s stopped", args.pool)


def main(argv=None) -> int:
    args = parse_args(argv)
    # Imported once the arguments are good: every activity of every pool comes with them, and
    # --help or a typo should not wait for that.
    from modelapi.token_bucket import RateConfigError
    from observability import telemetry
    from workers.client import ClientConfigError, ClientConnectError

    try:
        telemetry.setup_logging(pool=args.pool)
    except telemetry.TelemetryConfigError as exc:
        print(f"python -m workers: {exc}", file=sys.stderr)
        return 2
    try:
        asyncio.run(serve(args))
    except (ClientConfigError, telemetry.TelemetryConfigError, RateConfigError) as exc:
        log.error("%s", exc)
        return 2
    except ClientConnectError as exc:
        log.error("%s", exc)
        return 1
    except Exception:
        log.exception("worker %s failed", args.pool)
        return 1
    return 0


if __name__ == "__main__":
    code = main()
    from workers.client import exit_process

    exit_process(code)  # the status, whatever the SDK runtime does at exit
