"""product-lighting's own primitives (runs in bpy beside the probe library; stdlib + bpy + numpy).

The built-in ``light_settings`` / ``camera_settings`` read a light's Power and colour fields and
a camera's focal length; Blender has other settings that change what those lights and that
camera put in the picture while leaving the checked fields as specified.  These primitives
measure what the render gets:

- ``lights_as_set``: each named light emits what its fields say and casts shadows: an allow-list,
  every setting of its light data-block (Cycles' and EEVEE's included: portal, bounces, shadow
  map resolution and filter ...) as a fresh light of its type has it but the few the spec lets
  the solver choose (``SOLVER_SETS``), its ray visibility as a new light object's, no light
  linking and no light nodes changing it;
- ``studio_extras``: what else may light the product stays within the spec: other lights are
  weak (at most ``max_power`` W, no suns), the world stays dark, no view layer overrides the
  materials or the world, and no empty instances geometry into the set;
- ``shot_framing``: the whole product is in the camera's picture (inside the frame and the clip
  range, at least ``min_fill`` of the frame height), on a ``sensor_width`` mm sensor, and depth
  of field, when on, focuses on the product and keeps all of it sharp (a circle of confusion of
  at most ``max_blur_px`` pixels).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy  # noqa: E402, F401 -- the probe runs in Blender: bpy before bpy_extras
import numpy as np  # noqa: E402
from bpy_extras.object_utils import world_to_camera_view  # noqa: E402
from mathutils import Vector  # noqa: E402

from probe_core import GEOMETRY_TYPES, Outcome, fraction_outcome, names_param, primitive, rnd  # noqa: E402

TOL = 1e-4

# The settings of Key's, Fill's and Rim's light data-blocks the spec lets the solver choose; every
# other one (Cycles' and EEVEE's too: a task lists what may change, all else must not) reads as a
# fresh light of the same type has it.
SOLVER_SETS = {
    "type": "REQ-KEY / REQ-FILL / REQ-RIM name it (C01-C03 grade it)",
    "energy": "the Power (C01-C03 grade it)",
    "color": "the colour (C01-C03 grade it)",
    "shape": "an area light's shape (Notes: its size is the solver's; the variant's are disks)",
    "size": "an area light's size (Notes; C01 grades the key's at least 0.25 m)",
    "size_y": "a rectangle's or an ellipse's second side (C01 reads it for the key)",
    "spread": "an area light's beam (REQ-AIM: C07 grades that it covers the product)",
    "spot_size": "the spot's cone angle (Notes; C07 grades that it covers the product)",
    "spot_blend": "the spot's blend (Notes)",
    "shadow_soft_size": "a point or spot light's radius, its softness (the reference keeps the default)",
    "show_cone": "draws the spot's cone in the viewport only",
}
# Read by their own checks below: the node tree by _light_nodes_neutral, the name by the rubric.
JUDGED_ELSEWHERE = ("name", "node_tree", "use_nodes")
# A light object's ray visibility (Object > Visibility > Ray Visibility): what it lights and
# whether it shadows; each must read as a new light object has it.
RAYS = ("visible_camera", "visible_diffuse", "visible_glossy", "visible_transmission", "visible_volume_scatter",
        "visible_shadow")
_DEFAULTS: dict[str, dict] = {}  # light type -> {setting path: value} of a fresh light; "object" -> ray flags


def _surface_tools():
    """probes_surface's node helpers (imported late: they are a sibling module of the probe)."""
    import probes_surface  # noqa: PLC0415
    return probes_surface


def _set_objects(scene) -> list:
    """The render-enabled objects of ``scene``'s Background Scenes: a render draws them too."""
    import probes_scene  # noqa: PLC0415
    return probes_scene.set_objects(scene)


def _light_nodes_neutral(light) -> str | None:
    """Why the light's node tree changes its output, or None when it does not (no tree in use,
    or an Emission of white at strength 1 straight into the Light Output each production engine
    renders: a Cycles-only output beats the active one in a Cycles render, red team 12)."""
    if not getattr(light, "use_nodes", False) or light.node_tree is None:
        return None
    ps = _surface_tools()
    outputs = ps.engine_outputs(light.node_tree, "OUTPUT_LIGHT")
    for target, out in outputs:
        why = _emits_as_set(ps, out)
        if why:
            return f"{target} light output: {why}" if len(outputs) > 1 else why
    return None


