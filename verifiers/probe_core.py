"""Core of the rule-probe library: the measured scene, outcomes, shared geometry and the registry.

Runs in bpy (stdlib + bpy + numpy only).  A *primitive* is ``fn(probe, params) -> Outcome``
registered under its rubric ``method`` name with the parameters it requires::

    @primitive(group="geometry", required=("object|objects", "expected", "tolerance"),
               params={"object": "name", "objects": "names", "expected": "vec3",
                       "tolerance": "tolerance", "frame": "integer"})
    def dimensions(probe, p): ...

``params`` declares every parameter the primitive reads, by a type name of ``PARAM_TYPES`` or a
JSON-Schema fragment (a dict); a required name left out of it may be of any type, and a param
that is neither declared nor required is refused.  Admission checks rubrics against these
declarations with jsonschema before anything runs (``verifiers/probe_catalogue.py``, which reads
this source with ``ast``: decorator arguments and the types below stay literals); ``validate``
checks the same here, with the small subset of JSON Schema the types use.

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

import hashlib
import importlib.util
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import bpy
import mathutils
import numpy as np  # a dependency of the bpy package, so always present alongside it

if str(Path(__file__).resolve().parent) not in sys.path:  # standalone: siblings only
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import colour_math  # noqa: E402

# Measured numbers are rounded so reports are stable, readable text.
DIGITS = 6
# Object types whose evaluated geometry can be turned into a mesh.
GEOMETRY_TYPES = {"MESH", "CURVE", "SURFACE", "META", "FONT", "CURVES", "POINTCLOUD", "VOLUME"}

# Types whose render flags decide what the picture shows (geometry is drawn, a light lights).
RENDERED_TYPES = GEOMETRY_TYPES | {"LIGHT"}

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


# Measures that are pure functions of world-space shapes, kept for the process by a digest of
# those shapes: a warm probe (calibration; mutation testing, the reference under each operator)
# measures what a delivery or an operator leaves be once. Each memo is emptied when full.
MEMO_KEPT = 100_000


def remember(memo: dict, key: Any, value: Any, kept: int = MEMO_KEPT) -> Any:
    """``memo[key] = value`` (the memo emptied first when it holds ``kept``); the value."""
    if len(memo) >= kept:
        memo.clear()
    memo[key] = value
    return value


# Where surface samples fall in their triangles (red team 24: an alpha image opaque only in the
# texels around the grader's fixed sample points, the pickets a lattice of specks): the pattern is
# shifted by offsets drawn from the measured file's own digest -- the same file is measured alike
# every time, but no solver can know the points before the file is written.  Red team 29 wrote
# the file again and again (a node moved in the editor each time) until its digest put the one
# offset inside a small window, and masked the texture off everywhere but where samples can land
# for that window: each triangle now takes its own offset, mixed from the digest and its index --
# a window small enough to hide most of a surface has to be hit on every triangle at once (one in
# 10^12 for four triangles and a window like theirs), and a window large enough to grind for
# covers the surface.  Within a triangle the samples stay one low-discrepancy sequence.
_SAMPLE_SEED = [0]


def shift_samples(digest: str | None) -> None:
    """Seed the sample pattern's offsets from ``digest`` (a sha256 hex; none: 0)."""
    _SAMPLE_SEED[0] = int(digest[:16], 16) if digest else 0


def sample_seed() -> int:
    """The measured file's seed (64 bits of its digest)."""
    return _SAMPLE_SEED[0]


def sample_shifts(tri: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The offsets (u, v in 0..1) of the triangles ``tri`` (indices): splitmix64 of the seed and
    the index, its two 32-bit halves. Hand-written (not ``np.random``): two numbers per triangle,
    for any index, without drawing every index before it."""
    with np.errstate(over="ignore"):
        z = (np.asarray(tri, dtype=np.uint64) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(sample_seed())
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(32)).astype(np.float64) / 2 ** 32, (z & np.uint64(0xFFFFFFFF)).astype(np.float64) / 2 ** 32


def fraction_outcome(ok: int, total: int, measured: Any, expected: Any, detail: str,
                     evidence: Any = None) -> Outcome:
    return Outcome(ok / total if total else 0.0, total > 0 and ok == total, measured, expected, detail,
                   evidence)


def binary_outcome(passed: bool, measured: Any, expected: Any, detail: str, evidence: Any = None) -> Outcome:
    return Outcome(1.0 if passed else 0.0, passed, measured, expected, detail, evidence)


class HiddenFromRender(MissingObjects):
    """Objects named by the rubric exist but the render would not show them (hidden from render
    or camera rays, or in an excluded / render-disabled collection): they score 0 like missing
    ones, so a criterion can never be met by a part the delivered picture does not contain."""

    def __init__(self, names: list[str]):
        Exception.__init__(self, "object(s) hidden from render: " + ", ".join(names))
        self.names = names


# What the file opens on (red team 22: a window saved on a view layer that hides the legs, 3D
# views that filter meshes out): read by the rule probe from an open that loads the file's own
# UI (``read_opened_view``), before the measuring open; None where the scene was not opened so
# (a mutation changed it in memory).
OPENED_VIEW: dict | None = None
# An object type's filter in a 3D view's Object Types Visibility (show_object_viewport_<name>).
VIEW_FILTERS = {"MESH": "mesh", "CURVE": "curve", "SURFACE": "surf", "META": "meta", "FONT": "font",
                "POINTCLOUD": "pointcloud", "VOLUME": "volume", "GREASEPENCIL": "grease_pencil", "CURVES": "curves",
                "EMPTY": "empty", "LIGHT": "light", "CAMERA": "camera"}


def read_opened_view() -> dict:
    """{layers: [[scene, view layer]] of each window the file opens, filtered: [object types a 3D
    view of a window's screen leaves out], views: [each 3D view's own drawing: the objects its
    local view or local collections leave out, its X-Ray alpha where Solid shading draws
    through, its clip range and view matrix, its colour source]}: the open file's own UI (opened
    with load_ui)."""
    out: dict = {"layers": [], "filtered": [], "views": [], "unselectable": []}
    for wm in bpy.data.window_managers:
        for window in wm.windows:
            out["layers"].append([window.scene.name, window.view_layer.name])
            for area in window.screen.areas if window.screen is not None else ():
                # the area's shown editor only: an area keeps the editors it showed before in its
                # spaces (red team 29: every 3D view turned into a Text Editor still listed one)
                for space in [area.spaces.active] if area.type == "VIEW_3D" else []:
                    if space is not None and space.type == "VIEW_3D":
                        out["filtered"].append(sorted(kind for kind, name in VIEW_FILTERS.items()
                                                      if not getattr(space, f"show_object_viewport_{name}", True)))
                        # red team 27: Selectable off for meshes in every view: nothing can be picked
                        out["unselectable"].append(sorted(kind for kind, name in VIEW_FILTERS.items()
                                                          if not getattr(space, f"show_object_select_{name}", True)))
                        out["views"].append(_view_drawing(space, window))
    return out


def opened_view_select_filtered(obj) -> bool:
    """Whether a 3D view the file opens on leaves ``obj``'s type out of selection (its
    Selectability filter)."""
    return any(obj.type in off for off in (OPENED_VIEW or {}).get("unselectable", []))


def open_delivery(path) -> None:
    """Open the .blend at ``path`` as the probe measures it (its UI not loaded, its scripts not
    run: a delivery must not run its own Python inside the verifier), after an open with its own
    UI that reads what it opens on into ``OPENED_VIEW``.  Raises RuntimeError where Blender
    cannot open it."""
    global OPENED_VIEW
    bpy.ops.wm.open_mainfile(filepath=str(path), load_ui=True, use_scripts=False)
    OPENED_VIEW = read_opened_view()
    bpy.ops.wm.open_mainfile(filepath=str(path), load_ui=False, use_scripts=False)


def _view_drawing(space, window) -> dict:
    """One 3D view's drawing (red team 23: X-Ray at alpha 0, a 1 mm clip end, a local view; red
    team 24: Wireframe shading, Solid coloured by a see-through texture, a local camera clipping
    everything): what ``opened_view_hides`` judges each object against."""
    shading = space.shading
    region = space.region_3d
    solid = shading.type == "SOLID"
    shaded = shading.type in ("MATERIAL", "RENDERED")
    return {
        "left_out": sorted(o.name for o in window.view_layer.objects if not o.visible_in_viewport_get(space)),
        "wire": shading.type == "WIREFRAME",
        "xray_alpha": float(shading.xray_alpha) if solid and shading.show_xray else None,
        "colour_source": shading.color_type if solid else None,
        "render_pass": shading.render_pass if shaded else "COMBINED",
        "compositor": shading.use_compositor if shaded else "DISABLED",
        "clip": _view_clip(space, region, window.scene),
        "flat": _flat_drawing(space, window.scene) if solid else None,
        # red team 27: a clipping region (Alt+B) around an empty corner, fixed in the world
        "clip_planes": [list(map(float, plane)) for plane in region.clip_planes]
        if region is not None and region.use_clip_planes else None,
        # red team 29: around an object saved in Edit Mode the others faded into the background;
        # every prop in Edit Mode drawn as its cage alone (the Retopology overlay)
        "fade_inactive": float(space.overlay.fade_inactive_alpha)
        if space.overlay.show_overlays and space.overlay.show_fade_inactive else None,
        "retopology": bool(space.overlay.show_overlays and space.overlay.show_retopology),
        # red team 33: Material Preview with the scene's lights and world off and the studio
        # light at strength 0 -- every surface black on a black background
        "unlit": _view_unlit(space, window.scene) if shaded else False,
    }


def _view_unlit(space, scene) -> bool:
    """A Material Preview or Rendered view that lights nothing: neither the scene's lights (none
    that shines and shows in the viewport, or their use switched off) nor a world (the scene's,
    where the view uses it, if it shines; else the view's studio light, at its strength)."""
    shading = space.shading
    rendered = shading.type == "RENDERED"
    use_lights = shading.use_scene_lights_render if rendered else shading.use_scene_lights
    use_world = shading.use_scene_world_render if rendered else shading.use_scene_world
    # a light the viewport draws by: shown in it (red team 34: a sun hidden in viewports still
    # rendered), and a world that shines (a black one at strength 0 lights nothing)
    lights = use_lights and any(o.type == "LIGHT" and float(o.data.energy) * max(o.data.color) >= VIEW_LIGHT_MIN
                                and not o.hide_viewport and o.visible_get() for o in scene.objects)
    world = (_world_shines(scene.world) if use_world
             else float(shading.studiolight_intensity) >= STUDIO_LIGHT_MIN)
    return not (lights or world)


# A view lit below these lights nothing to the eye (red team 43: the studio light at 0.001, "more
# than 0", drew every prop black): a light's energy x its colour's largest channel (W; a sun's
# strength), a world's Background strength x colour, and the studio light's strength (default 1).
VIEW_LIGHT_MIN = 0.01
STUDIO_LIGHT_MIN = 0.1


def _world_shines(world) -> bool:
    """Whether a world gives light to see by: a Background node whose strength x colour reaches
    ``VIEW_LIGHT_MIN`` (either linked counts as shining: not evaluated here), or without nodes its
    colour."""
    if world is None:
        return False
    tree = world.node_tree if world.use_nodes else None
    if tree is None:
        return max(world.color[:3]) >= VIEW_LIGHT_MIN
    for node in tree.nodes:
        if node.type != "BACKGROUND" or node.mute:
            continue
        strength, colour = node.inputs["Strength"], node.inputs["Color"]
        if strength.is_linked or colour.is_linked or (
                strength.default_value * max(colour.default_value[:3]) >= VIEW_LIGHT_MIN):
            return True
    return False


def _flat_drawing(space, scene) -> dict | None:
    """What a Solid view lit Flat draws with when nothing else marks an object's edges (no
    outline, wireframe overlay, cavity or shadow): {source: its colour type, single: the single
    colour, background: the view's background colour, linear} -- every object a flat patch of
    one colour, which can be the background's own (red team 25); None where the view shades."""
    shading = space.shading
    overlays = space.overlay.show_overlays
    # lit Studio or MatCap without specular highlights, a surface is its colour or darker (red
    # team 34: a single black colour on a black background, Studio lighting): judged only where
    # colour and background are both black (``_indistinct`` of near-black colours)
    shaded = shading.light != "FLAT"
    if (shaded and (shading.light not in ("STUDIO", "MATCAP") or shading.show_specular_highlight)) \
            or shading.show_cavity or shading.show_shadows or (
            overlays and (shading.show_object_outline or space.overlay.show_wireframes)):
        return None
    kind = shading.background_type
    if kind == "VIEWPORT":
        background = list(shading.background_color)
    elif kind == "WORLD":
        background = list(scene.world.color) if scene.world is not None else None
    else:  # the theme's, sRGB; a gradient is not one colour
        gradients = bpy.context.preferences.themes[0].view_3d.space.gradients
        background = ([colour_math.srgb_to_linear(c) for c in gradients.high_gradient]
                      if gradients.background_type == "SINGLE_COLOR" else None)
    if background is None or (shaded and max(background[:3]) > DARK):
        return None
    return {"source": shading.color_type, "single": list(shading.single_color), "background": background,
            "shaded": shaded}


def _view_clip(space, region, scene) -> dict | None:
    """A 3D view's clip range and view matrix: its own, or, looking through a camera (the
    view's local camera or the scene's), that camera's; None where none can be read (a
    panoramic camera)."""
    if region is None:
        return None
    if region.view_perspective != "CAMERA":
        return {"start": float(space.clip_start), "end": float(space.clip_end),
                "perspective": region.view_perspective == "PERSP",
                "view_matrix": [list(row) for row in region.view_matrix]}
    camera = space.camera if space.use_local_camera and space.camera is not None else scene.camera
    if camera is None or camera.type != "CAMERA" or camera.data.type == "PANO":
        return None
    return {"start": float(camera.data.clip_start), "end": float(camera.data.clip_end),
            "perspective": camera.data.type == "PERSP",
            "view_matrix": [list(row) for row in camera.matrix_world.normalized().inverted()]}


def _views_summary() -> dict:
    """What every 3D view of ``OPENED_VIEW`` together does to the objects, made once per opened
    file (a snapshot asks for each moving object at every frame): the reason the first view that
    hides everything gives, the objects a local view or local collections leave out, the colour
    sources Solid shading draws by that have an alpha of their own, whether a view runs the
    compositor, and every distinct clip range with its view matrix's depth row."""
    if _VIEW_SUMMARY[0] is not OPENED_VIEW or _VIEW_SUMMARY[1] is None:
        views = (OPENED_VIEW or {}).get("views", [])
        clips = {}
        for view in views:
            clip = view["clip"]
            if clip is not None:
                clips[(clip["start"], clip["end"], clip["perspective"], tuple(map(tuple, clip["view_matrix"])))] = clip
        ranges = list(clips.values())
        _VIEW_SUMMARY[:] = [OPENED_VIEW, {
            "whole": next((why for view in views if (why := _hides_everything(view)) is not None), None),
            "left_out": {name for view in views for name in view["left_out"]},
            "sources": sorted({view["colour_source"] for view in views} & {"OBJECT", "TEXTURE", "VERTEX"}),
            "compositor": any(view["compositor"] != "DISABLED" for view in views),
            "flat": [view["flat"] for view in views if view.get("flat") is not None],
            "fade_inactive": max((view["fade_inactive"] for view in views if view.get("fade_inactive") is not None),
                                 default=None),
            "retopology": any(view.get("retopology") for view in views),
            "no_view": OPENED_VIEW is not None and bool(OPENED_VIEW.get("layers")) and not views,
            "clip_planes": [np.array(view["clip_planes"], dtype=np.float64).reshape(-1, 4) for view in views
                            if view.get("clip_planes")],
            "clips": ranges,
            "depth_rows": np.array([clip["view_matrix"][2] for clip in ranges], dtype=np.float64).reshape(-1, 4),
            "start": np.array([clip["start"] for clip in ranges], dtype=np.float64),
            "end": np.array([clip["end"] for clip in ranges], dtype=np.float64),
            "perspective": np.array([clip["perspective"] for clip in ranges], dtype=bool)}]
    return _VIEW_SUMMARY[1]


_VIEW_SUMMARY: list = [None, None]  # [the OPENED_VIEW summarised, its summary]


def _hides_everything(view: dict) -> str | None:
    if view["wire"]:
        return "a 3D view the file opens on draws wireframes, not surfaces"
    if view["xray_alpha"] is not None and view["xray_alpha"] < VIEWPORT_ALPHA_MIN:
        return f"a 3D view the file opens on draws everything see-through (X-Ray alpha {view['xray_alpha']:g})"
    if view.get("unlit"):
        return ("a 3D view the file opens on lights nothing (Material Preview or Rendered without the scene's "
                "lights or world, its studio light at strength 0): every surface drawn black")
    if view["render_pass"] != "COMBINED":
        return f"a 3D view the file opens on shows the {view['render_pass'].lower()} pass, not the picture"
    return None


def _clip_hiding(summary: dict, corners: np.ndarray) -> dict | None:
    """The first clip range of the opened 3D views that leaves all of a box (its world corners)
    out, or None: the box wholly beyond the clip end, or in front of the view and nearer than its
    start (a box behind the view is only out of frame: one turn of the view shows it; an
    orthographic view clips either side), or a clip range ending nearer than the box is across
    (up to 1 m): from nowhere can the view show it whole (red team 24: a camera view from inside
    the table, its clip range 0.1 to 1 mm, showed nothing, the box around the eye)."""
    if not summary["clips"]:
        return None
    rows, start, end = summary["depth_rows"], summary["start"], summary["end"]
    depths = -(corners @ rows[:, :3].T + rows[:, 3])  # (8 corners, views)
    near, far = depths.min(axis=0), depths.max(axis=0)
    across = float(np.linalg.norm(corners.max(axis=0) - corners.min(axis=0)))
    perspective = summary["perspective"]
    hidden = (end < min(1.0, across)) | (near > end) | np.where(
        perspective, (far > 0.0) & (far < start), far < -end)
    first = np.flatnonzero(hidden)
    return summary["clips"][int(first[0])] if len(first) else None


def _solid_colour_alpha(obj, source: str | None) -> float | None:
    """The alpha of the colour Solid shading draws ``obj`` with under ``source`` (its colour
    type), where it is not the material's viewport colour (``Probe.viewport_hides`` reads that):
    the object's colour, the mean alpha of the active image texture of its materials, or of its
    active colour attribute; None where that colour has no alpha to read."""
    if source == "OBJECT":
        return float(obj.color[3])
    alphas = []
    if source == "TEXTURE":
        for slot in getattr(obj, "material_slots", ()):
            tree = slot.material.node_tree if slot.material is not None else None
            node = tree.nodes.active if tree is not None else None
            if node is not None and node.type == "TEX_IMAGE" and node.image is not None:
                alphas.append(_image_mean_alpha(node.image))
    elif source == "VERTEX":
        colours = _attribute_colours(obj)
        if colours is not None:
            alphas.append(float(colours[:, 3].mean()))
    known = [a for a in alphas if a is not None]
    return min(known) if known else None


def _image_mean_alpha(image) -> float | None:
    """Mean alpha of ``image``'s pixels (None where Blender has none to give), once per measurement."""
    key = image.as_pointer()
    if key not in _MEAN_ALPHAS:
        count = len(image.pixels)
        if not count or image.channels != 4:
            _MEAN_ALPHAS[key] = None if not count else 1.0
        else:
            pixels = np.zeros(count, dtype=np.float32)
            image.pixels.foreach_get(pixels)
            _MEAN_ALPHAS[key] = float(pixels[3::4].mean())
    return _MEAN_ALPHAS[key]


# the foreach_get field and values per element of each mesh attribute type
ATTRIBUTE_FIELDS = {"FLOAT": ("value", 1), "INT": ("value", 1), "BOOLEAN": ("value", 1), "INT8": ("value", 1),
                    "FLOAT_VECTOR": ("vector", 3), "FLOAT2": ("vector", 2), "INT32_2D": ("value", 2),
                    "FLOAT_COLOR": ("color", 4), "BYTE_COLOR": ("color", 4), "QUATERNION": ("value", 4),
                    "FLOAT4X4": ("value", 16), "INT16_2D": ("value", 2), "INT8_2D": ("value", 2)}


def attribute_read(kind: str, name: str, depsgraph, ev):
    """What an Attribute node of type View Layer or Object (``kind``) reading ``name`` gets now:
    the first of the view layer, the scene and its world (or the evaluated object ``ev`` and its
    data) holding ``name`` as a custom property or an RNA path, as evaluated; None where none does."""
    owners = [depsgraph.view_layer_eval, depsgraph.scene_eval, depsgraph.scene_eval.world] \
        if kind == "VIEW_LAYER" else [ev, ev.data]
    for owner in owners:
        if owner is None:
            continue
        try:
            return owner[name] if name in owner.keys() else owner.path_resolve(name)
        except (KeyError, ValueError, TypeError, AttributeError):
            continue
    return None


def hidden_while_editing(obj) -> str | None:
    """Why a mesh saved in Edit, Sculpt or a paint mode does not show all of its surface: faces
    hidden there (Hide, H: a face's own flag, or one of its vertices' or edges'), which that mode
    does not draw when the file opens in it; Object Mode draws them (red team 44: the five parts of
    a table saved in Edit Mode with every face hidden, the render whole). None where it shows all."""
    mode = getattr(obj, "mode", "OBJECT")
    if obj.type != "MESH" or mode == "OBJECT" or obj.data is None or not len(obj.data.polygons):
        return None
    mesh = obj.data
    faces = np.zeros(len(mesh.polygons), dtype=bool)
    mesh.polygons.foreach_get("hide", faces)
    verts = np.zeros(len(mesh.vertices), dtype=bool)
    mesh.vertices.foreach_get("hide", verts)
    edges = np.zeros(len(mesh.edges), dtype=bool)
    mesh.edges.foreach_get("hide", edges)
    if verts.any() or edges.any():
        corners_v = np.zeros(len(mesh.loops), dtype=np.int64)
        mesh.loops.foreach_get("vertex_index", corners_v)
        corners_e = np.zeros(len(mesh.loops), dtype=np.int64)
        mesh.loops.foreach_get("edge_index", corners_e)
        starts = np.zeros(len(mesh.polygons), dtype=np.int64)
        mesh.polygons.foreach_get("loop_start", starts)
        touched = np.logical_or.reduceat(verts[corners_v] | edges[corners_e], starts)
        faces |= touched
    if not faces.any():
        return None
    return (f"saved in {mode.replace('_', ' ').title()} Mode with {int(faces.sum())} of {len(faces)} faces hidden "
            "(Hide): the file opens in that mode and does not draw them")


def opened_view_hides(obj, scene) -> str | None:
    """Why the view the file opens on (``OPENED_VIEW``) does not show ``obj``, or None."""
    for scene_name, layer_name in (OPENED_VIEW or {}).get("layers", []):
        opened = scene.view_layers.get(layer_name) if scene_name == scene.name else None
        if opened is not None and not obj.visible_get(view_layer=opened):
            return f"hidden in view layer {layer_name!r}, the one the file opens on"
    if any(obj.type in off for off in (OPENED_VIEW or {}).get("filtered", [])):
        return f"the 3D view the file opens on leaves {obj.type.lower()} objects out (Object Types Visibility)"
    summary = _views_summary()
    if summary["no_view"]:
        return "the file opens on no 3D view: nothing of the scene is shown"
    if obj.name in summary["left_out"]:
        return "a 3D view the file opens on leaves it out (its local view or local collections)"
    if summary["whole"] is not None:
        return summary["whole"]
    if summary["compositor"] and getattr(scene, "compositing_node_group", None) is not None:
        return "a 3D view the file opens on runs the scene's compositor over what it draws"
    for source in summary["sources"]:
        colour_alpha = _solid_colour_alpha(obj, source)
        if colour_alpha is not None and colour_alpha < VIEWPORT_ALPHA_MIN:
            return (f"see-through in a 3D view the file opens on: it colours by {source.lower()} and that colour's "
                    f"alpha is {colour_alpha:g}")
    fade = summary["fade_inactive"]
    if fade is not None and fade >= VIEWPORT_ALPHA_MIN and getattr(obj, "mode", "OBJECT") == "OBJECT":
        editing = sorted(o.name for o in scene.objects if getattr(o, "mode", "OBJECT") != "OBJECT")
        if editing:
            return (f"faded into the background of a 3D view the file opens on (Fade Inactive Geometry "
                    f"{fade:g}) around {editing[0]}, saved in {scene.objects[editing[0]].mode.replace('_', ' ').title()} Mode")
    hidden = hidden_while_editing(obj)
    if hidden is not None:
        return hidden
    if summary["retopology"] and getattr(obj, "mode", "OBJECT") == "EDIT":
        return "saved in Edit Mode under a 3D view's Retopology overlay: the view draws its cage, not its surface"
    for flat in summary["flat"]:
        drawn = _flat_colours(obj, flat)
        if flat.get("shaded"):  # lit: only a black surface stays its colour everywhere
            drawn = drawn if all(max(c[:3]) <= DARK for c in drawn) else []
        if drawn and all(_indistinct(c, flat["background"]) for c in drawn):
            return (f"drawn in a 3D view the file opens on in its background's own colour (Solid, Flat lighting, "
                    f"colour by {flat['source'].lower()}, nothing marking edges)")
    world = np.array(obj.matrix_world, dtype=np.float64)
    corners = np.array([tuple(c) for c in obj.bound_box], dtype=np.float64) @ world[:3, :3].T + world[:3, 3]
    for planes in summary["clip_planes"]:
        # outside one of a clipping region's planes with every corner: no view angle shows it
        if (corners @ planes[:, :3].T + planes[:, 3] < 0).all(axis=0).any():
            return "outside the clipping region (Alt+B) of a 3D view the file opens on"
    clip = _clip_hiding(summary, corners)
    if clip is not None:
        return f"outside the clip range of a 3D view the file opens on ({clip['start']:g} to {clip['end']:g} m)"
    cover = _image_empties_cover(scene, summary, np.vstack([corners, corners.mean(axis=0)]))
    if cover is not None:
        return f"behind image empty {cover!r} in a 3D view the file opens on (an image the viewport draws over it)"
    return None


def opened_view_clips() -> list[dict]:
    """The distinct views (clip range, view matrix, perspective) of the 3D views the file opens on."""
    return list(_views_summary()["clips"])


def _image_quads(scene) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray, dict]]:
    """[(name, corner, edge u, edge v, how it draws)] of the image empties the viewport draws
    opaque: an Empty displaying an image that has pixels, mostly opaque, shown in the viewport;
    its quad Size wide along its X (the image's aspect along Y), placed by its Offset."""
    quads: list[tuple[str, np.ndarray, np.ndarray, np.ndarray, dict]] = []
    if not len(bpy.data.images):  # an image empty needs an image: most files have none (a hot path)
        return quads
    for obj in scene.objects:
        image = obj.data if obj.type == "EMPTY" and obj.empty_display_type == "IMAGE" else None
        if image is None or not obj.visible_get() or obj.show_empty_image_only_axis_aligned:
            continue
        if obj.empty_image_depth == "BACK" or (obj.use_empty_image_alpha and obj.color[3] < VIEWPORT_ALPHA_MIN):
            continue
        alpha = _image_mean_alpha(image)
        width, height = (float(v) for v in image.size)
        if alpha is None or alpha < VIEWPORT_ALPHA_MIN or width <= 0 or height <= 0:
            continue
        size = float(obj.empty_display_size)
        sx, sy = (size, size * height / width) if width >= height else (size * width / height, size)
        world = np.array(obj.matrix_world, dtype=np.float64)
        ox, oy = (float(v) for v in obj.empty_image_offset)
        corner = world[:3, :3] @ np.array([ox * sx, oy * sy, 0.0]) + world[:3, 3]
        quads.append((obj.name, corner, world[:3, 0] * sx, world[:3, 1] * sy,
                      {"front": obj.show_in_front or obj.empty_image_depth == "FRONT", "side": obj.empty_image_side,
                       "persp": obj.show_empty_image_perspective, "ortho": obj.show_empty_image_orthographic}))
    return quads


