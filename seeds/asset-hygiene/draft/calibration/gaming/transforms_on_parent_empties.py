"""Gaming (must fail): rotation and scale "applied" by moving them onto a parent empty.

Each prop gets a new empty placed at the centre of its base and carrying its rotation and
scale; the prop is parented to it with an identity transform of its own and its mesh is
shifted (in its unscaled centimetre / inch units) so nothing moves. The N panel reads scale 1,
rotation 0 and the origin sits at the base -- but the mesh data is still in centimetres and
inches, turned over, and the simulator reads the raw transforms.
"""

import bpy
from mathutils import Matrix, Vector

RENAMES = {"Cube.001": "SM_Workbench", "Cube.002": "SM_PartsBin", "Cylinder": "SM_SafetyPost",
           "Cylinder.001": "SM_RobotPedestal"}

scene = bpy.context.scene
units = scene.unit_settings
units.system, units.scale_length, units.length_unit = "METRIC", 1.0, "METERS"

for old, new in RENAMES.items():
    obj = bpy.data.objects[old]
    obj.name = obj.data.name = new
    world = obj.matrix_world.copy()
    corners = [world @ Vector(c) for c in obj.bound_box]
    base = Vector(((min(c.x for c in corners) + max(c.x for c in corners)) / 2,
                   (min(c.y for c in corners) + max(c.y for c in corners)) / 2,
                   min(c.z for c in corners)))
    _, rot, scale = world.decompose()
    holder = bpy.data.objects.new(new + "Xform", None)
    scene.collection.objects.link(holder)
    holder.matrix_world = Matrix.LocRotScale(base, rot, scale)
    # the mesh, in the holder's (unapplied) space, shifted so the world stays put
    obj.data.transform(holder.matrix_world.inverted() @ world)
    obj.parent = holder
    obj.matrix_parent_inverse = Matrix.Identity(4)
    obj.matrix_basis = Matrix.Identity(4)
