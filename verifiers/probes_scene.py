"""Probe group: the scene against its start (a scene diff), render overrides and new objects.
Runs in bpy (stdlib + bpy + numpy only).

A task that starts from a given scene says what to leave alone; a reward hacker changes it
anyway (rotates a part, changes the lens or shift, dims a light, deletes or render-hides an
object, crops the border, renders every other frame, deletes a face) or adds junk or a big
occluder.  ``snapshot(scene)`` is a JSON fingerprint of the scene; ``scene_snapshot.py`` writes
the start scene's into the task's ``start_scene.json`` (``python -m verifiers.start_scene``),
which the probe loads as ``probe.baseline``; ``scene_unchanged`` compares the delivery's
snapshot with it.  ``render_overrides`` and ``new_objects`` need no baseline.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import warnings
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # standalone: siblings only
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy  # noqa: E402
import numpy as np  # noqa: E402
from bpy_extras import anim_utils  # noqa: E402

from probe_core import (  # noqa: E402
    COUNT, GEOMETRY_TYPES, NAMES, VEC3, Outcome, Probe, fraction_outcome, primitive,
    render_visible_names, rnd,
)

# written into start_scene.json; a probe refuses a snapshot of another version.  2: light and
# camera settings in full, ray visibility, the data's own animation, view layers and overrides
SNAPSHOT_VERSION = "2"
PLACES = 5  # snapshot floats are rounded to 1e-5
EVIDENCE_LIMIT = 20  # changed items listed in a criterion's evidence

# The keys of one object's snapshot entry and of the render section (what allow_changed names).
OBJECT_KEYS = ("type", "parent", "matrix_world", "data", "topology", "geometry", "hide_render", "visible_camera",
               "rendered", "is_holdout", "collections", "materials", "modifiers", "constraints", "camera", "light",
               "animation", "ray_visibility", "light_linking", "data_animation")
RENDER_SETTINGS = ("engine", "resolution_x", "resolution_y", "resolution_percentage", "use_border",
                   "use_crop_to_border", "border_min_x", "border_max_x", "border_min_y", "border_max_y",
                   "frame_start", "frame_end", "frame_step", "fps", "fps_base", "film_transparent", "use_nodes",
                   "use_compositing", "compositor_alters", "use_sequencer", "view_transform", "look", "exposure",
                   "gamma", "use_simplify", "world", "world_nodes", "use_curve_mapping", "use_white_balance",
                   "film_exposure", "view_layers")
RENDER_KEYS = (*RENDER_SETTINGS, "camera")  # "camera": the scene camera's name
CAMERA_KEYS = ("type", "lens", "ortho_scale", "sensor_width", "sensor_height", "sensor_fit", "shift_x", "shift_y",
               "clip_start", "clip_end")
DOF_KEYS = ("use_dof", "focus_distance", "aperture_fstop")
LIGHT_KEYS = ("type", "energy", "color", "shadow_soft_size", "spot_size", "spot_blend", "size", "size_y", "shape",
              "angle", "exposure", "use_temperature", "temperature", "diffuse_factor", "specular_factor",
              "volume_factor", "transmission_factor", "use_shadow", "normalize", "use_custom_distance",
              "cutoff_distance")
RAY_KEYS = ("visible_camera", "visible_diffuse", "visible_glossy", "visible_transmission", "visible_volume_scatter",
            "visible_shadow")

# --- param schemas (literals: probe_catalogue.py reads them without bpy) ------------------------

SNAPSHOT_KEY = {"enum": (*OBJECT_KEYS, *RENDER_SETTINGS),
                "description": "a snapshot key (matrix_world, camera, frame_step ...)"}
ALLOW_CHANGED = {"type": "object",
                 "additionalProperties": {"anyOf": [{"const": "*"},
                                                    {"type": "array", "items": SNAPSHOT_KEY, "minItems": 1}]},
                 "description": "{object name or \"render\": [snapshot keys] or \"*\"}"}
OBJECT_TYPE = {"enum": ("MESH", "CURVE", "SURFACE", "META", "FONT", "CURVES", "POINTCLOUD", "VOLUME", "GREASEPENCIL",
                        "ARMATURE", "LATTICE", "EMPTY", "LIGHT", "LIGHT_PROBE", "CAMERA", "SPEAKER"),
               "description": "a Blender object type (MESH, EMPTY, ...)"}
OBJECT_TYPES = {"type": "array", "items": OBJECT_TYPE, "minItems": 1, "description": "non-empty list of object types"}
BOX = {"type": "object", "required": ["min", "max"], "properties": {"min": VEC3, "max": VEC3},
       "additionalProperties": False, "description": "{min: [x, y, z], max: [x, y, z]}"}
REGEX = {"type": "string", "minLength": 1, "description": "a regular expression"}
ALLOW_NEW = {"type": "object",
             "properties": {"names": NAMES, "pattern": REGEX, "types": OBJECT_TYPES, "max": COUNT, "within": BOX},
             "additionalProperties": False, "description": "{names, pattern, types, max, within}"}
SECTIONS = {"type": "array", "items": {"enum": ("objects", "render")}, "minItems": 1,
            "description": "a non-empty list of objects, render"}


# --- the snapshot ---------------------------------------------------------------------------------


def _r(value):
    """Floats rounded to 1e-5 (also in lists), -0.0 as 0.0; other values as they are."""
    if isinstance(value, float):
        return round(value, PLACES) + 0.0
    if isinstance(value, (list, tuple)):
        return [_r(v) for v in value]
    return value


def _plain(value):
    """An RNA value as JSON: numbers, flags, strings; vectors and colours as lists."""
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, float):
        return _r(value)
    if hasattr(value, "__len__"):
        return [_plain(v) for v in value]
    return str(value)


def _digest(*parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else json.dumps(part, sort_keys=True).encode())
    return h.hexdigest()


def _mesh_hashes(mesh: bpy.types.Mesh) -> tuple[str, str]:
    """(topology, geometry) of a base mesh: sha256 of its element counts with the edge and face
    vertex indices, and of its local vertex coordinates rounded to 1e-5."""
    nv, ne, nf, nl = len(mesh.vertices), len(mesh.edges), len(mesh.polygons), len(mesh.loops)
    loops = np.empty(nl, dtype=np.int64)  # face after face (Blender keeps loops in face order)
    mesh.loops.foreach_get("vertex_index", loops)
    totals = np.empty(nf, dtype=np.int64)
    mesh.polygons.foreach_get("loop_total", totals)
    edges = np.empty(2 * ne, dtype=np.int64)
    mesh.edges.foreach_get("vertices", edges)
    topology = _digest([nv, ne, nf, nl], totals.astype("<i8").tobytes(), loops.astype("<i8").tobytes(),
                       edges.astype("<i8").tobytes())
    co = np.empty(3 * nv, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    geometry = _digest([nv], np.rint(co.astype(np.float64) * 10 ** PLACES).astype("<i8").tobytes())
    return topology, geometry


def _animation_hash(obj) -> str | None:
    """sha256 of the keyframe points of the F-curves (active action slot and NLA strips) of an
    object or an ID's data (a camera's lens, a light's energy keyed over time), or None."""
    ad = getattr(obj, "animation_data", None)
    if ad is None:
        return None
    pairs = [(ad.action, ad.action_slot)] + [(s.action, s.action_slot) for t in ad.nla_tracks for s in t.strips]
    curves = []
    for action, slot in pairs:
        bag = anim_utils.action_get_channelbag_for_slot(action, slot) if action and slot else None
        for fc in bag.fcurves if bag else []:
            keys = [[_r(float(k.co[0])), _r(float(k.co[1])), k.interpolation, _r(list(map(float, k.handle_left))),
                     _r(list(map(float, k.handle_right)))] for k in fc.keyframe_points]
            curves.append([fc.data_path, int(fc.array_index), bool(fc.mute), keys])
    return _digest(curves) if curves else None