def _image_empties_cover(scene, summary: dict, points: np.ndarray) -> str | None:
    """The image empty that, in one of the opened 3D views, lies over every one of ``points``
    (a box's corners and centre) as the view sees them -- between the eye and the point, or
    anywhere before the eye where it is drawn in front -- or None (red team 28: an opaque 3 m
    image, In Front, before a fence: the file opened on a green square).  Together several may
    cover the points; the first named."""
    quads = _image_quads(scene) if summary["clips"] else []
    for clip in summary["clips"] if quads else []:
        view = np.array(clip["view_matrix"], dtype=np.float64)
        inverse = np.linalg.inv(view)
        covered, by = np.zeros(len(points), dtype=bool), None
        for name, corner, u, v, how in quads:
            if not (how["persp"] if clip["perspective"] else how["ortho"]):
                continue
            if clip["perspective"]:
                eyes = np.repeat(inverse[None, :3, 3], len(points), axis=0)
            else:  # parallel rays along the view's axis, from far behind it
                eyes = points + inverse[:3, 2] * 1e5
            ways = points - eyes
            normal = np.cross(u, v)
            den = ways @ normal
            with np.errstate(divide="ignore", invalid="ignore"):
                t = ((corner - eyes) @ normal) / den
            hit = eyes + t[:, None] * ways - corner
            gram = np.array([[u @ u, u @ v], [u @ v, v @ v]])
            if abs(np.linalg.det(gram)) < 1e-18:
                continue
            ab = np.linalg.solve(gram, np.stack([hit @ u, hit @ v]))
            inside_quad = (ab >= 0.0).all(axis=0) & (ab <= 1.0).all(axis=0) & np.isfinite(t) & (np.abs(den) > 1e-12)
            ahead = (t > 0.0) & ((t < 1.0 - 1e-9) | how["front"])
            facing = (eyes - corner) @ normal > 0.0  # the viewer on the image's front (+Z) side
            drawn = np.ones(len(points), dtype=bool) if how["side"] == "DOUBLE_SIDED" else (
                facing if how["side"] == "FRONT" else ~facing)
            over = inside_quad & ahead & drawn
            if over.any() and by is None:
                by = name
            covered |= over
        if covered.all():
            return by
    return None


VIEWPORT_ALPHA_MIN = 0.5  # a material's viewport alpha below this draws its faces more see-through than not
# Two flat fills closer than this (CIEDE2000), nothing marking the edge between them, read as one
# on a screen (3 before red team 43: a grey fill 3.16 from its grey background hid every prop).
FLAT_DISTINCT_DE = 10.0


def _flat_colours(obj, flat: dict) -> list:
    """The linear colours a Flat-lit Solid view fills ``obj`` with: the single colour, the
    object's colour, or each of its materials' viewport colours; [] where the colour source
    draws more than that (a texture, a random colour per object); colour attributes as their
    distinct colours (the first 256)."""
    source = flat["source"]
    if source == "SINGLE":
        return [flat["single"]]
    if source == "OBJECT":
        return [list(obj.color)[:3]]
    if source == "MATERIAL":
        mats = [s.material for s in getattr(obj, "material_slots", ()) if s.material is not None]
        return [list(m.diffuse_color)[:3] for m in mats] or [[0.8, 0.8, 0.8]]  # Blender's default grey
    if source == "VERTEX":  # red team 27: a colour attribute of the background's colour
        colours = _attribute_colours(obj)
        return [] if colours is None else np.unique(np.round(colours[:, :3], 4), axis=0)[:256].tolist()
    return []


def _attribute_colours(obj) -> np.ndarray | None:
    """(n, 4) the RGBA of ``obj``'s active colour attribute, as Solid shading by attribute draws
    it; None without one."""
    attribute = getattr(getattr(getattr(obj, "data", None), "color_attributes", None), "active_color", None)
    if attribute is None or not len(attribute.data):
        return None
    colours = np.zeros(len(attribute.data) * 4, dtype=np.float32)
    attribute.data.foreach_get("color", colours)
    return colours.reshape(-1, 4)


DARK = 0.005  # linear: a colour this dark draws black however a Studio or MatCap light falls on it


def _indistinct(colour, background) -> bool:
    return colour_math.delta_e_linear(colour[:3], background[:3]) < FLAT_DISTINCT_DE


