"""Probe group: solid geometry (parts with faces, area and enclosed volume; shape measures and voxel
shape match; surface-to-surface contact; standing on a floor by its faces).  Runs in bpy (stdlib +
bpy + numpy + mathutils only); measured on the evaluated scene in world space.

These checks exist because a vertex bounding box is easy to fake: loose vertices without faces, a
zero-thickness plane, a tiny stand-in with loose vertices at the expected corners, a loose vertex
"on the floor" or a part that floats a little all pass a box test.  Here only faces count: loose
vertices and edges are no surface, a zero-thickness part encloses no volume, and contact is the
distance between surfaces.

Shared conventions:

* A *face vertex* is a vertex used by at least one face; loose vertices / edges are ignored by
  every measure except ``loose_fraction`` and "below the floor".
* Enclosed volume is computed by the divergence theorem over the faces (fan-triangulated, about
  the centroid of the face vertices, absolute value): exact for a closed mesh, ~0 for a plane.
* Outward normals: the winding as Blender shows it (a negative-scale object's winding is mirrored
  back), turned around for a solid whose enclosed volume comes out negative (inside-out normals),
  so the verdicts do not depend on normal direction -- ``normals_outward`` judges that.
* Inside a solid: a point is inside an object when a ray along +X and a ray along -X both cross
  its faces an odd number of times (a closed mesh agrees with plain parity; an open sheet
  encloses nothing).  Several objects together are their union.
"""

from __future__ import annotations

import math
import sys
import weakref
from dataclasses import dataclass, field
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # standalone: siblings only
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from mathutils import Vector  # noqa: E402
from mathutils.bvhtree import BVHTree  # noqa: E402

from probe_core import (  # noqa: E402
    VEC3, Probe, binary_outcome, fraction_outcome, names_param, primitive, rnd,
)

# --- param schemas (literals: the static catalogue reads them) ----------------------------------

AMOUNT = {"type": "number", "minimum": 0, "description": "number >= 0"}
SHARE = {"type": "number", "minimum": 0, "maximum": 1, "description": "number 0..1"}
# [min, max] of a measured quantity
RANGE = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2, "description": "[min, max]"}
# voxel signature of the reference (``voxel_signature``): occupancy bits, x fastest, then y, then z;
# bit i is bit (i % 8) (least significant first) of byte i // 8, the bytes written as hex
GRID = {"type": "object", "required": ["min", "max", "size", "occupied"], "additionalProperties": False,
        "properties": {"min": VEC3, "max": VEC3,
                       "size": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 128},
                                "minItems": 3, "maxItems": 3, "description": "[nx, ny, nz] integers 1..128"},
                       "occupied": {"type": "string", "pattern": "^[0-9a-fA-F]*$", "description": "hex string"}},
        "description": "{min: [x, y, z], max: [x, y, z], size: [nx, ny, nz], occupied: hex}"}

# At most this many voxels in a shape_match grid (64^3): a bigger grid is a rubric error.
MAX_VOXELS = 262144
# Downward-facing: the outward normal's z is below this.
DOWN_Z = -0.9


# --- the solid of one object ----------------------------------------------------------------------


@dataclass
class Solid:
    """One object's evaluated mesh at one frame, world space, with its faces' measures."""

    name: str
    co: np.ndarray  # (n, 3) every vertex
    loop_vert: np.ndarray
    start: np.ndarray  # per face
    total: np.ndarray
    used: np.ndarray  # (n,) bool: vertex used by a face
    area: np.ndarray  # (f,) face areas
    normal: np.ndarray  # (f, 3) outward unit normals (0 for a degenerate face)
    volume: float  # enclosed volume, >= 0
    encloses: bool  # the faces enclose a volume (not a sheet)
    _tree: BVHTree | None = field(default=None, repr=False)

    @property
    def faces(self) -> int:
        return len(self.start)

    @property
    def face_co(self) -> np.ndarray:
        return self.co[self.used]

    @property
    def loose_fraction(self) -> float:
        return float(1.0 - self.used.mean()) if len(self.co) else 1.0

    def extent(self) -> list[float]:
        """World AABB size of the face vertices (loose ones do not widen it)."""
        pts = self.face_co
        return (pts.max(axis=0) - pts.min(axis=0)).tolist() if len(pts) else [0.0, 0.0, 0.0]

    def tree(self) -> BVHTree:
        if self._tree is None:
            flat = self.loop_vert.tolist()
            polys = [flat[s:s + t] for s, t in zip(self.start.tolist(), self.total.tolist())]
            self._tree = BVHTree.FromPolygons(self.co.tolist(), polys)
        return self._tree


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # {Probe: {(frame, name): Solid | None}}


