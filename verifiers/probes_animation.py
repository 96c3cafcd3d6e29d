"""Probe group: transforms and animation (keyframes on a channel, value or location at a frame,
a path through sampled frames, resting / support / interpenetration over sampled frames, one
object moving with another (attachment through the hierarchy or constraints), each joint of a
jointed machine turning only about its own axis, frame range, fps).  Runs in bpy."""

from __future__ import annotations

import math
import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # standalone: siblings only
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy  # noqa: E402
import numpy as np  # noqa: E402
from bpy_extras import anim_utils  # noqa: E402
from mathutils import Matrix, Vector  # noqa: E402

from probe_core import (  # noqa: E402
    POINTS, Outcome, Probe, aabb_point, binary_outcome, contact_share, first_frames, fixed_shape, fraction_outcome,
    object_point, penetration_depth, primitive, remember, rests_on, rnd, sampled_frames, vertex_positions,
)
from probes_solid import solid_of, surface_distance  # noqa: E402

FRAMES = ("frame_start", "frame_end")
# frame sampling params (probe_core.sampled_frames)
SAMPLING = {"frame_start": "integer", "frame_end": "integer", "frame_step": "step"}


def _nla_strips(ad) -> list:
    """Every NLA strip of ``ad``'s tracks, those inside META strips at any depth too."""
    out: list = []
    stack = [s for t in ad.nla_tracks for s in t.strips]
    while stack:
        strip = stack.pop()
        out.append(strip)
        stack.extend(getattr(strip, "strips", ()))
    return out


def _fcurves(obj: bpy.types.Object, data_path: str, index: int | None) -> list:
    """Matching F-curves of the active action and of every NLA strip's action (nested too)."""
    ad = obj.animation_data
    if ad is None:
        return []
    pairs = [(ad.action, ad.action_slot)] + [(s.action, s.action_slot) for s in _nla_strips(ad)]
    curves = []
    for action, slot in pairs:
        bag = anim_utils.action_get_channelbag_for_slot(action, slot) if action and slot else None
        for fc in bag.fcurves if bag else []:
            if fc.data_path == data_path and (index is None or fc.array_index == index):
                curves.append(fc)
    return curves


@primitive(group="animation", required=("object", "data_path", *FRAMES),
           params={"object": "name", "data_path": "name", "index": "count", "frame_start": "number",
                   "frame_end": "number", "min_keyframes": "count", "min_distinct_values": "count"})
def keyframes_on_channel(probe: Probe, p: dict):
    """The channel's F-curves hold >= ``min_keyframes`` keys with >= ``min_distinct_values``
    distinct values within the frame range."""
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
    frames = sorted({round(k[0], 3) for k in keys})
    return binary_outcome(ok, {"keyframes": len(keys), "distinct_values": distinct}, expected, detail,
                          {"key_frames": first_frames(frames, 20)})


@primitive(group="animation", required=("object", "frame", "expected", "tolerance"),
           params={"object": "name", "frame": "integer", "expected": "vec3", "tolerance": "tolerance",
                   "point": "point"})
def location_at_frame(probe: Probe, p: dict):
    """The object's world point (``point``: origin, aabb_center, aabb_bottom_center,
    top_center) is within ``tolerance`` (Euclidean) of ``expected`` at ``frame``."""
    obj, frame, which = probe.obj(p["object"]), int(p["frame"]), p.get("point", "origin")
    expected, tol = [float(v) for v in p["expected"]], float(p["tolerance"])
    point = object_point(probe, obj, frame, which)
    err = math.dist(point, expected)
    detail = f"{which} of {obj.name} at frame {frame} is {err:.4f} from expected (tolerance {tol})"
    return binary_outcome(err <= tol, rnd(point), expected, detail, {"frame": frame, "error": rnd(err)})


def _value(obj, data_path: str, index: int | None):
    try:
        value = obj.path_resolve(data_path)
    except ValueError as exc:
        raise _Unresolvable(f"{obj.name} has no property {data_path!r}") from exc
    if index is not None:
        value = value[int(index)]
    if hasattr(value, "__len__") and not isinstance(value, str):
        return [float(v) for v in value]
    return float(value) if isinstance(value, (int, float, bool)) else value


class _Unresolvable(Exception):
    pass


@primitive(group="animation", required=("object", "data_path", "frame", "expected", "tolerance"),
           params={"object": "name", "data_path": "name", "index": "count", "frame": "integer",
                   "expected": "vector", "tolerance": "tolerance"})
def value_at_frame(probe: Probe, p: dict):
    """The animated property ``data_path`` (e.g. ``rotation_euler``, ``constraints["Carry"].influence``;
    ``index`` picks one component) equals ``expected`` within ``tolerance`` at ``frame`` (largest
    component error for vectors)."""
    obj, frame, tol = probe.obj(p["object"]), int(p["frame"]), float(p["tolerance"])
    probe.at(frame)
    try:  # the evaluated object: the value a render at that frame uses (drivers included)
        value = _value(obj.evaluated_get(probe.depsgraph), p["data_path"], p.get("index"))
    except _Unresolvable as exc:
        return Outcome(0.0, False, None, p["expected"], str(exc), {"frame": frame})
    expected = p["expected"]
    if isinstance(expected, list):
        if not isinstance(value, list) or len(value) != len(expected):
            return Outcome(0.0, False, value, expected, f"{p['data_path']} is not a {len(expected)}-vector",
                           {"frame": frame})
        err = max(abs(v - float(e)) for v, e in zip(value, expected))
    else:
        err = abs(float(value) - float(expected))
    detail = f"{obj.name}.{p['data_path']} at frame {frame}: error {err:.4f} (tolerance {tol})"
    return binary_outcome(err <= tol, rnd(value), expected, detail, {"frame": frame, "error": rnd(err)})


@primitive(group="animation", required=("object", "waypoints", "tolerance", *FRAMES),
           params={"object": "name", "waypoints": "waypoints", "tolerance": "tolerance", "point": "point",
                   "ordered": "bool", **SAMPLING})