def axes_skew(m3) -> float:
    """How far (degrees) the most skewed pair of a 3x3 matrix's axes is from square: 0 for any
    rotation and scale, > 0 for a shear (a parent's non-uniform scale under a turned child)."""
    cols = [m3.col[i] for i in range(3)]
    worst = 0.0
    for i, j in ((0, 1), (0, 2), (1, 2)):
        lengths = cols[i].length * cols[j].length
        if lengths > 1e-12:
            worst = max(worst, abs(cols[i].dot(cols[j])) / lengths)
    return 90.0 - math.degrees(math.acos(min(1.0, worst)))


def area_light_sides(light, m3) -> tuple[float, float]:
    """(narrower, longer) side (m) of an area light's emitter under the world 3x3 ``m3``: Size
    (Size Y for a rectangle or ellipse) along the local X / Y axes -- the parallelogram they span,
    its narrower side its area over its longer side (red team 22: a key sheared until its X and Y
    axes stood 3 degrees apart drew a strip, every axis still 1 long)."""
    height = float(light.size_y) if light.shape in ("RECTANGLE", "ELLIPSE") else float(light.size)
    u, v = m3.col[0] * float(light.size), m3.col[1] * height
    longer = max(u.length, v.length)
    return (u.cross(v).length / longer if longer > 1e-12 else 0.0), longer


def render_view_layer(scene: bpy.types.Scene):
    """The view layer a render of ``scene`` puts in its picture: the first one enabled for
    rendering (None when every view layer is disabled: the render shows nothing)."""
    return next((vl for vl in scene.view_layers if vl.use), None)


def render_material_override(scene: bpy.types.Scene):
    """The material a render draws every surface with instead of its own (the render view
    layer's Material Override), or None."""
    view_layer = render_view_layer(scene)
    return getattr(view_layer, "material_override", None) if view_layer is not None else None


def render_world(scene: bpy.types.Scene):
    """The world a render uses: the render view layer's World Override, else the scene's."""
    view_layer = render_view_layer(scene)
    override = getattr(view_layer, "world_override", None) if view_layer is not None else None
    return override if override is not None else scene.world


# Which of the view layer's filters (Properties > View Layer > Filter) draws an object type:
# with Surfaces off a render draws no mesh, curve or text at all (red team 4 hid a whole fence so).
_TYPE_FILTER = {"CURVES": "use_strand", "VOLUME": "use_volumes"}


def _filtered_out(view_layer, obj_type: str) -> bool:
    return obj_type in GEOMETRY_TYPES and not getattr(view_layer, _TYPE_FILTER.get(obj_type, "use_solid"), True)


def render_visible_names(scene: bpy.types.Scene, depsgraph=None) -> set[str]:
    """Names of the objects a render of ``scene`` shows in its picture: in a collection of the
    render's view layer that is neither excluded, render-disabled, holdout nor indirect-only
    (a light: holdout or indirect-only too -- it lights the render all the same)
    (walked from the scene collection, so a disabled parent hides its children), not
    ``hide_render``, and -- for objects with geometry -- drawn by the view layer's filters
    (Surfaces, Curves, Volumes), visible to camera rays, neither a holdout nor a shadow catcher,
    and in no holdout or indirect-only collection at all (Blender combines those over every
    collection holding the object).  With a render-mode ``depsgraph``, only objects that depsgraph
    evaluates as visible themselves (an instancer's children, an instancer not shown in render,
    are not)."""
    view_layer = render_view_layer(scene)
    if view_layer is None:
        return set()
    out = {obj.name for obj in _render_collection_objects(view_layer, masked_too=False)
           if not (obj.type in GEOMETRY_TYPES and (not obj.visible_camera or obj.is_holdout
                                                   or obj.is_shadow_catcher or _filtered_out(view_layer, obj.type)))}
    # Blender ORs holdout and indirect-only over every collection that holds the object: shown
    # through one collection, a holdout through another is a hole in the picture (red team 12)
    out -= {name for name in out if _masked_in_layer(scene.objects[name], view_layer)}
    # Holdout and indirect-only cut surfaces out of the picture; a light so flagged, or in such a
    # collection, lights the render as before (red team 38: a 2 kW point light and a sun ticked
    # Holdout went unmeasured by every check of extra lights)
    out |= {obj.name for obj in _render_collection_objects(view_layer, masked_too=True) if obj.type == "LIGHT"}
    # a child whose parent is hidden from render is still rendered in Blender: no parent rule
    if depsgraph is not None:
        out &= {o.name for o in depsgraph.objects}
    # an emitter of particles that does not show itself: its own mesh is not drawn, though the
    # depsgraph lists it (red team 20: an empty particle system hid the pickets)
    out -= {name for name in out if not shows_itself(scene.objects[name], "render")}
    return out


def _render_collection_objects(view_layer, masked_too: bool):
    """The objects not hidden from render in the collections of ``view_layer`` that render:
    walked from the scene collection, so an excluded or render-disabled parent hides its
    children -- and a holdout or indirect-only one too unless ``masked_too``."""
    def walk(layer_coll, hidden: bool):
        coll = layer_coll.collection
        hidden = hidden or layer_coll.exclude or coll.hide_render or (
            not masked_too and (layer_coll.holdout or layer_coll.indirect_only))
        if not hidden:
            yield from (obj for obj in coll.objects if not obj.hide_render)
        for child in layer_coll.children:
            yield from walk(child, hidden)

    return walk(view_layer.layer_collection, False)


def render_lighting_names(scene: bpy.types.Scene, depsgraph=None) -> set[str]:
    """Names of the objects whose light a render of ``scene`` evaluates, seen or not: what
    ``render_visible_names`` keeps, and also what the camera does not see but the render still
    lights with -- camera rays off, holdouts, shadow catchers, holdout and indirect-only
    collections (red team 26: glowing panels hidden from the camera, a sun in an indirect-only
    collection, blew table-model's parts white).  An object with geometry is left out only when
    no diffuse, glossy, transmission or volume ray meets it either."""
    view_layer = render_view_layer(scene)
    if view_layer is None:
        return set()
    out = {obj.name for obj in _render_collection_objects(view_layer, masked_too=True)
           if not (obj.type in GEOMETRY_TYPES and (_filtered_out(view_layer, obj.type) or not any(
               getattr(obj, f"visible_{ray}", True) for ray in ("diffuse", "glossy", "transmission", "volume_scatter"))))}
    if depsgraph is not None:
        out &= {o.name for o in depsgraph.objects}
    return {name for name in out if shows_itself(scene.objects[name], "render")}


def shows_itself(obj, mode: str) -> bool:
    """Whether ``obj``'s own geometry is drawn in ``mode`` (render / viewport): an object that
    emits particles or instances others draws itself only with its Show Instancer switch on."""
    instancer = bool(len(getattr(obj, "particle_systems", ()))) or draws_instances(obj)
    return not instancer or bool(getattr(obj, f"show_instancer_for_{mode}", True))


def _masked_in_layer(obj, view_layer) -> bool:
    """The view layer renders ``obj`` as a holdout or indirect only: Blender's own combination of
    the flags of every collection holding it (``holdout_get`` / ``indirect_only_get``), else the
    same read by hand from each non-excluded layer collection and its parents."""
    try:
        return bool(obj.holdout_get(view_layer=view_layer) or obj.indirect_only_get(view_layer=view_layer))
    except (AttributeError, RuntimeError, TypeError):
        pass

    def masked(layer_coll, flagged: bool) -> bool:
        if layer_coll.exclude:
            return False
        flagged = flagged or layer_coll.holdout or layer_coll.indirect_only
        if flagged and obj.name in layer_coll.collection.objects:
            return True
        return any(masked(child, flagged) for child in layer_coll.children)

    return masked(view_layer.layer_collection, False)


def _animated_ids() -> list:
    """Data-blocks whose values time can change besides objects' transforms and geometry (those
    the state digest reads from the evaluated objects): animated or driven materials (or their
    node trees), node groups, lights, cameras and worlds."""
    out = []
    for coll in (bpy.data.materials, bpy.data.node_groups, bpy.data.lights, bpy.data.cameras, bpy.data.worlds):
        for ident in coll:
            tree = getattr(ident, "node_tree", None)
            if ident.animation_data is not None or (tree is not None and tree.animation_data is not None):
                out.append(ident)
    return out


# Modifiers whose result depends on the frame by themselves (no F-curve needed).
TIME_MODIFIERS = {"BUILD", "WAVE", "OCEAN", "EXPLODE", "PARTICLE_SYSTEM", "PARTICLE_INSTANCE", "CLOTH",
                  "SOFT_BODY", "DYNAMIC_PAINT", "FLUID", "MESH_CACHE", "MESH_SEQUENCE_CACHE", "COLLISION",
                  "SURFACE", "SURFACE_DEFORM", "SCREW"}
# Geometry nodes that read the time or keep state between frames.
TIME_NODES = {"GeometryNodeInputSceneTime", "GeometryNodeSimulationInput", "GeometryNodeSimulationOutput",
              "GeometryNodeBake", "GeometryNodeImportOBJ", "GeometryNodeImportPLY", "GeometryNodeImportSTL"}
_ANIMATABLE = ("objects", "meshes", "curves", "metaballs", "lattices", "shape_keys", "materials", "node_groups",
               "lights", "cameras", "worlds", "scenes", "textures", "armatures", "grease_pencils", "particles",
               "volumes", "pointclouds", "hair_curves", "images", "linestyles", "cache_files", "movieclips",
               "speakers", "lightprobes")


def node_trees(tree, seen: set | None = None):
    """``tree`` and every node group it uses, at any depth, each tree once."""
    seen = set() if seen is None else seen
    if tree is None or tree.as_pointer() in seen:
        return
    seen.add(tree.as_pointer())
    yield tree
    for node in tree.nodes:
        yield from node_trees(getattr(node, "node_tree", None), seen)


def tree_idnames(tree) -> set[str]:
    """The node types (``bl_idname``) of ``tree`` and of the node groups it uses."""
    return {node.bl_idname for inner in node_trees(tree) for node in inner.nodes}


# Constraints that read a movie clip's tracking or a cache at the scene's frame (red team 26: a
# Follow Track constraint held the pickets in place at frame 1 and off the panel from frame 2,
# and the scene was measured as static).
TIME_CONSTRAINTS = {"FOLLOW_TRACK", "CAMERA_SOLVER", "OBJECT_SOLVER", "TRANSFORM_CACHE"}


def time_dependent(scene: bpy.types.Scene) -> str | None:
    """Why what the render shows may change from frame to frame, or None when nothing can:
    no data-block animated or driven (F-curves, drivers, NLA), no modifier, node or physics
    that follows the clock, no movie or image sequence.  Conservative: anything that might
    move says so, and then every graded frame is measured."""
    for attr in _ANIMATABLE:
        for ident in getattr(bpy.data, attr, ()):
            ad = getattr(ident, "animation_data", None)
            tree = getattr(ident, "node_tree", None) if attr != "node_groups" else None
            for data in (ad, getattr(tree, "animation_data", None)):
                if data is not None and (data.action is not None or len(data.drivers) or len(data.nla_tracks)):
                    return f"{attr} {ident.name!r} is animated or driven"
    if scene.rigidbody_world is not None:
        return "the scene has a rigid body world"
    for obj in scene.objects:
        for mod in obj.modifiers:
            if mod.type in TIME_MODIFIERS:
                return f"{obj.name}: a {mod.type} modifier follows the clock"
            if mod.type == "NODES" and tree_idnames(getattr(mod, "node_group", None)) & TIME_NODES:
                return f"{obj.name}: geometry nodes read the time"
        if getattr(obj, "rigid_body", None) is not None or len(getattr(obj, "particle_systems", ())):
            return f"{obj.name} is simulated"
        pose = getattr(obj, "pose", None)
        for con in [*obj.constraints, *(c for bone in (pose.bones if pose is not None else ()) for c in bone.constraints)]:
            if con.type in TIME_CONSTRAINTS:
                return f"{obj.name}: a {con.type} constraint follows the clock"
    for img in bpy.data.images:
        if img.source in {"MOVIE", "SEQUENCE"}:
            return f"image {img.name!r} is a {img.source.lower()}"
    return None


# Parent types that only place the child; Armature (also a lattice's or a curve's deform parent)
# deforms it through a virtual modifier that obj.modifiers does not list.
PLACING_PARENTS = {"OBJECT", "BONE", "VERTEX", "VERTEX_3"}


def fixed_shape(obj) -> bool:
    """The object's evaluated shape in its own space cannot change from frame to frame: a mesh
    with no modifier, no shape keys, no animation on its data and no deforming parent (only its
    transform may move)."""
    data = obj.data
    return (obj.type == "MESH" and not len(obj.modifiers) and data is not None
            and getattr(data, "shape_keys", None) is None and data.animation_data is None
            and (obj.parent is None or obj.parent_type in PLACING_PARENTS))


# --- reading meshes ----------------------------------------------------------------------------
# Blender keeps a mesh's positions and topology as attributes: read through the attribute API
# they are one copy, while the legacy per-element properties (MeshLoop.vertex_index,
# MeshEdge.vertices, MeshVertex.co into float64, MeshLoopTriangle.vertices) are converted one
# element at a time, up to 100x slower on a subdivided part. The values are the same; the
# legacy path stays for a mesh without the attribute.


def _attribute(mesh, name: str, domain: str, data_type: str, count: int, width: int, dtype, prop: str):
    attr = mesh.attributes.get(name)
    if attr is None or attr.domain != domain or attr.data_type != data_type or len(attr.data) != count:
        return None
    out = np.empty(width * count, dtype=dtype)
    attr.data.foreach_get(prop, out)
    return out


def vertex_positions(mesh) -> np.ndarray:
    """The vertices' local coordinates, flat float32 (x0, y0, z0, x1, ...)."""
    n = len(mesh.vertices)
    co = _attribute(mesh, "position", "POINT", "FLOAT_VECTOR", n, 3, np.float32, "vector")
    if co is None:
        co = np.empty(3 * n, dtype=np.float32)
        mesh.vertices.foreach_get("co", co)
    return co


def _indices(mesh, name: str, domain: str, data_type: str, legacy, prop: str, width: int = 1) -> np.ndarray:
    """An int attribute as int64, read through ``legacy.foreach_get(prop)`` where it is missing."""
    n = len(legacy)
    idx = _attribute(mesh, name, domain, data_type, n, width, np.int32, "value")
    if idx is None:
        idx = np.empty(width * n, dtype=np.int32)
        legacy.foreach_get(prop, idx)
    return idx.astype(np.int64)


# What foreach_get reads of each attribute type, and how many numbers per element.
ATTRIBUTE_READS = {"FLOAT": ("value", 1), "INT": ("value", 1), "BOOLEAN": ("value", 1), "INT8": ("value", 1),
                   "FLOAT_VECTOR": ("vector", 3), "FLOAT2": ("vector", 2), "INT32_2D": ("value", 2),
                   "FLOAT_COLOR": ("color", 4), "BYTE_COLOR": ("color", 4), "QUATERNION": ("value", 4),
                   "FLOAT4X4": ("value", 16)}


def drawn_digest(h, mesh) -> None:
    """Feed ``h`` what a render draws of an evaluated mesh: its vertex positions, its faces (each
    corner's vertex, face by face), its material list and every attribute's values -- each face's
    material index, its UVs, whatever a shader reads.  Red team 18: a clock-driven Geometry Nodes
    tree that set the pickets' material to a Transparent one, or deleted their faces and kept
    their vertices, after frame 1 moved no vertex: a digest of the positions alone called every
    frame the same."""
    h.update(vertex_positions(mesh).tobytes())
    h.update(corner_verts(mesh).tobytes())
    h.update("|".join(m.name if m is not None else "" for m in mesh.materials).encode())
    for attr in sorted(mesh.attributes, key=lambda a: (a.domain, a.name)):
        read = ATTRIBUTE_READS.get(attr.data_type)
        if attr.name.startswith("."):  # positions, corners (read above), selection and edges: nothing a render shows
            continue
        h.update(f"{attr.name}:{attr.domain}:{attr.data_type}:{len(attr.data)}".encode())
        if read is None or attr.name == "position":
            continue
        prop, width = read
        values = np.empty(len(attr.data) * width, dtype=np.float64 if prop != "value" or attr.data_type
                          in ("FLOAT", "QUATERNION", "FLOAT4X4") else np.int64)
        try:
            attr.data.foreach_get(prop, values)
        except (RuntimeError, TypeError):  # a type foreach_get will not read this way: its size alone
            continue
        h.update(values.tobytes())


