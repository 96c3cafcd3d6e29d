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

import atexit
import hashlib
import math
import sys
import weakref
from collections.abc import Callable
from typing import Any
from dataclasses import dataclass, field
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # standalone: siblings only
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from mathutils import Vector  # noqa: E402
from mathutils.geometry import tessellate_polygon  # noqa: E402
from mathutils.bvhtree import BVHTree  # noqa: E402
from mathutils.kdtree import KDTree  # noqa: E402

from probe_core import (  # noqa: E402
    GEOMETRY_TYPES, VEC3, Probe, binary_outcome, components, draws_instances, first_frames, fixed_shape,
    fraction_outcome, names_param, primitive, remember, rnd, sampled_frames, unmeasured_geometry,
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
    det: float = 1.0  # determinant of the world matrix (a mirrored object's winding is mirrored back)
    signed: float = 0.0  # signed enclosed volume (negative: inside-out normals)
    _tree: BVHTree | None = field(default=None, repr=False)
    _shells: list | None = field(default=None, repr=False)
    _face_co: np.ndarray | None = field(default=None, repr=False)
    _box: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _oriented: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _digest: bytes | None = field(default=None, repr=False)
    _tris: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)  # fan_indices, co given

    @property
    def faces(self) -> int:
        return len(self.start)

    @property
    def face_co(self) -> np.ndarray:
        """The vertices faces use (kept: ``inside`` asks for them at every sample point)."""
        if self._face_co is None:
            self._face_co = self.co[self.used]
        return self._face_co

    def box(self) -> tuple[np.ndarray, np.ndarray]:
        """(min, max) of ``face_co`` (the solid must have faces)."""
        if self._box is None:
            self._box = (self.face_co.min(axis=0), self.face_co.max(axis=0))
        return self._box

    def oriented_box(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(axes (3, 3) rows, min, max) of ``face_co`` along its principal axes: a box that holds
        the solid and fits a long part lying at a slant far closer than the world box does."""
        if self._oriented is None:
            pts = self.face_co
            _, vecs = np.linalg.eigh(np.cov((pts - pts.mean(axis=0)).T) if len(pts) > 1 else np.eye(3))
            axes = vecs.T
            local = pts @ axes.T
            self._oriented = (axes, local.min(axis=0), local.max(axis=0))
        return self._oriented

    @property
    def loose_fraction(self) -> float:
        return float(1.0 - self.used.mean()) if len(self.co) else 1.0

    def extent(self) -> list[float]:
        """World AABB size of the face vertices (loose ones do not widen it)."""
        pts = self.face_co
        return (pts.max(axis=0) - pts.min(axis=0)).tolist() if len(pts) else [0.0, 0.0, 0.0]

    def shells(self) -> list[Solid]:
        """The connected shells (faces joined by shared vertices), each a ``Solid`` of its own
        faces (the same ``co``), in order of their first face."""
        if self._shells is None:
            labels = shell_labels(self)
            self._shells = [self if labels.max(initial=0) == 0 and len(labels) else
                            _make_solid(self.name, self.co, *_faces_subset(self, np.flatnonzero(labels == k)), self.det)
                            for k in range(int(labels.max(initial=-1)) + 1)]
        return self._shells

    def triangles(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``fan_triangles`` of the faces (p0, p1, p2, face index), the triangulation found once
        per solid (a solid is cached per frame and sampled against several others)."""
        if self._tris is None:
            self._tris = fan_indices(self.loop_vert, self.start, self.total, self.co)
        tris, face = self._tris
        return self.co[tris[:, 0]], self.co[tris[:, 1]], self.co[tris[:, 2]], face

    def digest(self) -> bytes:
        """What decides an overlap: the world-space vertices and the faces that use them (once
        per solid: a solid is cached per frame and measured against several others)."""
        if self._digest is None:
            self._digest = arrays_digest(self.co, self.loop_vert, self.start, self.total)
        return self._digest

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
    probe.at(frame)
    det = float(obj.evaluated_get(probe.depsgraph).matrix_world.determinant())
    return solid_from_arrays(obj.name, mesh["co"], mesh["loop_vert"], mesh["poly_start"], mesh["poly_total"], det)


def arrays_digest(co: np.ndarray, lv: np.ndarray, start: np.ndarray, total: np.ndarray) -> bytes:
    """``Solid.digest`` of these arrays: the world-space vertices and the faces that use them."""
    h = hashlib.blake2b(digest_size=16)
    for arr in (co, lv, start, total):
        h.update(np.ascontiguousarray(arr).tobytes())
    return h.digest()


# (name, det, the arrays' lengths and digest) -> Solid (probe_core.remember, at most SOLIDS_KEPT: a
# solid holds its BVH tree, far more than the other memos' entries):
# mutation testing measures the reference once per operator, and a part an operator leaves be is
# the same mesh every time -- its solid, shells, triangles and BVH tree are built once, not once
# per operator.  Keyed by the exact arrays (a 16-byte blake2b of their bytes), so a part that
# differs by one vertex is a new solid.
_SOLIDS: dict[tuple, Solid] = {}
SOLIDS_KEPT = 20_000
# emptied before Blender's own exit handler (registered earlier, so run later) counts the BVH
# trees still held as leaked memory
atexit.register(_SOLIDS.clear)


def solid_from_arrays(name: str, co: np.ndarray, lv: np.ndarray, start: np.ndarray, total: np.ndarray,
                      det: float) -> Solid:
    """``_make_solid`` of these arrays, the one built before for the same arrays where there is one."""
    digest = arrays_digest(co, lv, start, total)
    key = (name, float(det), len(co), len(lv), len(start), digest)
    known = _SOLIDS.get(key)
    if known is None:
        known = remember(_SOLIDS, key, _make_solid(name, co, lv, start, total, det), SOLIDS_KEPT)
        known._digest = digest
    return known


def fan_indices(lv: np.ndarray, start: np.ndarray, total: np.ndarray,
                co: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Triangles of every face: ((T, 3) vertex indices, face index), each face's triangles in
    its own winding.  A fan (first loop, loop, loop + 1) covers a convex face exactly; with
    ``co``, a face its fan does not cover (a concave n-gon: a U-shaped cap, whose fan reaches
    across the notch and back) is filled by Blender's own polygon fill instead.  The fan's
    stray triangles cancel in signed sums (area, volume) but not where a measure looks at the
    triangles themselves: a section's outline, surface samples, what a clip cuts."""
    poly = np.repeat(np.arange(len(start)), total)
    loops = np.arange(len(lv))
    rel = loops - start[poly]
    fan = (rel >= 1) & (rel <= total[poly] - 2)
    tris = np.column_stack([lv[start[poly[fan]]], lv[loops[fan]], lv[loops[fan] + 1]]).astype(np.int64)
    face = poly[fan]
    if co is None or not len(tris) or not (total > 3).any():  # triangles need no check
        return tris, face
    return _fill_concave(co, lv, start, total, tris, face)


def _fill_concave(co: np.ndarray, lv: np.ndarray, start: np.ndarray, total: np.ndarray,
                  tris: np.ndarray, face: np.ndarray, cross: np.ndarray | None = None,
                  vec: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``tris`` / ``face`` with every face whose fan holds a triangle turned against the face
    (its vector area) filled by ``tessellate_polygon``, each triangle wound as the face is;
    ``cross`` (the fan triangles' edge cross products) and ``vec`` (their sum per face) where
    the caller has them."""
    if cross is None:
        cross = np.cross(co[tris[:, 1]] - co[tris[:, 0]], co[tris[:, 2]] - co[tris[:, 0]])
    if vec is None:
        vec = np.zeros((len(start), 3))
        np.add.at(vec, face, cross)
    turned = np.einsum("ij,ij->i", cross, vec[face])
    if not (turned < 0).any():  # the common case, at the cost of one product per triangle
        return tris, face
    size = np.linalg.norm(cross, axis=1) * np.linalg.norm(vec[face], axis=1)
    bad = np.unique(face[turned < -1e-9 * size])
    if not len(bad):
        return tris, face
    new_tris, new_face, filled = [], [], []
    for f in bad.tolist():
        ids = lv[start[f]:start[f] + total[f]]
        fill = tessellate_polygon([[Vector(p) for p in co[ids].tolist()]])
        if not fill:  # a face the fill cannot read (repeated corners): its fan, as before
            continue
        filled.append(f)
        for a, b, c in fill:
            t = [int(ids[a]), int(ids[b]), int(ids[c])]
            if float(np.dot(np.cross(co[t[1]] - co[t[0]], co[t[2]] - co[t[0]]), vec[f])) < 0:
                t[1], t[2] = t[2], t[1]
            new_tris.append(t)
            new_face.append(f)
    if not filled:
        return tris, face
    keep = ~np.isin(face, filled)
    tris = np.concatenate([tris[keep], np.array(new_tris, dtype=np.int64).reshape(-1, 3)])
    face = np.concatenate([face[keep], np.array(new_face, dtype=face.dtype)])
    order = np.argsort(face, kind="stable")  # the faces' order, as the fan gives it
    return tris[order], face[order]


def fan_triangles(co: np.ndarray, lv: np.ndarray, start: np.ndarray, total: np.ndarray):
    """The triangles of every face (``fan_indices``, concave faces filled): (corner arrays p0,
    p1, p2, face index)."""
    tris, face = fan_indices(lv, start, total, co)
    return co[tris[:, 0]], co[tris[:, 1]], co[tris[:, 2]], face


def _make_solid(name: str, co: np.ndarray, lv: np.ndarray, start: np.ndarray, total: np.ndarray,
                det: float) -> Solid:
    used = np.zeros(len(co), dtype=bool)
    used[lv] = True
    nf = len(start)
    if not nf:
        return Solid(name, co, lv, start, total, used, np.zeros(0), np.zeros((0, 3)), 0.0, False, det)
    ref = co[used].mean(axis=0)  # about the centroid: a sheet gets ~0 volume wherever it is
    tris, face = fan_indices(lv, start, total)
    local = co - ref
    p0, p1, p2 = local[tris[:, 0]], local[tris[:, 1]], local[tris[:, 2]]
    cross = np.cross(p1 - p0, p2 - p0)
    vec = np.zeros((nf, 3))
    np.add.at(vec, face, cross)  # twice the vector area of each (planar) face
    if (total > 3).any():  # a concave face filled as Blender fills it (fan_indices)
        filled = _fill_concave(co, lv, start, total, tris, face, cross, vec)
        if filled[0] is not tris:
            tris, face = filled
            p0, p1, p2 = local[tris[:, 0]], local[tris[:, 1]], local[tris[:, 2]]
    area = 0.5 * np.linalg.norm(vec, axis=1)
    signed = float(np.einsum("ij,ij->i", p0, np.cross(p1, p2)).sum() / 6.0)
    size = float(np.max(co[used].max(axis=0) - co[used].min(axis=0)))
    encloses = abs(signed) > 1e-9 * max(size, 1e-6) ** 3
    # outward: by the enclosed volume's sign for a solid, else the winding Blender shows
    orient = (1.0 if signed > 0 else -1.0) if encloses else (-1.0 if det < 0 else 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        normal = np.where(area[:, None] > 0, orient * vec / (2.0 * area[:, None]), 0.0)
    return Solid(name, co, lv, start, total, used, area, normal, abs(signed), bool(encloses), det, signed,
                 _tris=(tris, face))


def _faces_subset(solid: Solid, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(loop_vert, start, total) of just ``faces`` (indices into the solid's faces)."""
    faces = faces[np.argsort(solid.start[faces], kind="stable")]
    tot = solid.total[faces]
    new_start = np.concatenate([[0], np.cumsum(tot)[:-1]]).astype(np.int64) if len(tot) else np.zeros(0, np.int64)
    loops = np.repeat(solid.start[faces] - new_start, tot) + np.arange(int(tot.sum()))
    return solid.loop_vert[loops], new_start, tot


# --- shells: connected components of the faces -------------------------------------------------------


def shell_labels(solid: Solid) -> np.ndarray:
    """(f,) shell index of each face, 0.. in order of each shell's first face: faces sharing a
    vertex are one shell (loose vertices and edges join nothing)."""
    if not solid.faces:
        return np.zeros(0, dtype=np.int64)
    poly = np.repeat(np.arange(solid.faces), solid.total)
    first = solid.loop_vert[solid.start[poly]]
    vert = components(len(solid.co), first, solid.loop_vert)[solid.loop_vert[solid.start]]
    _, first_face, inverse = np.unique(vert, return_index=True, return_inverse=True)
    rank = np.argsort(np.argsort(first_face))
    return rank[inverse].astype(np.int64)


def euler_holes(solid: Solid) -> float | None:
    """Through-holes (genus) of a closed shell, (2 - V + E - F) / 2; None when the shell has a
    boundary or non-manifold edge (it is not closed, so it has no genus)."""
    lv, start, total = solid.loop_vert, solid.start, solid.total
    poly = np.repeat(np.arange(len(start)), total)
    loops = np.arange(len(lv))
    nxt = start[poly] + (loops - start[poly] + 1) % total[poly]
    n = max(len(solid.co), 1)
    a, b = lv[loops], lv[nxt]
    _, counts = np.unique(np.minimum(a, b) * n + np.maximum(a, b), return_counts=True)
    if not len(counts) or np.any(counts != 2):
        return None
    chi = int(solid.used.sum()) - len(counts) + solid.faces
    return (2 - chi) / 2


def _hull_area(pts: np.ndarray) -> float:
    """Area of the 2-D convex hull of ``pts`` (monotone chain)."""
    pts = np.unique(pts, axis=0)
    if len(pts) < 3:
        return 0.0
    order = pts.tolist()

    def half(seq):
        out: list = []
        for p in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out[:-1]

    hull = np.array(half(order) + half(order[::-1]))
    x, y = hull[:, 0], hull[:, 1]
    return float(0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


# Cut planes per world axis for ``section_fill``, evenly spaced across the shell; and, beside them,
# one plane between each two neighbouring heights at which the shell has vertices
# (``_cut_heights``), at most ``EVENT_CUTS`` of those per axis.
SECTIONS = 9
EVENT_CUTS = 512


def _cut_heights(values: np.ndarray, lo: float, hi: float, fractions: list[float]) -> list[float]:
    """Where to cut a shell across one axis: at ``fractions`` of [lo, hi], and midway between each
    two neighbouring heights of its vertices along the axis.  Between two such heights every
    section has the same faces, so a slot, notch or saw cut -- whose walls are vertices -- has a
    cut inside it however narrow it is (red team 36: a slot between nine evenly spaced planes
    was never cut).  A shell with more than ``EVENT_CUTS`` such gaps (a dense, curved mesh) is
    cut at ``EVENT_CUTS`` even steps instead: at most ``(hi - lo) / EVENT_CUTS`` apart."""
    ext = hi - lo
    out = [lo + f * ext for f in fractions]
    if ext <= 0:
        return out
    heights = np.unique(np.round((values - lo) / ext * 1e6)) / 1e6
    heights = heights[(heights > 0) & (heights < 1)]
    edges = np.concatenate([[0.0], heights, [1.0]])
    if len(edges) - 1 > EVENT_CUTS:
        mids = (np.arange(EVENT_CUTS) + 0.5) / EVENT_CUTS
    else:
        mids = (edges[:-1] + edges[1:]) / 2
    return sorted(set(out) | {lo + float(m) * ext for m in mids})


_FILLS: dict[bytes, float] = {}  # Solid.digest -> section_fill (probe_core.remember)


def section_fill(solid: Solid) -> float:
    """The least filled cross-section of a closed shell: cut across each world axis by
    ``SECTIONS`` evenly spaced planes (at (i + 0.5) / SECTIONS of its extent) and by a plane
    between each two neighbouring heights of its vertices (``_cut_heights``), each section's area
    (exact: Green's theorem over the segments where the plane cuts the faces, holes subtracted)
    over its outline: the same plane's section of the shell's own convex hull (3-D, so a saw cut
    that leaves a thin web of a leg leaves a section far below the leg's outline there -- red team
    36 -- where the web's own 2-D hull would be the web).  1 for any convex solid (a box, a
    tapered round leg); a notch, a slot, a saw cut, a hollow or a through-hole brings it down."""
    key = solid.digest()
    known = _FILLS.get(key)
    return known if known is not None else remember(_FILLS, key, _section_fill(solid))


def _section_area(tri: np.ndarray, normal: np.ndarray, axis: int, h: float,
                  hull: bool = True) -> tuple[float, float]:
    """(area, convex hull area) of the section of the closed triangles ``tri`` (t, 3, 3) by the
    plane at ``h`` across world ``axis``: exact, Green's theorem over the segments where the plane
    cuts the faces (oriented by the face normals, so holes subtract).  ``hull=False``: the area
    alone (the hull's 0), for callers that measure against something else."""
    u, v = (axis + 1) % 3, (axis + 2) % 3  # (u, v, axis) right-handed
    above = tri[:, :, axis] > h
    cut = above.any(axis=1) & ~above.all(axis=1)
    if not cut.any():
        return 0.0, 0.0
    t, up, nrm = tri[cut], above[cut], normal[cut]
    ends = []
    for j, k in ((0, 1), (1, 2), (2, 0)):
        cross_jk = up[:, j] != up[:, k]
        dj, dk = t[:, j, axis] - h, t[:, k, axis] - h
        with np.errstate(invalid="ignore", divide="ignore"):
            w = np.where(cross_jk, dj / (dj - dk), np.nan)
        ends.append((t[:, j] + (t[:, k] - t[:, j]) * w[:, None])[:, [u, v]])
    pts = np.stack(ends, axis=1)  # (c, 3, 2), one row nan
    ok = ~np.isnan(pts[:, :, 0])
    pair = pts[ok].reshape(-1, 2, 2)
    a, b = pair[:, 0], pair[:, 1]
    flip = np.einsum("ij,ij->i", b - a, np.stack([-nrm[:, v], nrm[:, u]], axis=1)) < 0
    a, b = np.where(flip[:, None], b, a), np.where(flip[:, None], a, b)
    area = abs(float(0.5 * np.sum(a[:, 0] * b[:, 1] - b[:, 0] * a[:, 1])))
    return area, _hull_area(np.concatenate([a, b])) if hull else 0.0


def convex_hull_triangles(points: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(triangles (t, 3, 3), outward normals (t, 3)) of the convex hull of ``points`` (bmesh's
    convex hull); None when the points span no volume."""
    import bmesh  # noqa: PLC0415  (Blender's own; only where a hull is asked for)

    bm = bmesh.new()
    try:
        for q in np.unique(points, axis=0).tolist():
            bm.verts.new(q)
        if len(bm.verts) < 4:
            return None
        out = bmesh.ops.convex_hull(bm, input=list(bm.verts), use_existing_faces=False)
        drop = {g for g in out["geom_interior"] + out["geom_unused"] if isinstance(g, bmesh.types.BMVert)}
        bmesh.ops.delete(bm, geom=list(drop), context="VERTS")
        bmesh.ops.triangulate(bm, faces=list(bm.faces))
        if len(bm.faces) < 4:
            return None
        tri = np.array([[tuple(v.co) for v in f.verts] for f in bm.faces], dtype=np.float64)
    finally:
        bm.free()
    normal = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    inward = np.einsum("ij,ij->i", normal, tri.mean(axis=1) - tri.reshape(-1, 3).mean(axis=0)) < 0
    normal[inward] *= -1  # outward, whatever order the hull's faces came in
    tri[inward] = tri[inward][:, ::-1]
    return tri, normal


def _section_fill(solid: Solid) -> float:
    p0, p1, p2, _ = solid.triangles()
    tri = np.stack([p0, p1, p2], axis=1)  # (t, 3, 3)
    normal = np.cross(p1 - p0, p2 - p0)
    lo, hi = solid.face_co.min(axis=0), solid.face_co.max(axis=0)
    hull = convex_hull_triangles(solid.face_co)
    worst = 1.0
    even = [(i + 0.5 + 0.0137) / SECTIONS for i in range(SECTIONS)]
    for axis in range(3):
        for h in _cut_heights(tri[:, :, axis].ravel(), float(lo[axis]), float(hi[axis]), even):
            # the outline: the plane's section of the solid's own convex hull (its 2-D hull
            # where the solid spans no volume to hull)
            area, outline = _section_area(tri, normal, axis, h, hull=hull is None)
            if hull is not None:
                outline = _section_area(hull[0], hull[1], axis, h, hull=False)[0]
            if outline > 0:
                worst = min(worst, area / outline)
    return worst


# ``box_filled``: cut planes across a shell's longest side (evenly, one near each end, and between
# each two neighbouring heights of its vertices), and the share of its bounding box's
# cross-section a cut must cover to count as filled.
BOX_SECTIONS = 40
BOX_END_CUT = 0.005
BOX_SECTION_FILL = 0.9
# Above the filled length a top may narrow to a point or round off, but no faster than a pyramid
# on the full section does, with this much slack: a cut there covers at least
# TOP_TAPER x BOX_SECTION_FILL x r^2 of the box's cross-section, r the share of the top still
# above it.
TOP_TAPER = 0.7


def box_filled(solid: Solid) -> float:
    """How far a closed shell fills its bounding box across, from its foot: along its longest side,
    from its low end, the share of its length up to the first cut (``BOX_SECTIONS`` planes across
    that side, one at ``BOX_END_CUT`` of the length from each end, and one between each two
    neighbouring heights of its vertices, none nearer an end than that: a bevel is narrower
    there) whose exact section covers less than
    ``BOX_SECTION_FILL`` of the box's cross-section (the other two sides); 1 when every cut is
    filled.  A box 1; a bevelled picket 1, a pointed one ~0.92 (its point at the top).
    Red team 30: a picket sheared into a 1 cm stick across its 8 cm box fills none of it, a
    pyramid post only at its foot; red team 32: a post or picket on a thin stilt -- the part's
    full width only from 21 cm up -- fills it from its foot nowhere (the unfilled share at the
    top only, where a point or a rounded top is)."""
    return _box_profile(solid)[0]


def top_taper(solid: Solid) -> float:
    """How a closed shell's top, above its filled length (``box_filled``), narrows: the least,
    over the cuts there, of a cut's section (as a share of the box's cross-section) over what a
    pyramid on the full section leaves at that height (``TOP_TAPER`` x ``BOX_SECTION_FILL`` x
    r^2, r the share of the top above the cut); 1 or more is a pointed or rounded top (a
    pyramid, a cone-like or gabled point, a rounded top, a bevel), less narrows faster -- red team
    36: a post full-size up to 0.885 m and a 1 cm rod from there up to its 1.10 m."""
    return _box_profile(solid)[1]


_PROFILES: dict[bytes, tuple[float, float]] = {}  # Solid.digest -> (box_filled, top_taper)


def _box_profile(solid: Solid) -> tuple[float, float]:
    key = solid.digest()
    known = _PROFILES.get(key)
    return known if known is not None else remember(_PROFILES, key, _box_profile_of(solid))


def _box_profile_of(solid: Solid) -> tuple[float, float]:
    p0, p1, p2, _ = solid.triangles()
    tri = np.stack([p0, p1, p2], axis=1)
    normal = np.cross(p1 - p0, p2 - p0)
    lo, hi = solid.face_co.min(axis=0), solid.face_co.max(axis=0)
    ext = hi - lo
    axis = int(np.argmax(ext))
    across = float(ext[(axis + 1) % 3] * ext[(axis + 2) % 3])
    if across <= 0:
        return 0.0, 0.0
    fractions = [BOX_END_CUT, 1.0 - BOX_END_CUT] + [(i + 0.5 + 0.0137) / BOX_SECTIONS for i in range(BOX_SECTIONS)]
    heights = _cut_heights(tri[:, :, axis].ravel(), float(lo[axis]), float(hi[axis]), fractions)
    # not nearer either end than its end cut: a bevel or eased edge is narrower there
    heights = [h for h in heights if BOX_END_CUT - 1e-9 <= (h - lo[axis]) / ext[axis] <= 1.0 - BOX_END_CUT + 1e-9]
    shares = [(float((h - lo[axis]) / ext[axis]), _section_area(tri, normal, axis, h, hull=False)[0] / across)
              for h in heights]
    filled = next((t for t, share in shares if share < BOX_SECTION_FILL), 1.0)
    taper = math.inf
    for t, share in shares:
        if t >= filled and filled < 1.0:
            bound = TOP_TAPER * BOX_SECTION_FILL * ((1.0 - t) / (1.0 - filled)) ** 2
            if bound > 0:
                taper = min(taper, share / bound)
    return filled, (1.0 if not math.isfinite(taper) else min(1.0, taper))


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


def inside(solid: Solid, point, axis: int = 0) -> bool:
    """``point`` is inside the solid: odd crossings both ways along ``axis`` (X by default)."""
    if not solid.encloses:
        return False
    lo, hi = solid.box()
    p = np.asarray(point, dtype=np.float64)
    if (p < lo).any() or (p > hi).any():
        return False
    tree, step = solid.tree(), _step(solid.co)
    length = float(hi[axis] - lo[axis]) + 1.0
    way = Vector([1.0 if k == axis else 0.0 for k in range(3)])
    ahead = len(_ray_hits(tree, p, way, length, step))
    behind = len(_ray_hits(tree, p, -way, length, step))
    return ahead % 2 == 1 and behind % 2 == 1


def inward_faces(solid: Solid, faces: np.ndarray) -> np.ndarray:
    """Per face index in ``faces``: whether that face of the closed solid points into it (a point
    just off its centre along the normal a render draws its front by lies inside): a face turned
    inside out, which a material with backface culling hides from outside.  False on a sheet or a
    degenerate face."""
    out = np.zeros(len(faces), dtype=bool)
    if not solid.encloses or not len(faces):
        return out
    lv, start, total, co = solid.loop_vert, solid.start, solid.total, solid.co
    eps = 1e-4 * max(float(np.ptp(solid.face_co, axis=0).max()), 1e-6)
    # ``normal`` is made outward by the enclosed volume's sign; the side a render draws as the
    # front is the winding's, turned back on a mirrored object (Blender flips its faces' winding)
    front = (1.0 if solid.signed > 0 else -1.0) * (1.0 if solid.det >= 0 else -1.0)
    for k, f in enumerate(faces.tolist()):
        n = solid.normal[f] * front
        if not np.any(n):
            continue
        centre = co[lv[start[f]:start[f] + total[f]]].mean(axis=0)
        out[k] = inside(solid, centre + n * eps)
    return out


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
        lo, hi = dst.box()
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


# --- hidden shells ------------------------------------------------------------------------------------

# A shell is hidden when more than this share of its surface (by area) lies inside other solids.
HIDDEN_SHARE = 0.5
# At most this many triangles of a shell are sampled (evenly through its faces) for the hidden share.
HIDDEN_TRIANGLES = 240
# Barycentric sample points of a triangle (its centre and three points towards its corners).
_BARY = np.array([[1 / 3, 1 / 3, 1 / 3], [0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]])


def _area_samples(solid: Solid) -> tuple[np.ndarray, np.ndarray]:
    """(points, weights): four points on each of (at most ``HIDDEN_TRIANGLES``, evenly picked)
    fan triangles of the faces, weighted by the triangle's area."""
    p0, p1, p2, _ = solid.triangles()
    if len(p0) > HIDDEN_TRIANGLES:
        pick = np.linspace(0, len(p0) - 1, HIDDEN_TRIANGLES).astype(np.int64)
        p0, p1, p2 = p0[pick], p1[pick], p2[pick]
    area = 0.5 * np.linalg.norm(np.cross(p1 - p0, p2 - p0), axis=1)
    pts = np.einsum("sk,tkj->tsj", _BARY, np.stack([p0, p1, p2], axis=1)).reshape(-1, 3)
    return pts, np.repeat(area / 4.0, 4)


def _others_around(probe: Probe, obj, frame: int, lo: np.ndarray, hi: np.ndarray) -> list[tuple[tuple, Solid]]:
    """((AABB low, high), solid) of the other render-visible objects whose world AABB overlaps
    [lo, hi] and whose faces enclose a volume."""
    out = []
    for o in probe.scene.objects:
        if o.name == obj.name or o.name not in probe.rendered() or o.type not in GEOMETRY_TYPES:
            continue
        blo, bhi = probe.aabb(o, frame)
        if np.any(np.asarray(bhi) < lo) or np.any(np.asarray(blo) > hi):
            continue
        s = solid_of(probe, o, frame)
        if s is not None and s.encloses:
            out.append(((np.asarray(blo), np.asarray(bhi)), s))
    return out


# Measures that are pure functions of solids, kept by the solids' identities: solids are shared
# for the same arrays (``solid_from_arrays``, their shells with them), so mutation testing measures
# a part an operator leaves be, among neighbours it leaves be, once.  Each entry holds its solids,
# so the ids in its key stay theirs.  _HIDDEN: (solid, the solids around it) -> hidden shares;
# _CONTACTS: (shell, shell, tolerance) -> face contact.
_HIDDEN: dict[tuple, tuple[tuple, Any]] = {}
_CONTACTS: dict[tuple, tuple[tuple, Any]] = {}
atexit.register(_HIDDEN.clear)  # as _SOLIDS: the BVH trees they hold
atexit.register(_CONTACTS.clear)


def _by_shapes(memo: dict, solids: tuple, extra: Any, compute: Callable[[], Any]) -> Any:
    """``compute()``, kept in ``memo`` for these solids (by identity) and ``extra``."""
    key = (tuple(id(s) for s in solids), extra)
    known = memo.get(key)
    if known is None:
        known = remember(memo, key, (solids, compute()), SOLIDS_KEPT)
    return known[1]


def hidden_shares(probe: Probe, obj, frame: int) -> list[float]:
    """Per shell of ``obj``: the share of its surface (by area) inside another render-visible
    object's solid or inside the rest of the object's own shells (cached per probe, and per
    shape in ``_HIDDEN``)."""
    cache = _CACHE.setdefault(probe, {})
    key = ("hidden", int(frame), obj.name)
    if key in cache:
        return cache[key]
    solid = solid_of(probe, obj, frame)
    if solid is None:
        cache[key] = []
        return []
    used = solid.face_co
    near = _others_around(probe, obj, frame, used.min(axis=0), used.max(axis=0)) if len(used) else []
    others = sorted(near, key=lambda n: id(n[1]))
    cache[key] = _by_shapes(_HIDDEN, (solid, *(s for _, s in others)), None,
                            lambda: _hidden_shares(obj.name, solid, near))
    return cache[key]


def _hidden_shares(name: str, solid: Solid, near: list[tuple[tuple, Solid]]) -> list[float]:
    """``hidden_shares`` of ``solid``'s shells among the solids ``near`` it (with their boxes)."""
    shares: list[float] = []
    shells = solid.shells()
    for k, shell in enumerate(shells):
        pts, weight = _area_samples(shell)
        if not len(pts) or weight.sum() <= 0:
            shares.append(0.0)
            continue
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        around = [s for (blo, bhi), s in near if not (np.any(bhi < lo) or np.any(blo > hi))]
        if len(shells) > 1:
            rest = np.flatnonzero(shell_labels(solid) != k)
            around.append(_make_solid(name, solid.co, *_faces_subset(solid, rest), solid.det))
        hidden = np.array([any(inside(o, q) for o in around) for q in pts], dtype=bool)
        shares.append(float(weight[hidden].sum() / weight.sum()))
    return shares


def visible_shells(probe: Probe, obj, frame: int) -> list[Solid]:
    """The shells of ``obj`` that are not hidden (at most ``HIDDEN_SHARE`` of them inside other solids)."""
    solid = solid_of(probe, obj, frame)
    if solid is None:
        return []
    return [s for s, h in zip(solid.shells(), hidden_shares(probe, obj, frame)) if h <= HIDDEN_SHARE]


def face_extent(probe: Probe, obj, frame: int) -> tuple[list[float], list[float]] | None:
    """(min, max) world AABB of the faces of ``obj``'s visible shells; None when it has none."""
    shells = visible_shells(probe, obj, frame)
    if not shells:
        return None
    pts = np.concatenate([s.face_co for s in shells])
    return pts.min(axis=0).tolist(), pts.max(axis=0).tolist()


def penetration(a: Solid, b: Solid) -> float:
    """How deep ``a``'s surface reaches into ``b``'s solid: the largest distance from ``b``'s
    surface of ``a``'s surface samples that lie inside ``b`` (0 when none does)."""
    if not a.faces or not b.encloses:
        return 0.0
    if not a.tree().overlap(b.tree()) and not inside(b, a.face_co[0]):
        return 0.0
    return _depth_into(a, b)


# --- face contact ----------------------------------------------------------------------------------------

# Faces meet face to face where they are parallel (|cos| of their normals over this), lie within the
# tolerance of each other's plane, and overlap seen along the normal: two boxes meeting along an
# edge (a picket's top edge on a rail's bottom edge) are parallel and within reach there, and
# overlap over no area.
CONTACT_PARALLEL = 0.9
# How many triangle pairs one numpy pass of ``_coplanar_overlap`` compares.
CONTACT_CHUNK = 2_000_000
# At most this many sample points per shell for the area of one shell inside another.
JOINED_SAMPLES = 4000


def _tri_normals(p0: np.ndarray, p1: np.ndarray, p2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(unit normals, areas) of triangles (a degenerate one's normal is 0)."""
    cross = np.cross(p1 - p0, p2 - p0)
    length = np.linalg.norm(cross, axis=1)
    return cross / np.maximum(length, 1e-300)[:, None], 0.5 * length


def _near(p0: np.ndarray, p1: np.ndarray, p2: np.ndarray, lo: np.ndarray, hi: np.ndarray, tol: float) -> np.ndarray:
    """Which triangles' boxes come within ``tol`` of the box [lo, hi]."""
    return ~((np.minimum(np.minimum(p0, p1), p2) > hi + tol).any(axis=1)
             | (np.maximum(np.maximum(p0, p1), p2) < lo - tol).any(axis=1))


def clip_area(subject: np.ndarray, clip: np.ndarray) -> float:
    """The area of the 2D polygon ``subject`` inside the convex 2D polygon ``clip``
    (Sutherland-Hodgman; ``clip`` turned counter-clockwise first)."""
    (x0, y0), (x1, y1), (x2, y2) = clip[0].tolist(), clip[1].tolist(), clip[2].tolist()
    if (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0) < 0:
        clip = clip[::-1]
    poly = [tuple(p) for p in subject.tolist()]
    n = len(clip)
    for k in range(n):
        if not poly:
            return 0.0
        (ax, ay), (bx, by) = clip[k].tolist(), clip[(k + 1) % n].tolist()
        ex, ey = bx - ax, by - ay
        inside_of = [ex * (py - ay) - ey * (px - ax) >= 0.0 for px, py in poly]
        out = []
        for i, (px, py) in enumerate(poly):
            qx, qy = poly[i - 1]
            here, before = inside_of[i], inside_of[i - 1]
            if here != before:  # the edge crosses the clip line: where
                dx, dy = px - qx, py - qy
                den = ex * dy - ey * dx
                t = (ey * (qx - ax) - ex * (qy - ay)) / den if den else 0.0
                out.append((qx + t * dx, qy + t * dy))
            if here:
                out.append((px, py))
        poly = out
    if len(poly) < 3:
        return 0.0
    xs, ys = np.array(poly).T
    return 0.5 * abs(float(np.dot(xs, np.roll(ys, -1)) - np.dot(ys, np.roll(xs, -1))))


def _coplanar_overlap(a: Solid, b: Solid, tol: float) -> float:
    """The area (m^2) over which ``a``'s faces lie on ``b``'s: triangle pairs parallel within
    ``CONTACT_PARALLEL``, every corner of ``a``'s within ``tol`` of ``b``'s plane, their overlap
    seen along ``b``'s normal (exact: each pair clipped)."""
    (alo, ahi), (blo, bhi) = a.box(), b.box()
    a0, a1, a2, _ = a.triangles()
    b0, b1, b2, _ = b.triangles()
    ka, kb = np.flatnonzero(_near(a0, a1, a2, blo, bhi, tol)), np.flatnonzero(_near(b0, b1, b2, alo, ahi, tol))
    if not len(ka) or not len(kb):
        return 0.0
    a0, a1, a2, b0, b1, b2 = a0[ka], a1[ka], a2[ka], b0[kb], b1[kb], b2[kb]
    na, _ = _tri_normals(a0, a1, a2)
    nb, area_b = _tri_normals(b0, b1, b2)
    amin, amax = np.minimum(np.minimum(a0, a1), a2), np.maximum(np.maximum(a0, a1), a2)
    bmin, bmax = np.minimum(np.minimum(b0, b1), b2), np.maximum(np.maximum(b0, b1), b2)
    total, rows = 0.0, max(1, CONTACT_CHUNK // len(kb))
    for first in range(0, len(ka), rows):
        sl = slice(first, first + rows)
        ok = (np.abs(na[sl] @ nb.T) >= CONTACT_PARALLEL) & (area_b[None, :] > 0)
        for corner in (a0[sl], a1[sl], a2[sl]):
            ok &= np.abs(np.einsum("ik,jk->ij", corner, nb) - np.einsum("jk,jk->j", b0, nb)[None, :]) <= tol
        ok &= ((amin[sl][:, None, :] <= bmax[None, :, :] + tol) & (amax[sl][:, None, :] >= bmin[None, :, :] - tol)).all(axis=2)
        for i, j in zip(*np.nonzero(ok)):
            n = nb[j]
            u = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
            u /= np.linalg.norm(u)
            v = np.cross(n, u)
            basis = np.stack([u, v], axis=1)
            tri_a = np.stack([a0[sl][i], a1[sl][i], a2[sl][i]]) @ basis
            tri_b = np.stack([b0[j], b1[j], b2[j]]) @ basis
            total += clip_area(tri_a, tri_b)
    return total


def _inside_area(a: Solid, b: Solid, tol: float) -> float:
    """The area (m^2) of ``a``'s surface inside the closed ``b`` deeper than ``tol`` (joined into
    it), from at most ``JOINED_SAMPLES`` points on its triangles near ``b``."""
    if not b.encloses:
        return 0.0
    lo, hi = b.box()
    p0, p1, p2, _ = a.triangles()
    near = _near(p0, p1, p2, lo, hi, tol)
    if not near.any():
        return 0.0
    p0, p1, p2 = p0[near], p1[near], p2[near]
    area = float(_tri_normals(p0, p1, p2)[1].sum())
    pts, wts = _grid_samples(p0, p1, p2, math.sqrt(max(area, 1e-12) / JOINED_SAMPLES))
    keep = ~((pts > hi - tol).any(axis=1) | (pts < lo + tol).any(axis=1))
    tree = b.tree()
    # deeper than the tolerance: a point on b's own surface (faces meeting at an edge) is neither
    return float(sum(w for q, w in zip(pts[keep].tolist(), wts[keep].tolist())
                     if tree.find_nearest(q)[3] > tol and inside(b, np.asarray(q))))


def _grid_samples(p0: np.ndarray, p1: np.ndarray, p2: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray]:
    """(points, weights): each triangle cut into n x n similar triangles (n from its longest edge
    over ``step``), a point at each one's centre weighted by its area."""
    pts, wts = [], []
    longest = np.maximum.reduce([np.linalg.norm(p1 - p0, axis=1), np.linalg.norm(p2 - p1, axis=1),
                                 np.linalg.norm(p0 - p2, axis=1)])
    area = _tri_normals(p0, p1, p2)[1]
    counts = np.minimum(np.maximum(1, np.ceil(longest / step)), 64).astype(np.int64)
    for n in np.unique(counts).tolist():
        sel = np.flatnonzero(counts == n)
        i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        low = (i + j) < n  # the upright small triangles, centres at (i + 1/3, j + 1/3) / n
        high = (i + j) < n - 1  # the upside-down ones, centres at (i + 2/3, j + 2/3) / n
        u = np.concatenate([(i[low] + 1 / 3), (i[high] + 2 / 3)]) / n
        v = np.concatenate([(j[low] + 1 / 3), (j[high] + 2 / 3)]) / n
        e1, e2 = (p1 - p0)[sel], (p2 - p0)[sel]
        pts.append((p0[sel][:, None, :] + u[None, :, None] * e1[:, None, :] + v[None, :, None] * e2[:, None, :])
                   .reshape(-1, 3))
        wts.append(np.repeat(area[sel] / (n * n), len(u)))
    return (np.concatenate(pts), np.concatenate(wts)) if pts else (np.zeros((0, 3)), np.zeros(0))


def face_contact(a: Solid, b: Solid, tol: float) -> float:
    """The area (m^2) over which two shells meet face to face (``_coplanar_overlap``) or, where
    their surfaces cross, are joined (the larger of each one's surface inside the other)."""
    (alo, ahi), (blo, bhi) = a.box(), b.box()
    if (ahi + tol < blo).any() or (bhi + tol < alo).any():
        return 0.0
    return _by_shapes(_CONTACTS, (a, b), float(tol), lambda: _face_contact(a, b, tol))


def _face_contact(a: Solid, b: Solid, tol: float) -> float:
    area = _coplanar_overlap(a, b, tol)
    if a.tree().overlap(b.tree()):
        area = max(area, _inside_area(a, b, tol), _inside_area(b, a, tol))
    return area


# --- primitives ------------------------------------------------------------------------------------------


def _frame(p: dict) -> int:
    return int(p.get("frame", 1))


# ``max_shells``: one bound for every object, or {object name: bound}
SHELLS = {"anyOf": [{"type": "integer", "minimum": 1},
                    {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}, "minProperties": 1}],
          "description": "integer >= 1 or {object name: integer >= 1}"}


# Two pieces of one part that reach this far (m) into each other show as one piece in a render.
FUSED_DEPTH = 0.002


# Two pieces of one part meeting face to face over this much (m^2, within FUSED_DEPTH) show as one
# piece too, where a part's pieces must stand apart (``solid_parts`` ``pieces_apart``).
FACE_TO_FACE = 1e-4


def fused_shells(shells: list[Solid], apart: bool = False) -> list[list]:
    """[i, j, depth] for each two of ``shells`` (one object's pieces) that pass into one another
    deeper than ``FUSED_DEPTH``: a render shows them as one piece (red team 36: the two rails run
    1.5 cm into each other, one thick rail, each still less than half hidden).  Pieces that touch
    face to face reach no depth into each other; with ``apart``, two that meet face to face over
    ``FACE_TO_FACE`` are [i, j, "face to face", area] (red team 42: the two rails stacked, one rail
    twice as high)."""
    out: list[list] = []
    boxes = [(sh.face_co.min(axis=0), sh.face_co.max(axis=0)) for sh in shells]
    reach = -FUSED_DEPTH if apart else FUSED_DEPTH  # boxes that only touch can meet face to face
    for i in range(len(shells)):
        for j in range(i + 1, len(shells)):
            (alo, ahi), (blo, bhi) = boxes[i], boxes[j]
            if np.any(ahi < blo + reach) or np.any(bhi < alo + reach):
                continue
            depth = max(_depth_into(shells[i], shells[j]), _depth_into(shells[j], shells[i]))
            if depth > FUSED_DEPTH:
                out.append([i, j, round(depth, 4)])
            elif apart and (area := face_contact(shells[i], shells[j], FUSED_DEPTH)) >= FACE_TO_FACE:
                out.append([i, j, "face to face", round(area, 6)])
    return out


def _depth_into(a: Solid, b: Solid) -> float:
    """How deep ``a``'s surface samples reach into ``b``: ``penetration`` without its shortcut
    (faces that cross), which two boxes of one size passing into each other along coinciding
    faces never do."""
    if not a.faces or not b.encloses:
        return 0.0
    tree, deepest = b.tree(), 0.0
    for q in _samples(a):
        if inside(b, q):
            deepest = max(deepest, float(tree.find_nearest(Vector(q))[3]))
    return deepest


# ``min_box_filled``: one share for every object, or {object name: share}
SHARES = {"anyOf": [{"type": "number", "minimum": 0, "maximum": 1},
                    {"type": "object", "additionalProperties": {"type": "number", "minimum": 0, "maximum": 1},
                     "minProperties": 1}],
          "description": "number 0..1 or {object name: number 0..1}"}


def _max_shells(p: dict, name: str) -> int:
    bound = p.get("max_shells", 1)
    return int(bound.get(name, 1)) if isinstance(bound, dict) else int(bound)


def _shell_checks(shell: Solid, limits: dict) -> tuple[dict, list[str]]:
    """One shell's measures and the limits it misses."""
    ext = shell.extent()
    m = {"faces": shell.faces, "volume": shell.volume, "extent": ext}
    off = [k for k, bad in (("min_faces", shell.faces < limits["min_faces"]),
                            ("encloses", not shell.encloses),
                            ("min_extent", min(ext) < limits["min_extent"])) if bad]
    if "min_fill" in limits and shell.encloses:
        m["fill"] = section_fill(shell)
        if m["fill"] < limits["min_fill"]:
            off.append("min_fill")
    if "min_box_filled" in limits and shell.encloses:
        m["box_filled"] = box_filled(shell)
        if m["box_filled"] < limits["min_box_filled"]:
            off.append("min_box_filled")
        if m["box_filled"] < 1.0:  # the top above it: pointed or rounded, not a rod (red team 36)
            m["top_taper"] = top_taper(shell)
            if m["top_taper"] < 1.0:
                off.append("pointed_top")
    if "max_holes" in limits:
        holes = euler_holes(shell)
        m["holes"] = holes
        if holes is None or holes > limits["max_holes"]:
            off.append("max_holes")
    return m, off


@primitive(group="geometry", required=("object|objects",),
           params={"object": "name", "objects": "names", "min_faces": "count", "min_area": AMOUNT,
                   "min_volume": AMOUNT, "min_extent": AMOUNT, "max_loose_fraction": SHARE, "max_shells": SHELLS,
                   "min_fill": SHARE, "min_box_filled": SHARES, "max_holes": "count", "pieces_apart": "bool",
                   "frame": "integer"})
def solid_parts(probe: Probe, p: dict):
    """Each object is a solid part made of at most ``max_shells`` shells (default 1; a number or
    {name: number}): connected pieces of faces (faces sharing a vertex).  Every shell encloses a
    volume, has at least ``min_faces`` faces (default 1) and is at least ``min_extent`` across on
    every world axis; with ``min_fill``, each of its cross-sections (``SECTIONS`` planes across each
    world axis, and one between each two neighbouring heights of its vertices) covers at least
    that share of its convex hull; with ``min_box_filled`` (a share, or
    {name: share}), at least that share of its length, from its foot, fills its bounding box
    across (``box_filled``: a sheared stick, a pyramid or a stilt in a picket's or a post's box
    does not); with ``max_holes``, it is closed
    with at most that many through-holes (genus).  No shell is hidden: more than half of its
    surface inside another render-visible object's solid or inside the object's other shells;
    no two shells of an object pass into one another (``fused_shells``: a render shows them as
    one piece), and with ``pieces_apart`` none meet face to face either.  Where
    ``min_box_filled`` leaves a top unfilled, it narrows no faster than a point (``top_taper``).
    Over its shells the object has face area >= ``min_area``, enclosed volume >= ``min_volume``,
    and at most ``max_loose_fraction`` of its vertices in no face (defaults 0)."""
    names, frame = names_param(p), _frame(p)
    limits = {"min_faces": int(p.get("min_faces", 1)), "min_area": float(p.get("min_area", 0.0)),
              "min_volume": float(p.get("min_volume", 0.0)), "min_extent": float(p.get("min_extent", 0.0)),
              "max_loose_fraction": float(p.get("max_loose_fraction", 0.0))}
    limits.update({k: float(p[k]) for k in ("min_fill", "max_holes") if k in p})
    measured, failing = {}, {}
    for o in probe.objects(names):
        s = solid_of(probe, o, frame)
        if s is None or not s.faces:
            measured[o.name], failing[o.name] = None, ["no geometry" if s is None else "no faces"]
            continue
        shells, hidden = s.shells(), hidden_shares(probe, o, frame)
        per, off_shells = [], set()
        own = dict(limits)
        if isinstance(p.get("min_box_filled"), dict):
            if o.name in p["min_box_filled"]:
                own["min_box_filled"] = float(p["min_box_filled"][o.name])
        elif "min_box_filled" in p:
            own["min_box_filled"] = float(p["min_box_filled"])
        for shell, share in zip(shells, hidden):
            m, off = _shell_checks(shell, own)
            m["hidden"] = share
            if share > HIDDEN_SHARE:
                off.append("hidden_shell")
            per.append(m)
            off_shells.update(off)
        fused = fused_shells(shells, bool(p.get("pieces_apart")))
        if fused:
            off_shells.add("fused_shells")
        seen = [sh for sh, h in zip(shells, hidden) if h <= HIDDEN_SHARE]
        m = {"faces": s.faces, "shells": len(shells), "area": float(sum(float(sh.area.sum()) for sh in seen)),
             "volume": float(sum(sh.volume for sh in seen)),
             "extent": (np.ptp(np.concatenate([sh.face_co for sh in seen]), axis=0).tolist() if seen
                        else [0.0, 0.0, 0.0]),
             "loose_fraction": s.loose_fraction, "per_shell": per[:20], "fused": fused[:10]}
        measured[o.name] = rnd(m)
        off = [k for k, bad in (("max_shells", len(shells) > _max_shells(p, o.name)),
                                ("min_area", m["area"] < limits["min_area"]),
                                ("min_volume", m["volume"] < limits["min_volume"]),
                                ("max_loose_fraction", m["loose_fraction"] > limits["max_loose_fraction"]))
               if bad]
        off = [k for k in ("min_faces", "encloses", "min_extent", "min_fill", "min_box_filled", "pointed_top",
                           "max_holes", "hidden_shell", "fused_shells")
               if k in off_shells] + off
        unmeasured = unmeasured_geometry(o) if o.name in probe.rendered() else None
        if unmeasured:  # strands the render draws that no solid measure can read
            off.append(f"draws geometry the grader cannot measure: {unmeasured}")
        if off:
            failing[o.name] = off
    expected = {**limits, "max_shells": p.get("max_shells", 1),
                **({"min_box_filled": p["min_box_filled"]} if "min_box_filled" in p else {})}
    detail = "all solid parts" if not failing else "not solid: " + "; ".join(
        f"{n} ({', '.join(c)})" for n, c in failing.items())
    return fraction_outcome(len(names) - len(failing), len(names), measured, expected, detail, {"failing": failing})


SHAPE_MEASURES = ("volume", "area", "fill", "section_fill")


@primitive(group="geometry", required=("object|objects", "volume|area|fill|section_fill"),
           params={"object": "name", "objects": "names", "volume": RANGE, "area": RANGE, "fill": RANGE,
                   "section_fill": RANGE, "frame": "integer"})
def shape_measures(probe: Probe, p: dict):
    """Each object's enclosed ``volume`` (m^3), face ``area`` (m^2) and ``fill`` (volume / volume
    of its whole world AABB, loose vertices and hidden shells included) lie in the given [min, max]
    ranges; volume and area are summed over its visible shells (a shell hidden inside another
    solid adds nothing); ``section_fill`` is the least filled cross-section of its visible shells
    (``section_fill``: against the same plane's section of the shell's convex hull, so a slab
    with a shallow hollow, groove or notch cut into it falls below 1 where its volume barely
    moves -- red team 36)."""
    names, frame = names_param(p), _frame(p)
    ranges = {k: [float(v) for v in p[k]] for k in SHAPE_MEASURES if k in p}
    measured, failing = {}, {}
    for o in probe.objects(names):
        s = solid_of(probe, o, frame)
        if s is None:
            measured[o.name] = None
            failing[o.name] = list(ranges)
            continue
        seen = visible_shells(probe, o, frame)
        volume = float(sum(sh.volume for sh in seen))
        box = float(np.prod(s.co.max(axis=0) - s.co.min(axis=0)))
        m = {"volume": volume, "area": float(sum(float(sh.area.sum()) for sh in seen)),
             "fill": volume / box if box > 0 else 0.0, "shells": len(s.shells())}
        if "section_fill" in ranges:
            m["section_fill"] = min((section_fill(sh) for sh in seen if sh.encloses), default=0.0)
        measured[o.name] = rnd(m)
        off = [k for k, (lo, hi) in ranges.items() if not lo <= m[k] <= hi]
        if off:
            failing[o.name] = off
    detail = "all shapes within range" if not failing else "out of range: " + "; ".join(
        f"{n} ({', '.join(c)})" for n, c in failing.items())
    return fraction_outcome(len(names) - len(failing), len(names), measured, ranges, detail, {"failing": failing})


def _contact(probe: Probe, base: Solid, obj, frame: int, max_depth: float | None) -> tuple[float | None, str, float]:
    """(gap, how, penetration) of ``obj``'s best visible shell against ``base``: the smallest
    surface distance over the shells that are not hidden (a shell buried in ``base`` is hidden),
    among those within ``max_depth`` of penetration when it is given."""
    solid = solid_of(probe, obj, frame)
    if solid is None or not solid.faces:
        return None, "no faces", 0.0
    shells = visible_shells(probe, obj, frame)
    if not shells:
        return None, "buried", penetration(solid, base)
    best: tuple[float | None, str, float] = (None, "too deep", 0.0)
    for shell in shells:
        depth = penetration(shell, base)
        if max_depth is not None and depth > max_depth:
            if best[0] is None:
                best = (None, "too deep", max(depth, best[2]))
            continue
        gap, how = surface_distance(base, shell)
        if best[0] is None or gap < best[0]:
            best = (gap, how, depth)
    return best


@primitive(group="geometry", required=("object", "others", "tolerance"),
           params={"object": "name", "others": "names", "tolerance": "tolerance", "max_penetration": AMOUNT,
                   "each_piece": "bool", "min_area": AMOUNT, "frame": "integer"})
def parts_touch(probe: Probe, p: dict):
    """Each other object's evaluated surface (faces; loose vertices do not count) comes within
    ``tolerance`` of the object's surface, by a shell that is not hidden: a shell with more than
    half of its surface inside another solid (buried in the object, or in any other render-visible
    one) does not touch.  Faces meeting or running into the other solid touch; with
    ``max_penetration`` (m) the touching shell reaches at most that deep into the object.
    ``each_piece``: every visible shell (piece) of the object touches every visible shell of each
    other object, and ``min_area`` (m^2): touching is faces meeting face to face over at least that
    area (``face_contact``: within the tolerance, parallel and over each other, or joined into
    each other) -- red team 28: a fence's pickets touched the rails by one edge, and one rail
    floated above the pickets while the other held them, each passing a gap measured over the
    whole objects."""
    obj, others, frame, tol = probe.obj(p["object"]), probe.objects(list(p["others"])), _frame(p), float(p["tolerance"])
    max_depth = float(p["max_penetration"]) if "max_penetration" in p else None
    base = solid_of(probe, obj, frame)
    gaps, how, depths = {}, {}, {}
    for o in others:
        if base is None or not base.faces:
            gaps[o.name], how[o.name], depths[o.name] = None, "no faces", 0.0
            continue
        gaps[o.name], how[o.name], depths[o.name] = _contact(probe, base, o, frame, max_depth)
    bad = [n for n, g in gaps.items() if g is None or g > tol]
    pieces: dict[str, dict] = {}
    if p.get("each_piece") or "min_area" in p:
        need = float(p.get("min_area", 0.0))
        for o in others:
            pieces[o.name] = _piece_contacts(probe, obj, o, frame, tol, need, bool(p.get("each_piece")))
            if pieces[o.name]["apart"] and o.name not in bad:
                bad.append(o.name)
    detail = f"all touch {obj.name}" if not bad else f"not touching {obj.name}: " + ", ".join(
        f"{n} ({how[n] if gaps[n] is None else f'{gaps[n]:.4f} m'}"
        + (f"; pieces apart: {', '.join(pieces[n]['apart'][:4])}" if pieces.get(n, {}).get("apart") else "") + ")"
        for n in bad)
    expected = {"max_gap": tol, **({"max_penetration": max_depth} if max_depth is not None else {}),
                **({"each_piece": True} if p.get("each_piece") else {}),
                **({"min_area": float(p["min_area"])} if "min_area" in p else {})}
    evidence = {"not_touching": bad, "contact": how, "penetration": rnd(depths)}
    if pieces:
        evidence["pieces"] = {n: {"pairs": v["pairs"], "apart": v["apart"]} for n, v in pieces.items()}
    return fraction_outcome(len(others) - len(bad), len(others), rnd(gaps), expected, detail, evidence)


def _piece_contacts(probe: Probe, obj, other, frame: int, tol: float, need: float, each: bool) -> dict:
    """{pairs: how many pairs of pieces were looked at, apart: the pairs (or the object's pieces,
    without ``each``) that do not meet over ``need`` m^2}: with ``each``, every visible shell of
    ``obj`` against every visible shell of ``other``; without it, each visible shell of ``obj``
    against ``other``'s visible shells together (any one of them)."""
    mine, theirs = visible_shells(probe, obj, frame), visible_shells(probe, other, frame)
    apart, pairs = [], 0
    for i, a in enumerate(mine):
        met = []
        for j, b in enumerate(theirs):
            pairs += 1
            if need > 0:
                area = face_contact(a, b, tol)
                ok, what = area >= need, f" ({area * 1e4:.2f} cm2)"
            else:
                ok, what = surface_distance(a, b)[0] <= tol, ""
            met.append(ok)
            if each and not ok:
                apart.append(f"{obj.name}[{i}] / {other.name}[{j}]{what}")
        if not each and not any(met):
            apart.append(f"{obj.name}[{i}]")
    if not mine or not theirs:
        apart.append("no visible piece")
    return {"pairs": pairs, "apart": apart}


@primitive(group="geometry", required=("object|objects",),
           params={"object": "name", "objects": "names", "z": "number", "tolerance": "tolerance",
                   "min_area": AMOUNT, "frame": "integer"})
def ground_contact(probe: Probe, p: dict):
    """Each object stands on the plane at height ``z`` (default 0) by faces: the downward-facing
    faces of its visible shells (a shell hidden inside another solid does not stand) lying within
    ``tolerance`` (default 0.003) of the plane total at least ``min_area`` (default 1e-4 m^2), and
    no vertex is below ``z - tolerance`` (nothing buried in the floor)."""
    names, frame = names_param(p), _frame(p)
    z, tol, need = float(p.get("z", 0.0)), float(p.get("tolerance", 0.003)), float(p.get("min_area", 1e-4))
    measured, failing = {}, {}
    for o in probe.objects(names):
        s = solid_of(probe, o, frame)
        if s is None or not s.faces:
            measured[o.name], failing[o.name] = None, ["no faces"]
            continue
        area = 0.0
        for shell in visible_shells(probe, o, frame):  # a shell hidden in another solid does not stand
            off_plane = np.maximum.reduceat(np.abs(shell.co[shell.loop_vert, 2] - z), shell.start)
            area += float(shell.area[(off_plane <= tol) & (shell.normal[:, 2] < DOWN_Z)].sum())
        m = {"contact_area": area, "lowest_z": float(s.co[:, 2].min())}
        measured[o.name] = rnd(m)
        off = [c for c, bad in (("contact_area", m["contact_area"] < need), ("below", m["lowest_z"] < z - tol)) if bad]
        if off:
            failing[o.name] = off
    detail = f"all stand on z = {z}" if not failing else f"not standing on z = {z}: " + "; ".join(
        f"{n} ({', '.join(c)})" for n, c in failing.items())
    return fraction_outcome(len(names) - len(failing), len(names), measured,
                            {"z": z, "tolerance": tol, "min_area": need}, detail, {"failing": failing})


# --- voxel shape match ------------------------------------------------------------------------------------


# At most this many voxels when a delivery's thin parts make ``shape_match`` compare on a finer grid.
MAX_FINE_VOXELS = 8 * MAX_VOXELS


def _grid(grid_min, grid_max, size, limit: int = MAX_VOXELS) -> tuple[np.ndarray, np.ndarray, list[int]]:
    lo, hi, n = np.asarray(grid_min, dtype=np.float64), np.asarray(grid_max, dtype=np.float64), [int(v) for v in size]
    if len(lo) != 3 or len(hi) != 3 or len(n) != 3 or np.any(hi <= lo) or min(n) < 1:
        raise ValueError(f"bad voxel grid: min {list(lo)}, max {list(hi)}, size {n}")
    if n[0] * n[1] * n[2] > limit:
        raise ValueError(f"voxel grid of {n[0] * n[1] * n[2]} voxels; at most {limit}")
    return lo, hi, n


def thickness(shell: Solid) -> float:
    """How thick a closed shell is: the smaller of its width along its thinnest principal axis
    (face vertices) and 4 x volume / area (a square rod's side, twice a plate's thickness, a
    comb's tooth): a voxel no bigger than this has a centre inside it across its thickness."""
    pts = shell.face_co
    if not shell.encloses or len(pts) < 4 or shell.area.sum() <= 0:
        return 0.0
    centred = pts - pts.mean(axis=0)
    _, vecs = np.linalg.eigh(centred.T @ centred)
    along = centred @ vecs[:, 0]
    return float(min(along.max() - along.min(), 4.0 * shell.volume / float(shell.area.sum())))


def thinnest(probe: Probe, objs: list, frame: int) -> float:
    """The smallest ``thickness`` over the visible closed shells of ``objs`` (inf without any)."""
    widths = [thickness(sh) for o in objs for sh in visible_shells(probe, o, frame) if sh.encloses]
    return min(widths, default=math.inf)


def occupancy(probe: Probe, objs: list, grid_min, grid_max, size, frame: int,
              limit: int = MAX_VOXELS) -> np.ndarray:
    """(nz, ny, nx) bools: the voxel's centre is inside the union of the objects' visible closed
    shells (``visible_shells``).  Each
    row of voxels along X is decided by one ray through its centres (nudged by a millionth of a
    voxel off any face-aligned edge), crossings counted from both ends."""
    lo, hi, (nx, ny, nz) = _grid(grid_min, grid_max, size, limit)
    cell = (hi - lo) / np.array([nx, ny, nz])
    xs = lo[0] + (np.arange(nx) + 0.5) * cell[0]
    ys = lo[1] + (np.arange(ny) + 0.5 + 0.5371e-6) * cell[1]
    zs = lo[2] + (np.arange(nz) + 0.5 + 0.3137e-6) * cell[2]
    occ = np.zeros((nz, ny, nx), dtype=bool)
    east = Vector((1.0, 0.0, 0.0))
    for s in [sh for o in objs for sh in visible_shells(probe, o, frame)]:
        if not s.encloses:
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

    The grid must be at least as fine as the reference's thinnest part: a voxel edge longer
    than the ``thickness`` of one of its shells raises (its centres could miss that part)."""
    lo, hi, n = _grid(grid_min, grid_max, size)
    cell, thin = float(np.max((hi - lo) / np.array(n))), thinnest(probe, objs, frame)
    if cell > thin:
        raise ValueError(f"voxel grid too coarse: {cell:.4f} m voxels, the thinnest part is {thin:.4f} m thick")
    return _hex(occupancy(probe, objs, grid_min, grid_max, size, frame))


VOLUMES = {"type": "object", "minProperties": 1, "additionalProperties": RANGE,
           "description": "{object name: [min, max]}"}


def _own_volumes(probe: Probe, objs: list, ranges: dict, frame: int) -> tuple[dict, dict]:
    """({name: enclosed volume}, {name: volume} of those outside their range): each object
    named in ``ranges`` judged on its own -- the pooled voxels let one small part be anything
    while the large ones carry the union's IoU."""
    measured, off = {}, {}
    for obj in objs:
        if obj.name not in ranges:
            continue
        lo, hi = (float(v) for v in ranges[obj.name])
        volume = float(sum(sh.volume for sh in visible_shells(probe, obj, frame)))
        measured[obj.name] = volume
        if not lo <= volume <= hi:
            off[obj.name] = volume
    return measured, off


@primitive(group="geometry", required=("object|objects", "grid", "min_iou"),
           params={"object": "name", "objects": "names", "grid": GRID, "min_iou": SHARE, "frame": "integer",
                   "volumes": VOLUMES})
def shape_match(probe: Probe, p: dict):
    """The union of the objects' solids fills the voxels of ``grid`` (a reference signature made by
    ``voxel_signature``) with intersection-over-union >= ``min_iou``.  The comparison is never
    coarser than the delivery's thinnest visible part: when a shell is thinner (``thickness``) than
    a voxel edge, each voxel is split k times along that axis (k = ceil(edge / thickness)), the
    sub-voxels take their voxel's reference bit and the IoU is counted on the sub-voxels; a part
    too thin for ``MAX_FINE_VOXELS`` fails.  Hidden shells do not count.  With ``volumes``
    ({name: [min, max]}), each object named there is also judged on its own: the volume its
    visible closed shells enclose lies in the range (a part thinner than the voxels' reach).  An
    object that draws geometry no measure can read (``unmeasured_geometry``: hair strands) fails.
    Binary."""
    grid, frame, need = p["grid"], _frame(p), float(p["min_iou"])
    _, _, (nx, ny, nz) = _grid(grid["min"], grid["max"], grid["size"])
    want = _bits(grid["occupied"], nx * ny * nz)
    if not want.any():
        raise ValueError("grid.occupied marks no voxel: not a reference signature")
    names = names_param(p)
    objs = probe.objects(names)
    lo, hi = np.asarray(grid["min"], dtype=np.float64), np.asarray(grid["max"], dtype=np.float64)
    cell, thin = (hi - lo) / np.array([nx, ny, nz]), thinnest(probe, objs, frame)
    # a part thinner than a voxel: compare on voxels split k times (each sub-voxel takes its voxel's bit)
    k = [max(1, math.ceil(c / thin - 1e-9)) if thin > 0 else 10 ** 6 for c in cell.tolist()]
    fine = [nx * k[0], ny * k[1], nz * k[2]]
    if fine[0] * fine[1] * fine[2] > MAX_FINE_VOXELS:
        detail = f"{', '.join(names)}: a part {thin:.4f} m thick is below the finest comparable grid"
        return binary_outcome(False, rnd({"iou": 0.0, "thinnest": thin}), {"min_iou": need}, detail,
                              {"split": k})
    got = occupancy(probe, objs, grid["min"], grid["max"], fine, frame, MAX_FINE_VOXELS).ravel()
    want = want.reshape(nz, ny, nx).repeat(k[2], axis=0).repeat(k[1], axis=1).repeat(k[0], axis=2).ravel()
    both, either = int(np.sum(got & want)), int(np.sum(got | want))
    iou = both / either
    measured = {"iou": iou, "occupied": int(got.sum()), "reference_occupied": int(want.sum()), "intersection": both,
                "thinnest": thin if math.isfinite(thin) else None, "split": k}
    detail = f"voxel IoU of {', '.join(names)} with the reference: {iou:.3f} (min {need})"
    passed = iou >= need
    # strands the render draws that no voxel can hold (hair): the shape is not what is measured
    unmeasured = {o.name: why for o in objs if o.name in probe.rendered() and (why := unmeasured_geometry(o))}
    if unmeasured:
        passed = False
        measured["unmeasured"] = unmeasured
        detail += "; draws geometry the grader cannot measure: " + "; ".join(f"{n} ({w})" for n, w in unmeasured.items())
    if "volumes" in p:
        measured["volumes"], short = _own_volumes(probe, objs, p["volumes"], frame)
        passed = passed and not short
        if short:
            detail += "; enclosed volume out of range: " + ", ".join(f"{n} {v:.5f} m^3" for n, v in short.items())
    return binary_outcome(passed, rnd(measured), {"min_iou": need}, detail,
                          {"missing_voxels": int(np.sum(want & ~got)), "extra_voxels": int(np.sum(got & ~want))})


# --- solids running into each other (red team 13) ---------------------------------------------------

# Spacing (m) of the surface samples on faces near another solid; at most this many per triangle edge.
OVERLAP_STEP = 0.004
OVERLAP_MAX_SPLIT = 200
# Depths below this (m) are touching faces (float noise): never looked for.
OVERLAP_FLOOR = 1e-4
Away = tuple  # (pivot: np.ndarray (3,), radius: float): a joint's hinge, left out of an overlap


def _dense_samples(solid: Solid, lo: np.ndarray, hi: np.ndarray, step: float,
                   oriented: tuple | None = None, away: Away | None = None) -> np.ndarray:
    """Points on ``solid``'s faces about ``step`` apart (corners included), only those strictly
    inside [lo, hi] (a face lying on its side is skipped: touching costs nothing): a thin slab
    crossed by a long face holds none of the face's sparse samples.  With ``oriented`` (axes, min,
    max: a box along other axes) or ``away`` (a pivot and a radius whose ball is left out), the
    faces are first cut into pieces and only the pieces those could hold are sampled: a hinge's
    two links meet over a small part of their long faces."""
    if (hi <= lo).any():
        return np.zeros((0, 3))
    p0, p1, p2, _ = solid.triangles()
    tlo, thi = np.minimum(np.minimum(p0, p1), p2), np.maximum(np.maximum(p0, p1), p2)
    near = np.flatnonzero(~((thi <= lo).any(axis=1) | (tlo >= hi).any(axis=1)))
    a, b, c = p0[near], p1[near], p2[near]
    if oriented is not None or away is not None:
        a, b, c = _pieces_within(a, b, c, lo, hi, oriented, away, PIECE_STEPS * step)
    longest = np.maximum(np.maximum(np.linalg.norm(b - a, axis=1), np.linalg.norm(c - b, axis=1)),
                         np.linalg.norm(a - c, axis=1))
    splits = np.clip(np.ceil(longest / step), 1, OVERLAP_MAX_SPLIT).astype(int)
    out = [np.zeros((0, 3))]
    for n in np.unique(splits).tolist():  # all triangles cut as finely at once
        i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
        keep = (i + j) <= n
        u, v = i[keep] / n, j[keep] / n  # (s,)
        sel = splits == n
        ta, tb, tc = a[sel], b[sel], c[sel]  # (t, 3)
        pts = (ta[:, None, :] + (tb - ta)[:, None, :] * u[None, :, None]
               + (tc - ta)[:, None, :] * v[None, :, None]).reshape(-1, 3)
        out.append(pts[((pts > lo) & (pts < hi)).all(axis=1)])
    return np.concatenate(out)


# A face cut for a hinge is cut until its pieces are at most this many sample steps long.
PIECE_STEPS = 8


def _pieces_within(a, b, c, lo, hi, oriented, away, longest: float):
    """The triangles (a, b, c) halved at their edges' midpoints, again and again, until each
    piece is at most ``longest`` long, keeping only pieces that reach into [lo, hi], into the
    ``oriented`` box and out of ``away``'s ball (a triangle lies in a ball when its corners do)."""
    while len(a):
        keep = np.ones(len(a), dtype=bool)
        corners = np.stack([a, b, c])  # (3, t, 3)
        keep &= ~((corners.max(axis=0) <= lo).any(axis=1) | (corners.min(axis=0) >= hi).any(axis=1))
        if oriented is not None:
            axes, olo, ohi = oriented
            local = corners @ axes.T
            keep &= ~((local.max(axis=0) <= olo).any(axis=1) | (local.min(axis=0) >= ohi).any(axis=1))
        if away is not None:
            keep &= ~(np.linalg.norm(corners - away[0], axis=2) <= away[1]).all(axis=0)
        a, b, c = a[keep], b[keep], c[keep]
        edge = np.maximum(np.maximum(np.linalg.norm(b - a, axis=1), np.linalg.norm(c - b, axis=1)),
                          np.linalg.norm(a - c, axis=1))
        big = edge > longest
        if not big.any():
            break
        ab, bc, ca = (a[big] + b[big]) / 2, (b[big] + c[big]) / 2, (c[big] + a[big]) / 2
        a = np.concatenate([a[~big], a[big], ab, ca, ab])
        b, c = (np.concatenate([b[~big], ab, b[big], bc, bc]), np.concatenate([c[~big], ca, bc, c[big], ca]))
    return a, b, c


def _reach(a: Solid, b: Solid, step: float, beyond: float, away: Away | None = None) -> float:
    """How deep ``a``'s surface reaches into the closed shell ``b`` (the largest distance from
    ``b``'s faces of a dense sample of ``a``'s surface inside ``b``); only depths over ``beyond``
    are looked for (touching faces lie at ~0 and cost no inside test).  With ``away`` (a joint's
    pivot, a radius), only the surface further than the radius from the pivot counts: two links
    a joint joins overlap at their hinge by design, not along their length."""
    if not a.faces or not b.encloses:
        return 0.0
    # a point inside the shell is no deeper than its distance to the shell's box (the way out
    # to the box's nearest side crosses the surface): only points further in than the deepest
    # found so far can beat it, the deepest bound first, stopping at the bound
    lo, hi = b.box()
    deepest = max(beyond, OVERLAP_FLOOR)
    # the same holds for the box along b's own axes, which a slanted arm fills far better: a
    # point further in than its distance to that box's nearest side cannot be
    axes, olo, ohi = b.oriented_box()
    pts = _dense_samples(a, lo + deepest, hi - deepest, step,
                         None if away is None else (axes, olo + deepest, ohi - deepest), away)
    if away is not None and len(pts):
        pts = pts[np.linalg.norm(pts - away[0], axis=1) > away[1]]
    local = pts @ axes.T if len(pts) else np.zeros((0, 3))
    bound = np.minimum(np.minimum(pts - lo, hi - pts).min(axis=1), np.minimum(local - olo, ohi - local).min(axis=1)) \
        if len(pts) else np.zeros(0)
    pts, bound = pts[bound > deepest], bound[bound > deepest]
    order = np.argsort(-bound, kind="stable")
    tree = b.tree()
    # A sample closer to an outside point q than b's surface is (q's nearest-face distance d)
    # is outside too: the segment between them crosses no face.  So an outside q with a wide
    # clearance settles every sample within d of it (found in a k-d tree of the samples) without
    # an inside test of its own -- an arm passing through a table's open underside meets
    # thousands of such samples.  q's verdict is confirmed along a second axis first: one ray
    # grazing an edge must not settle a whole neighbourhood.
    settled = np.zeros(len(pts), dtype=bool)
    near: KDTree | None = None
    clearance = 4 * step
    for chunk in range(0, len(order), 1024):  # the samples settled before a chunk cost no Python
        ids = order[chunk:chunk + 1024]
        ids = ids[~settled[ids]]
        for i, q, most in zip(ids.tolist(), pts[ids].tolist(), bound[ids].tolist()):
            if most <= deepest:
                return deepest if deepest > OVERLAP_FLOOR else 0.0
            if settled[i]:
                continue
            d = tree.find_nearest(Vector(q))[3]
            if d is None or d <= deepest:
                continue
            if inside(b, q):
                deepest = d
            elif d > clearance and not inside(b, q, axis=1):
                if near is None:
                    near = KDTree(len(pts))
                    for k, co in enumerate(pts.tolist()):
                        near.insert(co, k)
                    near.balance()
                for _co, k, _dist in near.find_range(q, d * (1.0 - 1e-6)):
                    settled[k] = True
    return deepest if deepest > OVERLAP_FLOOR else 0.0


def solid_overlap(a: Solid, b: Solid, step: float = OVERLAP_STEP, beyond: float = 0.0, away: Away | None = None) -> float:
    """How deep two objects' solids run into each other (m), shell by shell: over every pair of
    shells whose boxes meet and whose faces cross (or one lies inside the other), the deepest
    reach of either's surface into the other's closed shell.  Faces that only touch give ~0.
    Only depths over ``beyond`` are looked for: a depth returned over it is exact, ``beyond``
    itself says "no deeper" (the caller knows all it needs below it); ``away``: as ``_reach``."""
    deepest = beyond
    for sa in a.shells():
        for sb in b.shells():
            if not (sa.faces and sb.faces):
                continue
            (alo, ahi), (blo, bhi) = sa.box(), sb.box()
            if (ahi < blo).any() or (bhi < alo).any():
                continue
            if not sa.tree().overlap(sb.tree()) and not inside(sb, sa.face_co[0]) and not inside(sa, sb.face_co[0]):
                continue
            deepest = max(deepest, _reach(sa, sb, step, deepest, away), _reach(sb, sa, step, deepest, away))
    return deepest


# (two solids' world shapes, the hinge left out) -> (depth, the depth looked beyond) (probe_core.remember): a pair at
# rest is measured once over its frames, and the parts an operator leaves be once, not once per
# operator.
_OVERLAPS: dict[tuple, tuple[float, float]] = {}


def overlap_beyond(a: Solid, b: Solid, need: float, away: Away | None = None) -> float:
    """``solid_overlap(a, b, beyond=need, away=away)``, answered from ``_OVERLAPS`` where an
    earlier look settles it: a depth found over what that look needed is exact; one at it says
    "no deeper", which settles any need as high."""
    key = (a.digest(), b.digest(), None if away is None else (tuple(np.round(away[0], 9).tolist()), float(away[1])))
    known = _OVERLAPS.get(key)
    if known is not None and (known[0] > known[1] or need >= known[1]):
        return known[0]
    depth = solid_overlap(a, b, beyond=need, away=away)
    remember(_OVERLAPS, key, (depth, need))
    return depth


FLOOR = "the floor"  # what solids_apart names a reach below floor_z

# Between two frames (red team 17): a forearm beside the box at frame 6 and on its other side at
# frame 7 went through it, though no frame shows the two overlapping.  Where two solids move
# further between two frames than SWEEP_SHARE of their summed thickness, the animation is
# evaluated at as many even subframes as keep each step under it (at most SWEEP_MAX_STEPS):
# passing through the thinner of two parts takes a step of their summed thickness at least.
SWEEP_SHARE = 0.5
SWEEP_MAX_STEPS = 32
# What the frames show between them (red team 19): keys made Constant, a Stepped F-modifier or a
# turn the long way round put the subframes on a path the clip never shows, and the forearm that
# is on one side of the box at frame 6 and on its other side at frame 7 met nothing there.  Each
# part is also carried along the shortest motion from its pose at one frame to its pose at the
# next (``_screw_power``: a rigid part turns about one axis while sliding along it; a part that
# changes shape moves each vertex straight), and judged there wherever that path leaves the
# animation's by more than the tolerance.


# Below this a turn is float noise on a slide (a rotated part keyed along a straight line): read
# as none, or the screw's axis lands millions of metres away.
SCREW_MIN_ANGLE = 1e-6


def _rotation_axis_angle(rot: np.ndarray) -> tuple[np.ndarray, float]:
    """(unit axis, angle in 0..pi) of the rotation matrix ``rot``: the angle from atan2 of the
    sine and cosine parts, exact for small turns where arccos of the trace is not."""
    vee = np.array([rot[2, 1] - rot[1, 2], rot[0, 2] - rot[2, 0], rot[1, 0] - rot[0, 1]])
    angle = float(np.arctan2(np.linalg.norm(vee) / 2.0, (np.trace(rot) - 1.0) / 2.0))
    axis = np.linalg.svd(rot - np.eye(3))[2][-1]  # the direction the rotation keeps
    if float(axis @ vee) < 0.0:  # 2 sin(angle) axis: the turn's sense (either at pi)
        axis = -axis
    return axis, angle


def _is_rigid(delta: np.ndarray) -> bool:
    rot = delta[:3, :3]
    return bool(np.allclose(rot.T @ rot, np.eye(3), atol=1e-5) and np.linalg.det(rot) > 0.0)


def _arcs_over_chords(deltas: np.ndarray) -> np.ndarray:
    """How much longer than its chord the screw path of each of ``deltas`` (n, 4, 4) may be (1
    for no turn, or a motion that scales or shears), all at once (one part's every step between
    frames: a robot's links over 120 frames asked one matrix at a time, its main cost)."""
    rot = deltas[:, :3, :3]
    gram = np.einsum("nji,njk->nik", rot, rot)
    rigid = (np.abs(gram - np.eye(3)) <= 1e-5 + 1e-5 * np.eye(3)).all(axis=(1, 2)) & (np.linalg.det(rot) > 0.0)
    vee = np.stack([rot[:, 2, 1] - rot[:, 1, 2], rot[:, 0, 2] - rot[:, 2, 0], rot[:, 1, 0] - rot[:, 0, 1]], axis=1)
    half = np.arctan2(np.linalg.norm(vee, axis=1) / 2.0, (np.trace(rot, axis1=1, axis2=2) - 1.0) / 2.0) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        arc = np.where(half > 1e-6, half / np.sin(half), 1.0)
    return np.where(rigid, arc, 1.0)


def _screw_power(delta: np.ndarray, t: float) -> np.ndarray | None:
    """``t`` (0..1) of the way along the rigid motion ``delta`` (4x4): the turn about its axis
    by ``t`` of its angle (under pi) and the slide along it by ``t`` of its length -- the
    shortest rigid motion that ends at ``delta``.  None when ``delta`` scales or shears."""
    screw = _screw(delta)
    return None if screw is None else screw(t)


# delta's bytes -> its screw (``_screw``; probe_core.remember): a step between two frames is
# looked at at every one of its subframes, each part's the same delta
_SCREWS: dict[bytes, Callable[[float], np.ndarray] | None] = {}


def _screw(delta: np.ndarray) -> Callable[[float], np.ndarray] | None:
    """The share -> matrix of the shortest rigid motion ending at ``delta`` (``_screw_power``),
    found once per delta; None when ``delta`` scales or shears or the screw does not land on it."""
    key = np.ascontiguousarray(delta, dtype=np.float64).tobytes()
    if key in _SCREWS:
        return _SCREWS[key]
    return remember(_SCREWS, key, _find_screw(np.array(delta, dtype=np.float64)))


def _find_screw(delta: np.ndarray) -> Callable[[float], np.ndarray] | None:
    if not _is_rigid(delta):
        return None
    rot, move = delta[:3, :3], delta[:3, 3]
    axis, angle = _rotation_axis_angle(rot)
    if angle < SCREW_MIN_ANGLE:
        def slide(share: float) -> np.ndarray:
            out = np.eye(4)
            out[:3, 3] = share * move
            return out
        return slide
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    along = float(move @ axis) * axis
    centre = np.linalg.lstsq(np.eye(3) - rot, move - along, rcond=None)[0]  # a point of the axis

    def part(share: float) -> np.ndarray:
        turn = np.eye(3) + math.sin(share * angle) * k + (1.0 - math.cos(share * angle)) * (k @ k)
        m = np.eye(4)
        m[:3, :3], m[:3, 3] = turn, centre - turn @ centre + share * along
        return m

    # the whole way must land on ``delta``, or the screw is not trusted
    if not np.allclose(part(1.0), delta, atol=1e-6 * max(1.0, float(np.abs(move).max()))):
        return None
    return part


def _shown_between(obj, at_f: dict | None, at_g: dict | None, world_f: np.ndarray, world_g: np.ndarray,
                   t: float) -> tuple[np.ndarray, np.ndarray] | None:
    """(world vertices, world matrix) of ``obj`` ``t`` of the way from one frame's pose to the
    next's along the shortest motion between them; None where the two frames' meshes do not
    correspond vertex for vertex."""
    if at_f is None or at_g is None or not len(at_f["co"]) or at_f["co"].shape != at_g["co"].shape \
            or not np.array_equal(at_f["loop_vert"], at_g["loop_vert"]):
        return None
    if fixed_shape(obj) and not draws_instances(obj):
        screw = _screw_power(world_g @ np.linalg.inv(world_f), t)
        if screw is not None:
            return at_f["co"] @ screw[:3, :3].T + screw[:3, 3], screw @ world_f
    return (1.0 - t) * at_f["co"] + t * at_g["co"], (1.0 - t) * world_f + t * world_g


def _motions(probe: Probe, obj, frames: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(how far any point of ``obj`` moves from each frame to the next (m), its thickness at
    the first of the two (m)), one entry per step of ``frames``.  A rigid part (``fixed_shape``,
    no instances): its box's corners carried by the world matrices (a point of an affinely
    moved box moves no further than a corner) and its box's smallest side in the world;
    otherwise the vertices themselves (the world box's diagonal, thickness 0, where they do not
    correspond: every step is looked at)."""
    if fixed_shape(obj) and not draws_instances(obj):
        # its shape is the same at every frame: the box wherever the depsgraph stands
        corners = np.array([tuple(c) for c in obj.evaluated_get(probe.depsgraph).bound_box], dtype=np.float64)
        sides = corners.max(axis=0) - corners.min(axis=0)
        mats = np.array([np.array(probe.world(obj, f), dtype=np.float64) for f in frames])  # (F, 4, 4)
        points = np.einsum("fij,cj->fci", mats[:, :3, :3], corners) + mats[:, None, :3, 3]  # (F, 8, 3)
        # the frames' own motion turns on an arc (_screw_power): at most pi/2 of its chord
        arc = _arcs_over_chords(mats[1:] @ np.linalg.inv(mats[:-1]))
        moved = np.linalg.norm(points[1:] - points[:-1], axis=2).max(axis=1) * arc
        scale = np.linalg.norm(mats[:, :3, :3], axis=1)  # (F, 3): each local axis' length in the world
        thick = (sides[None, :] * scale).min(axis=1)[:-1]
        # its thinnest shell, not its whole box (red team 27: a table's box is 0.6 m thick, its top
        # and legs 5 cm -- a gripper passed through a leg between two frames, never looked at)
        shell = _thinnest_shell(probe, obj, frames[0])
        if math.isfinite(shell):
            thick = np.minimum(thick, shell * (scale.min(axis=1) / max(float(scale[0].min()), 1e-12))[:-1])
        return moved, thick
    moved, thick = np.zeros(len(frames) - 1), np.zeros(len(frames) - 1)
    cached = _CACHE.setdefault(probe, {})

    def points(frame: int) -> np.ndarray | None:  # a Solid built already, else the mesh alone
        known = cached.get((int(frame), obj.name), False)
        if known is not False:
            return known.co if known is not None else None
        mesh = probe.mesh_arrays(obj, frame)
        return mesh["co"] if mesh is not None and len(mesh["co"]) else None

    last = points(frames[0])
    for i, g in enumerate(frames[1:]):
        pf, pg = last, points(g)
        last = pg
        if pf is None or pg is None:
            continue
        if pf.shape == pg.shape:
            moved[i], thick[i] = np.linalg.norm(pg - pf, axis=1).max(), np.ptp(pf, axis=0).min()
        else:
            moved[i] = np.linalg.norm(np.ptp(np.concatenate([pf, pg]), axis=0))
    return moved, thick


def _thinnest_shell(probe: Probe, obj, frame: int) -> float:
    """The thinnest of ``obj``'s shells at ``frame`` (m, world): a closed one's ``thickness``, an
    open one's smallest world box side; inf without geometry."""
    solid = solid_of(probe, obj, frame)
    widths = [thickness(sh) if sh.encloses else float(np.ptp(sh.face_co, axis=0).min())
              for sh in (solid.shells() if solid is not None else []) if len(sh.face_co)]
    return min(widths, default=math.inf)


def _relative_motion(probe: Probe, child, parent, frames: list[int]) -> np.ndarray | None:
    """How far any point of ``child`` moves relative to ``parent`` from each frame to the next
    (m): its box's corners carried by ``parent``'s inverse world matrix times its own; None where
    either is not rigid.  Two links a joint joins can pass through each other between frames only
    by turning about the joint, however fast the arm carries both round."""
    if not (fixed_shape(child) and fixed_shape(parent)) or draws_instances(child) or draws_instances(parent):
        return None
    corners = np.array([tuple(c) for c in child.evaluated_get(probe.depsgraph).bound_box], dtype=np.float64)
    rel = np.array([np.array(probe.world(parent, f).inverted_safe() @ probe.world(child, f), dtype=np.float64)
                    for f in frames])  # (F, 4, 4)
    points = np.einsum("fij,cj->fci", rel[:, :3, :3], corners) + rel[:, None, :3, 3]
    scale = np.array([np.linalg.norm(np.array(probe.world(parent, f), dtype=np.float64)[:3, :3], axis=0).max()
                      for f in frames[:-1]])  # back to world lengths: a scaled parent's local metres are not
    return np.linalg.norm(points[1:] - points[:-1], axis=2).max(axis=1) * scale


def _steps(reach: np.ndarray, thick: np.ndarray, tol: float) -> np.ndarray:
    """How many even steps each move of ``reach`` past parts ``thick`` together needs (1: none
    between the frames).  A step is never shorter than twice ``tol``: parts thinner than that
    cannot run into each other deeper than ``tol`` over a longer stretch of the way."""
    span = np.maximum(SWEEP_SHARE * thick, 2 * tol)
    return np.minimum(np.maximum(np.ceil(reach / span), 1), SWEEP_MAX_STEPS).astype(int)


def _depth_between(a_name: str, b_name: str, ma: dict | None, mb: dict | None, tol: float,
                   floor_z: float | None, hinges: dict) -> float:
    """How deep ``a_name`` runs into ``b_name`` (or below the floor) with the two meshes ``ma``
    and ``mb`` (world vertices plus ``world``, the part's world matrix then)."""
    if b_name == FLOOR:  # a mesh's lowest point is a vertex, as at the frames
        return float(floor_z - ma["co"][:, 2].min()) if ma is not None and len(ma["co"]) and floor_z is not None \
            else 0.0
    if ma is None or mb is None or not len(ma["poly_start"]) or not len(mb["poly_start"]):
        return 0.0
    if (ma["co"].max(axis=0) < mb["co"].min(axis=0)).any() or (mb["co"].max(axis=0) < ma["co"].min(axis=0)).any():
        return 0.0
    sa, sb = (solid_from_arrays(name, m["co"], m["loop_vert"], m["poly_start"], m["poly_total"],
                                float(np.linalg.det(m["world"])))
              for name, m in ((a_name, ma), (b_name, mb)))
    within = hinges.get((a_name, b_name))
    away = None if within is None else (np.array(mb["world"][:3, 3]), within)
    return overlap_beyond(sa, sb, tol, away)


def _sweep(probe: Probe, pairs: list, objs: list, frames: list[int], tol: float, floor_z: float | None,
           deepest: dict, hinges: dict | None = None) -> tuple[list[int], int]:
    """(frames after which a pair runs into each other -- or a part below the floor -- deeper than
    ``tol`` on the way to the next frame, subframes looked at); ``deepest`` gains what is found.
    A pair of ``hinges`` {(parent, child): within} counts only further than ``within`` from the
    child's origin then.  Each subframe is looked at where the animation puts the parts and,
    where it differs, where the shortest motion from one frame's pose to the next puts them
    (``_shown_between``)."""
    hinges = hinges or {}
    bad, looked = [], 0
    if len(frames) < 2:
        return bad, looked
    names = {o.name: o for pair in pairs for o in pair} | {o.name: o for o in objs}
    motion = {n: _motions(probe, o, frames) for n, o in names.items()}
    need = {(a.name, b.name): _steps(motion[a.name][0] + motion[b.name][0], motion[a.name][1] + motion[b.name][1],
                                     tol) for a, b in pairs}
    for a_name, b_name in hinges:  # a joint's links: only their motion relative to each other
        turned = _relative_motion(probe, names[b_name], names[a_name], frames)
        if turned is not None:
            need[(a_name, b_name)] = _steps(turned, motion[a_name][1] + motion[b_name][1], tol)
    # broad phase: a step where the two parts' boxes, each grown by how far it moves, stay apart
    # needs no subframe (every point of a part stays within its move of where it was)
    for (a_name, b_name), counts in need.items():
        if (a_name, b_name) in hinges:
            continue
        for i in np.flatnonzero(counts > 1).tolist():
            pad = float(motion[a_name][0][i] + motion[b_name][0][i]) + tol
            (alo, ahi), (blo, bhi) = probe.aabb(names[a_name], frames[i]), probe.aabb(names[b_name], frames[i])
            if any(ahi[k] + pad < blo[k] or bhi[k] + pad < alo[k] for k in range(3)):
                counts[i] = 1
    if floor_z is not None:  # a floor is no thickness to pass through: a part's own thickness
        need.update({(o.name, FLOOR): _steps(motion[o.name][0], 2 * motion[o.name][1], tol) for o in objs})
    most = np.max(np.stack(list(need.values())), axis=0) if need else np.ones(len(frames) - 1, dtype=int)
    for i in np.flatnonzero(most > 1).tolist():
        f, g = frames[i], frames[i + 1]
        if g != f + 1:
            continue
        n = int(most[i])
        steps = {pair: int(counts[i]) for pair, counts in need.items()}
        moving = sorted({name for pair, count in steps.items() if count > 1 for name in pair if name != FLOOR})
        # the two frames' poses, for the shortest motion between them: every part at f, then at g
        # (one frame_set each); per part (mesh at f, world at f, mesh at g, world at g)
        poses = {frame: {name: (probe.mesh_arrays(names[name], frame),
                                np.array(probe.world(names[name], frame), dtype=np.float64)) for name in moving}
                 for frame in (f, g)}
        ends = {name: (*poses[f][name], *poses[g][name]) for name in moving}
        over = False
        for k in range(1, n):
            looked += 1
            meshes: dict[str, dict | None] = {}
            shown: dict[str, tuple[dict, np.ndarray] | None] = {}  # name -> (mesh, world matrix)
            strays: dict[str, bool] = {}  # the shortest motion leaves the animation's path here
            for name in moving:
                obj = names[name]
                mesh = probe.mesh_arrays_between(obj, f, k / n)
                anim = np.array(obj.evaluated_get(probe.depsgraph).matrix_world, dtype=np.float64)
                meshes[name] = {**mesh, "world": anim} if mesh is not None and len(mesh["co"]) else None
                at_f, world_f, at_g, world_g = ends[name]
                between = _shown_between(obj, at_f, at_g, world_f, world_g, k / n)
                shown[name] = None if between is None else ({**at_f, "co": between[0]}, between[1])
                now = meshes[name]
                strays[name] = between is not None and (
                    now is None or now["co"].shape != between[0].shape
                    or float(np.linalg.norm(now["co"] - between[0], axis=1).max()) > tol)
            for (a_name, b_name), count in steps.items():
                if count <= 1:  # this pair moves too little to pass through anything between frames
                    continue
                views = [(meshes.get(a_name), None if b_name == FLOOR else meshes.get(b_name))]
                if strays.get(a_name) or strays.get(b_name):  # and where the frames say it went
                    views.append(tuple(None if name == FLOOR else (
                        {**shown[name][0], "world": shown[name][1]} if shown.get(name) is not None
                        else meshes.get(name)) for name in (a_name, b_name)))
                for ma, mb in views:
                    depth = _depth_between(a_name, b_name, ma, mb, tol, floor_z, hinges)
                    if depth > tol:
                        over = True
                        if depth > deepest.get((a_name, b_name), (0.0, f))[0]:
                            deepest[(a_name, b_name)] = (depth, round(f + k / n, 3))
        if over:
            bad.append(f)
    probe.at(frames[-1])
    return bad, looked
PAIRS = {"type": "array", "minItems": 1, "description": "list of [name, name] pairs",
         "items": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 2, "maxItems": 2}}
HINGES = {"type": "array", "minItems": 1,
          "description": "list of {links: [parent, child], within: metres > 0} (the child's origin is the joint)",
          "items": {"type": "object", "required": ["links", "within"], "additionalProperties": False,
                    "properties": {"links": {"type": "array", "items": {"type": "string", "minLength": 1},
                                             "minItems": 2, "maxItems": 2},
                                   "within": {"type": "number", "exclusiveMinimum": 0}}}}


@primitive(group="geometry", required=("objects", "others", "tolerance", "frame_start", "frame_end"),
           params={"objects": "names", "others": "names", "pairs": PAIRS, "hinges": HINGES, "floor_z": "number",
                   "tolerance": "tolerance", "frame_start": "integer", "frame_end": "integer",
                   "frame_step": "step"})
def solids_apart(probe: Probe, p: dict):
    """At no frame, nor on the way from one frame to the next (``_sweep``: subframes where parts
    move further than half their summed thickness), does any of ``objects`` run into any of
    ``others``, nor the two objects of any of ``pairs`` (a machine's links that no joint joins)
    into each other, nor the two links of any of ``hinges`` (links a joint joins: they overlap at
    the joint by design) into each other further than ``within`` (m) from the joint's pivot (the
    child link's origin) -- a link folded or sunk into its neighbour, nor -- with ``floor_z`` (a
    floor's top, m) -- any of ``objects`` reach below
    the floor, deeper than ``tolerance`` (m): their render-evaluated meshes, shell by shell (``solid_overlap``: the
    deepest reach of one's surface into the other's closed shell, sampled densely where they
    meet; below the floor: its lowest vertex), not their boxes -- a robot's forearm through a
    table top, the floor or a carried box is caught, a suction pad resting on the box's face
    (touching) is not.  A pair with the same name is skipped; an object that draws geometry no
    measure can read fails."""
    objs, others = probe.objects(list(p["objects"])), probe.objects(list(p["others"]))
    named = [probe.objects([str(a), str(b)]) for a, b in p.get("pairs", [])]
    hinged = [(*probe.objects([str(h["links"][0]), str(h["links"][1])]), float(h["within"])) for h in p.get("hinges", [])]
    frames, tol = sampled_frames(p), float(p["tolerance"])
    pairs = [(a, b) for a in objs for b in others if a.name != b.name]
    pairs += [(a, b) for a, b in named if a.name != b.name and (a, b) not in pairs and (b, a) not in pairs]
    hinges = {(a.name, b.name): within for a, b, within in hinged
              if a.name != b.name and (a, b) not in pairs and (b, a) not in pairs}
    pairs += [(a, b) for a, b, _ in hinged if (a.name, b.name) in hinges]
    deepest: dict[tuple[str, str], tuple[float, float]] = {}  # pair -> (deepest depth, its frame)
    bad = []
    for f in frames:
        over = False
        boxes = {o.name: probe.aabb(o, f) for pair in pairs for o in pair}  # once per object, not per pair
        for a, b in pairs:
            (alo, ahi), (blo, bhi) = boxes[a.name], boxes[b.name]
            if any(ahi[k] < blo[k] or bhi[k] < alo[k] for k in range(3)):
                continue
            sa, sb = solid_of(probe, a, f), solid_of(probe, b, f)
            so_far = deepest.get((a.name, b.name), (0.0, f))[0]
            if sa is None or sb is None:
                depth = 0.0
            else:
                # all a frame's verdict and the pair's record need: a depth over the tolerance
                # (until the frame is over) or over the pair's deepest so far -- a pair running
                # deep into another at every frame is walked in full once, not at each frame
                need = so_far if over else min(tol, so_far)
                within = hinges.get((a.name, b.name))
                away = None if within is None else (np.array(probe.world(b, f).translation), within)
                depth = overlap_beyond(sa, sb, need, away)  # parts at rest: measured once
            over = over or depth > tol
            if depth > so_far:
                deepest[(a.name, b.name)] = (depth, f)
        if "floor_z" in p:  # a mesh's lowest point is a vertex: the world box's floor is exact
            for a in objs:
                depth = float(p["floor_z"]) - probe.aabb(a, f)[0][2]
                over = over or depth > tol
                if depth > deepest.get((a.name, FLOOR), (0.0, f))[0]:
                    deepest[(a.name, FLOOR)] = (depth, f)
        if over:
            bad.append(f)
    swept, subframes = _sweep(probe, pairs, objs, frames, tol, float(p["floor_z"]) if "floor_z" in p else None, deepest,
                              hinges)
    bad = sorted(set(bad) | set(swept))
    worst = max((d for d, _ in deepest.values()), default=0.0)
    into = sorted(((d, f, a, b) for (a, b), (d, f) in deepest.items() if d > tol), reverse=True)
    unmeasured = {o.name: why for o in objs + others + [o for pair in named for o in pair]
                  if o.name in probe.rendered() and (why := unmeasured_geometry(o))}
    detail = (f"{len(bad)}/{len(frames)} frames with a part running into another deeper than {tol}, at the "
              f"frame or on the way to the next")
    if into:
        detail += "; " + ", ".join(f"{a} runs {d:.4f} m into {b} (frame {f:g})"
                                   + (f" further than {hinges[(a, b)]:g} m from their joint" if (a, b) in hinges else "")
                                   for d, f, a, b in into)
    measured = {"max_depth": rnd(worst), "frames_overlapping": len(bad), "frames_sampled": len(frames),
                "subframes_sampled": subframes}
    expected = {"max_depth": tol, **({"floor_z": float(p["floor_z"])} if "floor_z" in p else {}),
                **({"hinges": {f"{a} / {b}": w for (a, b), w in hinges.items()}} if hinges else {})}
    evidence = {"frames_overlapping": first_frames(bad),
                "depth_by_pair": {f"{a} / {b}": rnd(d) for (a, b), (d, _f) in deepest.items() if d > 0}}
    if unmeasured:
        detail += "; draws geometry the grader cannot measure: " + "; ".join(f"{n} ({w})" for n, w in unmeasured.items())
        measured["unmeasured"] = unmeasured
        return binary_outcome(False, measured, expected, detail, evidence)
    return fraction_outcome(len(frames) - len(bad), len(frames), measured, expected, detail, evidence)