def path_through(probe: Probe, p: dict):
    """Over the sampled frames the object's ``point`` passes within ``tolerance`` of every
    waypoint [x, y, z], in the listed order unless ``ordered: false``.  Scores the share of
    waypoints reached."""
    obj, frames, tol = probe.obj(p["object"]), sampled_frames(p), float(p["tolerance"])
    which = p.get("point", "origin")
    if which not in POINTS:
        raise ValueError(f"unknown point {which!r}")
    track = [(f, object_point(probe, obj, f, which)) for f in frames]
    ordered = bool(p.get("ordered", True))
    reached, after = {}, frames[0] - 1
    closest = {}
    for i, wp in enumerate(p["waypoints"]):
        wp = [float(v) for v in wp]
        best = min(track, key=lambda t: math.dist(t[1], wp))
        closest[i] = {"frame": best[0], "distance": rnd(math.dist(best[1], wp))}
        hits = [f for f, pt in track if math.dist(pt, wp) <= tol and (not ordered or f > after)]
        if hits:
            reached[i] = hits[0]
            if ordered:
                after = hits[0]
    missed = [i for i in range(len(p["waypoints"])) if i not in reached]
    detail = f"reached {len(reached)}/{len(p['waypoints'])} waypoints within {tol}"
    if missed:
        detail += f"; first missed #{missed[0]} (closest {closest[missed[0]]['distance']} at frame {closest[missed[0]]['frame']})"
    measured = {"reached_at": {str(i): f for i, f in reached.items()}}
    return fraction_outcome(len(reached), len(p["waypoints"]), measured, p["waypoints"], detail,
                            {"closest": {str(i): c for i, c in closest.items()}})


@primitive(group="animation", required=("object", "support", "frame", "tolerance"),
           params={"object": "name", "support": "name", "frame": "integer", "tolerance": "tolerance"})
def rests_on_at_frame(probe: Probe, p: dict):
    """The object's AABB bottom is within ``tolerance`` of the support's AABB top and its
    centre lies over the support's footprint at ``frame``."""
    obj, support = probe.objects([p["object"], p["support"]])
    frame, tol = int(p["frame"]), float(p["tolerance"])
    ok, gap, over = rests_on(probe.aabb(obj, frame), probe.aabb(support, frame), tol)
    detail = (
        f"at frame {frame} {obj.name}'s bottom is {rnd(gap):+.4f} m from {support.name}'s top "
        f"(negative: below it); centre over it: {over}"
    )
    measured = {"gap": rnd(gap), "centre_over_support": over}
    return binary_outcome(ok, measured, {"support": support.name, "gap": 0.0, "tolerance": tol}, detail,
                          {"frame": frame})


@primitive(group="animation", required=("object", "others", "tolerance", *FRAMES),
           params={"object": "name", "others": "names", "tolerance": "tolerance", **SAMPLING})
def no_interpenetration(probe: Probe, p: dict):
    """At no sampled frame does the object's AABB overlap another's by more than ``tolerance``."""
    obj, others = probe.obj(p["object"]), probe.objects(list(p["others"]))
    frames, tol = sampled_frames(p), float(p["tolerance"])
    worst, worst_at, bad = 0.0, None, []
    for f in frames:
        depths = [(penetration_depth(probe.aabb(obj, f), probe.aabb(o, f)), o.name) for o in others]
        depth, other = max(depths)
        if depth > tol:
            bad.append(f)
        if depth > worst:
            worst, worst_at = depth, (f, other)
    detail = f"{len(bad)}/{len(frames)} sampled frames penetrate deeper than {tol}"
    if bad:
        detail += f"; deepest {worst:.4f} into {worst_at[1]} at frame {worst_at[0]}"
    measured = {"max_depth": rnd(worst), "frames_penetrating": len(bad), "frames_sampled": len(frames)}
    return fraction_outcome(len(frames) - len(bad), len(frames), measured, {"max_depth": tol}, detail,
                            {"frames_penetrating": first_frames(bad)})


def _contacts(probe: Probe, p: dict, obj, supports, carrier, frame: int) -> tuple[list[str], bool]:
    """(the supports the object rests on, whether its anchor is at the carrier) at ``frame``."""
    box = probe.aabb(obj, frame)
    rests = [s.name for s in supports if rests_on(box, probe.aabb(s, frame), float(p["rest_tolerance"]))[0]]
    anchor = aabb_point(box, p.get("anchor", "top_center"))
    held = math.dist(anchor, probe.origin(carrier, frame)) <= float(p["carrier_tolerance"])
    return rests, held


def _rigid_matrix(probe: Probe, obj, frame: int) -> np.ndarray:
    """``obj``'s world location and rotation at ``frame`` as a 4x4 array (its scale left out:
    a holder that grows does not carry what it holds further out)."""
    loc, rot, _scale = probe.world(obj, frame).decompose()
    return np.array(Matrix.Translation(loc) @ rot.to_matrix().to_4x4(), dtype=np.float64)


def _drawn_points(probe: Probe, obj, frame: int) -> np.ndarray:
    """What the render draws of ``obj`` at ``frame``, as world points (n, 3): its evaluated
    vertices and instances (a turn of the mesh in its own space shows as much as one of the
    object); an object that draws nothing is its origin and the tips of its unit axes."""
    mesh = probe.mesh_arrays(obj, frame)
    if mesh is not None and len(mesh["co"]):
        return mesh["co"]
    m = np.array(probe.world(obj, frame), dtype=np.float64)
    return np.vstack([m[:3, 3], m[:3, 3] + m[:3, :3].T])


