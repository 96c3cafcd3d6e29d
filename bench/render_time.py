"""Evidence render time per deliverable (the bundled deliverables of both seeds).

    .venv/bin/python bench/render_time.py [--engine BLENDER_WORKBENCH|CYCLES] [--work var/bench/deliverables]
                                          [--json out.json] [--no-sandbox]

For each deliverable, with an empty cache: the wall time of one bpy process rendering its
evidence (process start + open + renders + MP4 + contact sheet), the in-Blender render
seconds from the manifest, and the number of files; then the same request again, served from
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from probe_throughput import bundled_deliverables  # noqa: E402

from sandbox.script_run import LOCAL  # noqa: E402
from verifiers.evidence import EvidenceCache, EvidenceRenderer, resolve_spec  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", default=None)
    ap.add_argument("--work", type=Path, default=ROOT / "var" / "bench" / "deliverables")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--no-sandbox", action="store_true")
    args = ap.parse_args(argv)
    sandbox = LOCAL if args.no_sandbox else None
    items = bundled_deliverables(args.work, sandbox)
    rows = []
    with tempfile.TemporaryDirectory(prefix="arkevo-render-bench-") as tmp:
        for label, bundle, blend in items:
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
                         "process_wall_s": round(wall, 2), "in_blender_s": ev.manifest["seconds"],
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
