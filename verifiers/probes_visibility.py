"""Probe group: visibility (is a named part seen from outside, or hidden behind something else).
Runs in bpy (stdlib + bpy + numpy + mathutils only); measured on the evaluated scene in world
space.

Size, contact and box measures of the named parts cannot tell a table from a chest: thin walls
of extra geometry around the parts (each wall inside the allowed outline) leave every part as
it was, yet a render shows a closed box.  ``parts_unoccluded`` measures what a picture of the
scene can show of each part:

- **Samples.** Points on the part's evaluated surface (its instances included), area-weighted,
  a fixed pseudo-random draw (the same file gives the same verdict).
- **Viewpoints.** Around the centre of the parts' joint bounding box, at ``VIEW_DISTANCE``
  times its half diagonal: ``AZIMUTHS`` directions at each elevation of ``elevations``
  (degrees above the horizontal; default 15 and 45) and one straight above -- where a
  camera of a product shot stands.  A floor is never looked through from below.
- **Blockers.** Every other render-visible object's evaluated geometry, its instances and
  what a Background Set draws, the other named parts included (a leg's top end under the
  tabletop is covered; that is a few per cent of its surface).  The part's own geometry never
  blocks its own points: the share does not depend on face orientation.
- **Seen.** A sample point is seen when the straight line from it to at least one viewpoint
  crosses no blocker; the part's seen share is the seen samples' share.

Nor can a part's own measures tell a table from a table with six more legs under its top, or
with a cabinet between its legs: ``under_stays_open`` measures what other geometry makes of the
space under a part -- a few add-ons (an apron, braces) or something that stands there.
"""

from __future__ import annotations

import hashlib
import math
import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # standalone: siblings only
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from mathutils import Vector  # noqa: E402
from mathutils.bvhtree import BVHTree  # noqa: E402

from probe_core import GEOMETRY_TYPES, Outcome, Probe, fraction_outcome, names_param, primitive, remember, rnd  # noqa: E402
from probes_solid import fan_triangles  # noqa: E402

SHARE = {"type": "number", "minimum": 0, "maximum": 1, "description": "number 0..1"}
ELEVATIONS = {"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 90}, "minItems": 1,
              "description": "non-empty list of degrees 0..90"}

SAMPLES = 400  # sample points per part
AZIMUTHS = 8  # viewpoints around the parts at each elevation
DEFAULT_ELEVATIONS = (15.0, 45.0)
VIEW_DISTANCE = 4.0  # viewpoints' distance from the centre, in half diagonals of the parts' box
EPSILON = 1e-5  # a ray starts this far off its sample point (and off a hit on the part itself)
MAX_PASSES = 16  # hits on the part's own faces skipped along one ray


def _triangles(mesh: dict) -> np.ndarray:
    """(t, 3, 3) fan triangles of a ``mesh_arrays`` mesh."""
    p0, p1, p2, _ = fan_triangles(mesh["co"], mesh["loop_vert"], mesh["poly_start"], mesh["poly_total"])
    return np.stack([p0, p1, p2], axis=1) if len(p0) else np.zeros((0, 3, 3))


def area_points(tris: np.ndarray, count: int = SAMPLES) -> np.ndarray:
    """``count`` points on the triangles, area-weighted (fixed seed: the same mesh, the same points)."""
    area = 0.5 * np.linalg.norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]), axis=1)
    if not len(tris) or area.sum() <= 0:
        return np.zeros((0, 3))
    rng = np.random.default_rng(0)
    pick = rng.choice(len(tris), size=count, p=area / area.sum())
    u, v = rng.random(count), rng.random(count)
    flip = u + v > 1  # fold the square onto the triangle
    u, v = np.where(flip, 1 - u, u), np.where(flip, 1 - v, v)
    t = tris[pick]
    return t[:, 0] + u[:, None] * (t[:, 1] - t[:, 0]) + v[:, None] * (t[:, 2] - t[:, 0])


