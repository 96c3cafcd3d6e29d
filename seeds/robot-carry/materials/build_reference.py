"""Reference project for robot-carry: a jointed robot arm, two tables and a box (run in bpy).

Units are metres, Z up.  The arm stands at the origin in its rest pose (straight up).
Joint hierarchy and pivots (each object's origin is its joint):

    Arm.Base      static column, top at z 0.40
    Arm.Turntable yaws about Z (rotation_euler.z), pivot z 0.40; at 0 the arm faces +X
    Arm.UpperArm  pitches about local Y (rotation_euler.y), shoulder at z 0.50, length 0.90
    Arm.Forearm   pitches about local Y, elbow at the end of the upper arm, length 0.80
    Arm.Gripper   suction gripper, pitches about local Y, wrist at the end of the forearm
    Gripper.Tip   empty at the suction pad, 0.20 from the wrist

Positive pitch tilts a link from +Z towards the turntable's +X.  TableA (centre x=1.2) and
TableB (centre y=1.2) are both 1.2 m from the base axis, 90 degrees apart; their tops are
0.60 x 0.60 m at z 0.75.  Box is a 0.25 m cube resting on TableA.
"""

import math

import bmesh
import bpy
from mathutils import Matrix, Vector

TABLE_TOP_Z = 0.75
BOX_SIZE = 0.25


def material(name, rgba):
    mat = bpy.data.materials.new(name)
    mat.diffuse_color = rgba
    return mat


def mesh_object(name, build, mat, parent=None, location=(0.0, 0.0, 0.0)):
    """An object whose mesh is made by build(bm); location is in the parent's space."""
    bm = bmesh.new()
    build(bm)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.parent = parent
    obj.location = location
    return obj


def cuboid(size, base_center=(0.0, 0.0, 0.0)):
    """A box of the given size whose bottom face is centred on base_center."""
    sx, sy, sz = size
    x, y, z = base_center
    m = Matrix.Translation((x, y, z + sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1.0))
    return lambda bm: bmesh.ops.create_cube(bm, size=1.0, matrix=m)


def cylinder(radius, depth, z0=0.0, segments=32):
    """A Z-axis cylinder standing on z0."""
    m = Matrix.Translation((0.0, 0.0, z0 + depth / 2))
    return lambda bm: bmesh.ops.create_cone(
        bm, cap_ends=True, segments=segments, radius1=radius, radius2=radius, depth=depth, matrix=m
    )


def combine(*builders):
    def build(bm):
        for b in builders:
            b(bm)

    return build


def build_arm(robot_mat, pad_mat):
    base = mesh_object("Arm.Base", cylinder(0.25, 0.40), robot_mat)
    turntable = mesh_object("Arm.Turntable", cylinder(0.20, 0.10), robot_mat, base, (0, 0, 0.40))
    upper = mesh_object("Arm.UpperArm", cuboid((0.12, 0.12, 0.90)), robot_mat, turntable, (0, 0, 0.10))
    fore = mesh_object("Arm.Forearm", cuboid((0.10, 0.10, 0.80)), robot_mat, upper, (0, 0, 0.90))
    gripper_shape = combine(cuboid((0.14, 0.14, 0.12)), cylinder(0.06, 0.08, z0=0.12))
    gripper = mesh_object("Arm.Gripper", gripper_shape, pad_mat, fore, (0, 0, 0.80))
    tip = bpy.data.objects.new("Gripper.Tip", None)
    tip.empty_display_type = "PLAIN_AXES"
    tip.empty_display_size = 0.08
    bpy.context.scene.collection.objects.link(tip)
    tip.parent = gripper
    tip.location = (0, 0, 0.20)


def table_shape():
    top_t, leg, inset, half = 0.05, 0.05, 0.02, 0.30
    leg_h = TABLE_TOP_Z - top_t
    off = half - inset - leg / 2
    legs = [cuboid((leg, leg, leg_h), (sx * off, sy * off, 0.0)) for sx in (-1, 1) for sy in (-1, 1)]
    return combine(cuboid((2 * half, 2 * half, top_t), (0, 0, leg_h)), *legs)


def build_props():
    wood = material("TableWood", (0.55, 0.38, 0.22, 1.0))
    mesh_object("TableA", table_shape(), wood, location=(1.2, 0.0, 0.0))
    mesh_object("TableB", table_shape(), wood, location=(0.0, 1.2, 0.0))
    cardboard = material("Cardboard", (0.70, 0.55, 0.35, 1.0))
    box = mesh_object("Box", cuboid((BOX_SIZE,) * 3, (0, 0, -BOX_SIZE / 2)), cardboard)
    box.location = (1.2, 0.0, TABLE_TOP_Z + BOX_SIZE / 2)


def build_stage():
    floor = mesh_object("Floor", cuboid((6.0, 6.0, 0.02), (0, 0, -0.02)), material("Floor", (0.3, 0.3, 0.32, 1.0)))
    floor.hide_select = True
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    bpy.context.scene.collection.objects.link(cam)
    cam.location = (5.0, -4.2, 3.6)
    cam.rotation_euler = (Vector((0.4, 0.4, 1.0)) - cam.location).to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.camera = cam
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.rotation_euler = (math.radians(40), math.radians(10), math.radians(30))
    bpy.context.scene.collection.objects.link(sun)


def main():
    scene = bpy.context.scene
    build_arm(material("RobotOrange", (0.90, 0.40, 0.05, 1.0)), material("RobotGrey", (0.2, 0.2, 0.2, 1.0)))
    build_props()
    build_stage()
    scene.render.fps = 24
    scene.frame_start, scene.frame_end = 1, 250  # Blender's default; the task asks for a shorter range
    scene.frame_set(1)


main()
