"""Core of the rule-probe library: the measured scene, outcomes, shared geometry and the registry.

Runs in bpy (stdlib + bpy + numpy only).  A *primitive* is ``fn(probe, params) -> Outcome``
registered under its rubric ``method`` name with the parameters it requires::

    @primitive(group="geometry", required=("object|objects", "expected", "tolerance"))
    def dimensions(probe, p): ...

The built-in primitives live in the sibling modules ``probes_objects``, ``probes_geometry``,
``probes_animation``, ``probes_materials`` and ``probes_render_spec``; ``probe_primitives``
imports them all and is what the rule probe uses.  A task may add its own primitives in a
``task_probes.py`` next to its rubric, written the same way (see ``load_task_probes``).

Geometry is always measured in world space on the *evaluated* scene after
``scene.frame_set(f)``, so parenting, constraints, modifiers and animation count exactly as
Blender shows them.  An object named in the rubric but absent from the scene is a measured fact
(score 0, see ``MissingObjects``); a malformed rubric raises.
"""

from __future__ import annotations

import importlib.util
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import bpy
import numpy as np  # a dependency of the bpy package, so always present alongside it

# Measured numbers are rounded so reports are stable, readable text.
DIGITS = 6
# Object types whose evaluated geometry can be turned into a mesh.
GEOMETRY_TYPES = {"MESH", "CURVE", "SURFACE", "META", "FONT", "CURVES", "POINTCLOUD", "VOLUME"}

Vec = tuple[float, float, float]
AABB = tuple[Vec, Vec]


@dataclass(frozen=True)
class Outcome:
    """What one criterion measured.  ``evidence`` is structured, machine-readable support for
    the verdict (frames that failed, per-object values, the point measured ...)."""

    score: float
    passed: bool
    measured: Any
    expected: Any
    detail: str
    evidence: Any = None


class MissingObjects(Exception):
    """Objects named by the rubric are not in the delivered scene (scores 0, never a crash)."""

    def __init__(self, names: list[str]):
        super().__init__("object(s) not found in scene: " + ", ".join(names))
        self.names = names


def rnd(value: Any) -> Any:
    """Round floats (also inside tuples/lists/dicts) for stable report text."""
    if isinstance(value, float):
        return round(value, DIGITS) + 0.0  # + 0.0 turns -0.0 into 0.0
    if isinstance(value, (list, tuple)):
        return [rnd(v) for v in value]
    if isinstance(value, dict):
        return {k: rnd(v) for k, v in value.items()}
    return value


def fraction_outcome(ok: int, total: int, measured: Any, expected: Any, detail: str,
                     evidence: Any = None) -> Outcome:
    return Outcome(ok / total if total else 0.0, total > 0 and ok == total, measured, expected, detail,
                   evidence)


def binary_outcome(passed: bool, measured: Any, expected: Any, detail: str, evidence: Any = None) -> Outcome:
    return Outcome(1.0 if passed else 0.0, passed, measured, expected, detail, evidence)


