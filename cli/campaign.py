"""`arkevo campaign`: evaluation campaigns from the command line (docs/campaigns.md).

    arkevo campaign start --dataset demo/<rev> --split test --mode pilot --wait
    arkevo campaign start --dataset demo/<rev> --mode pilot --wait   # its candidates, before a freeze
    arkevo campaign status demo-test
    arkevo campaign report demo-test [--json]
    arkevo campaign recover demo-test --trial-id <id> [--trial-id <id> …] --reason "…" --by you --wait
    arkevo campaign resume demo-test      (after a circuit breaker pause)
"""

from __future__ import annotations

import asyncio
import json

from cli.common import (EXIT_BAD_INPUT, EXIT_NO, EXIT_OK, console, err, parse_dataset,
                        start_workflow, temporal_client, worker_objects)
from cli.common import follow as follow_progress
from cli.help import add_command, exit_codes



def register(top) -> None:
    ca = top.add_parser("campaign", help="evaluate solver configurations over frozen tasks",
                        description="Evaluation campaigns: solver configs (contracts/solver_configs.json) "
                                    "over a frozen dataset split or frozen publications, with "
                                    "avg@k / pass@k, bootstrap intervals, paired comparisons, cost, "
                                    "and recovery of infrastructure exceptions by trial id.")
    sub = ca.add_subparsers(dest="command", required=True)

    p = add_command(sub, "start", exit_codes(
        "started (with --wait: every planned trial recorded)",
        "with --wait: a trial without a record, or the campaign failed",
        "--dataset/--split/--publication/--id, an invalid campaign, a plan that differs from the "
        "stored one, no Temporal server"),
                    help="register the plan and run the campaign",
                    description="Starts EvaluationCampaign on the Temporal server. The plan "
                                "(evaluation-plan.json) is stored before the first trial; the "
                                "same id submitted again resumes (recorded trials are not rerun).")
    p.add_argument("--id", dest="campaign_id", help="campaign id (default: <namespace>-<revision>-<split>-<mode>; "
                                                    "without --split: <namespace>-<revision>-candidates-<mode>)")
    p.add_argument("--dataset", help="a dataset revision as NAMESPACE/REVISION")
    p.add_argument("--split", help="the frozen split to evaluate (with --dataset); without it, every "
                                   "committed candidate of the revision, frozen or not (difficulty bands)")
    p.add_argument("--publication", action="append", default=[],
                   help="a frozen publication's folder (object key or local path); repeatable")
    p.add_argument("--mode", default="pilot", help="a mode of the registry (pilot, full)")
    p.add_argument("--config", action="append", help="only these configs of the mode; repeatable")
    p.add_argument("--registry", help="registry file relative to the project root")
    p.add_argument("--seed", type=int, default=2026, help="bootstrap seed (stored in the plan)")
    p.add_argument("--bootstrap", type=int, default=2000, help="bootstrap resamples")
    p.add_argument("--gpu-cap", type=int, default=4, help="trials holding a gpu sandbox at once")
    p.add_argument("--llm-cap", type=int, default=2, help="model-agent trials at once")
    p.add_argument("--trial-attempts", type=int, default=4, help="tries of a trial against infra faults")
    p.add_argument("--breaker", default="5/10", metavar="FAILURES/WINDOW",
                   help="pause when FAILURES of the last WINDOW finished trials are infrastructure "
                        "exceptions, until `arkevo campaign resume` (0: off; default 5/10)")
    p.add_argument("--wait", action="store_true", help="follow progress and print the report")
    p.add_argument("--address", help="Temporal frontend (default ARKEVO_TEMPORAL_ADDRESS)")

    p = add_command(sub, "status", exit_codes("printed", None, "no such campaign"),
                    help="progress of a running campaign, or what is recorded",
                    description="Queries the campaign's workflow when it runs, else counts its records.")
    p.add_argument("campaign_id")
    p.add_argument("--address", help="Temporal frontend")
    p.add_argument("--json", action="store_true")

    p = add_command(sub, "report", exit_codes(
        "printed", "--rebuild refused: the records cannot make one report (figures that would pool grades)",
        "no such campaign, no report yet"),
                    help="print report.md (or report.json)",
                    description="Prints the stored report; --rebuild recomputes it from the records "
                                "(the same figures: the bootstrap seed is in the plan).")
    p.add_argument("campaign_id")
    p.add_argument("--json", action="store_true", help="print report.json")
    p.add_argument("--rebuild", action="store_true", help="recompute from the stored records first")

    p = add_command(sub, "recover", exit_codes(
        "started (with --wait: every named trial recorded again)",
        "with --wait: a trial without a record, or the recovery failed",
        "an invalid recovery (a trial id that is not a recorded infrastructure exception of the "
        "campaign, no reason or requester), no Temporal server"),
                    help="rerun named infrastructure exceptions by trial id",
                    description="Reruns exactly the named trial ids (infrastructure exceptions "
                                "only; never 'all of a kind'), keeps the replaced records in a "
                                "backup, writes an audit manifest and a report with the original "
                                "and recovered figures side by side.")
    p.add_argument("campaign_id")
    p.add_argument("--trial-id", action="append", required=True, dest="trial_ids")
    p.add_argument("--reason", required=True, help="why (recorded in the audit)")
    p.add_argument("--by", required=True, dest="requested_by", help="who asks (recorded in the audit)")
    p.add_argument("--trial-attempts", type=int, help="default: the plan's")
    p.add_argument("--wait", action="store_true")
    p.add_argument("--address", help="Temporal frontend")

    p = add_command(sub, "resume", exit_codes(
        "the resume signal sent: the paused campaign starts trials again", None,
        "the campaign is not paused (CampaignNotPaused), not running, or no Temporal server"),
                    help="resume a campaign its circuit breaker paused",
                    description="Sends the `resume` signal to a campaign paused by its circuit "
                                "breaker (too many infrastructure exceptions among the last "
                                "finished trials; `arkevo campaign status` says which). New trials "
                                "start again and the breaker's window starts fresh. The same as "
                                "`temporal workflow signal --workflow-id campaign-<id> --name resume`.")
    p.add_argument("campaign_id")
    p.add_argument("--address", help="Temporal frontend")