def viewpoints(lo: np.ndarray, hi: np.ndarray, elevations) -> np.ndarray:
    """Points around the box [lo, hi]: ``AZIMUTHS`` per elevation, and one straight above."""
    centre, radius = (lo + hi) / 2, max(float(np.linalg.norm(hi - lo)) / 2, 1e-3)
    dirs = [(0.0, 0.0, 1.0)]
    for elev in elevations:
        e = math.radians(float(elev))
        for k in range(AZIMUTHS):
            a = 2 * math.pi * (k + 0.5) / AZIMUTHS  # between the axes: each view sees two sides
            dirs.append((math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)))
    return centre + VIEW_DISTANCE * radius * np.array(dirs)


def _scene_geometry(probe: Probe, frame: int, leave_out: set[str] | frozenset = frozenset()) -> dict[str, np.ndarray]:
    """{drawer name: (t, 3, 3) world triangles}: what the render draws, per object (its own
    evaluated mesh and the instances credited to it) and per Background Set pseudo-drawer;
    the drawers named in ``leave_out`` are not read."""
    out: dict[str, np.ndarray] = {name: np.zeros((0, 3, 3)) for name in leave_out}
    for obj in probe.scene.objects:
        if obj.type in GEOMETRY_TYPES and obj.name in probe.rendered() and obj.name not in leave_out:
            mesh = probe.mesh_arrays(obj, frame)
            if mesh is not None:
                out[obj.name] = _triangles(mesh)
    for name, pieces in probe.instances(frame).items():
        if name not in out:  # instances of a drawer not rendered itself, or of a background set
            tris = [_triangles(piece) for piece in pieces]
            out[name] = np.concatenate(tris) if tris else np.zeros((0, 3, 3))
    return {name: tris for name, tris in out.items() if name not in leave_out}


def _drawers(geometry: dict[str, np.ndarray]) -> list[str]:
    """The names that draw at least one triangle, sorted (``_tree``'s drawer indices)."""
    return sorted(n for n, t in geometry.items() if len(t))


def _tree(geometry: dict[str, np.ndarray]) -> tuple[BVHTree | None, np.ndarray, list[str]]:
    """(BVH over every triangle, the drawer index of each triangle, drawer names)."""
    names = _drawers(geometry)
    if not names:
        return None, np.zeros(0, dtype=np.int64), names
    tris = np.concatenate([geometry[n] for n in names])
    owner = np.concatenate([np.full(len(geometry[n]), i, dtype=np.int64) for i, n in enumerate(names)])
    verts = tris.reshape(-1, 3).tolist()
    polys = np.arange(len(verts)).reshape(-1, 3).tolist()
    return BVHTree.FromPolygons(verts, polys), owner, names


def scene_tree(probe: Probe, frame: int) -> BVHTree | None:
    """A BVH over every triangle the render draws at ``frame`` (``_scene_geometry``)."""
    return _tree(_scene_geometry(probe, frame))[0]


def ray_blocked(tree: BVHTree, point: np.ndarray, direction: np.ndarray, length: float) -> bool:
    """Whether the ray from ``point`` along the unit ``direction`` meets any triangle of
    ``tree`` within ``length`` (past ``EPSILON``: not the face the point lies on)."""
    if length <= 2 * EPSILON:
        return False
    start = Vector((point + direction * EPSILON).tolist())
    hit = tree.ray_cast(start, Vector(direction.tolist()), length - 2 * EPSILON)[0]
    return hit is not None


def _blocked(tree: BVHTree, owner: np.ndarray, own: int, point: np.ndarray, target: np.ndarray) -> bool:
    """Whether the segment point -> target crosses a triangle of another drawer than ``own``."""
    origin, end = Vector(point.tolist()), Vector(target.tolist())
    for _ in range(MAX_PASSES):
        offset = end - origin
        length = offset.length
        if length <= EPSILON:
            return False
        direction = offset / length
        start = origin + direction * EPSILON
        hit, _normal, index, dist = tree.ray_cast(start, direction, length - EPSILON)
        if hit is None:
            return False
        if int(owner[index]) != own:
            return True
        origin = hit  # the part's own face: look on past it
    return False


