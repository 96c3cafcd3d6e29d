"""Where a trial's time goes: N trials of one frozen task under each policy through the real
campaign path, split into phases by wall and CPU, next to the Blender work alone (the floor).

    .venv/bin/python bench/trial_breakdown.py [-n 3] [--task table-model] [--policies oracle,nop]
        [--concurrency 1] [--json out.json]

What runs is what `arkevo campaign start --publication … --wait` runs: one `EvaluationCampaign`
(its own dev server and the four worker pools as `python -m workers <pool>`, as bench/load.py
starts them, on a copy of the newest publication of --task that `make demo` made). Both policies
are the scripted MCP agent (oracle applies the reference solution through MCP, nop saves the
start scene); the model agent needs an endpoint this machine does not have.

Phases of each trial, from the records the run leaves:

* Temporal: the CampaignTrial and VLGrading histories — each activity's start-to-close, the
  activity tasks' schedule-to-start ("Temporal scheduling") and the rest of the trial
  workflow's wall (workflow tasks, child start);
* Harbor's `result.json` inside run_trial: environment setup, agent setup, agent execution,
  verifier, and what is left of Harbor's trial wall (its bookkeeping: artifacts, stops);
* the sandbox's exec log (sandbox/isolation/execlog.py) inside those: the solver sandbox's
  start, the Blender MCP host's start with the scene load (host spawned -> MCP server spawned),
  the solve and save (the MCP server is spawned right after the host: the two start together),
  the verifier's commands (`test.sh` = the rule probe's fresh Blender) and
  each sandbox's cgroup CPU;
* CPU by process, over the whole run divided by the trials: each worker's own (SDK, Harbor,
  store writes) and its reaped children (sandboxes, Blender), and the dev server.

The floor: the same Blender work in one warm, plain bpy process, timed after a warm-up — open
the start scene, run the policy's script, save, probe the delivery with the rubric, render the
evidence (when the task weights VL) — with no start-up, sandbox, Harbor or Temporal around it.
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
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # noqa: E402
from rich.table import Table  # noqa: E402

from bench.load_support import (BenchError, Deployment, HistoryFacts, find_publication,  # noqa: E402
                                history_facts, iso_seconds, run_main, seconds_or_blank, seed_var,
                                write_task_dir)
from contracts import queues  # noqa: E402
from workers.settings import settings_from_env  # noqa: E402

EXIT_CODES = """\
exit codes:
  0    measured (the tables are printed, and written to --json)
  1    an unexpected error (traceback)
  2    bad usage, or nothing measured (the reason is printed): no such publication, the server
       or a worker did not start or died, a trial failed
  130  interrupted (SIGINT/SIGTERM); the workers and the server are stopped"""
POLICIES = ("oracle", "nop")
console = Console(stderr=True)
out = Console(width=None if sys.stdout.isatty() else 140)

# Runs in a plain bpy process, cwd = a copy of the task's workspace: the Blender work of one
# trial, timed (wall and process CPU) after one untimed warm-up round.
FLOOR_SCRIPT = r'''
import json, sys, time
from pathlib import Path
tests, solve, out, rounds = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, str(tests))
import bpy
import rule_probe, render_evidence
grading = tests / "grading.json"
spec = json.loads(grading.read_text())["evidence_spec"] if grading.is_file() else None
probes = tests / "task_probes.py"
source = Path(solve).read_text() if solve else None
rows = []
for r in range(rounds + 1):
    row, mark = {}, [time.perf_counter(), time.process_time()]
    def lap(name):
        w, c = time.perf_counter(), time.process_time()
        row[name] = [w - mark[0], c - mark[1]]
        mark[:] = [w, c]
    bpy.ops.wm.open_mainfile(filepath="inputs/start.blend", load_ui=False, use_scripts=False)
    lap("scene load")
    if source is not None:
        exec(compile(source, solve, "exec"), {"__name__": "__main__", "__file__": solve})
    lap("solve")
    bpy.ops.wm.save_as_mainfile(filepath=str(out / "result.blend"), compress=False)
    lap("save")
    rule_probe.probe_files(tests / "task.json", tests / "rubric.json", out / "result.blend",
                           out / "report.json", probes if probes.is_file() else None)
    lap("rule probe")
    if spec is not None:
        render_evidence.render_job(out / "result.blend", spec, out / f"evidence-{r}")
        lap("evidence renders")
    if r:
        rows.append(row)
print("ARKEVO_FLOOR " + json.dumps(rows))
'''


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="bench/trial_breakdown.py", description=__doc__.split("\n\n")[0],
                                 epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--trials", type=int, default=3, help="trials per policy (default %(default)s)")
    ap.add_argument("--task", default="table-model", help="task id of the publication (default %(default)s)")
    ap.add_argument("--publication", default=None, help="a publication folder key instead of the newest of --task")
    ap.add_argument("--policies", default=",".join(POLICIES),
                    help="comma-separated, of oracle and nop (default %(default)s)")
    ap.add_argument("--concurrency", type=int, default=1,
                    help="gpu slots and the campaign's gpu cap: 1 measures a trial alone (default %(default)s)")
    ap.add_argument("--gpu-cap", type=int, default=None,
                    help="the campaign's gpu cap, when it should differ from the slots (default: --concurrency)")
    ap.add_argument("--floor-rounds", type=int, default=3, help="timed rounds of the floor (default %(default)s)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    args = ap.parse_args(argv)
    policies = [p for p in args.policies.split(",") if p]
    if not policies or set(policies) - set(POLICIES):
        ap.error(f"--policies {args.policies}: give some of {', '.join(POLICIES)}")
    if not 1 <= args.trials <= 64:
        ap.error(f"--trials {args.trials}: give 1..64 (the registry's attempts per config)")
    if not 1 <= args.concurrency <= 8 or not 1 <= args.floor_rounds <= 20:
        ap.error("--concurrency: 1..8; --floor-rounds: 1..20")
    args.gpu_cap = args.concurrency if args.gpu_cap is None else args.gpu_cap
    if not 1 <= args.gpu_cap <= 64:
        ap.error(f"--gpu-cap {args.gpu_cap}: give 1..64")
    args.policy_list = policies
    return args


# -- the run ---------------------------------------------------------------------------------------


def registry(policies: list[str], n: int) -> dict:
    return {"registry_version": "bench-trial-breakdown",
            "configs": [{"id": p, "description": f"bench/trial_breakdown.py: the scripted {p} policy",
                         "agent": p, "attempts": n, "validated": True} for p in policies],
            "modes": {"breakdown": {"description": f"{n} attempts of each policy",
                                    "attempts": {p: n for p in policies}}}}


def process_cpu(pid: int) -> tuple[float, float]:
    """(own, reaped children's) CPU seconds of a live process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick


async def run_campaign(args, client, folder: str, registry_path: Path) -> tuple[str, dict]:
    from contracts.payloads.campaigns import CampaignInput, CampaignResult

    campaign_id = "breakdown-" + datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    req = CampaignInput(campaign_id, mode="breakdown", publications=[folder], registry=str(registry_path),
                        bootstrap_samples=200, caps={"gpu": args.gpu_cap, "llm": 2})
    wid = f"campaign-{campaign_id}"
    total = args.trials * len(args.policy_list)
    handle = await client.start_workflow("EvaluationCampaign", req, id=wid, task_queue=queues.CONTROL,
                                         result_type=CampaignResult)
    result_task = asyncio.ensure_future(handle.result())
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console) as bar:
        tid = bar.add_task("trials recorded", total=total)
        while not result_task.done():
            try:
                counts = (await handle.query("progress"))["counts"]
                bar.update(tid, completed=counts.get("recorded", 0) + counts.get("failed", 0))
            except Exception:  # noqa: BLE001 -- before the first workflow task
                pass
            await asyncio.wait([result_task], timeout=1.0)
    result = result_task.result()
    if result.failed or result.exceptions:
        raise BenchError(f"campaign {campaign_id}: {len(result.failed)} trial(s) failed, "
                         f"{len(result.exceptions)} infra exception(s): not a clean measurement")
    parent = history_facts(wid, (await handle.fetch_history()).events)
    trials = [history_facts(w, (await client.get_workflow_handle(w).fetch_history()).events)
              for w in parent.children]
    vl = {w: history_facts(w, (await client.get_workflow_handle(w).fetch_history()).events)
          for t in trials for w in t.children}
    return campaign_id, {"parent": parent, "trials": trials, "vl": vl}


