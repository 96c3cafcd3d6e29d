"""`arkevo verifier drift`: which stored verdicts of a dataset revision the verifier in force would
change (docs/verifier-drift.md).

    arkevo verifier drift --dataset demo/r1 [--tolerance 0.01] [--probe-code DIR] [--deliveries-only] [--json]

Starts `VerifierDrift` on the running stack, follows it, prints a table per task and where the
report lies. Exit 0: zero drift; 1: drift (a verdict flips, a reward moves beyond the tolerance,
criteria added or removed, the mutation score or the calibration verdict changed); 2: bad
input, nothing written; 3: the check did not finish.
"""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from cli.common import (EXIT_BAD_INPUT, EXIT_NO, EXIT_OK, console, err, follow, parse_dataset, start_workflow,
                        worker_objects)
from cli.help import add_command, exit_codes

EXIT_UNFINISHED = 3


def register(top) -> None:
    ve = top.add_parser("verifier", help="what a verifier change does to stored verdicts",
                        description="The verifier drift check: a dataset revision's stored calibration "
                                    "samples, stage-06 trials and campaign trials graded again with the "
                                    "verifier in force (docs/verifier-drift.md).")
    sub = ve.add_subparsers(dest="command", required=True)
    p = add_command(sub, "drift", exit_codes(
        "zero drift: no verdict, reward, criterion list, mutation score or calibration verdict changed",
        "drift: the table and the report name the tasks and the samples or trials that changed",
        "a malformed --dataset, an unknown revision, a tolerance below 0, a --probe-code folder "
        "that is not a folder of probe files, no Temporal server; nothing is written",
        more={EXIT_UNFINISHED: "the check did not finish (an infrastructure fault outlived its retries, "
                               "a probe failed): no report"}),
                    help="re-score a revision's stored verdicts with the verifier in force",
                    description="Starts VerifierDrift on the Temporal server and follows it: every "
                                "publication of the revision (the latest per task; a frozen "
                                "revision's splits) has its calibration samples, stage-06 trials "
                                "and campaign trials graded again from their stored deliveries, and "
                                "its gaming operators run again (not with --deliveries-only). The report is written once under "
                                "datasets/<ns>/<rev>/drift/; the frozen records are never touched.")
    p.add_argument("--dataset", required=True, help="the dataset revision as NAMESPACE/REVISION")
    p.add_argument("--tolerance", type=float, default=0.01,
                   help="a reward moving by more than this is drift (default 0.01)")
    p.add_argument("--probe-code", type=Path,
                   help="a candidate's probe code: a folder whose files (rule_probe.py, probes_*.py, "
                        "mutations.py, …) replace the workers' own; it must be readable by the workers")
    p.add_argument("--deliveries-only", action="store_true",
                   help="grade the stored deliveries only: do not attack each reference again (mutation "
                        "testing) nor probe the gaming samples again -- a quicker check that the grading "
                        "of what was delivered is unchanged; the mutation score is reported as not re-run")
    p.add_argument("--workflow-id", help="default: verifier-drift-<namespace>-<revision>")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--address", help="Temporal frontend (default ARKEVO_TEMPORAL_ADDRESS)")


def handlers() -> dict:
    return {"drift": cmd_drift}


def _bad(message: str) -> int:
    err.print(f"[red]error:[/] {escape(message)}")
    return EXIT_BAD_INPUT


def cmd_drift(args) -> int:
    from contracts.payloads.common import DatasetRef
    from contracts.payloads.verifier_drift import VerifierDriftInput
    from dataset_revisions.layout import RevisionKeys
    from verifiers.drift import candidate_problems

    if (parsed := parse_dataset(args.dataset)) is None:
        return _bad(f"--dataset {args.dataset!r}: give NAMESPACE/REVISION")
    if not math.isfinite(args.tolerance) or args.tolerance < 0:
        return _bad(f"--tolerance {args.tolerance}: a reward difference, a number >= 0")
    keys = RevisionKeys(*parsed)
    objects = worker_objects()
    if not objects.exists(keys.spec):
        return _bad(f"dataset {args.dataset} not found (no {objects.location(keys.spec)})")
    probe_code = None
    if args.probe_code is not None:
        if problems := candidate_problems(args.probe_code):
            return _bad("--probe-code: " + "; ".join(problems))
        probe_code = str(args.probe_code.resolve())
    req = VerifierDriftInput(DatasetRef(*parsed), args.tolerance, probe_code, attacks=not args.deliveries_only)
    wid = args.workflow_id or f"verifier-drift-{parsed[0]}-{parsed[1]}"
    return asyncio.run(_run(req, wid, args))


