"""Mutation testing of one delivery by two graders, side by side: the probe code of ``--base`` (a
commit, checked out once as a ``git worktree`` by grader_cost.base_tree) and today's, each in one warm probe process.  Prints
each side's wall and every operator whose rows differ (any criterion's score or measured value,
or its error), so a change meant to make the grader cheaper is shown to give the same answers.

    .venv/bin/python bench/mutation_rows_compare.py --base 06fc0eb [--after 76444e8] \\
        --blend <delivery.blend> --tests <publication>/task/tests [--base-tests seeds/<seed>/draft] \\
        [--operators a,b] [--no-sandbox]

Across a start-scene snapshot version the two sides read different snapshots (``--base-tests``)
and their rows differ by design; the walls still compare.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.grader_cost import base_tree  # noqa: E402
from sandbox.script_run import LOCAL  # noqa: E402
from verifiers import bpy_procs  # noqa: E402


def rows_of(code: Path, blend: Path, tests: Path, operators: list[str] | None, sandbox) -> tuple[float, list[dict]]:
    started = time.monotonic()
    with bpy_procs.WarmProbe(sandbox=sandbox, code=code) as probe:
        rows = probe.mutate(blend, tests / "task.json", tests / "rubric.json", operators=operators)
    return time.monotonic() - started, rows


def by_criterion(row: dict) -> dict:
    return {c["id"]: (c["score"], c.get("measured")) for c in row["criteria"] or []}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="the commit whose grader is the before")
    ap.add_argument("--after", default="", help="the commit whose grader is the after (default: the working tree)")
    ap.add_argument("--blend", type=Path, required=True, help="a good delivery (the operators' starting point)")
    ap.add_argument("--tests", type=Path, required=True, help="the task's tests/ folder (task.json, rubric.json, ...)")
    ap.add_argument("--base-tests", type=Path, default=None,
                    help="the before side's tests/ folder, where its code reads another start-scene snapshot "
                         "version (default: --tests; a path relative to the before tree, such as "
                         "seeds/robot-carry/draft, is read there)")
    ap.add_argument("--operators", default="", help="comma-separated operator names (default: all)")
    ap.add_argument("--work", type=Path, default=ROOT / "var" / "bench" / "mutation-rows",
                    help="where each side's tree is checked out and kept (default var/bench/mutation-rows)")
    ap.add_argument("--no-sandbox", action="store_true", help="run Blender unisolated (your own machine)")
    args = ap.parse_args(argv)
    operators = [o for o in args.operators.split(",") if o] or None
    sandbox = LOCAL if args.no_sandbox else None
    tree = base_tree(args.base, args.work / "before")
    base_tests = args.base_tests if args.base_tests is None or args.base_tests.is_absolute() else tree / args.base_tests
    before = rows_of(tree / "verifiers", args.blend, base_tests or args.tests, operators, sandbox)
    print(f"before ({args.base}): {before[0]:.1f} s", flush=True)
    code = base_tree(args.after, args.work / "after") / "verifiers" if args.after else ROOT / "verifiers"
    after = rows_of(code, args.blend, args.tests, operators, sandbox)
    print(f"after ({args.after or 'working tree'}): {after[0]:.1f} s   ratio {after[0] / before[0]:.2f}", flush=True)
    old, new = {r["operator"]: r for r in before[1]}, {r["operator"]: r for r in after[1]}
    differ = 0
    for name in sorted(set(old) & set(new)):
        a, b = by_criterion(old[name]), by_criterion(new[name])
        if a != b or old[name]["error"] != new[name]["error"]:
            differ += 1
            print("differs:", name, {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)})
    print(f"operators on both sides: {len(set(old) & set(new))}; only before: {len(set(old) - set(new))}; "
          f"only after: {len(set(new) - set(old))}; rows that differ: {differ}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
