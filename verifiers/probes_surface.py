"""Probe group: surface (materials, measured as they reach the rendered surface).  Runs in bpy
(stdlib + bpy + numpy only).

``material_assigned`` / ``base_color`` judge a material by its name in any slot and its
colour from the Principled BSDF or the viewport fallback.  These probes measure what the
renderer uses instead:

- ``material_on_faces``: the share of an object's evaluated face area that uses the material
  (face ``material_index`` -> the evaluated object's slot, link OBJECT or DATA as set; an index
  past the last slot takes the last slot, as Blender renders it).
- ``surface_shader``: the shader node that reaches the Surface input of the material output the
  render engine uses, its effective base colour (resolved through RGB, Image Texture and Mix
  nodes), emission, alpha and transmission.
- ``texture_influence``: how much an image texture can still reach a Principled input, with
  each Mix on the way weighted by its factor.

The material output is chosen as Blender does for the scene's render engine (CYCLES, else
EEVEE): an output targeting that engine before one targeting ALL, an active one before an
inactive one.  Links that are muted, invalid or into unavailable sockets do not count; a muted
node passes its internal links through.
"""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # standalone: siblings only
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy  # noqa: E402
import numpy as np  # noqa: E402

import colour_math  # noqa: E402
from probe_core import (  # noqa: E402
    NAME, NAMES, GEOMETRY_TYPES, Outcome, Probe, binary_outcome, fraction_outcome, names_param, primitive, rnd,
)

# --- param types (literals: admission reads them with ast) ---------------------------------------

UNIT = {"type": "number", "minimum": 0, "maximum": 1, "description": "number 0..1"}
SHADER_TYPES = {"anyOf": [NAME, NAMES],
                "description": "a shader node type (BSDF_PRINCIPLED, EMISSION, MIX_SHADER ...) or a list of them"}

# Nested Mix / Add shaders followed at most this deep (a node tree is a DAG; this bounds the work).
MAX_DEPTH = 32
# Image textures larger than this many pixels are averaged on a scaled-down copy.
MAX_PIXELS = 2048 * 2048


class Unknown:
    """A value the node graph does not determine statically (why, for the report)."""

    def __init__(self, reason: str):
        self.reason = reason

    def __repr__(self) -> str:
        return f"Unknown({self.reason!r})"


def _known(*values) -> bool:
    return not any(isinstance(v, Unknown) for v in values)


# --- node graph -------------------------------------------------------------------------------


def engine_target(scene: bpy.types.Scene) -> str:
    """The Material Output target the scene's render engine reads: CYCLES or EEVEE."""
    return "CYCLES" if scene.render.engine == "CYCLES" else "EEVEE"


def active_output(mat: bpy.types.Material, target: str):
    """The Material Output node ``target`` renders (Blender's rule: an exact target before ALL,
    an active output before an inactive one, else the first); None when there is none."""
    tree = mat.node_tree if mat is not None else None
    if tree is None:
        return None
    best, best_rank = None, None
    for node in tree.nodes:
        if node.type != "OUTPUT_MATERIAL" or node.mute or node.target not in ("ALL", target):
            continue
        rank = (node.target == target, bool(node.is_active_output))
        if best is None or rank > best_rank:
            best, best_rank = node, rank
    return best


def _live_links(socket) -> list:
    """Links into ``socket`` that Blender evaluates."""
    if not socket.enabled:
        return []
    return [link for link in socket.links
            if link.is_valid and not link.is_muted and link.from_socket.enabled]


def upstream(socket):
    """(node, output socket) feeding ``socket``, through reroutes and muted nodes' internal
    links; None when nothing does."""
    for _ in range(256):  # a chain of reroutes is finite; this only guards against a cycle
        links = _live_links(socket)
        if not links:
            return None
        node, out = links[0].from_node, links[0].from_socket
        if node.type == "REROUTE":
            socket = node.inputs[0]
        elif node.mute:
            through = next((il for il in node.internal_links if il.to_socket == out), None)
            if through is None:
                return None
            socket = through.from_socket
        else:
            return node, out
    return None