# -- reading what the run left ---------------------------------------------------------------------


def harbor_phases(trial_dir: Path) -> dict[str, list[float | None]]:
    """{phase: [wall s, CPU s or None]} of one Harbor trial, from result.json and the exec log."""
    result = json.loads((trial_dir / "result.json").read_text())
    phases: dict[str, list[float | None]] = {}
    spans = {}
    for name in ("environment_setup", "agent_setup", "agent_execution", "verifier"):
        timing = result.get(name) or {}
        if timing.get("started_at") and timing.get("finished_at"):
            spans[name] = (iso_seconds(timing["started_at"]), iso_seconds(timing["finished_at"]))
    wall = iso_seconds(result["finished_at"]) - iso_seconds(result["started_at"])
    sessions = {}
    for log in (trial_dir / "sandbox").glob("*.jsonl"):
        events = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
        start = next((e for e in events if e["event"] == "start"), None)
        if start is not None:
            sessions[start.get("role")] = events
    solver, verifier = sessions.get("solver", []), sessions.get("verifier", [])
    spawns = [(iso_seconds(e["ts"]), e["argv"]) for e in solver if e["event"] == "spawn"]
    host = next((t for t, argv in spawns if "blender_mcp_host" in str(argv)), None)
    server = next((t for t, argv in spawns if "blender_mcp.server" in str(argv)), None)
    cpu = {role: sum(int(e.get("cpu_usage_ns") or 0) for e in evs if e["event"] == "stop") / 1e9
           for role, evs in sessions.items()}
    if "environment_setup" in spans:
        phases["solver sandbox start"] = [spans["environment_setup"][1] - spans["environment_setup"][0], None]
    if "agent_execution" in spans:
        a0, a1 = spans["agent_execution"]
        # the scripted agent's own laps (sandbox/agents/scripted.py): session start, script, save, stop
        laps = ((result.get("agent_result") or {}).get("metadata") or {}).get("seconds") or {}
        for step, label in (("session start", "agent: MCP session start"), ("script", "agent: script (solve)"),
                            ("save", "agent: save"), ("session stop", "agent: MCP session stop")):
            if step in laps:
                phases[label] = [float(laps[step]), None]
        if host is not None and server is not None:  # inside the session start, from the exec log
            # The server starts alongside the host in the sandbox (its port is known ahead), so
            # the second span holds the host's start, the scene load and the MCP initialize.
            phases["  of which host spawned -> MCP server spawned"] = [server - host, None]
            if "session start" in laps:
                phases["  of which server spawned -> session ready"] = [a0 + float(laps["session start"]) - server, None]
        counted_agent = sum(float(v) for v in laps.values())
        phases["agent: rest"] = [(a1 - a0) - counted_agent, None]
    probe = [float(e["wall_sec"]) for e in verifier if e["event"] == "exec" and "test.sh)" in str(e.get("command"))]
    if "verifier" in spans:
        v = spans["verifier"][1] - spans["verifier"][0]
        phases["rule probe (verifier test.sh)"] = [sum(probe), cpu.get("verifier")]
        phases["verifier sandbox + commands"] = [v - sum(probe), None]
    phases["solver sandbox CPU"] = [None, cpu.get("solver")]
    counted = sum(w for name, (w, _) in phases.items() if w is not None and not name.startswith("  "))
    phases["Harbor bookkeeping (rest)"] = [wall - counted, None]
    phases["Harbor trial (whole)"] = [wall, None]
    return phases