def _emits_as_set(ps, out) -> str | None:
    """Why the Light Output ``out`` changes the light (None: a white Emission at strength 1)."""
    if out is None:
        return "light node tree has no Light Output"
    found = ps.upstream(out.inputs["Surface"])
    if found is None:
        return "nothing reaches the light output's Surface"
    node = found[0]
    if node.type != "EMISSION":
        return f"light nodes: the output comes from {node.type}"
    colour, strength = ps.colour_of(node.inputs["Color"]), ps.value_of(node.inputs["Strength"])
    if isinstance(colour, ps.Unknown) or isinstance(strength, ps.Unknown):
        return "light nodes: emission not a constant colour and strength"
    if max(abs(c - 1.0) for c in colour) > 1e-3 or abs(strength - 1.0) > 1e-3:
        return f"light nodes: emission colour {rnd(list(colour))} strength {strength:g}"
    return None


def _scene_tools():
    """probes_scene's RNA walk (imported late: a sibling module of the probe)."""
    import probes_scene  # noqa: PLC0415
    return probes_scene


def _flat(values: dict, prefix: str = "") -> dict:
    """{"cycles.is_portal": False, ...}: a walked struct's settings by path (custom-property
    bookkeeping, ``[props]``, left out: a setting's value is read through its RNA path)."""
    out = {}
    for key, value in values.items():
        if key == "[props]":
            continue
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _settings(light) -> dict:
    """Every setting of ``light`` a render can read (probes_scene's walk: nested structs such as
    ``cycles`` included), by path, but those the solver may choose or other checks judge."""
    walked = _scene_tools()._rna(light, frozenset(SOLVER_SETS) | frozenset(JUDGED_ELSEWHERE))
    return _flat(walked)


def light_defaults(kinds) -> None:
    """Read, once per light type, a fresh light's settings (and a new light object's ray
    visibility); the temporary data-blocks are removed again.  Called before a frame is
    evaluated: adding a data-block must not happen while evaluated objects are in use."""
    for kind in sorted(set(kinds) - set(_DEFAULTS)):
        fresh = bpy.data.lights.new("_arkevo_default_light", kind)
        try:
            _DEFAULTS[kind] = _settings(fresh)
            if "object" not in _DEFAULTS:
                holder = bpy.data.objects.new("_arkevo_default_light", fresh)
                _DEFAULTS["object"] = {ray: bool(getattr(holder, ray)) for ray in RAYS}
                bpy.data.objects.remove(holder)
        finally:
            bpy.data.lights.remove(fresh)


def _off_default(light) -> list[str]:
    """The settings of ``light`` that differ from a fresh light of its type, as text."""
    light_defaults([light.type])
    default, now = _DEFAULTS[light.type], _settings(light)
    return [f"{path} {now.get(path)!r} (default {default.get(path)!r})"
            for path in sorted(set(default) | set(now)) if now.get(path) != default.get(path)]


def _chosen_not_numbers(light) -> list[str]:
    """The settings the solver chooses (``SOLVER_SETS``) that hold a NaN or infinity: no default
    to compare them with, and a render reading one draws black (red team 14: a NaN spot blend)."""
    out = []
    for key in SOLVER_SETS:
        value = getattr(light, key, None)
        if isinstance(value, (bool, int, str)) or value is None:
            continue
        values = [float(value)] if isinstance(value, float) else [float(v) for v in value]
        if not all(math.isfinite(v) for v in values):
            out.append(f"{key} {rnd(values if len(values) > 1 else values[0])} (not a number)")
    return out


def light_problems(obj) -> list[str]:
    """What makes the light ``obj`` emit other than its Power and Color fields say: any setting
    of its data-block off a fresh light's but ``SOLVER_SETS``, one of those not a number, a ray
    visibility flag off a new light object's, light linking, or light nodes that change the
    emission."""
    light = obj.data
    out = _off_default(light)
    out += _chosen_not_numbers(light)
    light_defaults([light.type])
    out += [f"{ray} {getattr(obj, ray)} (default {want})" for ray, want in _DEFAULTS["object"].items()
            if bool(getattr(obj, ray)) != want]
    linking = obj.light_linking
    if linking.receiver_collection is not None or linking.blocker_collection is not None:
        out.append("light linking")
    why = _light_nodes_neutral(light)
    if why:
        out.append(why)
    return out


