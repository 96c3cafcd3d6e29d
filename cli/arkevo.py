"""`arkevo`: dataset production (docs/datasets.md) and evaluation campaigns (docs/campaigns.md).

    arkevo dataset start datasets/demo.json --wait   # DatasetProduction on the running stack
    arkevo dataset status --workflow-id dataset-demo-r1
    arkevo dataset freeze-check --namespace demo --revision r1
    arkevo dataset freeze --namespace demo --revision r1
    arkevo dataset verify --namespace demo --revision r1
    arkevo dataset retract demo/r1 mug-material --reason "…" --by <who>
    arkevo campaign start --dataset demo/r1 --split test --mode pilot --wait
    arkevo review accept <task> --by <who> --reason "…"       # stage 05 with review: human
    arkevo campaign report <campaign-id>
    arkevo campaign recover <campaign-id> --trial-id <id> --reason "…" --by <who> --wait
    arkevo site build --dataset demo/r1 --out site/          # static review site (docs/review-site.md)
    arkevo export task --publication <folder> --out task.zip # Harbor-layout ZIP (docs/exports.md)
    arkevo verifier drift --dataset demo/r1                  # what the verifier in force changes (docs/verifier-drift.md)
    arkevo seed new seeds/my-seed --like table-model         # a scaffold, each part to write marked (docs/seed-authoring.md)
    arkevo seed check seeds/my-seed                          # everything admission decides, offline
    arkevo seed measure seeds/my-seed                        # the reference solution, measured by the rubric
    arkevo seed calibrate seeds/my-seed                      # stage 05's calibration, mutation and gaming tables
    arkevo seed submit seeds/my-seed --wait                  # TaskProduction, followed stage by stage

The store is the workers' (ARKEVO_VAR, ARKEVO_STORE); the server is ARKEVO_TEMPORAL_ADDRESS.
Every command's --help lists its own exit codes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import cast

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from cli import campaign, export, review, seed, site, verifier
from cli.common import (EXIT_BAD_INPUT, EXIT_NO, EXIT_OK, console, err, follow, parse_dataset,
                        start_workflow, temporal_client, worker_objects, worker_store)
from cli.help import HelpFormatter, add_command, exit_codes
from dataset_revisions.retraction import retraction_line




def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _keys(args):
    from dataset_revisions.layout import RevisionKeys

    return RevisionKeys(args.namespace, args.revision)


def _revision_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--namespace", required=True, help="the dataset's namespace (spec: namespace)")
    p.add_argument("--revision", required=True, help="the revision (spec: revision)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="arkevo", description=__doc__, epilog=exit_codes(
        "done (freeze-check: ready; verify: every file matches)",
        "the answer is no (freeze-check: gaps; freeze: not ready or frozen otherwise; verify: "
        "problems; --wait: a seed or a trial failed; export: a file does not match its sha256)",
        "an invalid spec, no such revision or campaign, no server"), formatter_class=HelpFormatter)
    top = ap.add_subparsers(dest="area", required=True, metavar="{dataset,campaign,review,site,export,verifier,seed}")
    ds = top.add_parser("dataset", help="produce, freeze and verify dataset revisions",
                        description="Dataset revisions: many seeds, hash-chained publications, "
                                    "frozen into balanced splits (docs/datasets.md).")
    sub = ds.add_subparsers(dest="command", required=True)

    p = add_command(sub, "start", exit_codes(
        "started (with --wait: every seed published or skipped)",
        "with --wait: a seed failed, or the production failed",
        "an invalid spec, no Temporal server, the workflow could not start"),
                    help="start DatasetProduction for a dataset spec",
                    description="Validate the spec here, then start DatasetProduction on the "
                                "Temporal server. Re-running the same spec resumes it: seeds "
                                "already published in that revision are skipped.")
    p.add_argument("spec", type=Path, help="dataset spec (JSON, contracts/schemas/dataset-spec.schema.json)")
    p.add_argument("--workflow-id", help="default: dataset-<namespace>-<revision>")
    p.add_argument("--wait", action="store_true", help="follow progress until the production ends")
    p.add_argument("--stop-when-ready", action=argparse.BooleanOptionalAction, default=None,
                   help="start no seed once freeze-check passes (default: the spec's "
                        "stop_when_ready); --no-stop-when-ready produces the seeds a ready run deferred")
    p.add_argument("--address", help="Temporal frontend (default ARKEVO_TEMPORAL_ADDRESS or localhost:7233)")

    p = add_command(sub, "status", exit_codes(
        "printed", None, "neither --workflow-id nor --namespace and --revision, no such revision, "
        "no Temporal server"),
                    help="progress of a production and the state of its revision",
                    description="Without --workflow-id: what the store holds for the revision.")
    p.add_argument("--workflow-id", help="a DatasetProduction's workflow id (its progress query)")
    p.add_argument("--namespace")
    p.add_argument("--revision")
    p.add_argument("--address", help="Temporal frontend")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = add_command(sub, "freeze-check", exit_codes("ready to freeze", "gaps (each printed)", "no such revision"),
                    help="would the revision freeze? every gap; writes nothing",
                    description="Runs the selection freeze would run and every freeze rule "
                                "(split minimums, max per source, sources isolated, group, "
                                "profession and source coverage, determinism; sources counted by "
                                "lineage family), names every cross-split lineage pair, in the "
                                "selection and against the namespace's other frozen revisions, "
                                "then the export privacy checkpoint and verify over the selected "
                                "publications. Writes nothing.")
    _revision_args(p)
    p = add_command(sub, "freeze", exit_codes(
        "frozen now, or already frozen the same way", "not ready (gaps), or frozen otherwise",
        "no such revision"),
                    help="freeze the revision into its splits (once; immutable)",
                    description="Writes freeze/split-manifest.json (create-only) with its "
                                "semantic digest and announces it with a freeze handoff event. "
                                "Refuses a revision with gaps.")
    _revision_args(p)
    p = add_command(sub, "verify", exit_codes("every file and link matches", "problems (each printed)",
                                              "no such revision"),
                    help="re-hash every file and the hash chain of a revision",
                    description="Names every file that changed or went missing, broken chain "
                                "links, and a split manifest that no longer matches.")
    _revision_args(p)
    p = add_command(sub, "report", exit_codes("printed", None, "no such revision"),
                    help="yield and cost: the funnel, every loss, cost per stage and per accepted task",
                    description="The seeds' funnel (submitted, admitted, authored, calibrated, "
                                "published, frozen) with every loss by stage and failure kind, "
                                "and what the revision cost: model calls and tokens by role, "
                                "stage-06 sandbox CPU and wall, production wall, per accepted task.")
    _revision_args(p)
    p = add_command(sub, "retract", exit_codes(
        "retracted now, or already retracted (nothing written then)", None,
        "no such revision, no committed publication of that task (UnknownTask), a blank reason or by"),
                    help="retract a published task: the publication stays, marked",
                    description="Appends a hash-chained retraction (retractions/<n>.json, "
                                "create-only) naming the task, its publication and that "
                                "publication's sha256, who and why. Freezes, campaigns and "
                                "exports leave the task out and say so; the review site marks "
                                "it. Works on frozen revisions too: the split manifest stays.")
    p.add_argument("dataset", metavar="NS/REV", help="the dataset revision as NAMESPACE/REVISION")
    p.add_argument("task", help="the task id to retract")
    p.add_argument("--reason", required=True, help="why (recorded)")
    p.add_argument("--by", required=True, help="who retracts it (recorded)")
    p.add_argument("--json", action="store_true", help="print the retraction as JSON")
    campaign.register(top)
    review.register(top)
    site.register(top)
    export.register(top)
    verifier.register(top)
    seed.register(top)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from contracts.validation import ContractError
    from dataset_revisions.revision import DatasetNotFound

    try:
        if args.area in ("campaign", "review", "site", "export", "verifier", "seed"):
            areas = {"campaign": campaign, "review": review, "site": site, "export": export,
                     "verifier": verifier, "seed": seed}
            handler = areas[args.area].handlers()[args.command]
        else:
            handler = {"start": cmd_start, "status": cmd_status, "freeze-check": cmd_freeze_check,
                       "freeze": cmd_freeze, "verify": cmd_verify, "report": cmd_report,
                       "retract": cmd_retract}[args.command]
        return handler(args)
    except (ContractError, DatasetNotFound) as e:
        err.print(f"[red]error:[/] {escape(str(e))}")
        return EXIT_BAD_INPUT


# --- start / status ---------------------------------------------------------------------------


def cmd_start(args) -> int:
    from contracts.models import DatasetSpec
    from contracts.validation import load_json_file, validate_document
    from dataset_revisions.bands import check_band_configs

    doc = load_json_file(args.spec, str(args.spec))
    spec = cast(DatasetSpec, validate_document("dataset-spec", doc, str(args.spec)))
    check_band_configs(spec, str(args.spec))  # UnknownBandConfig: exit 2 before anything starts
    wid = args.workflow_id or f"dataset-{spec.namespace}-{spec.revision}"
    return asyncio.run(_start(doc, wid, args))


async def _start(doc: dict, wid: str, args) -> int:
    from temporalio.client import WorkflowFailureError

    from contracts.payloads.datasets import DatasetProductionInput, DatasetProductionResult

    handle = await start_workflow(args.address, "DatasetProduction",
                                  DatasetProductionInput(spec=doc, stop_when_ready=args.stop_when_ready),
                                  wid, DatasetProductionResult)
    if handle is None:
        return EXIT_BAD_INPUT
    if not args.wait:
        return EXIT_OK
    try:
        result = await follow(handle, "seeds", dataset_progress)
    except WorkflowFailureError as e:
        err.print(f"[red]{wid} failed:[/] {e.cause or e}")
        return EXIT_NO
    print_result(result)
    return EXIT_NO if result.failed else EXIT_OK


def dataset_progress(p: dict) -> tuple[int | None, int, str]:
    c = p["counts"]
    return (p["total"] or None, c["published"] + c["skipped"] + c["failed"] + c.get("deferred", 0),
            f"running {c['running']}, failed {c['failed']}, skipped {c['skipped']}")


def print_result(result) -> None:
    table = Table(title=f"dataset {result.namespace} revision {result.revision}")
    table.add_column("seed")
    table.add_column("state")
    table.add_column("publication / reason")
    for seed_id, pub in sorted(result.published.items()):
        table.add_row(seed_id, "skipped (already published)" if seed_id in result.skipped else "published", pub)
    for seed_id, reason in sorted(result.failed.items()):
        table.add_row(seed_id, "[red]failed[/]", reason)
    for seed_id in result.deferred:
        table.add_row(seed_id, "deferred", "not started: the revision was ready to freeze (stop_when_ready)")
    console.print(table)
    console.print(f"revision at {result.location} ({result.runs} run(s))")


def cmd_status(args) -> int:
    if args.workflow_id:
        return asyncio.run(_status_of_workflow(args))
    if not (args.namespace and args.revision):
        err.print("[red]error:[/] give --workflow-id, or --namespace and --revision")
        return EXIT_BAD_INPUT
    from dataset_revisions.chain import read_chain
    from dataset_revisions.revision import is_frozen, outcomes, read_spec

    objects, keys = worker_objects(), _keys(args)
    spec, spec_sha = read_spec(objects, keys)
    links = read_chain(objects, keys)
    outs = outcomes(objects, keys)
    doc = {"namespace": keys.namespace, "revision": keys.revision, "location": objects.location(keys.root),
           "spec_sha256": spec_sha, "frozen": is_frozen(objects, keys), "chain_length": len(links),
           "outcomes": outs}
    if args.json:
        print(json.dumps(doc, indent=2))
        return EXIT_OK
    table = Table(title=f"dataset {keys.namespace} revision {keys.revision}"
                        f"{' (frozen)' if doc['frozen'] else ''}: {len(links)} publications")
    for col in ("seed", "state", "publication / reason", "at"):
        table.add_column(col)
    for o in sorted(outs, key=lambda o: o["seed_id"]):
        table.add_row(o["seed_id"], o["state"], o.get("publication_id") or o.get("reason", ""), o["at"])
    console.print(table)
    console.print(f"at {doc['location']}")
    return EXIT_OK


async def _status_of_workflow(args) -> int:
    from temporalio.service import RPCError

    try:
        client = await temporal_client(args.address)
        progress = await client.get_workflow_handle(args.workflow_id).query("progress")
    except RuntimeError as e:  # what connect raises
        err.print(f"[red]error:[/] cannot reach the Temporal server: {escape(str(e))}")
        return EXIT_BAD_INPUT
    except RPCError as e:  # no such workflow
        err.print(f"[red]error:[/] {args.workflow_id}: {escape(str(e))}")
        return EXIT_BAD_INPUT
    if args.json:
        print(json.dumps(progress, indent=2))
    else:
        c = progress["counts"]
        console.print(f"{args.workflow_id}: dataset {progress['namespace']} revision {progress['revision']}, "
                      f"{progress['total']} seeds — " + ", ".join(f"{k} {v}" for k, v in c.items()))
        for seed_id, reason in progress["failed"].items():
            console.print(f"  [red]failed[/] {seed_id}: {reason}")
    return EXIT_OK


# --- freeze-check / freeze / verify -------------------------------------------------------------


def print_freeze_report(report, out=None) -> None:
    """The selection, every band and every gap (also `make demo`'s, on its own console)."""
    out = out or console
    table = Table(title=f"freeze-check {report.namespace}/{report.revision}: "
                        f"freeze_ready={str(report.freeze_ready).lower()} "
                        f"({report.candidates} candidates, selection seed {report.selection_seed})")
    for col in ("split", "tasks", "target", "sources", "groups", "professions"):
        table.add_column(col)
    for name, s in report.splits.items():  # one item per line: cells never truncate a name
        table.add_row(name, "\n".join(s.tasks), f"{s.count}/{s.target}", "\n".join(s.sources),
                      "\n".join(s.groups), "\n".join(s.professions))
    out.print(table)
    if report.unused:
        out.print(f"unused: {', '.join(report.unused)}")
    for r in report.retracted:
        out.print(f"retracted: {retraction_line(r)}", markup=False, highlight=False)
    print_bands(report, out)
    for gap in report.gaps:
        out.print(f"[red]gap[/] {gap.rule}: {gap.message}")
    out.print(f"semantic digest {report.semantic_digest}")


def print_bands(report, out=None) -> None:
    """Every candidate's difficulty band (docs/datasets.md "Difficulty bands")."""
    out = out or console
    if all(b.status == "unbanded" for b in report.bands):
        return  # the spec asks for no band: nothing to show
    table = Table(title="difficulty bands (scripted policies are not model results)")
    for col in ("task", "split", "band", "solved / scored (k) per config", "why"):
        table.add_column(col)
    for b in report.bands:
        counts = "\n".join(f"{m.config_id}: {m.solved}/{m.scored} ({m.k})" for m in b.measured.values())
        band = b.status.replace("_", " ") + ("\npossibly impossible" if b.possibly_impossible else "")
        table.add_row(b.task_id, b.split or "unused", band, counts or "–", "\n".join(b.reasons))
    out.print(table)
    if report.possibly_impossible:
        out.print(f"[yellow]possibly impossible[/] (no config solved them; review, never dropped): "
                  f"{', '.join(report.possibly_impossible)}")


def cmd_freeze_check(args) -> int:
    from dataset_revisions.freeze import freeze_check

    report = freeze_check(worker_objects(), _keys(args), store=worker_store())
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print_freeze_report(report)
    return EXIT_OK if report.freeze_ready else EXIT_NO


def cmd_freeze(args) -> int:
    from dataset_revisions.freeze import FreezeNotReady, FrozenRevisionImmutable, freeze

    try:
        result = freeze(worker_objects(), _keys(args), _now(), store=worker_store())
    except (FreezeNotReady, FrozenRevisionImmutable) as e:
        err.print(f"[red]error:[/] {e}")
        return EXIT_NO
    if args.json:
        print(json.dumps({"manifest": result.manifest, "manifest_sha256": result.manifest_sha256,
                          "semantic_digest": result.semantic_digest, "handoff_event": result.handoff_event,
                          "already_frozen": result.already_frozen, "report": result.report.to_dict()}, indent=2))
        return EXIT_OK
    print_freeze_report(result.report)
    console.print(("already frozen: " if result.already_frozen else "frozen: ") + result.manifest)
    console.print(f"  manifest sha256  {result.manifest_sha256}")
    console.print(f"  semantic digest  {result.semantic_digest}")
    console.print(f"  handoff event    {result.handoff_event}")
    return EXIT_OK


def cmd_retract(args) -> int:
    from dataset_revisions.layout import RevisionKeys
    from dataset_revisions.retraction import UnknownTask, retract

    if (dataset := parse_dataset(args.dataset)) is None:
        err.print(f"[red]error:[/] {escape(args.dataset)!r}: give NAMESPACE/REVISION")
        return EXIT_BAD_INPUT
    try:
        result = retract(worker_objects(), RevisionKeys(*dataset), args.task, args.reason, args.by, _now())
    except UnknownTask as e:
        err.print(f"[red]error:[/] UnknownTask: {escape(str(e))}")
        return EXIT_BAD_INPUT
    if args.json:
        print(json.dumps({**result.retraction, "location": result.location,
                          "already_retracted": result.already_retracted}, indent=2))
        return EXIT_OK
    doc = result.retraction
    state = "already retracted" if result.already_retracted else "retracted"
    console.print(f"{state}: {retraction_line(doc)} at {doc['at']}: publication {doc['publication_id']} "
                  f"(sha256 {doc['publication_sha256']}) stays, marked", markup=False, highlight=False)
    console.print(f"  {result.location}", markup=False, highlight=False)
    return EXIT_OK


def cmd_report(args) -> int:
    from dataset_revisions.report import dataset_report

    report = dataset_report(worker_objects(), _keys(args))
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print_dataset_report(report)
    return EXIT_OK


def _num(value, unit: str = "") -> str:
    if value is None:
        return "–"
    return f"{value:,.1f}{unit}" if isinstance(value, float) else f"{value:,}{unit}"


def print_dataset_report(report, out=None) -> None:
    """The funnel with its losses, then the cost table (also `make demo`'s, on its own console)."""
    out = out or console
    funnel = Table(title=f"yield of {report.namespace}/{report.revision}"
                         f"{'' if report.frozen else ' (not frozen: accepted = published)'}")
    for col in ("step", "seeds", "lost here", "by stage and failure kind"):
        funnel.add_column(col)
    first = report.funnel["submitted"] or 1
    for step, count in report.funnel.items():
        lost = [loss for loss in report.losses if loss.lost_at == step]
        kinds = Counter(loss.kind for loss in lost)
        funnel.add_row(step, f"{count} ({100 * count / first:.0f}%)", str(len(lost)) if lost else "",
                       ", ".join(f"{k} ×{n}" for k, n in sorted(kinds.items())))
    out.print(funnel)
    for loss in report.losses:
        out.print(f"  lost {loss.seed_id} before {loss.lost_at}: {loss.kind}: {loss.reason}",
                  markup=False, highlight=False)
    if report.deferred:
        out.print(f"  deferred (not started: the revision was ready to freeze; a run without "
                  f"stop_when_ready produces them): {', '.join(report.deferred)}", markup=False, highlight=False)
    costs = Table(title=f"cost (accepted tasks: {report.accepted})")
    for col in ("stage", "records", "wall", "sandbox CPU", "model calls", "tokens in / out", "by role"):
        costs.add_column(col)
    for c in report.costs:
        costs.add_row(c.stage, str(c.records), _num(c.wall_sec, " s"), _num(c.sandbox_cpu_sec, " s"),
                      _num(c.model_calls), f"{_num(c.input_tokens)} / {_num(c.output_tokens)}",
                      "; ".join(f"{r}: {v['model_calls']} calls" for r, v in sorted(c.by_role.items())))
    costs.add_row("production wall", "", _num(report.production_wall_sec, " s"), "", "", "", "")
    per = report.per_accepted_task
    costs.add_row("per accepted task", "", _num(per["production_wall_sec"], " s"),
                  _num(per["sandbox_cpu_sec"], " s"), _num(per["model_calls"]), _num(per["tokens"]), "")
    out.print(costs)
    for gap in report.not_recorded:
        out.print(f"  not recorded: {gap}", markup=False, highlight=False)


def cmd_verify(args) -> int:
    from dataset_revisions.verify import verify_revision

    objects, keys = worker_objects(), _keys(args)
    with Progress(TextColumn("verify"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True) as bar:
        tid = bar.add_task("publications", total=None)
        report = verify_revision(objects, keys, on_publication=lambda done, total: bar.update(
            tid, completed=done, total=total))
    if args.json:
        print(json.dumps(report.__dict__ | {"ok": report.ok}, indent=2))
    else:
        state = "[green]ok[/]" if report.ok else f"[red]{len(report.problems)} problem(s)[/]"
        console.print(f"verify {keys.namespace}/{keys.revision}: {report.publications} publications, "
                      f"{report.files} files, frozen={str(report.frozen).lower()}: {state}")
        for problem in report.problems:
            console.print(f"  {problem}", markup=False)
    return EXIT_OK if report.ok else EXIT_NO


if __name__ == "__main__":
    from workers.client import exit_process

    exit_process(main())  # the status, whatever the SDK runtime does at exit