class _SlipTrack:
    """Whether the object stays put on what holds it between consecutive sampled frames.

    While it rests on a support (at both frames of a step) its drawn points must keep their
    place relative to that support, and while it is held (at both frames) their place relative
    to the carrier (location and rotation): a point may drift at most ``tolerance`` from where
    the placement at the start of the stretch puts it (so a slow creep adds up and is caught;
    while it both rests and is held, both stretches go on and it must stay within the tolerance
    of at least one).
    A step passes when the object stayed still on a support or rigid in the grip (the gripper
    may drag it across the table); a step at which it changes state (rests at one end and is
    held at the other only) is the pickup or the set-down, and is not judged here."""

    def __init__(self, probe: Probe, obj, carrier, supports, tolerance: float, snap: float | None = None):
        self.probe, self.obj, self.carrier, self.tolerance, self.snap = probe, obj, carrier, tolerance, snap
        self.supports = {s.name: s for s in supports}
        self.frames: list[int] = []
        self.contacts: list[tuple[list[str], bool]] = []
        self.rest_anchor = self.hold_anchor = 0  # index of the frame each stretch started at
        self.worst = 0.0  # the largest drift in a step that passed
        self._points: dict[int, np.ndarray] = {}  # frame -> drawn points (each frame read once)

    def points(self, frame: int) -> np.ndarray:
        if frame not in self._points:
            self._points[frame] = _drawn_points(self.probe, self.obj, frame)
        return self._points[frame]

    def drift(self, holder, a: int, b: int) -> float:
        """Largest distance at frame index ``b`` between a drawn point and where it would be had
        it stayed rigidly on ``holder`` since frame index ``a``."""
        fa, fb = self.frames[a], self.frames[b]
        before, after = self.points(fa), self.points(fb)
        if before.shape != after.shape:
            return math.inf  # the drawn shape changed: nothing rigid about it
        move = _rigid_matrix(self.probe, holder, fb) @ np.linalg.inv(_rigid_matrix(self.probe, holder, fa))
        moved = before @ move[:3, :3].T + move[:3, 3]
        return float(np.linalg.norm(after - moved, axis=1).max())

    def step(self, frame: int, rests: list[str], held: bool) -> bool:
        """Record ``frame``; True when the object slipped since the previous sampled frame."""
        self.frames.append(frame)
        self.contacts.append((rests, held))
        k = len(self.frames) - 1
        if k == 0:
            return False
        (prev_rests, prev_held), tol = self.contacts[k - 1], self.tolerance
        common = [n for n in rests if n in prev_rests]
        rest_drift = min((self.drift(self.supports[n], self.rest_anchor, k) for n in common), default=math.inf)
        hold_drift = self.drift(self.carrier, self.hold_anchor, k) if prev_held and held else math.inf
        still, rigid = rest_drift <= tol, hold_drift <= tol
        # a stretch goes on while its own kind of stillness explains the step, and while both do
        # both go on: a box that turns a little each frame under a still pad, within the
        # tolerance of each step against both, adds up against both (red team 45: 0.58 degrees
        # a frame, 28 degrees against the pad in all; each anchor was reset at every such step)
        if not still:
            self.rest_anchor = k
        if not rigid:
            self.hold_anchor = k
        keep = {self.frames[self.rest_anchor], self.frames[self.hold_anchor], frame}
        self._points = {f: pts for f, pts in self._points.items() if f in keep}  # a big mesh: few copies
        judged = bool(common) or (prev_held and held)
        if still or rigid:
            self.worst = max(self.worst, min(rest_drift, hold_drift))
        if not judged and self.snap is not None:
            return self.snapped(prev_rests + rests, k) > self.snap
        return judged and not (still or rigid)

    def snapped(self, supports: list[str], k: int) -> float:
        """How far the object jumped at a pickup or set-down step (frame index ``k - 1`` to
        ``k``): the least drift of its drawn points from staying on a support it rests on at
        either end, or from moving rigidly with the carrier.  A suction pad takes the box where
        it is: a box that leaps into the grip, or turns as it is taken, moves far from both."""
        on_support = (self.drift(self.supports[n], k - 1, k) for n in dict.fromkeys(supports))
        return min([self.drift(self.carrier, k - 1, k), *on_support])


@primitive(group="animation",
           required=("object", "supports", "carrier", "rest_tolerance", "carrier_tolerance", *FRAMES),
           params={"object": "name", "supports": "names", "carrier": "name", "rest_tolerance": "tolerance",
                   "carrier_tolerance": "tolerance", "anchor": "anchor", "max_step": "tolerance",
                   "min_carried_frames": "count", "slip_tolerance": "tolerance", "snap_tolerance": "tolerance",
                   "pad_from": "name", "pad_tolerance_deg": "number", "pad_contact": "tolerance",
                   "min_contact": "tolerance", "max_pickups": "count", **SAMPLING})
