"""Probe group: geometry (dimensions, placement, contact, element counts, manifold, normals, aim and
placement around a target, origin placement).  Runs in bpy; measured on the evaluated scene in world
space."""

from __future__ import annotations

import math
import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # standalone: siblings only
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from mathutils import Vector  # noqa: E402

from probe_core import (  # noqa: E402
    GEOMETRY_TYPES, Probe, aabb_gap, aabb_point, aabb_size, binary_outcome, corner_verts, fraction_outcome, names_param, node_trees,
    object_point, primitive, render_view_layer, render_world, rnd, union_boxes, uv_vectors, vertex_positions,
)
from probes_solid import face_extent, solid_of, visible_shells  # noqa: E402
import probes_surface as ps  # noqa: E402

# a module-level literal: admission reads a primitive's params without running the module
SHARE = {"type": "number", "minimum": 0, "maximum": 1, "description": "number 0..1"}


def _shown_box(probe: Probe, obj, frame: int):
    """World AABB of what renders of ``obj``: the faces of its visible shells (loose vertices and
    edges, and shells hidden inside another solid, do not widen it); an object with no faces
    (an empty, a camera) is its evaluated AABB / origin as before."""
    solid = solid_of(probe, obj, frame) if obj.type in GEOMETRY_TYPES else None
    if solid is None or not solid.faces:
        return probe.aabb(obj, frame)
    box = face_extent(probe, obj, frame)
    if box is None:  # every shell hidden: nothing shows
        return None
    return tuple(box[0]), tuple(box[1])


@primitive(group="geometry", required=("object|objects", "expected", "tolerance"),
           params={"object": "name", "objects": "names", "expected": "vec3", "tolerance": "tolerance",
                   "frame": "integer"})
def dimensions(probe: Probe, p: dict):
    """The (union) world AABB size is within ``tolerance`` of ``expected`` on every axis, the box
    of what renders: faces of visible shells (loose vertices, and shells hidden inside another
    solid, do not widen it; see ``probes_solid.visible_shells``).  The box of the faces the
    viewport shows (``Probe.viewport_aabb``: modifiers at their viewport switches and levels)
    must measure ``expected`` too: the file as opened is the model as much as its render; and a
    part the viewport shows in another shape (``Probe.viewport_shape_differs``: another number of
    separate pieces, or a face area outside ``VIEWPORT_AREA_RATIO``) fails it."""
    names, expected, tol = names_param(p), [float(v) for v in p["expected"]], float(p["tolerance"])
    frame = int(p.get("frame", 1))
    objs = probe.objects(names)
    rendered = {o.name: _shown_box(probe, o, frame) for o in objs}
    size = _joint_size(list(rendered.values()))
    errors = [abs(s - e) for s, e in zip(size, expected)]
    evidence = {"axis_errors": rnd(errors)}
    # what the viewport shows (the file as opened) must measure the same: a modifier shown only
    # there (an Array) is no part of the render, yet it is the model's size to whoever opens it
    viewport = {o.name: probe.viewport_aabb(o, frame, faces_only=True) for o in objs}
    # a part the viewport does not show (disabled, hidden, drawn as bounds) is no part of the
    # model as opened: it adds nothing to the size there
    hidden = {o.name: why for o in objs if (why := probe.viewport_hides(o, frame))}
    if hidden:
        evidence["viewport_hides"] = hidden
    # red team 26: a viewport-only modifier deleting eight of ten pickets left the row's box as it was
    shapes = {o.name: why for o in objs if o.name not in hidden and (why := probe.viewport_shape_differs(o, frame))}
    if shapes:
        evidence["viewport_shape"] = shapes
    if any(b is not None for b in viewport.values()) or hidden:
        view_size = _joint_size([None if n in hidden else viewport[n] if viewport[n] is not None else rendered[n]
                                 for n in rendered])
        view_errors = [abs(s - e) for s, e in zip(view_size, expected)]
        if view_size != size:
            evidence.update(viewport_size=rnd(view_size), viewport_axis_errors=rnd(view_errors))
        errors = [max(a, b) for a, b in zip(errors, view_errors)]
    ok = all(e <= tol for e in errors) and not shapes
    detail = f"world AABB size of {', '.join(names)}; max axis error {max(errors):.4f} (tolerance {tol})"
    if "viewport_size" in evidence:
        detail += f"; the viewport shows {rnd(evidence['viewport_size'])}"
    if hidden:
        detail += "; the viewport does not show " + ", ".join(f"{n} ({w})" for n, w in hidden.items())
    if shapes:
        detail += "; the viewport shows another shape: " + ", ".join(f"{n} ({w})" for n, w in shapes.items())
    return binary_outcome(ok, rnd(size), expected, detail, evidence)


def _joint_size(boxes: list) -> tuple[float, float, float]:
    """The size of the box holding every box given (None: nothing shows of that one)."""
    held = [b for b in boxes if b is not None]
    return aabb_size(union_boxes(*held)) if held else (0.0, 0.0, 0.0)


@primitive(group="geometry", required=("object|objects", "tolerance"),
           params={"object": "name", "objects": "names", "expected": "number", "tolerance": "tolerance",
                   "frame": "integer"})
def object_min_z(probe: Probe, p: dict):
    """Each object's lowest world z is within ``tolerance`` of ``expected`` (ground contact)."""
    names, expected, tol = names_param(p), float(p.get("expected", 0.0)), float(p["tolerance"])
    frame = int(p.get("frame", 1))
    lows = {o.name: probe.aabb(o, frame)[0][2] for o in probe.objects(names)}
    bad = [n for n, z in lows.items() if abs(z - expected) > tol]
    detail = "all lowest points at expected height" if not bad else "off: " + ", ".join(bad)
    return fraction_outcome(len(names) - len(bad), len(names), rnd(lows), expected, detail, {"off": bad})


@primitive(group="geometry", required=("regions",), params={"regions": "regions", "frame": "integer"})
def aabb_within(probe: Probe, p: dict):
    """Each object's world AABB lies inside its region {name: {min, max}}: the box of what a
    render draws of it, widened by what the viewport shows (``Probe.shown_aabb``)."""
    regions, frame = p["regions"], int(p.get("frame", 1))
    objs = probe.objects(list(regions))
    measured, bad = {}, []
    for o in objs:
        lo, hi = probe.shown_aabb(o, frame)
        rmin, rmax = regions[o.name]["min"], regions[o.name]["max"]
        measured[o.name] = {"min": rnd(lo), "max": rnd(hi)}
        if any(lo[i] < rmin[i] or hi[i] > rmax[i] for i in range(3)):
            bad.append(o.name)
    detail = "all inside their regions" if not bad else "outside region: " + ", ".join(bad)
    return fraction_outcome(len(objs) - len(bad), len(objs), measured, regions, detail, {"outside": bad})


