"""How the probes read a scene, in real Blender.

* Nothing a measurement reads outlives it. A warm probe process measures one delivery after
  another, and mutation testing changes a scene between two measurements; a cache keyed by a
  data-block's address would hand the second measurement the first one's content (Blender reuses
  addresses, and a script can change an image in place).
* The fast mesh readers (``probe_core.vertex_positions`` and the rest: attribute reads) give
  exactly what the per-element properties give, on meshes of every kind a delivery may hold.

Each check runs in one bpy process, unsandboxed: everything it runs is this test's own code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.bpy_forks import run_bpy_script

pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]

IMAGE_REPAINTED = r'''
import json, sys
import bpy
sys.path.insert(0, sys.argv[1])
from probe_core import render_probe
from probes_surface import image_pixels

bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
img = bpy.data.images.new("Paint", 4, 4)
img.colorspace_settings.name = "Non-Color"  # the pixels as stored: no sRGB decoding in the way
img.pixels = [1.0, 0.0, 0.0, 1.0] * 16


def mean_rgb(probe):
    rgb, _ = image_pixels(img)
    return [round(float(v), 4) for v in rgb.mean(axis=(0, 1))]


first = render_probe(scene, None, mean_rgb)
img.pixels = [0.0, 0.0, 1.0, 1.0] * 16  # repainted in place: the same data-block, the same address
second = render_probe(scene, None, mean_rgb)
print(json.dumps({"first": first, "second": second}))
'''


def run_bpy(script: str, tmp_path: Path) -> dict:
    path = tmp_path / "check.py"
    path.write_text(script, encoding="utf-8")
    proc = run_bpy_script(str(path), str(ROOT / "verifiers"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_an_image_repainted_between_two_measurements_is_read_again(tmp_path):
    got = run_bpy(IMAGE_REPAINTED, tmp_path)
    assert got["first"] == [1.0, 0.0, 0.0]
    assert got["second"] == [0.0, 0.0, 1.0], got


MESHES = r"""
import json, sys
import bpy
import bmesh
import numpy as np
sys.path.insert(0, sys.argv[1])
import probe_core as pc

bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene


def link(obj):
    scene.collection.objects.link(obj)
    return obj


def mesh_object(name, build):
    bm = bmesh.new()
    build(bm)
    me = bpy.data.meshes.new(name)
    bm.to_mesh(me)
    bm.free()
    return link(bpy.data.objects.new(name, me))


cube = mesh_object("Subdivided", lambda bm: bmesh.ops.create_cube(bm, size=1.0))
cube.data.uv_layers.new(name="UVMap")
cube.data.uv_layers.new(name="Second")
cube.modifiers.new("Sub", "SUBSURF").levels = 3


def ngons(bm):
    bmesh.ops.create_circle(bm, cap_ends=True, segments=9, radius=1.0)
    bmesh.ops.create_cube(bm, size=0.5)


slots = mesh_object("Slots", ngons)
for name in ("A", "B", "C"):
    slots.data.materials.append(bpy.data.materials.new(name))
for i, face in enumerate(slots.data.polygons):
    face.material_index = i % 3
mesh_object("Empty", lambda bm: None)
curve = bpy.data.curves.new("Curve", "CURVE")
curve.dimensions, curve.bevel_depth = "3D", 0.1
spline = curve.splines.new("BEZIER")
spline.bezier_points.add(2)
for i, p in enumerate(spline.bezier_points):
    p.co = (i, i % 2, 0.0)
    p.handle_left_type = p.handle_right_type = "AUTO"
link(bpy.data.objects.new("Curve", curve))
line = mesh_object("Line", lambda bm: bmesh.ops.create_grid(bm, x_segments=1, y_segments=1, size=1.0))
tree = bpy.data.node_groups.new("Points", "GeometryNodeTree")
tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
node = tree.nodes.new("GeometryNodeMeshLine")
node.inputs["Count"].default_value = 7
tree.links.new(node.outputs[0], tree.nodes.new("NodeGroupOutput").inputs[0])
line.modifiers.new("Line", "NODES").node_group = tree


def legacy(mesh):
    nv, ne, nf, nl = len(mesh.vertices), len(mesh.edges), len(mesh.polygons), len(mesh.loops)
    co = np.empty(3 * nv, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    loops = np.empty(nl, dtype=np.int64)
    mesh.loops.foreach_get("vertex_index", loops)
    edges = np.empty(2 * ne, dtype=np.int64)
    mesh.edges.foreach_get("vertices", edges)
    mat = np.empty(nf, dtype=np.int64)
    mesh.polygons.foreach_get("material_index", mat)
    uvs = []
    for layer in mesh.uv_layers:
        uv = np.empty(2 * nl, dtype=np.float64)
        layer.data.foreach_get("uv", uv)
        uvs.append(uv)
    mesh.calc_loop_triangles()
    nt = len(mesh.loop_triangles)
    tri = {k: np.empty(w * nt, dtype=np.int64) for k, w in (("loops", 3), ("vertices", 3),
                                                              ("polygon_index", 1), ("material_index", 1))}
    for k, a in tri.items():
        mesh.loop_triangles.foreach_get(k, a)
    normal = np.empty(3 * nt, dtype=np.float64)
    mesh.loop_triangles.foreach_get("normal", normal)
    return co, loops, edges, mat, uvs, tri, normal


def same(a, b):
    return a.dtype.kind == b.dtype.kind and a.shape == b.shape and bool(np.array_equal(a, b))


out = {}
dg = bpy.context.evaluated_depsgraph_get()
for obj in scene.objects:
    ev = obj.evaluated_get(dg)
    mesh = ev.to_mesh()
    co, loops, edges, mat, uvs, tri, normal = legacy(mesh)
    fast = pc.loop_triangles(mesh)
    out[obj.name] = {
        "sizes": [len(mesh.vertices), len(mesh.polygons), len(mesh.uv_layers), len(mesh.loop_triangles)],
        "positions": same(pc.vertex_positions(mesh), co),
        "corner_verts": same(pc.corner_verts(mesh), loops),
        "edge_verts": same(pc.edge_verts(mesh), edges),
        "material_index": same(pc.face_material_indices(mesh), mat),
        "uv": [same(pc.uv_vectors(layer, len(mesh.loops)).astype(np.float64), uv)
               for layer, uv in zip(mesh.uv_layers, uvs)],
        "triangles": [same(fast["loops"].ravel(), tri["loops"]), same(fast["vertices"].ravel(), tri["vertices"]),
                      same(fast["polygon"], tri["polygon_index"]),
                      same(fast["material_index"], tri["material_index"]),
                      same(fast["normal"].ravel(), normal)],
    }
    ev.to_mesh_clear()
print(json.dumps(out))
"""


def test_the_fast_mesh_readers_read_what_the_element_properties_hold(tmp_path):
    got = run_bpy(MESHES, tmp_path)
    assert set(got) == {"Subdivided", "Slots", "Empty", "Curve", "Line"}
    sizes = {name: entry.pop("sizes") for name, entry in got.items()}
    assert sizes["Subdivided"][0] > 300 and sizes["Subdivided"][2] == 2  # subdivided; two UV maps
    assert sizes["Empty"] == [0, 0, 0, 0] and sizes["Line"][1] == 0  # nothing; a line has no faces
    assert sizes["Slots"][1] > 6 and sizes["Curve"][1] > 0  # n-gons and slots; a bevelled curve
    for name, entry in got.items():
        assert entry == {"positions": True, "corner_verts": True, "edge_verts": True, "material_index": True,
                         "uv": [True] * len(entry["uv"]), "triangles": [True] * 5}, (name, entry)
