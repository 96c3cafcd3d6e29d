"""Rule-probe primitives: each measures one property of the open Blender scene (bpy only).

Every primitive is ``fn(probe, params) -> Outcome`` and is registered in ``PRIMITIVES`` under
its rubric ``method`` name.  Geometry is always measured in world space on the *evaluated*
scene after ``scene.frame_set(f)``, so parenting, constraints, modifiers and animation count
exactly as Blender shows them.  An object named in the rubric but absent from the scene is a
measured fact (score 0, see ``MissingObjects``); a malformed rubric raises.

Parameter reference: docs/scoring.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import bpy
import numpy as np  # a dependency of the bpy package, so always present alongside it
from bpy_extras import anim_utils

# Measured numbers are rounded so reports are stable, readable text.
DIGITS = 6
# Object types whose evaluated geometry can be turned into a mesh.
GEOMETRY_TYPES = {"MESH", "CURVE", "SURFACE", "META", "FONT", "CURVES", "POINTCLOUD", "VOLUME"}

Vec = tuple[float, float, float]
AABB = tuple[Vec, Vec]


@dataclass(frozen=True)
class Outcome:
    score: float
    passed: bool
    measured: Any
    expected: Any
    detail: str


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


def fraction_outcome(ok: int, total: int, measured: Any, expected: Any, detail: str) -> Outcome:
    return Outcome(ok / total if total else 0.0, total > 0 and ok == total, measured, expected, detail)


def binary_outcome(passed: bool, measured: Any, expected: Any, detail: str) -> Outcome:
    return Outcome(1.0 if passed else 0.0, passed, measured, expected, detail)


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


def aabb_size(box: AABB) -> Vec:
    return tuple(box[1][i] - box[0][i] for i in range(3))


def aabb_point(box: AABB, which: str) -> Vec:
    (x0, y0, z0), (x1, y1, z1) = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    points = {"aabb_center": (cx, cy, (z0 + z1) / 2), "aabb_bottom_center": (cx, cy, z0), "top_center": (cx, cy, z1)}
    if which not in points:
        raise ValueError(f"unknown point {which!r}; use origin, {', '.join(points)}")
    return points[which]


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


# --- primitives -----------------------------------------------------------------------------


def object_exists(probe: Probe, p: dict) -> Outcome:
    found = probe.scene.objects.get(p["object"]) is not None
    return binary_outcome(found, found, True, f"{p['object']} {'found' if found else 'not found'} in scene")


def objects_exist(probe: Probe, p: dict) -> Outcome:
    names = list(p["objects"])
    missing = [n for n in names if probe.scene.objects.get(n) is None]
    measured = {"found": [n for n in names if n not in missing], "missing": missing}
    detail = "all found" if not missing else "missing: " + ", ".join(missing)
    return fraction_outcome(len(names) - len(missing), len(names), measured, names, detail)


def dimensions(probe: Probe, p: dict) -> Outcome:
    names, expected, tol = names_param(p), [float(v) for v in p["expected"]], float(p["tolerance"])
    size = aabb_size(probe.union_aabb(probe.objects(names), int(p.get("frame", 1))))
    errors = [abs(s - e) for s, e in zip(size, expected)]
    ok = all(e <= tol for e in errors)
    detail = f"world AABB size of {', '.join(names)}; max axis error {max(errors):.4f} (tolerance {tol})"
    return binary_outcome(ok, rnd(size), expected, detail)


def object_min_z(probe: Probe, p: dict) -> Outcome:
    names, expected, tol = names_param(p), float(p.get("expected", 0.0)), float(p["tolerance"])
    frame = int(p.get("frame", 1))
    lows = {o.name: probe.aabb(o, frame)[0][2] for o in probe.objects(names)}
    bad = [n for n, z in lows.items() if abs(z - expected) > tol]
    detail = "all lowest points at expected height" if not bad else "off: " + ", ".join(bad)
    return fraction_outcome(len(names) - len(bad), len(names), rnd(lows), expected, detail)


def material_assigned(probe: Probe, p: dict) -> Outcome:
    names, wanted = names_param(p), p["material"]
    slots = {o.name: [s.material.name if s.material else None for s in o.material_slots] for o in probe.objects(names)}
    bad = [n for n, mats in slots.items() if wanted not in mats]
    detail = f"every object has {wanted!r}" if not bad else f"without {wanted!r}: " + ", ".join(bad)
    return fraction_outcome(len(names) - len(bad), len(names), slots, wanted, detail)


def _fcurves(obj: bpy.types.Object, data_path: str, index: int | None) -> list:
    """Matching F-curves of the active action and of every NLA strip's action."""
    ad = obj.animation_data
    if ad is None:
        return []
    pairs = [(ad.action, ad.action_slot)] + [(s.action, s.action_slot) for t in ad.nla_tracks for s in t.strips]
    curves = []
    for action, slot in pairs:
        bag = anim_utils.action_get_channelbag_for_slot(action, slot) if action and slot else None
        for fc in bag.fcurves if bag else []:
            if fc.data_path == data_path and (index is None or fc.array_index == index):
                curves.append(fc)
    return curves