@primitive(group="geometry", required=("object", "others", "tolerance"),
           params={"object": "name", "others": "names", "tolerance": "tolerance", "frame": "integer"})
def aabb_contact(probe: Probe, p: dict):
    """Each other object's AABB is within ``tolerance`` of the object's (overlap touches)."""
    obj, others = probe.obj(p["object"]), probe.objects(list(p["others"]))
    frame, tol = int(p.get("frame", 1)), float(p["tolerance"])
    gaps = {o.name: aabb_gap(probe.aabb(obj, frame), probe.aabb(o, frame)) for o in others}
    bad = [n for n, g in gaps.items() if g > tol]
    detail = f"all touch {obj.name}" if not bad else f"not touching {obj.name}: " + ", ".join(bad)
    return fraction_outcome(len(others) - len(bad), len(others), rnd(gaps), {"max_gap": tol}, detail,
                            {"not_touching": bad})


# Everything else a render draws: other objects' geometry and the instances no part owns.
POINT3 = {"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3, "description": "vec3 [x, y, z]"}
REGION = {"type": "object", "required": ["min", "max"], "properties": {"min": POINT3, "max": POINT3},
          "additionalProperties": False, "description": "{min: [x, y, z], max: [x, y, z]}"}


def _others_drawn(probe: Probe, expected: set[str], frame: int) -> list[str]:
    """Names of the objects, besides ``expected`` and the start scene's, that draw geometry in
    the render at ``frame``: render-visible geometry objects and every instancer (an Empty
    instancing a collection, a vertex / face instancer whose own mesh is not shown, ...)."""
    start = set(probe.baseline.get("objects", {})) if probe.baseline is not None else set()
    own = {o.name for o in probe.scene.objects if o.type in GEOMETRY_TYPES and o.name in probe.rendered()}
    return sorted((own | set(probe.instancers(frame))) - expected - start)


def _lights_drawn(probe: Probe, expected: set[str], frame: int) -> dict[str, tuple]:
    """{credited name: (box or None for a sun's disc, why)}: the lights, besides the start
    scene's, whose emitter a render at ``frame`` draws for the camera (``shown_to_camera``):
    their own objects, instanced ones (credited to the instancer) and Background Set ones."""
    import probes_scene  # noqa: PLC0415  (a sibling: the home of what lights do in a render)
    start = set(probe.baseline.get("objects", {})) if probe.baseline is not None else set()
    out: dict[str, tuple] = {}
    for light in probes_scene.render_lights(probe, frame):
        if light["shown"] is None or light["name"] in expected or light["name"] in start:
            continue
        box = None
        if light["reach"] is not None:
            centre, reach = np.asarray(light["centre"]), float(light["reach"])
            box = (tuple((centre - reach).tolist()), tuple((centre + reach).tolist()))
        if light["name"] in out and out[light["name"]][0] is not None and box is not None:
            box = union_boxes(out[light["name"]][0], box)  # an instancer of several: all they reach
        elif light["name"] in out:
            box = None
        why = light["shown"] if light["name"] == light["light"] else f"{light['name']} draws {light['shown']}"
        out[light["name"]] = (box, why)
    return out


def world_volume(scene) -> str | None:
    """Why the render draws a volume in the world (fog over the whole picture), or None: a live
    link into the Volume of the render world's active output, with the view layer's Volumes
    filter on."""
    view_layer = render_view_layer(scene)
    world = render_world(scene)
    if view_layer is None or not view_layer.use_volumes or world is None or world.node_tree is None:
        return None
    import probes_surface  # noqa: PLC0415  (a sibling that imports probe_core; loaded where a world has nodes)
    # each World Output an engine renders: a Cycles-only output beats the active one (red team 12)
    for _, node in probes_surface.engine_outputs(world.node_tree, "OUTPUT_WORLD"):
        sock = node.inputs.get("Volume") if node is not None else None
        if sock is not None and any(not link.is_muted and not link.from_node.mute for link in sock.links):
            return f"world {world.name!r} has a volume shader ({sock.links[0].from_node.name})"
    return None


@primitive(group="geometry", required=("expected",),
           params={"expected": "names", "others_within": REGION, "frame": "integer"})
def others_drawn(probe: Probe, p: dict):
    """What the render draws besides the ``expected`` parts (and besides the start scene's
    objects): every other object's geometry, with the instances it draws -- a collection
    instance, vertex / face instancing, Geometry Nodes instances, credited to the object that
    instances them -- lies inside ``others_within`` {min, max} at ``frame`` (default 1);
    without ``others_within`` nothing else may be drawn at all.  A light whose emitter the
    camera sees (``probes_scene.shown_to_camera``: a glowing ball, panel or sun disc in a Cycles
    or EEVEE render) is drawn too, its box the emitter's reach round its origin (a sun's disc is in the
    sky, outside any region).  A volume in the render's
    world is drawn everywhere and is never allowed.  An object that draws instances
    is judged by what it draws, whatever its type or its own visibility; each is judged where it
    shows in the viewport too (``Probe.viewport_aabb``)."""
    frame = int(p.get("frame", 1))
    region = p.get("others_within")
    others = _others_drawn(probe, set(p["expected"]), frame)
    boxes, outside, lights_outside = {}, [], {}
    # a light the camera sees is an emitter in the picture (red team 14: a 3 m ball hid the fence)
    emitters = _lights_drawn(probe, set(p["expected"]), frame)
    for name, (box, why) in emitters.items():
        boxes[name] = {"min": rnd(list(box[0])), "max": rnd(list(box[1]))} if box is not None else why
        if region is None or box is None or any(box[0][i] < region["min"][i] or box[1][i] > region["max"][i]
                                                for i in range(3)):
            lights_outside[name] = why
    for name in others:
        lo, hi = probe.drawer_aabb(name, frame)
        if name in probe.scene.objects:  # and where the viewport shows it (red team 6)
            lo, hi = union_boxes((lo, hi), probe.viewport_aabb(probe.scene.objects[name], frame))
        boxes[name] = {"min": rnd(list(lo)), "max": rnd(list(hi))}
        if region is None or any(lo[i] < region["min"][i] or hi[i] > region["max"][i] for i in range(3)):
            outside.append(name)
    # strands no measure can place (hair): drawn anywhere, by a part or by another object
    unmeasured = probe.unmeasured()
    # a world volume is drawn everywhere, in front of the parts too (red team 4 fogged a fence out)
    fog = world_volume(probe.scene)
    where = "outside the region" if region is not None else "drawn where nothing else may be"
    problems = ([f"other geometry {where}: " + ", ".join(outside[:20])] if outside else []) + (
        ["geometry the grader cannot measure: " + "; ".join(f"{n} ({w})" for n, w in list(unmeasured.items())[:20])]
        if unmeasured else []) + ([f"a volume drawn over everything: {fog}"] if fog else [])
    if lights_outside:
        problems.append(f"a light the camera sees, {where}: " + "; ".join(list(lights_outside.values())[:20]))
    detail = f"{len(others)} other object(s) drawing geometry, as allowed" if not problems else "; ".join(problems)
    return binary_outcome(not problems, {"others": others[:50], "lights": sorted(emitters)[:50],
                                         "boxes": dict(list(boxes.items())[:20])},
                          {"others_within": region}, detail, {"outside": (outside + sorted(lights_outside))[:50],
                                                              "unmeasured": unmeasured})


# --- element counts, manifold, normals --------------------------------------------------------

COUNTS = ("vertices", "edges", "faces", "triangles")


def _within(value: int, bound) -> bool:
    if isinstance(bound, (int, float)):
        return value == int(bound)
    lo, hi = bound.get("min"), bound.get("max")
    return (lo is None or value >= lo) and (hi is None or value <= hi)


def _counts(mesh: dict | None) -> dict[str, int]:
    if mesh is None:
        return dict.fromkeys(COUNTS, 0)
    return {"vertices": len(mesh["co"]), "edges": len(mesh["edges"]),
            "faces": len(mesh["poly_start"]), "triangles": mesh["triangles"]}


@primitive(group="geometry", required=("object|objects", "vertices|edges|faces|triangles"),
           params={"object": "name", "objects": "names", "vertices": "count_bound", "edges": "count_bound",
                   "faces": "count_bound", "triangles": "count_bound", "total": "bool", "frame": "integer"})
def mesh_counts(probe: Probe, p: dict):
    """Evaluated element counts (``vertices``, ``edges``, ``faces``, ``triangles``), each an
    exact number or {min, max}; per object, or summed over the objects with ``total: true``."""
    names, frame = names_param(p), int(p.get("frame", 1))
    bounds = {k: p[k] for k in COUNTS if k in p}
    if not bounds:
        raise ValueError("mesh_counts: give at least one of " + ", ".join(COUNTS))
    per = {o.name: _counts(probe.mesh_arrays(o, frame)) for o in probe.objects(names)}
    if p.get("total"):
        per = {"total": {k: sum(c[k] for c in per.values()) for k in COUNTS}}
    bad = [n for n, c in per.items() if not all(_within(c[k], b) for k, b in bounds.items())]
    detail = "all counts within bounds" if not bad else "out of bounds: " + ", ".join(bad)
    return fraction_outcome(len(per) - len(bad), len(per), per, bounds, detail, {"out_of_bounds": bad})


def edge_topology(mesh: dict) -> dict[str, int | float]:
    """Boundary / non-manifold edge counts, winding consistency and signed volume of a mesh."""
    start, total, loop_vert, co = mesh["poly_start"], mesh["poly_total"], mesh["loop_vert"], mesh["co"]
    n = max(len(co), 1)
    if not len(start):
        return {"faces": 0, "boundary_edges": 0, "non_manifold_edges": 0, "loose_edges": len(mesh["edges"]),
                "inconsistent_edges": 0, "signed_volume": 0.0}
    poly = np.repeat(np.arange(len(start)), total)
    loops = np.arange(len(loop_vert))
    nxt = start[poly] + (loops - start[poly] + 1) % total[poly]
    a, b = loop_vert[loops], loop_vert[nxt]
    undirected, counts = np.unique(np.minimum(a, b) * n + np.maximum(a, b), return_counts=True)
    _, dcounts = np.unique(a * n + b, return_counts=True)
    used = set(undirected.tolist())
    loose = sum(1 for e0, e1 in mesh["edges"].tolist() if min(e0, e1) * n + max(e0, e1) not in used)
    # signed volume by fan triangulation of each polygon (divergence theorem)
    first = loop_vert[start[poly]]
    fan = (loops != start[poly]) & (nxt != start[poly])
    v0, v1, v2 = co[first[fan]], co[a[fan]], co[b[fan]]
    volume = float(np.einsum("ij,ij->i", v0, np.cross(v1, v2)).sum() / 6.0)
    return {"faces": int(len(start)), "boundary_edges": int(np.sum(counts == 1)),
            "non_manifold_edges": int(np.sum(counts > 2)), "loose_edges": int(loose),
            "inconsistent_edges": int(np.sum(dcounts > 1)), "signed_volume": round(volume, 6)}


@primitive(group="geometry", required=("object|objects",),
           params={"object": "name", "objects": "names", "max_bad_edges": "count", "frame": "integer"})
def manifold(probe: Probe, p: dict):
    """Each mesh is closed and manifold: every edge has exactly two faces (no boundary,
    non-manifold or loose edges beyond ``max_bad_edges``, default 0)."""
    names, frame, limit = names_param(p), int(p.get("frame", 1)), int(p.get("max_bad_edges", 0))
    topo, bad = {}, []
    for o in probe.objects(names):
        mesh = probe.mesh_arrays(o, frame)
        if mesh is None:
            topo[o.name] = None
            bad.append(o.name)
            continue
        t = edge_topology(mesh)
        topo[o.name] = {k: t[k] for k in ("boundary_edges", "non_manifold_edges", "loose_edges")}
        if sum(topo[o.name].values()) > limit:
            bad.append(o.name)
    detail = "all closed manifold meshes" if not bad else "not manifold: " + ", ".join(bad)
    return fraction_outcome(len(topo) - len(bad), len(topo), topo, {"max_bad_edges": limit}, detail,
                            {"not_manifold": bad})


@primitive(group="geometry", required=("object|objects",),
           params={"object": "name", "objects": "names", "frame": "integer"})
def normals_outward(probe: Probe, p: dict):
    """Each mesh's face winding is consistent (no edge walked twice in the same direction)
    and its normals point outward (positive signed volume)."""
    names, frame = names_param(p), int(p.get("frame", 1))
    topo, bad = {}, []
    for o in probe.objects(names):
        mesh = probe.mesh_arrays(o, frame)
        t = edge_topology(mesh) if mesh is not None else None
        topo[o.name] = None if t is None else {k: t[k] for k in ("inconsistent_edges", "signed_volume")}
        if t is None or t["inconsistent_edges"] > 0 or t["signed_volume"] <= 0:
            bad.append(o.name)
    detail = "normals consistent and outward" if not bad else "inward or inconsistent: " + ", ".join(bad)
    return fraction_outcome(len(topo) - len(bad), len(topo), topo,
                            {"inconsistent_edges": 0, "signed_volume": "> 0"}, detail, {"bad": bad})


# --- aim, placement around a target, origins ----------------------------------------------------

# [min, max] of a measured quantity (placed_around)
RANGE = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2, "description": "[min, max]"}


