"""`make demo`: bring the stack up, produce a dataset revision from every bundled seed, show that
its difficulty bands cannot be judged yet (freeze refused: unmeasured), measure them with a
pilot campaign over the revision's candidates, freeze it into three splits within their bands,
verify it, print its yield and cost (`arkevo dataset report`), grade every stored
delivery again with the same verifier (the drift check, deliveries only: zero drift, or the
grading is not a function of its inputs), build the review site (`site: <index.html>`), and print where
everything went.

The revision is named after the code, the spec and the seeds (`p<digest>`): an interrupted demo
resumes it (nothing is produced twice), a finished one finds it frozen and shows it as it stands,
and a changed checkout starts a new one. Results come from scripted solver policies (oracle,
nop), labelled as such — not model results.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import cast

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.table import Table
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import TemporalError

from workers.client import connect

DEMO_SPEC = Path("datasets/demo.json")
console = Console(width=max(Console().width, 170))


def demo_revision(root: Path, spec: dict) -> str:
    """`p` + 10 hex of sha256(pipeline digest, the spec, every seed file): same checkout and
    spec, same revision (a revision's spec never changes)."""
    import hashlib

    from contracts.digests import canonical_json_bytes, pipeline_digest, sha256_file

    h = hashlib.sha256(pipeline_digest(root).encode())
    h.update(canonical_json_bytes({k: v for k, v in spec.items() if k != "revision"}))
    for path in sorted((root / "seeds").rglob("*")):
        if path.is_file():
            h.update(f"{path.relative_to(root).as_posix()}:{sha256_file(path)}\n".encode())
    return "p" + h.hexdigest()[:10]


def _progress_table(progress: dict, stages: dict[str, dict]) -> Table:
    from workflows.task_production import STAGES

    c = progress.get("counts", {})
    table = Table(title=f"DatasetProduction {progress.get('namespace')}/{progress.get('revision')}: "
                        + ", ".join(f"{k} {v}" for k, v in c.items()))
    table.add_column("seed", no_wrap=True)
    table.add_column("state", no_wrap=True)
    for stage in STAGES:
        table.add_column(stage.replace("-", " ", 1), no_wrap=True)
    marks = {"pending": "·", "running": "[yellow]running[/]", "completed": "[green]done[/]",
             "failed": "[red]FAILED[/]"}
    for seed_id, p in sorted(stages.items()):
        s = p.get("stages", {})
        table.add_row(seed_id, p.get("state", ""), *(marks.get(s.get(x, "pending"), "?") for x in STAGES))
    return table


async def produce(address: str, spec: dict, wid: str):
    from contracts import queues
    from workflows.task_production import STAGES
    from contracts.payloads.datasets import DatasetProductionInput, DatasetProductionResult

    from temporalio.common import WorkflowIDConflictPolicy

    client = await connect(address=address)
    # A run of the same revision still open (its stack stopped and started again) is followed,
    # not refused: it picks up where it stopped.
    handle = await client.start_workflow("DatasetProduction", DatasetProductionInput(spec=spec), id=wid,
                                         task_queue=queues.CONTROL, result_type=DatasetProductionResult,
                                         id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING)
    console.print(f"started {wid} (or followed it, when it was running)")
    result = asyncio.ensure_future(handle.result())
    stages: dict[str, dict] = {}
    progress: dict = {}
    with Live(_progress_table(progress, stages), console=console, refresh_per_second=2) as live:
        while not result.done():
            await asyncio.wait([result], timeout=2)
            try:
                progress = await handle.query("progress")
            except Exception:  # noqa: BLE001 — between workflow tasks; next poll
                continue
            for seed_id in progress["running"]:
                try:
                    stages[seed_id] = await client.get_workflow_handle(f"{wid}.{seed_id}").query("progress")
                except Exception:  # noqa: BLE001 — the child may not have started yet
                    stages.setdefault(seed_id, {})
            for seed_id in stages:
                state = ("failed" if seed_id in progress["failed"] else
                         "running" if seed_id in progress["running"] else "published")
                stages[seed_id]["state"] = state
                if state == "published":  # its last poll may predate its last stages
                    stages[seed_id]["stages"] = dict.fromkeys(STAGES, "completed")
            live.update(_progress_table(progress, stages))
    console.line()  # a non-terminal Live leaves the cursor after its last frame
    return result.result()


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{round(x, 3) + 0.0:.3f}"


def tasks_table(objects, keys) -> Table:
    """Every task of the revision as published: calibration margin and evaluation figures."""
    from dataset_revisions.revision import committed_links

    table = Table(title=f"dataset {keys.namespace}/{keys.revision}: published tasks "
                        f"(scripted policies — not model results)")
    for col in ("#", "task", "group", "profession", "source", "margin", "oracle avg@3/pass@3",
                "nop avg@3/pass@3", "publication"):
        table.add_column(col)
    for link in committed_links(objects, keys):
        base = link.publication_key
        calibration = json.loads(objects.get(f"{base}/review/calibration-report.json"))
        report = json.loads(objects.get(f"{base}/evaluation/report.json"))
        metrics = {m["config"]: m for m in report.get("metrics", [])}
        fig = lambda c: (f"{_fmt(metrics[c]['avg_at_k'])}/{_fmt(metrics[c]['pass_at_k'])}"  # noqa: E731
                         if c in metrics else "—")
        table.add_row(str(link.sequence), link.task_id, link.workflow_group, link.profession_primary,
                      link.source, _fmt(calibration.get("margin")), fig("oracle"), fig("nop"),
                      link.publication_id)
    return table


EXIT_CODES = """\
exit codes:
  0  every seed published, the revision frozen and verified, the campaign without a failed trial,
     zero verifier drift
  1  a seed failed, freeze refused, verify found problems, the campaign failed, the drift check
     found drift or did not finish, or the stack did not start (the reason is printed)
  2  bad usage or a dataset spec that does not load or validate"""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parsed before anything else happens: `--help` and a bad option start no stack."""
    parser = argparse.ArgumentParser(prog="python -m cli.demo", description=__doc__,
                                     epilog=EXIT_CODES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spec", type=Path, default=DEMO_SPEC, help="dataset spec (default %(default)s)")
    parser.add_argument("--revision", help="default: p<digest of the code and the seeds>")
    return parser.parse_args(argv)


async def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    from cli.arkevo import print_freeze_report
    from contracts.validation import ContractError, load_json_file, validate_document
    from dataset_revisions.freeze import FreezeNotReady, freeze, freeze_check
    from dataset_revisions.layout import RevisionKeys
    from dataset_revisions.revision import is_frozen
    from dataset_revisions.verify import verify_revision
    from workers.settings import PROJECT_ROOT, settings_from_env
    from workers.stack import stack_from_env

    try:
        spec = load_json_file(args.spec, str(args.spec))
        spec["revision"] = args.revision or demo_revision(PROJECT_ROOT, spec)
        spec = validate_document("dataset-spec", spec, str(args.spec)).model_dump(mode="json")
    except ContractError as e:
        console.print(f"[red]error:[/] {escape(str(e))}", highlight=False)
        return 2
    keys = RevisionKeys(spec["namespace"], spec["revision"])

    stack = stack_from_env()
    stack.up()
    console.print(f"Temporal Web UI: [bold]{stack.ui_url}[/]  (namespace default)")
    started = time.monotonic()
    wid = f"dataset-{keys.namespace}-{keys.revision}"
    objects = settings_from_env().objects()
    store = settings_from_env().content_store()
    failed: dict[str, str] = {}
    if is_frozen(objects, keys):  # a frozen revision takes nothing more: show it as it stands
        console.print(f"dataset {keys.namespace}/{keys.revision} is frozen already: nothing to produce")
    else:
        console.print(f"{stack.ui_url}/namespaces/default/workflows/{wid}")
        try:
            result = await produce(stack.address, spec, wid)
        except WorkflowFailureError as e:
            cause = cast(TemporalError, e.cause)  # a decoded failure: Temporal's own error types
            console.print(f"[red]{wid} failed:[/] {cause.cause if cause and cause.cause else cause or e}")
            return 1
        failed = result.failed
        console.print(f"produced {len(result.published) - len(result.skipped)} tasks, skipped "
                      f"{len(result.skipped)} already published, {len(result.failed)} failed, in "
                      f"{time.monotonic() - started:.0f}s ({result.runs} run(s))")
    console.print(tasks_table(objects, keys))
    for seed_id, reason in sorted(failed.items()):
        console.print(f"[red]{seed_id} failed:[/] {reason}")

    campaign_ok = True
    if spec.get("bands"):
        before = freeze_check(objects, keys, store=store)
        band_gaps = [g for g in before.gaps if g.rule == "difficulty_bands"]
        console.print(f"freeze-check before the bands are measured: "
                      f"{'ready' if before.freeze_ready else 'refused'}, {len(band_gaps)} band gap(s)")
        for gap in band_gaps[:3]:
            console.print(f"  [red]gap[/] {gap.rule}: {gap.message}", highlight=False)
        if len(band_gaps) > 3:
            console.print(f"  … and {len(band_gaps) - 3} more")
        campaign_ok = await evaluate(stack, keys, objects)  # the bands' measurement
    report = freeze_check(objects, keys, store=store)
    print_freeze_report(report, console)
    try:
        frozen = freeze(objects, keys, datetime.now(timezone.utc).isoformat(timespec="seconds"), store=store)
    except FreezeNotReady as e:
        console.print(f"[red]{e}[/]")
        return 1
    console.print(("already frozen: " if frozen.already_frozen else "frozen: ") + frozen.manifest)
    console.print("  split sizes      " + ", ".join(f"{n} {s.count}" for n, s in frozen.report.splits.items()))
    console.print(f"  manifest sha256  {frozen.manifest_sha256}")
    console.print(f"  semantic digest  {frozen.semantic_digest}")
    console.print(f"  handoff event    {frozen.handoff_event}")
    verified = verify_revision(objects, keys)
    console.print(f"verify: {verified.publications} publications, {verified.files} files: "
                  + ("[green]ok[/]" if verified.ok else f"[red]{verified.problems}[/]"))
    console.print(f"dataset: {objects.location(keys.root)}")
    from cli.arkevo import print_dataset_report
    from dataset_revisions.report import dataset_report

    print_dataset_report(dataset_report(objects, keys), console)  # the funnel, each loss, cost per task
    drift_ok = await drift_check(stack, keys)
    review_site(objects, store, keys, settings_from_env().var / "site" / f"{keys.namespace}-{keys.revision}")
    console.print(f"Web UI: {stack.ui_url} — the stack keeps running; `make down` stops it.")
    return 1 if (failed or not verified.ok or not campaign_ok or not drift_ok) else 0


async def evaluate(stack, keys, objects) -> bool:
    """The evaluation campaign over the revision's candidates (pilot mode: oracle 1 + nop 1 per
    task; scripted policies, not model results): its difficulty record measures the spec's
    bands before the freeze. Resumed, not rerun, by a second demo."""
    from temporalio.common import WorkflowIDReusePolicy

    from campaigns.layout import CampaignKeys
    from cli.campaign import follow
    from contracts import queues
    from contracts.payloads.campaigns import CampaignInput, CampaignResult
    from contracts.payloads.common import DatasetRef

    campaign_id = f"{keys.namespace}-{keys.revision}-candidates-pilot"
    ckeys = CampaignKeys(campaign_id)
    wid = f"campaign-{campaign_id}"
    client = await connect(address=stack.address)
    started = time.monotonic()
    console.print(f"campaign {campaign_id}: {stack.ui_url}/namespaces/default/workflows/{wid}")
    handle = await client.start_workflow(
        "EvaluationCampaign", CampaignInput(campaign_id, mode="pilot",
                                            dataset=DatasetRef(keys.namespace, keys.revision)),
        id=wid, task_queue=queues.CONTROL, result_type=CampaignResult,
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE)
    try:
        result = await follow(handle)
    except WorkflowFailureError as e:
        cause = cast(TemporalError, e.cause)  # a decoded failure: Temporal's own error types
        console.print(f"[red]{wid} failed:[/] {cause.cause if cause and cause.cause else cause or e}")
        return False
    console.print(objects.get(ckeys.report_md).decode(), markup=False, highlight=False)
    console.print(f"campaign: {result.trials} trials in {time.monotonic() - started:.0f}s, "
                  f"{len(result.exceptions)} infra exception(s) standing")
    console.print(f"campaign report: {result.report_md}")
    return not result.failed


async def drift_check(stack, keys) -> bool:
    """`arkevo verifier drift --deliveries-only` on the revision with the workers' own verifier
    (docs/verifier-drift.md): every calibration sample and trial graded again must keep its
    verdict; the report lies beside the revision and the review site shows it. Deliveries only:
    the demo checks that grading what was delivered is a function of its inputs; attacking every
    reference again (stage 05's mutation testing a second time, most of the full check's time:
    docs/performance.md) is the full check's business (`arkevo verifier drift`)."""
    from temporalio.common import WorkflowIDReusePolicy

    from cli.common import EXIT_OK, follow
    from cli.verifier import drift_progress, print_report
    from contracts import queues
    from contracts.payloads.common import DatasetRef
    from contracts.payloads.verifier_drift import VerifierDriftInput, VerifierDriftResult

    wid = f"verifier-drift-{keys.namespace}-{keys.revision}"
    client = await connect(address=stack.address)
    handle = await client.start_workflow(
        "VerifierDrift", VerifierDriftInput(DatasetRef(keys.namespace, keys.revision), attacks=False), id=wid,
        task_queue=queues.CONTROL, result_type=VerifierDriftResult,
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE)
    try:
        result = await follow(handle, "tasks re-scored", drift_progress)
    except WorkflowFailureError as e:
        console.print(f"[red]{wid} failed:[/] {escape(str(e.cause or e))}")
        return False
    return print_report(result.report_key) == EXIT_OK


def review_site(objects, store, keys, out: Path) -> None:
    """The static review site of the revision (docs/review-site.md); a second demo rewrites only
    what changed."""
    from review_site.build import build_site
    from review_site.sources import Source

    result = build_site(Source(objects, store), out, dataset=(keys.namespace, keys.revision))
    console.print(f"review site: {result.summary()}", soft_wrap=True)
    console.print(f"site: {result.index}", soft_wrap=True)


if __name__ == "__main__":
    from workers.client import exit_process

    exit_process(asyncio.run(main()))  # the status, whatever the SDK runtime does at exit
