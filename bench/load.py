"""Load: N trials through the real campaign workflows and real worker processes, measured from
the workflows' own histories and from /proc.

    sudo .venv/bin/python bench/load.py [--trials 200] [--policy nop|oracle] [--task table-model]
        [--backend sandbox|local] [--gpu-slots 2] [--gpu-cap 4] [--json out.json]
    sudo .venv/bin/python bench/load.py --trials 1000                       # the whole 1,000
    sudo .venv/bin/python bench/load.py --queued 1000 --measure-queue-only  # 1,000 at once, RSS, then terminate

What runs is what `arkevo campaign start --publication … --wait` runs in production: one
`EvaluationCampaign` whose `CampaignTrial` children each take the pipeline's one trial path
(run_trial on arkevo-gpu: Harbor trial in the sandbox with the scripted policy, then the rule
probe in a verifier sandbox; VLGrading child: evidence renders on gpu, the offline image-metric
judge on llm; score_trial and record_campaign_trial on cpu). The trials are N attempts of one
scripted policy on one frozen publication (default: the newest of `--task`, read from the
project's var/ — `make demo` makes them); the registry allows 64 attempts per config, so a
generated registry spreads them over identical configs load-01, load-02, …

The bench starts its own dev server (free ports, SQLite in its work folder) and the four pools
as `python -m workers <pool>` processes (one each, the pools' default slots unless --gpu-slots)
with ARKEVO_VAR in its work folder, seeded with that publication and the store blobs it
reaches; everything is stopped and removed at the end (--keep keeps the folder). `--address`
uses a running server instead (its own workers still start here; other workers polling the
same queues on that server would take part of the load).

Figures: history events per trial workflow (CampaignTrial, its VLGrading child, and both
together), the peak RSS of each worker process (VmRSS sampled, and VmHWM) and, apart, of its
descendants (Blender, sandboxes), schedule-to-start p50/p95 of activity tasks per task queue
and of workflow tasks (ActivityTaskScheduled -> ActivityTaskStarted, WorkflowTaskScheduled ->
WorkflowTaskStarted), throughput (trials completed per minute) and wall time.

`--queued Q` sets the campaign's gpu cap to Q: Q trials start at once, all but the gpu
worker's slots waiting in the arkevo-gpu queue. RSS is marked when the queue is full and
sampled for --hold seconds; with --measure-queue-only the campaign (and with it every trial)
is then terminated, so the 1,000-queued figure costs minutes, not the 1,000 trials.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import signal
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # noqa: E402
from rich.table import Table  # noqa: E402

from bench.load_support import (BenchError, Deployment, HistoryFacts, RssSampler, find_publication,  # noqa: E402
                                history_facts, load_registry, run_main, seed_var, summary)
from contracts import queues  # noqa: E402
from workers.settings import settings_from_env  # noqa: E402

EXIT_CODES = """\
exit codes:
  0    measured (the figures are printed, and written to --json)
  1    an unexpected error (traceback)
  2    bad usage, or nothing measured (the reason is printed): no such publication, the server
       or a worker did not start or died, no trial started or ended for --stall-timeout
  130  interrupted (SIGINT/SIGTERM); the workers and the server are stopped"""
TARGET_EVENTS = 200  # history events per trial workflow
TARGET_RSS_MB = 1536  # per worker process, at 1,000 queued
console = Console(stderr=True)
out = Console(width=None if sys.stdout.isatty() else 120)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench/load.py", description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 2)[2] + "\n" + EXIT_CODES,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trials", type=int, default=None,
                   help="trials in the campaign (default 200; with --queued Q: Q)")
    p.add_argument("--policy", default="nop", choices=["nop", "oracle"],
                   help="the scripted policy every trial runs (default nop: delivers the start scene)")
    p.add_argument("--task", default="table-model",
                   help="task id whose newest frozen publication is evaluated (default table-model)")
    p.add_argument("--publication", default=None,
                   help="a publication folder's object key in the project's object store instead "
                        "(e.g. datasets/demo/<rev>/publications/table-model/table-model-r1)")
    p.add_argument("--backend", default="sandbox", choices=["sandbox", "local"],
                   help="ARKEVO_TRIAL_BACKEND of the gpu worker (default sandbox, as deployed; local: "
                        "unisolated Blender subprocesses, nop is a file copy)")
    p.add_argument("--gpu-slots", type=int, default=2,
                   help="the gpu worker's --concurrency: trials running at once (default 2, its default)")
    p.add_argument("--gpu-cap", type=int, default=4,
                   help="the campaign's gpu cap: trials in flight at once (default 4, as `arkevo campaign`)")
    p.add_argument("--queued", type=int, default=None, metavar="Q",
                   help="start Q trials at once (gpu cap Q): measure RSS with the queue full")
    p.add_argument("--measure-queue-only", action="store_true",
                   help="with --queued: after --hold seconds at a full queue, terminate the campaign")
    p.add_argument("--hold", type=float, default=30.0,
                   help="seconds to keep sampling once the queue is full (default 30)")
    p.add_argument("--fill-timeout", type=float, default=600.0,
                   help="seconds to wait for the queue to fill before measuring anyway (default 600)")
    p.add_argument("--stall-timeout", type=float, default=900.0,
                   help="give up when no trial starts or ends for this many seconds (default 900)")
    p.add_argument("--bootstrap", type=int, default=2000, help="the report's bootstrap resamples (default 2000)")
    p.add_argument("--sample-interval", type=float, default=1.0, help="RSS sampling period in s (default 1)")
    p.add_argument("--address", default=None, help="use this Temporal server instead of starting one")
    p.add_argument("--namespace", default="default", help="namespace (with --address; default 'default')")
    p.add_argument("--work", type=Path, default=None, help="work folder, kept (default: a new temporary one, removed at the end)")
    p.add_argument("--keep", action="store_true", help="keep the work folder (logs, var, server db)")
    p.add_argument("--json", type=Path, default=None, help="write every figure as JSON here")
    args = p.parse_args(argv)

    def bad(msg: str):
        p.error(msg)

    if args.queued is not None and args.queued < 1:
        bad("--queued must be at least 1")
    if args.trials is None:
        args.trials = args.queued or 200
    if not 1 <= args.trials <= 5000:
        bad(f"--trials {args.trials}: give 1..5000 (one campaign's history, ~8 events per trial, "
            "must stay under Temporal's 51,200-event limit)")
    if args.queued is not None and args.queued > args.trials:
        bad(f"--queued {args.queued} > --trials {args.trials}: at most every trial can queue")
    if args.measure_queue_only and args.queued is None:
        bad("--measure-queue-only needs --queued Q")
    if args.gpu_slots < 1 or args.gpu_cap < 1:
        bad("--gpu-slots and --gpu-cap must be at least 1")
    if args.hold < 0 or min(args.fill_timeout, args.sample_interval, args.stall_timeout) <= 0:
        bad("--hold must be >= 0; --fill-timeout, --stall-timeout and --sample-interval > 0")
    if args.bootstrap < 100:
        bad("--bootstrap must be at least 100 (the campaign's own minimum)")
    if args.backend == "sandbox" and os.geteuid() != 0:
        bad("--backend sandbox needs root (bubblewrap, cgroups, slot users: docs/sandbox.md); "
            "run with sudo, or measure orchestration with --backend local")
    if args.work is not None and args.work.exists() and any(args.work.iterdir()):
        bad(f"--work {args.work}: not empty")
    return args


# -- the run ---------------------------------------------------------------------------------------


async def gpu_backlog(client, namespace: str) -> int | None:
    """Approximate backlog of the arkevo-gpu activity queue (DescribeTaskQueue stats)."""
    from temporalio.api.enums.v1 import TaskQueueType
    from temporalio.api.taskqueue.v1 import TaskQueue
    from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest

    try:
        resp = await client.workflow_service.describe_task_queue(DescribeTaskQueueRequest(
            namespace=namespace, task_queue=TaskQueue(name=queues.GPU),
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY, report_stats=True))
        return int(resp.stats.approximate_backlog_count)
    except Exception:  # an older server without stats  # noqa: BLE001
        return None


async def count(client, query: str) -> int | None:
    """Workflows matching a visibility query (None: the server cannot say)."""
    try:
        return (await client.count_workflows(query)).count
    except Exception:  # noqa: BLE001
        return None


async def run_campaign(args, client, deployment: Deployment, sampler: RssSampler, folder: str,
                       registry: Path) -> dict:
    from contracts.payloads.campaigns import CampaignInput, CampaignResult

    campaign_id = "load-" + datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    cap = args.queued or args.gpu_cap
    req = CampaignInput(campaign_id, mode="load", publications=[folder], registry=str(registry),
                        bootstrap_samples=args.bootstrap, caps={"gpu": cap, "llm": 2})
    wid = f"campaign-{campaign_id}"
    trial_query = f"WorkflowType = 'CampaignTrial' AND WorkflowId STARTS_WITH '{wid}.'"
    trials_started = None
    started, started_mono = time.time(), time.monotonic()
    handle = await client.start_workflow("EvaluationCampaign", req, id=wid, task_queue=queues.CONTROL,
                                         result_type=CampaignResult)
    result_task = asyncio.ensure_future(handle.result())
    state = {"campaign_id": campaign_id, "workflow_id": wid, "gpu_cap": cap, "terminated": False,
             "backlog_peak": None, "queue_full": None, "result": None}
    counts: dict = {}
    full_at = None
    last_change, last_counts = time.monotonic(), None
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[detail]}"), TimeElapsedColumn(), console=console) as bar:
        tid = bar.add_task("trials recorded", total=args.trials, detail="")
        while not result_task.done():
            if dead := deployment.dead_workers():
                raise BenchError(f"worker(s) died: {', '.join(dead)} (logs in {deployment.log_dir})")
            try:
                p = await handle.query("progress")
                counts = p["counts"]
            except Exception:  # before the first workflow task  # noqa: BLE001
                pass
            backlog = await gpu_backlog(client, deployment.namespace)
            trials_started = await count(client, trial_query)
            if backlog is not None:
                state["backlog_peak"] = max(state["backlog_peak"] or 0, backlog)
            running = counts.get("running", 0)
            done = counts.get("recorded", 0) + counts.get("failed", 0)
            if (running, done, trials_started) != last_counts:
                last_change, last_counts = time.monotonic(), (running, done, trials_started)
            elif time.monotonic() - last_change > args.stall_timeout:
                raise BenchError(f"no trial started or ended for {args.stall_timeout:.0f}s (running {running}, "
                                 f"done {done}); see the worker logs in {deployment.log_dir} (--keep keeps them)")
            rss = " ".join(f"{pool} {sampler.current_mb(pool):.0f}" for pool in deployment.workers)
            bar.update(tid, completed=done, detail=f"started {_f(trials_started)} · gpu backlog "
                       f"{'?' if backlog is None else backlog} · RSS MB {rss}")
            now = time.monotonic()
            if args.queued and full_at is None:
                # Full: every trial beyond the gpu slots waits in arkevo-gpu (the progress query's
                # "running" counts trials the campaign has asked to start, not started ones).
                target = min(args.queued, args.trials)
                filled = backlog is not None and backlog >= 0.95 * (target - args.gpu_slots)
                if filled or now - started_mono > args.fill_timeout:
                    full_at = now
                    sampler.mark("queue_full")
                    state["queue_full"] = {"after_s": round(time.time() - started, 1), "backlog": backlog,
                                           "trials_started": trials_started, "recorded": done,
                                           "filled": filled}
                    bar.update(tid, description=f"queue full ({backlog} waiting): holding {args.hold:.0f}s")
            if full_at is not None and now - full_at >= args.hold and args.measure_queue_only:
                sampler.mark("before_terminate")
                await handle.terminate(reason="bench/load.py --measure-queue-only: measured")
                state["terminated"] = True
                break
            await asyncio.wait([result_task], timeout=1.0)
    if state["terminated"]:
        result_task.cancel()
        # The server terminates the children (parent close policy), a batch at a time.
        with console.status("waiting for the server to terminate the trials") as status:
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                left = await count(client, f"{trial_query} AND ExecutionStatus = 'Running'")
                if left == 0 or left is None:
                    break
                status.update(f"waiting for the server to terminate the trials: {left} left")
                await asyncio.sleep(2.0)
    else:
        result = result_task.result()
        state["result"] = {"trials": result.trials, "exceptions": len(result.exceptions),
                           "failed": len(result.failed)}
    state["submitted_at"] = started
    state["histories"] = await collect_histories(client, wid)
    return state


async def collect_histories(client, wid: str) -> dict[str, list[HistoryFacts]]:
    """The campaign's history, every CampaignTrial's and every VLGrading child's."""
    sem = asyncio.Semaphore(8)

    async def fetch(w: str) -> HistoryFacts:
        async with sem:
            history = await client.get_workflow_handle(w).fetch_history()
            return history_facts(w, history.events)

    parent = await fetch(wid)
    trials = await asyncio.gather(*(fetch(w) for w in parent.children))
    vl = await asyncio.gather(*(fetch(w) for t in trials for w in t.children))
    return {"campaign": [parent], "trials": list(trials), "vl": list(vl)}