def picture_coords(probe: "Probe", cam_ev, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(normalised picture coordinates (n, 2), -1..1 inside the frame, and the clip w (n,), > 0 in
    front) of world ``points`` through the evaluated camera ``cam_ev``: its lens, sensor and
    shift, the render's aspect and pixel shape (``world_to_camera_view``'s projection, for all
    points at once)."""
    r = probe.scene.render
    proj = np.array(cam_ev.calc_matrix_camera(probe.depsgraph, x=r.resolution_x, y=r.resolution_y,
                                              scale_x=r.pixel_aspect_x, scale_y=r.pixel_aspect_y), dtype=np.float64)
    # the engines drop the camera object's scale, keeping each axis' sign (``_camera_rays``)
    view = np.linalg.inv(np.array(cam_ev.matrix_world.normalized()))
    clip = np.hstack([points, np.ones((len(points), 1))]) @ (proj @ view).T
    w = clip[:, 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        ndc = clip[:, :2] / np.where(np.abs(w) > 1e-12, w, 1e-12)[:, None]
    return ndc, w


def corner_verts(mesh) -> np.ndarray:
    """Each face corner's (loop's) vertex index, int64, face after face."""
    return _indices(mesh, ".corner_vert", "CORNER", "INT", mesh.loops, "vertex_index")


def edge_verts(mesh) -> np.ndarray:
    """Each edge's two vertex indices, flat int64."""
    return _indices(mesh, ".edge_verts", "EDGE", "INT32_2D", mesh.edges, "vertices", width=2)


def face_material_indices(mesh) -> np.ndarray:
    """Each face's material index, int64 (a mesh without the attribute has 0 everywhere)."""
    if mesh.attributes.get("material_index") is None:
        return np.zeros(len(mesh.polygons), dtype=np.int64)
    return _indices(mesh, "material_index", "FACE", "INT", mesh.polygons, "material_index")


def uv_vectors(layer, count: int) -> np.ndarray:
    """A UV map's coordinates per face corner, flat float32 (u0, v0, u1, ...)."""
    uv = np.empty(2 * count, dtype=np.float32)
    layer.uv.foreach_get("vector", uv) if hasattr(layer, "uv") else layer.data.foreach_get("uv", uv)
    return uv


def loop_triangles(mesh) -> dict[str, np.ndarray]:
    """The mesh's triangulation (``calc_loop_triangles`` first): ``loops`` and ``vertices``
    (n, 3), ``polygon`` and ``material_index`` (n,), int64; ``normal`` (n, 3) float64."""
    tris = mesh.loop_triangles
    n = len(tris)
    loops = np.empty(3 * n, dtype=np.int32)
    tris.foreach_get("loops", loops)
    loops = loops.astype(np.int64).reshape(-1, 3)
    poly = np.empty(n, dtype=np.int32)
    mesh.loop_triangle_polygons.foreach_get("value", poly)
    poly = poly.astype(np.int64)
    normal = np.empty(3 * n, dtype=np.float32)
    tris.foreach_get("normal", normal)
    return {"loops": loops, "vertices": corner_verts(mesh)[loops], "polygon": poly,
            "material_index": face_material_indices(mesh)[poly],
            "normal": normal.astype(np.float64).reshape(-1, 3)}


# Shader nodes whose output depends on where the surface is in the world or how it is seen:
# a material using one is judged again wherever its object moves.
PLACED_NODES = {"NEW_GEOMETRY", "TEX_COORD", "VECT_TRANSFORM", "CAMERA", "LIGHT_PATH", "FRESNEL", "LAYER_WEIGHT",
                "TANGENT", "WIREFRAME", "BEVEL", "AMBIENT_OCCLUSION", "OBJECT_INFO", "PARTICLE_INFO", "ATTRIBUTE",
                "TEX_SKY", "POINT_INFO", "HAIR_INFO", "TEX_POINTDENSITY", "UVALONGSTROKE", "TEX_ENVIRONMENT"}


def _tree_placed(tree, seen: set) -> bool:
    if tree is None or tree.name in seen:
        return False
    seen.add(tree.name)
    return any(n.type in PLACED_NODES or (n.type == "GROUP" and _tree_placed(n.node_tree, seen))
               for n in tree.nodes)


def materials_placed(objs) -> bool:
    """Some material on ``objs`` reads the world position, view or scene (``PLACED_NODES``)."""
    seen: set = set()
    return any(slot.material is not None and slot.material.node_tree is not None
               and _tree_placed(slot.material.node_tree, seen) for o in objs for slot in o.material_slots)


_PLAIN_PROPS: dict[str, tuple[str, ...]] = {}  # RNA type -> its plain properties' identifiers


def _plain_props(struct) -> tuple[str, ...]:
    """The identifiers of an RNA type's numbers, flags, enums and strings, listed once per type
    (walking ``bl_rna.properties`` for every struct at every frame was most of a state's cost)."""
    rna = struct.bl_rna
    key = rna.identifier
    if key not in _PLAIN_PROPS:
        _PLAIN_PROPS[key] = tuple(p.identifier for p in rna.properties
                                  if p.type in {"BOOLEAN", "INT", "FLOAT", "ENUM", "STRING"}
                                  and p.identifier != "rna_type")
    return _PLAIN_PROPS[key]


def _plain_values(struct) -> list:
    """The struct's own numbers, flags and enums (no pointers), as text for a digest."""
    out = []
    for ident in _plain_props(struct):
        value = getattr(struct, ident, None)
        out.append((ident, list(value) if hasattr(value, "__len__") and not isinstance(value, str) else value))
    return out


def _id_values(ident) -> str:
    """The evaluated values of one data-block (and its node tree's node inputs) as text."""
    values: list = [ident.name, _plain_values(ident)]
    tree = ident if isinstance(ident, bpy.types.NodeTree) else getattr(ident, "node_tree", None)
    if tree is not None:
        for node in tree.nodes:
            values.append((node.name, _plain_values(node),
                           [(i.identifier, _plain_values(i)) for i in node.inputs if hasattr(i, "default_value")]))
    return json.dumps(values, default=str)


def plain_json(value, places: int = 5):
    """An RNA value as JSON: numbers (floats rounded to ``places``, -0.0 as 0.0), flags, strings;
    vectors, colours and matrices as lists, enum sets sorted, data-blocks by name (never an
    address), ID properties as they are."""
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, float):
        return round(value, places) + 0.0
    if isinstance(value, bpy.types.ID):
        return value.name
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, mathutils.Matrix):
        return [round(float(v), places) + 0.0 for row in value for v in row]
    if hasattr(value, "to_dict"):  # an ID property group
        return {k: plain_json(v, places) for k, v in sorted(value.to_dict().items())}
    if hasattr(value, "to_list"):  # an ID property array
        return plain_json(value.to_list(), places)
    if isinstance(value, dict):
        return {str(k): plain_json(v, places) for k, v in sorted(value.items())}
    if hasattr(value, "__len__") and not isinstance(value, bpy.types.bpy_struct):
        return [plain_json(v, places) for v in value]
    return str(value)


class DisplacedInRender(MissingObjects):
    """Objects named by the rubric whose material displaces their surface in the render (more
    than ``probes_surface.DISPLACED_AT``): the render shows a shape their mesh does not have, so
    no measurement of the mesh stands for it -- they score 0 like missing ones."""

    def __init__(self, names: list[str], detail: str):
        Exception.__init__(self, "object(s) displaced in render by their material: " + detail)
        self.names = names


