"""Variant (should pass): the same clean-up done on the data, without operators.

Differences from the reference solution: rotation and scale are baked into each mesh with
``Mesh.transform`` and the object's matrix reset; the origin is moved by shifting the vertices
and the object by the same offset (no 3D cursor); mesh data are renamed before their objects;
the props are gathered into a new collection ``Props`` (collections are not graded); and the
unit settings are set in a different order, with the rotation unit switched to radians.
"""

import bpy
from mathutils import Matrix, Vector

NAMES = {"Cube.001": "Workbench", "Cube.002": "PartsBin", "Cylinder": "SafetyPost", "Cylinder.001": "RobotPedestal"}

scene = bpy.context.scene
props = bpy.data.collections.new("Props")
scene.collection.children.link(props)

for old, asset in NAMES.items():
    obj = bpy.data.objects[old]
    name = f"SM_{asset}"
    obj.data.name = name
    obj.name = name
    loc, rot, scale = obj.matrix_basis.decompose()
    obj.data.transform(rot.to_matrix().to_4x4() @ Matrix.Diagonal((*scale, 1.0)))
    obj.matrix_basis = Matrix.Translation(loc)
    cos = [v.co for v in obj.data.vertices]
    base = Vector(((min(c.x for c in cos) + max(c.x for c in cos)) / 2,
                   (min(c.y for c in cos) + max(c.y for c in cos)) / 2,
                   min(c.z for c in cos)))
    obj.data.transform(Matrix.Translation(-base))
    obj.location = loc + base
    obj.data.update()
    for collection in list(obj.users_collection):
        collection.objects.unlink(obj)
    props.objects.link(obj)

units = scene.unit_settings
units.scale_length = 1.0
units.length_unit = "METERS"
units.system = "METRIC"
units.system_rotation = "RADIANS"
