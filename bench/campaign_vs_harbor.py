"""The same trials through an `EvaluationCampaign` and through `harbor run`, side by side in one
run: the same frozen task, the same sandbox environment, the same concurrency, interleaved.

    .venv/bin/python bench/campaign_vs_harbor.py [-k 6] [-n 2] [--rounds 3] [--task table-model]
        [--json out.json]

Each round runs both, in alternating order (round 1 the campaign first, round 2 Harbor first,
...), so that a machine that warms up or slows down over the run favours neither:

* **campaign**: `arkevo campaign start --wait` as a user runs it — one EvaluationCampaign of K
  oracle attempts (the scripted MCP agent applying the reference solution through MCP), with the
  gpu cap N, on its own dev server with the four worker pools (started once, before the rounds,
  as a deployment keeps them running) and a copy of the newest publication of --task that
  `make demo` made. Its wall: workflow start -> result (preflight, trials, evidence renders, VL
  judging, scoring, records and the report included).
* **harbor**: `harbor run -p <task> -a oracle -e sandbox.environment:ArkevoSandboxEnvironment
  -k K -n N` on the same task directory (Harbor's oracle runs `solution/solve.sh`; the verifier
  runs `tests/test.sh`, which for a task whose profile weights VL renders the evidence and
  applies the packaged image-metric judge). Its wall: the job's own `started_at -> finished_at`
  from its result.json (the CLI's interpreter start is printed beside it, not counted).

Throughput is trials per second of wall; the ratio is campaign over harbor, per round and the
median of the rounds. Beside it, what each side cost the whole machine (bench/machine_cpu.py:
/proc/stat over the side's wall window, so run it alone): CPU seconds per trial — every
process, the workers, the dev server and Harbor's own CLI included — and how busy the cores
were (100 %: CPU-bound). Every trial's reward is compared: the campaign's records against Harbor's
`verifier_result.rewards.reward`; a difference is printed and fails the bench (exit 2).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from bench.machine_cpu import MachineCpu  # noqa: E402
from bench.load_support import (BenchError, Deployment, find_publication, iso_seconds, run_main,  # noqa: E402
                                seconds_or_blank, seed_var, write_task_dir)
from contracts import queues  # noqa: E402
from workers.settings import settings_from_env  # noqa: E402

EXIT_CODES = """\
exit codes:
  0    measured, and every trial's reward is the same both ways (the table is printed)
  1    an unexpected error (traceback)
  2    bad usage, or no clean comparison (the reason is printed): no such publication, a server
       or worker that did not start, a failed trial, a reward that differs
  130  interrupted (SIGINT/SIGTERM); the workers and the server are stopped"""
ENVIRONMENT = "sandbox.environment:ArkevoSandboxEnvironment"
HARBOR = Path(sys.executable).with_name("harbor")
console = Console(stderr=True)
out = Console(width=None if sys.stdout.isatty() else 140)


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="bench/campaign_vs_harbor.py", description=__doc__.split("\n\n")[0],
                                 epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-k", "--attempts", type=int, default=6, help="oracle trials per side and round (default %(default)s)")
    ap.add_argument("-n", "--concurrency", type=int, default=2,
                    help="harbor's -n and the campaign's gpu slots and cap (default %(default)s)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default %(default)s)")
    ap.add_argument("--task", default="table-model", help="task id of the publication (default %(default)s)")
    ap.add_argument("--publication", default=None, help="a publication folder key instead of the newest of --task")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    args = ap.parse_args(argv)
    if not 1 <= args.attempts <= 64:
        ap.error(f"--attempts {args.attempts}: give 1..64 (the registry's attempts per config)")
    if not 1 <= args.concurrency <= 8 or not 1 <= args.rounds <= 10:
        ap.error("--concurrency: 1..8; --rounds: 1..10")
    if not HARBOR.is_file():
        ap.error(f"no harbor CLI beside this interpreter ({HARBOR}): run it with the project's .venv")
    return args


# -- the campaign side -----------------------------------------------------------------------------


def registry(k: int) -> dict:
    return {"registry_version": "bench-campaign-vs-harbor",
            "configs": [{"id": "oracle", "description": "bench/campaign_vs_harbor.py: the scripted oracle",
                         "agent": "oracle", "attempts": k, "validated": True}],
            "modes": {"versus": {"description": f"{k} oracle attempts", "attempts": {"oracle": k}}}}


async def run_campaign(client, folder: str, registry_path: Path, k: int, n: int, var: Path,
                       label: str) -> dict:
    from contracts.payloads.campaigns import CampaignInput, CampaignResult

    campaign_id = f"versus-{label}-" + datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    req = CampaignInput(campaign_id, mode="versus", publications=[folder], registry=str(registry_path),
                        bootstrap_samples=200, caps={"gpu": n, "llm": 2})
    started, started_epoch = time.monotonic(), time.time()
    result = await client.execute_workflow("EvaluationCampaign", req, id=f"campaign-{campaign_id}",
                                           task_queue=queues.CONTROL, result_type=CampaignResult)
    wall = time.monotonic() - started
    if result.failed or result.exceptions:
        raise BenchError(f"campaign {campaign_id}: {len(result.failed)} trial(s) failed, "
                         f"{len(result.exceptions)} infra exception(s): not a clean comparison")
    root = var / "campaigns" / campaign_id
    rewards = [json.loads(r.read_text())["reward"] for r in sorted((root / "records").glob("*.json"))]
    if len(rewards) != k:
        raise BenchError(f"campaign {campaign_id}: {len(rewards)} records for {k} trials")
    smoke = (json.loads((root / "preflight.json").read_text()).get("smoke") or {}).get("seconds")
    return {"wall_sec": wall, "window": (started_epoch, started_epoch + wall),
            "rewards": rewards, "id": campaign_id, "smoke_sec": smoke,
            "sandbox_cpu_sec": sandbox_cpu(sorted((root / "harbor" / campaign_id).glob("*/"))),
            "evidence_renders": len(list(var.glob("cache/evidence/**/manifest.json")))}


# -- the harbor side -------------------------------------------------------------------------------


def run_harbor(task_dir: Path, jobs: Path, k: int, n: int, label: str) -> dict:
    job = f"versus-{label}"
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    command = [str(HARBOR), "run", "-p", str(task_dir), "-a", "oracle", "-e", ENVIRONMENT,
               "-k", str(k), "-n", str(n), "-o", str(jobs), "--job-name", job, "-y", "-q"]
    log = jobs / f"{job}.log"
    jobs.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with log.open("w") as sink:
        code = subprocess.run(command, stdout=sink, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
                              timeout=3600).returncode
    command_wall = time.monotonic() - started
    job_dir = jobs / job
    results = [json.loads(p.read_text()) for p in sorted(job_dir.glob("*/result.json"))]
    failed = [r.get("trial_name") for r in results if r.get("exception_info")]
    if code != 0 or len(results) != k or failed:
        raise BenchError(f"harbor run exited {code} with {len(results)} trial results of {k} "
                         f"(failed: {failed}); log {log}:\n{log.read_text(errors='replace')[-2000:]}")
    job_result = json.loads((job_dir / "result.json").read_text())
    window = (iso_seconds(job_result["started_at"]), iso_seconds(job_result["finished_at"]))
    rewards = [((r.get("verifier_result") or {}).get("rewards") or {}).get("reward") for r in results]
    return {"wall_sec": window[1] - window[0], "window": window, "command_wall_sec": command_wall,
            "rewards": rewards, "id": job,
            "sandbox_cpu_sec": sandbox_cpu(sorted(p for p in job_dir.glob("*/") if p.is_dir()))}


def sandbox_cpu(trial_dirs: list[Path]) -> float | None:
    """The median over trials of the solver and verifier sandboxes' cgroup CPU seconds (each
    trial's `sandbox/` exec log, as `trial_cost` reads it): what the sandboxed processes spent,
    Blender and the MCP server included; the worker's own share and bwrap's set-up are not."""
    from activities.trial_backends import sandbox_cpu_seconds

    found = [c for c in (sandbox_cpu_seconds(d / "sandbox") for d in trial_dirs) if c is not None]
    return statistics.median(found) if found else None


# -- the run ---------------------------------------------------------------------------------------


async def main_async(args) -> int:
    settings = settings_from_env()
    objects, store = settings.objects(), settings.content_store()
    folder = args.publication.strip("/") if args.publication else find_publication(objects, args.task)
    work = Path(tempfile.mkdtemp(prefix="arkevo-versus-"))
    k, n = args.attempts, args.concurrency
    deployment = Deployment(work, None, "default", "sandbox", {"gpu": n})
    rounds: list[dict] = []
    cpu = MachineCpu()  # sampled from the first round on: the stack's start-up is not a side's
    try:
        seed_var(objects, store, folder, deployment.var)
        registry_path = work / "registry.json"
        registry_path.write_text(json.dumps(registry(k), indent=2) + "\n")
        task_dir = write_task_dir(objects, folder, work / "task")
        console.print(f"work folder {work}; publication {folder}; {k} oracle trials a side, "
                      f"concurrency {n}, {args.rounds} round(s)")
        with console.status("starting the dev server and the worker pools"):
            client = await deployment.start()
        cpu.start()
        for i in range(1, args.rounds + 1):
            order = ("campaign", "harbor") if i % 2 else ("harbor", "campaign")
            row: dict = {"round": i, "order": list(order)}
            for side in order:
                with console.status(f"round {i}/{args.rounds}: {side}, {k} trials"):
                    if side == "campaign":
                        row[side] = await run_campaign(client, folder, registry_path, k, n,
                                                       deployment.var, f"r{i}")
                    else:
                        row[side] = await asyncio.to_thread(run_harbor, task_dir, work / "jobs", k, n, f"r{i}")
                console.print(f"round {i}: {side} {k} trials in {row[side]['wall_sec']:.1f}s")
            row["ratio"] = row["harbor"]["wall_sec"] / row["campaign"]["wall_sec"]
            rounds.append(row)
    finally:
        cpu.stop()
        for row in rounds:
            for side in ("campaign", "harbor"):
                row[side]["machine_cpu"] = cpu.window(*row[side].pop("window"))
        with console.status("stopping workers and server"):
            deployment.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return report(args, folder, rounds, work)


def report(args, folder: str, rounds: list[dict], work: Path) -> int:
    k = args.attempts
    t = Table(title=f"{k} oracle trials of {folder.rsplit('/', 1)[-1]} a side, concurrency "
                    f"{args.concurrency}: trials per minute (wall s)")
    for col in ("round", "order", "campaign", "of which smoke", "harbor run (job)", "harbor CLI wall",
                "sandbox CPU/trial c | h", "machine CPU/trial c | h", "busy c | h", "campaign / harbor"):
        t.add_column(col, justify="left" if col in ("round", "order") else "right")
    for r in rounds:
        c, h = r["campaign"], r["harbor"]
        t.add_row(str(r["round"]), " then ".join(r["order"]),
                  f"{60 * k / c['wall_sec']:.1f} ({c['wall_sec']:.1f})", seconds_or_blank(c["smoke_sec"]),
                  f"{60 * k / h['wall_sec']:.1f} ({h['wall_sec']:.1f})", f"{h['command_wall_sec']:.1f}",
                  f"{seconds_or_blank(c['sandbox_cpu_sec'])} | {seconds_or_blank(h['sandbox_cpu_sec'])}",
                  " | ".join(seconds_or_blank(x["machine_cpu"] and x["machine_cpu"][0] / k) for x in (c, h)),
                  " | ".join(f"{x['machine_cpu'][1]:.0%}" if x["machine_cpu"] else "" for x in (c, h)),
                  f"{r['ratio']:.2f}x")
    median = statistics.median(r["ratio"] for r in rounds)
    t.add_section()
    t.add_row("median", "", "", "", "", "", "", "", "", f"[bold]{median:.2f}x")
    out.print(t)
    mismatches = [(r["round"], i, c, h) for r in rounds
                  for i, (c, h) in enumerate(zip(sorted(r["campaign"]["rewards"]), sorted(r["harbor"]["rewards"])))
                  if c is None or h is None or abs(c - h) > 1e-9]
    rewards = sorted({x for r in rounds for side in ("campaign", "harbor") for x in r[side]["rewards"]},
                     key=lambda v: (v is None, v))
    renders = rounds[-1]["campaign"]["evidence_renders"]
    out.print(f"campaign evidence renders made (the rest hit the worker's cache): {renders} in "
              f"{len(rounds)} round(s); harbor's verifier renders every trial's evidence")
    out.print(f"rewards: {', '.join(str(x) for x in rewards)} "
              f"({'identical for every trial' if not mismatches else f'{len(mismatches)} differ'})")
    result = {"task": folder, "attempts": k, "concurrency": args.concurrency, "rounds": rounds,
              "median_ratio": median, "rewards_identical": not mismatches,
              "command": "bench/campaign_vs_harbor.py " + " ".join(sys.argv[1:])}
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    if args.keep:
        console.print(f"kept {work}")
    if mismatches:
        for rnd, i, c, h in mismatches:
            console.print(f"[red]round {rnd}, trial {i + 1} (sorted): campaign {c} vs harbor {h}")
        return 2
    return 0


def main(argv=None) -> int:
    return run_main(main_async, parse_args(argv), console)


if __name__ == "__main__":
    from workers.client import exit_process

    exit_process(main())