def _input(node, name: str):
    """An enabled input called ``name`` (by identifier first, then by name)."""
    for sock in node.inputs:
        if sock.identifier == name and sock.enabled:
            return sock
    return next((s for s in node.inputs if s.name == name and s.enabled), None)


def _fac(sock, clamp: bool = True):
    """An unlinked factor's value (a vector factor: its mean), else Unknown."""
    if sock is None:
        return Unknown("no factor")
    if _live_links(sock):
        return Unknown("linked factor")
    value = sock.default_value
    f = float(sum(value) / len(value)) if hasattr(value, "__len__") else float(value)
    return min(1.0, max(0.0, f)) if clamp else f


# --- values and colours ------------------------------------------------------------------------

_IMAGE_MEANS: dict[int, object] = {}
# sRGB byte levels -> linear, from colour_math (a byte image's pixels are quantised to 1/255)
_SRGB_LUT = np.array([colour_math.srgb_to_linear(i / 255) for i in range(256)], dtype=np.float64)


def image_mean(img) -> tuple[float, float, float] | Unknown:
    """Mean linear RGB of the image's pixels (a byte image in sRGB is linearised per pixel)."""
    if img is None:
        return Unknown("an Image Texture without an image")
    key = img.as_pointer()
    if key not in _IMAGE_MEANS:
        _IMAGE_MEANS[key] = _image_mean(img)
    return _IMAGE_MEANS[key]


def _image_mean(img):
    source = img
    w, h = img.size
    if w * h == 0:
        return Unknown(f"image {img.name!r} has no pixels")
    copy = None
    if w * h > MAX_PIXELS:  # a box-filtered scaled copy keeps the mean
        copy = img.copy()
        scale = (MAX_PIXELS / (w * h)) ** 0.5
        copy.scale(max(1, int(w * scale)), max(1, int(h * scale)))
        source = copy
    try:
        channels = source.channels
        flat = np.empty(len(source.pixels), dtype=np.float32)
        source.pixels.foreach_get(flat)
    finally:
        if copy is not None:
            bpy.data.images.remove(copy)
    if not len(flat) or channels < 1:
        return Unknown(f"image {img.name!r} has no pixels")
    px = flat.reshape(-1, channels).astype(np.float64)
    rgb = px[:, :3] if channels >= 3 else np.repeat(px[:, :1], 3, axis=1)
    if img.colorspace_settings.name == "sRGB" and not img.is_float:
        rgb = _SRGB_LUT[np.clip(np.rint(rgb * 255), 0, 255).astype(np.int64)]
    return tuple(float(v) for v in rgb.mean(axis=0))


def _lerp(a, b, f: float):
    return tuple(x + (y - x) * f for x, y in zip(a, b))


_BLENDS = {
    "MIX": lambda a, b: b,
    "MULTIPLY": lambda a, b: tuple(x * y for x, y in zip(a, b)),
    "ADD": lambda a, b: tuple(x + y for x, y in zip(a, b)),
    "SUBTRACT": lambda a, b: tuple(x - y for x, y in zip(a, b)),
    "DARKEN": lambda a, b: tuple(min(x, y) for x, y in zip(a, b)),
    "LIGHTEN": lambda a, b: tuple(max(x, y) for x, y in zip(a, b)),
    "SCREEN": lambda a, b: tuple(1 - (1 - x) * (1 - y) for x, y in zip(a, b)),
}