def supported_throughout(probe: Probe, p: dict):
    """At every sampled frame the object rests on a support or hangs at the carrier; no jump
    larger than ``max_step``; carried for at least ``min_carried_frames`` frames.  With
    ``slip_tolerance`` (m; off by default) it also stays put on what holds it (``_SlipTrack``):
    between consecutive frames at which it rests on one support it does not move on it, and
    between consecutive frames at which it is held it moves rigidly with the carrier (rotation
    included), each drawn point within ``slip_tolerance`` of where the stretch's first frame
    puts it; a frame where it slid or turned counts as unsupported.  With ``snap_tolerance`` (m;
    needs ``slip_tolerance``) the pickup and set-down steps are judged too: across such a step
    the object stays on its support or moves rigidly with the carrier, each drawn point within
    ``snap_tolerance``; a box that leaps into the grip or out of it, or turns as it is taken,
    counts as unsupported at that frame.  With ``pad_from`` (the link carrying the carrier: a
    gripper's wrist) the pad must face what it holds: at every frame the object is held, the
    direction from ``pad_from``'s origin to the carrier's points from the anchor into the object
    (a top-centre anchor: straight down onto the top face) within ``pad_tolerance_deg`` (10); a
    pad facing up from inside the box, or side-on, is no grip (red team 13).  An object rests
    only sitting flat where nothing holds it: its drawn points within ``rest_tolerance`` of its
    lowest span at least ``min_contact`` (default 0.5) of its width on each horizontal axis
    (``contact_share``, as ``rests_on_face``) -- red team 29: a box left unheld on one edge,
    tipped 9.5 degrees, for 38 frames; the gripper may roll it on an edge while it holds it.
    With ``max_pickups``, the object goes from resting to carried (clear of every support) at
    most that many times: one pick-and-place move is one pickup (red team 39: a box set down
    on the target, taken again, carried back over the start and brought back)."""
    obj, carrier = probe.obj(p["object"]), probe.obj(p["carrier"])
    supports, frames = probe.objects(list(p["supports"])), sampled_frames(p)
    max_step, min_carried = p.get("max_step"), int(p.get("min_carried_frames", 0))
    slip = p.get("slip_tolerance")
    snap = p.get("snap_tolerance")
    track = (_SlipTrack(probe, obj, carrier, supports, float(slip), float(snap) if snap is not None else None)
             if slip is not None else None)
    pad_from = probe.obj(p["pad_from"]) if "pad_from" in p else None
    pad_tol = float(p.get("pad_tolerance_deg", 10.0))
    pad_contact = float(p.get("pad_contact", PAD_CONTACT))
    unsupported, slipped, misfaced, worst_pad, carried, prev = [], [], [], 0.0, 0, None
    pickups: list[int] = []
    last_state: str | None = None
    apart, worst_gap, tipped = [], 0.0, []
    min_contact = float(p.get("min_contact", 0.5))
    for f in frames:
        rests, held = _contacts(probe, p, obj, supports, carrier, f)
        if held and pad_from is not None:
            turn = _pad_angle(probe, obj, carrier, pad_from, p.get("anchor", "top_center"), f)
            worst_pad = max(worst_pad, turn)
            if turn > pad_tol:
                held = False  # the tip is at the face, the pad is not on it
                misfaced.append(f)
            else:
                gap = _pad_gap(probe, pad_from, obj, f, pad_contact)
                worst_gap = max(worst_gap, gap)
                if gap > pad_contact:
                    held = False  # the pad hovers over the face: nothing holds the object
                    apart.append(f)
        if rests and not held and contact_share(_drawn_points(probe, obj, f), float(p["rest_tolerance"])) < min_contact:
            rests = []  # on an edge or a corner with nothing holding it: it would fall flat
            tipped.append(f)
        state = "rest" if rests else "carried" if held else None
        here = aabb_point(probe.aabb(obj, f), "aabb_center")
        # A jump between samples means the object travelled unsupported (teleport).
        if max_step is not None and prev is not None and math.dist(here, prev) > float(max_step):
            state = None
        prev = here
        carried += state == "carried"
        if state == "carried" and last_state == "rest":
            pickups.append(f)
        last_state = state if state is not None else last_state
        slid = track is not None and track.step(f, rests, held)  # every frame: steps are consecutive
        if slid and state is not None:
            slipped.append(f)
            state = None
        if state is None:
            unsupported.append(f)
    ok_frames = len(frames) - len(unsupported)
    carry_factor = min(1.0, carried / min_carried) if min_carried else 1.0
    score = ok_frames / len(frames) * carry_factor
    measured = {"frames_sampled": len(frames), "frames_unsupported": len(unsupported), "frames_carried": carried,
                "pickups": len(pickups)}
    detail = f"{len(unsupported)} unsupported frame(s)"
    if unsupported:
        detail += f" (first {unsupported[0]})"
    detail += f"; carried at {carried} frame(s), need {min_carried}"
    expected = {"frames_unsupported": 0, "min_carried_frames": min_carried}
    evidence = {"frames_unsupported": first_frames(unsupported), "pickups_at": first_frames(pickups)}
    if "max_pickups" in p:
        most = int(p["max_pickups"])
        expected["max_pickups"] = most
        if len(pickups) > most:
            score *= most / len(pickups)
            detail += (f"; picked up {len(pickups)} times (frames {', '.join(map(str, pickups[:6]))}), "
                       f"at most {most}: set down and taken again")
    if track is not None:
        measured["frames_slipped"] = len(slipped)
        expected["slip_tolerance"] = float(slip)
        if snap is not None:
            expected["snap_tolerance"] = float(snap)
        evidence.update(frames_slipped=first_frames(slipped), max_drift_kept=rnd(track.worst))
        if slipped:
            detail += (f"; slid or turned on its support or in the grip (more than {float(slip):g} m)"
                       + (f", or jumped into or out of the grip (more than {float(snap):g} m)" if snap is not None else "")
                       + f" at {len(slipped)} frame(s) (first {slipped[0]})")
    if tipped:
        detail += (f"; standing on an edge or a corner where nothing holds it (flat contact under {min_contact:g}) at "
                   f"{len(tipped)} frame(s) (first {tipped[0]})")
        evidence["frames_tipped"] = first_frames(tipped)
    if set(apart) & set(unsupported):
        detail += f"; the pad off the object's face (up to {worst_gap:.4f} m, over {pad_contact:g} m) where nothing " \
                  f"else holds it: first frame {min(set(apart) & set(unsupported))}"
    if pad_from is not None:
        measured["frames_pad_misfaced"] = len(misfaced)
        measured["frames_pad_apart"] = len(apart)
        expected["pad_tolerance_deg"] = pad_tol
        expected["pad_contact"] = pad_contact
        evidence.update(frames_pad_misfaced=first_frames(misfaced), max_pad_angle_deg=rnd(worst_pad),
                        frames_pad_apart=first_frames(apart),
                        max_pad_gap=rnd(worst_gap) if math.isfinite(worst_gap) else None)
        if misfaced:
            detail += (f"; the pad does not face the box's face it is at ({pad_from.name} -> {carrier.name} "
                       f"up to {worst_pad:.1f} deg off, more than {pad_tol:g}) at {len(misfaced)} frame(s) "
                       f"(first {misfaced[0]})")
    return Outcome(score, score == 1.0, measured, expected, detail, evidence)


# The suction pad holds only what it touches (red team 23: a pad hovering 2.8 cm over the box
# "held" it, the tip within the carrier tolerance): the gap (m) between the surfaces of the link
# carrying the pad and the held object, at most.
PAD_CONTACT = 0.002


# (the two solids' world shapes) -> their gap (probe_core.remember): the carry's frames are the
# same shapes under every mutation operator that leaves the arm and the box be
_PAD_GAPS: dict[tuple, float] = {}


