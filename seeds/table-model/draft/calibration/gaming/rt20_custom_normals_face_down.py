"""Gaming (must fail): the reference table whose five meshes carry custom split normals all
pointing straight down (0, 0, -1), plus a 3 W/m² sun from above (well under the 30 W/m² cap):
every face shades as if it faced the floor, so the top renders a black slab and the legs dark under
any light from above -- the studio's own lights included, since swapping the shader by the name
'Wood' keeps the mesh's normals.  It is the grader's refused "linked Normal" bump moved from the
material into the mesh.  REQ-MATERIAL: Wood "a plain, opaque surface the studio shader can replace"
(what the render shades is not the plain surface); REQ-PARTS: "a render of the file ... shows the
parts as its engine draws them".  Geometry probes read positions only; surface_shader reads the
node tree (Normal / Coat Normal / Tangent links), never the mesh's custom normals.
"""
import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = 1.20, 0.80, 0.75, 0.04
LEG, INSET = 0.06, 0.03


def box_object(name, size, base_center, mat):
    """A box-shaped object whose origin is the centre of its bottom face."""
    sx, sy, sz = size
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    obj.location = base_center
    bpy.context.scene.collection.objects.link(obj)
    return obj


wood = bpy.data.materials.new("Wood")
wood.diffuse_color = (0.55, 0.36, 0.20, 1.0)
wood.use_nodes = True  # the render shows the Principled BSDF's colour, not the viewport's
wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.36, 0.20, 1.0)
leg_h = HEIGHT - TOP
box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    box_object(f"Leg.{tag}", (LEG, LEG, leg_h), (x, y, 0), wood)
for n in ("Tabletop", "Leg.FL", "Leg.FR", "Leg.BL", "Leg.BR"):
    me = bpy.data.objects[n].data
    me.normals_split_custom_set([(0.0, 0.0, -1.0)] * len(me.loops))
sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
sun.data.energy = 3.0
sun.location = (0, 0, 0.5)
bpy.context.scene.collection.objects.link(sun)
