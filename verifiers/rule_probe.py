"""Measure a delivered .blend against a task's rule criteria and write the probe report.

    python rule_probe.py --blend result.blend --task task.json --rubric rubric.json --out report.json \
        [--probes task_probes.py]

Runs in a plain Python with ``bpy`` (Blender as a module).  Standalone on purpose: this folder
is copied into packaged Harbor tasks' ``tests/``, so it imports only its sibling modules.
The probe measures the scene itself and never reads numbers reported by the solver.

A missing or unreadable .blend is a delivery that scores 0 (every criterion 0, detail says
why) and the report's ``delivery_problem`` names which: ``DeliveryMissing``,
``DeliveryNotBlend`` (no .blend header) or ``DeliveryTruncated`` (a .blend header, but it does
not load).  Anything else that goes wrong -- a rubric that does not match the task, an unknown
method, a bug in a primitive -- raises and exits non-zero, so it is never mistaken for a 0.

``--started FILE`` writes a marker (the delivery's sha256) once task and rubric are loaded,
before the delivery is opened: if the probe then crashes or hangs, the delivery did it, and
``tests/test.sh`` reruns the probe with ``--delivery-problem DeliveryCrashedProbe`` (or
``DeliveryHungProbe``) ``--detail ...``, which scores every criterion 0 without opening it.

A file that runs Python when opened with scripts trusted (a text block registered as a module,
a driver only Python evaluates) is measured like one whose render shows nothing: every criterion
0, the detail naming what runs (``RunsPythonWhenTrusted``, a ``RenderShowsNothing``).

A task may ship its own primitives in ``task_probes.py`` next to its rubric (or name the file
with ``--probes``); they register like the built-ins (``probe_core.primitive``).  Every
criterion entry carries ``evidence``: structured support for its verdict.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy  # noqa: E402
import scoring  # noqa: E402  (siblings: need the sys.path entry above)
from tbb_threads import one_thread  # noqa: E402
from probe_primitives import (  # noqa: E402
    Outcome, RenderShowsNothing, graded_frames, load_task_probes, measure, open_delivery, render_probe,
    shift_samples, start_frame_range, validate,
)  # noqa: E402

# 2: criteria carry `evidence`; grouped library with task probes (the report is otherwise unchanged)
PROBE_VERSION = "2"
TASK_PROBES = "task_probes.py"
START_SCENE = "start_scene.json"  # the start scene's snapshot (scene_snapshot.py), beside the rubric
# How a .blend starts: plain, zstd-compressed (Blender >= 3.0), gzip-compressed (older).
BLEND_MAGIC = (b"BLENDER", b"\x28\xb5\x2f\xfd", b"\x1f\x8b")


def sha256_file(path: Path) -> str | None:
    if not path.is_file():
        return None
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def open_blend(path: Path) -> str | None:
    """Open the delivery; return None on success or the reason it cannot be scored."""
    if not path.is_file():
        return f"delivered .blend not found: {path}"
    try:
        open_delivery(path)  # its scripts never run; what it opens on read first
    except RuntimeError as exc:
        return f"delivered .blend cannot be opened: {str(exc).strip()}"
    return None


def delivery_problem(path: Path) -> str:
    """Why a delivery that did not open cannot be scored: missing, not a .blend at all, or a
    .blend cut short (or empty)."""
    if not path.is_file():
        return "DeliveryMissing"
    with path.open("rb") as fh:
        head = fh.read(len(BLEND_MAGIC[0]))
    return "DeliveryTruncated" if not head or head.startswith(BLEND_MAGIC) else "DeliveryNotBlend"


def rule_plan(task: dict, rubric: dict) -> list[tuple[dict, dict]]:
    """Pair each rule criterion of the task with its rubric params; any mismatch is an error,
    checked before the delivery is opened so a broken rubric never passes as a 0."""
    rule = [c for c in task["criteria"] if c["channel"] == "rule"]
    params = {c["id"]: c for c in rubric["criteria"]}
    if sorted(params) != sorted(c["id"] for c in rule):
        raise ValueError(f"rubric ids {sorted(params)} differ from the task's rule criteria ids")
    for c in rule:
        if params[c["id"]]["method"] != c["method"]:
            raise ValueError(f"{c['id']}: rubric method {params[c['id']]['method']!r} != task {c['method']!r}")
        validate(c["method"], params[c["id"]].get("params", {}))
    return [(c, params[c["id"]].get("params", {})) for c in rule]


def json_safe(value):
    """``value`` with every non-finite float as its text ("nan", "inf"): a report is JSON the
    pipeline carries in its canonical form, which has no NaN or infinity -- a measure of a
    delivery that typed a NaN in must not make the grading itself fail."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def criterion_entry(criterion: dict, outcome: Outcome) -> dict:
    score = float(outcome.score)
    return {
        "id": criterion["id"],
        "requirement_id": criterion["requirement_id"],
        "method": criterion["method"],
        "weight": criterion["weight"],
        "core": bool(criterion.get("core", False)),
        "score": round(score, scoring.DIGITS) if math.isfinite(score) else 0.0,
        "passed": bool(outcome.passed) and math.isfinite(score),
        "measured": json_safe(outcome.measured),
        "expected": json_safe(outcome.expected),
        "detail": outcome.detail,
        "evidence": json_safe(outcome.evidence),
    }