class Probe:
    """The opened scene plus a per-(frame, object) cache of world-space measurements.

    ``baseline`` is the start scene's snapshot (``start_scene.json`` beside the rubric, written
    by ``scene_snapshot.py`` from the task's ``inputs/start.blend``; None when the task has
    none): what the scene-diff criteria compare the delivery against."""

    def __init__(self, scene: bpy.types.Scene, baseline: dict | None = None, *, depsgraph=None,
                 engine=None, graded_frames: list[int] | None = None, saved_subframe: float = 0.0):
        self.scene = scene
        self.baseline = baseline
        # the subframe the file was saved at: a still render shows frame_current + it
        self.saved_subframe = float(saved_subframe)
        # render_probe passes the render-mode depsgraph and the engine that steps its frames; a
        # bare Probe (tools, tests) measures the viewport's
        self.depsgraph = depsgraph if depsgraph is not None else bpy.context.evaluated_depsgraph_get()
        self.engine = engine
        # every frame the task grades (static criteria hold at each; see measure)
        self.graded_frames = list(graded_frames or [])
        self._looks: dict[tuple[int, str], str] = {}  # (frame, data-block) -> its values (look)
        self._animated: set[str] | None = None
        self._aabbs: dict[tuple[int, str], AABB] = {}
        self._worlds: dict[int, dict[str, Any]] = {}
        self._frame: int | None = None
        self._between: dict[str, list[dict]] = {}  # the instances drawn where mesh_arrays_between stands
        self._rendered: set[str] | None = None
        self._lighting: set[str] | None = None
        self._states: dict[tuple, str] = {}
        self._id_states: dict[int, str] = {}  # frame -> the animated data-blocks' values
        self._displaced: dict[str, str | None] = {}
        self._time: str | None | bool = False  # False: not asked yet (time_dependent)
        self._instances: dict[int, dict[str, list[dict]]] = {}  # frame -> drawn_instances
        self._viewport: dict[tuple, AABB | None] = {}  # (frame, name, faces_only) -> viewport_aabb
        self._viewport_seen: dict[int, tuple[set[str], dict | None]] = {}  # frame -> names, instances
        # whole-scene readings two criteria may both ask for (probes_scene.snapshot: a rubric's
        # scene_unchanged on the objects and another on the render, over the same frames)
        self.readings: dict[tuple, Any] = {}

    @property
    def current_frame(self) -> int | None:
        """The frame the probe's depsgraph was last stepped to by ``at`` (None: not yet)."""
        return self._frame if isinstance(self._frame, int) else None

    @property
    def render_mode(self) -> bool:
        return self.engine is not None

    def rendered(self) -> set[str]:
        """Names of the objects the render includes (``render_visible_names``, cached)."""
        if self._rendered is None:
            self._rendered = render_visible_names(self.scene, self.depsgraph if self.render_mode else None)
        return self._rendered

    def lighting(self) -> set[str]:
        """Names of the objects whose light the render evaluates (``render_lighting_names``,
        cached as ``rendered`` is)."""
        if self._lighting is None:
            self._lighting = render_lighting_names(self.scene, self.depsgraph if self.render_mode else None)
        return self._lighting

    def at(self, frame: int) -> None:
        if frame != self._frame:
            if self.engine is not None:
                self.engine.frame_set(int(frame), 0.0)
            else:
                self.scene.frame_set(int(frame))
            self._frame = int(frame)

    def update(self) -> None:
        """Re-evaluate after the probe itself changed original data (``modifier_effect``
        toggles a modifier): the evaluated frame stays, every cache goes."""
        self.depsgraph.update()
        self._aabbs.clear()
        self._worlds.clear()
        self._states.clear()
        self._id_states.clear()
        self._instances.clear()
        self._viewport.clear()
        self._viewport_seen.clear()
        self.readings.clear()

    def time_dependent(self) -> str | None:
        """Why the render may differ between frames (``time_dependent``), cached; None: every
        frame shows what the first does, so one frame stands for all."""
        if self._time is False:
            self._time = time_dependent(self.scene)
        return self._time

    def state(self, frame: int, names: list[str] | None = None, matrices: bool = True) -> str:
        """A digest of everything time can change in what the render shows at ``frame``: each
        rendered object's evaluated world matrix and evaluated vertex positions (``names``: only
        those objects; ``matrices`` False: their shape in their own space, for a criterion the
        world placement does not change), and the evaluated values of animated materials, node
        groups, lights, cameras and the world.  Two frames with one state give a static
        criterion one verdict."""
        frame = int(frame)
        if self.time_dependent() is None:
            return "static"
        key = (frame, tuple(names) if names is not None else None, matrices)
        if key not in self._states:
            self.at(frame)
            h = hashlib.sha256()
            chosen = (names if names is not None else
                      self.rendered() | {o.name for o in self.scene.objects if o.type not in RENDERED_TYPES})
            for name in sorted(chosen):
                obj = self.scene.objects.get(name)
                if obj is None:
                    continue
                ev = obj.evaluated_get(self.depsgraph)
                h.update(name.encode())
                if matrices:
                    h.update(np.array(ev.matrix_world, dtype=np.float64).tobytes())
                if obj.type in GEOMETRY_TYPES and not fixed_shape(obj):  # a fixed shape is its mesh's
                    mesh = ev.to_mesh()
                    if mesh is not None:
                        drawn_digest(h, mesh)
                        ev.to_mesh_clear()
                for piece in self.instances(frame).get(name, []):  # a clock-driven node tree's instances
                    h.update(np.asarray(piece["co"], dtype=np.float64).tobytes())
            h.update(self._animated_values(frame).encode())
            self._states[key] = h.hexdigest()
        return self._states[key]

    def look(self, frame: int, name: str) -> str:
        """A digest of how the render shows object ``name`` at ``frame``, whatever animates it:
        its evaluated world matrix, its own evaluated values (object colour, visibility flags,
        custom properties a shader may read), what its evaluated mesh draws (``drawn_digest``),
        and the evaluated values of every material on it, the node trees and node groups they
        run and the objects their nodes read (a Texture Coordinate's object); an image sequence or
        movie they show changes with the frame by itself.  ``state`` answers which frames may
        differ for the whole scene; this answers whether one part does."""
        self.at(frame)
        obj = self.scene.objects[name]
        ev = obj.evaluated_get(self.depsgraph)
        h = hashlib.sha256(name.encode())
        h.update(np.array(ev.matrix_world, dtype=np.float64).tobytes())
        animated = self._animated_keys()
        if obj.animation_data is not None:  # only keys and drivers change an object's own values
            h.update(_id_values(ev).encode())
            h.update(json.dumps({k: plain_json(ev[k]) for k in ev.keys()}, sort_keys=True).encode())
        if obj.type in GEOMETRY_TYPES:
            mesh = ev.to_mesh()
            if mesh is not None:
                drawn_digest(h, mesh)
                ev.to_mesh_clear()
        seen: set[str] = set()
        trees = [slot.material for slot in ev.material_slots if slot.material is not None]
        while trees:
            ident = trees.pop()
            key = f"{type(ident).__name__}:{ident.name}"
            if key in seen:
                continue
            seen.add(key)
            if key in animated:  # a data-block no key or driver moves reads the same on every frame
                if (frame, key) not in self._looks:
                    self._looks[(frame, key)] = _id_values(ident.evaluated_get(self.depsgraph))
                h.update(self._looks[(frame, key)].encode())
            else:
                h.update(key.encode())
            tree = ident if isinstance(ident, bpy.types.NodeTree) else getattr(ident, "node_tree", None)
            for node in getattr(tree, "nodes", ()):
                if getattr(node, "node_tree", None) is not None:
                    trees.append(node.node_tree)
                image = getattr(node, "image", None)
                if image is not None and image.source in {"MOVIE", "SEQUENCE"}:
                    h.update(f"{image.name}@{frame}".encode())
                other = getattr(node, "object", None)
                if isinstance(other, bpy.types.Object) and other.name in self.scene.objects:
                    h.update(np.array(other.evaluated_get(self.depsgraph).matrix_world, dtype=np.float64).tobytes())
                if node.type == "ATTRIBUTE" and node.attribute_type in ("VIEW_LAYER", "OBJECT"):
                    h.update(self._attribute_read(node.attribute_type, node.attribute_name, ev).encode())
        return h.hexdigest()

    def _attribute_read(self, kind: str, name: str, ev) -> str:
        """``attribute_read`` as a digest line (red team 44: the pickets' colour mixed by a scene
        property keyed from 0 to 1, every part and node unchanged)."""
        value = attribute_read(kind, name, self.depsgraph, ev)
        return f"{kind}:{name}=" + (json.dumps(plain_json(value), sort_keys=True, default=str)
                                     if value is not None else "none")

    def _animated_keys(self) -> set[str]:
        """``look``'s keys of the data-blocks ``_animated_ids`` lists (once per probe)."""
        if self._animated is None:
            self._animated = {f"{type(i).__name__}:{i.name}" for i in _animated_ids()}
        return self._animated

    def _animated_values(self, frame: int) -> str:
        """The evaluated values of every animated data-block at ``frame`` (``_id_values``), once
        per frame: each criterion's state at that frame shares them."""
        if frame not in self._id_states:
            self.at(frame)
            self._id_states[frame] = "".join(_id_values(i.evaluated_get(self.depsgraph)) for i in _animated_ids())
        return self._id_states[frame]

    def objects(self, names: list[str]) -> list[bpy.types.Object]:
        missing = [n for n in names if self.scene.objects.get(n) is None]
        if missing:
            raise MissingObjects(missing)
        hidden = [n for n in names if n not in self.rendered() and self.scene.objects[n].type in RENDERED_TYPES]
        if hidden:  # empties, cameras, armatures never show: judged by where they are, not a flag
            raise HiddenFromRender(hidden)
        displaced = {n: d for n in names if (d := self.displaced(n)) is not None}
        if displaced:
            raise DisplacedInRender(sorted(displaced), "; ".join(f"{n}: {d}" for n, d in sorted(displaced.items())))
        return [self.scene.objects[n] for n in names]

    def displaced(self, name: str) -> str | None:
        """Why the render shows object ``name`` in another shape than its mesh (its material
        displaces the surface), or None (cached per object)."""
        if name not in self._displaced:
            obj = self.scene.objects[name]
            why = None
            if obj.type in GEOMETRY_TYPES:
                import probes_surface  # noqa: PLC0415 (a sibling that imports this module)
                d = probes_surface.render_displacement(self, obj, self._frame or 1)
                if isinstance(d, probes_surface.Unknown):
                    why = f"a displacement that cannot be evaluated ({d.reason})"
                elif d is not None and d > probes_surface.DISPLACED_AT:
                    why = f"moved up to {d:.4f} m"
            self._displaced[name] = why
        return self._displaced[name]

    def obj(self, name: str) -> bpy.types.Object:
        return self.objects([name])[0]

    def world(self, obj: bpy.types.Object, frame: int):
        """The evaluated world matrix of ``obj`` at ``frame`` (a copy).  The first call for a
        frame sets it once and keeps every object's matrix: criteria that walk the same frames
        (attachment, places, origins) share one ``frame_set`` per frame."""
        frame = int(frame)
        if frame not in self._worlds:
            self.at(frame)
            self._worlds[frame] = {o.name: o.evaluated_get(self.depsgraph).matrix_world.copy()
                                   for o in self.scene.objects}
        return self._worlds[frame][obj.name]

    def origin(self, obj: bpy.types.Object, frame: int) -> Vec:
        return tuple(self.world(obj, frame).translation)

    def aabb(self, obj: bpy.types.Object, frame: int) -> AABB:
        key = (int(frame), obj.name)
        if key not in self._aabbs:
            self.at(frame)
            points = self._world_points(obj)
            self._aabbs[key] = (tuple(map(float, points.min(axis=0))), tuple(map(float, points.max(axis=0))))
        return self._aabbs[key]

    # --- what the viewport shows (red team 6) ---------------------------------------------------
    # A modifier shown in the viewport and not in renders (an Array of 30 boxes) changes what the
    # file shows when it is opened -- and what an import that evaluates the viewport gets -- while
    # the render-mode depsgraph never evaluates it. Sizes and "inside the box" hold for both.

    def _viewport_at(self, frame: int):
        """The viewport-mode depsgraph (``evaluated_depsgraph_get``: viewport modifiers and
        levels, Is Viewport true) evaluated at ``frame``. Stepping it leaves the render
        depsgraph where the engine set it."""
        depsgraph = bpy.context.evaluated_depsgraph_get()
        if depsgraph.scene_eval.frame_current != frame:
            self.scene.frame_set(frame)
        return depsgraph

    def _viewport_drawn(self, frame: int, instances: bool) -> tuple[set[str], dict | None]:
        """(names of the objects the viewport evaluates, {instancer: pieces} it draws as
        instances -- read only when ``instances``) at ``frame``, cached."""
        names, drawn = self._viewport_seen.get(frame, (None, None))
        if names is None or (instances and drawn is None):
            depsgraph = self._viewport_at(frame)
            names = {o.name for o in depsgraph.objects} if names is None else names
            drawn = drawn_instances(depsgraph) if instances else drawn
            self._viewport_seen[frame] = (names, drawn)
        return names, drawn

    def viewport_aabb(self, obj: bpy.types.Object, frame: int, faces_only: bool = False) -> AABB | None:
        """World AABB at ``frame`` of what Blender's viewport shows of ``obj`` (its mesh with the
        modifiers shown in the viewport, at viewport levels, and the instances it draws there);
        None where that can only be what the render shows (a bare probe measures the viewport
        already; ``viewport_may_differ``) or the viewport shows none of it. ``faces_only``: only
        vertices of faces (``dimensions`` measures the render's faces)."""
        frame = int(frame)
        key = (frame, obj.name, faces_only)
        if key not in self._viewport:
            self._viewport[key] = (self._viewport_box(obj, frame, faces_only)
                                   if self.render_mode and viewport_may_differ(obj) else None)
        return self._viewport[key]

    def _viewport_box(self, obj: bpy.types.Object, frame: int, faces_only: bool) -> AABB | None:
        names, drawn = self._viewport_drawn(frame, draws_instances(obj))
        if obj.name not in names:
            return None
        ev = obj.evaluated_get(self._viewport_at(frame))
        m = np.array(ev.matrix_world, dtype=np.float64)
        points = [piece["co"] for piece in (drawn or {}).get(obj.name, []) if len(piece["co"])]
        mesh = ev.to_mesh() if obj.type in GEOMETRY_TYPES else None
        if mesh is not None:
            local = vertex_positions(mesh).reshape(-1, 3).astype(np.float64)
            if faces_only:
                local = local[np.unique(corner_verts(mesh))] if len(mesh.polygons) else local[:0]
            ev.to_mesh_clear()
            points.append(local @ m[:3, :3].T + m[:3, 3])
        points = [p for p in points if len(p)]
        if not points:
            return None
        pts = np.concatenate(points)
        return tuple(map(float, pts.min(axis=0))), tuple(map(float, pts.max(axis=0)))

    def viewport_hides(self, obj: bpy.types.Object, frame: int) -> str | None:
        """Why the viewport of the file as opened does not show ``obj``'s surface at ``frame``,
        or None when it does (red team 20: legs disabled in viewports, hidden in the view layer
        or drawn as bounds left a table top floating over nothing to whoever opened the file,
        the render whole)."""
        if not self.render_mode:
            return None  # a bare probe measures the viewport itself
        names, _ = self._viewport_drawn(int(frame), False)
        if obj.name not in names:
            return "not in the viewport (disabled in viewports, or its collection is)"
        if not shows_itself(obj, "viewport"):
            return "an instancer that does not show itself in the viewport"
        layer = getattr(bpy.context, "view_layer", None) or render_view_layer(self.scene)
        if layer is not None and not obj.visible_get(view_layer=layer):
            return f"hidden in view layer {layer.name!r}"
        opened = opened_view_hides(obj, self.scene)
        if opened is not None:
            return opened
        if obj.display_type in ("BOUNDS", "WIRE"):
            return f"displayed as {obj.display_type.lower()}, not its surface"
        # the Solid view draws a material's viewport colour with its alpha (red team 22: pickets
        # whose material's viewport alpha was 0 left posts and bare rails to whoever opened it)
        see_through = sorted({slot.material.name for slot in obj.material_slots if slot.material is not None
                              and slot.material.evaluated_get(self.depsgraph).diffuse_color[3] < VIEWPORT_ALPHA_MIN})
        if see_through:
            return f"see-through in the viewport: material {', '.join(see_through)} has a viewport alpha below " \
                   f"{VIEWPORT_ALPHA_MIN:g}"
        return None

    def viewport_shape_differs(self, obj: bpy.types.Object, frame: int) -> str | None:
        """How the viewport shows ``obj`` in another shape than a render, where it may
        (``viewport_may_differ``): another number of separate pieces, or a face area outside
        ``VIEWPORT_AREA_RATIO`` of the render's (red team 26: a Geometry Nodes modifier shown only
        in the viewport deleted eight of ten pickets, the row's box unchanged); None where they
        agree.  Viewport levels of a subdivision change neither much."""
        if obj.type not in GEOMETRY_TYPES or not viewport_may_differ(obj):
            return None
        n_render, a_render = _pieces_and_area(self.mesh_arrays(obj, frame))
        names, drawn = self._viewport_drawn(frame, draws_instances(obj))
        if obj.name not in names:
            return None  # not in the viewport at all: viewport_hides says so
        ev = obj.evaluated_get(self._viewport_at(frame))
        mesh = ev.to_mesh()
        try:
            pieces = [mesh_piece(mesh, np.array(ev.matrix_world, dtype=np.float64))] if mesh is not None else []
        finally:
            ev.to_mesh_clear()
        counted = [_pieces_and_area(m) for m in pieces + list((drawn or {}).get(obj.name, []))]
        n_view, a_view = sum(n for n, _ in counted), sum(a for _, a in counted)
        if n_render != n_view:
            return f"the viewport shows it in {n_view} separate piece(s), a render in {n_render}"
        low, high = VIEWPORT_AREA_RATIO
        if a_render > 1e-12 and not low <= a_view / a_render <= high:
            return f"the viewport shows {a_view / a_render:.2f} of the face area a render does"
        render_boxes = _piece_boxes(self.mesh_arrays(obj, frame))
        view_boxes = [_piece_boxes(m) for m in pieces + list((drawn or {}).get(obj.name, []))]
        moved = _unmatched_piece(render_boxes, np.concatenate(view_boxes) if view_boxes else np.zeros((0, 2, 3)),
                                 viewport_piece_slack(obj))
        if moved is not None:
            return moved
        return None

    def shown_aabb(self, obj: bpy.types.Object, frame: int) -> AABB:
        """``aabb`` widened by ``viewport_aabb``: where ``obj`` shows, in a render or in the
        viewport."""
        return union_boxes(self.aabb(obj, frame), self.viewport_aabb(obj, frame))

    def union_aabb(self, objs: list[bpy.types.Object], frame: int) -> AABB:
        return union_boxes(*(self.aabb(o, frame) for o in objs))

    def instances(self, frame: int) -> dict[str, list[dict]]:
        """{instancer name: its pieces}: the geometry the render draws at ``frame`` as instances
        (``drawn_instances``), cached per frame."""
        frame = int(frame)
        if frame not in self._instances:
            self.at(frame)
            self._instances[frame] = drawn_instances(self.depsgraph)
        return self._instances[frame]

    def instancers(self, frame: int) -> list[str]:
        """Names of the objects that draw instances at ``frame`` (shown themselves or not)."""
        return sorted(self.instances(frame))

    def drawer_aabb(self, name: str, frame: int) -> AABB:
        """World AABB at ``frame`` of a drawer: a scene object's (``aabb``), or a pseudo-drawer's
        (a background set's) over the pieces credited to it."""
        if name in self.scene.objects:
            return self.aabb(self.scene.objects[name], frame)
        pts = np.concatenate([pc["co"] for pc in self.instances(frame).get(name, []) if len(pc["co"])]
                             or [np.zeros((1, 3))])
        return tuple(pts.min(axis=0).tolist()), tuple(pts.max(axis=0).tolist())

    def unmeasured(self, names: list[str] | None = None) -> dict[str, str]:
        """{object name: why}: the render-visible objects (of ``names`` when given) that draw
        geometry no measure can read (``unmeasured_geometry``, ``unmeasured_instances``, a
        material that displaces the surface: ``displaced``)."""
        out = {}
        for obj in self.scene.objects:
            if (names is None or obj.name in names) and obj.name in self.rendered():
                # a surface its material moves in a render is drawn where no mesh measure sees
                # it (red team 18: a 1 cm ball displaced 2 m hid the whole table)
                why = unmeasured_geometry(obj) or (
                    f"its material moves its surface in a render: {moved}" if (moved := self.displaced(obj.name)) else None)
                if why:
                    out[obj.name] = why
        for drawer, why in unmeasured_instances(self.depsgraph).items():
            if names is None or drawer in names:
                out.setdefault(drawer, why)
        return out

    def mesh_arrays(self, obj: bpy.types.Object, frame: int) -> dict[str, np.ndarray] | None:
        """What the render draws of ``obj`` at ``frame``, as one mesh: its own evaluated mesh
        plus every instance credited to it (``drawn_instances``: a Geometry Nodes instance, a
        collection it instances, its vertex / face instances), in world space: ``co`` (n, 3),
        ``loop_vert`` (loop -> vertex), ``poly_start``/``poly_total``, ``edges`` (m, 2) and
        ``triangles``.  None when it draws no geometry."""
        own = self._own_mesh(obj, frame)
        extra = self.instances(frame).get(obj.name, [])
        if not extra:
            return own
        self.at(frame)
        return self._with_instances(obj, own, extra)

    def mesh_arrays_between(self, obj: bpy.types.Object, frame: int, subframe: float) -> dict[str, np.ndarray] | None:
        """``mesh_arrays`` at ``subframe`` (0..1) past ``frame``: where the animation puts
        ``obj`` between two frames (``solids_apart``'s sweep).  Nothing of it is cached, and the
        next ``at`` evaluates its frame anew."""
        key = (int(frame), float(subframe))
        if self._frame != key:
            if self.engine is not None:
                self.engine.frame_set(key[0], key[1])
            else:
                self.scene.frame_set(key[0], subframe=key[1])
            self._frame = key  # type: ignore[assignment]  # equal to no frame: ``at`` steps back
            self._between = drawn_instances(self.depsgraph)  # every object's, once per subframe
        own = self._evaluated_mesh(obj)
        extra = self._between.get(obj.name, [])
        return self._with_instances(obj, own, extra) if extra else own

    def _with_instances(self, obj: bpy.types.Object, own: dict | None, extra: list[dict]) -> dict[str, np.ndarray]:
        sign = 1.0 if np.linalg.det(np.array(obj.evaluated_get(self.depsgraph).matrix_world)) >= 0 else -1.0
        return join_pieces(([own] if own is not None else []) + [facing(piece, sign) for piece in extra])

    def _own_mesh(self, obj: bpy.types.Object, frame: int) -> dict[str, np.ndarray] | None:
        """The object's own evaluated mesh (no instances) as ``mesh_arrays`` gives it."""
        if obj.type not in GEOMETRY_TYPES:
            return None
        self.at(frame)
        return self._evaluated_mesh(obj)

    def _evaluated_mesh(self, obj: bpy.types.Object) -> dict[str, np.ndarray] | None:
        """``_own_mesh`` where the depsgraph stands now."""
        if obj.type not in GEOMETRY_TYPES:
            return None
        ev = obj.evaluated_get(self.depsgraph)
        mesh = ev.to_mesh()
        if mesh is None:
            return None
        try:
            return mesh_piece(mesh, np.array(ev.matrix_world, dtype=np.float64))
        finally:
            ev.to_mesh_clear()

    def _world_points(self, obj: bpy.types.Object) -> np.ndarray:
        """Evaluated vertices in world space, (n, 3), with those of the instances credited to
        the object (at the probe's current frame); an object that draws no geometry is its
        origin."""
        ev = obj.evaluated_get(self.depsgraph)
        m = np.array(ev.matrix_world, dtype=np.float64)
        local = np.zeros((0, 3))
        if obj.type in GEOMETRY_TYPES:
            mesh = ev.to_mesh()
            if mesh is not None:
                local = vertex_positions(mesh).reshape(-1, 3).astype(np.float64)
                ev.to_mesh_clear()
        points = [local @ m[:3, :3].T + m[:3, 3]] if len(local) else []
        if self._frame is not None:
            points += [piece["co"] for piece in self.instances(self._frame).get(obj.name, []) if len(piece["co"])]
        if not points:
            return m[:3, 3].reshape(1, 3)
        return np.concatenate(points)