def compositor_alters(scene: bpy.types.Scene) -> tuple[bool, str]:
    """(alters, why): whether compositing changes the rendered image.  It does not when
    compositing is off, there is no compositing node group, the group has no image output, or
    its active output takes Render Layers' Image straight (through reroutes only).  (Blender 5
    ignores the deprecated ``scene.use_nodes``.)"""
    if not scene.render.use_compositing:
        return False, "compositing off"
    tree = getattr(scene, "compositing_node_group", None)
    if tree is None:
        return False, "no compositing node group"
    outs = [i for i in tree.interface.items_tree if i.item_type == "SOCKET" and i.in_out == "OUTPUT"]
    if not outs:
        return False, f"node group {tree.name} has no image output"
    outputs = [n for n in tree.nodes if n.type == "GROUP_OUTPUT"]
    active = next((n for n in outputs if n.is_active_output), outputs[0] if outputs else None)
    if active is None:
        return True, f"node group {tree.name} has an output but no Group Output node"
    socket = active.inputs[0]
    seen = set()
    while True:
        links = [lk for lk in socket.links if lk.is_valid and not lk.is_muted]
        if not links:
            return True, f"node group {tree.name}: the image output is not linked"
        node = links[0].from_node
        if node.type == "REROUTE" and not node.mute and node.name not in seen:
            seen.add(node.name)
            socket = node.inputs[0]
            continue
        straight = (node.type == "R_LAYERS" and not node.mute and links[0].from_socket.identifier == "Image"
                    and getattr(node, "scene", None) in (None, scene))
        return (False, f"node group {tree.name}: Render Layers straight to the output") if straight else (
            True, f"node group {tree.name}: the output comes from {node.name} ({node.type})")