# -- figures ---------------------------------------------------------------------------------------


def figures(args, state: dict, sampler: RssSampler, seed: dict,
            bench_wall: float) -> dict:
    h = state["histories"]
    parent, trials, vl = h["campaign"][0], h["trials"], h["vl"]
    vl_of = {v.workflow_id: v for v in vl}
    completed = [t for t in trials if t.close == "completed"]
    per_trial = [t.events + sum(vl_of[c].events for c in t.children if c in vl_of) for t in completed]
    events = {
        "CampaignTrial": summary([t.events for t in completed]),
        "VLGrading": summary([v.events for v in vl if v.close == "completed"]),
        "trial (CampaignTrial + its VLGrading)": summary(per_trial),
        "EvaluationCampaign (whole campaign)": {"events": parent.events,
                                                "per_trial": round(parent.events / max(1, len(trials)), 2)},
    }
    acts: dict[str, list[float]] = {}
    runs: dict[str, list[float]] = {}
    retries = 0
    for f in [*trials, *vl]:
        for queue, kind, s2s, attempt, run in f.activities:
            if attempt > 1:  # a retry's Started time includes the earlier attempts and backoff
                retries += 1
                continue
            acts.setdefault(queue, []).append(s2s)
            if run is not None:
                runs.setdefault(kind, []).append(run)
    wfts: dict[str, list[float]] = {}
    for f in [*trials, *vl]:
        for queue, s2s in f.workflow_tasks:
            wfts.setdefault(f"{queue} (workflow tasks)", []).append(s2s)
    wfts["EvaluationCampaign (workflow tasks)"] = [s for _, s in parent.workflow_tasks]
    queued_left = [f for f in trials if any(k == "run_trial" for _, k, _ in f.queued_activities)]

    closes = sorted(t.closed for t in completed)
    start = parent.started or state["submitted_at"]
    throughput = None
    if closes:
        span = closes[-1] - start
        throughput = {"completed": len(completed), "span_s": round(span, 1),
                      "per_min": round(60 * len(completed) / span, 2) if span > 0 else None}
        if len(closes) >= 10:
            lo, hi = closes[len(closes) // 10], closes[(len(closes) * 9) // 10]
            n = (len(closes) * 9) // 10 - len(closes) // 10
            throughput["per_min_steady_p10_p90"] = round(60 * n / (hi - lo), 2) if hi > lo else None
    rss = {}
    for name in sampler.procs:
        own, kids = sampler.own[name], sampler.children[name]
        rss[name] = {"peak_mb": round(own.peak_kb / 1024, 1),
                     "hwm_mb": None if sampler.hwm_kb.get(name) is None else round(sampler.hwm_kb[name] / 1024, 1),
                     "at_queue_full_mb": round(own.at_mark["queue_full"] / 1024, 1) if "queue_full" in own.at_mark else None,
                     "children_peak_mb": round(kids.peak_kb / 1024, 1),
                     "children_peak_count": kids.peak_count,
                     "largest_child_mb": round(kids.peak_single_kb / 1024, 1),
                     "samples": own.samples,
                     "series_mb": [(t, round(kb / 1024, 1)) for t, kb in own.series]}
    return {
        "bench": "load",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "bench/load.py " + " ".join(sys.argv[1:]),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "loadavg_1min_during_run": {"mean": round(statistics.mean(sampler.loadavg), 2),
                                                "max": round(max(sampler.loadavg), 2)} if sampler.loadavg else None},
        "backend": args.backend, "policy": args.policy, "publication": seed,
        "trials": args.trials, "gpu_slots": args.gpu_slots, "gpu_cap": state["gpu_cap"],
        "queued": args.queued, "measure_queue_only": args.measure_queue_only,
        "campaign_id": state["campaign_id"], "campaign_result": state["result"],
        "terminated": state["terminated"], "queue_full": state["queue_full"],
        "gpu_backlog_peak": state["backlog_peak"],
        "trial_workflows": {"started": len(trials), "completed": len(completed),
                            "closes": {str(c): sum(1 for t in trials if t.close == c)
                                       for c in sorted({t.close for t in trials}, key=str)},
                            "run_trial_scheduled_not_started": len(queued_left)},
        "history_events": events,
        "schedule_to_start_s": {"activities": {q: summary(v) for q, v in sorted(acts.items())},
                                "workflow_tasks": {q: summary(v) for q, v in sorted(wfts.items())},
                                "retried_activities_left_out": retries},
        "retries": [{"workflow_id": f.workflow_id, "activity": k, "attempt": n, "last_failure": msg}
                    for f in [*trials, *vl] for k, n, msg in f.retries],
        "activity_run_s": {k: summary(v) for k, v in sorted(runs.items())},
        "trial_wall_s": summary([t.closed - t.started for t in completed]),
        "throughput": throughput,
        "campaign_wall_s": round(parent.closed - parent.started, 1) if parent.closed and parent.started else None,
        "bench_wall_s": round(bench_wall, 1),
        "rss": rss,
        "targets": {"history_events_per_trial_workflow": TARGET_EVENTS, "rss_mb_per_worker": TARGET_RSS_MB},
    }