def colour_of(socket, depth: int = 0):
    """Linear RGB a colour input receives, or Unknown: its default when unlinked; through RGB
    nodes, Image Textures (mean of the pixels), colour Mix / MixRGB nodes with an unlinked
    factor, reroutes and muted nodes."""
    if not _live_links(socket):
        value = socket.default_value
        return tuple(float(v) for v in value[:3]) if hasattr(value, "__len__") else (float(value),) * 3
    found = upstream(socket)
    if found is None:
        return Unknown("colour cannot be resolved from a muted node")
    node, out = found
    if depth > MAX_DEPTH:
        return Unknown(f"colour cannot be resolved from {node.type} (too deep)")
    if node.type == "RGB":
        return tuple(float(v) for v in out.default_value[:3])
    if node.type == "TEX_IMAGE" and out.name == "Color":
        return image_mean(node.image)
    mix = _mix_inputs(node)
    if mix is not None and (node.type == "MIX_RGB" or node.data_type == "RGBA"):
        fac_sock, a_sock, b_sock, blend = mix
        f = _fac(fac_sock)
        if isinstance(f, Unknown):
            return Unknown(f"colour cannot be resolved from {node.type} with a linked factor")
        if blend not in _BLENDS:
            return Unknown(f"colour cannot be resolved from {node.type} (blend {blend})")
        a, b = colour_of(a_sock, depth + 1), colour_of(b_sock, depth + 1)
        if not _known(a, b):
            return a if isinstance(a, Unknown) else b
        rgb = _lerp(a, _BLENDS[blend](a, b), f)
        clamp = node.use_clamp if node.type == "MIX_RGB" else node.clamp_result
        return tuple(min(1.0, max(0.0, v)) for v in rgb) if clamp else rgb
    return Unknown(f"colour cannot be resolved from {node.type}")


def value_of(socket):
    """The number a scalar input receives: its default when unlinked, a Value node's value
    (through reroutes); else Unknown."""
    if not _live_links(socket):
        return float(socket.default_value)
    found = upstream(socket)
    if found is not None and found[0].type == "VALUE":
        return float(found[1].default_value)
    return Unknown(f"value cannot be resolved from {found[0].type if found else 'a muted node'}")


def _mix_inputs(node):
    """(factor, A, B, blend type) of a Mix (ShaderNodeMix) or legacy MixRGB node, else None."""
    if node.type == "MIX":
        fac = _input(node, "Factor_Float") or _input(node, "Factor_Vector")
        kind = {"RGBA": "Color", "FLOAT": "Float", "VECTOR": "Vector", "ROTATION": "Rotation"}.get(node.data_type)
        a, b = _input(node, f"A_{kind}"), _input(node, f"B_{kind}")
        blend = node.blend_type if node.data_type == "RGBA" else "MIX"
        return (fac, a, b, blend) if a is not None and b is not None else None
    if node.type == "MIX_RGB":
        return node.inputs[0], node.inputs[1], node.inputs[2], node.blend_type  # Fac, Color1, Color2
    return None


# --- the shader on the surface ------------------------------------------------------------------

KEYS = ("base_color", "emission", "alpha", "transmission")
# shader nodes whose light passes through the surface (refraction), by type
TRANSMISSIVE = {"BSDF_GLASS", "BSDF_REFRACTION"}
NOT_SHADERS = {"GROUP", "EEVEE_SPECULAR"}


def _emission(strength, colour):
    if isinstance(strength, Unknown):
        return Unknown("emission strength " + strength.reason)
    if strength == 0:
        return 0.0
    if isinstance(colour, Unknown):
        return Unknown("emission colour: " + colour.reason)
    return strength * max(colour)


def shader_props(node, depth: int = 0) -> dict:
    """{base_color, emission, alpha, transmission} of the shader ``node`` (each a value or
    Unknown).  Mix Shader blends its inputs by an unlinked factor; Add Shader sums emission."""
    t = node.type
    if t == "BSDF_PRINCIPLED":
        return {"base_color": colour_of(node.inputs["Base Color"]),
                "emission": _emission(value_of(node.inputs["Emission Strength"]),
                                      colour_of(node.inputs["Emission Color"])),
                "alpha": value_of(node.inputs["Alpha"]),
                "transmission": value_of(node.inputs["Transmission Weight"])}
    if t == "EMISSION":
        colour = colour_of(node.inputs["Color"])
        return {"base_color": colour, "emission": _emission(value_of(node.inputs["Strength"]), colour),
                "alpha": 1.0, "transmission": 0.0}
    if t in ("MIX_SHADER", "ADD_SHADER"):
        if depth >= MAX_DEPTH:
            return {k: Unknown(f"{t} nested too deep") for k in KEYS}
        sides = [_side(s, depth) for s in node.inputs if s.type == "SHADER"][:2]
        if t == "ADD_SHADER":
            em = [s["emission"] for s in sides]
            return {"base_color": Unknown("base colour of ADD_SHADER is not defined"),
                    "emission": sum(em) if _known(*em) else next(e for e in em if isinstance(e, Unknown)),
                    "alpha": Unknown("alpha of ADD_SHADER is not defined"),
                    "transmission": Unknown("transmission of ADD_SHADER is not defined")}
        f = value_of(node.inputs[0])
        if isinstance(f, Unknown):
            return {k: Unknown(f"MIX_SHADER factor: {f.reason}") for k in KEYS}
        f = min(1.0, max(0.0, f))
        out = {}
        for key in KEYS:
            a, b = sides[0][key], sides[1][key]
            if f == 0 or f == 1:  # only one side shows
                out[key] = a if f == 0 else b
            elif not _known(a, b):
                out[key] = a if isinstance(a, Unknown) else b
            else:
                out[key] = _lerp(a, b, f) if key == "base_color" else a + (b - a) * f
        return out
    if t in NOT_SHADERS or not any(o.type == "SHADER" for o in node.outputs):
        return {k: Unknown(f"{k.replace('_', ' ')} of {t} is not known") for k in KEYS}
    colour_in = node.inputs.get("Base Color") or node.inputs.get("Color")
    return {"base_color": colour_of(colour_in) if colour_in is not None else Unknown(f"{t} has no colour input"),
            "emission": 0.0,
            "alpha": 0.0 if t in ("BSDF_TRANSPARENT", "HOLDOUT") else 1.0,
            "transmission": 1.0 if t in TRANSMISSIVE else 0.0}


