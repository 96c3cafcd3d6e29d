"""Probe group: materials (assigned, base colour within a CIEDE2000 distance, node types).
Runs in bpy."""

from __future__ import annotations

from dataclasses import dataclass

import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # standalone: siblings only
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy  # noqa: E402
import numpy as np  # noqa: E402

import colour_math  # noqa: E402
import probes_surface  # noqa: E402  (which output the engine renders, and what reaches it)
from probe_core import (  # noqa: E402
    Outcome, Probe, binary_outcome, fraction_outcome, names_param, primitive, rnd,
)

UNIT = {"type": "number", "minimum": 0, "maximum": 1, "description": "number 0..1"}


@primitive(group="materials", required=("object|objects", "material"),
           params={"object": "name", "objects": "names", "material": "name"})
def material_assigned(probe: Probe, p: dict):
    """Each object has a material of exactly that name in any slot."""
    names, wanted = names_param(p), p["material"]
    slots = {o.name: [s.material.name if s.material else None for s in o.material_slots] for o in probe.objects(names)}
    bad = [n for n, mats in slots.items() if wanted not in mats]
    detail = f"every object has {wanted!r}" if not bad else f"without {wanted!r}: " + ", ".join(bad)
    return fraction_outcome(len(names) - len(bad), len(names), slots, wanted, detail, {"without": bad})


def _surface_bsdf(mat: bpy.types.Material):
    """The Principled BSDF that reaches the Surface of the material output the scene's engine
    renders (an engine-targeted output before an ALL one, through reroutes and muted nodes:
    ``probes_surface.surface_node``), if any.  Reading only the active output let a second,
    EEVEE-targeted output show something else while every check read the spec shader."""
    if mat is None or mat.node_tree is None:
        return None
    node, _why = probes_surface.surface_node(mat, probes_surface.engine_target(bpy.context.scene))
    return node if node is not None and node.type == "BSDF_PRINCIPLED" else None


# A viewport colour's alpha at which solid view draws it opaque.
VIEWPORT_OPAQUE = 0.999


# How much more metallic than its shader a material's viewport display may be (red team 28: a teal
# glaze's viewport Metallic 1 drew the catalogue's solid-view preview near black, its viewport
# colour exactly the teal asked for).
VIEWPORT_METAL_SLACK = 0.05


def _viewport_metal(mat) -> tuple[float, float]:
    """(the viewport display's Metallic, the most it may be): solid view draws a metallic
    material's colour as a metal's tint on the studio light's reflection, not as its colour;
    a material may show as much metal there as its shader renders (its Principled BSDF's Metallic,
    typed in; any value where a link drives it; none without a Principled BSDF) plus
    ``VIEWPORT_METAL_SLACK``.  A material without nodes renders with these very settings."""
    metal = float(mat.metallic)
    if mat.node_tree is None:
        return metal, 1.0
    bsdf = _surface_bsdf(mat)
    socket = bsdf.inputs.get("Metallic") if bsdf is not None else None
    if socket is None:
        return metal, VIEWPORT_METAL_SLACK
    if probes_surface.upstream(socket) is not None:
        return metal, 1.0
    return metal, min(1.0, float(socket.default_value) + VIEWPORT_METAL_SLACK)


def material_colour(mat: bpy.types.Material, source: str = "auto") -> tuple[tuple[float, float, float], str]:
    """(linear RGB, where it came from) of a material without a surface to evaluate on.
    ``viewport``: the viewport colour (``diffuse_color``); ``auto`` / ``principled``: the colour
    the node graph gives everywhere (``probes_surface.colour_of`` on the surface's Principled
    Base Color), else (None, why)."""
    if source not in ("auto", "principled", "viewport"):
        raise ValueError(f"unknown colour source {source!r}; use auto, principled or viewport")
    if source == "viewport" or mat.node_tree is None:
        return tuple(float(v) for v in mat.diffuse_color[:3]), "viewport"
    bsdf = _surface_bsdf(mat)
    if bsdf is None:
        return None, "no Principled BSDF on the surface"
    rgb = probes_surface.colour_of(bsdf.inputs["Base Color"])
    if isinstance(rgb, probes_surface.Unknown):
        return None, f"Base Color unknown ({rgb.reason})"
    return rgb, "principled"


