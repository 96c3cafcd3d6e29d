"""What hardening the graders costs: the calibration wall with and without mutation testing,
and the rule probe's time per delivery under the hardened rubric against the rubric before
issue 22 -- measured side by side in one run, on every bundled seed.

    sudo .venv/bin/python bench/grader_cost.py [--seeds table-model ...] [--rounds 3] \
        [--base 5aa657e] [--work var/bench/grader-cost] [--json out.json] [--no-sandbox]

Per seed:

* ``calibration``: ``verifiers.calibration.calibrate`` (rule probe, no renders, no judge:
  what mutation testing adds is Blender work, not rendering) run twice, alternating,
  ``mutate=False`` then ``mutate=True``; ``added_s`` = the difference of the medians, and
  ``mutation_s`` the mutation phase alone (one warm process: open, apply, probe, re-open per
  operator).  Target: at most 30 s per task on 2 cores.
* ``mutations``: the gaming operators on the reference delivery, judged under the rubric at
  ``--base`` and under today's (killed / applicable, and the survivors): the before and after
  of the grader's attack surface.
* ``probe``: every calibration delivery of the seed (built once into ``--work``) probed in one
  warm probe process with the seed's rubric at ``--base`` (the pre-hardening commit; read with
  ``git show``, so the bench needs the repository's history) and with today's, alternating;
  the per-delivery medians and their ratio.  Target: within 1.5x today's median.

Blender runs in the trial sandbox as calibration runs it, or unisolated with ``--no-sandbox``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
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

from blender.runner import BlenderProcessError  # noqa: E402
from sandbox.script_run import LOCAL  # noqa: E402
from verifiers import bpy_procs  # noqa: E402
from verifiers.calibration import calibrate, samples_of  # noqa: E402
from verifiers.mutation_testing import allowed_operators, mutation_table  # noqa: E402
from verifiers.profiles import get_profile, profile_of_task  # noqa: E402
from verifiers.scorer import TaskBundle  # noqa: E402

BASE = "5aa657e"  # main before issue 22: the rubrics every bundled seed had when it was gamed
EXIT_CODES = """\
exit codes:
  0  measured
  1  Blender failed, or --base is not in this repository's history
  2  bad usage"""


def old_rubric(seed: str, base: str, folder: Path) -> tuple[Path, Path]:
    """The seed's task.json and rubric.json at ``base``, written into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("task.json", "rubric.json"):
        text = subprocess.run(["git", "-C", str(ROOT), "show", f"{base}:seeds/{seed}/draft/{name}"],
                              check=True, capture_output=True, text=True).stdout
        (folder / name).write_text(text, encoding="utf-8")
    return folder / "task.json", folder / "rubric.json"


def deliveries(bundle: TaskBundle, work: Path, sandbox) -> list[Path]:
    start = work / "inputs" / "start.blend"
    if not start.is_file():
        bundle.build_start(work, sandbox)
    out = []
    for s in samples_of(bundle):
        blend = start if s.script is None else work / "deliveries" / f"{s.slug}.blend"
        if not blend.is_file():
            bpy_procs.apply_script(start, s.script, blend, sandbox=sandbox)
        out.append(blend)
    return out


def timed(fn) -> float:
    t = time.monotonic()
    fn()
    return time.monotonic() - t