def _side(socket, depth: int) -> dict:
    """Props of what a Mix / Add shader input receives; an empty input is black and opaque."""
    found = upstream(socket)
    if found is None:
        return {"base_color": (0.0, 0.0, 0.0), "emission": 0.0, "alpha": 1.0, "transmission": 0.0}
    return shader_props(found[0], depth + 1)


def surface_node(mat: bpy.types.Material, target: str):
    """(shader node reaching the Surface of the active output or None, why not)."""
    if mat is None:
        return None, "no material"
    out = active_output(mat, target)
    if out is None:
        return None, f"{mat.name}: no Material Output for {target}"
    found = upstream(out.inputs["Surface"])
    if found is None:
        return None, f"{mat.name}: nothing reaches the Surface of {out.name!r}"
    return found[0], ""


def _hex(rgb) -> str:
    return "#" + "".join(f"{round(min(1.0, max(0.0, colour_math.linear_to_srgb(c))) * 255):02x}" for c in rgb)


# --- faces -------------------------------------------------------------------------------------


def face_materials(probe: Probe, obj: bpy.types.Object, frame: int) -> list[dict]:
    """[{slot, material, faces, area}] for each slot used by a face of the evaluated mesh at
    ``frame`` (world-space area; ``material`` None for an empty slot or no slots)."""
    if obj.type not in GEOMETRY_TYPES:
        return []
    probe.at(frame)
    ev = obj.evaluated_get(probe.depsgraph)
    mesh = ev.to_mesh()
    if mesh is None:
        return []
    try:
        mesh.calc_loop_triangles()
        nt, nv = len(mesh.loop_triangles), len(mesh.vertices)
        if not nt:
            return []
        co = np.empty(3 * nv, dtype=np.float64)
        mesh.vertices.foreach_get("co", co)
        tris = np.empty(3 * nt, dtype=np.int64)
        mesh.loop_triangles.foreach_get("vertices", tris)
        index = np.empty(nt, dtype=np.int64)
        mesh.loop_triangles.foreach_get("material_index", index)
        poly = np.empty(nt, dtype=np.int64)
        mesh.loop_triangles.foreach_get("polygon_index", poly)
        m = np.array(ev.matrix_world, dtype=np.float64)
        world = co.reshape(-1, 3) @ m[:3, :3].T + m[:3, 3]
        t = world[tris.reshape(-1, 3)]
        area = 0.5 * np.linalg.norm(np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]), axis=1)
    finally:
        ev.to_mesh_clear()
    slots = list(ev.material_slots)
    index = np.clip(index, 0, max(len(slots) - 1, 0))  # Blender renders a too-high index with the last slot
    out = []
    for slot in np.unique(index):
        chosen = index == slot
        mat = slots[slot].material if slots else None
        out.append({"slot": int(slot), "material": mat, "faces": int(len(np.unique(poly[chosen]))),
                    "area": float(area[chosen].sum())})
    return out


