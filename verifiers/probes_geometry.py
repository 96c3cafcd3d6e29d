"""Probe group: geometry (dimensions, placement, contact, element counts, manifold, normals).
Runs in bpy; measured on the evaluated mesh in world space."""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # standalone: siblings only
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from probe_core import (  # noqa: E402
    Probe, aabb_gap, aabb_size, binary_outcome, fraction_outcome, names_param, primitive, rnd,
)


@primitive(group="geometry", required=("object|objects", "expected", "tolerance"),
           params={"object": "name", "objects": "names", "expected": "vec3", "tolerance": "tolerance",
                   "frame": "integer"})
def dimensions(probe: Probe, p: dict):
    """The (union) world AABB size is within ``tolerance`` of ``expected`` on every axis."""
    names, expected, tol = names_param(p), [float(v) for v in p["expected"]], float(p["tolerance"])
    size = aabb_size(probe.union_aabb(probe.objects(names), int(p.get("frame", 1))))
    errors = [abs(s - e) for s, e in zip(size, expected)]
    ok = all(e <= tol for e in errors)
    detail = f"world AABB size of {', '.join(names)}; max axis error {max(errors):.4f} (tolerance {tol})"
    return binary_outcome(ok, rnd(size), expected, detail, {"axis_errors": rnd(errors)})


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
    """Each object's world AABB lies inside its region {name: {min, max}}."""
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