def union_boxes(*boxes: AABB | None) -> AABB:
    """The AABB holding every box given (None: no box)."""
    held = [b for b in boxes if b is not None]
    return (tuple(min(b[0][i] for b in held) for i in range(3)), tuple(max(b[1][i] for b in held) for i in range(3)))


# Modifiers that can draw instances (the rest change an object's own mesh).
INSTANCING_MODIFIERS = {"NODES", "PARTICLE_SYSTEM"}


def draws_instances(obj) -> bool:
    """``obj`` can draw instances: it instances a collection or its children, or has a modifier
    that can make instances."""
    return obj.instance_type != "NONE" or any(m.type in INSTANCING_MODIFIERS for m in obj.modifiers)


def components(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Union-find over ``n`` nodes joined by the pairs (a[i], b[i]): each node's label is the
    smallest node of its component (roots hooked to the smaller root, then pointer jumping)."""
    lab = np.arange(n)
    if not len(a):
        return lab
    while True:
        la, lb = lab[a], lab[b]
        low = np.minimum(la, lb)
        new = lab.copy()
        np.minimum.at(new, la, low)
        np.minimum.at(new, lb, low)
        while True:
            jumped = new[new]
            if np.array_equal(jumped, new):
                break
            new = jumped
        if np.array_equal(new, lab):
            return lab
        lab = new


# The viewport's face area over a render's that still counts as one shape: a cube at subdivision
# level 0 in the viewport and 2 in a render has ~2.7 times the area (its limit surface ~2.9).
VIEWPORT_AREA_RATIO = (0.25, 4.0)


def _piece_boxes(m: dict | None) -> np.ndarray:
    """(k, 2, 3) the (lo, hi) world box of each separate piece of faces of a ``mesh_piece``."""
    if m is None or not len(m.get("poly_start", ())):
        return np.zeros((0, 2, 3))
    lv, start, total, co = m["loop_vert"], m["poly_start"], m["poly_total"], m["co"]
    labels = components(len(co), np.repeat(lv[start], total), lv)
    used = np.unique(lv)
    _, piece = np.unique(labels[used], return_inverse=True)
    lo = np.full((int(piece.max()) + 1, 3), np.inf)
    hi = np.full((int(piece.max()) + 1, 3), -np.inf)
    np.minimum.at(lo, piece, co[used])
    np.maximum.at(hi, piece, co[used])
    return np.stack([lo, hi], axis=1)


# How far a face of a piece's box may stand in the viewport from a render's, as a share of the
# piece's size on that axis plus a margin (m): where only a subdivision's levels differ between the
# two (a coarse box at level 0 against 2 loses a tenth of its length at each end), and otherwise
VIEWPORT_PIECE_SLACK_SUBDIVIDED = (0.15, 0.002)
VIEWPORT_PIECE_SLACK = (0.01, 0.001)


def viewport_piece_slack(obj) -> tuple[float, float]:
    """``VIEWPORT_PIECE_SLACK_SUBDIVIDED`` where a Subdivision Surface or Multiresolution modifier
    of ``obj`` shows other levels (or only) in the viewport than in a render and no other modifier
    is shown in one and not the other; ``VIEWPORT_PIECE_SLACK`` otherwise."""
    subdivided = False
    for mod in getattr(obj, "modifiers", ()):
        if mod.type in ("SUBSURF", "MULTIRES"):
            subdivided |= mod.show_viewport != mod.show_render or mod.render_levels != mod.levels
        elif mod.show_viewport != mod.show_render:
            return VIEWPORT_PIECE_SLACK
    return VIEWPORT_PIECE_SLACK_SUBDIVIDED if subdivided else VIEWPORT_PIECE_SLACK


def _unmatched_piece(render: np.ndarray, view: np.ndarray, slack_share: tuple[float, float]) -> str | None:
    """How a piece the viewport draws stands elsewhere or at another size than the render's
    piece nearest it: a face of its box off by more than ``slack_share`` (share of the piece's
    size on that axis, margin in m; ``viewport_piece_slack``) (red team 44: pickets spaced 4.8
    to 11.4 cm apart in the viewport, 8 in a render; rails stopping 32 cm short of each post in
    the viewport only -- a Geometry Nodes modifier shown in the viewport alone, the same count of
    pieces, the area within bounds).  None where every piece has its match."""
    centres = (view[:, 0] + view[:, 1]) / 2
    free = np.ones(len(view), dtype=bool)
    for lo, hi in render:
        if not free.any():
            return "the viewport draws fewer pieces"
        distance = np.where(free, np.linalg.norm(centres - (lo + hi) / 2, axis=1), np.inf)
        j = int(np.argmin(distance))
        free[j] = False
        slack = slack_share[0] * (hi - lo) + slack_share[1]
        off = np.maximum(np.abs(view[j][0] - lo), np.abs(view[j][1] - hi))
        if (off > slack).any():
            axis = int(np.argmax(off - slack))
            return (f"the viewport draws a piece at {'xyz'[axis]} {float(view[j][0][axis]):.3f}..{float(view[j][1][axis]):.3f} m "
                    f"where a render draws it at {float(lo[axis]):.3f}..{float(hi[axis]):.3f} m")
    return None


def _pieces_and_area(m: dict | None) -> tuple[int, float]:
    """(separate pieces of faces -- connected through shared vertices --, total face area) of a
    ``mesh_piece``; (0, 0) without faces."""
    if m is None or not len(m.get("poly_start", ())):
        return 0, 0.0
    lv, start, total, co = m["loop_vert"], m["poly_start"], m["poly_total"], m["co"]
    first = np.repeat(lv[start], total)
    labels = components(len(co), first, lv)[lv[start]]
    poly = np.repeat(np.arange(len(start)), total)
    rel = np.arange(len(lv)) - start[poly]
    fan = (rel >= 1) & (rel <= total[poly] - 2)
    a, b, c = co[lv[start[poly[fan]]]], co[lv[fan]], co[lv[np.flatnonzero(fan) + 1]]
    area = float(np.linalg.norm(np.cross(b - a, c - a), axis=1).sum() / 2)
    return int(len(np.unique(labels))), area


def viewport_may_differ(obj) -> bool:
    """The viewport may show ``obj`` in another shape or place than a render: it is geometry
    whose shape is not fixed (modifiers, each shown in the viewport and in renders by its own
    switch and levels; shape keys; a deforming parent), it draws instances, or it hangs from a
    vertex parent whose mesh may differ."""
    if (obj.type in GEOMETRY_TYPES and not fixed_shape(obj)) or draws_instances(obj):
        return True
    child, seen = obj, set()
    while child.parent is not None and child.name not in seen:
        seen.add(child.name)
        if child.parent_type in {"VERTEX", "VERTEX_3"} and not fixed_shape(child.parent):
            return True
        child = child.parent
    return False


# --- instances: geometry the render draws that is no scene object's own mesh ---------------------
# A collection instance (an Empty with instance_type COLLECTION), vertex / face instancing and
# Geometry Nodes instances are drawn by the render but are not in any object's evaluated mesh:
# each is credited to the object that instances it (the depsgraph's instance parent), so every
# measurement of that object sees them.


def mesh_piece(mesh, matrix: np.ndarray) -> dict[str, np.ndarray]:
    """A mesh in world space (``matrix``) as ``Probe.mesh_arrays`` gives it, with ``det``, the
    sign of the matrix's determinant (a mirrored piece's faces turn the other way)."""
    n_polys = len(mesh.polygons)
    co = vertex_positions(mesh).astype(np.float64).reshape(-1, 3)
    start = np.empty(n_polys, dtype=np.int64)
    total = np.empty(n_polys, dtype=np.int64)
    mesh.polygons.foreach_get("loop_start", start)
    mesh.polygons.foreach_get("loop_total", total)
    return {"co": co @ matrix[:3, :3].T + matrix[:3, 3], "loop_vert": corner_verts(mesh), "poly_start": start,
            "poly_total": total, "edges": edge_verts(mesh).reshape(-1, 2),
            "triangles": int(np.sum(np.maximum(total - 2, 0))),
            "det": 1.0 if np.linalg.det(matrix[:3, :3]) >= 0 else -1.0}


def background_drawers(scene) -> dict[str, str]:
    """{object name: pseudo-drawer}: every object of the scene's Background Set chain
    (``scene.background_set``, its own set, ...) that is no object of ``scene``: a render of
    ``scene`` draws them, so they are credited to "<background set: NAME>" (NAME: the set scene
    that holds the object) as one drawer the delivery added."""
    own, out, seen = set(scene.objects.keys()), {}, {scene.name}
    bg = scene.background_set
    while bg is not None and bg.name not in seen:
        seen.add(bg.name)
        for obj in bg.objects:
            if obj.name not in own:
                out.setdefault(obj.name, f"<background set: {bg.name}>")
        bg = bg.background_set
    return out


def _drawer(inst, scene, background: dict[str, str]) -> str | None:
    """The name a drawn depsgraph entry is credited to: its instancer for an instance (the
    outermost one), the pseudo-drawer of the background set for an object the render draws from
    it (or for an instance its objects draw); None for the scene's own objects' own meshes."""
    if inst.is_instance:
        if inst.parent is None:
            return None
        name = inst.parent.original.name
    else:
        name = inst.object.original.name
        if name in scene.objects:
            return None
    if name in scene.objects:
        return name
    return background.get(name, "<background set>")


def drawn_instances(depsgraph) -> dict[str, list[dict]]:
    """{drawer name: [piece, ...]}: every instance with geometry the depsgraph draws, as a
    ``mesh_piece`` in world space, credited to its instancer (for nested instances, the
    outermost one); and every object the render draws that is no object of the scene (a
    Background Set's), credited to a pseudo-drawer named after its set scene
    (``background_drawers``).  The depsgraph's instance objects live only while it is walked,
    so their meshes are read then."""
    out: dict[str, list[dict]] = {}
    scene = depsgraph.scene.original if depsgraph.scene.original is not None else depsgraph.scene
    background = background_drawers(scene)
    for inst in depsgraph.object_instances:
        if inst.object.type not in GEOMETRY_TYPES or inst.object.type in UNMEASURED_INSTANCE_TYPES:
            continue  # points, volumes and curves have no mesh: reported by unmeasured_instances
        drawer = _drawer(inst, scene, background)
        if drawer is None:
            continue
        obj = inst.object
        matrix = np.array(inst.matrix_world, dtype=np.float64)
        try:
            mesh = obj.to_mesh()
        except RuntimeError:  # "Object does not have geometry data": unmeasured_instances names it
            continue
        if mesh is None:
            continue
        try:
            out.setdefault(drawer, []).append(mesh_piece(mesh, matrix))
        finally:
            obj.to_mesh_clear()
    return out


# --- geometry the render draws that the grader cannot measure -------------------------------------
# Hair strands (a particle system rendered as Path) and hair curves objects are drawn by the render
# but are no faces of any evaluated mesh nor depsgraph instances with a mesh: every geometry and
# material measure would be blind to them, so an object that draws them is reported by name.
UNMEASURED_PARTICLE_RENDER = {"PATH"}


# Instance types a depsgraph draws that turn into no mesh (Geometry Nodes points, volumes, curves on
# another object): red team 7's point cloud and fog box stuck out of the outline unmeasured, and
# to_mesh() on them raised inside the probe.
UNMEASURED_INSTANCE_TYPES = {"POINTCLOUD", "VOLUME", "CURVES"}


def unmeasured_instances(depsgraph) -> dict[str, str]:
    """{drawer name: why}: the objects that draw, as instances, geometry with no mesh to measure
    (``UNMEASURED_INSTANCE_TYPES``), credited like ``drawn_instances``."""
    out: dict[str, str] = {}
    scene = depsgraph.scene.original if depsgraph.scene.original is not None else depsgraph.scene
    background = background_drawers(scene)
    for inst in depsgraph.object_instances:
        kind = inst.object.type
        if not inst.is_instance or kind not in UNMEASURED_INSTANCE_TYPES:
            continue
        drawer = _drawer(inst, scene, background)
        if drawer is not None:
            out.setdefault(drawer, f"draws {kind.lower()} instances (Geometry Nodes points, volume or curves)")
    return out


def unmeasured_geometry(obj) -> str | None:
    """Why ``obj`` draws geometry in a render that no measure can read (None when it does not):
    a particle system shown in render whose particles render as strands (Path), a hair curves
    object, or a Subdivision Surface with adaptive subdivision (Cycles dices it to the limit
    surface at render time, after the depsgraph the probe reads, which keeps the cage: red team
    11's boards that render as spindles)."""
    if obj.type == "CURVES":
        return "hair curves object"
    for mod in getattr(obj, "modifiers", ()):
        if mod.type == "SUBSURF" and mod.show_render and getattr(mod, "use_adaptive_subdivision", False):
            return f"Subdivision Surface {mod.name!r} with adaptive subdivision (Cycles dices it at render time)"
        if mod.type != "PARTICLE_SYSTEM" or not mod.show_render:
            continue
        settings = mod.particle_system.settings
        if settings is not None and settings.render_type in UNMEASURED_PARTICLE_RENDER and settings.count > 0:
            return f"particle system {mod.particle_system.name!r} drawn as strands"
    return None


def facing(piece: dict, sign: float) -> dict:
    """``piece`` with its faces turned to face as the owner's do: a piece mirrored relative to
    its owner (determinants of opposite sign) has each face's loops reversed."""
    if piece.get("det", 1.0) == sign or not len(piece["poly_total"]):
        return piece
    start, total = piece["poly_start"], piece["poly_total"]
    poly = np.repeat(np.arange(len(start)), total)
    rel = np.arange(len(piece["loop_vert"])) - start[poly]
    return {**piece, "loop_vert": piece["loop_vert"][start[poly] + total[poly] - 1 - rel], "det": sign}


def join_pieces(pieces: list[dict]) -> dict[str, np.ndarray]:
    """One mesh of several world-space pieces (indices offset, topology kept apart)."""
    co, loops, starts, totals, edges = [], [], [], [], []
    n_verts = n_loops = 0
    for piece in pieces:
        co.append(piece["co"])
        loops.append(piece["loop_vert"] + n_verts)
        starts.append(piece["poly_start"] + n_loops)
        totals.append(piece["poly_total"])
        edges.append(piece["edges"] + n_verts)
        n_verts += len(piece["co"])
        n_loops += len(piece["loop_vert"])
    total = np.concatenate(totals)
    return {"co": np.concatenate(co), "loop_vert": np.concatenate(loops), "poly_start": np.concatenate(starts),
            "poly_total": total, "edges": np.concatenate(edges).reshape(-1, 2),
            "triangles": int(np.sum(np.maximum(total - 2, 0)))}


PROBE_ENGINE = "ARKEVO_PROBE"  # the render engine whose render() hands us the render depsgraph
PROBE_CAMERA = "arkevo probe camera"  # lent to a scene without a camera (never linked into it)
# The lent camera, known by its pointer while it exists: a delivery may hold an object of that
# very name (red team 41: a leftover copy of every prop, skipped as the probe's own camera)
LENT_CAMERAS: set[int] = set()


def lent_camera(obj) -> bool:
    """``obj`` is the camera ``render_probe`` lent to the scene (not one the file holds)."""
    return obj.as_pointer() in LENT_CAMERAS

# Caches keyed by a data-block's pointer hold for one render_probe only: a file opened later in
# the same process (a warm probe's next delivery, the next mutant) may get the same address for
# a different image, and a script may change a data-block's content in place.
_PER_RENDER_CACHES: list[dict] = []


def per_render_cache() -> dict:
    """A dict that render_probe empties before every measurement."""
    cache: dict = {}
    _PER_RENDER_CACHES.append(cache)
    return cache


_MEAN_ALPHAS = per_render_cache()  # image pointer -> mean alpha (Solid shading by texture)


class RenderShowsNothing(Exception):
    """A render of the delivery shows nothing at all (every view layer disabled): every
    criterion scores 0, a measured fact."""


class RunsPythonWhenTrusted(RenderShowsNothing):
    """The delivery carries Python that Blender runs when the file is opened with scripts
    trusted (a farm's ``blender -b -y``): a text block registered as a module, or a driver
    whose expression only Python evaluates.  The probe opens it untrusted, so what such a
    render shows cannot be measured: every criterion scores 0, as for a render that shows
    nothing, the detail naming what runs."""


class NamesAmbiguous(RenderShowsNothing):
    """Two data-blocks of one kind share a name (a block linked from a library beside the
    file's own, or the same name from two libraries): every measure and every comparison with
    the start scene names its parts, so which one the render uses cannot be told.  Red team 21:
    a linked "Camera" made the render camera, a linked "Leaves" glowing red on one shrub, a
    linked "Planter" a wall before the lens, each read as the supplied one.  Every criterion
    scores 0, the detail naming the blocks."""


class ShowsWhatItCannotMeasure(RenderShowsNothing):
    """The file holds what makes one render or playback of it differ from another in a way the
    probe cannot step: a simulation that is not baked (rigid bodies, particles with physics,
    cloth, soft bodies, fluids, dynamic paint, a geometry-nodes simulation zone) -- it runs only
    when frames are played in order, so a playback shows what a render of one frame does not
    (red team 22: a table that falls through the floor, chips flying out, legs shrinking on
    play) -- or geometry that reads the active camera, so a render from another viewpoint draws
    other geometry (red team 22: legs switched off whenever a camera is active).  Every
    criterion scores 0, the detail naming what."""


class HoldsAnotherFilesData(RenderShowsNothing):
    """The delivery holds data-blocks linked from another .blend file (a library, packed or not)
    or library overrides of them.  Red team 25: a texture linked from a file the customer does
    not have opened as Blender's placeholder grid (the grader read the placeholder's pixels as
    painted ones); props linked from a packed library were read-only in the customer's hands
    (edit mode refused); library overrides kept the supplied, uncleaned props, under the props'
    names, in a second scene.  A delivery is one file the customer opens and edits: every
    criterion scores 0, the detail naming the libraries and what each lends."""


# Modifiers that carry a simulation's state from frame to frame (baked: their point cache holds it).
SIMULATION_MODIFIERS = {"CLOTH", "SOFT_BODY", "DYNAMIC_PAINT", "FLUID"}


def _baked(cache) -> bool:
    return cache is not None and bool(getattr(cache, "is_baked", False))


def unmeasurable_motion(scene: bpy.types.Scene) -> list[str]:
    """What in the scene a render of one frame cannot stand for (``ShowsWhatItCannotMeasure``)."""
    found = []
    world = scene.rigidbody_world
    if world is not None and world.enabled and world.collection is not None and len(world.collection.objects) \
            and not _baked(world.point_cache):
        found.append(f"a rigid body world of {len(world.collection.objects)} object(s), not baked")
    for obj in sorted(scene.objects, key=lambda o: o.name):
        for psys in getattr(obj, "particle_systems", ()):
            settings = psys.settings
            moves = settings.count > 0 and ((settings.type == "EMITTER" and settings.physics_type != "NO") or (
                settings.type == "HAIR" and psys.use_hair_dynamics))  # none emitted: nothing to step
            if moves and not _baked(psys.point_cache):
                found.append(f"{obj.name}: particle system {psys.name!r} ({settings.physics_type.lower()} physics), "
                             "not baked")
        for mod in obj.modifiers:
            if mod.type in SIMULATION_MODIFIERS and not _baked(getattr(mod, "point_cache", None)):
                found.append(f"{obj.name}: a {mod.type} simulation, not baked")
                continue
            nodes = tree_idnames(getattr(mod, "node_group", None)) if mod.type == "NODES" else set()
            if "GeometryNodeSimulationOutput" in nodes:
                found.append(f"{obj.name}: geometry nodes with a simulation zone")
            elif "GeometryNodeInputActiveCamera" in nodes:
                found.append(f"{obj.name}: geometry nodes that read the active camera")
    return found + session_reading_drivers()


# Data-blocks of the user interface: what they hold (playing, scrubbing, the workspace shown)
# changes with what the person at the screen does, never in a render.
UI_ID_TYPES = {"SCREEN", "WINDOWMANAGER", "WORKSPACE"}
UI_IDS = (bpy.types.Screen, bpy.types.WindowManager, bpy.types.WorkSpace)


# Read-only properties a rig may read: the frame as the render steps it. Every other read-only
# property is state Blender sets as it runs (whether an image's pixels are loaded, users, modes).
READ_ONLY_A_RIG_READS = {("Scene", "frame_current_final")}
_TRAILING_INDEX = re.compile(r"\[\d+\]$")
_LAST_NAME = re.compile(r"([A-Za-z_]\w*)$")


def session_reading_drivers() -> list[str]:
    """Every driver, on any data-block, with a variable that reads the session rather than the
    file: the user interface (red team 23: a box's offset driven by ``is_animation_playing`` of
    the file's screens dropped it through the table whenever Play ran, every render and the
    probe's stepping unchanged) or a read-only property Blender sets as it runs (red team 25:
    ``Image.has_data`` of an image an empty displays -- false in a headless render, true once a
    3D view has drawn the opened file -- dropped the carried box 40 cm into the tables), but
    ``READ_ONLY_A_RIG_READS``."""
    found = []
    for ident in ids_of_file():
        ad = getattr(ident, "animation_data", None)
        for fc in ad.drivers if ad is not None else ():
            for var in fc.driver.variables:
                for target in var.targets:
                    what = None
                    if getattr(target, "id_type", "") in UI_ID_TYPES or isinstance(getattr(target, "id", None), UI_IDS):
                        what = f"the user interface ({target.id_type.lower()})"
                    elif var.type == "SINGLE_PROP" and (prop := _read_only_read(target)) is not None:
                        what = f"{prop}, which Blender sets as it runs (read-only), not the file"
                    if what is not None:
                        found.append(f"{type(ident).__name__} {ident.name!r}: driver {fc.data_path!r} reads {what}")
                        break
    return sorted(set(found))


def _read_only_read(target) -> str | None:
    """"Struct.property" when a Single Property target resolves to a read-only RNA property
    (custom properties are the file's own and never read-only); None otherwise."""
    ident, path = getattr(target, "id", None), str(getattr(target, "data_path", "") or "")
    if ident is None or not path:
        return None
    base = _TRAILING_INDEX.sub("", path)
    name = _LAST_NAME.search(base)
    try:
        prop = ident.path_resolve(base, False)
    except (ValueError, TypeError, AttributeError):
        return None
    data = getattr(prop, "data", None)
    if data is None or name is None:
        return None
    rna = data.bl_rna.properties.get(name.group(1))
    if rna is None or not rna.is_readonly or (type(data).__name__, name.group(1)) in READ_ONLY_A_RIG_READS:
        return None
    return f"{type(data).__name__}.{name.group(1)}"


def ambiguous_names() -> list[str]:
    """Each name two data-blocks of one kind share in the open file, with where each comes from."""
    blocks = [d for d in ids_of_file() if not d.is_embedded_data]  # an embedded tree is found through its owner
    # a library override keeps its linked reference's name: the pair is one block as Blender draws it
    references = {d.override_library.reference.as_pointer() for d in blocks
                  if d.override_library is not None and d.override_library.reference is not None}
    seen: dict[tuple[str, str], list[str]] = {}
    for datablock in blocks:
        if datablock.as_pointer() in references:
            continue
        where = f"library {datablock.library.name}" if datablock.library is not None else "this file"
        seen.setdefault((type(datablock).__name__, datablock.name), []).append(where)
    return [f"{kind} {name!r} ({', '.join(sorted(places))})"
            for (kind, name), places in sorted(seen.items()) if len(places) > 1]


# Data-blocks only the paint and sculpt tools use, never a render: entering a paint mode links
# Blender's own brushes from its bundled asset files (red team 27: an honest file saved after
# Weight Paint was refused as data from another file).
TOOL_ONLY_IDS = (bpy.types.Brush, bpy.types.Palette, bpy.types.PaintCurve)


def another_files_data() -> list[str]:
    """Each library the open file links data-blocks from, with what it lends, and each library
    override -- but the paint tools' brushes (``TOOL_ONLY_IDS``), which no render uses (a start
    scene with linked data is not supported: none of the bundled seeds has one, and its untouched
    start would be refused here, at calibration)."""
    if not len(bpy.data.libraries):  # nothing linked, so nothing overridden: no walk (every measurement asks)
        return []
    lent: dict[str, list[str]] = {}
    overrides = []
    for datablock in ids_of_file():
        if isinstance(datablock, TOOL_ONLY_IDS):
            continue
        if datablock.library is not None:
            lent.setdefault(datablock.library.name, []).append(f"{type(datablock).__name__} {datablock.name!r}")
        if datablock.override_library is not None:
            overrides.append(f"{type(datablock).__name__} {datablock.name!r}")
    found = []
    for library in sorted(bpy.data.libraries, key=lambda lib: lib.name):
        if library.name in lent:
            kind = "packed" if library.packed_file is not None else "not packed"
            blocks = sorted(lent[library.name])
            found.append(f"library {library.name!r} ({kind}) lends {len(blocks)}: {', '.join(blocks[:4])}"
                         + (" ..." if len(blocks) > 4 else ""))
    if overrides:
        found.append(f"{len(overrides)} library override(s): {', '.join(sorted(overrides)[:4])}")
    return found


def ids_of_file():
    """Every data-block of the open file, and the node trees embedded in them, each once
    (``bpy.data.all_ids`` lists them all again)."""
    walked: set[int] = set()
    for attr in dir(bpy.data):
        collection = getattr(bpy.data, attr, None)
        if not isinstance(collection, bpy.types.bpy_prop_collection):
            continue
        for datablock in collection:
            if not isinstance(datablock, bpy.types.ID):
                break
            if datablock.as_pointer() in walked:
                continue
            walked.add(datablock.as_pointer())
            yield datablock
            tree = getattr(datablock, "node_tree", None)
            if isinstance(tree, bpy.types.ID):
                yield tree


def python_when_trusted() -> list[str]:
    """What in the open file runs Python when it is opened trusted: each text block with
    ``use_module`` on, each scripted driver that is not a simple expression (Blender's
    expression evaluator handles simple ones without Python, trusted or not)."""
    found = [f"text block {t.name!r} registered to run on load" for t in bpy.data.texts if t.use_module]
    for datablock in ids_of_file():
        anim = getattr(datablock, "animation_data", None)
        for fcurve in (anim.drivers if anim is not None else ()):
            driver = fcurve.driver
            if driver.type == "SCRIPTED" and not driver.is_simple_expression:
                found.append(f"driver on {datablock.name!r} {fcurve.data_path}[{fcurve.array_index}] "
                             f"runs Python: {driver.expression!r}")
    return found


class _ProbeRender(bpy.types.RenderEngine):
    """A render engine that draws nothing: Blender's render pipeline builds the render-mode
    depsgraph (render visibility, render modifier levels, ``Is Viewport`` false, simplify's
    render values, drivers as a render evaluates them) and hands it to ``render``, where the
    probe measures it; ``frame_set`` steps that depsgraph through the graded frames."""

    bl_idname = PROBE_ENGINE
    bl_label = "arkevo probe"
    bl_use_preview = False
    job: Callable[[Any, Any], None] | None = None

    def render(self, depsgraph):
        job = type(self).job
        if job is not None:
            job(self, depsgraph)


def _ensure_engine() -> None:
    """Register ``_ProbeRender`` once; a copy of this module loaded again in the same process
    (a warm probe given other probe code) takes the engine over from the earlier copy."""
    if _ProbeRender.is_registered:
        return
    for cls in bpy.types.RenderEngine.__subclasses__():
        if getattr(cls, "bl_idname", None) == PROBE_ENGINE and cls.is_registered:
            bpy.utils.unregister_class(cls)
    bpy.utils.register_class(_ProbeRender)


# A from-scratch task's inputs/start.blend is a new scene: Blender's frame range 1..250.
NEW_SCENE_FRAMES = (1, 250)


def graded_frames(criteria_params: list[dict], current: int | None = None,
                  start_range: tuple[int, int] | None = None,
                  delivered_range: tuple[int, int] | None = None,
                  preview_range: tuple[int, int] | None = None) -> list[int]:
    """Every frame the task grades -- fixed by the task, never narrowed by the delivery: each
    criterion's ``frame`` and the whole of each ``frame_start``..``frame_end`` it names; a
    rubric that names no range (a still: a model, a material) grades the start scene's whole
    frame range ``start_range``, which the delivered file plays (a turntable, a preview), and
    the delivered file's own range ``delivered_range`` where it plays more (red team 20: legs
    collapsed on frames 251-300 of a range stretched past the supplied 1-250), and its preview
    range where that is on (``preview_range``: what Play in the opened file plays; red team 22:
    a preview range of 1-300 over legs keyed to pucks from 251); and the frame a still render of
    the delivery shows (its current frame)."""
    frames: set[int] = set()
    ranged = False
    for params in criteria_params:
        if "frame" in params:
            frames.add(int(params["frame"]))
        if "frame_start" in params and "frame_end" in params:
            frames.update(range(int(params["frame_start"]), int(params["frame_end"]) + 1))
            ranged = True
    if not ranged:
        for span in (start_range, delivered_range, preview_range):
            if span is not None:
                frames.update(range(int(span[0]), int(span[1]) + 1))
    if not frames:
        frames.add(1)
    if current is not None:
        frames.add(int(current))
    return sorted(frames)


def start_frame_range(baseline: dict | None) -> tuple[int, int]:
    """The start scene's frame range: its snapshot's, else a new scene's."""
    if baseline:
        if isinstance(baseline.get("frames"), list) and len(baseline["frames"]) == 2:
            return int(baseline["frames"][0]), int(baseline["frames"][1])
        render = baseline.get("render") or {}
        if "frame_start" in render and "frame_end" in render:
            return int(render["frame_start"]), int(render["frame_end"])
    return NEW_SCENE_FRAMES


def render_probe(scene: bpy.types.Scene, baseline: dict | None, fn: Callable[["Probe"], Any],
                 frames: list[int] | None = None) -> Any:
    """Run ``fn(probe)`` on the scene as a render of it evaluates it, and return its result.

    Every measurement of a delivery goes through here (the rule probe, the start-scene
    snapshot, mutation testing).  The scene is rendered with ``_ProbeRender``: inside its
    ``render`` callback the probe holds the render-mode depsgraph of the view layer the picture
    comes from, and steps it frame by frame.  What the probe changes to start the render (the
    engine, a 32 x 32 picture, a camera lent to a scene without one, sequencer, compositor and
    Freestyle off so the scene itself is what renders) is put back before ``fn`` runs, so ``fn`` reads
    the delivery's own settings; the scene's frame is put back afterwards.  ``frames``: the
    frames the task grades (``graded_frames``).  Raises ``RenderShowsNothing`` when no view
    layer renders, ``RunsPythonWhenTrusted`` (a kind of it) when the file runs Python on a
    trusted open, ``NamesAmbiguous`` (another) when two data-blocks of one kind share a name,
    ``ShowsWhatItCannotMeasure`` (another) for an unbaked simulation or camera-reading geometry,
    ``HoldsAnotherFilesData`` (another) for data linked from a library or overriding it."""
    _ensure_engine()
    for cache in _PER_RENDER_CACHES:
        cache.clear()
    runs_python = python_when_trusted()
    if runs_python:
        raise RunsPythonWhenTrusted("the file runs Python when opened with scripts trusted, so what it renders "
                                    "there cannot be measured: " + "; ".join(runs_python[:5]))
    unmeasurable = unmeasurable_motion(scene)
    if unmeasurable:
        raise ShowsWhatItCannotMeasure("the file shows what one render cannot stand for: " + "; ".join(unmeasurable[:5]))
    ambiguous = ambiguous_names()
    if ambiguous:
        raise NamesAmbiguous("two data-blocks share a name, so which one the render uses cannot be told: "
                             + "; ".join(ambiguous[:5]))
    borrowed = another_files_data()
    if borrowed:
        raise HoldsAnotherFilesData("the file holds data from another .blend file, which the customer may not have "
                                    "and cannot edit in this one: " + "; ".join(borrowed[:5]))
    view_layer = render_view_layer(scene)
    if view_layer is None:
        raise RenderShowsNothing("the render shows nothing: every view layer is disabled for rendering")
    render = scene.render
    saved = {"engine": render.engine, "resolution_percentage": render.resolution_percentage,
             "resolution_x": render.resolution_x, "resolution_y": render.resolution_y,
             "use_sequencer": render.use_sequencer, "use_compositing": render.use_compositing,
             "use_border": render.use_border, "use_freestyle": render.use_freestyle}
    saved_camera, frame, subframe = scene.camera, scene.frame_current, scene.frame_subframe
    lent = None
    if scene.camera is None:
        lent = bpy.data.objects.new(PROBE_CAMERA, bpy.data.cameras.new(PROBE_CAMERA))
        LENT_CAMERAS.add(lent.as_pointer())
    result: dict[str, Any] = {}

    def restore() -> None:
        for key, value in saved.items():
            setattr(render, key, value)
        scene.camera = saved_camera

    def job(engine, depsgraph) -> None:
        if result or depsgraph.view_layer.name != view_layer.name:
            return  # one view layer's picture: the first that renders
        restore()
        try:
            result["value"] = fn(Probe(scene, baseline, depsgraph=depsgraph, engine=engine,
                                       graded_frames=frames, saved_subframe=subframe))
        except BaseException as exc:  # noqa: BLE001 - carried out of Blender's callback, raised below
            result["error"] = exc

    _ProbeRender.job = job
    try:
        render.engine = PROBE_ENGINE
        # a picture size of its own: a delivery's 16 x 9 at 1 % is "Image too small" (red team 6)
        render.resolution_x, render.resolution_y, render.resolution_percentage = 32, 32, 100
        # Freestyle's line pass after a custom engine's render crashes Blender (red team 8)
        render.use_sequencer = render.use_compositing = render.use_border = render.use_freestyle = False
        if lent is not None:
            scene.camera = lent
        bpy.ops.render.render(write_still=False)
    finally:
        _ProbeRender.job = None
        restore()
        scene.frame_current = frame
        if lent is not None:
            camera = lent.data
            LENT_CAMERAS.discard(lent.as_pointer())
            bpy.data.objects.remove(lent)
            bpy.data.cameras.remove(camera)
    if "error" in result:
        raise result["error"]
    if "value" not in result:
        raise RuntimeError("the probe render did not run (Blender rendered no view layer)")
    return result["value"]


# --- shared geometry helpers ------------------------------------------------------------------


def aabb_size(box: AABB) -> Vec:
    return tuple(box[1][i] - box[0][i] for i in range(3))


AABB_POINTS = ("aabb_center", "aabb_bottom_center", "top_center")
POINTS = ("origin", *AABB_POINTS)


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


def contact_share(points: np.ndarray, tolerance: float) -> float:
    """How flat an object sits on what is under it: of its world points (n, 3), those within
    ``tolerance`` of the lowest one form its contact patch; the share is the patch's smaller
    horizontal extent over the object's own on the same axis (1: a face as wide as the object
    lies flat; 0: it stands on an edge or a corner)."""
    if len(points) < 2:
        return 0.0
    bottom = points[points[:, 2] <= points[:, 2].min() + tolerance]
    whole = np.ptp(points[:, :2], axis=0)
    patch = np.ptp(bottom[:, :2], axis=0)
    return float(min(patch[i] / whole[i] if whole[i] > 1e-9 else 1.0 for i in range(2)))


def sampled_frames(params: dict) -> list[int]:
    """Every frame of ``frame_start``..``frame_end``: a render shows them all, so a grader that
    samples lets a delivery be wrong between samples.  ``frame_step`` is accepted for old
    rubrics and ignored."""
    start, end = int(params["frame_start"]), int(params["frame_end"])
    if end < start:
        raise ValueError(f"bad frame range {start}..{end}")
    return list(range(start, end + 1))


def names_param(params: dict) -> list[str]:
    """``objects`` (a list) or ``object`` (one name)."""
    names = params.get("objects", [params["object"]] if "object" in params else None)
    if not names:
        raise ValueError("params need 'object' or a non-empty 'objects'")
    return list(names)


def first_frames(frames: list[int], limit: int = 10) -> list[int]:
    """A bounded list of frames for evidence (reports stay small)."""
    return list(frames[:limit])


# --- param types --------------------------------------------------------------------------------
# Literals only (the static catalogue evaluates this source, names of earlier constants allowed);
# each `description` is what an admission error says was expected.

NUMBER = {"type": "number", "description": "number"}
INTEGER = {"type": "integer", "description": "integer"}
COUNT = {"type": "integer", "minimum": 0, "description": "integer >= 0"}
NAME = {"type": "string", "minLength": 1, "description": "non-empty string"}
NAMES = {"type": "array", "items": NAME, "minItems": 1, "description": "non-empty list of names"}
VEC3 = {"type": "array", "items": NUMBER, "minItems": 3, "maxItems": 3, "description": "vec3 [x, y, z]"}
PARAM_TYPES = {
    "number": NUMBER,
    "tolerance": {"type": "number", "minimum": 0, "description": "number >= 0"},
    "integer": INTEGER,
    "count": COUNT,
    "step": {"type": "integer", "minimum": 1, "description": "integer >= 1"},
    "bool": {"type": "boolean", "description": "true or false"},
    "name": NAME,
    "names": NAMES,
    "vec3": VEC3,
    "vector": {"anyOf": [NUMBER, {"type": "array", "items": NUMBER, "minItems": 1}],
               "description": "number or list of numbers"},
    "waypoints": {"type": "array", "items": VEC3, "minItems": 1, "description": "non-empty list of [x, y, z]"},
    "places": {"type": "object", "additionalProperties": VEC3, "minProperties": 1,
               "description": "{object name: [x, y, z]}"},
    "regions": {"type": "object", "minProperties": 1, "description": "{object name: {min, max}}",
                "additionalProperties": {"type": "object", "required": ["min", "max"],
                                         "properties": {"min": VEC3, "max": VEC3}, "additionalProperties": False,
                                         "description": "{min: [x, y, z], max: [x, y, z]}"}},
    "count_bound": {"anyOf": [COUNT, {"type": "object", "properties": {"min": COUNT, "max": COUNT},
                                      "additionalProperties": False}],
                    "description": "integer >= 0 or {min, max}"},
    "point": {"enum": POINTS, "description": "origin, aabb_center, aabb_bottom_center or top_center"},
    "anchor": {"enum": AABB_POINTS, "description": "aabb_center, aabb_bottom_center or top_center"},
    "parent": {"type": ["string", "null"], "minLength": 1, "description": "object name or null"},
    "object_type": {"enum": ("MESH", "CURVE", "SURFACE", "META", "FONT", "CURVES", "POINTCLOUD", "VOLUME",
                             "GREASEPENCIL", "ARMATURE", "LATTICE", "EMPTY", "LIGHT", "LIGHT_PROBE", "CAMERA",
                             "SPEAKER"),
                    "description": "a Blender object type (MESH, EMPTY, ...)"},
    "colour": {"anyOf": [{"type": "array", "items": NUMBER, "minItems": 3, "maxItems": 4},
                         {"type": "string", "pattern": "^#?[0-9A-Fa-f]{6}$"}],
               "description": "linear [r, g, b] or sRGB '#rrggbb'"},
    "colour_source": {"enum": ("auto", "principled", "viewport"), "description": "auto, principled or viewport"},
    "engines": {"anyOf": [NAME, NAMES], "description": "engine name or list of names"},
    "resolution": {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 2, "maxItems": 2,
                   "description": "[x, y] integers >= 1"},
    "version": {"anyOf": [{"type": "string", "pattern": "^[0-9]+(\\.[0-9]+)*$"},
                          {"type": "array", "items": COUNT, "minItems": 1}],
                "description": "version such as \"5.2\" or [5, 2]"},
}
# JSON types as Python sees them (bool is not a number in JSON; 2.0 is an integer).
_JSON_TYPES = {
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: not isinstance(v, bool) and (isinstance(v, int) or isinstance(v, float) and v.is_integer()),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, (list, tuple)),
    "object": lambda v: isinstance(v, dict),
}


def _same(a: Any, b: Any) -> bool:
    return a == b and isinstance(a, bool) == isinstance(b, bool)  # JSON: true is not 1


def conforms(value: Any, schema: dict) -> bool:
    """`value` matches `schema`, for the JSON-Schema keywords type, enum, const, anyOf,
    (exclusive) minimum / maximum, min / maxLength, pattern, items, min / maxItems, properties,
    required, additionalProperties and minProperties.  Others pass here; admission checks every
    keyword with jsonschema, so a task probe's own fragment may use more."""
    kinds = schema.get("type")
    if kinds is not None and not any(_JSON_TYPES[k](value) for k in ([kinds] if isinstance(kinds, str) else kinds)):
        return False
    if "enum" in schema and not any(_same(value, e) for e in schema["enum"]):
        return False
    if "anyOf" in schema and not any(conforms(value, s) for s in schema["anyOf"]):
        return False
    if "const" in schema and not _same(value, schema["const"]):
        return False
    if _JSON_TYPES["number"](value):
        low, high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        return (schema.get("minimum", value) <= value <= schema.get("maximum", value)
                and (low is None or value > low) and (high is None or value < high))
    if isinstance(value, str):
        return (schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", len(value))
                and re.search(schema.get("pattern", ""), value) is not None)
    if isinstance(value, (list, tuple)):
        items = schema.get("items", {})
        return (schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value))
                and all(conforms(v, items) for v in value))
    if isinstance(value, dict):
        if len(value) < schema.get("minProperties", 0) or any(k not in value for k in schema.get("required", ())):
            return False
        for key, item in value.items():
            sub = schema.get("properties", {}).get(key, schema.get("additionalProperties", True))
            if sub is False or isinstance(sub, dict) and not conforms(item, sub):
                return False
    return True


