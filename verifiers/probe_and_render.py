"""The rule probe, then the delivery's evidence renders, in one bpy process (the verifier sandbox).

    python3 /tests/probe_and_render.py --evidence /tests/evidence_job.json \
        --done /logs/verifier/probe-done.json -- <rule_probe.py's own arguments>

A pipeline trial of a task whose profile weights VL would otherwise start a second sandboxed
Blender (the gpu worker's `render_evidence`) only to open the same delivery again: here the
verifier renders it right after the probe, saving that start (~1 CPU-s a delivery,
docs/performance.md). The renders are a prefetch, never part of the rule grade:

* the probe runs first, exactly as `rule_probe.py` alone (same arguments, same exit code), and
  its report is final once `--done` exists: test.sh keeps it whatever happens after (a crash, a
  kill, the time limit);
* the renders go to the job's `out` (`manifest.json` written last, by `render_evidence.run_job`);
  past `budget_sec` the process ends with status 0 and no manifest (a render that holds the GIL
  that long runs on to test.sh's probe timeout, which kills it: the report stands all the same),
  and a Python error only leaves a line on stderr. The gpu worker checks what arrives like any sandboxed render's output
  (`verifiers/evidence.py` `check_rendered`) and, without a complete one, renders it itself —
  so a delivery that outlasts the budget here meets the same budget there (graded, never infra).

Standalone (stdlib + bpy + the sibling `rule_probe` and `render_evidence`): it runs in the sandbox.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--evidence", type=Path, required=True,
                    help='JSON {"spec": resolved view spec, "out": folder, "budget_sec": seconds}')
    ap.add_argument("--done", type=Path, required=True, help="marker written once the report is final")
    ap.add_argument("probe", nargs=argparse.REMAINDER, help="-- then rule_probe.py's arguments")
    args = ap.parse_args(argv)
    probe_argv = args.probe[1:] if args.probe[:1] == ["--"] else args.probe
    job = json.loads(args.evidence.read_text(encoding="utf-8"))

    import rule_probe

    code = rule_probe.main(probe_argv)
    if code:
        return code
    blend = rule_probe.parse_args(probe_argv).blend
    tmp = args.done.with_name(args.done.name + ".tmp")
    tmp.write_text(json.dumps({"report": "final"}) + "\n", encoding="utf-8")
    os.replace(tmp, args.done)
    sys.stdout.flush()

    # A render that outlasts the budget leaves no manifest: the worker renders it again itself.
    watchdog = threading.Timer(float(job["budget_sec"]), lambda: os._exit(0))
    watchdog.daemon = True
    watchdog.start()
    import render_evidence

    try:
        render_evidence.run_job({"blend": str(blend), "spec": job["spec"], "out": job["out"]})
    except Exception as exc:  # noqa: BLE001 -- the grade stands; the worker renders instead
        print(f"probe_and_render: evidence not rendered: {type(exc).__name__}: {exc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