def _view_axis(probe: Probe, obj, frame: int) -> tuple[Vector, Vector]:
    """(world position, unit viewing direction) of an object that looks along its local -Z axis
    (cameras, spot and area lights), as evaluated (constraints such as Track To count).  A
    camera looks where its picture's centre is: the ray through the middle of its frame, lens
    shift included (red team 30: a camera pointed at the speaker, shifted 0.42 x 0.40, framed it
    in the bottom-left corner, its picture's centre 10 degrees off), its scale dropped as the
    engines drop it."""
    probe.at(frame)
    ev = obj.evaluated_get(probe.depsgraph)
    m = ev.matrix_world
    if ev.type == "CAMERA" and ev.data.type != "PANO":
        m = m.normalized()
        corners = ev.data.view_frame(scene=probe.scene)
        centre = sum(corners, Vector()) / len(corners)
        if ev.data.type == "ORTHO":  # parallel rays: the shift moves where they start
            return m @ Vector((centre.x, centre.y, 0.0)), (m.to_3x3() @ Vector((0.0, 0.0, -1.0))).normalized()
        return m.translation.copy(), (m.to_3x3() @ centre).normalized()
    return m.translation.copy(), (m.to_3x3() @ Vector((0.0, 0.0, -1.0))).normalized()


@primitive(group="geometry", required=("object|objects", "target", "max_angle"),
           params={"object": "name", "objects": "names", "target": "name", "point": "point",
                   "max_angle": {"type": "number", "minimum": 0, "maximum": 180, "description": "degrees 0..180"},
                   "frame": "integer"})
