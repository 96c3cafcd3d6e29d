"""A warm rule-probe process: measures many deliveries in one bpy process (runs in bpy).

    python probe_server.py --reply-fd N     # jobs as JSON lines on stdin, replies on fd N

Each job ``{"blend", "task", "rubric", "out", "probes"?}`` is measured exactly as
``rule_probe.py`` would (same code: ``rule_probe.probe_files``) and its report written to
``out``; the reply is one JSON line ``{"ok": true, "out", "seconds", "reward", "report"}`` or
``{"ok": false, "error": <traceback>}`` -- a failing job never takes the process down.
Replies go to their own file descriptor because Blender writes its log to stdout;
``--reply-fd 1`` (a sandboxed server, which has only stdio) keeps stdout for the replies and
moves everything else written to it over to stderr.
``{"cmd": "mutate", "blend", "task", "rubric", "operators"?}`` runs the gaming operators of
``mutations.py`` on one (good) delivery -- open, apply, probe in memory, re-open -- and replies
with a line ``{"tried": [done, total]}`` before the first operator and after each (the
pipeline's "operators tried n/m"), then one line ``{"row": row}`` per operator and last
``{"ok": true, "rows": n}``; ``"part": [i, n]`` runs only every n-th operator from the i-th
(``bpy_procs.mutate_spread``: n warm probes share one mutation test); ``"until_core_fails": true``
measures each mutated scene only until a core criterion fails (``rule_probe.measure_open_scene``),
its row naming the criteria left ``unmeasured``.  A row a line: ninety-odd operators' criteria in one line passed
the sandboxed pipe's 1 MiB line limit (asset-hygiene, red team 11).
Every job opens its delivery with ``open_mainfile`` (``use_scripts=False``), which replaces the
whole previous scene, so one job cannot see another's data.  ``{"cmd": "quit"}`` ends it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tbb_threads import one_thread  # noqa: E402  (stdlib only: before bpy is fine)


def serve(stdin, reply) -> None:
    import rule_probe  # imports bpy and the probe library once, then stays warm

    for line in stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        if job.get("cmd") == "quit":
            break
        started = time.monotonic()
        if job.get("cmd") == "mutate":
            with one_thread():  # oneTBB at one thread for the job (tbb_threads.py)
                answer = mutate(job, started, reply)
            if answer["ok"]:
                rows = answer.pop("mutations")
                for row in rows:
                    reply.write(json.dumps({"row": row}) + "\n")
                answer["rows"] = len(rows)
            reply.write(json.dumps(answer) + "\n")
            reply.flush()
            continue
        try:
            with one_thread():
                report = rule_probe.probe_files(
                    Path(job["task"]), Path(job["rubric"]), Path(job["blend"]), Path(job["out"]),
                    Path(job["probes"]) if job.get("probes") else None,
                )
            answer = {"ok": True, "out": job["out"], "reward": report["reward"],
                      "seconds": round(time.monotonic() - started, 4), "report": report}
        except Exception:
            answer = {"ok": False, "error": traceback.format_exc()}
        reply.write(json.dumps(answer) + "\n")
        reply.flush()


def mutate(job: dict, started: float, reply) -> dict:
    """Mutation testing of one grader on one good delivery (``mutations.run``): every operator
    applied in this process, each after re-opening the delivery; how many were tried goes to
    ``reply`` as they advance."""
    import mutations
    import rule_probe

    def tried(done: int, total: int) -> None:
        reply.write(json.dumps({"tried": [done, total]}) + "\n")
        reply.flush()

    try:
        task = json.loads(Path(job["task"]).read_text(encoding="utf-8"))
        rubric = json.loads(Path(job["rubric"]).read_text(encoding="utf-8"))
        rule_probe.use_task_probes(Path(job["rubric"]), Path(job["probes"]) if job.get("probes") else None)
        baseline = rule_probe.load_baseline(Path(job["rubric"]))  # start_scene.json beside it, if any
        plan = rule_probe.rule_plan(task, rubric)
        names = list(job.get("operators") or mutations.OPERATORS)
        if job.get("part"):
            index, parts = (int(x) for x in job["part"])
            names = names[index::parts]
        until = bool(job.get("until_core_fails"))
        rows = mutations.run(Path(job["blend"]), task, rubric, baseline,
                             lambda: rule_probe.measure_open_scene(plan, baseline, until), names, tried) if names else []
        for row in rows:  # the criteria left unmeasured past a failed core one
            if until and row["criteria"] is not None:
                measured = {c["id"] for c in row["criteria"]}
                row["unmeasured"] = [c["id"] for c, _ in plan if c["id"] not in measured]
        return {"ok": True, "mutations": rows, "seconds": round(time.monotonic() - started, 4)}
    except Exception:
        return {"ok": False, "error": traceback.format_exc()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reply-fd", type=int, required=True)
    args = ap.parse_args(argv)
    reply_fd = args.reply_fd
    if reply_fd == 1:  # before bpy loads: nothing else may reach the reply stream
        reply_fd = os.dup(1)
        os.dup2(2, 1)
    import rule_probe  # noqa: F401  (loaded before "ready": start-up is not a job's cost)

    with os.fdopen(reply_fd, "w", encoding="utf-8") as reply:
        reply.write(json.dumps({"ok": True, "ready": True}) + "\n")
        reply.flush()
        serve(sys.stdin, reply)
    return 0


if __name__ == "__main__":
    sys.exit(main())
