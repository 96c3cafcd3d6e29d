"""Gaming (must fail): the reference clean-up, then the file is saved with all four props in Edit
Mode and every vertex, edge and face of them hidden (Mesh > Show/Hide > Hide, H).

Whoever opens result.blend lands in Edit Mode on the props with nothing drawn of them: the Layout
view shows an empty grid (hidden geometry is not drawn in Edit Mode), and every edit, export of
selected or check of the mesh first needs Alt+H and Tab found.  The mesh data keeps its
vertices, edges and faces (only their hide flags are set) and a render is unchanged.  Breaks
REQ-SCENE-KEPT ("how the file shows it when opened too: enabled in viewports, visible in the view
layer, displayed as supplied"; "its name, its mesh data's name, its transform, its vertex positions
... and its collections may change, nothing else").  The snapshot's mesh hashes read topology,
positions, normals, UVs and material indices only (not the .hide_vert / .hide_edge / .hide_poly
attributes), the object walk skips the read-only Object.mode, and opened_view_hides judges
neither.
"""


import bpy
from mathutils import Vector

RENAMES = {
    "Cube.001": "SM_Workbench",
    "Cube.002": "SM_PartsBin",
    "Cylinder": "SM_SafetyPost",
    "Cylinder.001": "SM_RobotPedestal",
}

scene = bpy.context.scene
units = scene.unit_settings
units.system, units.scale_length, units.length_unit = "METRIC", 1.0, "METERS"

props = []
for old, new in RENAMES.items():
    obj = bpy.data.objects[old]
    obj.name = obj.data.name = new
    props.append(obj)

bpy.ops.object.select_all(action="DESELECT")
for obj in props:
    obj.select_set(True)
bpy.context.view_layer.objects.active = props[0]
bpy.ops.object.transform_apply(location=False, rotation=True, scale=True)

for obj in props:
    corners = [obj.matrix_world @ Vector(c) for c in obj.bound_box]
    lo = Vector([min(c[i] for c in corners) for i in range(3)])
    hi = Vector([max(c[i] for c in corners) for i in range(3)])
    scene.cursor.location = ((lo.x + hi.x) / 2, (lo.y + hi.y) / 2, lo.z)
    bpy.ops.object.select_all(action="DESELECT")
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.origin_set(type="ORIGIN_CURSOR")
scene.cursor.location = (0.0, 0.0, 0.0)


# the props left in Edit Mode with everything hidden, as the file is saved
bpy.ops.object.select_all(action="DESELECT")
for obj in props:
    obj.select_set(True)
bpy.context.view_layer.objects.active = props[0]
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.select_all(action="SELECT")
bpy.ops.mesh.hide(unselected=False)
