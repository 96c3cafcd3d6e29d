"""`arkevo seed`: the offline half of the pipeline for a seed's author (docs/seed-authoring.md).

    arkevo seed new seeds/my-seed --like table-model   # every required file, each part to write marked
    arkevo seed check seeds/my-seed          # everything stage 02 decides; exit 0 only if it admits
    arkevo seed check seeds/my-seed --json   # the same findings as JSON
    arkevo seed measure seeds/my-seed        # the reference solution, measured by the rubric
    arkevo seed calibrate seeds/my-seed      # stage 05's calibration, mutation and gaming tables, verdict
    arkevo seed expand seeds/table-model     # a seed family's instances as seed folders, each checked
    arkevo seed submit seeds/my-seed --wait  # TaskProduction on the running stack, followed stage by stage

`check` runs admission's own judgement (`activities.admission.judge_seed`: the whole-seed
check, the Blender version, the draft against its scoring profile and judge questions, the
requirement ledger and the privacy scan) and writes nothing. Where admission stops at its first
finding, `check` lists every finding whose check could run; the first is the one admission
raises, with the same error type. `calibrate` runs the draft's calibration samples, the
mutation operators and the gaming samples with stage 05's judgement and the pipeline's margin
(`verifiers.calibration`, contracts/pipeline.json), after `check`. `submit` starts TaskProduction
(the Temporal CLI stays the primary way: README) after `check`.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from rich.markup import escape

from cli.common import EXIT_BAD_INPUT, EXIT_NO, EXIT_OK, console, err, follow, start_workflow
from cli.help import add_command, exit_codes

# Where the rules behind a finding are written down, by the file it names (the reason itself
# says what was expected).
SEE = {
    "seed.json": "docs/contracts.md (seed.json)",
    "draft/task.json": "docs/contracts.md (task.json), docs/scoring.md (weights, profiles)",
    "draft/rubric.json": "docs/scoring.md (probe methods and their params)",
    "draft/task_probes.py": "docs/scoring.md (a seed's own probes)",
    "draft/judge.json": "docs/scoring.md (VL judge questions)",
    "draft/ledger.json": "docs/authoring.md (the requirement ledger)",
}
SEE_BY_TYPE = {
    "BlenderVersionMismatch": "declare this runtime's Blender in seed.json and draft/task.json "
                              "(software.version, or software.accepts holding it): docs/contracts.md",
    "PrivacyFinding": "remove or rewrite the matched text (docs/privacy.md)",
}


def _see(finding) -> str:
    if finding.error_type in SEE_BY_TYPE:
        return SEE_BY_TYPE[finding.error_type]
    if ": still to write: " in finding.message:  # a scaffold's marker (`seed new`)
        return "docs/seed-authoring.md (the files, and the walk-through)"
    return SEE.get(finding.file, "docs/contracts.md")


def _seed_arg(p, help: str = "the seed folder (the one holding seed.json)") -> None:
    p.add_argument("seed", type=Path, help=help)


def _sandbox_arg(p) -> None:
    p.add_argument("--no-sandbox", action="store_true",
                   help="run the seed's scripts unisolated (your own code, your own machine)")


def register(top) -> None:
    sd = top.add_parser("seed", help="check a seed folder offline, as admission would",
                        description="A seed author's offline checks, with the pipeline's own code.")
    sub = sd.add_subparsers(dest="command", required=True)
    p = add_command(sub, "check", exit_codes(
        "admission would pass", "findings (each printed with its file, field and where the rule is written)",
        "no such folder"),
                    help="everything stage 02 decides about a seed folder; writes nothing",
                    description="Run stage 02's judgement of the seed folder (schema, taxonomy, weights "
                                "against the scoring profile, rubric against the probe library and its "
                                "params, judge questions, requirement ledger, privacy scan, Blender "
                                "version) and print every finding. The first is the one admission "
                                "would raise. Writes nothing.")
    _seed_arg(p)
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")

    p = add_command(sub, "new", exit_codes("written", None, "a folder that is not empty, a bad seed id, an "
                                           "unknown --like seed or --kind workflow"),
                    help="a new seed folder: every required file, each part to write marked",
                    description="Write every required file of a seed into FOLDER (new or empty; its name is "
                                "the seed id). Each part the author must write holds 'ARKEVO-TODO:' and what "
                                "goes there; `check` names each one left.")
    _seed_arg(p, "the new seed folder")
    kind = p.add_mutually_exclusive_group(required=True)
    kind.add_argument("--like", help="a bundled seed whose start mode, workflow and profession it takes")
    kind.add_argument("--kind", help="a workflow id of contracts/taxonomy.json (e.g. MOD-01)")

    p = add_command(sub, "measure", exit_codes(
        "measured: the reference passes every criterion that has its expected value",
        "the reference fails a criterion (named), check findings besides missing expected values, a script "
        "raises, or the sandbox cannot start", "no such folder, no draft"),
                    help="the reference solution, measured by the rubric; values to copy where none is set",
                    description="Build the start and reference scenes, apply the reference solution in the "
                                "sandbox and probe it with the rubric: per criterion what it measured beside "
                                "the expected value and tolerance. A criterion without its expected value is "
                                "measured anyway and printed to copy. Never writes the rubric.")
    _seed_arg(p)
    _sandbox_arg(p)

    p = add_command(sub, "calibrate", exit_codes(
        "stage 05 would pass: every sample as expected by the margin, every mutation operator killed, "
        "every gaming sample refused",
        "check findings, an expectation missed, a survivor, a script of the seed raises, or the sandbox "
        "cannot start", "no such folder, no draft"),
                    help="stage 05's calibration, mutation testing and gaming samples on the draft",
                    description="After `check`: build the start and reference scenes, apply the reference "
                                "solution and every calibration script in the sandbox, probe them, attack "
                                "the reference delivery with the mutation operators and judge it all as "
                                "stage 05 does, with the pipeline's margin and reference minimum "
                                "(contracts/pipeline.json). Prints the sample, mutation and gaming tables; "
                                "progress on stderr. Writes only under --out.")
    _seed_arg(p)
    p.add_argument("--out", type=Path, help="deliveries and report (default var/seed-calibration/<seed id>)")
    p.add_argument("--no-mutate", action="store_true",
                   help="skip mutation testing while you fix samples (much faster); it then never passes: "
                        "stage 05 freezes no grader that no operator attacked")
    _sandbox_arg(p)

    p = add_command(sub, "expand", exit_codes(
        "every instance written (or already there, the same) and admitted",
        "the family's templates fail (named: file, line), or an instance would be refused at admission",
        "no such folder, not a family, a bad --count, an instance folder holding other files"),
                    help="a seed family's instances as seed folders, each checked as admission would",
                    description="Render instances 1..count of the seed family (seed.json `family`; "
                                "docs/seed-authoring.md, \"Seed families\") into OUT/<seed id>-NNN/, each a "
                                "seed folder of its own: the same family gives the same bytes. Then run "
                                "`check`'s judgement on each. Calibrate an instance with `calibrate`.")
    _seed_arg(p, "the family's root folder (the one whose seed.json declares `family`)")
    p.add_argument("--out", type=Path, help="where the instance folders go (default var/seed-instances/<seed id>)")
    p.add_argument("--count", type=int, help="the first N instances (default: the family's count)")
    p.add_argument("--replace", action="store_true", help="rewrite instance folders that hold other files")
    p.add_argument("--no-check", action="store_true", help="write the folders without admission's judgement")

    p = add_command(sub, "submit", exit_codes(
        "started (with --wait: published)", "check findings (nothing started); with --wait: the production failed",
        "no such folder, no Temporal server, the workflow could not start"),
                    help="start TaskProduction for the seed (after `check`)",
                    description="After `check`: start TaskProduction on the running stack with the seed's "
                                "absolute path (the workers read it there: a worker on another machine "
                                "needs the same path), and with --wait follow it stage by stage. The "
                                "Temporal CLI does the same (README).")
    _seed_arg(p)
    p.add_argument("--workflow-id", help="default: <seed id>-<UTC time>")
    p.add_argument("--wait", action="store_true", help="follow the production until it ends")
    p.add_argument("--options", help='ProductionOptions as JSON, e.g. \'{"k": 1, "review": "human"}\'')
    p.add_argument("--address", help="Temporal frontend (default ARKEVO_TEMPORAL_ADDRESS or localhost:7233)")


def handlers() -> dict:
    return {"new": cmd_new, "check": cmd_check, "measure": cmd_measure, "calibrate": cmd_calibrate,
            "expand": cmd_expand, "submit": cmd_submit}


def cmd_new(args) -> int:
    from cli.seed_scaffold import new_seed
    from contracts.seed_check import load_taxonomy
    from workers.settings import PROJECT_ROOT

    return new_seed(args.seed, args.like, args.kind, PROJECT_ROOT / "seeds", load_taxonomy())


def _missing(seed: Path) -> bool:
    """No such folder: said, for exit 2."""
    if seed.is_dir():
        return False
    err.print(f"[red]error:[/] {escape(str(seed))}: no such seed folder")
    return True


def cmd_expand(args) -> int:
    from cli.seed_expand import expand

    if _missing(args.seed):
        return EXIT_BAD_INPUT
    return expand(args.seed, args.out, args.count, args.replace, not args.no_check)


def cmd_measure(args) -> int:
    from cli.seed_measure import measure

    return EXIT_BAD_INPUT if _missing(args.seed) else measure(args.seed, no_sandbox=args.no_sandbox)


def _admitted(seed: Path):
    """The verdict of `check` on `seed`; None for a missing folder."""
    from activities.admission import judge_seed
    from cli.common import worker_store

    if _missing(seed):
        return None
    try:
        store = worker_store()  # cached .blend text extractions, read only
    except Exception:  # noqa: BLE001 - no store here: .blend texts are pending, as on a new one
        store = None
    return judge_seed(seed, str(seed), store)


def cmd_check(args) -> int:
    from activities.admission import family_findings

    seed: Path = args.seed
    verdict = _admitted(seed)
    if verdict is None:
        return EXIT_BAD_INPUT
    if verdict.admitted and verdict.checked is not None:  # a family's root: can it make its instances?
        verdict.findings.extend(family_findings(seed, str(seed), verdict.checked))
    return print_verdict(seed, verdict, as_json=args.json)


def print_verdict(seed: Path, verdict, as_json: bool = False) -> int:
    """`check`'s report of a verdict (activities.admission.SeedVerdict); its exit code."""
    rows = [{**f.as_dict(), "see": _see(f)} for f in verdict.findings]
    if as_json:
        console.print_json(json.dumps({"seed": str(seed), "admitted": verdict.admitted, "findings": rows,
                                       "privacy_pending": list(verdict.privacy.pending) if verdict.privacy else []}))
        return EXIT_OK if verdict.admitted else EXIT_NO
    if verdict.admitted:
        checked = verdict.checked
        assert checked is not None  # admitted: every check ran
        what = (f"draft {checked.task.task_id}: {len(checked.task.criteria)} criteria, "
                f"{len(verdict.draft.calibration_samples) if verdict.draft else 0} calibration samples"
                if checked.task else "no draft: the author model writes it in stage 03")
        console.print(f"[green]admission would pass:[/] {escape(str(seed))} ({escape(what)}; "
                      f"{len(verdict.files)} files)")
        for pending in verdict.privacy.pending if verdict.privacy else []:
            console.print(f"  privacy pending (read in the sandbox at dispatch): {escape(str(pending))}")
        return EXIT_OK
    # One block per finding, each line whole (paths and messages stay greppable at any width).
    console.print(f"[red]{escape(str(seed))}: {len(rows)} finding(s)[/]; admission raises the first")
    for n, row in enumerate(rows, 1):
        prefix = f"{row['file']}: {row['field']}: "
        reason = row["message"].split(prefix, 1)[1] if prefix in row["message"] else row["message"]
        console.print(f"{n:>3}. {row['error_type']}  {escape(row['file'] or '-')}  {escape(row['field'] or '-')}")
        for line in reason.splitlines():
            console.print(f"     {escape(line)}")
        console.print(f"     see: {escape(row['see'])}")
    return EXIT_NO


