"""Evidence render time per deliverable (the bundled deliverables of both seeds).

    .venv/bin/python bench/render_time.py [--engine BLENDER_WORKBENCH|CYCLES] [--work var/bench/deliverables]
                                          [--json out.json] [--no-sandbox]

For each deliverable, with an empty cache: the wall time of one bpy process rendering its
evidence (process start + open + renders + MP4 + contact sheet), the in-Blender render
seconds from the manifest (manifests before renderer arkevo-evidence/3 only: the time now goes
to the render's log, the manifest being part of a task version), and the number of files; then the same request again, served from
the cache (a hash check, no render).  Views, resolution and frames come from each task's
judge.json (160x120; robot-carry adds 16 frames + MP4).  The renders run in the trial sandbox
(one per process), as the scoring CLIs run them; ``--no-sandbox``: plain subprocesses.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from rich.console import Console
from rich.progress import track

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from probe_throughput import bundled_deliverables  # noqa: E402

from sandbox.script_run import LOCAL  # noqa: E402
from verifiers.evidence import EvidenceCache, EvidenceRenderer, resolve_spec  # noqa: E402


EXIT_CODES = """\
exit codes:
  0  every deliverable rendered and timed
  1  a render failed, or its second request was not served from the cache
  2  bad usage"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/render_time.py", description=__doc__, epilog=EXIT_CODES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default=None, help="render engine (default: each task's judge.json)")
    ap.add_argument("--work", type=Path, default=ROOT / "var" / "bench" / "deliverables",
                    help="where the deliverables are built once and kept (default var/bench/deliverables)")
    ap.add_argument("--json", type=Path, default=None, help="write every figure as JSON here")
    ap.add_argument("--no-sandbox", action="store_true", help="plain subprocesses instead of the trial sandbox")
    args = ap.parse_args(argv)
    sandbox = LOCAL if args.no_sandbox else None
    items = bundled_deliverables(args.work, sandbox)
    rows = []
    with tempfile.TemporaryDirectory(prefix="arkevo-render-bench-") as tmp:
        # The bar on stderr, gone when done: stdout keeps the table alone.
        for label, bundle, blend in track(items, "renders", console=Console(stderr=True), transient=True):
            spec = resolve_spec(bundle.judge.evidence, engine=args.engine)
            cache_dir = Path(tmp) / label.replace("/", "_").replace(":", "-")
            cache = EvidenceCache(cache_dir)
            renderer = EvidenceRenderer(cache, processes=1, sandbox=sandbox)
            t = time.monotonic()
            ev = renderer.render(blend, spec)
            wall = time.monotonic() - t
            t = time.monotonic()
            again = renderer.render(blend, spec)
            hit = time.monotonic() - t
            assert again.cache_hit and cache.counters.renders == 1
            rows.append({"deliverable": label, "engine": spec["engine"], "files": len(ev.files),
                         "frames": len(ev.names("frame")), "mp4": ev.manifest.get("mp4"),
                         "process_wall_s": round(wall, 2), "in_blender_s": ev.manifest.get("seconds"),
                         "cache_hit_ms": round(1000 * hit, 1)})
            shutil.rmtree(cache_dir, ignore_errors=True)
    by_seed = {}
    for r in rows:
        by_seed.setdefault(r["deliverable"].split("/")[0], []).append(r["process_wall_s"])
    result = {"bench": "render_time",
              "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "bpy": version("bpy")},
              "resolution": resolve_spec(items[0][1].judge.evidence)["resolution"],
              "median_process_wall_s": {k: round(statistics.median(v), 2) for k, v in by_seed.items()},
              "rows": rows}
    print(f"{'deliverable':44} {'engine':18} {'files':>5} {'wall s':>7} {'in-bpy s':>8} {'hit ms':>7}")
    for r in rows:
        print(f"{r['deliverable']:44} {r['engine']:18} {r['files']:5d} {r['process_wall_s']:7.2f} "
              f"{r['in_blender_s']:8.2f} {r['cache_hit_ms']:7.1f}")
    print("median wall per deliverable:", result["median_process_wall_s"])
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