def _material(probe: Probe, p: dict) -> bpy.types.Material | None:
    if "material" in p:
        return bpy.data.materials.get(p["material"])
    obj = probe.obj(p["object"])
    slot = next((s for s in obj.material_slots if s.material), None)
    return slot.material if slot else None


def _evaluated_colour(probe: Probe, p: dict, mat, principled: bool, target: str):
    """(per-sample colour (n, 3), area weights, why not) of what ``mat`` shows, evaluated over
    the faces that use it (of ``object`` when given, else every rendered object; a point with no
    surface when none does).  ``principled``: every closure that shows must be a Principled BSDF."""
    objs = [probe.obj(p["object"])] if "object" in p else probes_surface._rendered_geometry(probe)
    chunks = probes_surface.chunks_for(probe, objs, int(p.get("frame", 1)), mat, every=True)
    colours, weights = [], []
    for evaluated, ctx in chunks:
        res = probes_surface.evaluate_surface(evaluated, target, ctx)
        if principled:
            share = res["share"]
            if isinstance(share, probes_surface.Unknown):
                return None, None, share.reason
            other = sorted(k for k, v in share.items() if k != "BSDF_PRINCIPLED" and v.any())
            if other:
                return None, None, f"the surface shows {', '.join(other)}, not only a Principled BSDF"
        if isinstance(res["colour"], probes_surface.Unknown):
            return None, None, f"colour unknown ({res['colour'].reason})"
        colours.append(res["colour"])
        weights.append(ctx["w"])
    return np.concatenate(colours), np.concatenate(weights), ""


@primitive(group="materials", required=("material|object", "expected", "max_delta_e"),
           params={"material": "name", "object": "name", "expected": "colour", "max_delta_e": "tolerance",
                   "source": "colour_source", "min_share": UNIT, "frame": "integer"})
def base_color(probe: Probe, p: dict):
    """The colour the material (``material``, or the first material of ``object``) shows is
    within ``max_delta_e`` (CIEDE2000) of ``expected`` (linear [r, g, b] or sRGB '#rrggbb') on
    >= ``min_share`` (1: every sample) of the area it covers, its node graph evaluated over the surface
    (``probes_surface``).  ``source``: auto (default: the evaluated surface colour), principled
    (the same, and every closure that shows is a Principled BSDF) or viewport (the viewport
    colour, ``diffuse_color``, which must also be opaque: alpha 1)."""
    mat = _material(probe, p)
    expected = colour_math.parse_colour(p["expected"])
    if mat is None:
        return Outcome(0.0, False, None, p["expected"], "material not found", None)
    source = p.get("source", "auto")
    tol = float(p["max_delta_e"])
    if source not in ("auto", "principled", "viewport"):
        raise ValueError(f"unknown colour source {source!r}; use auto, principled or viewport")
    if source == "viewport" or mat.node_tree is None:
        # as evaluated at the graded frame, not as stored (red team 22: a viewport colour keyed
        # magenta from frame 2 read the saved teal at every frame)
        shown = mat.evaluated_get(probe.depsgraph)
        rgb, source = material_colour(shown, "viewport")
        de = colour_math.delta_e_linear(rgb, expected)
        # solid view draws a viewport colour with alpha below 1 see-through (red team 5: alpha 0
        # kept the right RGB and lost the part from every preview)
        alpha = float(shown.diffuse_color[3])
        metal, shader_metal = _viewport_metal(shown)
        detail = f"{mat.name} {source} colour is dE2000 {de:.2f} from expected (max {tol})" + (
            f"; its alpha is {alpha:g}, not 1 (solid view draws it see-through)" if alpha < VIEWPORT_OPAQUE else "") + (
            f"; its viewport Metallic is {metal:g} over the shader's {shader_metal:g} (solid view draws the colour as "
            f"a metal's reflection, dark where no studio light shines)" if metal > shader_metal else "")
        return binary_outcome(de <= tol and alpha >= VIEWPORT_OPAQUE and metal <= shader_metal, rnd(list(rgb)),
                              p["expected"], detail,
                              {"delta_e2000": rnd(de), "source": source, "alpha": rnd(alpha),
                               "viewport_metallic": rnd(metal), "shader_metallic": rnd(shader_metal),
                               "lab": rnd(list(colour_math.linear_to_lab(rgb)))})
    # judged under every production engine's output where they differ (red team 7)
    return probes_surface.worst_over_targets(
        probe.scene, [mat], lambda target: _evaluated_outcome(probe, p, mat, source, target))