def _engulfs(obj, lo: np.ndarray, hi: np.ndarray) -> str | None:
    """Why the light ``obj``'s emitter reaches the box [lo, hi] (red team 16: a Rim Radius of
    2.5 m swallowed the speaker -- lit from inside, no rim edge, no shadow), or None."""
    reach = _scene_tools().emitter_reach(obj)
    origin = np.array(obj.matrix_world.translation)
    gap = float(np.linalg.norm(np.clip(origin, lo, hi) - origin))
    if reach is None or reach < gap:
        return None
    return f"its emitter reaches {reach:.3g} m, the objects it must stay clear of lie {gap:.3g} m away"


@primitive(required=("objects",), params={"objects": "names", "clear_of": "names", "frame": "integer"})
def lights_as_set(probe, p: dict):
    """Each named, render-visible light emits what its Power and Color say and casts shadows:
    an allow-list -- every setting of its light data-block, Cycles' and EEVEE's included
    (exposure, temperature, contribution factors, shadows, normalised area power, cut-off
    distance, portal, bounces, caustics, shadow map resolution and filter, soft falloff ...),
    reads as a fresh light of its type has it, but type, Power, colour, shape and size, spread,
    spot size and blend and radius (``SOLVER_SETS``); its ray visibility flags as a new light
    object's (diffuse, glossy, transmission, volume scatter and shadow on, camera off); no light
    linking; its light nodes (if any) an Emission of white at strength 1; and, with
    ``clear_of``, its emitter (``emitter_reach``) reaching less far than the nearest point of
    those objects' joint box.  Scores the share of lights that pass.  Each light as a render at ``frame`` (default 1, and every frame the
    task grades) evaluates it."""
    names = names_param(p)
    light_defaults(("AREA", "SPOT", "POINT", "SUN"))  # before the frame is evaluated
    frame = int(p.get("frame", 1))
    probe.at(frame)
    boxes = [probe.aabb(o, frame) for o in probe.objects(list(p.get("clear_of", [])))]
    measured, bad = {}, {}
    for obj in probe.objects(names):
        if obj.type != "LIGHT":
            measured[obj.name], bad[obj.name] = [f"a {obj.type}, not a light"], f"{obj.name} is a {obj.type}"
            continue
        problems = light_problems(obj.evaluated_get(probe.depsgraph))
        if boxes:
            engulfs = _engulfs(obj.evaluated_get(probe.depsgraph), np.min([b[0] for b in boxes], axis=0),
                               np.max([b[1] for b in boxes], axis=0))
            problems += [engulfs] if engulfs else []
        measured[obj.name] = problems or "as set"
        if problems:
            bad[obj.name] = f"{obj.name}: " + ", ".join(problems)
    detail = "every light emits as set" if not bad else "; ".join(bad.values())
    return fraction_outcome(len(names) - len(bad), len(names), measured, "emits as its Power and Color say",
                            detail, {"off": sorted(bad)})


def _world_radiance(world) -> tuple[float | None, str]:
    """(max channel of background colour x strength, how it was read) under the World Output
    each production engine renders, the brightest; None when unknown."""
    if world is None:
        return 0.0, "no world"
    if not getattr(world, "use_nodes", True) or world.node_tree is None:
        return float(np.max(world.color)), "world colour (no nodes)"  # np.max keeps a NaN
    ps = _surface_tools()
    outputs = ps.engine_outputs(world.node_tree, "OUTPUT_WORLD")
    read = [_output_radiance(ps, out) for _, out in outputs]
    if len(read) > 1:
        read = [(value, f"{target} world output: {how}") for (target, _), (value, how) in zip(outputs, read)]
    unknown = next((row for row in read if row[0] is None), None)
    return unknown if unknown is not None else max(read, key=lambda row: row[0])


