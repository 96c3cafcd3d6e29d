"""Sample a running stack's processes (`make up`'s pid files under VAR/run) every few seconds:
each one's resident memory and its CPU seconds (own and reaped children), as JSON lines.

    .venv/bin/python bench/stack_sampler.py --var /tmp/scale/var --out /tmp/scale/samples.jsonl

Used by bench/scale_revision.py for the control worker's memory and the stack's CPU over a
long production (docs/performance.md, "A revision of 200 tasks"); stops when every sampled
process has gone, or on Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def read(pid: int) -> dict | None:
    """{rss_mb, cpu_s (own), children_cpu_s (reaped)} of a live process; None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        rss_kb = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                      if line.startswith("VmRSS:"))
    except (FileNotFoundError, ProcessLookupError, StopIteration):
        return None
    utime, stime, cutime, cstime = (int(v) for v in stat[11:15])
    return {"pid": pid, "rss_mb": round(rss_kb / 1024, 1), "cpu_s": (utime + stime) / TICK,
            "children_cpu_s": (cutime + cstime) / TICK}


def pids(var: Path) -> dict[str, int]:
    out = {}
    for f in sorted((var / "run").glob("*.pid")):
        try:
            out[f.stem] = int(json.loads(f.read_text())["pid"])
        except (ValueError, KeyError, OSError):
            continue
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--var", type=Path, required=True, help="the stack's ARKEVO_VAR")
    ap.add_argument("--out", type=Path, required=True, help="JSON lines, appended")
    ap.add_argument("--every", type=float, default=5.0, help="seconds between samples")
    args = ap.parse_args()
    seen_any = False
    with args.out.open("a") as out:
        while True:
            sample = {name: read(pid) for name, pid in pids(args.var).items()}
            alive = {k: v for k, v in sample.items() if v is not None}
            if alive:
                seen_any = True
                out.write(json.dumps({"t": round(time.time(), 1), "procs": alive}) + "\n")
                out.flush()
            elif seen_any:
                return
            time.sleep(args.every)


if __name__ == "__main__":
    main()
