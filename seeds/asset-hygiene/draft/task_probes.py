"""Task probe of asset-hygiene: the props' raw data is their world geometry (runs in bpy).

The simulator the props go to reads raw transforms and mesh data, so "rotation and scale
applied" is measured on what it would read against what Blender shows: an object whose own
transform carries no rotation or scale, but whose parent, constraint or modifier turns or
scales it, looks applied in the N panel and is not.
"""

from __future__ import annotations

import numpy as np

from probe_core import Outcome, names_param, primitive, rnd


@primitive(required=("object|objects",),
           params={"object": "name", "objects": "names", "tolerance": "tolerance", "frame": "integer"})
def raw_matches_world(probe, p):
    """Each mesh object's raw data -- its own location plus its mesh data's vertex coordinates,
    what a tool reading raw transforms and mesh data takes for the prop when rotation and scale
    are applied -- is where Blender shows the prop: the evaluated mesh has the same vertices, each
    within ``tolerance`` (default 1e-4 m) of its evaluated world position at ``frame`` (default
    1).  An unapplied rotation or scale, a parent, constraint or delta transform that moves, turns
    or scales the object, or a modifier that changes its vertices all fail.  Scores the share of
    objects that pass."""
    names, frame, tol = names_param(p), int(p.get("frame", 1)), float(p.get("tolerance", 1e-4))
    measured, off = {}, {}
    for obj in probe.objects(names):
        if obj.type != "MESH":
            measured[obj.name], off[obj.name] = None, f"a {obj.type}, not a mesh"
            continue
        world = probe.mesh_arrays(obj, frame)
        raw = np.empty(3 * len(obj.data.vertices), dtype=np.float64)
        obj.data.vertices.foreach_get("co", raw)
        raw = raw.reshape(-1, 3) + np.array(obj.location, dtype=np.float64)
        if world is None or len(world["co"]) != len(raw):
            got = 0 if world is None else len(world["co"])
            measured[obj.name] = {"raw_vertices": len(raw), "evaluated_vertices": got}
            off[obj.name] = f"{len(raw)} vertices in its mesh data, {got} shown (a modifier changes it)"
            continue
        err = float(np.max(np.linalg.norm(world["co"] - raw, axis=1))) if len(raw) else 0.0
        measured[obj.name] = {"max_offset": rnd(err)}
        if err > tol:
            off[obj.name] = f"raw data up to {err:.4f} m from where the prop is shown"
    ok = len(names) - len(off)
    detail = "raw data is the world geometry" if not off else "; ".join(f"{n}: {why}" for n, why in off.items())
    return Outcome(ok / len(names), not off, measured, {"max_offset": tol}, detail, {"off": sorted(off)})
