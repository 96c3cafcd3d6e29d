"""What grading the render truth costs: the rule probe and the evidence renders of every
calibration delivery of each bundled seed, graded by the grader before issue 33 and by today's,
side by side in one run, and the mutation table of the enlarged operator set under both.

    sudo .venv/bin/python bench/grader_cost.py [--seeds table-model ...] [--rounds 3] \
        [--base c399b23] [--work var/bench/grader-cost] [--json out.json] [--no-sandbox]

``--base`` is checked out once into ``<work>/base-tree`` (``git worktree``; the bench needs the
repository's history): its ``verifiers/`` is the "before" grader, with the seed's task.json,
rubric.json, task_probes.py, start_scene.json and judge.json of that commit. Per seed:

* ``probe``: every calibration delivery (built once into ``--work`` with today's seed scripts)
  probed in one warm probe process per side, alternating, ``--rounds`` times; the per-delivery
  medians and their ratio (a delivery either side's grader fails on -- an older grader may
  crash on a delivery built with today's seed scripts -- is left out of both sides' medians and
  named in the row's ``crashed``);
* ``evidence``: every delivery's evidence renders, one render process each (as a trial renders
  them), with each side's renderer and view spec (the judge.json of its commit); medians and
  ratio;
* ``breakdown``: where the probe's time goes on the reference delivery -- opening the file,
  the probe render's set-up, each criterion (by method), for both sides;
* ``mutations``: today's operators (``mutations.py``) on the reference delivery, judged by
  each side's grader (killed / applicable, the survivors, the operators the task allows).

The grader may cost up to 3x before per delivery (issue 33); the table prints the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from rich.console import Console
from rich.progress import track

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from blender.runner import BlenderProcessError, blender_env, bpy_python  # noqa: E402
from sandbox.script_run import LOCAL  # noqa: E402
from verifiers import bpy_procs  # noqa: E402
from verifiers.calibration import samples_of  # noqa: E402
from verifiers.mutation_testing import allowed_operators, mutation_table  # noqa: E402
from verifiers.profiles import profile_of_task  # noqa: E402
from verifiers.scorer import TaskBundle  # noqa: E402

BASE = "c399b23"  # main before issue 33: the grader that read the viewport
TASK_FILES = ("task.json", "rubric.json", "task_probes.py", "start_scene.json", "judge.json")
EXIT_CODES = """\
exit codes:
  0  measured
  1  Blender failed, or --base is not in this repository's history
  2  bad usage"""

# Runs in bpy: the rule probe of one code folder on one delivery, each step timed.
BREAKDOWN = r'''
import json, sys, time
from pathlib import Path
code, blend, task, rubric = sys.argv[1:5]
sys.path.insert(0, code)
import bpy
import rule_probe, probe_core
times = {}
measure = probe_core.measure
def timed(probe, method, params):
    t = time.perf_counter()
    try:
        return measure(probe, method, params)
    finally:
        times[method] = times.get(method, 0.0) + time.perf_counter() - t
rule_probe.measure = timed
rule_probe.use_task_probes(Path(rubric))
plan = rule_probe.rule_plan(json.loads(Path(task).read_text()), json.loads(Path(rubric).read_text()))
baseline = rule_probe.load_baseline(Path(rubric))
t0 = time.perf_counter()
rule_probe.open_blend(Path(blend))
t1 = time.perf_counter()
rule_probe.measure_open_scene(plan, baseline)
t2 = time.perf_counter()
print(json.dumps({"open": t1 - t0, "measure": t2 - t1, "criteria": times,
                  "setup": max(0.0, (t2 - t1) - sum(times.values()))}))
'''


def base_tree(base: str, work: Path) -> Path:
    """The repository at ``base``, checked out into ``<work>/base-tree`` (once; a tree left at
    another commit by an earlier run is moved to ``base``)."""
    tree = work / "base-tree"

    def git(*args: str, at: Path = ROOT) -> str:
        return subprocess.run(["git", "-C", str(at), *args], check=True, capture_output=True, text=True).stdout.strip()

    wanted = git("rev-parse", f"{base}^{{commit}}")
    if (tree / "verifiers").is_dir():
        if git("rev-parse", "HEAD", at=tree) != wanted:
            git("checkout", "--detach", "--force", wanted, at=tree)
        return tree
    work.mkdir(parents=True, exist_ok=True)
    git("worktree", "add", "--detach", "--force", str(tree), wanted)
    return tree


def side_files(tree: Path, seed: str, folder: Path) -> tuple[Path, Path]:
    """The seed's grading files of one side, in ``folder``: (task.json, rubric.json)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in TASK_FILES:
        src = tree / "seeds" / seed / "draft" / name
        if src.is_file():
            shutil.copyfile(src, folder / name)
        else:
            (folder / name).unlink(missing_ok=True)
    return folder / "task.json", folder / "rubric.json"


