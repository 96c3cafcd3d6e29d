"""Probe group: materials (assigned, base colour within a CIEDE2000 distance, node types).
Runs in bpy."""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # standalone: siblings only
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy  # noqa: E402

import colour  # noqa: E402
from probe_core import (  # noqa: E402
    Outcome, Probe, binary_outcome, fraction_outcome, names_param, primitive, rnd,
)


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
    """The Principled BSDF feeding the active material output's Surface, if any."""
    tree = mat.node_tree
    if tree is None:
        return None
    outputs = [n for n in tree.nodes if n.type == "OUTPUT_MATERIAL"]
    active = next((n for n in outputs if n.is_active_output), outputs[0] if outputs else None)
    if active is None or not active.inputs["Surface"].is_linked:
        return None
    node = active.inputs["Surface"].links[0].from_node
    return node if node.type == "BSDF_PRINCIPLED" else None


def material_colour(mat: bpy.types.Material, source: str = "auto") -> tuple[tuple[float, float, float], str]:
    """(linear RGB, where it came from).  ``auto``: the Principled BSDF's unlinked Base Color
    when a Principled BSDF feeds the output, else the viewport colour (``diffuse_color``)."""
    if source not in ("auto", "principled", "viewport"):
        raise ValueError(f"unknown colour source {source!r}; use auto, principled or viewport")
    if source in ("auto", "principled"):
        bsdf = _surface_bsdf(mat)
        base = bsdf.inputs["Base Color"] if bsdf is not None else None
        if base is not None and not base.is_linked:
            return tuple(float(v) for v in base.default_value[:3]), "principled"
        if source == "principled":
            return None, "no unlinked Principled Base Color"
    return tuple(float(v) for v in mat.diffuse_color[:3]), "viewport"


def _material(probe: Probe, p: dict) -> bpy.types.Material | None:
    if "material" in p:
        return bpy.data.materials.get(p["material"])
    obj = probe.obj(p["object"])
    slot = next((s for s in obj.material_slots if s.material), None)
    return slot.material if slot else None


@primitive(group="materials", required=("material|object", "expected", "max_delta_e"),
           params={"material": "name", "object": "name", "expected": "colour", "max_delta_e": "tolerance",
                   "source": "colour_source"})
def base_color(probe: Probe, p: dict):
    """The material's base colour (``material``, or the first material of ``object``) is within
    ``max_delta_e`` (CIEDE2000) of ``expected``: linear [r, g, b] or sRGB '#rrggbb'.
    ``source``: auto (default), principled or viewport."""
    mat = _material(probe, p)
    expected = colour.parse_colour(p["expected"])
    if mat is None:
        return Outcome(0.0, False, None, p["expected"], "material not found", None)
    rgb, source = material_colour(mat, p.get("source", "auto"))
    if rgb is None:
        return Outcome(0.0, False, None, p["expected"], f"{mat.name}: {source}", None)
    de = colour.delta_e_linear(rgb, expected)
    tol = float(p["max_delta_e"])
    detail = f"{mat.name} {source} colour is dE2000 {de:.2f} from expected (max {tol})"
    return binary_outcome(de <= tol, rnd(list(rgb)), p["expected"], detail,
                          {"delta_e2000": rnd(de), "source": source, "lab": rnd(list(colour.linear_to_lab(rgb)))})


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