def aimed_at(probe: Probe, p: dict):
    """Each object (a camera, spot or area light: it points along its local -Z axis) is aimed at
    ``target``: the angle between its axis and the line to the target's ``point`` (default
    aabb_center) is at most ``max_angle`` degrees.  A light's beam must also cover the whole
    target: a spot's cone (half of its spot size) and an area light's spread (half of it) must
    contain every evaluated vertex of it -- a light aimed at the target whose narrowed beam
    lights only part of it, or misses it, is not lighting it.  A render draws a spot's cone in the
    light's own scaled frame (an object scale of 0.03 in X / Y makes a 40 degree cone ~1.2
    degrees), so a spot's span is measured there; an area light's spread is measured about its
    world normal (Cycles), and in its scaled frame as well, the stricter counting.  Measured as a
    render at ``frame`` evaluates the light.  Scores the share that pass."""
    names, frame, limit = names_param(p), int(p.get("frame", 1)), float(p["max_angle"])
    objs, target = probe.objects(names), probe.obj(p["target"])
    aim = Vector(object_point(probe, target, frame, p.get("point", "aabb_center")))
    angles, beams, spans = {}, {}, {}
    for o in objs:
        pos, axis = _view_axis(probe, o, frame)
        to_target = aim - pos
        angles[o.name] = 180.0 if to_target.length < 1e-9 else math.degrees(axis.angle(to_target))
        if o.type == "LIGHT":
            light = o.evaluated_get(probe.depsgraph).data
            cone = (math.degrees(light.spot_size) / 2 if light.type == "SPOT"
                    else math.degrees(light.spread) / 2 if light.type == "AREA" else None)
            if cone is not None:
                beams[o.name] = cone
                spans[o.name] = _beam_span(probe, o, light.type, target, frame, pos, axis)
    bad = [n for n, a in angles.items() if a > limit or (n in beams and spans[n] > beams[n])]
    detail = f"all aimed at {target.name}" if not bad else f"off {target.name}: " + ", ".join(
        f"{n} by {angles[n]:.1f} deg" + (f" (its beam covers {beams[n]:.1f} deg, {target.name} spans "
                                         f"{spans[n]:.1f})" if n in beams else "")
        for n in bad)
    return fraction_outcome(len(objs) - len(bad), len(objs), rnd(angles), {"max_angle": limit}, detail,
                            {"off_target": bad, "target_point": rnd(list(aim)), "beam_half_angles": rnd(beams),
                             "target_spans": rnd(spans)})


def _beam_span(probe: Probe, light_obj, kind: str, target, frame: int, pos: Vector, axis: Vector) -> float:
    """The widest angle (degrees) off the light's beam axis at which ``target`` lies, as the beam
    sees it: a spot's in its local, scaled frame (what Cycles and EEVEE draw); an area light's
    the larger of the world angle (Cycles' spread, about the normalised normal) and the local
    one."""
    offsets = _target_offsets(probe, target, frame, pos)
    m3 = light_obj.evaluated_get(probe.depsgraph).matrix_world.to_3x3()
    local = _widest_local_angle(offsets, m3)
    return local if kind == "SPOT" else max(local, _widest_angle(offsets, axis))


def _target_offsets(probe: Probe, target, frame: int, pos: Vector) -> np.ndarray:
    """World offsets from ``pos`` to every evaluated vertex of ``target`` (its origin when it
    has none)."""
    probe.at(frame)
    return probe._world_points(target) - np.array(pos)


def _widest_angle(offsets: np.ndarray, axis: Vector) -> float:
    """The largest angle (degrees) between ``axis`` and any of ``offsets``."""
    lengths = np.linalg.norm(offsets, axis=1)
    if not len(offsets) or lengths.min() < 1e-9:
        return 180.0
    cos = np.clip(offsets @ np.array(axis) / lengths, -1.0, 1.0)
    return float(np.degrees(np.arccos(cos.min())))


def _widest_local_angle(offsets: np.ndarray, m3) -> float:
    """The largest angle (degrees) off local -Z of ``offsets`` mapped into the frame of the 3x3
    world matrix ``m3`` (its scale and shear undone); 180 where the matrix is singular (a light
    squashed flat has no cone a render could draw around the target)."""
    world = np.array([list(row) for row in m3], dtype=float)
    if abs(np.linalg.det(world)) < 1e-12:
        return 180.0
    return _widest_angle(offsets @ np.linalg.inv(world).T, Vector((0.0, 0.0, -1.0)))


def _in_range(value: float, bounds: list, period: float | None = None) -> bool:
    lo, hi = float(bounds[0]), float(bounds[1])
    shifts = (-period, 0.0, period) if period else (0.0,)
    return any(lo <= value + k <= hi for k in shifts)


@primitive(group="geometry", required=("object", "target", "distance|azimuth|elevation"),
           params={"object": "name", "target": "name", "point": "point", "distance": RANGE, "azimuth": RANGE,
                   "elevation": RANGE, "frame": "integer"})
