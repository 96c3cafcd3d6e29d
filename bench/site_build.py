"""Review site build time: a first build, a rebuild with nothing changed, and a rebuild after a
site code change (every page rendered again, no file copied or plot drawn), side by side.

    .venv/bin/python bench/site_build.py --dataset demo/<revision> [--repeat 3]

Reads the workers' store (ARKEVO_VAR / ARKEVO_STORE / ARKEVO_OBJECTS) and writes only into
temporary folders. Prints the median seconds of each, their ratios, and the site's weight.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from review_site import build as site_build  # noqa: E402
from review_site.build import STATE, build_site  # noqa: E402
from review_site.sources import Source  # noqa: E402
from workers.settings import settings_from_env  # noqa: E402


EXIT_CODES = """\
exit codes:
  0  measured
  1  a build failed (no such revision in the store, a file that cannot be read as published)
  2  bad usage"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/site_build.py", description=__doc__, epilog=EXIT_CODES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", required=True, help="NAMESPACE/REVISION")
    ap.add_argument("--repeat", type=int, default=3, help="runs of the three builds; medians (default 3)")
    args = ap.parse_args(argv)
    namespace, _, revision = args.dataset.partition("/")
    if not namespace or not revision or "/" in revision:
        ap.error(f"--dataset {args.dataset!r}: give NAMESPACE/REVISION")
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    settings = settings_from_env()
    source = Source(settings.objects(), settings.content_store())
    times: dict[str, list[float]] = {"first build": [], "rebuild, nothing changed": [],
                                     "rebuild after a code change": []}
    result = None
    # The bar on stderr, gone when done: stdout keeps the table alone.
    with Progress(console=Console(stderr=True), transient=True) as bar:
        job = bar.add_task("builds", total=args.repeat * len(times))
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix="arkevo-site-bench-") as tmp:
                out = Path(tmp) / "site"
                for name in times:
                    if name == "rebuild after a code change":  # as if the templates had changed
                        state = json.loads((out / STATE).read_text())
                        state["pages"] = {k: "stale" for k in state["pages"]}
                        (out / STATE).write_text(json.dumps(state))
                    bar.update(job, description=name)
                    started = time.perf_counter()
                    built = build_site(source, out, dataset=(namespace, revision))
                    times[name].append(time.perf_counter() - started)
                    result = result if name != "first build" else built
                    bar.advance(job)
    median = {k: statistics.median(v) for k, v in times.items()}
    first = median["first build"]
    print(f"review site of {args.dataset}: {result.tasks} tasks, {result.campaigns} campaign(s), "
          f"{result.pages_written} pages, {result.bytes_total / 1e6:.1f} MB "
          f"(HTML {sum(result.page_bytes.values()) / 1e6:.2f} MB); median of {args.repeat}")
    print(f"{'build':32} {'seconds':>8} {'vs first':>9}")
    for name, seconds in median.items():
        print(f"{name:32} {seconds:8.2f} {seconds / first:9.3f}")
    print(f"site code digest {site_build.code_digest()[:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