def _f(v, nd=2) -> str:
    return "-" if v is None else f"{v:.{nd}f}" if isinstance(v, float) else str(v)


def print_tables(r: dict) -> None:
    mode = (f"{r['queued']} queued at once" + (", terminated after measuring" if r["terminated"] else "")
            if r["queued"] else f"gpu cap {r['gpu_cap']}")
    out.print(f"[bold]load[/]: {r['trials']} {r['policy']} trials on {r['publication']['task_id']} "
              f"({r['publication']['publication']}), backend {r['backend']}, gpu slots {r['gpu_slots']}, "
              f"{mode}; {r['machine']['cpus']} cpus, 1-min load average during the run "
              f"{(r['machine']['loadavg_1min_during_run'] or {}).get('mean')} (max "
              f"{(r['machine']['loadavg_1min_during_run'] or {}).get('max')})")
    tw = r["trial_workflows"]
    out.print(f"trial workflows: {tw['started']} started, {tw['completed']} completed {tw['closes']}; "
              f"run_trial scheduled without a Started event at the end: {tw['run_trial_scheduled_not_started']}")

    t = Table(title="history events per workflow (completed trials)")
    for c in ("workflow", "n", "mean", "max"):
        t.add_column(c, justify="left" if c == "workflow" else "right")
    for name, s in r["history_events"].items():
        if "per_trial" in s:
            t.add_row(name, "1", f"{s['events']} ({s['per_trial']}/trial)", "")
        else:
            t.add_row(name, str(s["n"]), _f(s["mean"], 1), _f(s["max"], 0))
    out.print(t)

    t = Table(title="schedule-to-start, seconds (first attempts)")
    for c in ("task queue", "n", "p50", "p95", "max"):
        t.add_column(c, justify="left" if c == "task queue" else "right")
    s2s = r["schedule_to_start_s"]
    for q, s in [*s2s["activities"].items(), *s2s["workflow_tasks"].items()]:
        t.add_row(q, str(s["n"]), _f(s["p50"], 3), _f(s["p95"], 3), _f(s["max"], 3))
    out.print(t)

    t = Table(title="activity run time (start to close), seconds")
    for c in ("activity", "n", "p50", "p95", "max"):
        t.add_column(c, justify="left" if c == "activity" else "right")
    for k, s in r["activity_run_s"].items():
        t.add_row(k, str(s["n"]), _f(s["p50"]), _f(s["p95"]), _f(s["max"]))
    out.print(t)

    t = Table(title="RSS, MiB: each process itself (peak sampled, VmHWM, at the fullest queue); "
                    "its descendants (Blender, sandboxes) apart")
    for c in ("process", "peak", "VmHWM", "queue full", "desc. peak (sum)", "desc. most", "desc. largest"):
        t.add_column(c, justify="left" if c == "process" else "right")
    for name, s in r["rss"].items():
        t.add_row(name, _f(s["peak_mb"], 0), _f(s["hwm_mb"], 0), _f(s["at_queue_full_mb"], 0),
                  _f(s["children_peak_mb"], 0), str(s["children_peak_count"]), _f(s["largest_child_mb"], 0))
    out.print(t)

    tp = r["throughput"] or {}
    out.print(f"throughput: {tp.get('completed', 0)} trials in {_f(tp.get('span_s'), 1)} s from the campaign's "
              f"start = [bold]{_f(tp.get('per_min'))} trials/min[/] (steady, p10-p90 of closes: "
              f"{_f(tp.get('per_min_steady_p10_p90'))}/min); trial wall p50 {_f(r['trial_wall_s']['p50'], 1)} s, "
              f"p95 {_f(r['trial_wall_s']['p95'], 1)} s; campaign wall {_f(r['campaign_wall_s'], 1)} s; "
              f"bench wall {r['bench_wall_s']} s; gpu backlog peak {r['gpu_backlog_peak']}")
    for x in r["retries"]:
        out.print(f"retried: {x['activity']} of {x['workflow_id']} (attempt {x['attempt']}): {x['last_failure']}")
    if r["queue_full"]:
        out.print(f"queue full after {r['queue_full']['after_s']} s: {r['queue_full']}")
    ev = r["history_events"]["trial (CampaignTrial + its VLGrading)"]
    worst = max((s["peak_mb"] for n, s in r["rss"].items() if n != "temporal"), default=0)
    verdict = "no completed trial" if ev["max"] is None else "ok" if ev["max"] < TARGET_EVENTS else "MISSED"
    out.print(f"targets: events per trial workflow < {TARGET_EVENTS}: max {_f(ev['max'], 0)} ({verdict}); "
              f"worker RSS < {TARGET_RSS_MB} MiB: peak {worst:.0f} MiB "
              f"({'ok' if worst < TARGET_RSS_MB else 'MISSED'})")
    if r["campaign_result"]:
        out.print(f"campaign result: {r['campaign_result']}")
        if r["campaign_result"]["exceptions"] or r["campaign_result"]["failed"]:
            out.print(f"[red]warning:[/] {r['campaign_result']['exceptions']} infra exception(s), "
                      f"{r['campaign_result']['failed']} trial(s) without a record: these figures are not "
                      "of working trials (the worker logs say why; --keep keeps them)")