def handlers() -> dict:
    return {"start": cmd_start, "status": cmd_status, "report": cmd_report, "recover": cmd_recover,
            "resume": cmd_resume}


def _wid(campaign_id: str) -> str:
    return f"campaign-{campaign_id}"


def cmd_start(args) -> int:
    from contracts.payloads.campaigns import BreakerOptions, CampaignInput
    from contracts.payloads.common import DatasetRef

    if (breaker := parse_breaker(args.breaker)) is None:
        err.print(f"[red]error:[/] --breaker {args.breaker!r}: give FAILURES/WINDOW, e.g. 5/10 (0: off)")
        return EXIT_BAD_INPUT
    dataset = None
    if args.dataset:
        if (parsed := parse_dataset(args.dataset)) is None:
            err.print(f"[red]error:[/] --dataset {args.dataset!r}: give NAMESPACE/REVISION")
            return EXIT_BAD_INPUT
        dataset = DatasetRef(*parsed)
    if (dataset is None) == (not args.publication):
        err.print("[red]error:[/] give --dataset NAMESPACE/REVISION [--split S], or --publication (not both)")
        return EXIT_BAD_INPUT
    campaign_id = args.campaign_id or (
        f"{dataset.namespace}-{dataset.revision}-{args.split or 'candidates'}-{args.mode}".lower() if dataset
        else None)
    if not campaign_id:
        err.print("[red]error:[/] --id: name the campaign")
        return EXIT_BAD_INPUT
    if dataset is not None:
        _say_retracted(dataset, args.split)
    req = CampaignInput(campaign_id, mode=args.mode, dataset=dataset, split=args.split,
                        publications=list(args.publication), configs=args.config,
                        registry=args.registry, seed=args.seed, bootstrap_samples=args.bootstrap,
                        caps={"gpu": args.gpu_cap, "llm": args.llm_cap},
                        trial_attempts=args.trial_attempts, breaker=BreakerOptions(*breaker))
    return asyncio.run(_run("EvaluationCampaign", req, _wid(campaign_id), args))


def _say_retracted(dataset, split: str | None) -> None:
    """Which tasks of the split the plan will leave out, retracted (the plan names them too)."""
    from dataset_revisions.layout import RevisionKeys
    from dataset_revisions.retraction import retracted, retraction_line
    from storage.objects import ObjectMissing

    objects, keys = worker_objects(), RevisionKeys(dataset.namespace, dataset.revision)
    try:
        chosen = {e["task_id"] for e in json.loads(objects.get(keys.manifest))["splits"].get(split or "", [])}
    except (ObjectMissing, ValueError, KeyError):
        return  # the plan names what is wrong with the split
    for task_id, r in sorted(retracted(objects, keys).items()):
        if task_id in chosen:
            console.print(f"left out, retracted: {retraction_line(r)}", markup=False, highlight=False)