def trial_phases(trial: HistoryFacts, vl: dict[str, HistoryFacts], campaign_dir: Path,
                 campaign_id: str) -> tuple[str, dict[str, list[float | None]]]:
    policy = trial.workflow_id.rsplit(".", 2)[-2]
    phases: dict[str, list[float | None]] = {}
    activities = list(trial.activities) + [a for c in trial.children if c in vl for a in vl[c].activities]
    scheduling = 0.0
    for _queue, kind, s2s, _attempt, run in activities:
        scheduling += s2s
        phases.setdefault(f"activity {kind}", [0.0, None])[0] += run or 0.0  # type: ignore[operator]
    phases["Temporal scheduling (schedule-to-start)"] = [scheduling, None]
    wall = (trial.closed or 0) - (trial.started or 0)
    busy = sum(w for w, _ in phases.values() if w is not None)
    phases["Temporal workflow tasks, child start (rest)"] = [wall - busy, None]
    phases["trial workflow (whole)"] = [wall, None]
    run_id = trial.workflow_id.removeprefix(f"campaign-{campaign_id}.")
    harbor_dir = campaign_dir / "harbor" / campaign_id / run_id
    if (harbor_dir / "result.json").is_file():
        phases.update({f"  {k}": v for k, v in harbor_phases(harbor_dir).items()})
    return policy, phases