def resolved_spec(tree: Path, judge: Path) -> dict | None:
    """The evidence view spec of ``judge`` as the code in ``tree`` resolves it (None: no VL)."""
    if not judge.is_file():
        return None
    code = ("import json, sys; from verifiers.evidence import resolve_spec; "
            "print(json.dumps(resolve_spec(json.load(open(sys.argv[1])).get('evidence'))))")
    out = subprocess.run([sys.executable, "-c", code, str(judge)], cwd=tree, check=True, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(tree)})
    return json.loads(out.stdout)


def deliveries(bundle: TaskBundle, work: Path, sandbox) -> list[Path]:
    start = work / "inputs" / "start.blend"
    if not start.is_file():
        bundle.build_start(work, sandbox)
    out = []
    for s in samples_of(bundle):
        blend = start if s.script is None else work / "deliveries" / f"{s.slug}.blend"
        if s.script is not None and not blend.is_file():
            bpy_procs.apply_script(start, s.script, blend, sandbox=sandbox)
        out.append(blend)
    return out


def timed(fn) -> float:
    t = time.monotonic()
    fn()
    return time.monotonic() - t


def render_once(tree: Path, blend: Path, spec: dict, out: Path) -> None:
    """One delivery's evidence with the renderer of ``tree``, in its own bpy process."""
    shutil.rmtree(out, ignore_errors=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    jobs = out.with_suffix(".jobs.json")
    jobs.write_text(json.dumps([{"blend": str(blend), "spec": spec, "out": str(out)}]), encoding="utf-8")
    subprocess.run([bpy_python(), str(tree / "verifiers" / "render_evidence.py"), "--jobs", str(jobs)],
                   check=True, capture_output=True, env=blender_env(), timeout=1800)


def breakdown(tree: Path, blend: Path, task: Path, rubric: Path) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(BREAKDOWN)
    try:
        out = subprocess.run([bpy_python(), fh.name, str(tree / "verifiers"), str(blend), str(task), str(rubric)],
                             check=True, capture_output=True, text=True, env=blender_env(), timeout=1800)
    finally:
        os.unlink(fh.name)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return {"open_s": round(got["open"], 3), "measure_s": round(got["measure"], 3),
            "setup_s": round(got["setup"], 3),
            "criteria_s": {k: round(v, 3) for k, v in sorted(got["criteria"].items(), key=lambda kv: -kv[1])}}


def mutations(tree: Path, blend: Path, task: Path, rubric: Path, work: Path, sandbox) -> dict:
    """Today's operators on ``blend``, judged by the grader in ``tree``."""
    code = work / "code"
    shutil.rmtree(code, ignore_errors=True)
    shutil.copytree(tree / "verifiers", code, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(ROOT / "verifiers" / "mutations.py", code / "mutations.py")
    doc = json.loads(task.read_text(encoding="utf-8"))
    with bpy_procs.WarmProbe(sandbox=sandbox, code=code) as probe:
        probe.probe(blend, task, rubric, work / "warm-up.json")  # the process started and loaded first
        started = time.monotonic()
        rows = probe.mutate(blend, task, rubric)
        seconds = time.monotonic() - started
    table = mutation_table(rows, profile_of_task(doc), doc, None, allowed_operators(doc))
    return {"seconds": round(seconds, 2),
            "killed": table["killed"], "applicable": table["applicable"], "survivors": table["survivors"],
            "allowed": sorted(table["allowed"]),
            "operators": {r["operator"]: ("allowed" if r["allowed"] else "killed" if r["killed"] else
                                          "survived" if r["applicable"] else "n/a") for r in table["operators"]}}


def median_ms(values: list[float]) -> float:
    return round(1000 * statistics.median(values), 1)


def bench_seed(seed: str, tree: Path, args, sandbox, err: Console) -> dict:
    bundle = TaskBundle.load(ROOT / "seeds" / seed / "draft")
    work = args.work / seed
    blends = deliveries(bundle, work, sandbox)
    sides = {"before": (tree, *side_files(tree, seed, work / "before")),
             "after": (ROOT, *side_files(ROOT, seed, work / "after"))}
    row: dict = {"seed": seed, "deliveries": len(blends)}
    if args.mutations_only:
        row["mutations"] = {side: mutations(code, blends[0], task, rubric, work / f"mutate-{side}", sandbox)
                            for side, (code, task, rubric) in sides.items()}
        return row
    # Per delivery index, each side's seconds; a delivery one side's grader crashes on is left
    # out of both sides' medians (paired) and named in the row.
    probe_t: dict[str, dict[int, list[float]]] = {"before": {}, "after": {}}
    render_t: dict[str, dict[int, list[float]]] = {"before": {}, "after": {}}
    crashed: dict[int, str] = {}
    specs = {side: resolved_spec(code, task.with_name("judge.json")) for side, (code, task, _) in sides.items()}
    probes = {side: bpy_procs.WarmProbe(sandbox=sandbox, code=code / "verifiers")
              for side, (code, _, _) in sides.items()}
    try:
        for side, (_, task, rubric) in sides.items():  # warm-up: each process started and loaded
            probes[side].probe(blends[0], task, rubric, work / f"warmup-{side}.json")
        for r in range(args.rounds):
            for i, blend in enumerate(blends):
                for side, (code, task, rubric) in sides.items():
                    if i in crashed:
                        continue
                    try:
                        probe_t[side].setdefault(i, []).append(timed(lambda: probes[side].probe(
                            blend, task, rubric, work / f"{side}-{i}.json")))
                        if specs[side] is not None:
                            spec: dict = specs[side] or {}
                            render_t[side].setdefault(i, []).append(timed(lambda: render_once(
                                code, blend, spec, work / "evidence" / f"{side}-{i}")))
                    except (BlenderProcessError, subprocess.CalledProcessError) as exc:
                        crashed[i] = f"{blend.stem}: the {side} grader failed ({str(exc).splitlines()[0][:160]})"
                        err.log(f"{seed}: {crashed[i]}; left out of both sides")
            err.log(f"{seed}: round {r + 1}/{args.rounds}")
    finally:
        for p in probes.values():
            p.close()

    def pooled(times: dict[int, list[float]]) -> list[float]:
        return [t for i, ts in times.items() if i not in crashed for t in ts]

    row["crashed"] = sorted(crashed.values())
    row["probe_ms"] = {side: median_ms(pooled(t)) for side, t in probe_t.items()}
    row["probe_ms"]["ratio"] = round(row["probe_ms"]["after"] / row["probe_ms"]["before"], 2)
    if pooled(render_t["after"]):
        row["evidence_ms"] = {side: median_ms(pooled(t)) for side, t in render_t.items()}
        row["evidence_ms"]["ratio"] = round(row["evidence_ms"]["after"] / row["evidence_ms"]["before"], 2)
    per = {side: row["probe_ms"][side] + (row.get("evidence_ms") or {}).get(side, 0.0) for side in sides}
    row["per_delivery_ms"] = {**per, "ratio": round(per["after"] / per["before"], 2)}
    row["breakdown"] = {side: breakdown(code, blends[0], task, rubric) for side, (code, task, rubric) in sides.items()}
    row["mutations"] = {side: mutations(code, blends[0], task, rubric, work / f"mutate-{side}", sandbox)
                        for side, (code, task, rubric) in sides.items()}
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/grader_cost.py", description=__doc__, epilog=EXIT_CODES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", nargs="*", default=None, help="bundled seeds (default: all)")
    ap.add_argument("--rounds", type=int, default=3, help="repetitions of each measurement (default 3)")
    ap.add_argument("--base", default=BASE, help=f"the commit whose grader is the 'before' (default {BASE})")
    ap.add_argument("--work", type=Path, default=ROOT / "var" / "bench" / "grader-cost",
                    help="where deliveries are built once and kept (default var/bench/grader-cost)")
    ap.add_argument("--json", type=Path, default=None, help="write every figure as JSON here")
    ap.add_argument("--no-sandbox", action="store_true", help="plain bpy subprocesses")
    ap.add_argument("--before-out", type=Path, default=None,
                    help="write each seed's 'before' mutation table here (the review site's "
                         "review_site/mutation_before.json)")
    ap.add_argument("--mutations-only", action="store_true",
                    help="only the mutation phase: today's operators on the reference delivery, timed and judged "
                         "by each side's grader (e.g. --base <an earlier commit of this issue> for a cost cut)")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    seeds = args.seeds or sorted(p.name for p in (ROOT / "seeds").iterdir() if (p / "draft").is_dir())
    sandbox = LOCAL if args.no_sandbox else None
    err = Console(stderr=True)
    try:
        tree = base_tree(args.base, args.work)
        rows = [bench_seed(seed, tree, args, sandbox, err)
                for seed in track(seeds, "seeds", console=err, transient=True)]
    except subprocess.CalledProcessError as exc:
        print(f"error: {' '.join(map(str, exc.cmd))}: {(exc.stderr or '').strip()[-2000:]}", file=sys.stderr)
        return 1
    except BlenderProcessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{'seed':18} {'mutation phase s before':>23} {'after':>7} {'x':>5} {'killed before':>13} {'after':>7}")
    for r in rows:
        m = r["mutations"]
        kb, ka = (f"{m[k]['killed']}/{m[k]['applicable']}" for k in ("before", "after"))
        ratio = m["after"]["seconds"] / m["before"]["seconds"] if m["before"]["seconds"] else float("nan")
        print(f"{r['seed']:18} {m['before']['seconds']:23.2f} {m['after']['seconds']:7.2f} {ratio:5.2f} {kb:>13} {ka:>7}")
    if args.mutations_only:
        return _write(args, rows)
    print(f"{'seed':18} {'probe ms before':>15} {'after':>8} {'x':>5} {'evidence ms before':>18} {'after':>8} "
          f"{'x':>5} {'per delivery x':>14} {'killed before':>13} {'after':>7}")
    for r in rows:
        p, e, d, m = r["probe_ms"], r.get("evidence_ms"), r["per_delivery_ms"], r["mutations"]
        ev = f"{e['before']:18.1f} {e['after']:8.1f} {e['ratio']:5.2f}" if e else f"{'-':>18} {'-':>8} {'-':>5}"
        kb, ka = (f"{m[k]['killed']}/{m[k]['applicable']}" for k in ("before", "after"))
        print(f"{r['seed']:18} {p['before']:15.1f} {p['after']:8.1f} {p['ratio']:5.2f} {ev} {d['ratio']:14.2f} "
              f"{kb:>13} {ka:>7}")
    for r in rows:
        m, b = r["mutations"], r["breakdown"]["after"]
        top = ", ".join(f"{k} {v:.2f}s" for k, v in list(b["criteria_s"].items())[:4])
        print(f"{r['seed']}: survivors before: {', '.join(m['before']['survivors']) or '-'}; after: "
              f"{', '.join(m['after']['survivors']) or '-'}"
              + (f" (allowed: {', '.join(m['after']['allowed'])})" if m["after"]["allowed"] else ""))
        if r.get("crashed"):
            print(f"{r['seed']}: {len(r['crashed'])} of {r['deliveries']} deliveries left out of both medians: "
                  + "; ".join(r["crashed"]))
        print(f"{r['seed']}: after, on the reference: open {b['open_s']:.2f}s, render set-up {b['setup_s']:.2f}s, "
              f"criteria {b['measure_s'] - b['setup_s']:.2f}s ({top})")
    return _write(args, rows)


def _write(args, rows: list[dict]) -> int:
    """The JSON figures (``--json``) and the before tables (``--before-out``)."""
    result = {"bench": "grader_cost", "base": args.base, "rounds": args.rounds,
              "isolation": "local" if args.no_sandbox else "sandbox",
              "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                          "python": platform.python_version(), "bpy": version("bpy")},
              "seeds": rows}
    if args.before_out:
        before = json.loads(args.before_out.read_text(encoding="utf-8")) if args.before_out.is_file() else {}
        before.update({"grader": args.base, "measured_by": "bench/grader_cost.py"})
        tasks = before.setdefault("tasks", {})
        for r in rows:
            tasks[json.loads((ROOT / "seeds" / r["seed"] / "draft" / "task.json").read_text())["task_id"]] = (
                {k: r["mutations"]["before"][k] for k in ("killed", "applicable", "survivors", "operators")})
        args.before_out.write_text(json.dumps(before, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