def _pad_gap(probe: Probe, pad_from, obj, frame: int, need: float) -> float:
    """Smallest distance (m) between ``pad_from``'s and ``obj``'s render-evaluated surfaces at
    ``frame`` (0 touching or overlapping), exact up to ``need``: beyond it, the distance between
    their boxes (a lower bound, all a verdict needs); infinite where either draws no surface."""
    pad, held = solid_of(probe, pad_from, frame), solid_of(probe, obj, frame)
    if pad is None or held is None or not pad.faces or not held.faces:  # no surface to touch
        return math.inf
    (plo, phi), (hlo, hhi) = pad.box(), held.box()
    apart = float(np.linalg.norm(np.maximum(0.0, np.maximum(plo - hhi, hlo - phi))))
    if apart > need:
        return apart
    key = (pad.digest(), held.digest())
    if key not in _PAD_GAPS:
        remember(_PAD_GAPS, key, surface_distance(pad, held)[0])
    return _PAD_GAPS[key]


def _pad_angle(probe: Probe, obj, carrier, pad_from, anchor: str, frame: int) -> float:
    """Degrees between the pad's axis (``pad_from``'s origin to the carrier's) and the way into
    ``obj`` from its ``anchor`` face point (to its AABB centre)."""
    box = probe.aabb(obj, frame)
    inward = np.subtract(aabb_point(box, "aabb_center"), aabb_point(box, anchor))
    axis = np.subtract(probe.origin(carrier, frame), probe.origin(pad_from, frame))
    if np.linalg.norm(inward) < 1e-9:
        raise ValueError(f"supported_throughout: pad_from needs a face anchor, not {anchor!r}")
    if np.linalg.norm(axis) < 1e-9:
        return 180.0  # no axis at all: the pad faces nowhere
    cos = float(np.dot(inward, axis) / (np.linalg.norm(inward) * np.linalg.norm(axis)))
    return math.degrees(math.acos(max(-1.0, min(1.0, cos))))


@primitive(group="animation", required=FRAMES, params={"frame_start": "integer", "frame_end": "integer"})
def frame_range(probe: Probe, p: dict):
    """The scene's frame range equals ``frame_start``..``frame_end``."""
    measured = [probe.scene.frame_start, probe.scene.frame_end]
    expected = [int(p["frame_start"]), int(p["frame_end"])]
    return binary_outcome(measured == expected, measured, expected, f"scene frames {measured[0]}..{measured[1]}")


@primitive(group="animation", required=("expected",), params={"expected": "number", "tolerance": "tolerance"})
def fps(probe: Probe, p: dict):
    """The scene's frame rate (fps / fps_base) is within ``tolerance`` (default 1e-4) of
    ``expected``: a Custom base of 1.0004 runs 23.990 fps, not 24 (red team 21), while 48 / 2 and
    24 / 1 are exact in Blender's float."""
    r = probe.scene.render
    rate = r.fps / r.fps_base
    tol = float(p.get("tolerance", 1e-4))
    ok = abs(rate - float(p["expected"])) <= tol
    return binary_outcome(ok, rnd(rate), p["expected"], f"scene runs at {rate:.5f} fps",
                          {"fps": r.fps, "fps_base": rnd(r.fps_base)})


@primitive(group="animation", required=("objects", "tolerance", *FRAMES),
           params={"objects": "places", "tolerance": "tolerance", **SAMPLING})
def stays_in_place(probe: Probe, p: dict):
    """Each object's world origin stays within ``tolerance`` of its given location at every
    sampled frame."""
    places, frames, tol = p["objects"], sampled_frames(p), float(p["tolerance"])
    drift = {}
    for o in probe.objects(list(places)):
        drift[o.name] = max(math.dist(probe.origin(o, f), places[o.name]) for f in frames)
    bad = [n for n, d in drift.items() if d > tol]
    detail = "all stayed in place" if not bad else "moved: " + ", ".join(bad)
    return fraction_outcome(len(drift) - len(bad), len(drift), {"max_drift": rnd(drift)}, places, detail,
                            {"moved": bad})


# A change of step at least this large (m) is a jolt; one that turns back against the jolt before
# it, within this many frames, is a flick (on alternate frames: a flicker; every few: a shake).
FLICK_MIN = 0.02
SHAKE_SPAN = 4
# A change of step at least this large (m), turning back against the last such within this many
# frames, is a swing (``max_swings``; red team 43: the turntable jerked back and forth every 6
# frames through the carry, each change 9.4 cm, the box whipped +-12 cm six times).
SWING_MIN = 0.05
SWING_SPAN = 8


def _longest_flick_run(changes: list[np.ndarray | None], least: float = FLICK_MIN, span: int = SHAKE_SPAN) -> int:
    """The most flicks in a row of some point: ``changes`` per frame is each vertex's second
    difference (None where the vertices do not correspond).  A change over ``least`` is a
    jolt; a jolt within ``span`` frames of the point's last one and turned against it
    (a negative dot product) adds a flick to the run, one turned the same way keeps the run, and
    one further apart starts a new run."""
    longest = 0
    last: np.ndarray | None = None  # per vertex: its last jolt, the frame of it, the run so far
    last_at = run = np.zeros(0, dtype=np.int64)
    for k, d in enumerate(changes):
        if d is None or (last is not None and d.shape != last.shape):
            last = None
            continue
        if last is None:
            last, last_at, run = np.zeros_like(d), np.full(len(d), -10 ** 9), np.zeros(len(d), dtype=np.int64)
        jolt = np.linalg.norm(d, axis=1) > least
        near = (k - last_at) <= span
        turned = jolt & near & (np.einsum("ij,ij->i", d, last) < 0)
        run = np.where(jolt, np.where(turned, run + 1, np.where(near, run, 0)), run)
        longest = max(longest, int(run.max()) if len(run) else 0)
        last = np.where(jolt[:, None], d, last)
        last_at = np.where(jolt, k, last_at)
    return longest


@primitive(group="animation", required=("objects", "max_step", *FRAMES),
           params={"objects": "names", "max_step": "tolerance", "max_step_change": "tolerance",
                   "max_flicks": "count", "max_swings": "count", **SAMPLING})