def _evaluated_outcome(probe: Probe, p: dict, mat, source: str, target: str) -> Outcome:
    """base_color's verdict on the colour ``mat`` shows under ``target``'s Material Output."""
    expected, tol = colour_math.parse_colour(p["expected"]), float(p["max_delta_e"])
    colours, w, why = _evaluated_colour(probe, p, mat, source == "principled", target)
    if colours is None:
        return Outcome(0.0, False, None, p["expected"], f"{mat.name}: {why}", {"source": source})
    min_share = float(p.get("min_share", probes_surface.MIN_AREA_SHARE))
    share, de = probes_surface.colour_share(colours, w, expected, tol)
    mean = probes_surface._mean_colour(colours, w)
    finite = de[np.isfinite(de)]
    median = float(np.median(finite)) if len(finite) else None
    detail = (f"{mat.name} shows a colour within dE2000 {tol:g} of expected on {share:.3f} of its area "
              f"(min {min_share:g}; median dE {median if median is None else round(median, 2)})")
    return binary_outcome(share >= min_share - probes_surface.SHARE_EPS, rnd(list(mean)) if mean is not None else None, p["expected"], detail,
                          {"delta_e2000": rnd(median), "share": rnd(share), "source": source,
                           "lab": rnd(list(colour_math.linear_to_lab(mean))) if mean is not None else None})


@primitive(group="materials", required=("material|object", "node_types"),
           params={"material": "name", "object": "name", "node_types": "names"})
def material_node_types(probe: Probe, p: dict):
    """The material's node tree contains every listed node type (``type`` such as
    ``TEX_IMAGE`` or ``bl_idname`` such as ``ShaderNodeTexImage``); scores the share found."""
    mat = _material(probe, p)
    wanted = list(p["node_types"])
    if mat is None:
        return Outcome(0.0, False, None, wanted, "material not found", None)
    present = sorted({n.type for n in mat.node_tree.nodes} | {n.bl_idname for n in mat.node_tree.nodes}) \
        if mat.node_tree else []
    missing = [t for t in wanted if t not in present]
    detail = f"{mat.name} has all node types" if not missing else f"{mat.name} lacks: " + ", ".join(missing)
    return fraction_outcome(len(wanted) - len(missing), len(wanted), present, wanted, detail, {"missing": missing})


# --- Principled BSDF values and image textures ---------------------------------------------------


@primitive(group="materials", required=("material|object", "inputs"),
           params={"material": "name", "object": "name",
                   "inputs": {"type": "object", "minProperties": 1,
                              "additionalProperties": {"type": "number", "description": "number"},
                              "description": "{Principled BSDF input name: number}"},
                   "settings": {"type": "object", "minProperties": 1,
                                "additionalProperties": {"type": "string", "minLength": 1},
                                "description": "{Principled BSDF node setting: value} (distribution, "
                                               "subsurface_method)"},
                   "unlinked": "names", "tolerance": "tolerance", "frame": "integer"})