def _output_radiance(ps, out) -> tuple[float | None, str]:
    """(max channel of background colour x strength, how) the World Output ``out`` renders."""
    if out is None:
        return 0.0, "no world output"
    if ps.upstream(out.inputs["Volume"]) is not None:
        return None, "something is linked into the world Volume"
    found = ps.upstream(out.inputs["Surface"])
    if found is None:
        return 0.0, "nothing reaches the world Surface"
    node = found[0]
    if node.type != "BACKGROUND":
        return None, f"world surface is {node.type}, not a Background"
    colour, strength = ps.colour_of(node.inputs["Color"]), ps.value_of(node.inputs["Strength"])
    if isinstance(colour, ps.Unknown) or isinstance(strength, ps.Unknown):
        return None, "world background is not a constant colour and strength"
    return float(np.max(colour)) * strength, f"background {rnd(list(colour))} x {strength:g}"  # NaN kept


def _light_output(light, matrix) -> tuple[float | None, str]:
    import probes_scene  # noqa: PLC0415  (a sibling, imported late as the others here are)
    return probes_scene.light_output(light, matrix)


@primitive(required=("expected", "max_power", "max_world"),
           params={"expected": "names", "max_power": "tolerance", "max_world": "tolerance", "frame": "integer"})
def studio_extras(probe, p: dict):
    """What else may light the product stays within the spec: every render-visible light not in
    ``expected`` (and every light of a Background Scene) is no sun and emits at most ``max_power`` W (``light_output``: Power x
    2^Exposure x its colour, Temperature included, x its factors and light nodes, and no
    un-normalised area light); the world's background (colour x strength, max channel) is at
    most ``max_world`` and it has no volume; no view layer overrides the materials or the world;
    and no object instances a collection (no geometry brought into the set that way).  Scores
    the share of the four checks met.  Lights as a render at ``frame`` (default 1, and every
    frame the task grades) evaluates them."""
    expected = set(p["expected"])
    rendered = probe.rendered()
    probe.at(int(p.get("frame", 1)))
    strong = {}
    set_lights = [o for o in _set_objects(probe.scene) if o.type == "LIGHT"]  # never the rig's
    for obj in list(probe.scene.objects) + set_lights:
        if obj.type != "LIGHT" or (obj not in set_lights and (obj.name in expected or obj.name not in rendered)):
            continue
        ev = obj.evaluated_get(probe.depsgraph)
        light = ev.data
        # what REQ-EXTRAS counts: Power x 2^Exposure x the colour's strongest channel (its
        # Temperature's too, red team 26) x factors x light nodes (probes_scene.light_output)
        power, how = _light_output(light, ev.matrix_world)
        if light.type == "SUN":
            strong[obj.name] = f"a sun ({how})"
        elif power is None:
            strong[obj.name] = f"cannot be read: {how}"
        elif not power <= float(p["max_power"]) + TOL:  # NaN meets no bound (red team 14)
            strong[obj.name] = f"{power:g} W ({how})"
        elif light.type == "AREA" and not light.normalize:
            strong[obj.name] = "area power not normalised"
    layers = [vl for vl in probe.scene.view_layers if vl.use]
    overrides = [f"{vl.name}: {kind}" for vl in layers for kind in ("material_override", "world_override")
                 if getattr(vl, kind) is not None]
    worlds = [probe.scene.world] + [vl.world_override for vl in layers if vl.world_override is not None]
    radiance, why = [], []
    for w in worlds:
        value, how = _world_radiance(w)
        radiance.append(value)
        why.append(f"{w.name if w else None}: {how}")
    world_ok = all(v is not None and v <= float(p["max_world"]) + 1e-6 for v in radiance)  # NaN: off
    instancers = sorted(o.name for o in probe.scene.objects
                        if o.instance_type != "NONE" and (o.instance_type != "COLLECTION" or o.instance_collection))
    checks = {"other_lights": not strong, "world": world_ok, "view_layer_overrides": not overrides,
              "instancing": not instancers}
    off = [k for k, ok in checks.items() if not ok]
    notes = {"other_lights": f"other lights too strong: {strong}", "world": f"world too bright: {'; '.join(why)}",
             "view_layer_overrides": f"view layer overrides: {overrides}",
             "instancing": f"objects instancing geometry: {instancers}"}
    detail = "extras within the spec" if not off else "; ".join(notes[k] for k in off)
    measured = {"strong_lights": strong,
                "world": [None if v is None else rnd(v) if math.isfinite(v) else str(v) for v in radiance],
                "world_read": why, "view_layer_overrides": overrides, "instancers": instancers}
    return fraction_outcome(len(checks) - len(off), len(checks), measured,
                            {k: p[k] for k in ("expected", "max_power", "max_world")}, detail, {"off": off})