def bench_seed(seed: str, args, sandbox, err: Console) -> dict:
    draft = ROOT / "seeds" / seed / "draft"
    bundle = TaskBundle.load(draft)
    work = args.work / seed
    blends = deliveries(bundle, work, sandbox)
    task_old, rubric_old = old_rubric(seed, args.base, work / "base")
    old_t: list[float] = []
    new_t: list[float] = []
    with bpy_procs.WarmProbe(sandbox=sandbox) as probe:
        probe.probe(blends[0], bundle.task_path, bundle.rubric_path, work / "warmup.json")
        tables = {}
        for label, task, rubric in (("base", task_old, rubric_old),
                                    ("hardened", bundle.task_path, bundle.rubric_path)):
            doc = json.loads(task.read_text(encoding="utf-8"))
            rows = probe.mutate(blends[0], task, rubric)  # blends[0]: the reference delivery
            tables[label] = mutation_table(rows, profile_of_task(doc), doc, None, allowed_operators(doc))
        for _ in range(args.rounds):
            for i, blend in enumerate(blends):
                old_t.append(timed(lambda: probe.probe(blend, task_old, rubric_old, work / f"old-{i}.json")))
                new_t.append(timed(lambda: probe.probe(blend, bundle.task_path, bundle.rubric_path,
                                                       work / f"new-{i}.json")))
    without: list[float] = []
    with_: list[float] = []
    mutation: list[float] = []
    profile = [get_profile("rule-only")]
    for r in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="arkevo-bench-") as tmp:
            without.append(timed(lambda: calibrate(draft, Path(tmp) / "a", profiles=profile, judge=None,
                                                   cache=None, sandbox=sandbox, mutate=False)))
            phases: dict[str, float] = {}

            def progress(stage: str, done: int, total: int) -> None:
                phases.setdefault(f"{stage}:{done}", time.monotonic())
            with_.append(timed(lambda: calibrate(draft, Path(tmp) / "b", profiles=profile, judge=None,
                                                 cache=None, sandbox=sandbox, mutate=True,
                                                 progress=progress)))
            mutation.append(phases["mutations:1"] - phases["mutations:0"])
        err.log(f"{seed}: round {r + 1}/{args.rounds}")
    med = statistics.median
    return {
        "seed": seed, "deliveries": len(blends),
        "mutations": {label: {"killed": t["killed"], "applicable": t["applicable"], "survivors": t["survivors"],
                              "allowed": sorted(t["allowed"])} for label, t in tables.items()},
        "probe_ms": {"base": round(1000 * med(old_t), 1), "hardened": round(1000 * med(new_t), 1),
                     "ratio": round(med(new_t) / med(old_t), 2)},
        "calibration_s": {"without_mutations": round(med(without), 2), "with_mutations": round(med(with_), 2),
                          "added_s": round(med(with_) - med(without), 2), "mutation_s": round(med(mutation), 2)},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/grader_cost.py", description=__doc__, epilog=EXIT_CODES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", nargs="*", default=None, help="bundled seeds (default: all)")
    ap.add_argument("--rounds", type=int, default=3, help="repetitions of each measurement (default 3)")
    ap.add_argument("--base", default=BASE, help=f"commit whose rubrics are the 'before' (default {BASE})")
    ap.add_argument("--work", type=Path, default=ROOT / "var" / "bench" / "grader-cost",
                    help="where deliveries are built once and kept (default var/bench/grader-cost)")
    ap.add_argument("--json", type=Path, default=None, help="write every figure as JSON here")
    ap.add_argument("--no-sandbox", action="store_true", help="plain bpy subprocesses")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    seeds = args.seeds or sorted(p.name for p in (ROOT / "seeds").iterdir() if (p / "draft").is_dir())
    sandbox = LOCAL if args.no_sandbox else None
    err = Console(stderr=True)
    try:
        rows = [bench_seed(seed, args, sandbox, err) for seed in track(seeds, "seeds", console=err, transient=True)]
    except subprocess.CalledProcessError as exc:
        print(f"error: {' '.join(exc.cmd)}: {exc.stderr.strip()}", file=sys.stderr)
        return 1
    except BlenderProcessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{'seed':18} {'killed base':>11} {'hardened':>9} {'probe ms base':>13} {'hardened':>9} {'ratio':>6} "
          f"{'cal s w/o':>10} {'with':>6} {'added':>6} {'mutation':>9}")
    for r in rows:
        p, c, m = r["probe_ms"], r["calibration_s"], r["mutations"]
        kb, kh = (f"{m[k]['killed']}/{m[k]['applicable']}" for k in ("base", "hardened"))
        print(f"{r['seed']:18} {kb:>11} {kh:>9} {p['base']:13.1f} {p['hardened']:9.1f} {p['ratio']:6.2f} "
              f"{c['without_mutations']:10.2f} {c['with_mutations']:6.2f} {c['added_s']:6.2f} {c['mutation_s']:9.2f}")
    for r in rows:
        print(f"{r['seed']}: base survivors: {', '.join(r['mutations']['base']['survivors']) or '-'}; "
              f"hardened survivors: {', '.join(r['mutations']['hardened']['survivors']) or '-'}"
              + (f" (allowed: {', '.join(r['mutations']['hardened']['allowed'])})"
                 if r['mutations']['hardened']['allowed'] else ""))
    result = {"bench": "grader_cost", "base": args.base, "rounds": args.rounds,
              "isolation": "local" if args.no_sandbox else "sandbox",
              "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                          "python": platform.python_version(), "bpy": version("bpy")},
              "seeds": rows}
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