def principled_inputs(probe: Probe, p: dict):
    """The Principled BSDF feeding the material's output (``material``, or the first material
    of ``object``) has each listed scalar input (``inputs`` {name: value}: Metallic, Roughness,
    IOR, Coat Weight, Alpha ...) unlinked and within ``tolerance`` (default 0.01) of its value;
    an input driven by a link counts as off.  Scores the share of inputs that match.  Read on
    the material as a render at ``frame`` (default 1, and every graded frame) evaluates it: a
    keyed or driven value counts as it renders.  ``settings`` {node setting: value}
    (distribution "MULTI_GGX", subsurface_method "RANDOM_WALK"): the node's own menus, which
    change the look as much as an input does; each counts as one more check.  ``unlinked``
    [input names] (Base Color, Alpha ...): inputs a spec wants typed in, whatever their value --
    nothing drives them (red team 20: a Base Color computed to flip in a render's float32, or
    in bands between the grader's sample points); each counts as one more check."""
    probe.at(int(p.get("frame", 1)))
    mat = _material(probe, p)
    if mat is not None:
        try:
            mat = mat.evaluated_get(probe.depsgraph)
        except (RuntimeError, ReferenceError):  # a material no rendered object uses
            pass
    wanted = {k: float(v) for k, v in p["inputs"].items()}
    settings = {k: str(v) for k, v in p.get("settings", {}).items()}
    tol = float(p.get("tolerance", 0.01))
    if mat is None:
        return Outcome(0.0, False, None, {**wanted, **settings}, "material not found", None)
    bsdf = _surface_bsdf(mat)
    if bsdf is None:
        return Outcome(0.0, False, None, {**wanted, **settings},
                       f"{mat.name}: no Principled BSDF feeds the material output", {"off": sorted(wanted) + sorted(settings)})
    measured, off = {}, []
    for key, want in wanted.items():
        socket = bsdf.inputs.get(key)
        if socket is None:
            raise ValueError(f"principled_inputs: the Principled BSDF has no input {key!r}")
        if not isinstance(socket.default_value, (int, float)):
            raise ValueError(f"principled_inputs: input {key!r} is not a single number")
        if socket.is_linked:
            measured[key] = "linked"
            off.append(key)
            continue
        measured[key] = rnd(float(socket.default_value))
        if abs(float(socket.default_value) - want) > tol:
            off.append(key)
    for key, want in settings.items():
        measured[key] = _node_setting(bsdf, key)
        if measured[key] != want:
            off.append(key)
    unlinked = {str(k): "unlinked" for k in p.get("unlinked", ())}
    for key in unlinked:
        socket = bsdf.inputs.get(key)
        if socket is None:
            raise ValueError(f"principled_inputs: the Principled BSDF has no input {key!r}")
        # driven: something reaches it through live links (reroutes and muted nodes followed)
        measured[key] = "linked" if probes_surface.upstream(socket) is not None else "unlinked"
        if measured[key] == "linked":
            off.append(key)
    expected = {**wanted, **settings, **unlinked}
    detail = f"{mat.name}: Principled inputs as specified" if not off else f"{mat.name} off: " + ", ".join(
        f"{k} = {measured[k]} (want {expected[k]:g})" if k in wanted else f"{k} = {measured[k]} (want {expected[k]})"
        for k in off)
    return fraction_outcome(len(expected) - len(off), len(expected), measured, expected, detail, {"off": off})


def _node_setting(node, key: str) -> str:
    """A node's own menu setting (distribution, subsurface_method) as text; a name the node
    does not have is a rubric error."""
    prop = node.bl_rna.properties.get(key)
    if prop is None or prop.type != "ENUM" or key in {"bl_icon", "bl_static_type"}:
        raise ValueError(f"principled_inputs: the Principled BSDF has no setting {key!r}")
    return str(getattr(node, key))


def _upstream_nodes(socket) -> dict:
    """{pointer: node} of every node that feeds ``socket``, directly or through other nodes
    (valid, unmuted links only)."""
    seen, todo = {}, [link.from_node for link in socket.links if link.is_valid and not link.is_muted]
    while todo:
        node = todo.pop()
        if node.as_pointer() in seen:
            continue
        seen[node.as_pointer()] = node
        for inp in node.inputs:
            todo.extend(link.from_node for link in inp.links if link.is_valid and not link.is_muted)
    return seen


@dataclass(frozen=True)
class PaintTarget:
    """Where Texture Paint's strokes on a material land: the image, the UV map they go through
    (None where it cannot be told), what masks them (Mask's stencil, the cavity mask), how read."""

    image: str | None
    uv_map: str | None
    masked: tuple[str, ...]
    how: str


# Texture Paint's own default normal falloff (degrees): a smaller angle fades the strokes on every
# face turned even a little from the view
PAINT_NORMAL_ANGLE_MIN = 80
PAINT_STRENGTH_MIN = 0.1  # a stroke at less changes next to nothing