def parse_breaker(text: str) -> tuple[int, int] | None:
    """"5/10" -> (5, 10); "0" -> off; None: not a breaker setting (campaigns/breaker.py)."""
    from campaigns.breaker import breaker_problem

    if text.strip() == "0":
        return (0, 0)
    parts = text.split("/")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        return None
    failures, window = int(parts[0]), int(parts[1])
    return None if breaker_problem(failures, window) else (failures, window)


def cmd_resume(args) -> int:
    return asyncio.run(_resume(args))


async def _resume(args) -> int:
    """Signal `resume` to a paused campaign; a campaign that is not paused is a named error
    here (the workflow itself would ignore the signal)."""
    from contracts.errors import CAMPAIGN_NOT_PAUSED

    try:
        handle = (await temporal_client(args.address)).get_workflow_handle(_wid(args.campaign_id))
    except RuntimeError as e:
        err.print(f"[red]error:[/] cannot reach the Temporal server: {e}")
        return EXIT_BAD_INPUT
    from temporalio.client import WorkflowExecutionStatus

    try:
        # Described first: a query to a closed workflow waits for a worker to replay it.
        running = (await handle.describe()).status == WorkflowExecutionStatus.RUNNING
        progress = await handle.query("progress") if running else None
    except Exception as e:  # noqa: BLE001 — no such workflow
        progress = None
        err.print(f"[red]error:[/] {_wid(args.campaign_id)}: {e}")
    if progress is None:
        err.print(f"[red]error:[/] {CAMPAIGN_NOT_PAUSED}: campaign {args.campaign_id} is not running")
        return EXIT_BAD_INPUT
    if not progress.get("paused"):
        err.print(f"[red]error:[/] {CAMPAIGN_NOT_PAUSED}: campaign {args.campaign_id} is running, not "
                  "paused; nothing to resume")
        return EXIT_BAD_INPUT
    await handle.signal("resume")
    console.print(f"resumed campaign {args.campaign_id} (it was paused: {progress['paused']['reason']})")
    return EXIT_OK


def cmd_recover(args) -> int:
    from contracts.payloads.campaigns import RecoveryInput

    req = RecoveryInput(args.campaign_id, list(args.trial_ids), args.reason, args.requested_by,
                        args.trial_attempts)
    n = 1 + sum(k.endswith("/audit.json") for k in worker_objects().list(f"campaigns/{args.campaign_id}/recoveries/"))
    return asyncio.run(_run("CampaignRecovery", req, f"{_wid(args.campaign_id)}-recover-{n}", args))


async def _run(workflow: str, req, wid: str, args) -> int:
    from temporalio.client import WorkflowFailureError
    from temporalio.common import WorkflowIDReusePolicy

    from contracts.payloads.campaigns import CampaignResult

    handle = await start_workflow(args.address, workflow, req, wid, CampaignResult,
                                  id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE)
    if handle is None:
        return EXIT_BAD_INPUT
    if not args.wait:
        return EXIT_OK
    try:
        result = await follow(handle)
    except WorkflowFailureError as e:
        cause = e.cause
        while getattr(cause, "cause", None) is not None:
            cause = cause.cause  # type: ignore[attr-defined]  # the loop's condition checked it has one
        err.print(f"[red]{wid} failed:[/] {cause or e}")
        return EXIT_BAD_INPUT if getattr(cause, "type", "") in (
            "InvalidCampaign", "InvalidRecovery", "CampaignPlanConflict") else EXIT_NO
    print_report(result.campaign_id)
    for trial, why in sorted(result.failed.items()):
        err.print(f"[red]no record:[/] {trial}: {why}")
    return EXIT_NO if result.failed else EXIT_OK


def campaign_progress(p: dict) -> tuple[int | None, int, str]:
    c = p["counts"]
    return (p["total"] or None, c["recorded"] + c["already_recorded"] + c["failed"],
            f"running {c['running']}, infra exceptions {len(p['infra_exceptions'])}"
            + (", PAUSED by the circuit breaker (arkevo campaign resume)" if p.get("paused") else ""))