def placed_around(probe: Probe, p: dict):
    """The object's world origin, seen from ``target``'s ``point`` (default aabb_center), lies
    within the given [min, max] ranges: ``distance`` (m), ``azimuth`` (degrees about Z: 0 = the
    front, -Y; 90 = the right, +X; -90 = the left; 180 = behind; a range may run past 180, e.g.
    [150, 210]) and ``elevation`` (degrees above the target's horizontal plane).  Binary."""
    frame = int(p.get("frame", 1))
    obj, target = probe.obj(p["object"]), probe.obj(p["target"])
    centre = Vector(object_point(probe, target, frame, p.get("point", "aabb_center")))
    d = Vector(probe.origin(obj, frame)) - centre
    measured = {"distance": d.length, "azimuth": math.degrees(math.atan2(d.x, -d.y)),
                "elevation": math.degrees(math.atan2(d.z, math.hypot(d.x, d.y)))}
    off = [k for k in ("distance", "azimuth", "elevation")
           if k in p and not _in_range(measured[k], p[k], 360.0 if k == "azimuth" else None)]
    expected = {k: p[k] for k in ("distance", "azimuth", "elevation") if k in p}
    shown = f"{measured['distance']:.2f} m, azimuth {measured['azimuth']:.1f}, elevation {measured['elevation']:.1f}"
    detail = f"{obj.name} from {target.name}: {shown}" + (f"; outside: {', '.join(off)}" if off else "")
    return binary_outcome(not off, rnd(measured), expected, detail, {"outside": off})


@primitive(group="geometry", required=("object|objects", "point", "tolerance"),
           params={"object": "name", "objects": "names", "point": "anchor", "tolerance": "tolerance",
                   "frame": "integer"})
def origin_at(probe: Probe, p: dict):
    """Each object's origin sits at a point of its own world AABB (``point``: aabb_center,
    aabb_bottom_center or top_center), within ``tolerance`` (Euclidean).  Scores the share that
    pass."""
    names, frame, tol = names_param(p), int(p.get("frame", 1)), float(p["tolerance"])
    errors = {}
    for o in probe.objects(names):
        errors[o.name] = math.dist(probe.origin(o, frame), aabb_point(probe.aabb(o, frame), p["point"]))
    bad = [n for n, e in errors.items() if e > tol]
    detail = f"every origin at its {p['point']}" if not bad else f"origin off its {p['point']}: " + ", ".join(bad)
    return fraction_outcome(len(names) - len(bad), len(names), rnd(errors), {"max_error": tol}, detail,
                            {"off": bad})


# --- UV layout and repeated parts (mesh islands) -------------------------------------------------

AXIS_INDEX = {"X": 0, "Y": 1, "Z": 2}


def _uv_mesh(probe: Probe, obj, uv_map: str | None, frame: int) -> dict | None:
    """The evaluated mesh's UVs: ``uv`` (loops, 2), ``tri`` (loop triangles, 3 loop indices),
    ``co`` (loop triangles' corners in world space, (t, 3, 3)) and the UV map's ``name``; None
    when the object has no mesh or no such UV map (``uv_map`` None: the render-active one)."""
    if obj.type not in GEOMETRY_TYPES:
        return None
    probe.at(frame)
    ev = obj.evaluated_get(probe.depsgraph)
    mesh = ev.to_mesh()
    if mesh is None:
        return None
    try:
        layers = mesh.uv_layers
        if uv_map is None:
            layer = next((u for u in layers if u.active_render), layers.active)
        else:
            layer = layers.get(uv_map)
        if layer is None:
            return None
        nl = len(mesh.loops)
        uv = uv_vectors(layer, nl).astype(np.float64)
        mesh.calc_loop_triangles()
        tri = np.empty(3 * len(mesh.loop_triangles), dtype=np.int32)
        mesh.loop_triangles.foreach_get("loops", tri)
        tri = tri.astype(np.int64)
        co = vertex_positions(mesh).astype(np.float64)
        loop_vert = corner_verts(mesh)
        m = np.array(ev.matrix_world, dtype=np.float64)
        world = co.reshape(-1, 3) @ m[:3, :3].T + m[:3, 3]
        tri = tri.reshape(-1, 3)
        return {"name": layer.name, "uv": uv.reshape(-1, 2), "tri": tri, "co": world[loop_vert[tri]]}
    finally:
        ev.to_mesh_clear()


def _uv_of(probe: Probe, names: list[str], p: dict) -> dict:
    """{object name: _uv_mesh(...)} for the objects named by ``object`` / ``objects``."""
    frame = int(p.get("frame", 1))
    return {o.name: _uv_mesh(probe, o, p.get("uv_map"), frame) for o in probe.objects(names)}


@primitive(group="geometry", required=("object|objects", "uv_map"),
           params={"object": "name", "objects": "names", "uv_map": "name", "render_active": "bool", "active": "bool"})
def uv_map(probe: Probe, p: dict):
    """Each mesh has a UV map named ``uv_map``; with ``render_active: true`` it is also the UV
    map used for rendering (the one an Image Texture without a UV Map node reads), with
    ``active: true`` the active one (the map the UV Editor shows and Texture Paint paints
    through: red team 33, a second map with every face over the whole tile made active).  Read
    from the object's own mesh data.  Scores the share of objects that pass."""
    names, wanted = names_param(p), p["uv_map"]
    measured, bad = {}, []
    for o in probe.objects(names):
        layers = list(o.data.uv_layers) if o.type == "MESH" else []
        render = next((u.name for u in layers if u.active_render), None)
        active = o.data.uv_layers.active.name if o.type == "MESH" and o.data.uv_layers.active is not None else None
        measured[o.name] = {"uv_maps": [u.name for u in layers], "render_active": render, "active": active}
        if wanted not in measured[o.name]["uv_maps"] or (p.get("render_active") and render != wanted) \
                or (p.get("active") and active != wanted):
            bad.append(o.name)
    flags = " and ".join(f for f, on in (("render-active", p.get("render_active")), ("active", p.get("active"))) if on)
    detail = f"every object has UV map {wanted!r}" if not bad else f"without UV map {wanted!r}" + (
        f" ({flags})" if flags else "") + ": " + ", ".join(bad)
    return fraction_outcome(len(names) - len(bad), len(names), measured,
                            {"uv_map": wanted, "render_active": bool(p.get("render_active")), "active": bool(p.get("active"))},
                            detail, {"without": bad})


@primitive(group="geometry", required=("object|objects",),
           params={"object": "name", "objects": "names", "uv_map": "name", "tolerance": "tolerance",
                   "frame": "integer"})