def keyframes_on_channel(probe: Probe, p: dict) -> Outcome:
    obj = probe.obj(p["object"])
    start, end = float(p["frame_start"]), float(p["frame_end"])
    keys = [
        tuple(k.co)
        for fc in _fcurves(obj, p["data_path"], p.get("index"))
        for k in fc.keyframe_points
        if start <= k.co[0] <= end
    ]
    # Per-curve values would be fairer for vectors, but one channel index is the common case.
    distinct = len({round(k[1], 4) for k in keys})
    need_keys, need_distinct = int(p.get("min_keyframes", 2)), int(p.get("min_distinct_values", 2))
    ok = len(keys) >= need_keys and distinct >= need_distinct
    channel = p["data_path"] + (f"[{p['index']}]" if p.get("index") is not None else "")
    detail = f"{len(keys)} keyframes, {distinct} distinct values on {p['object']}.{channel} in {start:g}..{end:g}"
    expected = {"min_keyframes": need_keys, "min_distinct_values": need_distinct}
    return binary_outcome(ok, {"keyframes": len(keys), "distinct_values": distinct}, expected, detail)


def location_at_frame(probe: Probe, p: dict) -> Outcome:
    obj, frame, which = probe.obj(p["object"]), int(p["frame"]), p.get("point", "origin")
    expected, tol = [float(v) for v in p["expected"]], float(p["tolerance"])
    point = probe.origin(obj, frame) if which == "origin" else aabb_point(probe.aabb(obj, frame), which)
    err = math.dist(point, expected)
    detail = f"{which} of {obj.name} at frame {frame} is {err:.4f} from expected (tolerance {tol})"
    return binary_outcome(err <= tol, rnd(point), expected, detail)


def rests_on_at_frame(probe: Probe, p: dict) -> Outcome:
    obj, support = probe.objects([p["object"], p["support"]])
    frame, tol = int(p["frame"]), float(p["tolerance"])
    ok, gap, over = rests_on(probe.aabb(obj, frame), probe.aabb(support, frame), tol)
    detail = (
        f"at frame {frame} {obj.name}'s bottom is {rnd(gap):+.4f} m from {support.name}'s top "
        f"(negative: below it); centre over it: {over}"
    )
    measured = {"gap": rnd(gap), "centre_over_support": over}
    return binary_outcome(ok, measured, {"support": support.name, "gap": 0.0, "tolerance": tol}, detail)


def no_interpenetration(probe: Probe, p: dict) -> Outcome:
    obj, others = probe.obj(p["object"]), probe.objects(list(p["others"]))
    frames, tol = sampled_frames(p), float(p["tolerance"])
    worst, worst_at, bad_frames = 0.0, None, 0
    for f in frames:
        depths = [(penetration_depth(probe.aabb(obj, f), probe.aabb(o, f)), o.name) for o in others]
        depth, other = max(depths)
        bad_frames += depth > tol
        if depth > worst:
            worst, worst_at = depth, (f, other)
    detail = f"{bad_frames}/{len(frames)} sampled frames penetrate deeper than {tol}"
    if bad_frames:
        detail += f"; deepest {worst:.4f} into {worst_at[1]} at frame {worst_at[0]}"
    measured = {"max_depth": rnd(worst), "frames_penetrating": bad_frames, "frames_sampled": len(frames)}
    return fraction_outcome(len(frames) - bad_frames, len(frames), measured, {"max_depth": tol}, detail)


def _support_state(probe: Probe, p: dict, obj, supports, carrier, frame: int) -> str | None:
    """'rest' or 'carried' when supported at this frame, else None."""
    box = probe.aabb(obj, frame)
    if any(rests_on(box, probe.aabb(s, frame), float(p["rest_tolerance"]))[0] for s in supports):
        return "rest"
    anchor = aabb_point(box, p.get("anchor", "top_center"))
    if math.dist(anchor, probe.origin(carrier, frame)) <= float(p["carrier_tolerance"]):
        return "carried"
    return None