def _frame(p: dict) -> int:
    return int(p.get("frame", 1))


def _label(mat) -> str:
    return mat.name if mat is not None else "<none>"


@primitive(group="materials", required=("object|objects", "material"),
           params={"object": "name", "objects": "names", "material": "name", "min_share": UNIT,
                   "frame": "integer"})
def material_on_faces(probe: Probe, p: dict):
    """The material covers at least ``min_share`` (0.999) of each object's evaluated face area."""
    names, wanted = names_param(p), p["material"]
    min_share = float(p.get("min_share", 0.999))
    shares, breakdown = {}, {}
    for obj in probe.objects(names):
        used = face_materials(probe, obj, _frame(p))
        total = sum(u["area"] for u in used)
        mine = sum(u["area"] for u in used if u["material"] is not None and u["material"].name == wanted)
        shares[obj.name] = rnd(mine / total) if total > 0 else 0.0
        per: dict[str, float] = {}
        for u in used:
            per[_label(u["material"])] = per.get(_label(u["material"]), 0.0) + (u["area"] / total if total else 0.0)
        breakdown[obj.name] = rnd(per)
    bad = [n for n in names if shares[n] < min_share]
    detail = (f"{wanted!r} covers >= {min_share:g} of every object's faces" if not bad else
              f"{wanted!r} covers too little of: " + ", ".join(f"{n} ({shares[n]:.3f})" for n in bad))
    return fraction_outcome(len(names) - len(bad), len(names), shares, {"material": wanted, "min_share": min_share},
                            detail, {"share_by_material": breakdown, "below": bad})


# --- surface_shader ------------------------------------------------------------------------------


def _materials_for(probe: Probe, p: dict) -> tuple[list, str]:
    """(materials to judge, why none): ``material`` by name, or every material on a face of
    ``object`` (None for faces without one)."""
    if "material" in p:
        mat = bpy.data.materials.get(p["material"])
        return ([mat], "") if mat is not None else ([], f"material {p['material']!r} not found")
    obj = probe.obj(p["object"])
    used = face_materials(probe, obj, _frame(p))
    mats, seen = [], set()
    for u in used:
        key = _label(u["material"])
        if key not in seen:
            seen.add(key)
            mats.append(u["material"])
    return mats, "" if mats else f"{obj.name} has no faces"


def _shader_wanted(p: dict) -> list[str]:
    return [p["shader"]] if isinstance(p["shader"], str) else list(p["shader"])


@primitive(group="materials", required=("material|object", "shader"),
           params={"material": "name", "object": "name", "shader": SHADER_TYPES, "base_color": "colour",
                   "max_delta_e": "tolerance", "max_emission": "tolerance", "min_alpha": UNIT,
                   "max_transmission": UNIT, "frame": "integer"})
def surface_shader(probe: Probe, p: dict):
    """The shader on the active output's Surface is a listed type and meets the colour / emission / alpha checks."""
    shaders = _shader_wanted(p)
    checks = ["shader"] + [k for k in ("base_color", "max_emission", "min_alpha", "max_transmission") if k in p]
    expected = {k: p[k] for k in ("shader", "base_color", "max_delta_e", "max_emission", "min_alpha",
                                  "max_transmission") if k in p}
    if "base_color" in p:
        expected.setdefault("max_delta_e", 3.0)
    mats, why = _materials_for(probe, p)
    if not mats:
        return fraction_outcome(0, len(checks), None, expected, why, {"failed": checks})
    target = engine_target(probe.scene)
    measured, failed, reasons = {}, [], []
    for mat in mats:
        m, off, notes = _judge_surface(mat, target, shaders, p)
        measured[_label(mat)] = m
        for key in off:
            if key not in failed:
                failed.append(key)
        reasons += [f"{_label(mat)}: {n}" for n in notes]
    failed = [c for c in checks if c in failed]
    if "material" in p:
        measured = measured[_label(mats[0])]
    detail = ("surface shader as specified" if not failed else "; ".join(reasons))
    return fraction_outcome(len(checks) - len(failed), len(checks), measured, expected, detail,
                            {"failed": failed, "target": target, "materials": [_label(m) for m in mats]})


