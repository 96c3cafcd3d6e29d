"""Variant (should pass): a different, equally valid way to build the panel.

Built around object origins instead of world-space meshes: pointed (gothic) pickets extruded
from a five-point profile, repeated by an Array with a *relative* offset of 2 picket widths
(0.16 m for a 0.08 m picket) and vertices merged; the posts mirrored across an empty at the
panel's centre (Mirror Object) and softened by a Bevel modifier after the Mirror; the rails
made from one rail and an Array with a constant vertical offset; a darker stain.
"""

import bmesh
import bpy
from mathutils import Vector

wood = bpy.data.materials.new("Stain.Walnut")
wood.diffuse_color = (0.36, 0.24, 0.14, 1.0)
scene = bpy.context.scene


def new_object(name, bm, location):
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(wood)
    obj = bpy.data.objects.new(name, mesh)
    obj.location = location
    scene.collection.objects.link(obj)
    return obj


def box(size):
    """A box of ``size`` centred on its origin."""
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bmesh.ops.scale(bm, vec=size, verts=bm.verts)
    return bm


def pointed_picket(width, thick, height, point):
    """A picket standing on its origin, with a pointed top ``point`` high."""
    bm = bmesh.new()
    w = width / 2
    outline = [(-w, 0.0), (w, 0.0), (w, height - point), (0.0, height), (-w, height - point)]
    front = bm.faces.new([bm.verts.new((x, -thick / 2, z)) for x, z in outline])
    ext = bmesh.ops.extrude_face_region(bm, geom=[front])
    moved = [v for v in ext["geom"] if isinstance(v, bmesh.types.BMVert)]
    bmesh.ops.translate(bm, vec=(0.0, thick, 0.0), verts=moved)
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces[:])
    return bm


# the mirror centre
centre = bpy.data.objects.new("Fence.Centre", None)
scene.collection.objects.link(centre)

posts = new_object("Fence.Posts", box((0.10, 0.10, 1.10)), (-0.85, 0.0, 0.55))
mirror = posts.modifiers.new("Mirror across the centre", "MIRROR")
mirror.use_axis = (True, False, False)
mirror.mirror_object = centre
bevel = posts.modifiers.new("Soft edges", "BEVEL")
bevel.width, bevel.segments = 0.004, 2

rails = new_object("Fence.Rails", box((1.60, 0.03, 0.07)), (0.0, -0.035, 0.25))
stack = rails.modifiers.new("Two rails", "ARRAY")
stack.count = 2
stack.use_relative_offset = False
stack.use_constant_offset = True
stack.constant_offset_displace = (0.0, 0.0, 0.55)

pickets = new_object("Fence.Pickets", pointed_picket(0.08, 0.02, 0.95, 0.04), (-0.72, -0.06, 0.05))
row = pickets.modifiers.new("Picket row", "ARRAY")
row.count = 10
row.relative_offset_displace = Vector((2.0, 0.0, 0.0))
row.use_merge_vertices = True