# --- registry ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Primitive:
    fn: Callable[[Probe, dict], Outcome]
    # required param names; "a|b" means either one
    required: tuple[str, ...]
    group: str = "task"
    doc: str = field(default="", compare=False)
    # {param: JSON-Schema fragment} of every param it accepts ({} = any value)
    params: dict = field(default_factory=dict, compare=False)
    # "static": one frame's verdict (an optional `frame`), held at every graded frame by
    # `measure`; "own": the primitive walks its frames itself
    frames: str = "own"


PRIMITIVES: dict[str, Primitive] = {}


def _origin(fn) -> tuple[str, str]:
    return str(Path(fn.__code__.co_filename).resolve()), fn.__qualname__


GROUPS = ("objects", "geometry", "animation", "materials", "render_spec", "scene", "task")


def declared_params(method: str, required: tuple[str, ...], params: dict) -> dict[str, dict]:
    """{param: JSON-Schema fragment}: ``params`` with type names resolved, plus any required
    name it leaves out, of any type ({})."""
    out = {}
    for key, kind in params.items():
        if isinstance(kind, str) and kind not in PARAM_TYPES:
            raise ValueError(f"{method}: param {key!r} has unknown type {kind!r}; use one of {', '.join(PARAM_TYPES)}")
        if not isinstance(kind, (str, dict)):
            raise ValueError(f"{method}: param {key!r} must be declared by a type name or a JSON-Schema dict")
        out[key] = PARAM_TYPES[kind] if isinstance(kind, str) else kind
    for names in required:
        for key in names.split("|"):
            out.setdefault(key, {})
    return out