OFFLINE_JUDGES = ("image-metric", "none")  # the VL judges calibrate can run without a model endpoint


def cmd_calibrate(args) -> int:
    from contracts.digests import load_pipeline_config
    from verifiers import calibration
    from workers.settings import PROJECT_ROOT, settings_from_env

    verdict = _admitted(args.seed)
    if verdict is None:
        return EXIT_BAD_INPUT
    if not verdict.admitted:
        return print_verdict(args.seed, verdict)
    if verdict.checked is None or verdict.checked.task is None:
        err.print(f"[red]error:[/] {escape(str(args.seed))}: no draft to calibrate (the author model writes it "
                  "in stage 03)")
        return EXIT_BAD_INPUT
    config = load_pipeline_config(PROJECT_ROOT)
    out = args.out or settings_from_env().var / "seed-calibration" / verdict.checked.manifest.seed_id
    argv = ["--task-dir", str(args.seed / "draft"), "--out", str(out),
            "--margin", str(config.calibration_margin), "--reference-min", str(config.calibration_reference_min),
            "--judge", config.vl_judge if config.vl_judge in OFFLINE_JUDGES else "image-metric"]
    console.print(f"calibrating {escape(str(args.seed))} as stage 05 judges it (margin {config.calibration_margin}, "
                  f"reference at least {config.calibration_reference_min}) into {escape(str(out))}")
    if config.vl_judge not in OFFLINE_JUDGES:  # said, not silently swapped: the VL column differs
        err.print(f"[yellow]note:[/] the pipeline judges VL with {config.vl_judge!r} (contracts/pipeline.json "
                  "vl_judge); offline, the image-metric stand-in judges instead, so the VL and total columns "
                  "are not stage 05's (the rule columns and mutation testing are)")
    return calibration.main(argv + (["--no-sandbox"] if args.no_sandbox else [])
                            + (["--no-mutate"] if args.no_mutate else []))


