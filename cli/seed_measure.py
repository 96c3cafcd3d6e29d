"""`arkevo seed measure`: what each criterion measures on the reference, next to the rubric.

Builds the start and reference scenes from the seed's reference project and applies the
reference solution, in the sandbox as stage 03 does, then probes the result with the draft's
rubric (a warm probe, the verifier's code) and prints, per criterion, what it measured beside
the expected value and tolerance. A criterion whose method needs an `expected` the rubric does
not give yet is probed with a stand-in (the measurement does not depend on it) and printed with
the measured value to copy in. It never writes the rubric: the author decides what is right.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from cli.common import EXIT_BAD_INPUT, EXIT_NO, EXIT_OK, console, err

TO_FILL = "expected"  # the one param a stand-in is made for


def stand_in(schema: dict) -> Any:
    """A value of the param's JSON Schema type (the first choice of an anyOf)."""
    if "anyOf" in schema:
        return stand_in(schema["anyOf"][0])
    kind = schema.get("type")
    if kind == "array":
        item = stand_in(schema.get("items", {"type": "number"}))
        return [item] * max(int(schema.get("minItems", 1)), 1)
    if kind == "integer":
        return max(int(schema.get("minimum", 0)), 0)
    if kind == "number":
        return 0.0
    if kind == "string":
        return "?"
    if kind == "boolean":
        return False
    return None


def fill_missing_expected(rubric: dict, methods: dict) -> list[str]:
    """Give every criterion whose method requires `expected` and lacks it a stand-in (in
    place); the ids filled."""
    filled = []
    for criterion in rubric.get("criteria", []):
        method = methods.get(criterion.get("method"))
        params = criterion.setdefault("params", {})
        if method is not None and TO_FILL in method.required and TO_FILL not in params:
            params[TO_FILL] = stand_in(method.params.get(TO_FILL, {}))
            filled.append(criterion["id"])
    return filled


def _short(value: Any) -> str:
    from verifiers.score_delivery import short_value

    return short_value(value, 60, (", ", ": "))  # spaced: a value the author copies into the rubric


def measure(seed: Path, *, no_sandbox: bool = False) -> int:
    from activities.admission import judge_seed
    from cli.seed import print_verdict
    from sandbox.script_run import LOCAL
    from verifiers import bpy_procs
    from verifiers.probe_catalogue import rule_methods
    from verifiers.score_delivery import RUN_FAILURES, print_run_failure
    from verifiers.scorer import TaskBundle

    if not (seed / "draft" / "rubric.json").is_file():
        err.print(f"[red]error:[/] {escape(str(seed))}: no draft/rubric.json (a seed folder with a draft)")
        return EXIT_BAD_INPUT
    with tempfile.TemporaryDirectory(prefix="arkevo-measure-") as tmp:
        # A copy with stand-ins: the seed folder itself is never written.
        work = Path(tmp)
        copied = work / seed.name
        shutil.copytree(seed, copied, ignore=shutil.ignore_patterns("__pycache__"))
        rubric_path = copied / "draft" / "rubric.json"
        try:
            rubric = json.loads(rubric_path.read_text(encoding="utf-8"))
        except ValueError as e:
            err.print(f"[red]error:[/] {escape(str(seed))}/draft/rubric.json: not JSON: {escape(str(e))}")
            return EXIT_NO
        probes = copied / "draft" / "task_probes.py"
        filled = fill_missing_expected(rubric, rule_methods(probes if probes.is_file() else None))
        rubric_path.write_text(json.dumps(rubric, indent=2), encoding="utf-8")
        verdict = judge_seed(copied, str(seed), None)
        if not verdict.admitted:  # named as the seed's own files, not the copy's
            verdict.findings = [dataclasses.replace(f, message=f.message.replace(str(copied), str(seed)))
                                for f in verdict.findings]
            return print_verdict(seed, verdict)
        sandbox = LOCAL if no_sandbox else None
        bundle = TaskBundle.load(copied / "draft")
        try:
            console.print(f"building the start scene and applying {escape(str(seed))}/draft/solution/solve.py")
            start = bundle.build_start(work / "workspace", sandbox)
            delivery = bpy_procs.apply_script(start, bundle.solution, work / "reference.blend", sandbox=sandbox)
            with bpy_procs.WarmProbe(sandbox=sandbox) as probe:
                report = probe.probe(delivery, bundle.task_path, bundle.rubric_path, work / "report.json",
                                     bundle.task_probes)
        except RUN_FAILURES as exc:
            return print_run_failure(console, exc)
    given = {c["id"]: c.get("params", {}) for c in rubric.get("criteria", [])}  # stand-ins add `expected` only
    table = Table(title=f"{bundle.task['task_id']}: the reference solution, measured by the rubric")
    for column in ("id", "method", "measured", "expected", "tolerance", "score", "pass"):
        table.add_column(column, overflow="fold")
    failing = []
    for c in report["criteria"]:
        to_copy = c["id"] in filled
        expected = f"[yellow]not set: copy {escape(_short(c['measured']))}[/]" if to_copy else escape(_short(c["expected"]))
        params = given.get(c["id"], {})
        tolerance = params.get("tolerance", params.get("tol", "-"))
        passed = "-" if to_copy else ("[green]yes[/]" if c["passed"] else "[red]no[/]")
        if not to_copy and not c["passed"]:
            failing.append(c["id"])
        table.add_row(c["id"], c["method"], escape(_short(c["measured"])), expected, escape(str(tolerance)),
                      f"{c['score']:.3f}", passed)
    console.print(table)
    for c in report["criteria"]:
        if c["id"] in failing or c["id"] in filled:
            console.print(f"  {c['id']}: {escape(str(c.get('detail', '')))}")
    if filled:
        console.print(f"{len(filled)} criterion(s) without an expected value: {', '.join(filled)} "
                      "(the measured value is the reference's; the rubric was not written)")
    if failing:
        console.print(f"[red]the reference fails {', '.join(failing)}[/]: the rubric or the solution is wrong")
        return EXIT_NO
    return EXIT_OK
