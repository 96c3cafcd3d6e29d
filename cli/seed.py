"""`arkevo seed`: the offline half of the pipeline for a seed's author (docs/seed-authoring.md).

    arkevo seed check seeds/my-seed          # everything stage 02 decides; exit 0 only if it admits
    arkevo seed check seeds/my-seed --json   # the same findings as JSON

`check` runs admission's own judgement (`activities.admission.judge_seed`: the whole-seed
check, the Blender version, the draft against its scoring profile and judge questions, the
requirement ledger and the privacy scan) and writes nothing. Where admission stops at its first
finding, `check` lists every finding whose check could run; the first is the one admission
raises, with the same error type.
"""

from __future__ import annotations

import json
from pathlib import Path

from rich.markup import escape

from cli.common import EXIT_BAD_INPUT, EXIT_NO, EXIT_OK, console, err
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
    p.add_argument("seed", type=Path, help="the seed folder (the one holding seed.json)")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")


def handlers() -> dict:
    return {"check": cmd_check}


def cmd_check(args) -> int:
    from activities.admission import judge_seed
    from cli.common import worker_store

    seed: Path = args.seed
    if not seed.is_dir():
        err.print(f"[red]error:[/] {escape(str(seed))}: no such seed folder")
        return EXIT_BAD_INPUT
    try:
        store = worker_store()  # cached .blend text extractions, read only
    except Exception:  # noqa: BLE001 - no store here: .blend texts are pending, as on a new one
        store = None
    verdict = judge_seed(seed, str(args.seed), store)
    rows = [{**f.as_dict(), "see": SEE_BY_TYPE.get(f.error_type) or SEE.get(f.file, "docs/contracts.md")}
            for f in verdict.findings]
    if args.json:
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