def _judge_surface(mat, target: str, shaders: list[str], p: dict) -> tuple[dict, list[str], list[str]]:
    """(measured, failed checks, reasons) for one material."""
    checks = ["shader"] + [k for k in ("base_color", "max_emission", "min_alpha", "max_transmission") if k in p]
    node, why = surface_node(mat, target)
    if node is None:
        return {"shader": None}, checks, [why]
    props = shader_props(node)
    rgb = props["base_color"]
    m = {"shader": node.type, "node": node.name,
         "base_color": rnd(list(rgb)) if _known(rgb) else None,
         "base_color_hex": _hex(rgb) if _known(rgb) else None}
    for key in ("emission", "alpha", "transmission"):
        m[key] = rnd(props[key]) if _known(props[key]) else None
    unresolved = {k: v.reason for k, v in props.items() if isinstance(v, Unknown)}
    if unresolved:
        m["unresolved"] = unresolved
    off, notes = [], []
    if node.type not in shaders and node.bl_idname not in shaders:
        off.append("shader")
        notes.append(f"surface is {node.type}, not {' or '.join(shaders)}")
    if "base_color" in p:
        tol = float(p.get("max_delta_e", 3.0))
        if isinstance(rgb, Unknown):
            off.append("base_color")
            notes.append(rgb.reason)
        else:
            de = colour_math.delta_e_linear(rgb, colour_math.parse_colour(p["base_color"]))
            m["delta_e2000"] = rnd(de)
            if de > tol:
                off.append("base_color")
                notes.append(f"base colour {_hex(rgb)} is dE2000 {de:.2f} from expected (max {tol:g})")
    bounds = (("max_emission", "emission", lambda v, b: v <= b, "above"),
              ("min_alpha", "alpha", lambda v, b: v >= b, "below"),
              ("max_transmission", "transmission", lambda v, b: v <= b, "above"))
    for check, key, ok, word in bounds:
        if check not in p:
            continue
        value = props[key]
        if isinstance(value, Unknown):
            off.append(check)
            notes.append(value.reason)
        elif not ok(value, float(p[check])):
            off.append(check)
            notes.append(f"{key} {value:.4g} is {word} {float(p[check]):g}")
    return m, off, notes


# --- texture_influence ---------------------------------------------------------------------------

# pass-through nodes: {type: name or identifier of the input that carries the colour through}
PASS_THROUGH = {"HUE_SAT": "Color", "BRIGHTCONTRAST": "Color", "GAMMA": "Color", "CURVE_RGB": "Color",
                "SEPARATE_COLOR": "Color"}
OTHER_WEIGHT = 0.5


def _routes(node, out) -> list[tuple]:
    """[(input socket, weight, note)] by which ``node``'s output ``out`` passes its inputs on."""
    if node.mute:
        return [(il.from_socket, 1.0, "muted") for il in node.internal_links if il.to_socket == out]
    t = node.type
    if t == "REROUTE":
        return [(node.inputs[0], 1.0, "")]
    mix = _mix_inputs(node)
    if mix is not None:
        fac_sock, a, b, blend = mix
        f = _fac(fac_sock)
        if isinstance(f, Unknown):
            return [(a, OTHER_WEIGHT, "linked factor"), (b, OTHER_WEIGHT, "linked factor")]
        # MIX: result = A (1 - f) + B f; other blends keep A in both terms: A carries through
        return [(a, 1.0 - f if blend == "MIX" else 1.0, f"factor {f:g}"), (b, f, f"factor {f:g}")]
    if t in PASS_THROUGH:
        sock = _input(node, PASS_THROUGH[t])
        return [(sock, 1.0, "")] if sock is not None else []
    if t == "INVERT":
        f = _fac(_input(node, "Fac") or _input(node, "Factor"))
        # result = lerp(c, 1 - c, f): at f = 0.5 every colour is grey 0.5
        return [(_input(node, "Color"), OTHER_WEIGHT if isinstance(f, Unknown) else abs(1.0 - 2.0 * f), "")]
    if t == "COMBINE_COLOR":
        return [(s, 1.0, "") for s in node.inputs if s.enabled]
    return [(s, OTHER_WEIGHT, "other") for s in node.inputs if s.enabled]