def _covered(tree: BVHTree, owner: np.ndarray, own: int, point: np.ndarray) -> bool:
    """Whether another drawer's face lies on the point (within ``EPSILON``): a render shows either
    surface there (red team 28: a plane of another material laid exactly on the tabletop -- Cycles
    drew the plane -- left the top seen, the tie going to the part)."""
    return any(int(owner[index]) != own for _co, _n, index, _d in tree.find_nearest_range(Vector(point.tolist()), EPSILON))


def seen_share(tree, owner: np.ndarray, own: int, points: np.ndarray, views: np.ndarray) -> float:
    """Share of ``points`` seen from at least one of ``views``."""
    if not len(points):
        return 0.0
    if tree is None:
        return 1.0
    seen = sum(1 for q in points if not _covered(tree, owner, own, q)
               and any(not _blocked(tree, owner, own, q, v) for v in views))
    return seen / len(points)


_SEEN: dict[bytes, dict[str, float]] = {}  # the inputs' digest -> _seen_shares (probe_core.remember)


def _seen_shares(geometry: dict[str, np.ndarray], names: list[str], lo: np.ndarray, hi: np.ndarray,
                 elevations) -> dict[str, float]:
    """{part: share of its surface seen from at least one viewpoint}: a pure function of what the
    render draws (every drawer's world triangles), the parts and the viewpoints, kept for the
    process by a digest of all of them."""
    h = hashlib.blake2b(digest_size=16)
    for name in sorted(geometry):
        tris = np.ascontiguousarray(geometry[name], dtype=np.float64)
        h.update(name.encode() + b"\0" + str(tris.shape).encode())
        h.update(tris.tobytes())
    h.update(repr((names, np.asarray(lo, dtype=np.float64).tobytes(), np.asarray(hi, dtype=np.float64).tobytes(),
                   [float(e) for e in elevations])).encode())
    key = h.digest()
    if (known := _SEEN.get(key)) is not None:
        return known
    tree, owner, drawers = _tree(geometry)
    views = viewpoints(lo, hi, elevations)
    shares = {}
    for name in names:
        own = drawers.index(name) if name in drawers else -1
        points = area_points(geometry[name]) if own >= 0 else np.zeros((0, 3))
        shares[name] = seen_share(tree, owner, own, points, views)
    return remember(_SEEN, key, shares)


@primitive(group="geometry", required=("object|objects",),
           params={"object": "name", "objects": "names", "min_share": SHARE, "elevations": ELEVATIONS,
                   "frame": "integer"})
def parts_unoccluded(probe: Probe, p: dict):
    """Each named part is seen from outside: at least ``min_share`` (default 0.25) of its
    evaluated surface (area-weighted samples, its instances included) is seen from at least one
    viewpoint around the parts -- ``AZIMUTHS`` directions at each of ``elevations`` (degrees
    above the horizontal, default [15, 45]) and one straight above, at ``VIEW_DISTANCE`` half
    diagonals of the parts' joint box from its centre -- by a straight line that crosses no other
    render-visible geometry (other objects, their instances, a Background Set's, the other
    named parts; never the part's own) at ``frame`` (default 1).  Scores the share of parts seen."""
    names, frame = names_param(p), int(p.get("frame", 1))
    min_share = float(p.get("min_share", 0.25))
    objs = probe.objects(names)
    geometry = _scene_geometry(probe, frame)
    drawers = _drawers(geometry)
    parts = [o for o in objs if o.name in drawers]
    lo, hi = (np.array(b) for b in probe.union_aabb(parts or objs, frame))
    elevations = p.get("elevations", DEFAULT_ELEVATIONS)
    shares = _seen_shares(geometry, [o.name for o in objs], lo, hi, elevations)
    measured, failing = {}, {}
    for o in objs:
        share = shares[o.name]
        measured[o.name] = rnd(share)
        if share < min_share:
            failing[o.name] = "draws no surface" if o.name not in drawers else f"{share:.0%} of its surface seen"
    detail = (f"every part seen from outside (at least {min_share:.0%} of its surface)" if not failing
              else "hidden from every viewpoint: " + "; ".join(f"{n} ({why})" for n, why in failing.items()))
    return fraction_outcome(len(objs) - len(failing), len(objs), measured,
                            {"min_share": min_share, "elevations": list(elevations)},
                            detail, {"failing": failing, "viewpoints": len(viewpoints(lo, hi, elevations))})