def zero_criteria(plan: list[tuple[dict, dict]], reason: str) -> list[dict]:
    return [criterion_entry(c, Outcome(0.0, False, None, None, reason)) for c, _ in plan]


def measure_all(blend: Path, plan: list[tuple[dict, dict]], baseline: dict | None = None
                ) -> tuple[list[dict], dict | None]:
    """The criteria entries, and the delivery problem when it could not be opened."""
    reason = open_blend(blend)
    if reason is not None:
        return zero_criteria(plan, reason), {"type": delivery_problem(blend), "detail": reason}
    return measure_open_scene(plan, baseline), None


# Where mutation testing stops at the first failed core criterion (``until_core_fails``), these
# methods are measured after the others, in this order: each costs more than all the rest of a
# probe together on some bundled seed (robot-carry's solids_apart and kept-scene snapshot,
# crate-texture's texture_influence; docs/performance.md), and a cheaper core criterion kills most
# operators first.  The snapshot is shared: render_overrides and scene_unchanged rank together.
MEASURED_LATE = {
    "surface_shader": 1, "material_on_faces": 1, "parts_unoccluded": 1, "shape_match": 1, "image_texture": 1,
    "moves_smoothly": 1, "joint_axes": 1, "origin_at": 1,
    "parts_touch": 2, "no_interpenetration": 2, "supported_throughout": 2, "texture_influence": 2,
    "under_stays_open": 2,
    "render_overrides": 3, "scene_unchanged": 3,
    "solids_apart": 4, "unchanged_over_frames": 4,
}


def measure_open_scene(plan: list[tuple[dict, dict]], baseline: dict | None = None,
                       until_core_fails: bool = False) -> list[dict]:
    """The criteria entries measured on the scene open now (a delivery just opened, or one a
    mutation operator has just changed in memory).  ``until_core_fails``: the cheap criteria
    first (``MEASURED_LATE`` last), and none after the first core criterion that fails -- the
    scene fails under every scoring profile then; the entries of those measured, in the plan's
    order (mutation testing: whether an operator is killed, not how far)."""
    scene = bpy.context.scene
    frames = graded_frames([p for _, p in plan], scene.frame_current, start_frame_range(baseline),
                           (scene.frame_start, scene.frame_end),
                           (scene.frame_preview_start, scene.frame_preview_end) if scene.use_preview_range else None)

    def entries(probe) -> list[dict]:
        if not until_core_fails:
            return [criterion_entry(c, measure(probe, c["method"], p)) for c, p in plan]
        done: dict[int, dict] = {}
        for i in sorted(range(len(plan)), key=lambda i: (MEASURED_LATE.get(plan[i][0]["method"], 0), i)):
            c, p = plan[i]
            done[i] = criterion_entry(c, measure(probe, c["method"], p))
            if done[i]["core"] and not done[i]["passed"]:
                break
        return [done[i] for i in sorted(done)]

    try:
        return render_probe(scene, baseline, entries, frames)
    except RenderShowsNothing as exc:
        return zero_criteria(plan, str(exc))


