"""Probe group: objects and hierarchy (existence, type, parent, counts).  Runs in bpy."""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # standalone: siblings only
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from probe_core import Probe, binary_outcome, fraction_outcome, primitive  # noqa: E402


@primitive(group="objects", required=("object",), params={"object": "name"})
def object_exists(probe: Probe, p: dict):
    """The object is in the scene."""
    found = probe.scene.objects.get(p["object"]) is not None
    return binary_outcome(found, found, True, f"{p['object']} {'found' if found else 'not found'} in scene")


@primitive(group="objects", required=("objects",), params={"objects": "names"})
def objects_exist(probe: Probe, p: dict):
    """Fraction of the listed names present in the scene."""
    names = list(p["objects"])
    missing = [n for n in names if probe.scene.objects.get(n) is None]
    measured = {"found": [n for n in names if n not in missing], "missing": missing}
    detail = "all found" if not missing else "missing: " + ", ".join(missing)
    return fraction_outcome(len(names) - len(missing), len(names), measured, names, detail,
                            {"missing": missing})


@primitive(group="objects", required=("object|objects", "type"),
           params={"object": "name", "objects": "names", "type": "object_type"})
def object_type(probe: Probe, p: dict):
    """Each object is of Blender type ``type`` (MESH, EMPTY, CAMERA, ...)."""
    objs = probe.objects(list(p.get("objects", [p.get("object")])))
    types = {o.name: o.type for o in objs}
    bad = [n for n, t in types.items() if t != p["type"]]
    detail = f"all are {p['type']}" if not bad else "other type: " + ", ".join(f"{n}={types[n]}" for n in bad)
    return fraction_outcome(len(objs) - len(bad), len(objs), types, p["type"], detail)


@primitive(group="objects", required=("object", "parent"),
           params={"object": "name", "parent": "parent", "ancestor": "bool"})
def parent_is(probe: Probe, p: dict):
    """The object's direct parent is ``parent`` (a name, or null for a root object).  With
    ``ancestor: true`` any ancestor counts."""
    obj = probe.obj(p["object"])
    chain, cur = [], obj.parent
    while cur is not None:
        chain.append(cur.name)
        cur = cur.parent
    wanted = p["parent"]
    if wanted is None:
        ok = not chain
    elif p.get("ancestor"):
        ok = wanted in chain
    else:
        ok = bool(chain) and chain[0] == wanted
    parent = chain[0] if chain else None
    return binary_outcome(ok, parent, wanted, f"{obj.name}'s parent is {parent}; ancestors {chain}",
                          {"ancestors": chain})


@primitive(group="objects", required=(),
           params={"type": "object_type", "name_prefix": "name", "min": "count", "max": "count"})
def object_count(probe: Probe, p: dict):
    """The number of scene objects matching ``type`` and ``name_prefix`` (both optional) lies
    in ``min``..``max`` (each optional)."""
    matches = sorted(
        o.name for o in probe.scene.objects
        if ("type" not in p or o.type == p["type"])
        and o.name.startswith(p.get("name_prefix", ""))
    )
    lo, hi = p.get("min"), p.get("max")
    ok = (lo is None or len(matches) >= int(lo)) and (hi is None or len(matches) <= int(hi))
    what = " ".join(x for x in (p.get("type", ""), f"'{p['name_prefix']}*'" if p.get("name_prefix") else "") if x)
    detail = f"{len(matches)} {what or 'objects'} (want {lo if lo is not None else '-'}..{hi if hi is not None else '-'})"
    return binary_outcome(ok, len(matches), {"min": lo, "max": hi}, detail, {"objects": matches[:50]})