VOXEL = 0.01  # m: the grid other geometry is laid on under a part (smaller than a leg: 2 cm)
COLUMN_REACH = 0.10  # m: a vertical line's fill counts what lies within this of it along X and Y
# the horizontal directions a side view looks along (degrees from X): the front and a side first
SIDE_VIEWS_DEG = (90, 0, *(d for d in range(15, 180, 15) if d != 90))
MAX_SURFACE_POINTS = 4_000_000  # more would make the spacing coarser, never the verdict skip


def surface_points(tris: np.ndarray, spacing: float) -> np.ndarray:
    """Points on every triangle no further than ``spacing`` apart along its edges (a barycentric
    grid per triangle, finer for larger ones): a thin card or a wire leaves a point in every
    voxel it passes through."""
    if not len(tris):
        return np.zeros((0, 3))
    edges = np.stack([np.linalg.norm(tris[:, a] - tris[:, b], axis=1) for a, b in ((0, 1), (1, 2), (2, 0))], axis=1)
    steps = np.maximum(1, np.ceil(edges.max(axis=1) / spacing)).astype(np.int64)
    total = int(((steps + 1) * (steps + 2) // 2).sum())
    if total > MAX_SURFACE_POINTS:
        return surface_points(tris, spacing * math.sqrt(total / MAX_SURFACE_POINTS))
    out = []
    for n in np.unique(steps):
        i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
        keep = i + j <= n
        u, v = i[keep] / n, j[keep] / n
        t = tris[steps == n]
        out.append((t[:, None, 0] + u[None, :, None] * (t[:, None, 1] - t[:, None, 0])
                    + v[None, :, None] * (t[:, None, 2] - t[:, None, 0])).reshape(-1, 3))
    return np.concatenate(out)


_CELLS: dict[bytes, np.ndarray] = {}  # the inputs' digest -> _cells_under (probe_core.remember)


def _cells_under(others: list[np.ndarray], lo: np.ndarray, hi: np.ndarray, floor: float, layers: int) -> np.ndarray:
    """(n, 3) the voxels under the box [lo, hi] (its footprint, ``floor`` up to ``layers``
    voxels) that points on the ``others`` triangles fall in: a pure function of them, kept for
    the process (a frame whose other geometry is the same is not laid on the grid again)."""
    points = surface_points(np.concatenate(others), VOXEL / 3) if others else np.zeros((0, 3))
    inside = ((points[:, 0] >= lo[0]) & (points[:, 0] <= hi[0]) & (points[:, 1] >= lo[1]) & (points[:, 1] <= hi[1])
              & (points[:, 2] >= floor) & (points[:, 2] < float(lo[2])))
    origin = np.array([lo[0], lo[1], floor])
    cells = np.floor((points[inside] - origin) / VOXEL).astype(np.int64)
    cells = cells[(cells[:, 2] >= 0) & (cells[:, 2] < layers)]
    # one int64 per voxel: numpy's unique over rows sorts them as bytes, many times slower
    nx, ny = int(cells[:, 0].max(initial=0)) + 1, int(cells[:, 1].max(initial=0)) + 1
    keys = np.unique((cells[:, 2] * ny + cells[:, 1]) * nx + cells[:, 0])
    return np.stack([keys % nx, (keys // nx) % ny, keys // (nx * ny)], axis=1)


def _column_fill(cells: np.ndarray, layers: int) -> tuple[int, int, int]:
    """(x, y, count): the vertical line whose column -- the voxels within ``COLUMN_REACH`` of it
    along X and Y -- holds occupied voxels at the most layers, and that count (red team 44: three
    blocks stepped 5 cm sideways each, floor to top, no line through two of them: a post)."""
    reach = int(round(COLUMN_REACH / VOXEL))
    nx, ny = int(cells[:, 0].max()) + 1, int(cells[:, 1].max()) + 1
    grid = np.zeros((nx, ny, layers), dtype=bool)
    grid[cells[:, 0], cells[:, 1], cells[:, 2]] = True
    for axis in (0, 1):  # a box max filter, 2 reach + 1 wide, as a running sum along each axis
        n = grid.shape[axis]
        total = np.cumsum(grid, axis=axis, dtype=np.int32)
        total = np.concatenate([np.zeros_like(np.take(total, [0], axis=axis)), total], axis=axis)
        hi = np.minimum(np.arange(n) + reach + 1, n)
        lo = np.maximum(np.arange(n) - reach, 0)
        grid = (np.take(total, hi, axis=axis) - np.take(total, lo, axis=axis)) > 0
    counts = grid.sum(axis=2)
    x, y = np.unravel_index(int(np.argmax(counts)), counts.shape)
    return int(x), int(y), int(counts[x, y])


def _side_fill(cells: np.ndarray, layers: int) -> tuple[float, int, float]:
    """(share of the height, direction in degrees from the X axis, where across in m from the grid's
    origin) of the side view -- looking horizontally along each of ``SIDE_VIEWS_DEG`` -- that
    geometry closes most: at a point across, the share of layers at which some occupied voxel lies
    on the horizontal line through it (red team 40: staggered rows of slats from the front; red
    team 44: a post stepped diagonally, each step in its own column from the front and a side)."""
    centres = (cells[:, :2] + 0.5) * VOXEL
    best = (0.0, 0, 0.0)
    for deg in SIDE_VIEWS_DEG:
        t = math.radians(deg)
        across = np.floor((-math.sin(t) * centres[:, 0] + math.cos(t) * centres[:, 1]) / VOXEL).astype(np.int64)
        closed = np.unique(np.stack([across, cells[:, 2]], axis=1), axis=0)
        where, counts = np.unique(closed[:, 0], return_counts=True)
        k = int(np.argmax(counts))
        if counts[k] / layers > best[0]:
            best = (float(counts[k]) / layers, deg, (float(where[k]) + 0.5) * VOXEL)
    return best


def _pieces_spans(cells: set[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """(lowest, highest) layer of each piece: the occupied voxels joined through their faces,
    edges and corners (a breadth-first walk: no scipy inside Blender's Python)."""
    left, spans = set(cells), []
    steps = [(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1) if (a, b, c) != (0, 0, 0)]
    while left:
        start = left.pop()
        low = high = start[2]
        todo = [start]
        while todo:
            x, y, z = todo.pop()
            for a, b, c in steps:
                nxt = (x + a, y + b, z + c)
                if nxt in left:
                    left.remove(nxt)
                    todo.append(nxt)
                    low, high = min(low, nxt[2]), max(high, nxt[2])
        spans.append((low, high))
    return spans


def _view_name(deg: int) -> str:
    """A side view by the horizontal direction it looks along (degrees from X)."""
    return {0: "a side", 90: "the front"}.get(deg, f"{deg} degrees round from a side")


@primitive(group="geometry", required=("under", "parts"),
           params={"under": "name", "parts": "names", "floor": {"type": "number", "description": "number (m)"},
                   "max_span": SHARE, "max_fill": SHARE, "max_side_fill": SHARE, "frame": "integer"})
def under_stays_open(probe: Probe, p: dict):
    """The space under ``under`` (a tabletop) -- its footprint, from ``floor`` (default 0) up to
    its underside -- holds no more than add-ons: every other piece the render draws there (all
    render-visible geometry but the named ``parts``: other objects, their instances, a Background
    Set's) runs over at most ``max_span`` (default 0.5) of that height, and nowhere does other
    geometry fill more than ``max_fill`` (default 0.5) of a vertical line through it -- what lies
    within ``COLUMN_REACH`` of the line along X and Y counting (red team 44: a post stepped
    sideways as it rises) --, nor, seen straight from the front or a side or along any horizontal
    direction (every 15 degrees), close more than ``max_side_fill`` (default 0.5) of the
    height at any point across (red team 40: staggered rows of slats, each row its own piece and
    no vertical line through two of them, closed a cabinet between the legs).  Measured
    on a ``VOXEL`` grid: points on every other triangle (no further apart than a third of a
    voxel) mark the voxels they lie in; a piece is the voxels joined through faces, edges or
    corners (pieces less than a voxel apart join); a line's fill is the share of the height at
    which a marked voxel lies in its column; a side view's, the share of the height at which some
    marked voxel lies on the horizontal line across.  More legs, posts, a cabinet or a panel standing under the top fail;
    an apron, braces and stretchers pass."""
    frame = int(p.get("frame", 1))
    parts = set(p["parts"])
    top = probe.obj(p["under"])
    lo, hi = (np.array(b) for b in probe.aabb(top, frame))
    floor = float(p.get("floor", 0.0))
    max_span, max_fill = float(p.get("max_span", 0.5)), float(p.get("max_fill", 0.5))
    max_side = float(p.get("max_side_fill", 0.5))
    height = float(lo[2]) - floor
    expected = {"max_span": max_span, "max_fill": max_fill, "max_side_fill": max_side, "voxel_m": VOXEL}
    if height <= VOXEL:
        return Outcome(0.0, False, {"height_m": rnd(height)}, expected,
                       f"no room under {top.name}: its underside is {height:.3f} m above the floor", {})
    others = [t for t in _scene_geometry(probe, frame, leave_out=parts).values() if len(t)]
    layers = int(math.ceil(height / VOXEL - 1e-9))
    h = hashlib.blake2b(repr((lo.tolist(), hi.tolist(), floor, layers)).encode(), digest_size=16)
    for tris in others:
        h.update(np.ascontiguousarray(tris, dtype=np.float64).tobytes())
    cells_array = _CELLS.get(h.digest())
    if cells_array is None:
        cells_array = remember(_CELLS, h.digest(), _cells_under(others, lo, hi, floor, layers))
    fill, span, worst_line, worst_piece, side, worst_side = 0.0, 0.0, None, None, 0.0, None
    origin = np.array([lo[0], lo[1], floor])
    if len(cells_array):
        x, y, count = _column_fill(cells_array, layers)
        fill = float(count) / layers
        worst_line = [rnd(float(origin[0] + (x + 0.5) * VOXEL)), rnd(float(origin[1] + (y + 0.5) * VOXEL))]
        spans = _pieces_spans({tuple(c) for c in cells_array.tolist()})
        low, high = max(spans, key=lambda s: s[1] - s[0])
        span = (high - low + 1) / layers
        worst_piece = [rnd(floor + low * VOXEL), rnd(floor + (high + 1) * VOXEL)]
        side, deg, where = _side_fill(cells_array, layers)
        t = math.radians(deg)
        worst_side = [deg, rnd(-math.sin(t) * float(origin[0]) + math.cos(t) * float(origin[1]) + where)]
    problems = []
    if span > max_span:
        problems.append(f"a piece runs from z {worst_piece[0]:.2f} to {worst_piece[1]:.2f} m, "
                        f"{span:.0%} of the {height:.2f} m under {top.name}")
    if fill > max_fill:
        problems.append(f"other geometry fills {fill:.0%} of the height within {COLUMN_REACH:g} m of the line at "
                        f"x {worst_line[0]:.2f}, y {worst_line[1]:.2f}")
    if side > max_side:
        spot = {0: f"at y {worst_side[1]:.2f}", 90: f"at x {-worst_side[1]:.2f}"}.get(
            worst_side[0], f"{worst_side[1]:.2f} m across")
        problems.append(f"seen from {_view_name(worst_side[0])}, other geometry closes {side:.0%} of the height {spot}")
    detail = (f"the space under {top.name} holds only add-ons (longest piece {span:.0%}, fullest line "
              f"{fill:.0%}, most closed from a side {side:.0%} of its {height:.2f} m)" if not problems else
              f"something stands under {top.name}: " + "; ".join(problems))
    return Outcome(0.0 if problems else 1.0, not problems, {"span": rnd(span), "fill": rnd(fill),
                                                            "side_fill": rnd(side)}, expected, detail,
                   {"height_m": rnd(height), "pieces_voxels": int(len(cells_array)), "worst_piece_z": worst_piece,
                    "worst_line_xy": worst_line, "worst_side": worst_side})