def _strokes_held_back(paint, users: list) -> tuple[str, ...]:
    """What in Texture Paint's settings keeps the painter's strokes from landing where they are
    made, or lands them elsewhere too (red team 45: the Face Selection mask with no face selected,
    a unified strength of 0, X and Y symmetry painting every stroke on the mirrored planks too,
    Occlude and Backface Culling off painting through to the hidden faces, a normal falloff of 0
    degrees); none in Blender's defaults."""
    out = []
    for obj in users:
        mesh = obj.data
        flags = np.zeros(len(mesh.polygons), dtype=bool)
        mesh.polygons.foreach_get("select", flags)
        selected = int(flags.sum())
        if mesh.use_paint_mask and selected < len(mesh.polygons):
            out.append(f"face selection mask on {obj.name} ({selected} of {len(mesh.polygons)} faces selected)")
        mesh.polygons.foreach_get("hide", flags)
        hidden = int(flags.sum())
        if hidden:
            out.append(f"{hidden} hidden face(s) on {obj.name}")
    unified = paint.unified_paint_settings
    strength = unified.strength if unified.use_unified_strength else (
        paint.brush.strength if paint.brush is not None else 1.0)
    if strength < PAINT_STRENGTH_MIN:
        out.append(f"brush strength {strength:g}" + (" (unified)" if unified.use_unified_strength else ""))
    mirrored = "".join(axis for axis in "xyz" if getattr(paint, f"use_symmetry_{axis}"))
    if mirrored:
        out.append(f"symmetry {mirrored.upper()} (each stroke painted mirrored too)")
    if not paint.use_occlude:
        out.append("Occlude off (strokes go through to hidden faces)")
    if not paint.use_backface_culling:
        out.append("Backface Culling off (strokes land on faces turned away)")
    if paint.use_normal_falloff and paint.normal_angle < PAINT_NORMAL_ANGLE_MIN:  # whole degrees
        out.append(f"normal falloff at {paint.normal_angle} degrees")
    return tuple(out)


def paint_target(probe: Probe, mat) -> PaintTarget:
    """Where Texture Paint paints on ``mat``'s objects: in Single Image mode the scene's canvas,
    whatever the material holds, through the mesh's active UV map; in Material mode the
    material's active paint slot as Blender refreshes the slots on entering Texture Paint -- from
    the node holding the paint-canvas flag, which Python cannot read and which stays on an image
    node when another node is made active -- through the slot's UV map (a UV Map node before its
    image node; the mesh's active map where none: red team 43, a second node on the image fed a
    map with every face stacked); so the probe enters Texture Paint on an object using the
    material and leaves it again.  A Mask (stencil) or cavity mask over the strokes is named:
    red team 43's all-black stencil let no stroke through."""
    paint = probe.scene.tool_settings.image_paint
    users = [o for o in probe.scene.objects if o.type == "MESH" and any(
        slot.material is not None and getattr(slot.material, "original", slot.material) == mat
        for slot in o.material_slots)]
    masked = tuple(name for name, on in (("Mask (stencil)", paint.use_stencil_layer), ("cavity mask", paint.use_cavity))
                   if on) + _strokes_held_back(paint, users)
    active_uv = (users[0].data.uv_layers.active.name
                 if users and users[0].data.uv_layers.active is not None else None)
    if paint.mode == "IMAGE":
        return PaintTarget(paint.canvas.name if paint.canvas is not None else None, active_uv, masked, "single image")
    if not users:
        return PaintTarget(None, None, masked, "no mesh uses the material")
    obj, layer = users[0], bpy.context.view_layer
    before, mode = layer.objects.active, users[0].mode
    layer.objects.active = obj
    try:
        with bpy.context.temp_override(object=obj, active_object=obj):
            bpy.ops.object.mode_set(mode="TEXTURE_PAINT")
            slots = [(image.name, slot.uv_layer)  # the slots and their images run in parallel
                     for image, slot in zip(mat.texture_paint_images, mat.texture_paint_slots, strict=False)]
            slot = mat.paint_active_slot
            bpy.ops.object.mode_set(mode=mode)  # as the file was opened: a later criterion reads it
    except RuntimeError as exc:  # a painter cannot paint it either (hidden in the viewport ...)
        return PaintTarget(None, None, masked, f"{obj.name} cannot enter Texture Paint: {str(exc).splitlines()[-1]}")
    finally:
        layer.objects.active = before
    if not 0 <= slot < len(slots):
        return PaintTarget(None, None, masked, "material slot")
    image, uv = slots[slot]
    return PaintTarget(image, uv or active_uv, masked, "material slot")


