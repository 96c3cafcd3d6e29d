"""Rule-probe throughput: a warm bpy probe process against a fresh Blender process per probe,
side by side in one run, on the bundled deliverables (both seeds' calibration deliveries:
reference, untouched input, every defect and variant).

    sudo .venv/bin/python bench/probe_throughput.py [--rounds 3] [--work var/bench/deliverables] \
        [--json out.json] [--no-sandbox]

Each round probes every deliverable once per mode, sequentially (one core's worth of work):
``fresh`` = ``python rule_probe.py ...`` per probe (what a packaged task's test.sh does);
``warm`` = one ``probe_server.py`` process kept across all rounds (its start-up is reported
apart, and included in the warm total).  Reports are compared: both modes must agree exactly.
Both run as calibration runs them: in the trial sandbox (a fresh sandbox per fresh probe, one
sandbox for the warm process), or with ``--no-sandbox`` as plain subprocesses.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from importlib.metadata import version
from pathlib import Path

from rich.console import Console
from rich.progress import track

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sandbox.script_run import LOCAL  # noqa: E402
from verifiers import bpy_procs  # noqa: E402
from verifiers.calibration import samples_of  # noqa: E402
from verifiers.scorer import TaskBundle  # noqa: E402

SEEDS = ("robot-carry", "table-model")
EXIT_CODES = """\
exit codes:
  0  measured; both modes' reports agree on every deliverable
  1  the modes' reports differ for some deliverable (both kept in <work>/reports), or Blender
     failed
  2  bad usage"""


def bundled_deliverables(work: Path, sandbox=None) -> list[tuple[str, TaskBundle, Path]]:
    """(label, task bundle, delivery) for every calibration sample of both seeds; built once
    into ``work`` (apply_script on a freshly built start.blend) and reused afterwards."""
    out = []
    for seed in SEEDS:
        bundle = TaskBundle.load(ROOT / "seeds" / seed / "draft")
        folder = work / seed
        start = folder / "inputs" / "start.blend"
        if not start.is_file():
            bundle.build_start(folder, sandbox)
        for s in samples_of(bundle):
            delivery = start if s.script is None else folder / "deliveries" / f"{s.slug}.blend"
            if not delivery.is_file():
                bpy_procs.apply_script(start, s.script, delivery, sandbox=sandbox)
            out.append((f"{seed}/{s.name}", bundle, delivery))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/probe_throughput.py", description=__doc__, epilog=EXIT_CODES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3, help="probes of every deliverable per mode (default 3)")
    ap.add_argument("--work", type=Path, default=ROOT / "var" / "bench" / "deliverables",
                    help="where the deliverables are built once and kept (default var/bench/deliverables)")
    ap.add_argument("--json", type=Path, default=None, help="write every figure as JSON here")
    ap.add_argument("--no-sandbox", action="store_true", help="plain subprocesses, as before issue 7")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    sandbox = LOCAL if args.no_sandbox else None

    t0 = time.monotonic()
    items = bundled_deliverables(args.work, sandbox)
    build_s = time.monotonic() - t0
    reports = args.work / "reports"
    reports.mkdir(parents=True, exist_ok=True)

    fresh: dict[str, list[float]] = {label: [] for label, _, _ in items}
    warm: dict[str, list[float]] = {label: [] for label, _, _ in items}
    mismatches = []
    started = time.monotonic()
    probe = bpy_procs.WarmProbe(sandbox=sandbox)
    probe._start()  # measure start-up apart from the per-probe cost
    warm_startup = time.monotonic() - started
    try:
        # The bar on stderr, gone when done: stdout keeps the table alone.
        for label, bundle, blend in track(items * args.rounds, "probes (fresh + warm)",
                                          console=Console(stderr=True), transient=True):
            slug = label.replace("/", "_").replace(":", "-")
            t = time.monotonic()
            a = bpy_procs.probe_fresh(blend, bundle.task_path, bundle.rubric_path, reports / f"{slug}.fresh.json",
                                      sandbox=sandbox)
            fresh[label].append(time.monotonic() - t)
            t = time.monotonic()
            b = probe.probe(blend, bundle.task_path, bundle.rubric_path, reports / f"{slug}.warm.json")
            warm[label].append(time.monotonic() - t)
            if a != b:
                mismatches.append(label)
    finally:
        probe.close()

    n = len(items) * args.rounds
    fresh_total = sum(map(sum, fresh.values()))
    warm_total = sum(map(sum, warm.values())) + warm_startup
    rows = [{"deliverable": label,
             "fresh_ms": round(1000 * statistics.median(fresh[label]), 1),
             "warm_ms": round(1000 * statistics.median(warm[label]), 1)} for label, _, _ in items]
    result = {
        "bench": "probe_throughput",
        "machine": {"cpus": __import__("os").cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version(), "bpy": version("bpy")},
        "isolation": "local" if args.no_sandbox else "sandbox",
        "rounds": args.rounds, "deliverables": len(items), "probes_per_mode": n,
        "deliverable_build_s": round(build_s, 2),
        "fresh": {"total_s": round(fresh_total, 2), "probes_per_s": round(n / fresh_total, 2),
                  "median_ms": round(1000 * statistics.median(sum(fresh.values(), [])), 1)},
        "warm": {"total_s_incl_startup": round(warm_total, 2), "startup_s": round(warm_startup, 2),
                 "probes_per_s": round(n / warm_total, 2),
                 "probes_per_s_steady": round(n / (warm_total - warm_startup), 2),
                 "median_ms": round(1000 * statistics.median(sum(warm.values(), [])), 1)},
        "speedup": round(fresh_total / warm_total, 1),
        "reports_identical": not mismatches,
        "per_deliverable": rows,
    }
    print(f"{'deliverable':44} {'fresh ms':>9} {'warm ms':>8}")
    for r in rows:
        print(f"{r['deliverable']:44} {r['fresh_ms']:9.1f} {r['warm_ms']:8.1f}")
    print(f"fresh: {n} probes in {fresh_total:.1f}s = {result['fresh']['probes_per_s']} probes/s")
    print(f"warm:  {n} probes in {warm_total:.1f}s incl. {warm_startup:.1f}s start-up = "
          f"{result['warm']['probes_per_s']} probes/s ({result['warm']['probes_per_s_steady']} steady)")
    print(f"speedup {result['speedup']}x; reports identical in both modes: {not mismatches} "
          f"({result['isolation']})")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if not mismatches else 1


if __name__ == "__main__":
    sys.exit(main())