def report_of(criteria: list[dict], task: dict, digest: str | None, problem: dict | None) -> dict:
    return {
        "probe_version": PROBE_VERSION,
        "blend_sha256": digest,
        "criteria": criteria,
        "delivery_problem": problem,
        **scoring.summarize(criteria, task["verification"]),
    }


def load_baseline(rubric_path: Path, start_scene: Path | None = None) -> dict | None:
    """The start scene's snapshot: ``start_scene`` or ``start_scene.json`` beside the rubric."""
    path = start_scene or rubric_path.with_name(START_SCENE)
    if start_scene is not None and not path.is_file():
        raise FileNotFoundError(f"start scene snapshot not found: {path}")
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def build_report(blend: Path, task: dict, rubric: dict, *, started: Path | None = None,
                 problem: dict | None = None, baseline: dict | None = None) -> dict:
    """Measure `blend`; with `problem` ({type, detail}: it crashed or hung an earlier probe)
    score it 0 without opening it."""
    plan = rule_plan(task, rubric)
    digest = sha256_file(blend)  # hash what is about to be measured
    shift_samples(digest)  # where the surface samples fall: the file's own (probe_core)
    if problem is not None:
        criteria = zero_criteria(plan, f"{problem['type']}: {problem['detail']}")
    else:
        if started is not None:
            write_json_atomic(started, {"blend": str(blend), "blend_sha256": digest})
        criteria, problem = measure_all(blend, plan, baseline)
    return report_of(criteria, task, digest, problem)


_LOADED_PROBES: set[str] = set()


def use_task_probes(rubric_path: Path, probes: Path | None = None) -> None:
    """Load the task's own primitives (explicit ``--probes`` or ``task_probes.py`` beside the
    rubric) once per process."""
    path = probes or rubric_path.with_name(TASK_PROBES)
    key = str(path.resolve())
    if key in _LOADED_PROBES:
        return
    if probes is not None and not path.is_file():
        raise FileNotFoundError(f"task probes not found: {path}")
    if path.is_file():
        load_task_probes(path)
        _LOADED_PROBES.add(key)


def probe_files(task_path: Path, rubric_path: Path, blend: Path, out: Path, probes: Path | None = None,
                *, started: Path | None = None, problem: dict | None = None,
                start_scene: Path | None = None) -> dict:
    """Measure one delivery and write its report; the unit of work of a warm probe process."""
    task = json.loads(task_path.read_text(encoding="utf-8"))
    rubric = json.loads(rubric_path.read_text(encoding="utf-8"))
    use_task_probes(rubric_path, probes)
    report = build_report(blend, task, rubric, started=started, problem=problem,
                          baseline=load_baseline(rubric_path, start_scene))
    write_json_atomic(out, report)
    return report


def write_json_atomic(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blend", required=True, type=Path, help="delivered .blend (may be missing)")
    ap.add_argument("--task", required=True, type=Path, help="task.json")
    ap.add_argument("--rubric", required=True, type=Path, help="rubric.json (private)")
    ap.add_argument("--out", required=True, type=Path, help="report.json to write")
    ap.add_argument("--probes", type=Path, default=None,
                    help=f"the task's own primitives (default: {TASK_PROBES} beside the rubric, if any)")
    ap.add_argument("--start-scene", type=Path, default=None,
                    help=f"the start scene's snapshot (default: {START_SCENE} beside the rubric, if any)")
    ap.add_argument("--started", type=Path, default=None,
                    help="marker written before the delivery is opened (the delivery's sha256)")
    ap.add_argument("--delivery-problem", choices=["DeliveryCrashedProbe", "DeliveryHungProbe"],
                    help="an earlier probe died on this delivery: score it 0 without opening it")
    ap.add_argument("--detail", default="", help="what happened, with --delivery-problem")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    problem = {"type": args.delivery_problem, "detail": args.detail} if args.delivery_problem else None
    with one_thread():  # oneTBB at one thread while it measures (tbb_threads.py)
        report = probe_files(args.task, args.rubric, args.blend, args.out, args.probes,
                             started=args.started, problem=problem, start_scene=args.start_scene)
    print(f"rule_probe: reward={report['reward']} success={report['success']} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