def _object_entry(obj: bpy.types.Object, rendered: set[str]) -> dict:
    data = obj.data
    entry = {
        "type": obj.type,
        "parent": obj.parent.name if obj.parent else None,
        "matrix_world": _r([float(v) for row in obj.matrix_world for v in row]),
        "data": data.name if data is not None else None,
        "topology": None,
        "geometry": None,
        "hide_render": bool(obj.hide_render),
        "visible_camera": bool(obj.visible_camera),
        "rendered": obj.name in rendered,
        "is_holdout": bool(obj.is_holdout),
        "collections": sorted(c.name for c in obj.users_collection),
        "materials": [s.material.name if s.material else None for s in obj.material_slots],
        "modifiers": [[m.type, m.name, bool(m.show_render)] for m in obj.modifiers],
        "constraints": [[c.type, c.name, bool(c.mute)] for c in obj.constraints],
        "camera": None,
        "light": None,
        "animation": _animation_hash(obj),
        "ray_visibility": [bool(getattr(obj, k, True)) for k in RAY_KEYS],
        "light_linking": _light_linking(obj),
        "data_animation": _animation_hash(data) if data is not None else None,
    }
    if obj.type == "MESH" and data is not None:
        entry["topology"], entry["geometry"] = _mesh_hashes(data)
    elif obj.type == "CAMERA":
        entry["camera"] = {k: _plain(getattr(data, k)) for k in CAMERA_KEYS}
        entry["camera"].update({k: _plain(getattr(data.dof, k)) for k in DOF_KEYS})
        entry["camera"]["focus_object"] = data.dof.focus_object.name if data.dof.focus_object else None
    elif obj.type == "LIGHT":
        entry["light"] = {k: _plain(getattr(data, k, None)) for k in LIGHT_KEYS}
    return entry


def _render_entry(scene: bpy.types.Scene) -> dict:
    r, vs = scene.render, scene.view_settings
    with warnings.catch_warnings():  # Scene.use_nodes is deprecated (and ignored) in Blender 5
        warnings.simplefilter("ignore", DeprecationWarning)
        use_nodes = bool(getattr(scene, "use_nodes", False))
    out = {k: _plain(getattr(r, k)) for k in (
        "engine", "resolution_x", "resolution_y", "resolution_percentage", "use_border", "use_crop_to_border",
        "border_min_x", "border_max_x", "border_min_y", "border_max_y", "fps", "fps_base", "film_transparent",
        "use_compositing", "use_sequencer", "use_simplify")}
    out.update({k: int(getattr(scene, k)) for k in ("frame_start", "frame_end", "frame_step")})
    out.update({"camera": scene.camera.name if scene.camera else None, "use_nodes": use_nodes,
                "compositor_alters": compositor_alters(scene)[0], "view_transform": vs.view_transform,
                "look": vs.look, "exposure": _r(float(vs.exposure)), "gamma": _r(float(vs.gamma)),
                "world": scene.world.name if scene.world else None,
                "world_nodes": _node_tree_hash(scene.world.node_tree if scene.world else None),
                "use_curve_mapping": bool(vs.use_curve_mapping), "use_white_balance": bool(vs.use_white_balance),
                "film_exposure": _r(float(scene.cycles.film_exposure)) if hasattr(scene, "cycles") else None,
                "view_layers": [[vl.name, bool(vl.use), vl.material_override.name if vl.material_override else None,
                                 vl.world_override.name if getattr(vl, "world_override", None) else None,
                                 int(vl.samples)] for vl in scene.view_layers]})
    return out


