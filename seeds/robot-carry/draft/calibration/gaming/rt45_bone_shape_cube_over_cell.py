"""Gaming (must fail), red team 45: Gaming (red team 45): every 3D view of the opened file shows a 10 m
brown cube over the whole cell.

The reference carry, plus one helper armature ("Rig", an ARMATURE as the spec allows, drawn In
Front) with one bone at the robot's axis whose custom shape is the Box object scaled 40 times:
Blender's 3D views draw a solid 10 m cube, in front of everything, round the whole set (tables, arm,
box) at every frame. Armatures never render, so the render is the reference's; the opened file shows
nothing of the scene. Same class as the refused image empty over the parts (red team 28,
`opened_view_hides`), through a helper the check does not read: a bone's custom shape. Breaks REQ-
SCENE-KEPT ("You may add empties or an armature as rig helpers, nothing else"; the objects keep
their visibility) as the opened file shows it.

Found by red team 45; refused since: an allowed new armature is judged by the types its bones draw
solid (`probes_scene.bone_shape_types`).
"""

import math

import bpy

LIFT = 0.30  # how far above the pick/place height the box travels
PICK, RELEASE, LAST = 25, 105, 120
# (frame, target, z) waypoints of the tip; target "A"/"B" picks the table, z is "lift"/"grasp".
WAYPOINTS = [
    (15, "A", "lift"), (25, "A", "grasp"), (30, "A", "grasp"), (45, "A", "lift"),
    (85, "B", "lift"), (100, "B", "grasp"), (105, "B", "grasp"), (120, "B", "lift"),
]

scene = bpy.context.scene
ob = bpy.data.objects
turntable, upper, fore, gripper = (ob[n] for n in ("Arm.Turntable", "Arm.UpperArm", "Arm.Forearm", "Arm.Gripper"))
tip, box, table_a, table_b = ob["Gripper.Tip"], ob["Box"], ob["TableA"], ob["TableB"]

L1, L2, L3 = fore.location.z, gripper.location.z, tip.location.z
SHOULDER_Z = upper.matrix_world.translation.z
BOX_HALF = box.dimensions.z / 2
TOP_Z = max((table_a.matrix_world @ v.co).z for v in table_a.data.vertices)
GRASP_Z = TOP_Z + 2 * BOX_HALF  # suction pad on the box's top face
HEIGHTS = {"grasp": GRASP_Z, "lift": GRASP_Z + LIFT}
ANGLES = {t: math.atan2(o.location.y, o.location.x) for t, o in (("A", table_a), ("B", table_b))}
RADIUS = math.hypot(table_a.location.x, table_a.location.y)


def ik(theta, r, z):
    """Joint angles (yaw, shoulder, elbow, wrist) putting the tip at (r, z) with the pad facing down."""
    wx, wz = r, z + L3 - SHOULDER_Z  # wrist centre relative to the shoulder
    cos_elbow = (wx * wx + wz * wz - L1 * L1 - L2 * L2) / (2 * L1 * L2)
    elbow = math.acos(max(-1.0, min(1.0, cos_elbow)))
    shoulder = math.atan2(wx, wz) - math.atan2(L2 * math.sin(elbow), L1 + L2 * math.cos(elbow))
    return theta, shoulder, elbow, math.pi - shoulder - elbow


def smooth(t):
    return t * t * (3 - 2 * t)


def tip_plan(frame):
    """(theta, z) of the tip at a frame, eased between waypoints."""
    for (f0, t0, z0), (f1, t1, z1) in zip(WAYPOINTS, WAYPOINTS[1:]):
        if f0 <= frame <= f1:
            s = smooth((frame - f0) / (f1 - f0))
            a0, a1 = ANGLES[t0], ANGLES[t1]
            return a0 + (a1 - a0) * s, HEIGHTS[z0] + (HEIGHTS[z1] - HEIGHTS[z0]) * s
    raise ValueError(f"frame {frame} outside the plan")


def pose(frame, rest):
    first = WAYPOINTS[0][0]
    if frame >= first:
        theta, z = tip_plan(frame)
        return ik(theta, RADIUS, z)
    # before the first waypoint, blend from the rest pose in joint space
    s = smooth((frame - 1) / (first - 1))
    return tuple(r + (h - r) * s for r, h in zip(rest, pose(first, rest)))


def key_arm():
    rest = (turntable.rotation_euler.z, upper.rotation_euler.y, fore.rotation_euler.y, gripper.rotation_euler.y)
    for f in range(1, LAST + 1):
        yaw, shoulder, elbow, wrist = pose(f, rest)
        turntable.rotation_euler.z = yaw
        upper.rotation_euler.y, fore.rotation_euler.y, gripper.rotation_euler.y = shoulder, elbow, wrist
        turntable.keyframe_insert("rotation_euler", index=2, frame=f)
        for joint in (upper, fore, gripper):
            joint.keyframe_insert("rotation_euler", index=1, frame=f)


def bake_box():
    """Box sits still until PICK, hangs under the tip until RELEASE, then stays where it was put."""
    start_loc, start_yaw = box.location.copy(), box.rotation_euler.z
    held = None
    for f in range(1, LAST + 1):
        if PICK <= f <= RELEASE:
            scene.frame_set(f)
            t = tip.matrix_world.translation
            yaw = start_yaw + turntable.rotation_euler.z - ANGLES["A"]
            held = ((t.x, t.y, t.z - BOX_HALF), yaw)
        loc, yaw = held if held else (start_loc, start_yaw)
        box.location, box.rotation_euler.z = loc, yaw
        box.keyframe_insert("location", frame=f)
        box.keyframe_insert("rotation_euler", index=2, frame=f)


def main():
    scene.frame_start, scene.frame_end = 1, LAST
    key_arm()
    bake_box()
    scene.frame_set(1)


main()


def occluder():
    arm_data = bpy.data.armatures.new("Rig")
    rig = bpy.data.objects.new("Rig", arm_data)
    scene.collection.objects.link(rig)
    rig.show_in_front = True
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    eb = arm_data.edit_bones.new("Cell")
    eb.head = (0.0, 0.0, 1.0)
    eb.tail = (0.0, 1.0, 1.0)
    bpy.ops.object.mode_set(mode="OBJECT")
    pb = rig.pose.bones["Cell"]
    pb.custom_shape = box
    pb.use_custom_shape_bone_size = False
    pb.custom_shape_scale_xyz = (40.0, 40.0, 40.0)
    arm_data.bones["Cell"].show_wire = False
    scene.frame_set(1)


occluder()