FRAME_MODES = ("static", "own")


def primitive(name: str | None = None, *, required: tuple[str, ...] = (), params: dict | None = None,
              group: str = "task", frames: str | None = None):
    """Register ``fn`` as the rubric method ``name`` (default: the function's name), taking the
    ``params`` it declares (see the module docstring).  A name belongs to one definition: a task
    probe cannot silently replace a built-in.  (The same source file imported twice -- RewardKit
    imports every .py in tests/ under its own module name -- re-registers its own definitions,
    which is harmless.)"""

    def deco(fn: Callable[[Probe, dict], Outcome]) -> Callable[[Probe, dict], Outcome]:
        method = name or fn.__name__
        if group not in GROUPS:
            raise ValueError(f"{method}: unknown probe group {group!r}")
        if frames is not None and frames not in FRAME_MODES:
            raise ValueError(f"{method}: frames must be one of {', '.join(FRAME_MODES)}")
        # a primitive measuring one optional `frame` is static unless it says it walks its own
        static = "frame" in (params or {}) and not any("frame" in r.split("|") for r in required)
        mode = frames or ("static" if static else "own")
        prev = PRIMITIVES.get(method)
        if prev is not None and _origin(prev.fn) != _origin(fn):
            raise ValueError(f"rule method {method!r} is already registered (by {_origin(prev.fn)[0]})")
        PRIMITIVES[method] = Primitive(fn, tuple(required), group, (fn.__doc__ or "").strip(),
                                       declared_params(method, tuple(required), params or {}), mode)
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
    """Reject an unknown method, missing, undeclared or mistyped params before any delivery is
    opened (admission refuses the same rubrics earlier)."""
    if method not in PRIMITIVES:
        raise KeyError(f"unknown rule method {method!r}")
    declared = PRIMITIVES[method].params
    missing = [r for r in PRIMITIVES[method].required if not any(k in params for k in r.split("|"))]
    if missing:
        raise ValueError(f"{method}: missing param(s) {', '.join(missing)}")
    unknown = sorted(set(params) - set(declared))
    if unknown:
        raise ValueError(f"{method}: unknown param(s) {', '.join(unknown)}; known: {', '.join(sorted(declared))}")
    for key, value in params.items():
        if not conforms(value, declared[key]):
            want = declared[key].get("description", json_text(declared[key]))
            raise ValueError(f"{method}: param {key!r}: expected {want}, got {json_text(value)}")


def json_text(value: Any, limit: int = 80) -> str:
    """Short JSON text of a value, for error messages."""
    text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _measure_once(probe: Probe, method: str, params: dict) -> Outcome:
    try:
        return PRIMITIVES[method].fn(probe, params)
    except HiddenFromRender as exc:
        return Outcome(0.0, False, None, None, str(exc), {"hidden_from_render": exc.names})
    except DisplacedInRender as exc:
        return Outcome(0.0, False, None, None, str(exc), {"displaced_in_render": exc.names})
    except MissingObjects as exc:
        return Outcome(0.0, False, None, None, str(exc), {"missing_objects": exc.names})


def _state_scope(probe: Probe, method: str, params: dict) -> tuple[list[str] | None, bool]:
    """What a static criterion's verdict can depend on: a material criterion on named objects
    reads only those objects' shapes (and animated materials), and their placement only when a
    material reads the world position or view; anything else reads the whole scene."""
    if PRIMITIVES[method].group != "materials":
        return None, True
    names = params.get("objects") or ([params["object"]] if "object" in params else None)
    if not names or any(probe.scene.objects.get(n) is None for n in names):
        return None, True
    return list(names), materials_placed([probe.scene.objects[n] for n in names])


def measure(probe: Probe, method: str, params: dict) -> Outcome:
    """Run one primitive; absent objects score 0, anything else unexpected propagates.

    A static primitive (one optional ``frame``) is held at every frame the task grades: it is
    measured at its own frame, then again at each graded frame whose scene state differs from
    every frame measured so far (``Probe.state``), and the worst verdict stands -- a delivery
    right at frame 1 and wrong when the clip plays is wrong."""
    validate(method, params)
    first = int(params.get("frame", 1))
    outcome = _measure_once(probe, method, params)
    if PRIMITIVES[method].frames != "static" or len(probe.graded_frames) < 2:
        return outcome
    names, matrices = _state_scope(probe, method, params)
    seen = {probe.state(first, names, matrices)}
    worst, worst_frame = outcome, first
    for frame in probe.graded_frames:
        if worst.score == 0.0 and not worst.passed:
            break  # nothing is worse
        key = probe.state(frame, names, matrices)
        if key in seen:
            continue
        seen.add(key)
        other = _measure_once(probe, method, {**params, "frame": frame})
        if other.score < worst.score or (worst.passed and not other.passed):
            worst, worst_frame = other, frame
    if worst_frame == first:
        return outcome
    return Outcome(worst.score, worst.passed, worst.measured, worst.expected,
                   f"at frame {worst_frame} (the task grades frames {probe.graded_frames[0]}.."
                   f"{probe.graded_frames[-1]}): {worst.detail}",
                   {"frame": worst_frame, "graded_frames": len(probe.graded_frames),
                    "distinct_states": len(seen), "at_frame": worst.evidence})