@primitive(group="materials", required=("material|object", "image"),
           params={"material": "name", "object": "name", "image": "name", "size": "resolution",
                   "colorspace": "name", "input": "name", "embedded": "bool", "paint_slot": "bool",
                   "paint_uv_map": "name"})
def image_texture(probe: Probe, p: dict):
    """An Image Texture node in the material (``material``, or the first material of ``object``)
    uses the image named ``image``; the optional checks: the image is ``size`` [w, h] pixels,
    its colour space is ``colorspace`` (sRGB, Non-Color ...), it feeds the input ``input``
    (Base Color, Roughness ...) of the Principled BSDF on the material output, directly or
    through other nodes, and with ``embedded: true`` its pixels travel inside the .blend
    (packed, or generated by Blender) instead of an outside file; with ``paint_slot: true`` it is
    the image Texture Paint paints into (``paint_target``: the scene's Single Image canvas, or the
    material's active paint slot as Blender picks it on entering Texture Paint; red team 35: a
    decoy image node, connected to nothing, made active -- every stroke of the painter landed in
    an image no render reads; red team 39: the decoy kept the paint canvas when another node was
    made active, and a Single Image canvas), no Mask (stencil) or cavity mask over the strokes,
    and, with ``paint_uv_map``, the strokes go through that UV map (red team 43).  Scores the
    share of checks met (finding the node is the first)."""
    mat = _material(probe, p)
    wanted = p["image"]
    checks = ["node"] + [k for k in ("size", "colorspace", "input", "embedded", "paint_slot") if k in p]
    expected = {"image": wanted, **{k: p[k] for k in checks[1:]}}
    if mat is None:
        return Outcome(0.0, False, None, expected, "material not found", {"off": checks})
    nodes = [n for n in mat.node_tree.nodes if n.type == "TEX_IMAGE"] if mat.node_tree else []
    used = sorted({n.image.name for n in nodes if n.image is not None})
    node = next((n for n in nodes if n.image is not None and n.image.name == wanted), None)
    if node is None:
        return fraction_outcome(0, len(checks), {"images": used}, expected,
                                f"{mat.name}: no Image Texture node uses {wanted!r} (images: {used})", {"off": checks})
    img = node.image
    measured = {"images": used, "size": list(img.size), "colorspace": img.colorspace_settings.name,
                "source": img.source, "packed": img.packed_file is not None}
    off = []
    if "size" in p and list(img.size) != [int(v) for v in p["size"]]:
        off.append("size")
    if "colorspace" in p and img.colorspace_settings.name != p["colorspace"]:
        off.append("colorspace")
    if "input" in p:
        bsdf = _surface_bsdf(mat)
        socket = bsdf.inputs.get(p["input"]) if bsdf is not None else None
        if bsdf is not None and socket is None:
            raise ValueError(f"image_texture: the Principled BSDF has no input {p['input']!r}")
        feeds = socket is not None and node.as_pointer() in _upstream_nodes(socket)
        measured["feeds_input"] = feeds
        if not feeds:
            off.append("input")
    if "embedded" in p:
        embedded = img.packed_file is not None or img.source == "GENERATED"
        measured["embedded"] = embedded
        if embedded is not bool(p["embedded"]):
            off.append("embedded")
    if p.get("paint_slot"):
        target = paint_target(probe, mat)
        measured.update({"paint_slot": target.image, "paint_mode": target.how, "paint_uv_map": target.uv_map,
                         "paint_masked": list(target.masked)})
        other_map = bool(p.get("paint_uv_map")) and target.uv_map != p["paint_uv_map"]
        if target.image != wanted or target.masked or other_map:
            off.append("paint_slot" + (f" (masked: {', '.join(target.masked)})" if target.masked else "")
                       + (f" (through UV map {target.uv_map!r})" if other_map else ""))
    detail = f"{mat.name}: image {wanted!r} as specified" if not off else f"{mat.name}: image {wanted!r} off: " + \
        ", ".join(off)
    return fraction_outcome(len(checks) - len(off), len(checks), measured, expected, detail, {"off": off})
