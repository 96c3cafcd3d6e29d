"""A dataset revision at scale (issue 36): run it as `make demo` runs the demo, then measure it.

    ARKEVO_VAR=/tmp/scale/var ARKEVO_TEMPORAL_PORT=17233 ARKEVO_TEMPORAL_UI_PORT=18233 \\
        .venv/bin/python bench/scale_revision.py --spec datasets/scale.json --revision r2

runs `python -m cli.demo --spec ... --revision ...` (stack up, DatasetProduction, the bands'
campaign, freeze-check, freeze, verify, the dataset report, the drift check, the review site)
with bench/stack_sampler.py beside it, then prints what docs/performance.md records ("A revision
of 200 tasks"): the phases' walls from the demo's own log, wall per stage from Temporal's
visibility (every TaskProduction's stage children), the stack's CPU and the control worker's
memory from the samples, the largest histories, the cost per accepted task from `arkevo dataset
report`, and freeze-check (cold: a new process, and warm), verify, the site build and a split's
export, each timed here against the revision as it ended. `--measure-only` measures a run that
ended (or one started by hand with the same two commands). Hours on 2 cores; never in `make test`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STAGES = ("02-admission", "03-authoring", "04-trial-solves", "05-review", "06-evaluation", "07-packaging")


def run(spec: Path, revision: str, var: Path, log: Path) -> int:
    sampler = subprocess.Popen([sys.executable, str(ROOT / "bench" / "stack_sampler.py"), "--var", str(var),
                                "--out", str(var.parent / "samples.jsonl")], cwd=ROOT)
    try:
        with log.open("w") as out:
            return subprocess.call([sys.executable, "-m", "cli.demo", "--spec", str(spec), "--revision", revision],
                                   cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    finally:
        sampler.terminate()


def timed(fn, *args, **kwargs) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t, out


async def histories(address: str, wid: str) -> dict:
    from temporalio.client import Client

    client = await Client.connect(address)
    by_stage: dict[str, list[float]] = defaultdict(list)
    biggest: list[tuple[int, int, str]] = []
    async for w in client.list_workflows(f"WorkflowId STARTS_WITH '{wid}'"):
        size = int(getattr(w.raw_info, "history_size_bytes", 0) or 0)
        biggest.append((w.history_length or 0, size, w.id))
        if w.close_time and w.start_time:
            stage = next((s for s in STAGES if w.id.endswith("." + s)), None)
            if stage or w.workflow_type == "TaskProduction":
                by_stage[stage or "TaskProduction"].append((w.close_time - w.start_time).total_seconds())
    # visibility counts a history once it closes: an open one (the production) is described
    for w in [w for w in biggest if w[0] == 0]:
        info = (await client.get_workflow_handle(w[2]).describe()).raw_description.workflow_execution_info
        biggest.remove(w)
        biggest.append((info.history_length, info.history_size_bytes, w[2] + " (open)"))
    biggest.sort(reverse=True)
    return {"stages": {k: {"n": len(v), "median_s": round(statistics.median(v), 1),
                           "p90_s": round(sorted(v)[int(0.9 * (len(v) - 1))], 1), "sum_s": round(sum(v))}
                       for k, v in sorted(by_stage.items())},
            "largest": [{"events": e, "bytes": b, "workflow": i} for e, b, i in biggest[:5]],
            "workflows": len(biggest)}


def samples(path: Path) -> dict:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if not rows:
        return {}
    out: dict = {"seconds": round(rows[-1]["t"] - rows[0]["t"])}
    for name in sorted({n for r in rows for n in r["procs"]}):
        seen = [r["procs"][name] for r in rows if name in r["procs"]]
        if any("pid" in s for s in seen):  # rows of a sampler that did not record pids: memory only
            counted = [s for s in seen if "pid" in s]
        else:
            counted = seen
        # a restarted process starts its counts again: sum the last count of each pid
        last: dict = {}
        for s in counted:
            last[s.get("pid", 0)] = s
        out[name] = {"max_rss_mb": max(s["rss_mb"] for s in seen), "last_rss_mb": seen[-1]["rss_mb"],
                     "processes": len(last), "cpu_s": round(sum(s["cpu_s"] for s in last.values())),
                     "children_cpu_s": round(sum(s["children_cpu_s"] for s in last.values()))}
    return out


def cold_freeze_check(namespace: str, revision: str) -> float:
    """freeze-check in a new process: no scan kept from an earlier check."""
    code = ("import time; from workers.settings import settings_from_env as s; "
            "from dataset_revisions.freeze import freeze_check; from dataset_revisions.layout import RevisionKeys; "
            f"t=time.perf_counter(); freeze_check(s().objects(), RevisionKeys({namespace!r}, {revision!r}), "
            "store=s().content_store()); print(time.perf_counter()-t)")
    return float(subprocess.check_output([sys.executable, "-c", code], cwd=ROOT, text=True).strip().splitlines()[-1])


def measure(namespace: str, revision: str, address: str, var: Path, log: Path | None) -> dict:
    from dataset_revisions.freeze import freeze_check
    from dataset_revisions.layout import RevisionKeys
    from dataset_revisions.report import dataset_report
    from dataset_revisions.verify import verify_revision
    from exports.harbor_zip import export_split
    from review_site.build import build_site
    from review_site.sources import Source
    from workers.settings import settings_from_env

    settings = settings_from_env()
    objects, store = settings.objects(), settings.content_store()
    keys = RevisionKeys(namespace, revision)
    out: dict = {}
    report = dataset_report(objects, keys)
    out["report"] = {"funnel": report.funnel, "accepted": report.accepted, "losses": len(report.losses),
                     "losses_by_kind": report.losses_by_kind, "production_wall_s": report.production_wall_sec,
                     "per_accepted_task": report.per_accepted_task,
                     "by_stage": {c.stage: {"records": c.records, "wall_s": c.wall_sec, "sandbox_cpu_s": c.sandbox_cpu_sec}
                                  for c in report.costs}}
    out["freeze_check_cold_s"] = round(cold_freeze_check(namespace, revision), 2)
    timed(freeze_check, objects, keys, store=store)  # this process's first: its scans kept
    secs, check = timed(freeze_check, objects, keys, store=store)
    out["freeze_check_warm_s"] = round(secs, 2)
    out["candidates"] = check.candidates  # type: ignore[attr-defined]
    out["splits"] = {n: s.count for n, s in check.splits.items()}  # type: ignore[attr-defined]
    secs, verified = timed(verify_revision, objects, keys)
    out["verify_s"] = round(secs, 2)
    out["verify"] = {"publications": verified.publications, "files": verified.files, "ok": verified.ok}  # type: ignore[attr-defined]
    with tempfile.TemporaryDirectory() as tmp:
        secs, site = timed(build_site, Source(objects, store), Path(tmp) / "site", dataset=(namespace, revision))
        out["site_build_s"] = round(secs, 1)
        out["site"] = site.summary()  # type: ignore[attr-defined]
        out["site_index_kib"] = round((Path(tmp) / "site" / "index.html").stat().st_size / 1024)
        exports: dict = {}
        for split in out["splits"]:
            try:
                secs, _ = timed(export_split, objects, namespace, revision, split, Path(tmp) / f"{split}.zip")
            except ValueError as e:  # not frozen (yet): nothing to export
                exports[split] = str(e)
                continue
            exports[split] = {"s": round(secs, 1), "mib": round((Path(tmp) / f"{split}.zip").stat().st_size / 2**20, 1)}
        out["export_split"] = exports
    out["temporal"] = asyncio.run(histories(address, f"dataset-{namespace}-{revision}"))
    sample_file = var.parent / "samples.jsonl"
    if sample_file.is_file():
        out["processes"] = samples(sample_file)
    if log and log.is_file():
        out["demo_log_tail"] = log.read_text().splitlines()[-12:]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", type=Path, default=Path("datasets/scale.json"))
    ap.add_argument("--revision", default="r1")
    ap.add_argument("--measure-only", action="store_true", help="measure a run that ended; start nothing")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    from contracts.validation import load_json_file
    from workers.settings import settings_from_env

    var = settings_from_env().var
    spec = load_json_file(args.spec, str(args.spec))
    log = var.parent / "scale-run.log"
    started = time.monotonic()
    if not args.measure_only:
        code = run(args.spec, args.revision, var, log)
        print(f"cli.demo exit {code} after {time.monotonic() - started:.0f} s (log {log})")
    address = f"127.0.0.1:{os.environ.get('ARKEVO_TEMPORAL_PORT', '7233')}"
    figures = measure(spec["namespace"], args.revision, address, var, log)
    text = json.dumps(figures, indent=2, default=str)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