class Probe:
    """The opened scene plus a per-(frame, object) cache of world-space measurements."""

    def __init__(self, scene: bpy.types.Scene):
        self.scene = scene
        self.depsgraph = bpy.context.evaluated_depsgraph_get()
        self._aabbs: dict[tuple[int, str], AABB] = {}
        self._frame: int | None = None

    def at(self, frame: int) -> None:
        if frame != self._frame:
            self.scene.frame_set(int(frame))
            self._frame = int(frame)

    def objects(self, names: list[str]) -> list[bpy.types.Object]:
        missing = [n for n in names if self.scene.objects.get(n) is None]
        if missing:
            raise MissingObjects(missing)
        return [self.scene.objects[n] for n in names]

    def obj(self, name: str) -> bpy.types.Object:
        return self.objects([name])[0]

    def origin(self, obj: bpy.types.Object, frame: int) -> Vec:
        self.at(frame)
        return tuple(obj.evaluated_get(self.depsgraph).matrix_world.translation)

    def aabb(self, obj: bpy.types.Object, frame: int) -> AABB:
        key = (int(frame), obj.name)
        if key not in self._aabbs:
            self.at(frame)
            points = self._world_points(obj)
            self._aabbs[key] = (tuple(map(float, points.min(axis=0))), tuple(map(float, points.max(axis=0))))
        return self._aabbs[key]

    def union_aabb(self, objs: list[bpy.types.Object], frame: int) -> AABB:
        boxes = [self.aabb(o, frame) for o in objs]
        return (
            tuple(min(b[0][i] for b in boxes) for i in range(3)),
            tuple(max(b[1][i] for b in boxes) for i in range(3)),
        )

    def mesh_arrays(self, obj: bpy.types.Object, frame: int) -> dict[str, np.ndarray] | None:
        """Evaluated mesh of ``obj`` at ``frame``: world-space ``co`` (n, 3), ``loop_vert``
        (loop -> vertex), ``poly_start``/``poly_total`` and ``edges`` (m, 2).  None when the
        object has no geometry."""
        if obj.type not in GEOMETRY_TYPES:
            return None
        self.at(frame)
        ev = obj.evaluated_get(self.depsgraph)
        mesh = ev.to_mesh()
        if mesh is None:
            return None
        try:
            n, nl, np_, ne = len(mesh.vertices), len(mesh.loops), len(mesh.polygons), len(mesh.edges)
            co = np.empty(3 * n, dtype=np.float64)
            mesh.vertices.foreach_get("co", co)
            loop_vert = np.empty(nl, dtype=np.int64)
            mesh.loops.foreach_get("vertex_index", loop_vert)
            start = np.empty(np_, dtype=np.int64)
            total = np.empty(np_, dtype=np.int64)
            mesh.polygons.foreach_get("loop_start", start)
            mesh.polygons.foreach_get("loop_total", total)
            edges = np.empty(2 * ne, dtype=np.int64)
            mesh.edges.foreach_get("vertices", edges)
            m = np.array(ev.matrix_world, dtype=np.float64)
            world = co.reshape(-1, 3) @ m[:3, :3].T + m[:3, 3]
            return {"co": world, "loop_vert": loop_vert, "poly_start": start, "poly_total": total,
                    "edges": edges.reshape(-1, 2), "triangles": int(np.sum(np.maximum(total - 2, 0)))}
        finally:
            ev.to_mesh_clear()

    def _world_points(self, obj: bpy.types.Object) -> np.ndarray:
        """Evaluated vertices in world space, (n, 3); an object without geometry is its origin."""
        ev = obj.evaluated_get(self.depsgraph)
        m = np.array(ev.matrix_world, dtype=np.float64)
        local = np.zeros((0, 3))
        if obj.type in GEOMETRY_TYPES:
            mesh = ev.to_mesh()
            if mesh is not None:
                flat = np.empty(3 * len(mesh.vertices), dtype=np.float32)
                mesh.vertices.foreach_get("co", flat)
                local = flat.reshape(-1, 3).astype(np.float64)
                ev.to_mesh_clear()
        if not len(local):
            return m[:3, 3].reshape(1, 3)
        return local @ m[:3, :3].T + m[:3, 3]


# --- shared geometry helpers ------------------------------------------------------------------


def aabb_size(box: AABB) -> Vec:
    return tuple(box[1][i] - box[0][i] for i in range(3))


POINTS = ("origin", "aabb_center", "aabb_bottom_center", "top_center")


def aabb_point(box: AABB, which: str) -> Vec:
    (x0, y0, z0), (x1, y1, z1) = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    points = {"aabb_center": (cx, cy, (z0 + z1) / 2), "aabb_bottom_center": (cx, cy, z0), "top_center": (cx, cy, z1)}
    if which not in points:
        raise ValueError(f"unknown point {which!r}; use origin, {', '.join(points)}")
    return points[which]


def object_point(probe: Probe, obj, frame: int, which: str) -> Vec:
    """``origin`` or one of the AABB points of ``obj`` at ``frame``."""
    return probe.origin(obj, frame) if which == "origin" else aabb_point(probe.aabb(obj, frame), which)


def penetration_depth(a: AABB, b: AABB) -> float:
    """How far two AABBs overlap along their least-overlapping axis (0 when they do not)."""
    overlaps = [min(a[1][i], b[1][i]) - max(a[0][i], b[0][i]) for i in range(3)]
    return max(0.0, min(overlaps))