def moves_smoothly(probe: Probe, p: dict):
    """No point of any object jumps: between consecutive sampled frames every vertex of its
    render-evaluated mesh (world space) moves at most ``max_step`` (m), and with
    ``max_step_change`` (m) its step changes by at most that much from one frame to the next
    (the second difference: a point that goes one way and comes straight back, or starts or
    stops dead at speed, changes its step by the sum); with ``max_flicks``, a point's change of
    step turns back at most that many times in a row (``_longest_flick_run``: changes over
    ``FLICK_MIN``, each within ``SHAKE_SPAN`` frames of the last -- a shudder on alternate frames,
    a shake every few); with ``max_swings``, so do its changes over ``SWING_MIN`` each within
    ``SWING_SPAN`` frames of the last (a swing back and forth).  A mesh whose
    vertex count changes between frames is followed by its bounding box's corners.  Red team 31:
    a robot arm snapped from its rest pose to the table in one frame (its gripper 1.56 m), and
    flicked between two poses on alternate frames, while the box it carried never moved more than
    the 25 cm allowed; red team 37: the turntable nudged +-0.016 rad on alternate frames through
    the swing, every change of step just under the 10 cm allowed, and swung +-0.085 rad at 3 Hz
    (the box +-11 cm, turning back every four frames)."""
    frames = sampled_frames(p)
    max_step, max_change = float(p["max_step"]), p.get("max_step_change")
    measured, failing = {}, {}
    for o in probe.objects(list(p["objects"])):
        points, steps, changes = _world_vertices(probe, o, frames), [], []
        seconds: list[np.ndarray | None] = []  # each vertex's change of step, where they correspond
        for i in range(1, len(points)):
            a, b = points[i - 1], points[i]
            steps.append(_step_between(a, b))
            if i >= 2:  # changes[k] is the change at frames[k + 1]
                c = points[i - 2]
                same = a is not None and b is not None and c is not None and len(a) == len(b) == len(c)
                second = b - 2 * a + c if same else None
                seconds.append(second)
                changes.append(float(np.linalg.norm(second, axis=1).max()) if second is not None else
                               0.0 if a is None or b is None or c is None else abs(steps[-1] - steps[-2]))
        step = max(steps, default=0.0)
        worst = int(np.argmax(steps)) if steps else 0
        m = {"max_step": step, "at_frame": frames[worst + 1] if steps else frames[0]}
        off = [f"a step of {step:.3f} m from frame {frames[worst]} to {frames[worst + 1]}"] if step > max_step else []
        if max_change is not None:
            change = max(changes, default=0.0)
            m["max_step_change"] = change
            if change > float(max_change):
                at = int(np.argmax(changes)) + 1
                off.append(f"its step changed by {change:.3f} m at frame {frames[at]}")
        if "max_flicks" in p:
            m["flicks_in_a_row"] = _longest_flick_run(seconds)
            if m["flicks_in_a_row"] > int(p["max_flicks"]):
                off.append(f"a point's step swung back and forth {m['flicks_in_a_row']} times in a row "
                           f"(more than {FLICK_MIN:g} m each way, within {SHAKE_SPAN} frames)")
        if "max_swings" in p:
            m["swings_in_a_row"] = _longest_flick_run(seconds, SWING_MIN, SWING_SPAN)
            if m["swings_in_a_row"] > int(p["max_swings"]):
                off.append(f"a point swung back and forth {m['swings_in_a_row']} times in a row "
                           f"(its step changing by more than {SWING_MIN:g} m each way, within {SWING_SPAN} frames)")
        measured[o.name] = rnd(m)
        if off:
            failing[o.name] = off
    expected = {"max_step": max_step, **({"max_step_change": float(max_change)} if max_change is not None else {}),
                **({"max_flicks": int(p["max_flicks"])} if "max_flicks" in p else {}),
                **({"max_swings": int(p["max_swings"])} if "max_swings" in p else {})}
    detail = "all move smoothly" if not failing else "jumps: " + "; ".join(
        f"{n} ({', '.join(c)})" for n, c in failing.items())
    return fraction_outcome(len(measured) - len(failing), len(measured), measured, expected, detail,
                            {"failing": failing})


def _world_vertices(probe: Probe, obj, frames: list[int]) -> list[np.ndarray | None]:
    """The world positions of ``obj``'s render-evaluated vertices at each frame.  A mesh whose
    shape cannot change (``fixed_shape``) and that draws no instances is its own vertices placed
    by each frame's world matrix -- a robot's link at 120 frames costs a matrix product each,
    not a mesh evaluation; any other is read frame by frame (``solid_of``)."""
    if fixed_shape(obj) and not probe.instances(frames[0]).get(obj.name):
        local = vertex_positions(obj.data).astype(np.float64).reshape(-1, 3)
        out: list[np.ndarray | None] = []
        for f in frames:
            m = np.array(probe.world(obj, f), dtype=np.float64)
            out.append(local @ m[:3, :3].T + m[:3, 3] if len(local) else None)
        return out
    return [None if (s := solid_of(probe, obj, f)) is None else s.co for f in frames]


def _step_between(a: np.ndarray | None, b: np.ndarray | None) -> float:
    """How far (m) the farthest-moving point goes from ``a`` to ``b`` (world vertices); their
    boxes' corners when the vertices do not correspond; 0 while there is no mesh."""
    if a is None or b is None:
        return 0.0
    if len(a) == len(b):
        return float(np.linalg.norm(b - a, axis=1).max()) if len(a) else 0.0
    return float(max(np.abs(b.min(axis=0) - a.min(axis=0)).max(), np.abs(b.max(axis=0) - a.max(axis=0)).max()))


@primitive(group="animation", required=("object", "to", *FRAMES),
           params={"object": "name", "to": "name", "tolerance": "tolerance", "min_frames": "count",
                   "as_in_start": "bool", **SAMPLING})