def floor(task_dir: Path, policy: str, rounds: int, work: Path) -> dict[str, list[float]]:
    """{step: [median wall s, median CPU s]} of the Blender work alone (FLOOR_SCRIPT)."""
    ws = work / f"floor-{policy}"
    shutil.copytree(task_dir / "environment" / "workspace", ws)
    (ws / "outputs").mkdir(exist_ok=True)
    solve = str(task_dir / "solution" / "solve.py") if policy == "oracle" else ""
    done = subprocess.run([sys.executable, "-c", FLOOR_SCRIPT, str(task_dir / "tests"), solve,
                           str(ws / "outputs"), str(rounds)], cwd=ws, capture_output=True, text=True, timeout=900)
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("ARKEVO_FLOOR ")), None)
    if done.returncode != 0 or line is None:
        raise BenchError(f"the floor's bpy process failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    rows = json.loads(line.removeprefix("ARKEVO_FLOOR "))
    return {step: [statistics.median(r[step][0] for r in rows), statistics.median(r[step][1] for r in rows)]
            for step in rows[0]}


def medians(per_trial: list[dict[str, list[float | None]]]) -> dict[str, list[float | None]]:
    names = list(dict.fromkeys(k for p in per_trial for k in p))
    out_: dict[str, list[float | None]] = {}
    for name in names:
        walls = [p[name][0] for p in per_trial if name in p and p[name][0] is not None]
        cpus = [p[name][1] for p in per_trial if name in p and p[name][1] is not None]
        out_[name] = [statistics.median(walls) if walls else None, statistics.median(cpus) if cpus else None]
    return out_


def print_tables(r: dict) -> None:
    for policy, figures in r["policies"].items():
        t = Table(title=f"{policy}: median of {figures['trials']} trial(s), seconds "
                        f"(concurrency {r['concurrency']}, gpu cap {r.get('gpu_cap', r['concurrency'])}, {r['task']})")
        for col in ("phase", "wall", "CPU"):
            t.add_column(col, justify="left" if col == "phase" else "right")
        for name, (wall, cpu) in figures["phases"].items():
            t.add_row(name, seconds_or_blank(wall), seconds_or_blank(cpu))
        t.add_section()
        for name, (wall, cpu) in figures["floor"].items():
            t.add_row(f"floor: {name}", seconds_or_blank(wall), seconds_or_blank(cpu))
        t.add_row("[bold]floor: Blender work alone", seconds_or_blank(figures["floor_wall"]), seconds_or_blank(figures["floor_cpu"]))
        t.add_row("[bold]trial wall / floor", f"{figures['wall_over_floor']:.1f}x", "")
        out.print(t)
    t = Table(title=f"CPU per trial by process, whole run / {r['trials_total']} trials")
    t.add_column("process")
    t.add_column("own", justify="right")
    t.add_column("reaped children", justify="right")
    for name, (own, children) in r["cpu_per_trial"].items():
        t.add_row(name, seconds_or_blank(own), seconds_or_blank(children))
    out.print(t)


async def main_async(args) -> int:
    settings = settings_from_env()
    objects, store = settings.objects(), settings.content_store()
    folder = args.publication.strip("/") if args.publication else find_publication(objects, args.task)
    work = Path(tempfile.mkdtemp(prefix="arkevo-breakdown-"))
    deployment = Deployment(work, None, "default", "sandbox", {"gpu": args.concurrency})
    try:
        seed = seed_var(objects, store, folder, deployment.var)
        registry_path = work / "registry.json"
        registry_path.write_text(json.dumps(registry(args.policy_list, args.trials), indent=2) + "\n")
        task_dir = write_task_dir(objects, folder, work / "task")  # as Harbor runs it, for the floor
        console.print(f"work folder {work}; publication {folder} ({seed['blobs']} blobs)")
        with console.status("the floor: the Blender work alone, in one warm bpy process"):
            floors = {p: floor(task_dir, p, args.floor_rounds, work) for p in args.policy_list}
        with console.status("starting the dev server and the worker pools"):
            client = await deployment.start()
        pids = {f"worker {pool}": w.pid for pool, w in deployment.workers.items()}
        if deployment.server is not None:
            pids["temporal dev server"] = deployment.server.pid
        before = {name: process_cpu(pid) for name, pid in pids.items()}
        started = time.monotonic()
        campaign_id, h = await run_campaign(args, client, folder, registry_path)
        wall = time.monotonic() - started
        after = {name: process_cpu(pid) for name, pid in pids.items()}
    finally:
        with console.status("stopping workers and server"):
            deployment.stop()
    try:
        total = args.trials * len(args.policy_list)
        by_policy: dict[str, list[dict]] = {}
        campaign_dir = deployment.var / "campaigns" / campaign_id
        for trial in h["trials"]:
            policy, phases = trial_phases(trial, h["vl"], campaign_dir, campaign_id)
            by_policy.setdefault(policy, []).append(phases)
        result: dict = {"task": folder, "concurrency": args.concurrency, "gpu_cap": args.gpu_cap,
                        "trials_total": total,
                        "campaign_wall_sec": round(wall, 2), "policies": {},
                        "cpu_per_trial": {name: [(after[name][0] - before[name][0]) / total,
                                                 (after[name][1] - before[name][1]) / total] for name in pids},
                        "command": "bench/trial_breakdown.py " + " ".join(sys.argv[1:])}
        for policy, rows in by_policy.items():
            phases = medians(rows)
            fl = floors[policy]
            floor_wall, floor_cpu = sum(w for w, _ in fl.values()), sum(c for _, c in fl.values())
            result["policies"][policy] = {
                "trials": len(rows), "phases": phases, "floor": fl, "floor_wall": floor_wall,
                "floor_cpu": floor_cpu,
                "wall_over_floor": (phases["trial workflow (whole)"][0] or 0) / floor_wall}
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print_tables(result)
    console.print(f"campaign of {total} trial(s) in {wall:.1f}s" + ("" if not args.keep else f"; kept {work}"))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


def main(argv=None) -> int:
    return run_main(main_async, parse_args(argv), console)


if __name__ == "__main__":
    from workers.client import exit_process

    exit_process(main())