def aabb_gap(a: AABB, b: AABB) -> float:
    """Euclidean distance between two AABBs (0 when they touch or overlap)."""
    d = [max(0.0, b[0][i] - a[1][i], a[0][i] - b[1][i]) for i in range(3)]
    return math.sqrt(sum(v * v for v in d))


def rests_on(obj_box: AABB, support_box: AABB, tolerance: float) -> tuple[bool, float, bool]:
    """(resting, gap, centre_over): bottom face within tolerance of the support's top face and
    the AABB centre above the support's footprint."""
    gap = obj_box[0][2] - support_box[1][2]
    cx, cy, _ = aabb_point(obj_box, "aabb_center")
    over = support_box[0][0] <= cx <= support_box[1][0] and support_box[0][1] <= cy <= support_box[1][1]
    return over and abs(gap) <= tolerance, gap, over


def sampled_frames(params: dict) -> list[int]:
    start, end, step = int(params["frame_start"]), int(params["frame_end"]), int(params.get("frame_step", 1))
    if step < 1 or end < start:
        raise ValueError(f"bad frame sampling {start}..{end} step {step}")
    return list(range(start, end + 1, step))


def names_param(params: dict) -> list[str]:
    """``objects`` (a list) or ``object`` (one name)."""
    names = params.get("objects", [params["object"]] if "object" in params else None)
    if not names:
        raise ValueError("params need 'object' or a non-empty 'objects'")
    return list(names)


def first_frames(frames: list[int], limit: int = 10) -> list[int]:
    """A bounded list of frames for evidence (reports stay small)."""
    return list(frames[:limit])


# --- registry ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Primitive:
    fn: Callable[[Probe, dict], Outcome]
    # required param names; "a|b" means either one
    required: tuple[str, ...]
    group: str = "task"
    doc: str = field(default="", compare=False)


PRIMITIVES: dict[str, Primitive] = {}


def _origin(fn) -> tuple[str, str]:
    return str(Path(fn.__code__.co_filename).resolve()), fn.__qualname__


GROUPS = ("objects", "geometry", "animation", "materials", "render_spec", "task")


def primitive(name: str | None = None, *, required: tuple[str, ...] = (), group: str = "task"):
    """Register ``fn`` as the rubric method ``name`` (default: the function's name).  A name
    belongs to one definition: a task probe cannot silently replace a built-in.  (The same
    source file imported twice -- RewardKit imports every .py in tests/ under its own module
    name -- re-registers its own definitions, which is harmless.)"""

    def deco(fn: Callable[[Probe, dict], Outcome]) -> Callable[[Probe, dict], Outcome]:
        method = name or fn.__name__
        if group not in GROUPS:
            raise ValueError(f"{method}: unknown probe group {group!r}")
        prev = PRIMITIVES.get(method)
        if prev is not None and _origin(prev.fn) != _origin(fn):
            raise ValueError(f"rule method {method!r} is already registered (by {_origin(prev.fn)[0]})")
        PRIMITIVES[method] = Primitive(fn, tuple(required), group, (fn.__doc__ or "").strip())
        return fn

    return deco


def load_task_probes(path: Path) -> list[str]:
    """Import a task's own probe module (``task_probes.py``); returns the methods it added.
    It is task-author code shipped in the verifier's tests/, never anything from a delivery."""
    before = set(PRIMITIVES)
    spec = importlib.util.spec_from_file_location(f"arkevo_task_probes_{abs(hash(str(path)))}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load task probes from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return sorted(set(PRIMITIVES) - before)


def validate(method: str, params: dict) -> None:
    """Reject an unknown method or missing params before any delivery is opened."""
    if method not in PRIMITIVES:
        raise KeyError(f"unknown rule method {method!r}")
    missing = [r for r in PRIMITIVES[method].required if not any(k in params for k in r.split("|"))]
    if missing:
        raise ValueError(f"{method}: missing param(s) {', '.join(missing)}")


def measure(probe: Probe, method: str, params: dict) -> Outcome:
    """Run one primitive; absent objects score 0, anything else unexpected propagates."""
    validate(method, params)
    try:
        return PRIMITIVES[method].fn(probe, params)
    except MissingObjects as exc:
        return Outcome(0.0, False, None, None, str(exc), {"missing_objects": exc.names})