async def follow(handle):
    """A progress bar over the campaign's trials until it ends; its result."""
    return await follow_progress(handle, "trials", campaign_progress)


def print_report(campaign_id: str, as_json: bool = False) -> int:
    from campaigns.layout import CampaignKeys
    from storage.objects import ObjectMissing

    objects, keys = worker_objects(), CampaignKeys(campaign_id)
    try:
        data = objects.get(keys.report_json if as_json else keys.report_md).decode()
    except ObjectMissing:
        err.print(f"[red]error:[/] no report for campaign {campaign_id} "
                  f"({objects.location(keys.report_md)})")
        return EXIT_BAD_INPUT
    if as_json:
        print(data, end="")
    else:
        console.print(data, markup=False, highlight=False)
        console.print(f"report: {objects.location(keys.report_md)}")
    return EXIT_OK


def cmd_report(args) -> int:
    if args.rebuild:
        from activities.campaigns import CampaignActivities
        from contracts.payloads.campaigns import CampaignReportInput
        from workers.settings import PROJECT_ROOT, settings_from_env

        from temporalio.exceptions import ApplicationError

        settings = settings_from_env()
        try:
            CampaignActivities(settings.content_store(), settings.objects(), PROJECT_ROOT) \
                .write_campaign_report(CampaignReportInput(args.campaign_id))
        except ApplicationError as e:  # no such campaign, or figures that would pool grades
            err.print(f"[red]error:[/] {e.type}: {e.message}")
            return EXIT_BAD_INPUT if e.type == "InvalidCampaign" else EXIT_NO
    return print_report(args.campaign_id, args.json)


def cmd_status(args) -> int:
    return asyncio.run(_status(args))


async def _status(args) -> int:
    from campaigns.layout import CampaignKeys

    keys = CampaignKeys(args.campaign_id)
    objects = worker_objects()
    progress = None
    try:
        temporal = await temporal_client(args.address)
        progress = await temporal.get_workflow_handle(_wid(args.campaign_id)).query("progress")
    except Exception:  # no server, or the workflow ended: the store answers  # noqa: BLE001
        pass
    if not objects.exists(keys.plan):
        err.print(f"[red]error:[/] campaign {args.campaign_id} not found ({objects.location(keys.plan)})")
        return EXIT_BAD_INPUT
    plan = json.loads(objects.get(keys.plan))
    recorded = len([k for k in objects.list(keys.records) if k.endswith(".json")])
    doc = {"campaign_id": args.campaign_id, "location": objects.location(keys.root),
           "planned": len(plan["trials"]), "recorded": recorded,
           "report": objects.exists(keys.report_json), "running": progress}
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        console.print(f"campaign {args.campaign_id}: {recorded}/{len(plan['trials'])} trials recorded"
                      f"{', report written' if doc['report'] else ''} — {doc['location']}")
        if progress:
            c = progress["counts"]
            console.print("running: " + ", ".join(f"{k} {v}" for k, v in c.items()))
            for line in status_lines(progress, args.campaign_id):
                console.print(line, markup=False, highlight=False)
        for r in plan["source"].get("retracted", []):
            console.print(f"left out, retracted: {r['task_id']} ({r['reason']}, by {r['by']})",
                          markup=False, highlight=False)
    return EXIT_OK


def status_lines(progress: dict, campaign_id: str) -> list[str]:
    """The preflight's outcome and a circuit breaker pause, from the `progress` query."""
    lines = []
    if pre := progress.get("preflight"):
        smoke = pre.get("smoke")
        answered = (f"{sum(e['ok'] for e in pre['endpoints'])}/{len(pre['endpoints'])} "
                    "model endpoint(s) answered")
        if pre.get("smoke_running"):
            lines.append(f"preflight: {answered}, smoke trial running beside the first trials")
        else:
            lines.append(f"preflight {'passed' if pre['ok'] else 'FAILED'}: {answered}"
                         + (f", smoke trial on {smoke['task_id']} {'ok' if smoke['ok'] else 'failed'}"
                            f" (Blender {smoke['blender_version']})" if smoke else ""))
    if paused := progress.get("paused"):
        lines.append(f"PAUSED since {paused['since']}: {paused['reason']}")
        lines.append(f"resume with: arkevo campaign resume {campaign_id}")
    return lines
