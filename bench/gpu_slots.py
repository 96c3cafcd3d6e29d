"""How many concurrent trials a gpu worker should run on a CPU-only machine: the same batch of
real Harbor trials (oracle and nop on bundled seeds, in the trial sandbox) at 2, 3 and 4 at a
time, alternating, in one run; the batch wall per setting, its ratio to one-per-core, and the
CPU left idle.

    sudo .venv/bin/python bench/gpu_slots.py [--seeds table-model mug-material ...] \
        [--slots 2 3 4] [--rounds 2] [--json out.json]

The trials go through `TrialActivities.run_trial` as a gpu worker runs them (package written
as a Harbor task, privacy checkpoint, solver sandbox with the MCP host, verifier sandbox),
without Temporal. `make up` gives its gpu worker two slots per core
(`workers.stack.local_gpu_concurrency`); docs/performance.md quotes this bench's figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from storage.content import FilesystemStore  # noqa: E402
from activities.trial_backends import HarborSandboxBackend  # noqa: E402
from activities.trials import TrialActivities  # noqa: E402
from contracts.payloads.trials import TrialRequest  # noqa: E402
from tests.conftest import assemble_seed  # noqa: E402

SEEDS = ["table-model", "mug-material", "crate-texture", "render-setup"]
POLICIES = ["oracle", "nop", "oracle"]


def cpu_times() -> tuple[float, float]:
    """(busy, idle) jiffies of the whole machine, from /proc/stat."""
    fields = [float(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, idle


async def batch(trials: TrialActivities, requests: list[TrialRequest], slots: int) -> dict:
    gate = asyncio.Semaphore(slots)

    async def one(req: TrialRequest) -> None:
        async with gate:
            await trials.run_trial(req)

    busy0, idle0 = cpu_times()
    began = time.monotonic()
    await asyncio.gather(*(one(r) for r in requests))
    wall = time.monotonic() - began
    busy1, idle1 = cpu_times()
    return {"wall_s": round(wall, 2), "idle": round((idle1 - idle0) / ((busy1 - busy0) + (idle1 - idle0)), 3)}


async def main(args: argparse.Namespace) -> dict:
    console = Console(stderr=True)
    with tempfile.TemporaryDirectory(prefix="arkevo-bench-slots-") as tmp:
        store = FilesystemStore(Path(tmp) / "store")
        requests = []
        for seed in args.seeds:
            console.print(f"assembling {seed} …")
            package = await assemble_seed(store, ROOT / "seeds" / seed)
            requests += [TrialRequest(package.task_package, package.identity, policy,
                                      f"bench/{seed}/{policy}/{i}", "evaluation")
                         for i, policy in enumerate(POLICIES)]
        trials = TrialActivities(store, HarborSandboxBackend())
        await trials.run_trial(requests[0])  # warm: imports, the privacy checkpoint's cache
        runs: dict[int, list[dict]] = {n: [] for n in args.slots}
        for r in range(args.rounds):
            for n in args.slots:
                result = await batch(trials, requests, n)
                console.print(f"round {r + 1}: {n} at a time: {len(requests)} trials in "
                              f"{result['wall_s']} s, CPU idle {result['idle']:.1%}")
                runs[n].append(result)
    base = statistics.median(x["wall_s"] for x in runs[args.slots[0]])
    rows = {n: {"median_wall_s": statistics.median(x["wall_s"] for x in v),
                "ratio": round(statistics.median(x["wall_s"] for x in v) / base, 3),
                "idle": statistics.median(x["idle"] for x in v)} for n, v in runs.items()}
    return {"trials": len(requests), "seeds": args.seeds, "rounds": args.rounds,
            "cpus": os.cpu_count(), "machine": platform.platform(), "slots": rows}


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", nargs="+", default=SEEDS)
    p.add_argument("--slots", nargs="+", type=int, default=[2, 3, 4])
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    if any(n < 1 for n in args.slots) or args.rounds < 1:
        p.error("--slots and --rounds must be positive")
    out = asyncio.run(main(args))
    print(f"| concurrent trials | batch of {out['trials']} (median of {out['rounds']}) | ratio to "
          f"{args.slots[0]} | CPU idle |\n|---|---|---|---|")
    for n, row in out["slots"].items():
        print(f"| {n} | {row['median_wall_s']:.1f} s | {row['ratio']:.2f} | {row['idle']:.1%} |")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
