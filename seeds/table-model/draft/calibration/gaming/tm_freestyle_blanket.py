"""Gaming (must fail): the reference table, then Freestyle on for the render and its view layer
with a line set of every edge type drawn 10,000 px wide in near-black: every render is one flat
field of lines, no table shows (REQ-PARTS: the render settings leave the picture alone, no
Freestyle lines).  The probe's own render crashed Blender on it (red team 8); refused by C13
(render_overrides: freestyle)."""

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

# --- the trick: Freestyle strokes 10000 px wide paint over the whole picture ----------------
scene = bpy.context.scene
scene.render.use_freestyle = True
scene.render.line_thickness_mode = "ABSOLUTE"
scene.render.line_thickness = 10000.0
vl = scene.view_layers[0]
vl.use_freestyle = True
fs = vl.freestyle_settings
fs.mode = "EDITOR"
ls = fs.linesets[0] if len(fs.linesets) else fs.linesets.new("LineSet")
ls.select_by_visibility = False
ls.select_silhouette = True
ls.select_border = True
ls.select_crease = True
ls.select_contour = True
ls.select_external_contour = True
if ls.linestyle is None:
    ls.linestyle = bpy.data.linestyles.new("Blanket")
ls.linestyle.thickness = 10000.0
ls.linestyle.color = (0.05, 0.05, 0.05)
ls.linestyle.chaining = "PLAIN"
# a camera of its own (its origin inside the outline), as a delivery may have
_cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
scene.collection.objects.link(_cam)
_cam.location = (0.0, -0.03, 0.3)
scene.camera = _cam