def cmd_submit(args) -> int:
    from contracts.payloads.common import ProductionOptions, TaskProductionInput
    from contracts.payloads.packaging import ProductionResult

    verdict = _admitted(args.seed)
    if verdict is None:
        return EXIT_BAD_INPUT
    if not verdict.admitted:
        print_verdict(args.seed, verdict)
        err.print("nothing started: admission would refuse the seed")
        return EXIT_NO
    try:
        options = ProductionOptions(**json.loads(args.options)) if args.options else None
    except (ValueError, TypeError) as e:
        err.print(f"[red]error:[/] --options: {escape(str(e))}")
        return EXIT_BAD_INPUT
    assert verdict.checked is not None  # admitted
    seed_id = verdict.checked.manifest.seed_id
    wid = args.workflow_id or f"{seed_id}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}"
    arg = TaskProductionInput(seed=str(args.seed.resolve()), options=options)
    return asyncio.run(_submit(args.address, wid, arg, ProductionResult, args.wait))


async def _submit(address, wid: str, arg, result_type, wait: bool) -> int:
    from temporalio.client import WorkflowFailureError

    from workflows.task_production import STAGES

    handle = await start_workflow(address, "TaskProduction", arg, wid, result_type)
    if handle is None:
        return EXIT_BAD_INPUT
    console.print(f"progress: temporal workflow query --workflow-id {wid} --type progress")
    if not wait:
        return EXIT_OK

    def measure(progress: dict):
        done = sum(1 for s in STAGES if progress["stages"].get(s) == "completed")
        stage = progress.get("stage") or ""
        counts = (progress.get("detail") or {}).get(stage, {})  # inside the stage: trials n/m by policy, ...
        return len(STAGES), done, " ".join([stage, ", ".join(f"{k} {v}" for k, v in counts.items())]).strip()

    try:
        result = await follow(handle, wid, measure)
    except WorkflowFailureError as e:
        progress = await handle.query("progress")
        err.print(f"[red]failed[/] in {progress.get('stage')}: {escape(str(progress.get('error') or e.cause or e))}")
        return EXIT_NO
    console.print(f"[green]published[/] {result.task_id} {result.task_version}: {escape(result.publication.path)}")
    for m in result.metrics:
        console.print(f"  {m.config}: avg@{m.k} {m.avg_at_k}, pass@{m.k} {m.pass_at_k}, {m.scored} scored, "
                      f"{m.exceptions} exceptions")
    return EXIT_OK