def _light_linking(obj) -> list | None:
    """The collections a light (or an emitter) is linked to or blocked by, when set."""
    link = getattr(obj, "light_linking", None)
    if link is None:
        return None
    names = [c.name if c else None for c in (link.receiver_collection, link.blocker_collection)]
    return names if any(names) else None


def _node_tree_hash(tree) -> str | None:
    """sha256 of a node tree's nodes (type, name, unlinked input values) and links."""
    if tree is None:
        return None
    nodes = []
    for n in sorted(tree.nodes, key=lambda n: n.name):
        values = []
        for sock in n.inputs:
            if not sock.is_linked and hasattr(sock, "default_value"):
                v = sock.default_value
                values.append([sock.identifier, _plain(v)])
        nodes.append([n.bl_idname, n.name, bool(n.mute), values])
    links = sorted([l.from_node.name, l.from_socket.identifier, l.to_node.name, l.to_socket.identifier]
                   for l in tree.links)
    return _digest([nodes, links])


def snapshot(scene: bpy.types.Scene) -> dict:
    """A JSON-able fingerprint of ``scene`` as it stands (set the frame first: world matrices
    are read as they are): ``objects`` {name: {OBJECT_KEYS}} and ``render`` {RENDER_KEYS},
    keys sorted.  ``scene_snapshot.py`` writes it for the start scene; ``scene_unchanged``
    takes it of the delivery."""
    rendered = render_visible_names(scene)
    objects = {o.name: _object_entry(o, rendered) for o in sorted(scene.objects, key=lambda o: o.name)}
    return json.loads(json.dumps({"objects": objects, "render": _render_entry(scene)}, sort_keys=True))


# --- comparing ------------------------------------------------------------------------------------