def uv_bounds(probe: Probe, p: dict):
    """Every UV coordinate of the UV map ``uv_map`` (default: the render-active one) of each
    evaluated mesh lies in the 0-1 tile, within ``tolerance`` (default 0.001).  A mesh without
    that UV map fails.  Scores the share of objects that pass."""
    names, tol = names_param(p), float(p.get("tolerance", 0.001))
    measured, bad = {}, []
    for name, uvm in _uv_of(probe, names, p).items():
        if uvm is None or not len(uvm["uv"]):
            measured[name] = None
            bad.append(name)
            continue
        lo, hi = uvm["uv"].min(axis=0), uvm["uv"].max(axis=0)
        outside = int(np.sum(np.any((uvm["uv"] < -tol) | (uvm["uv"] > 1 + tol), axis=1)))
        measured[name] = {"uv_map": uvm["name"], "min": rnd(lo.tolist()), "max": rnd(hi.tolist()),
                          "loops_outside": outside}
        if outside:
            bad.append(name)
    detail = "all UVs inside the 0-1 tile" if not bad else "UVs missing or outside 0-1: " + ", ".join(bad)
    return fraction_outcome(len(names) - len(bad), len(names), measured, {"min": [0, 0], "max": [1, 1]}, detail,
                            {"outside": bad})