def attached_to(probe: Probe, p: dict):
    """The object moves with ``to`` (e.g. a carried box with the arm's last link, a helper empty
    with the link that should hold it), through the hierarchy, constraints or baked keys alike:
    at each sampled frame the object's evaluated world matrix is taken relative to ``to``'s
    (its location and rotation: a change of ``to``'s scale stretches, it does not carry); over a
    run of consecutive sampled frames the object is attached when the translation of that
    relative transform stays within ``tolerance`` (default 0.005 m, in world metres: how far the
    object's origin is from where it would be had it stayed rigidly fixed to ``to`` since the
    run's first frame) of its value at the run's first frame.  Passes when the longest such run
    holds >= ``min_frames`` sampled frames (default: all of them); scores longest /
    ``min_frames``.  Only the origin is followed: the object may turn about it (a joint's pivot
    stays on its link while the link rotates).  With ``as_in_start`` the placement is the start
    scene's (``start_scene.json``): at every frame the origin must sit where the start scene
    holds it relative to ``to`` -- a link made longer or a joint slid along its link keeps a
    rigid carry but not the machine; the score is then also scaled by the share of frames that
    keep it."""
    obj, to = probe.objects([p["object"], p["to"]])
    frames, tol = sampled_frames(p), float(p.get("tolerance", 0.005))
    need = int(p.get("min_frames", len(frames)))
    if need > len(frames):
        raise ValueError(f"attached_to: min_frames {need} exceeds the {len(frames)} sampled frames")
    world, local = [], []  # per frame: to's world matrix, the object's origin in to's space
    for f in frames:
        loc, rot, _scale = probe.world(to, f).decompose()
        t = Matrix.Translation(loc) @ rot.to_matrix().to_4x4()  # rigid: scale left out
        o = probe.world(obj, f).translation.copy()
        world.append((t, o))
        local.append(t.inverted() @ o)

    def drift(i: int, j: int) -> float:
        """World distance at frame j between the object's origin and where frame i's relative
        placement puts it."""
        t, o = world[j]
        return (o - t @ local[i]).length

    best, best_at, worst_in_best = 0, 0, 0.0
    for i in range(len(frames)):
        if len(frames) - i <= best:
            break
        j, worst = i + 1, 0.0
        while j < len(frames):
            d = drift(i, j)
            if d > tol:
                break
            worst, j = max(worst, d), j + 1
        if j - i > best:
            best, best_at, worst_in_best = j - i, i, worst
    run = [frames[best_at], frames[best_at + best - 1]] if best else None
    # where it first comes loose from its placement at the first sampled frame (evidence)
    loose = next((frames[j] for j in range(1, len(frames)) if drift(0, j) > tol), None)
    max_drift = max((drift(0, j) for j in range(len(frames))), default=0.0)
    ok = best >= need
    score = 1.0 if need == 0 else min(1.0, best / need)
    detail = (f"{obj.name} moves with {to.name} for {best} consecutive sampled frame(s) at the longest"
              + (f" ({run[0]}..{run[1]})" if run else "") + f", need {need} (tolerance {tol} m)")
    measured = {"longest_run": best, "run_frames": run, "frames_sampled": len(frames)}
    evidence = {"max_drift_in_run": rnd(worst_in_best), "drift_from_first_frame": rnd(max_drift),
                "first_loose_frame": loose}
    if p.get("as_in_start"):
        start = _start_offset(probe, obj.name, to.name)
        off = [f for (t, o), f in zip(world, frames) if (o - t @ start).length > tol]
        kept = len(frames) - len(off)
        score, ok = score * kept / len(frames), ok and not off
        evidence.update(off_start_frames=first_frames(off), start_offset=rnd(list(start)))
        if off:
            detail += f"; not where the start scene holds it on {to.name} at {len(off)} frame(s) (from {off[0]})"
    return Outcome(score, ok, measured, {"min_frames": need, "tolerance": tol}, detail, evidence)


def _start_offset(probe: Probe, name: str, to: str) -> Vector:
    """``name``'s origin in ``to``'s rigid frame (location and rotation) as the start scene's
    snapshot holds them at its first frame."""
    objects = (probe.baseline or {}).get("objects") or {}
    if name not in objects or to not in objects:
        raise ValueError(f"attached_to: as_in_start needs {name!r} and {to!r} in the start scene's snapshot")

    def matrix(entry) -> Matrix:
        flat = entry["matrix_world"]
        return Matrix([flat[0:4], flat[4:8], flat[8:12], flat[12:16]])

    loc, rot, _scale = matrix(objects[to]).decompose()
    rigid = Matrix.Translation(loc) @ rot.to_matrix().to_4x4()
    return rigid.inverted() @ matrix(objects[name]).translation


# A joint of a jointed machine: the child link, the link it turns on, and the one axis it turns
# about (a name of the child's own axes, or a vector in them; ``space`` says whose axes).
JOINT = {"type": "object", "required": ["child", "parent", "axis"], "additionalProperties": False,
         "properties": {"child": {"type": "string", "minLength": 1},
                        "parent": {"type": "string", "minLength": 1},
                        "axis": {"anyOf": [{"enum": ["X", "Y", "Z"]},
                                           {"type": "array", "items": {"type": "number"}, "minItems": 3,
                                            "maxItems": 3}]},
                        "space": {"enum": ["child", "parent"]}},
         "description": "{child, parent, axis: X | Y | Z | [x, y, z], space: child | parent (optional)}"}
JOINTS = {"type": "array", "items": JOINT, "minItems": 1, "description": "non-empty list of joints"}
AXES = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}


def _rotation(m: Matrix) -> np.ndarray:
    """The rotation of a world matrix (scale and shear left out) as a float64 3x3 array."""
    return np.array(m.decompose()[1].normalized().to_matrix(), dtype=np.float64)


def _relative_rotation(probe: Probe, child, parent, frame: int) -> np.ndarray:
    """The child's world rotation in its parent's rotated frame at ``frame`` (3x3)."""
    return _rotation(probe.world(parent, frame)).T @ _rotation(probe.world(child, frame))


def _start_rotation(probe: Probe, name: str) -> np.ndarray:
    objects = (probe.baseline or {}).get("objects") or {}
    if name not in objects:
        raise ValueError(f"joint_axes: as_in_start needs {name!r} in the start scene's snapshot")
    flat = objects[name]["matrix_world"]
    return _rotation(Matrix([flat[0:4], flat[4:8], flat[8:12], flat[12:16]]))