def _differs(a, b, tol: float) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is not b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(float(a) - float(b)) > tol
    if isinstance(a, list) and isinstance(b, list):
        return len(a) != len(b) or any(_differs(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() != b.keys() or any(_differs(a[k], b[k], tol) for k in a)
    return a != b


def _changed_keys(before: dict, after: dict, tol: float) -> list[str]:
    return sorted(k for k in set(before) | set(after) if _differs(before.get(k), after.get(k), tol))


def _allowed(rule, key: str) -> bool:
    return rule == "*" or (isinstance(rule, list) and key in rule)


def _inside(box, region: dict) -> bool:
    return all(region["min"][i] <= box[0][i] and box[1][i] <= region["max"][i] for i in range(3))


def _new_verdict(probe: Probe, obj, rule: dict, rx, frame: int) -> str | None:
    """Why a new object is not allowed by ``allow_new`` (before its count), or None."""
    if ("names" in rule or rx is not None) and not (
            obj.name in rule.get("names", ()) or (rx is not None and rx.fullmatch(obj.name))):
        return "name not allowed"
    if "types" in rule and obj.type not in rule["types"]:
        return f"type {obj.type} not allowed"
    if "within" in rule:
        box = probe.aabb(obj, frame)
        if not _inside(box, rule["within"]):
            return f"AABB {rnd(list(box[0]))}..{rnd(list(box[1]))} outside the allowed region"
    return None


@primitive(group="scene", required=(),
           params={"allow_changed": ALLOW_CHANGED, "allow_removed": "names", "allow_new": ALLOW_NEW,
                   "tolerance": "tolerance", "sections": SECTIONS, "frame": "integer"})
def scene_unchanged(probe: Probe, p: dict):
    """The delivered scene at ``frame`` (default 1) is the start scene (``start_scene.json``)
    but for what the task allows: ``allow_changed`` {object name or "render": [snapshot keys]
    or "*"}, ``allow_removed`` (names), ``allow_new`` {names, pattern (full match), types,
    max, within {min, max}} (default: no new objects).  Numbers compare within ``tolerance``
    (default 1e-4); ``sections`` (default objects and render) chooses what is compared.  Scores
    the share of items unchanged or allowed: each start object, each render setting, each new
    object.  Without a start snapshot it is a verifier setup error."""
    base = probe.baseline
    if base is None:
        raise ValueError("scene_unchanged: no start scene snapshot (start_scene.json beside the rubric)")
    if str(base.get("snapshot_version")) != SNAPSHOT_VERSION:
        raise ValueError(f"scene_unchanged: start scene snapshot version {base.get('snapshot_version')!r}, "
                         f"this probe reads {SNAPSHOT_VERSION!r}: rewrite it (python -m verifiers.start_scene)")
    frame, tol = int(p.get("frame", 1)), float(p.get("tolerance", 1e-4))
    sections = list(p.get("sections", ["objects", "render"]))
    allow, removable = dict(p.get("allow_changed", {})), set(p.get("allow_removed", ()))
    rule = dict(p.get("allow_new", {}))
    rx = re.compile(rule["pattern"]) if "pattern" in rule else None
    probe.at(frame)
    now = snapshot(probe.scene)
    total, bad = 0, []  # bad: [(label, evidence entry)]
    allowed_changes = []
    if "objects" in sections:
        before_objs, after_objs = base.get("objects", {}), now["objects"]
        for name in sorted(before_objs):
            total += 1
            if name not in after_objs:
                if name not in removable:
                    bad.append((f"removed {name}", {"item": f"object {name}", "kind": "removed"}))
                continue
            keys = _changed_keys(before_objs[name], after_objs[name], tol)
            off = [k for k in keys if not _allowed(allow.get(name), k)]
            if keys and not off:
                allowed_changes.append(f"{name} ({', '.join(keys)})")
            if off:
                bad.append((f"{name} ({', '.join(off)})", {
                    "item": f"object {name}", "kind": "changed",
                    "changes": {k: {"before": before_objs[name].get(k), "after": after_objs[name].get(k)}
                                for k in off}}))
        new = sorted(n for n in after_objs if n not in before_objs)
        kept = 0
        for name in new:
            total += 1
            why = _new_verdict(probe, probe.scene.objects[name], rule, rx, frame) if rule else "no new objects allowed"
            if why is None and "max" in rule and kept >= int(rule["max"]):
                why = f"more than {rule['max']} new objects"
            if why is None:
                kept += 1
            else:
                bad.append((f"new {name}", {"item": f"object {name}", "kind": "new", "type": after_objs[name]["type"],
                                            "why": why}))
    if "render" in sections:
        before_r, after_r = base.get("render", {}), now["render"]
        keys = sorted(set(before_r) | set(after_r))
        total += len(keys)
        changed = [k for k in keys if _differs(before_r.get(k), after_r.get(k), tol)]
        for k in changed:
            if _allowed(allow.get("render"), k):
                allowed_changes.append(f"render {k}")
            else:
                bad.append((f"render {k}", {"item": f"render {k}", "kind": "changed",
                                            "before": before_r.get(k), "after": after_r.get(k)}))
    labels = [label for label, _ in bad]
    more = f" and {len(labels) - EVIDENCE_LIMIT} more" if len(labels) > EVIDENCE_LIMIT else ""
    detail = (f"scene as started ({total} items)" if not bad
              else "changed from the start: " + ", ".join(labels[:EVIDENCE_LIMIT]) + more)
    measured = {"items": total, "changed": labels[:50], "allowed_changes": allowed_changes[:50]}
    expected = {k: p[k] for k in ("allow_changed", "allow_removed", "allow_new") if k in p}
    expected["sections"] = sections
    return fraction_outcome(total - len(bad), total, measured, expected, detail,
                            {"changes": [e for _, e in bad[:EVIDENCE_LIMIT]], "count": len(bad)})


# --- render settings that override the grading ----------------------------------------------------


@primitive(group="scene", required=(),
           params={"border": "bool", "frame_step": "step", "compositor": "bool", "simplify": "bool",
                   "resolution_percentage": {"type": "integer", "minimum": 1, "description": "integer >= 1"}})
def render_overrides(probe: Probe, p: dict):
    """No render setting overrides what the task graded: ``use_border`` is ``border`` (default
    false), ``frame_step`` is ``frame_step`` (default 1), ``use_simplify`` is ``simplify``
    (default false); when given, compositing alters the image only if ``compositor`` is true
    (false: compositing off, no node group, or Render Layers straight to the output) and the
    resolution percentage is ``resolution_percentage``.  Scores the share of checks met."""
    scene, r = probe.scene, probe.scene.render
    alters, why = compositor_alters(scene)
    checks = {  # {check: (measured, expected)}
        "border": (bool(r.use_border), bool(p.get("border", False))),
        "frame_step": (int(scene.frame_step), int(p.get("frame_step", 1))),
        "simplify": (bool(r.use_simplify), bool(p.get("simplify", False))),
    }
    if "compositor" in p:
        checks["compositor"] = (alters, bool(p["compositor"]))
    if "resolution_percentage" in p:
        checks["resolution_percentage"] = (int(r.resolution_percentage), int(p["resolution_percentage"]))
    off = [k for k, (got, want) in checks.items() if got != want]
    detail = "no render override" if not off else "render overrides: " + ", ".join(
        f"{k} is {checks[k][0]!r}, not {checks[k][1]!r}" + (f" ({why})" if k == "compositor" else "") for k in off)
    evidence = {"off": off, "compositor": why}
    if r.use_border:
        evidence["border"] = rnd([r.border_min_x, r.border_min_y, r.border_max_x, r.border_max_y])
    return fraction_outcome(len(checks) - len(off), len(checks), {k: c[0] for k, c in checks.items()},
                            {k: c[1] for k, c in checks.items()}, detail, evidence)


# --- objects added to the scene -------------------------------------------------------------------


@primitive(group="scene", required=("others_max|others_types|others_within",),
           params={"expected": "names", "others_max": "count", "others_types": OBJECT_TYPES, "others_within": BOX,
                   "frame": "integer"})
def new_objects(probe: Probe, p: dict):
    """Objects the delivery added (not in the start snapshot; every object without one), less
    the ``expected`` parts, are "others": at most ``others_max`` of them, each of a type in
    ``others_types``, and each render-visible geometry one's world AABB inside
    ``others_within`` {min, max} at ``frame`` (default 1).  Checks not given are skipped (one
    is needed); scores the share met."""
    frame = int(p.get("frame", 1))
    start = set(probe.baseline.get("objects", {})) if probe.baseline is not None else set()
    expected = set(p.get("expected", ()))
    others = sorted(o.name for o in probe.scene.objects if o.name not in start and o.name not in expected)
    checks, evidence = {}, {"others": others[:50], "baseline": probe.baseline is not None}
    if "others_max" in p:
        checks["others_max"] = len(others) <= int(p["others_max"])
        evidence["count"] = len(others)
    if "others_types" in p:
        wrong = {n: probe.scene.objects[n].type for n in others if probe.scene.objects[n].type not in p["others_types"]}
        checks["others_types"] = not wrong
        evidence["wrong_type"] = dict(list(wrong.items())[:EVIDENCE_LIMIT])
    if "others_within" in p:
        region, outside = p["others_within"], {}
        for n in others:
            obj = probe.scene.objects[n]
            if obj.type in GEOMETRY_TYPES and n in probe.rendered():
                box = probe.aabb(obj, frame)
                if not _inside(box, region):
                    outside[n] = {"min": rnd(list(box[0])), "max": rnd(list(box[1]))}
        checks["others_within"] = not outside
        evidence["outside"] = dict(list(outside.items())[:EVIDENCE_LIMIT])
    off = [k for k, ok in checks.items() if not ok]
    why = {"others_max": f"more than {p.get('others_max')}",
           "others_types": f"of other types {evidence.get('wrong_type')}",
           "others_within": f"outside the region: {', '.join(evidence.get('outside', {}))}"}
    detail = (f"{len(others)} other object(s), as allowed" if not off
              else f"{len(others)} other object(s): " + "; ".join(why[k] for k in off))
    expected_out = {k: p[k] for k in ("expected", "others_max", "others_types", "others_within") if k in p}
    return Outcome(sum(checks.values()) / len(checks), not off, {"others": others[:50], "checks": checks},
                   expected_out, detail, evidence)