def best_influence(socket, wanted: str | None) -> tuple[float, list[dict]]:
    """(best influence of the image on ``socket`` over every path, that path's steps; no steps
    when no path reaches the image at all)."""
    memo: dict[tuple[int, str], tuple[float, list[dict]]] = {}

    def via_socket(sock, stack: frozenset) -> tuple[float, list[dict]]:
        links = _live_links(sock) if sock is not None else []
        if not links:
            return 0.0, []
        return via_output(links[0].from_node, links[0].from_socket, stack)

    def via_output(node, out, stack: frozenset) -> tuple[float, list[dict]]:
        key = (node.as_pointer(), out.identifier)
        if key in memo:
            return memo[key]
        if key in stack or len(stack) > 256:
            return 0.0, []
        if (node.type == "TEX_IMAGE" and not node.mute and node.image is not None
                and (wanted is None or node.image.name == wanted)):
            result = (1.0, [{"node": node.name, "type": node.type, "image": node.image.name}])
        else:  # a path of influence 0 is kept (as evidence of where the image is cut off)
            result = (0.0, [])
            for sock, weight, note in _routes(node, out):
                got, path = via_socket(sock, stack | {key})
                if path and (not result[1] or got * weight > result[0]):
                    step = {"node": node.name, "type": node.type, "input": sock.name, "weight": rnd(weight)}
                    if note:
                        step["note"] = note
                    result = (got * weight, [step] + path)
        memo[key] = result
        return result

    return via_socket(socket, frozenset())


def _first_material(probe: Probe, p: dict):
    if "material" in p:
        mat = bpy.data.materials.get(p["material"])
        return mat, "" if mat is not None else f"material {p['material']!r} not found"
    obj = probe.obj(p["object"])
    used = [u for u in face_materials(probe, obj, _frame(p)) if u["material"] is not None]
    if not used:
        return None, f"{obj.name} has no material on its faces"
    return min(used, key=lambda u: u["slot"])["material"], ""


@primitive(group="materials", required=("material|object",),
           params={"material": "name", "object": "name", "image": "name", "input": "name",
                   "min_influence": UNIT, "frame": "integer"})
def texture_influence(probe: Probe, p: dict):
    """The image reaches the Principled input with a factor-weighted influence >= ``min_influence`` (0.5)."""
    wanted, input_name = p.get("image"), p.get("input", "Base Color")
    min_influence = float(p.get("min_influence", 0.5))
    expected = {"image": wanted, "input": input_name, "min_influence": min_influence}
    mat, why = _first_material(probe, p)
    if mat is None:
        return binary_outcome(False, None, expected, why)
    node, why = surface_node(mat, engine_target(probe.scene))
    if node is None or node.type != "BSDF_PRINCIPLED":
        why = why or f"{mat.name}: the surface is {node.type}, not a Principled BSDF"
        return binary_outcome(False, None, expected, why, {"material": mat.name})
    socket = node.inputs.get(input_name)
    if socket is None:
        raise ValueError(f"texture_influence: the Principled BSDF has no input {input_name!r}")
    images = sorted({n.image.name for n in mat.node_tree.nodes if n.type == "TEX_IMAGE" and n.image is not None})
    influence, path = best_influence(socket, wanted)
    others = [s["node"] for s in path if s.get("note") == "other"]
    evidence = {"material": mat.name, "path": path, "images": images, "other_nodes": others}
    what = repr(wanted) if wanted else "an image"
    if not path:
        detail = f"{mat.name}: {what} does not reach {input_name!r} (images: {images})"
    elif influence <= 0:
        cut = [s["node"] for s in path if s.get("weight") == 0]
        detail = f"{mat.name}: {what} reaches {input_name!r} only with weight 0 at " + ", ".join(cut)
    else:
        detail = f"{mat.name}: {what} reaches {input_name!r} with influence {influence:.3f} (min {min_influence:g})"
        if others:
            detail += "; counted 0.5 through " + ", ".join(others)
    return binary_outcome(influence >= min_influence, rnd(influence), expected, detail, evidence)