def _axis_turn(delta: np.ndarray, axis: np.ndarray) -> tuple[float, float]:
    """(degrees by which ``delta`` tips ``axis`` off itself, degrees it turns about ``axis``).
    A rotation maps an axis onto itself exactly when it turns about that axis only; the twist is
    the turn of the swing-twist split (the part about ``axis``)."""
    moved = delta @ axis
    off = math.degrees(math.atan2(float(np.linalg.norm(_cross3(moved, axis))), float(moved @ axis)))
    # any vector across the axis, and how far it turns about it once the swing is taken out
    across = _cross3(axis, (1.0, 0.0, 0.0) if abs(axis[0]) < 0.9 else (0.0, 1.0, 0.0))
    across /= np.linalg.norm(across)
    turned = delta @ across
    turned -= (turned @ axis) * axis
    twist = math.degrees(math.atan2(float(_cross3(across, turned) @ axis), float(across @ turned)))
    return off, twist


def _cross3(a, b) -> np.ndarray:
    """``np.cross`` of two 3-vectors, without its general machinery (joint_axes asks for three
    per joint per frame: np.cross's own overhead was most of its time)."""
    a0, a1, a2 = (float(v) for v in a)
    b0, b1, b2 = (float(v) for v in b)
    return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])


@primitive(group="animation", required=("joints", *FRAMES),
           params={"joints": JOINTS, "tolerance_deg": "tolerance", "as_in_start": "bool", **SAMPLING})
def joint_axes(probe: Probe, p: dict):
    """Each joint turns only about its own axis: for each of ``joints`` ({child, parent, axis},
    ``axis`` X, Y or Z or a vector in the child's own axes -- ``space: parent``: in the parent's),
    at every sampled frame the rotation of the child's evaluated world matrix relative to the
    parent's (location and scale left out), compared with that relative rotation at the first
    sampled frame (``as_in_start``: in the start scene's snapshot), is a turn about ``axis``
    alone: the change maps the axis onto itself within ``tolerance_deg`` (default 1 degree).
    A hinge twisted about another axis, a turntable that does not turn while the link on it
    swings round like a ball joint, a link bent off its axis by a constant offset (with
    ``as_in_start``) fail, through keys, constraints, drivers, parents or an armature alike.
    Scores the mean over joints of the share of frames at which the joint keeps its axis."""
    frames, tol = sampled_frames(p), float(p.get("tolerance_deg", 1.0))
    results, shares, bad_joints = [], [], []
    for joint in p["joints"]:
        child, parent = probe.objects([joint["child"], joint["parent"]])
        axis = np.array(AXES[joint["axis"]] if isinstance(joint["axis"], str) else joint["axis"], dtype=np.float64)
        if np.linalg.norm(axis) < 1e-9:
            raise ValueError(f"joint_axes: the axis of {child.name} is a zero vector")
        axis /= np.linalg.norm(axis)
        in_parent = joint.get("space", "child") == "parent"
        ref = (_start_rotation(probe, parent.name).T @ _start_rotation(probe, child.name)
               if p.get("as_in_start") else _relative_rotation(probe, child, parent, frames[0]))
        off_frames: list[int] = []
        turns: list[float] = []
        worst, worst_at = 0.0, frames[0]
        for f in frames:
            rel = _relative_rotation(probe, child, parent, f)
            # the change in the child's own axes (ref^-1 rel), or in the parent's (rel ref^-1)
            off, twist = _axis_turn(rel @ ref.T if in_parent else ref.T @ rel, axis)
            turns.append(twist)
            if off > tol:
                off_frames.append(f)
            if off > worst:
                worst, worst_at = off, f
        turned = np.degrees(np.unwrap(np.radians(turns)))  # a turn past half a revolution reads on
        shares.append((len(frames) - len(off_frames)) / len(frames))
        label = joint["axis"] if isinstance(joint["axis"], str) else rnd(list(axis))
        if off_frames:
            bad_joints.append(f"{child.name} on {parent.name} turns off its {label} axis by up to {worst:.2f} "
                              f"degrees (frame {worst_at}) at {len(off_frames)} frame(s) (from {off_frames[0]})")
        results.append({"child": child.name, "parent": parent.name, "axis": label,
                        "max_off_axis_deg": rnd(worst), "worst_frame": worst_at,
                        "frames_off_axis": len(off_frames), "first_off_frames": first_frames(off_frames),
                        "turn_about_axis_deg": [rnd(float(turned.min())), rnd(float(turned.max()))]})
    score = sum(shares) / len(shares)
    detail = (f"{len(shares) - len(bad_joints)}/{len(shares)} joints turn only about their own axis "
              f"(tolerance {tol:g} deg, {len(frames)} frames, against "
              f"{'the start scene' if p.get('as_in_start') else f'frame {frames[0]}'})")
    if bad_joints:
        detail += "; " + "; ".join(bad_joints)
    measured = {"joints_off_axis": len(bad_joints),
                "max_off_axis_deg": {r["child"]: r["max_off_axis_deg"] for r in results}}
    return Outcome(score, not bad_joints, measured, {"tolerance_deg": tol}, detail, {"joints": results})


@primitive(group="animation", required=("objects",), params={"objects": "names"})
def unchanged_over_frames(probe: Probe, p: dict):
    """Each object looks the same on every frame the task grades as on the first: it does not
    move, change shape or change material (``Probe.look``: its evaluated placement, what its
    evaluated mesh draws, its own values and those of every material, node tree and node group
    it renders with).  A scene in which nothing can change from frame to frame
    (``time_dependent``) passes at once.  Scores the share of objects that stay the same."""
    names = list(p["objects"])
    probe.objects(names)
    frames = probe.graded_frames or [probe.scene.frame_start]
    why = probe.time_dependent()
    changed: dict[str, int] = {}
    if why is not None and len(frames) > 1:
        first = {n: probe.look(frames[0], n) for n in names}
        for f in frames[1:]:
            for n in names:
                if n not in changed and probe.look(f, n) != first[n]:
                    changed[n] = f
            if len(changed) == len(names):
                break
    detail = ("nothing in the scene changes from frame to frame" if why is None else
              f"each looks on frames {frames[0]}..{frames[-1]} as on frame {frames[0]}" if not changed else
              "changes over the frames (moves, changes shape or material): " + ", ".join(
                  f"{n} from frame {f}" for n, f in sorted(changed.items())))
    return fraction_outcome(len(names) - len(changed), len(names), {"changed_from_frame": changed},
                            {"unchanged": names}, detail, {"time_dependent": why, "frames": len(frames)})