async def main_async(args) -> int:
    began = time.monotonic()
    main_task = asyncio.current_task()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main_task.cancel)
    settings = settings_from_env()
    objects, store = settings.objects(), settings.content_store()
    folder = args.publication.strip("/") if args.publication else find_publication(objects, args.task)
    work = args.work or Path(tempfile.mkdtemp(prefix="arkevo-load-"))
    work.mkdir(parents=True, exist_ok=True)
    deployment = Deployment(work, args.address, args.namespace, args.backend, {"gpu": args.gpu_slots})
    sampler = None
    try:
        seed = seed_var(objects, store, folder, deployment.var)
        doc, attempts = load_registry(args.policy, args.trials)
        registry = work / "registry.json"
        registry.write_text(json.dumps(doc, indent=2) + "\n")
        console.print(f"work folder {work}; publication {folder} ({seed['blobs']} blobs); "
                      f"{len(attempts)} config(s) x ~{max(attempts.values())} attempts")
        with console.status("starting the dev server and the worker pools"):
            client = await deployment.start()
        procs = {pool: w.pid for pool, w in deployment.workers.items()}
        if deployment.server:
            procs["temporal"] = deployment.server.pid
        sampler = RssSampler(procs, args.sample_interval).start()
        console.print(f"server {deployment.address}; workers " +
                      ", ".join(f"{p} pid {pid}" for p, pid in procs.items()))
        state = await run_campaign(args, client, deployment, sampler, folder, registry)
        sampler.stop()
        result = figures(args, state, sampler, seed, time.monotonic() - began)
    finally:
        if sampler is not None:
            sampler.stop()
        with console.status("stopping workers and server"):
            deployment.stop()
        if not args.keep and args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    print_tables(result)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
        console.print(f"figures: {args.json}")
    return 0


def main(argv=None) -> int:
    return run_main(main_async, parse_args(argv), console)


if __name__ == "__main__":
    from workers.client import exit_process

    exit_process(main())  # the status, whatever the SDK runtime does at exit