def solid_of(probe: Probe, obj, frame: int) -> Solid | None:
    """The ``Solid`` of ``obj`` at ``frame`` (cached per probe); None without geometry."""
    cache = _CACHE.setdefault(probe, {})
    key = (int(frame), obj.name)
    if key not in cache:
        cache[key] = _build_solid(probe, obj, int(frame))
    return cache[key]


def _build_solid(probe: Probe, obj, frame: int) -> Solid | None:
    mesh = probe.mesh_arrays(obj, frame)
    if mesh is None or not len(mesh["co"]):
        return None
    co, lv, start, total = mesh["co"], mesh["loop_vert"], mesh["poly_start"], mesh["poly_total"]
    used = np.zeros(len(co), dtype=bool)
    used[lv] = True
    nf = len(start)
    if not nf:
        return Solid(obj.name, co, lv, start, total, used, np.zeros(0), np.zeros((0, 3)), 0.0, False)
    # fan triangles (first loop, loop, loop + 1) of every face
    poly = np.repeat(np.arange(nf), total)
    loops = np.arange(len(lv))
    rel = loops - start[poly]
    fan = (rel >= 1) & (rel <= total[poly] - 2)
    ref = co[used].mean(axis=0)  # about the centroid: a sheet gets ~0 volume wherever it is
    p0, p1, p2 = co[lv[start[poly[fan]]]] - ref, co[lv[loops[fan]]] - ref, co[lv[loops[fan] + 1]] - ref
    cross = np.cross(p1 - p0, p2 - p0)
    vec = np.zeros((nf, 3))
    np.add.at(vec, poly[fan], cross)  # twice the vector area of each (planar) face
    area = 0.5 * np.linalg.norm(vec, axis=1)
    signed = float(np.einsum("ij,ij->i", p0, np.cross(p1, p2)).sum() / 6.0)
    size = float(np.max(co[used].max(axis=0) - co[used].min(axis=0)))
    encloses = abs(signed) > 1e-9 * max(size, 1e-6) ** 3
    probe.at(frame)
    det = obj.evaluated_get(probe.depsgraph).matrix_world.determinant()
    # outward: by the enclosed volume's sign for a solid, else the winding Blender shows
    orient = (1.0 if signed > 0 else -1.0) if encloses else (-1.0 if det < 0 else 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        normal = np.where(area[:, None] > 0, orient * vec / (2.0 * area[:, None]), 0.0)
    return Solid(obj.name, co, lv, start, total, used, area, normal, abs(signed), bool(encloses))


# --- surface distance and inside tests --------------------------------------------------------------


def _ray_hits(tree: BVHTree, origin, direction: Vector, length: float, step: float) -> list[float]:
    """Distances along the ray at which it crosses faces (each crossing once)."""
    hits: list[float] = []
    o, travelled = Vector(origin), 0.0
    for _ in range(10000):
        if travelled >= length:
            break
        loc, _n, _i, dist = tree.ray_cast(o, direction, length - travelled)
        if loc is None:
            break
        travelled += dist + step
        hits.append(travelled - step)
        o = loc + direction * step
    return hits


def _step(co: np.ndarray) -> float:
    """A ray's step past a hit: small against the part, big against float32 rounding."""
    return 1e-6 * max(1.0, float(np.abs(co).max()) if len(co) else 1.0)


def inside(solid: Solid, point) -> bool:
    """``point`` is inside the solid: odd crossings along +X and along -X."""
    if not solid.encloses:
        return False
    lo, hi = solid.face_co.min(axis=0), solid.face_co.max(axis=0)
    p = np.asarray(point, dtype=np.float64)
    if np.any(p < lo) or np.any(p > hi):
        return False
    tree, step = solid.tree(), _step(solid.co)
    length = float(hi[0] - lo[0]) + 1.0
    ahead = len(_ray_hits(tree, p, Vector((1.0, 0.0, 0.0)), length, step))
    behind = len(_ray_hits(tree, p, Vector((-1.0, 0.0, 0.0)), length, step))
    return ahead % 2 == 1 and behind % 2 == 1


def _samples(solid: Solid) -> np.ndarray:
    """Points on the surface: face vertices, face centres and points along the faces' edges."""
    lv, start, total, co = solid.loop_vert, solid.start, solid.total, solid.co
    centres = np.add.reduceat(co[lv], start, axis=0) / total[:, None]
    poly = np.repeat(np.arange(len(start)), total)
    loops = np.arange(len(lv))
    nxt = start[poly] + (loops - start[poly] + 1) % total[poly]
    a, b = lv[loops], lv[nxt]
    keys = np.unique(np.minimum(a, b) * len(co) + np.maximum(a, b))
    ea, eb = co[keys // len(co)], co[keys % len(co)]
    along = [ea + (eb - ea) * t for t in (0.25, 0.5, 0.75)]
    return np.concatenate([solid.face_co, centres, *along])


def surface_distance(a: Solid, b: Solid) -> tuple[float, str]:
    """(smallest distance between the two surfaces, how): 0 when the faces intersect or one solid
    lies inside the other; else the nearest of each one's surface samples to the other's faces."""
    if a.tree().overlap(b.tree()):
        return 0.0, "intersecting"
    best = math.inf
    for src, dst in ((a, b), (b, a)):
        tree, pts = dst.tree(), _samples(src)
        lo, hi = dst.face_co.min(axis=0), dst.face_co.max(axis=0)
        to_box = np.linalg.norm(np.maximum(0.0, np.maximum(lo - pts, pts - hi)), axis=1)  # a lower bound
        order = np.argsort(to_box, kind="stable")
        for first in range(0, len(order), 1024):  # nearest the other's box first; stop past `best`
            chunk = order[first:first + 1024]
            if to_box[chunk[0]] >= best:
                break
            for bound, p in zip(to_box[chunk].tolist(), pts[chunk].tolist()):
                if bound >= best:
                    break
                d = tree.find_nearest(p, best)[3] if math.isfinite(best) else tree.find_nearest(p)[3]
                if d is not None and d < best:
                    best = d
    if inside(b, a.face_co[0]) or inside(a, b.face_co[0]):
        return 0.0, "inside"
    return float(best), "apart"


# --- primitives ------------------------------------------------------------------------------------------


def _frame(p: dict) -> int:
    return int(p.get("frame", 1))


@primitive(group="geometry", required=("object|objects",),
           params={"object": "name", "objects": "names", "min_faces": "count", "min_area": AMOUNT,
                   "min_volume": AMOUNT, "min_extent": AMOUNT, "max_loose_fraction": SHARE, "frame": "integer"})
def solid_parts(probe: Probe, p: dict):
    """Each object is a solid part: at least ``min_faces`` faces (default 1), face area >=
    ``min_area``, enclosed volume >= ``min_volume``, every axis of its faces' world AABB >=
    ``min_extent`` and at most ``max_loose_fraction`` of its vertices in no face (defaults 0)."""
    names, frame = names_param(p), _frame(p)
    limits = {"min_faces": int(p.get("min_faces", 1)), "min_area": float(p.get("min_area", 0.0)),
              "min_volume": float(p.get("min_volume", 0.0)), "min_extent": float(p.get("min_extent", 0.0)),
              "max_loose_fraction": float(p.get("max_loose_fraction", 0.0))}
    measured, failing = {}, {}
    for o in probe.objects(names):
        s = solid_of(probe, o, frame)
        if s is None:
            measured[o.name], failing[o.name] = None, ["no geometry"]
            continue
        m = {"faces": s.faces, "area": float(s.area.sum()), "volume": s.volume, "extent": s.extent(),
             "loose_fraction": s.loose_fraction}
        measured[o.name] = rnd(m)
        off = [k for k, bad in (("min_faces", m["faces"] < limits["min_faces"] or not m["faces"]),
                                ("min_area", m["area"] < limits["min_area"]),
                                ("min_volume", m["volume"] < limits["min_volume"]),
                                ("min_extent", min(m["extent"]) < limits["min_extent"]),
                                ("max_loose_fraction", m["loose_fraction"] > limits["max_loose_fraction"]))
               if bad]
        if off:
            failing[o.name] = off
    detail = "all solid parts" if not failing else "not solid: " + "; ".join(
        f"{n} ({', '.join(c)})" for n, c in failing.items())
    return fraction_outcome(len(names) - len(failing), len(names), measured, limits, detail, {"failing": failing})


SHAPE_MEASURES = ("volume", "area", "fill")


@primitive(group="geometry", required=("object|objects", "volume|area|fill"),
           params={"object": "name", "objects": "names", "volume": RANGE, "area": RANGE, "fill": RANGE,
                   "frame": "integer"})
def shape_measures(probe: Probe, p: dict):
    """Each object's enclosed ``volume`` (m^3), face ``area`` (m^2) and ``fill`` (volume / volume
    of its whole world AABB, loose vertices included) lie in the given [min, max] ranges."""
    names, frame = names_param(p), _frame(p)
    ranges = {k: [float(v) for v in p[k]] for k in SHAPE_MEASURES if k in p}
    measured, failing = {}, {}
    for o in probe.objects(names):
        s = solid_of(probe, o, frame)
        if s is None:
            measured[o.name] = None
            failing[o.name] = list(ranges)
            continue
        box = float(np.prod(s.co.max(axis=0) - s.co.min(axis=0)))
        m = {"volume": s.volume, "area": float(s.area.sum()), "fill": s.volume / box if box > 0 else 0.0}
        measured[o.name] = rnd(m)
        off = [k for k, (lo, hi) in ranges.items() if not lo <= m[k] <= hi]
        if off:
            failing[o.name] = off
    detail = "all shapes within range" if not failing else "out of range: " + "; ".join(
        f"{n} ({', '.join(c)})" for n, c in failing.items())
    return fraction_outcome(len(names) - len(failing), len(names), measured, ranges, detail, {"failing": failing})


@primitive(group="geometry", required=("object", "others", "tolerance"),
           params={"object": "name", "others": "names", "tolerance": "tolerance", "frame": "integer"})
def parts_touch(probe: Probe, p: dict):
    """Each other object's evaluated surface (faces; loose vertices do not count) comes within
    ``tolerance`` of the object's surface; intersecting or lying inside counts as touching."""
    obj, others, frame, tol = probe.obj(p["object"]), probe.objects(list(p["others"])), _frame(p), float(p["tolerance"])
    base = solid_of(probe, obj, frame)
    gaps, how = {}, {}
    for o in others:
        s = solid_of(probe, o, frame)
        if base is None or not base.faces or s is None or not s.faces:
            gaps[o.name], how[o.name] = None, "no faces"
            continue
        gaps[o.name], how[o.name] = surface_distance(base, s)
    bad = [n for n, g in gaps.items() if g is None or g > tol]
    detail = f"all touch {obj.name}" if not bad else f"not touching {obj.name}: " + ", ".join(
        f"{n} ({'no faces' if gaps[n] is None else f'{gaps[n]:.4f} m'})" for n in bad)
    return fraction_outcome(len(others) - len(bad), len(others), rnd(gaps), {"max_gap": tol}, detail,
                            {"not_touching": bad, "contact": how})


@primitive(group="geometry", required=("object|objects",),
           params={"object": "name", "objects": "names", "z": "number", "tolerance": "tolerance",
                   "min_area": AMOUNT, "frame": "integer"})
def ground_contact(probe: Probe, p: dict):
    """Each object stands on the plane at height ``z`` (default 0) by faces: its downward-facing
    faces lying within ``tolerance`` (default 0.003) of the plane total at least ``min_area``
    (default 1e-4 m^2), and no vertex is below ``z - tolerance``."""
    names, frame = names_param(p), _frame(p)
    z, tol, need = float(p.get("z", 0.0)), float(p.get("tolerance", 0.003)), float(p.get("min_area", 1e-4))
    measured, failing = {}, {}
    for o in probe.objects(names):
        s = solid_of(probe, o, frame)
        if s is None or not s.faces:
            measured[o.name], failing[o.name] = None, ["no faces"]
            continue
        off_plane = np.maximum.reduceat(np.abs(s.co[s.loop_vert, 2] - z), s.start)
        on = (off_plane <= tol) & (s.normal[:, 2] < DOWN_Z)
        m = {"contact_area": float(s.area[on].sum()), "lowest_z": float(s.co[:, 2].min())}
        measured[o.name] = rnd(m)
        off = [c for c, bad in (("contact_area", m["contact_area"] < need), ("below", m["lowest_z"] < z - tol)) if bad]
        if off:
            failing[o.name] = off
    detail = f"all stand on z = {z}" if not failing else f"not standing on z = {z}: " + "; ".join(
        f"{n} ({', '.join(c)})" for n, c in failing.items())
    return fraction_outcome(len(names) - len(failing), len(names), measured,
                            {"z": z, "tolerance": tol, "min_area": need}, detail, {"failing": failing})


# --- voxel shape match ------------------------------------------------------------------------------------


def _grid(grid_min, grid_max, size) -> tuple[np.ndarray, np.ndarray, list[int]]:
    lo, hi, n = np.asarray(grid_min, dtype=np.float64), np.asarray(grid_max, dtype=np.float64), [int(v) for v in size]
    if len(lo) != 3 or len(hi) != 3 or len(n) != 3 or np.any(hi <= lo) or min(n) < 1:
        raise ValueError(f"bad voxel grid: min {list(lo)}, max {list(hi)}, size {n}")
    if n[0] * n[1] * n[2] > MAX_VOXELS:
        raise ValueError(f"voxel grid of {n[0] * n[1] * n[2]} voxels; at most {MAX_VOXELS}")
    return lo, hi, n


def occupancy(probe: Probe, objs: list, grid_min, grid_max, size, frame: int) -> np.ndarray:
    """(nz, ny, nx) bools: the voxel's centre is inside the union of the objects' solids.  Each
    row of voxels along X is decided by one ray through its centres (nudged by a millionth of a
    voxel off any face-aligned edge), crossings counted from both ends."""
    lo, hi, (nx, ny, nz) = _grid(grid_min, grid_max, size)
    cell = (hi - lo) / np.array([nx, ny, nz])
    xs = lo[0] + (np.arange(nx) + 0.5) * cell[0]
    ys = lo[1] + (np.arange(ny) + 0.5 + 0.5371e-6) * cell[1]
    zs = lo[2] + (np.arange(nz) + 0.5 + 0.3137e-6) * cell[2]
    occ = np.zeros((nz, ny, nx), dtype=bool)
    east = Vector((1.0, 0.0, 0.0))
    for o in objs:
        s = solid_of(probe, o, frame)
        if s is None or not s.encloses:
            continue
        plo, phi = s.face_co.min(axis=0), s.face_co.max(axis=0)
        tree, step = s.tree(), _step(s.co)
        start_x, length = float(plo[0]) - 1.0, float(phi[0] - plo[0]) + 2.0
        for k in np.flatnonzero((zs >= plo[2]) & (zs <= phi[2])):
            for j in np.flatnonzero((ys >= plo[1]) & (ys <= phi[1])):
                hits = np.array(_ray_hits(tree, (start_x, ys[j], zs[k]), east, length, step)) + start_x
                if len(hits) < 2:
                    continue
                before = np.searchsorted(hits, xs, side="left")  # crossings west of each centre
                occ[k, j] |= (before % 2 == 1) & ((len(hits) - before) % 2 == 1)
    return occ


def _hex(bits: np.ndarray) -> str:
    return np.packbits(bits.ravel().astype(np.uint8), bitorder="little").tobytes().hex()


def _bits(text: str, count: int) -> np.ndarray:
    raw = bytes.fromhex(text) if len(text) % 2 == 0 else b""
    if len(raw) != (count + 7) // 8:
        raise ValueError(f"grid.occupied: {len(text)} hex digits, expected {2 * ((count + 7) // 8)} for {count} voxels")
    return np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")[:count].astype(bool)


def voxel_signature(probe: Probe, objs: list, grid_min, grid_max, size, frame: int = 1) -> str:
    """The ``occupied`` hex of a ``shape_match`` grid for ``objs`` (the reference's parts), e.g.
    in bpy with the reference open::

        from probe_core import Probe; from probes_solid import voxel_signature
        objs = [bpy.data.objects[n] for n in ("Leg.FL", "Leg.FR")]
        voxel_signature(Probe(bpy.context.scene), objs, [-1, -1, 0], [1, 1, 1], [40, 40, 20], 1)
    """
    return _hex(occupancy(probe, objs, grid_min, grid_max, size, frame))


@primitive(group="geometry", required=("object|objects", "grid", "min_iou"),
           params={"object": "name", "objects": "names", "grid": GRID, "min_iou": SHARE, "frame": "integer"})
def shape_match(probe: Probe, p: dict):
    """The union of the objects' solids fills the voxels of ``grid`` (a reference signature made by
    ``voxel_signature``) with intersection-over-union >= ``min_iou``.  Binary."""
    grid, frame, need = p["grid"], _frame(p), float(p["min_iou"])
    _, _, (nx, ny, nz) = _grid(grid["min"], grid["max"], grid["size"])
    want = _bits(grid["occupied"], nx * ny * nz)
    if not want.any():
        raise ValueError("grid.occupied marks no voxel: not a reference signature")
    names = names_param(p)
    got = occupancy(probe, probe.objects(names), grid["min"], grid["max"], grid["size"], frame).ravel()
    both, either = int(np.sum(got & want)), int(np.sum(got | want))
    iou = both / either
    measured = {"iou": iou, "occupied": int(got.sum()), "reference_occupied": int(want.sum()), "intersection": both}
    detail = f"voxel IoU of {', '.join(names)} with the reference: {iou:.3f} (min {need})"
    return binary_outcome(iou >= need, rnd(measured), {"min_iou": need}, detail,
                          {"missing_voxels": int(np.sum(want & ~got)), "extra_voxels": int(np.sum(got & ~want))})