def uv_distortion(co: np.ndarray, uv: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per triangle (3D area, anisotropy, linear scale) of the map from UV to 3D: ``co`` (t, 3, 3)
    world corners, ``uv`` (t, 3, 2).  Anisotropy is the ratio of the map's singular values (1 =
    no stretch); scale is the square root of their product (3D length per UV unit, the inverse
    of texel density).  A triangle whose UVs have no area gets infinite anisotropy and scale."""
    e = np.stack([co[:, 1] - co[:, 0], co[:, 2] - co[:, 0]], axis=2)  # (t, 3, 2)
    d = np.stack([uv[:, 1] - uv[:, 0], uv[:, 2] - uv[:, 0]], axis=2)  # (t, 2, 2)
    area = 0.5 * np.linalg.norm(np.cross(e[:, :, 0], e[:, :, 1]), axis=1)
    det = d[:, 0, 0] * d[:, 1, 1] - d[:, 0, 1] * d[:, 1, 0]
    ok = np.abs(det) > 1e-14
    aniso, scale = np.full(len(co), np.inf), np.full(len(co), np.inf)
    if ok.any():
        inv = np.linalg.inv(d[ok])
        jac = e[ok] @ inv  # (k, 3, 2): UV -> 3D
        g = np.swapaxes(jac, 1, 2) @ jac  # first fundamental form, (k, 2, 2)
        tr, dt = g[:, 0, 0] + g[:, 1, 1], g[:, 0, 0] * g[:, 1, 1] - g[:, 0, 1] * g[:, 1, 0]
        disc = np.sqrt(np.maximum(tr * tr / 4 - dt, 0.0))
        s1, s2 = np.sqrt(np.maximum(tr / 2 + disc, 0.0)), np.sqrt(np.maximum(tr / 2 - disc, 0.0))
        aniso[ok] = np.where(s2 > 0, s1 / np.maximum(s2, 1e-300), np.inf)
        scale[ok] = np.sqrt(s1 * s2)
    return area, aniso, scale


def uv_flipped_share(area: np.ndarray, uv: np.ndarray, mirrored: bool) -> float:
    """The share of ``area`` (per triangle, 3D) whose UVs (t, 3, 2, in the triangle's corner
    order) wind clockwise -- mirrored against the face -- or, on a negatively scaled object
    (``mirrored``: its world matrix turns the face over), anticlockwise."""
    d1, d2 = uv[:, 1] - uv[:, 0], uv[:, 2] - uv[:, 0]
    signed = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
    flipped = signed > 0 if mirrored else signed < 0
    total = float(area.sum())
    return float(area[flipped].sum()) / total if total > 0 else 0.0


@primitive(group="geometry", required=("object|objects", "max_anisotropy|max_density_ratio"),
           params={"object": "name", "objects": "names", "uv_map": "name",
                   "max_anisotropy": {"type": "number", "minimum": 1, "description": "number >= 1"},
                   "max_density_ratio": {"type": "number", "minimum": 1, "description": "number >= 1"},
                   "max_flipped": SHARE, "frame": "integer"})
def uv_stretch(probe: Probe, p: dict):
    """The UV map ``uv_map`` (default: the render-active one) of each evaluated mesh has low
    stretch and even texel density, over every triangle with 3D area (slivers under 1e-6 of the
    mesh's area are ignored): ``max_anisotropy`` bounds the worst ratio of the UV-to-3D map's
    singular values (1 = shapes kept; a 0.6 x 0.4 face squeezed into a square is 1.5) and
    ``max_density_ratio`` the ratio of the largest to the smallest texel density (pixels per
    metre, 1 = every face at the same resolution).  A triangle with no UV area fails both.
    ``max_flipped`` bounds the share of the surface (3D area) whose UVs are mirrored: they run
    round a triangle the other way than its corners do (seen from its front), so whatever is
    painted there renders mirrored -- an object scaled negatively mirrors every face (red team 31:
    every island of a crate flipped left to right kept every shape and density).  Scores the
    share of objects that pass."""
    names = names_param(p)
    lim_a, lim_d, lim_f = p.get("max_anisotropy"), p.get("max_density_ratio"), p.get("max_flipped")
    measured, bad = {}, []
    for name, uvm in _uv_of(probe, names, p).items():
        if uvm is None or not len(uvm["tri"]):
            measured[name] = None
            bad.append(name)
            continue
        area, aniso, scale = uv_distortion(uvm["co"], uvm["uv"][uvm["tri"]])
        keep = area > 1e-6 * max(float(area.sum()), 1e-300)
        aniso, scale = aniso[keep], scale[keep]
        worst_a = float(aniso.max()) if len(aniso) else float("inf")
        ratio = float(scale.max() / scale.min()) if len(scale) and np.isfinite(scale).all() else float("inf")
        measured[name] = {"uv_map": uvm["name"], "max_anisotropy": rnd(worst_a) if np.isfinite(worst_a) else None,
                          "density_ratio": rnd(ratio) if np.isfinite(ratio) else None,
                          "zero_area_triangles": int(np.sum(~np.isfinite(aniso)))}
        flipped = 0.0
        if lim_f is not None:
            obj = probe.scene.objects[name]
            mirrored = probe.world(obj, int(p.get("frame", 1))).determinant() < 0
            flipped = uv_flipped_share(area, uvm["uv"][uvm["tri"]], mirrored)
            measured[name]["flipped_share"] = rnd(flipped)
        if (lim_a is not None and not worst_a <= float(lim_a)) or (lim_d is not None and not ratio <= float(lim_d)) \
                or (lim_f is not None and not flipped <= float(lim_f)):
            bad.append(name)
    expected = {k: p[k] for k in ("max_anisotropy", "max_density_ratio", "max_flipped") if k in p}
    detail = "UVs within the stretch limits" if not bad else "stretched or uneven UVs: " + ", ".join(bad)
    return fraction_outcome(len(names) - len(bad), len(names), measured, expected, detail, {"stretched": bad})


@primitive(group="geometry", required=("object|objects",),
           params={"object": "name", "objects": "names", "uv_map": "name",
                   "max_overlap": {"type": "number", "minimum": 0, "maximum": 1, "description": "number 0..1"},
                   "resolution": {"type": "integer", "minimum": 16, "maximum": 2048, "description": "integer 16..2048"},
                   "frame": "integer"})
def uv_overlap(probe: Probe, p: dict):
    """No two faces of the UV map ``uv_map`` (default: the render-active one) of each evaluated
    mesh share texture space, measured exactly on the UV triangles
    (``probes_surface.uv_overlap_area``): the share of the covered UV area covered more than
    once is at most ``max_overlap`` (default 0.005).  ``resolution`` is accepted for older rubrics and not used.  A mesh without that UV
    map or with no UV area fails.  Scores the share of objects that pass."""
    names = names_param(p)
    limit = float(p.get("max_overlap", 0.005))
    measured, bad = {}, []
    for name, uvm in _uv_of(probe, names, p).items():
        if uvm is None or not len(uvm["tri"]):
            measured[name] = None
            bad.append(name)
            continue
        covered, twice = ps.uv_overlap_area(uvm["uv"][uvm["tri"]])
        share = twice / covered if covered > 0 else 1.0
        measured[name] = {"uv_map": uvm["name"], "covered": rnd(covered), "overlap": rnd(share)}
        if share > limit:
            bad.append(name)
    detail = "no overlapping UVs" if not bad else "overlapping or missing UVs: " + ", ".join(bad)
    return fraction_outcome(len(names) - len(bad), len(names), measured, {"max_overlap": limit}, detail,
                            {"overlapping": bad})


def _parts_summary(entry: dict) -> str:
    """What a failing object's parts measured, for the detail line."""
    said = f"{entry['count']} parts"
    if entry.get("max_piece_size_error") is not None:
        said += f", a part's size off by {entry['max_piece_size_error']:.4f}"
    return said


def mesh_islands_of(mesh: dict) -> list[np.ndarray]:
    """The connected parts of a mesh (vertices joined by edges), as arrays of vertex indices."""
    n = len(mesh["co"])
    parent = np.arange(n)

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in mesh["edges"].tolist():
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    roots = np.array([find(i) for i in range(n)], dtype=np.int64)
    return [np.flatnonzero(roots == r) for r in np.unique(roots)]


# ``piece_size``: the size every part must have, {expected: [x, y, z], tolerance}
PIECE_SIZE = {"type": "object", "required": ["expected", "tolerance"],
              "properties": {"expected": POINT3, "tolerance": {"type": "number", "minimum": 0}},
              "additionalProperties": False, "description": "{expected: [x, y, z], tolerance: number >= 0}"}


def _piece_size_error(parts: list[np.ndarray], spec: dict) -> tuple[list, float]:
    """(each part's world AABB size, the largest axis error over all parts against
    ``spec['expected']``; infinite without parts)."""
    expected = np.array([float(v) for v in spec["expected"]])
    sizes = [pts.max(axis=0) - pts.min(axis=0) for pts in parts]
    worst = max((float(np.abs(size - expected).max()) for size in sizes), default=float("inf"))
    return [rnd(size.tolist()) for size in sizes], worst


@primitive(group="geometry", required=("object|objects", "count|pitch"),
           params={"object": "name", "objects": "names", "count": "count_bound",
                   "pitch": {"type": "number", "minimum": 0, "description": "number >= 0"},
                   "axis": {"enum": ["X", "Y", "Z"], "description": "X, Y or Z"}, "tolerance": "tolerance",
                   "piece_size": PIECE_SIZE, "frame": "integer"})
def mesh_islands(probe: Probe, p: dict):
    """The evaluated mesh of each object (modifiers included) falls into ``count`` separate
    parts (an exact number or {min, max}): its visible shells, pieces of faces joined by shared
    vertices (loose vertices and edges are no part; a shell hidden inside another solid does not
    count; see ``probes_solid.visible_shells``); with ``pitch``, the parts' world AABB centres, in
    order along ``axis`` (default X), are ``pitch`` apart (each gap within ``tolerance``,
    default 0.001): an array of repeated parts at a given spacing; with ``piece_size``
    {expected, tolerance}, every part's own world AABB (its faces' vertices) measures
    ``expected`` on each axis within that tolerance -- the size of each piece, which the whole
    row's box cannot tell (two rails 0.42 m tall fit a panel's outline as well as 0.07 m ones).
    Scores the share of objects that pass."""
    names, frame, tol = names_param(p), int(p.get("frame", 1)), float(p.get("tolerance", 0.001))
    axis = AXIS_INDEX[p.get("axis", "X")]
    measured, bad = {}, []
    for o in probe.objects(names):
        parts = [sh.face_co for sh in visible_shells(probe, o, frame)]
        centres = sorted(float((pts[:, axis].min() + pts[:, axis].max()) / 2) for pts in parts)
        gaps = [b - a for a, b in zip(centres, centres[1:])]
        entry = {"count": len(parts), "centres": rnd(centres[:50]), "gaps": rnd(gaps[:50])}
        ok = "count" not in p or _within(len(parts), p["count"])
        if "pitch" in p:
            worst = max((abs(g - float(p["pitch"])) for g in gaps), default=float("inf"))
            entry["max_pitch_error"] = rnd(worst) if np.isfinite(worst) else None
            ok = ok and worst <= tol
        if "piece_size" in p:
            sizes, worst = _piece_size_error(parts, p["piece_size"])
            entry["piece_sizes"] = sizes[:50]
            entry["max_piece_size_error"] = rnd(worst) if np.isfinite(worst) else None
            ok = ok and worst <= float(p["piece_size"]["tolerance"])
        measured[o.name] = entry
        if not ok:
            bad.append(o.name)
    expected = {k: p[k] for k in ("count", "pitch", "axis", "piece_size") if k in p}
    detail = "parts as specified" if not bad else "parts off: " + ", ".join(
        f"{n} ({_parts_summary(measured[n])})" for n in bad)
    return fraction_outcome(len(names) - len(bad), len(names), measured, expected, detail, {"off": bad})


# Shading normals: a custom (split) normal turned away from its face shades the surface as if lit
# from inside (black, or the wrong side's light) while every position is right.
def _corner_face_dots(mesh) -> np.ndarray:
    """Per corner: the cosine between its shading normal (custom split normals, smooth / sharp
    shading, as the render reads them) and its face's geometric normal."""
    n_polys, n_loops = len(mesh.polygons), len(mesh.loops)
    if not n_polys or not n_loops:
        return np.ones(0)
    corner = np.empty(3 * n_loops, dtype=np.float32)
    mesh.corner_normals.foreach_get("vector", corner)
    face = np.empty(3 * n_polys, dtype=np.float32)
    mesh.polygons.foreach_get("normal", face)  # geometric (polygon_normals can read back the custom ones)
    totals = np.empty(n_polys, dtype=np.int64)
    mesh.polygons.foreach_get("loop_total", totals)
    per_corner = face.reshape(-1, 3)[np.repeat(np.arange(n_polys), totals)]
    return np.einsum("ij,ij->i", corner.reshape(-1, 3).astype(np.float64), per_corner.astype(np.float64))


@primitive(group="geometry", required=("object|objects",),
           params={"object": "name", "objects": "names", "max_angle": "tolerance", "max_share": "tolerance",
                   "frame": "integer"})
def normals_follow_faces(probe: Probe, p: dict):
    """Each object's shading normals follow its faces as the render evaluates them: at most
    ``max_share`` (default 0) of its corners have a normal more than ``max_angle`` degrees
    (default 90: turned away from the face) from its face's geometric normal -- custom normals
    turned inward, or bent across, fail --, and at most ``max_share`` of its face area has a
    material whose shading normal is turned so (red team 22: a constant +Y vector into the wood's
    Principled Normal rendered the whole fence black from the front).  The material's normal is
    the Normal (and, where the coat shows, Coat Normal) input linked on each BSDF that reaches the
    output the render uses (both production engines' where they differ), evaluated by
    ``probes_surface``'s graph evaluator at the part's surface samples, in world space against
    the face's world normal (a Normal Map node read as the engines read it, red team 23); a
    zero-length vector counts as turned.  Limit: where the evaluator cannot evaluate that input
    (Unknown: a Bump node, a shader mix whose factor it cannot read) the evidence says so and
    that alone does not fail -- a bump map is a legitimate material.  Scores the share of
    objects met."""
    names, frame = names_param(p), int(p.get("frame", 1))
    limit = math.cos(math.radians(float(p.get("max_angle", 90.0))))
    most = float(p.get("max_share", 0.0))
    probe.at(frame)
    measured, failing = {}, []
    for obj in probe.objects(names):
        ev = obj.evaluated_get(probe.depsgraph)
        mesh = ev.to_mesh() if obj.type in GEOMETRY_TYPES else None
        try:
            dots = _corner_face_dots(mesh) if mesh is not None else np.ones(0)
        finally:
            if mesh is not None:
                ev.to_mesh_clear()
        share = float(np.mean(dots < limit - 1e-6)) if len(dots) else 0.0
        entry = {"corners": int(len(dots)), "turned_share": rnd(share)}
        shading, unknown = _material_normals_turned(probe, obj, frame, limit)
        if shading is not None:
            entry["material_normal_turned_share"] = rnd(shading)
        if unknown:
            entry["material_normal_not_evaluated"] = unknown
        measured[obj.name] = entry
        if share > most or (shading is not None and shading > most):
            failing.append(obj.name)
    detail = ("shading normals follow the faces" if not failing
              else "shading normals turned away from their faces: " + ", ".join(failing))
    return fraction_outcome(len(names) - len(failing), len(names), measured,
                            {"max_angle": math.degrees(math.acos(limit)), "max_share": most}, detail,
                            {"failing": failing})


def _material_normals_turned(probe: Probe, obj, frame: int, limit: float) -> tuple[float | None, dict]:
    """(share of ``obj``'s face area where a material's evaluated shading normal is turned more
    than acos(``limit``) from the face -- the worst production engine's --, or None without
    surface samples; {material: why its normal is not evaluated})."""
    if obj.type not in GEOMETRY_TYPES:
        return None, {}
    chunks = ps.chunks_for(probe, [obj], frame)
    if not chunks:
        return None, {}
    if not any(_normal_linked(mat.node_tree) for mat, _ in chunks if mat is not None):
        return 0.0, {}  # nothing links a shading normal: the graph need not be evaluated
    unknown: dict = {}
    worst = 0.0
    for target in ps.production_targets(probe.scene, ps.slot_materials(probe, [obj])):
        total = turned = 0.0
        for mat, ctx in chunks:
            w = np.asarray(ctx["w"], dtype=np.float64)
            total += float(w.sum())
            if mat is None or mat.node_tree is None:
                continue
            bad = _turned_samples(ps.evaluate_surface(mat, target, ctx)["closures"], ctx, limit,
                                  lambda why, m=mat: unknown.setdefault(m.name, why))
            turned += float(w[bad].sum())
        if total > 0:
            worst = max(worst, turned / total)
    return worst, unknown


def _normal_linked(tree) -> bool:
    """Something in ``tree`` (or a node group it uses) is linked into a Normal or Coat Normal input."""
    return any(link.to_socket.name in ("Normal", "Coat Normal") for inner in node_trees(tree) for link in inner.links)


def _turned_samples(closures: list, ctx: dict, limit: float, note) -> np.ndarray:
    """Per sample: a shading normal linked into a shader that shows there points more than
    acos(``limit``) from the face's world normal (``note(why)`` for one not evaluated)."""
    n = ctx["n"]
    face = np.asarray(ctx["wnormal"], dtype=np.float64)
    bad = np.zeros(n, dtype=bool)
    for c in closures:
        if c.node is None or c.graph is None:
            if c.kind == "UNKNOWN" and isinstance(c.weight, ps.Unknown):
                note(c.weight.reason)
            continue
        on = np.ones(n, dtype=bool) if isinstance(c.weight, ps.Unknown) else \
            (np.abs(np.asarray(c.weight, dtype=np.float64)) > 1e-9) | ~np.isfinite(c.weight)
        for name in ("Normal", "Coat Normal"):
            sock = c.node.inputs.get(name)
            if sock is None or not ps._live_links(sock):
                continue  # unlinked: the mesh's own shading normal (the corners judge it)
            where = on
            if name == "Coat Normal":
                coat = c.graph.value(c.node, "Coat Weight")
                if not isinstance(coat, ps.Unknown):
                    where = on & (np.asarray(coat) > 0)
            if not where.any():
                continue
            vec = c.graph.input(sock, "V")
            if isinstance(vec, ps.Unknown):
                note(f"{c.node.name!r} {name}: {vec.reason}")
                continue
            vec = np.asarray(vec, dtype=np.float64)
            length = np.linalg.norm(vec, axis=1)
            cos = np.einsum("ij,ij->i", vec, face) / np.where(length > 0, length, 1.0)
            bad |= where & ((length <= 1e-12) | (cos < limit - 1e-6))
    return bad