def _sensor_span(scene, cam) -> float:
    """The sensor size (mm) the picture's longer side spans, as the render fits it: with Sensor
    Fit Auto the Sensor Width; Horizontal, the width across the picture's width; Vertical, the
    Sensor Height across its height -- a tall height on a wide picture widens the view whatever
    the focal length reads."""
    r = scene.render
    aspect = (r.resolution_x * r.pixel_aspect_x) / max(1e-9, r.resolution_y * r.pixel_aspect_y)
    if cam.sensor_fit == "AUTO":
        return float(cam.sensor_width)
    across = float(cam.sensor_width) if cam.sensor_fit == "HORIZONTAL" else float(cam.sensor_height) * aspect
    return across if aspect >= 1.0 else across / aspect


def _focus_depth(probe, scene, cam_ev, dof) -> float:
    """The depth (along the view axis) the lens focuses at: the focus object's (its bone's, with
    a Focus Bone) when one is set, else the Focus Distance."""
    if dof.focus_object is None:
        return float(dof.focus_distance)
    focus_ev = dof.focus_object.evaluated_get(probe.depsgraph)
    where = focus_ev.matrix_world.translation
    bone = getattr(dof, "focus_subtarget", "")
    if bone and focus_ev.type == "ARMATURE" and bone in focus_ev.pose.bones:
        where = focus_ev.matrix_world @ focus_ev.pose.bones[bone].head
    return float(world_to_camera_view(scene, cam_ev, where)[2])


def _blur_mm(cam, depths: np.ndarray, focus: float) -> float:
    """The widest circle of confusion (mm on the sensor) of points at ``depths`` (m, along the
    view axis) for a lens focused at ``focus``: c = (f / N) x f x |d - s| / (d x (s - f)), the
    aperture ratio (anamorphic bokeh) widening it by max(ratio, 1 / ratio)."""
    f = float(cam.lens) / 1000.0
    stop = max(float(cam.dof.aperture_fstop), 1e-6)
    ratio = max(float(cam.dof.aperture_ratio), 1e-6)
    depth = np.maximum(depths, 1e-6)
    if focus <= f:  # focused inside the focal length: nothing is sharp
        return math.inf
    c = (f / stop) * f * np.abs(depth - focus) / (depth * (focus - f)) * max(ratio, 1.0 / ratio)
    return float(c.max()) * 1000.0


# What a render reads of a camera's depth of field to sample its aperture.
DOF_SAMPLED = ("aperture_fstop", "aperture_ratio", "aperture_rotation", "focus_distance")


def _pixel_mm(scene, cam) -> float:
    """The width (mm on the sensor) of one pixel of the rendered frame: the sensor span of the
    picture's longer side over that side's pixels."""
    r = scene.render
    wide = r.resolution_x * r.pixel_aspect_x >= r.resolution_y * r.pixel_aspect_y
    pixels = (r.resolution_x if wide else r.resolution_y) * r.resolution_percentage / 100.0
    return _sensor_span(scene, cam) / max(pixels, 1.0)


@primitive(required=("camera", "target", "min_fill"),
           params={"camera": "name", "target": "name", "min_fill": {"type": "number", "minimum": 0, "maximum": 1,
                                                                    "description": "number 0..1"},
                   "sensor_width": {"type": "number", "exclusiveMinimum": 0, "description": "number > 0 (mm)"},
                   "sensor_tolerance": "tolerance", "focus_margin": "tolerance", "max_blur_px": "tolerance",
                   "frame": "integer"})
