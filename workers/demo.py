"""`make demo`: bring the stack up, run the bundled seeds through 02–07, print where things went.

Results come from scripted solver policies (oracle, nop), labelled as such — not model results.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.live import Live
from rich.table import Table
from temporalio.client import Client, WorkflowFailureError

from contracts.payloads import ProductionResult, TaskProductionInput
from contracts import queues
from workers.stack import stack_from_env
from workflows.task_production import STAGES

DEMO_SEEDS = ["seeds/robot-carry", "seeds/table-model"]
console = Console(width=max(Console().width, 140))


def _progress_table(progress: dict[str, dict]) -> Table:
    table = Table(title="TaskProduction runs")
    table.add_column("workflow id", no_wrap=True)
    for stage in STAGES:
        table.add_column(stage.replace("-", " ", 1), no_wrap=True)
    marks = {"pending": "·", "running": "[yellow]running[/]", "completed": "[green]done[/]",
             "failed": "[red]FAILED[/]"}
    for wid, p in progress.items():
        stages = p.get("stages", {})
        table.add_row(wid, *(marks.get(stages.get(s, "pending"), "?") for s in STAGES))
    return table


async def main() -> int:
    stack = stack_from_env()
    stack.up()
    console.print(f"Temporal Web UI: [bold]{stack.ui_url}[/]  (namespace default)")
    client = await Client.connect(stack.address)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    handles = {}
    for seed in DEMO_SEEDS:
        wid = f"demo-{seed.rsplit('/', 1)[-1]}-{stamp}"
        handles[wid] = await client.start_workflow(
            "TaskProduction", TaskProductionInput(seed=seed), id=wid,
            task_queue=queues.CONTROL, result_type=ProductionResult)
        console.print(f"started {wid}: {stack.ui_url}/namespaces/default/workflows/{wid}")

    results: dict[str, ProductionResult | BaseException] = {}
    tasks = {wid: asyncio.create_task(h.result()) for wid, h in handles.items()}
    progress: dict[str, dict] = {wid: {} for wid in handles}
    with Live(_progress_table(progress), console=console, refresh_per_second=2) as live:
        while len(results) < len(tasks):
            await asyncio.sleep(2)
            for wid, h in handles.items():
                if wid not in results:
                    try:
                        progress[wid] = await h.query("progress")
                    except Exception:  # the run may finish between checks
                        pass
                if tasks[wid].done() and wid not in results:
                    try:
                        results[wid] = tasks[wid].result()
                        progress[wid] = await h.query("progress")
                    except WorkflowFailureError as e:
                        results[wid] = e
            live.update(_progress_table(progress))
    console.print()

    failed = {w: r for w, r in results.items() if isinstance(r, BaseException)}
    for wid, err in failed.items():
        console.print(f"[red]{wid} failed:[/] {err.cause or err}")

    done = [results[w] for w in handles if not isinstance(results[w], BaseException)]
    for r in done:
        console.print(_calibration_table(r))
    table = Table(title="Evaluation (scripted policies — not model results)")
    for col in ("task", "version", "profile", "policy", "k", "avg@k", "pass@k", "reward Δ vs input",
                "failures infra/solver/author"):
        table.add_column(col)
    for r in done:
        profile = _calibration(r)["scoring_profile"]["profile_id"]
        for m in r.metrics:
            f = m.failures
            table.add_row(r.task_id, r.task_version, profile, m.config, str(m.k), _fmt(m.avg_at_k),
                          _fmt(m.pass_at_k), _fmt(m.reward_delta, signed=True),
                          f"{f.get('infra', 0)}/{f.get('solver', 0)}/{f.get('author', 0)}")
    console.print(table)
    for r in done:
        console.print(f"publication [bold]{r.publication.publication_id}[/]: "
                      f"{r.publication.path} ({r.publication.file_count} files)")
    console.print(f"Web UI: {stack.ui_url} — the stack keeps running; `make down` stops it.")
    return 1 if failed else 0


def _calibration(r: ProductionResult) -> dict:
    return json.loads((Path(r.publication.path) / "review" / "calibration-report.json").read_text())


def _calibration_table(r: ProductionResult) -> Table:
    """Stage 05's verdict as published: every sample with its rule and VL parts."""
    c = _calibration(r)
    judge = c.get("judge") or "none"
    table = Table(title=f"{r.task_id}: calibration under {c['scoring_profile']['profile_id']} "
                        f"(VL judge: {judge}; margin {_fmt(c['margin'])} >= {c['required_margin']})")
    for col in ("sample", "rule", "VL", "total", "success", "margin", "met"):
        table.add_column(col)
    for s in c["samples"]:
        table.add_row(s["sample"], _fmt(s["rule_score"]), _fmt(s["vl_score"]), _fmt(s["reward"]),
                      str(s["success"]), _fmt(s["margin"]), "yes" if s["met"] else "[red]NO[/]")
    return table


def _fmt(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "—"
    x = round(x, 3) + 0.0  # no "-0.000"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