def supported_throughout(probe: Probe, p: dict) -> Outcome:
    obj, carrier = probe.obj(p["object"]), probe.obj(p["carrier"])
    supports, frames = probe.objects(list(p["supports"])), sampled_frames(p)
    max_step, min_carried = p.get("max_step"), int(p.get("min_carried_frames", 0))
    unsupported, carried, prev = [], 0, None
    for f in frames:
        state = _support_state(probe, p, obj, supports, carrier, f)
        here = aabb_point(probe.aabb(obj, f), "aabb_center")
        # A jump between samples means the object travelled unsupported (teleport).
        if max_step is not None and prev is not None and math.dist(here, prev) > float(max_step):
            state = None
        prev = here
        carried += state == "carried"
        if state is None:
            unsupported.append(f)
    ok_frames = len(frames) - len(unsupported)
    carry_factor = min(1.0, carried / min_carried) if min_carried else 1.0
    score = ok_frames / len(frames) * carry_factor
    measured = {"frames_sampled": len(frames), "frames_unsupported": len(unsupported), "frames_carried": carried}
    detail = f"{len(unsupported)} unsupported frame(s)"
    if unsupported:
        detail += f" (first {unsupported[0]})"
    detail += f"; carried at {carried} frame(s), need {min_carried}"
    expected = {"frames_unsupported": 0, "min_carried_frames": min_carried}
    return Outcome(score, score == 1.0, measured, expected, detail)


def frame_range(probe: Probe, p: dict) -> Outcome:
    measured = [probe.scene.frame_start, probe.scene.frame_end]
    expected = [int(p["frame_start"]), int(p["frame_end"])]
    return binary_outcome(measured == expected, measured, expected, f"scene frames {measured[0]}..{measured[1]}")


def aabb_within(probe: Probe, p: dict) -> Outcome:
    regions, frame = p["regions"], int(p.get("frame", 1))
    objs = probe.objects(list(regions))
    measured, bad = {}, []
    for o in objs:
        lo, hi = probe.aabb(o, frame)
        rmin, rmax = regions[o.name]["min"], regions[o.name]["max"]
        measured[o.name] = {"min": rnd(lo), "max": rnd(hi)}
        if any(lo[i] < rmin[i] or hi[i] > rmax[i] for i in range(3)):
            bad.append(o.name)
    detail = "all inside their regions" if not bad else "outside region: " + ", ".join(bad)
    return fraction_outcome(len(objs) - len(bad), len(objs), measured, regions, detail)


def aabb_contact(probe: Probe, p: dict) -> Outcome:
    obj, others = probe.obj(p["object"]), probe.objects(list(p["others"]))
    frame, tol = int(p.get("frame", 1)), float(p["tolerance"])
    gaps = {o.name: aabb_gap(probe.aabb(obj, frame), probe.aabb(o, frame)) for o in others}
    bad = [n for n, g in gaps.items() if g > tol]
    detail = f"all touch {obj.name}" if not bad else f"not touching {obj.name}: " + ", ".join(bad)
    return fraction_outcome(len(others) - len(bad), len(others), rnd(gaps), {"max_gap": tol}, detail)


def stays_in_place(probe: Probe, p: dict) -> Outcome:
    places, frames, tol = p["objects"], sampled_frames(p), float(p["tolerance"])
    drift = {}
    for o in probe.objects(list(places)):
        drift[o.name] = max(math.dist(probe.origin(o, f), places[o.name]) for f in frames)
    bad = [n for n, d in drift.items() if d > tol]
    detail = "all stayed in place" if not bad else "moved: " + ", ".join(bad)
    return fraction_outcome(len(drift) - len(bad), len(drift), {"max_drift": rnd(drift)}, places, detail)


@dataclass(frozen=True)
class Primitive:
    fn: Callable[[Probe, dict], Outcome]
    # required param names; "a|b" means either one
    required: tuple[str, ...]


FRAMES = ("frame_start", "frame_end")
PRIMITIVES: dict[str, Primitive] = {
    "object_exists": Primitive(object_exists, ("object",)),
    "objects_exist": Primitive(objects_exist, ("objects",)),
    "dimensions": Primitive(dimensions, ("object|objects", "expected", "tolerance")),
    "object_min_z": Primitive(object_min_z, ("object|objects", "tolerance")),
    "material_assigned": Primitive(material_assigned, ("object|objects", "material")),
    "keyframes_on_channel": Primitive(keyframes_on_channel, ("object", "data_path", *FRAMES)),
    "location_at_frame": Primitive(location_at_frame, ("object", "frame", "expected", "tolerance")),
    "rests_on_at_frame": Primitive(rests_on_at_frame, ("object", "support", "frame", "tolerance")),
    "no_interpenetration": Primitive(no_interpenetration, ("object", "others", "tolerance", *FRAMES)),
    "supported_throughout": Primitive(
        supported_throughout,
        ("object", "supports", "carrier", "rest_tolerance", "carrier_tolerance", *FRAMES),
    ),
    "frame_range": Primitive(frame_range, FRAMES),
    "aabb_within": Primitive(aabb_within, ("regions",)),
    "aabb_contact": Primitive(aabb_contact, ("object", "others", "tolerance")),
    "stays_in_place": Primitive(stays_in_place, ("objects", "tolerance", *FRAMES)),
}


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
        return Outcome(0.0, False, None, None, str(exc))
