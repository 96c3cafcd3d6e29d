"""CPU time of an evidence render under Mesa's llvmpipe: stock settings against the ones
``verifiers/render_evidence.py`` sets (``GALLIVM_PERF=nopt``: no LLVM optimisation passes when
shaders are compiled; ``LP_NUM_THREADS=0``: rasterise on the main thread), side by side.

    .venv/bin/python bench/render_llvmpipe.py [--rounds 3] [--work var/bench/deliverables] [--json out.json]

Every bundled deliverable of both seeds is rendered by a fresh plain bpy process per round and
setting, interleaved, with Mesa's shader cache off (``MESA_SHADER_CACHE_DISABLE``), as in the
sandbox, where no cache survives a delivery.  Measured: the child's CPU seconds (user + system,
from ``getrusage``) and wall time, and whether both settings wrote byte-identical images.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from probe_throughput import bundled_deliverables  # noqa: E402

from blender.runner import bpy_python  # noqa: E402
from sandbox.script_run import LOCAL  # noqa: E402
from verifiers.bpy_procs import RENDER_EVIDENCE  # noqa: E402
from verifiers.evidence import resolve_spec  # noqa: E402

SETTINGS = {
    "stock": {"GALLIVM_PERF": "", "LP_NUM_THREADS": str(os.cpu_count() or 1)},
    "arkevo": {"GALLIVM_PERF": "nopt", "LP_NUM_THREADS": "0"},
}
EXIT_CODES = """\
exit codes:
  0  every deliverable rendered, byte-identical under both settings
  1  a render failed, or the settings' images differ
  2  bad usage"""


def render(blend: Path, spec: dict, out: Path, env: dict[str, str]) -> tuple[float, float, dict[str, str]]:
    """(CPU s, wall s, {file: sha256}) of one render in a fresh bpy process."""
    jobs = out.parent / f"{out.name}.json"
    jobs.write_text(json.dumps([{"blend": str(blend), "spec": spec, "out": str(out)}]))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    subprocess.run([bpy_python(), str(RENDER_EVIDENCE), "--jobs", str(jobs)], check=True, capture_output=True,
                   env={**os.environ, "MESA_SHADER_CACHE_DISABLE": "true", **env}, timeout=600)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    files = json.loads((out / "manifest.json").read_text())["files"]
    return cpu, wall, {n: e["sha256"] for n, e in files.items() if n.endswith(".png")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/render_llvmpipe.py", description=__doc__, epilog=EXIT_CODES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3, help="renders of every deliverable per setting (default 3)")
    ap.add_argument("--work", type=Path, default=ROOT / "var" / "bench" / "deliverables",
                    help="where the deliverables are built once and kept (default var/bench/deliverables)")
    ap.add_argument("--json", type=Path, default=None, help="write every figure as JSON here")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    console = Console()
    items = bundled_deliverables(args.work, LOCAL)
    figures: dict[str, dict[str, list[float]]] = {name: {"cpu": [], "wall": []} for name in SETTINGS}
    per_item: dict[str, dict[str, list[float]]] = {}
    differ = []
    with tempfile.TemporaryDirectory(prefix="arkevo-llvmpipe-bench-") as tmp:
        for rnd in range(args.rounds):
            for label, bundle, delivery in items:
                spec = resolve_spec(bundle.judge.evidence)
                images = {}
                for name, env in SETTINGS.items():
                    out = Path(tmp) / f"{rnd}-{label.replace('/', '_').replace(':', '_')}-{name}"
                    cpu, wall, images[name] = render(delivery, spec, out, env)
                    figures[name]["cpu"].append(cpu)
                    figures[name]["wall"].append(wall)
                    per_item.setdefault(label, {}).setdefault(name, []).append(cpu)
                if images["stock"] != images["arkevo"]:
                    differ.append(label)
            console.print(f"round {rnd + 1}/{args.rounds} done")
    table = Table(title=f"{len(items)} deliverables x {args.rounds} rounds, one fresh bpy process per render")
    for col in ("setting", "renders", "CPU s total", "CPU s median", "wall s median", "CPU ratio"):
        table.add_column(col)
    stock_cpu = sum(figures["stock"]["cpu"])
    for name, fig in figures.items():
        table.add_row(name, str(len(fig["cpu"])), f"{sum(fig['cpu']):.1f}", f"{statistics.median(fig['cpu']):.2f}",
                      f"{statistics.median(fig['wall']):.2f}", f"{sum(fig['cpu']) / stock_cpu:.2f}")
    console.print(table)
    per = Table(title="median CPU s per deliverable")
    for col in ("deliverable", "stock", "arkevo"):
        per.add_column(col)
    for label, by in per_item.items():
        per.add_row(label, f"{statistics.median(by['stock']):.2f}", f"{statistics.median(by['arkevo']):.2f}")
    console.print(per)
    console.print("images byte-identical under both settings" if not differ
                  else f"[red]images differ[/red] for {', '.join(sorted(set(differ)))}")
    if args.json:
        args.json.write_text(json.dumps({
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "bpy": version("bpy")},
            "settings": SETTINGS, "rounds": args.rounds, "figures": figures, "per_deliverable": per_item,
            "identical": not differ}, indent=2))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