def shot_framing(probe, p: dict):
    """The scene camera is ``camera`` and the whole ``target`` (its evaluated vertices) is in
    its picture at ``frame`` (default 1): inside the frame (shift, sensor fit and the render's
    aspect included) and between the clip distances, spanning at least ``min_fill`` of the
    frame height; with ``sensor_width``, the sensor is that wide within ``sensor_tolerance``
    (default 0.5 mm), and so is the span of it the picture's longer side takes (Sensor Fit and
    Sensor Height included: ``_sensor_span``); and depth of field, when on, focuses within ``focus_margin`` (default
    0.1 m) of the target's depth range and renders every vertex of it sharp: its circle of
    confusion (``_blur_mm``: f-stop, focal length, focus and the vertex's depth, the aperture
    ratio widening it) at most ``max_blur_px`` (default 2) pixels of the rendered frame
    (``_pixel_mm``) -- a focus inside the margin at f/0.02 smears the whole product --, every
    setting the aperture is sampled with (``DOF_SAMPLED``: blade rotation too) a number.  Scores
    the share of the checks met."""
    frame = int(p.get("frame", 1))
    cam = probe.scene.objects.get(p["camera"])
    target = probe.obj(p["target"])  # a missing or render-hidden target scores 0
    if cam is None or cam.type != "CAMERA":
        return Outcome(0.0, False, None, p["camera"], f"no camera {p['camera']!r}", {"off": ["camera"]})
    probe.at(frame)
    scene = probe.scene
    cam_ev = cam.evaluated_get(probe.depsgraph)
    points = [Vector(tuple(v)) for v in probe._world_points(target)] if target.type in GEOMETRY_TYPES else []
    view = np.array([tuple(world_to_camera_view(scene, cam_ev, pt)) for pt in points]) if points else np.zeros((0, 3))
    data = cam.data
    checks, measured = {}, {}
    checks["scene_camera"] = scene.camera is not None and scene.camera.name == cam.name
    measured["scene_camera"] = scene.camera.name if scene.camera else None
    if len(view):
        lo, hi = view.min(axis=0), view.max(axis=0)
        measured.update(x=rnd([float(lo[0]), float(hi[0])]), y=rnd([float(lo[1]), float(hi[1])]),
                        depth=rnd([float(lo[2]), float(hi[2])]), fill=rnd(float(hi[1] - lo[1])))
        checks["in_frame"] = bool(lo[0] >= 0 and lo[1] >= 0 and hi[0] <= 1 and hi[1] <= 1)
        checks["in_clip_range"] = bool(lo[2] >= data.clip_start and hi[2] <= data.clip_end)
        checks["fill"] = bool(hi[1] - lo[1] >= float(p["min_fill"]))
    else:
        checks.update(in_frame=False, in_clip_range=False, fill=False)
    if "sensor_width" in p:
        measured["sensor_width"] = rnd(float(data.sensor_width))
        measured["sensor_span"] = rnd(_sensor_span(scene, data))
        checks["sensor_width"] = all(abs(v - float(p["sensor_width"])) <= float(p.get("sensor_tolerance", 0.5))
                                     for v in (float(data.sensor_width), _sensor_span(scene, data)))
    if data.dof.use_dof and len(view):
        focus = _focus_depth(probe, scene, cam_ev, data.dof)
        margin = float(p.get("focus_margin", 0.1))
        measured["focus_distance"] = rnd(focus)
        checks["focus"] = bool(view[:, 2].min() - margin <= focus <= view[:, 2].max() + margin)
        blur_px = _blur_mm(data, view[:, 2], focus) / _pixel_mm(scene, data)
        measured.update(blur_px=rnd(blur_px) if math.isfinite(blur_px) else "unbounded",
                        f_stop=rnd(float(data.dof.aperture_fstop)))
        checks["sharp"] = bool(blur_px <= float(p.get("max_blur_px", 2.0)))
        # the lens settings a render samples the aperture with, the blur formula's or not (red
        # team 14: a NaN blade rotation makes every camera ray NaN, a blank frame at f/128)
        lens = {k: float(getattr(data.dof, k)) for k in DOF_SAMPLED}
        measured["dof_not_numbers"] = sorted(k for k, v in lens.items() if not math.isfinite(v))
        checks["dof_numbers"] = not measured["dof_not_numbers"]
    off = [k for k, ok in checks.items() if not ok]
    detail = (f"{target.name} fully in {cam.name}'s picture" if not off else
              f"{target.name} in {cam.name}'s picture: off " + ", ".join(off) + f" ({rnd(measured)})")
    expected = {k: p[k] for k in ("camera", "target", "min_fill", "sensor_width") if k in p}
    return fraction_outcome(len(checks) - len(off), len(checks), measured, expected, detail, {"off": off})