async def _run(req, wid: str, args) -> int:
    from temporalio.client import WorkflowFailureError
    from temporalio.common import WorkflowIDReusePolicy

    from contracts.errors import INVALID_DRIFT_REQUEST
    from contracts.payloads.verifier_drift import VerifierDriftResult
    from workflows.failures import root_cause

    handle = await start_workflow(args.address, "VerifierDrift", req, wid, VerifierDriftResult,
                                  id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE)
    if handle is None:
        return EXIT_BAD_INPUT
    try:
        result = await follow(handle, "tasks re-scored", drift_progress)
    except WorkflowFailureError as e:
        cause = root_cause(e)
        err.print(f"[red]{wid} failed:[/] {escape(str(cause))}")
        return EXIT_BAD_INPUT if getattr(cause, "type", "") == INVALID_DRIFT_REQUEST else EXIT_UNFINISHED
    return print_report(result.report_key, args.json)


def drift_progress(p: dict) -> tuple[int | None, int, str]:
    return p["total"], p["done"], f"drift: {', '.join(p['drift'])}" if p["drift"] else ""


def _score(value) -> str:
    return "–" if value is None else f"{value:.3f}"


def _verdict(success) -> str:
    return "–" if success is None else "pass" if success else "fail"


def print_report(key: str, as_json: bool = False) -> int:
    """The stored report: a table per task, each drifting record, the summary; the exit code."""
    from contracts.payloads.verifier_drift import VerifierDriftReport

    objects = worker_objects()
    data = objects.get(key)
    report = VerifierDriftReport.model_validate(json.loads(data))
    s = report.summary
    if as_json:
        print(data.decode(), end="")
        return EXIT_OK if s.zero_drift else EXIT_NO
    code = report.verifier_code
    table = Table(title=f"verifier drift {report.namespace}/{report.revision}: code {code.id}"
                        + (f" (candidate {code.candidate}: {', '.join(code.replaced)})" if code.candidate else "")
                        + f", tolerance {report.tolerance:g}")
    for col in ("task", "verifier frozen → now", "re-scored", "not", "flips", "reward Δ", "criteria ±",
                "mutation score", "calibration", "drift"):
        table.add_column(col)
    for t in report.tasks:
        m, c = t.mutation, t.calibration
        table.add_row(
            t.task_id, f"{t.frozen_verifier_version}\n→ {t.current_verifier_version}",
            str(sum(r.rescored for r in t.records)), str(sum(not r.rescored for r in t.records)),
            str(sum(r.verdict_flip for r in t.records)), str(sum(r.reward_changed for r in t.records)),
            str(sum(bool(r.criteria_added or r.criteria_removed) for r in t.records)),
            f"{_score(m.stored_score)} → {_score(m.new_score)}" if m.rescored else "not re-run",
            f"{_verdict(c.passed_before)} → {_verdict(c.passed_now)}",
            "[red]yes[/]" if t.drift else "no")
    console.print(table)
    for t in report.tasks:
        for r in t.records:
            if r.drift:
                where = f"{t.task_id} {r.source} {r.id}" + (f" ({r.campaign_id})" if r.campaign_id else "")
                what = []
                if r.verdict_flip:
                    what.append(f"{_verdict(r.stored_success)} → {_verdict(r.new_success)}")
                if r.reward_changed:
                    what.append(f"reward {_score(r.stored_reward)} → {_score(r.new_reward)}")
                if r.criteria_added or r.criteria_removed:
                    what.append(f"criteria +{','.join(r.criteria_added) or '-'} -{','.join(r.criteria_removed) or '-'}")
                console.print(f"  drift {where}: {'; '.join(what)}", markup=False, highlight=False)
        if t.mutation.changed:
            console.print(f"  drift {t.task_id} mutation: newly surviving {t.mutation.newly_surviving}, "
                          f"newly killed {t.mutation.newly_killed}, gaming newly accepted "
                          f"{t.mutation.gaming_newly_accepted}", markup=False, highlight=False)
    console.print(f"{s.tasks_checked} task(s), {s.samples_rescored} calibration sample(s) and {s.trials_rescored} "
                  f"trial(s) re-scored, {s.not_rescored} not re-scored"
                  + ("" if report.attacks else ", attacks not run again (--deliveries-only)") + "; "
                  + ("[green]zero drift[/]" if s.zero_drift else
                     f"[red]drift in {len(s.tasks_with_drift)} task(s)[/]: {', '.join(s.tasks_with_drift)} "
                     f"({s.verdict_flips} verdict flip(s), {s.reward_changes} reward change(s))"))
    console.print(f"report: {objects.location(key)}")
    return EXIT_OK if s.zero_drift else EXIT_NO
