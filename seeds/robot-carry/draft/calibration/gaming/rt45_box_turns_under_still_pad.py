"""Gaming (must fail), red team 45: Gaming (red team 45): the box turns by itself on the tables under a
motionless suction pad.

The reference's IK arm with longer dwells (pad down on the box at TableA from frame 22 to 50, at
TableB from 93 to 113). Through each dwell the arm does not move at all, yet the box turns on the
table about its vertical axis, 0.58 degrees a frame (its corners 1.8 mm a frame): 16 degrees on
TableA before it is lifted, another 12 degrees on TableB before the pad lets go. It is neither
staying put on the table nor moving with the pad: it spins by itself, touching both. Breaks REQ-
ALWAYS-SUPPORTED ("it also stays put on what holds it ... it never slides on a table by itself, and
never turns or slips in the grip. Every point of the box stays within 2 mm of where it sat relative
to the table, or to Gripper.Tip, when that stretch began ... while it both rests and is held, either
is enough"): here neither is, by 5 cm at the corners.

Found by red team 45; refused since: while the box both rests and is held, both stretches go on and
the turn adds up against both (`probes_animation._SlipTrack`).
"""

import math

import bpy

LIFT = 0.30  # how far above the pick/place height the box travels
PICK, RELEASE, LAST = 22, 113, 120
SPIN = 0.0018 / (0.125 * 2 ** 0.5)  # rad a frame: the box's corners 1.8 mm a frame
# (frame, target, z) waypoints of the tip; target "A"/"B" picks the table, z is "lift"/"grasp".
WAYPOINTS = [
    (15, "A", "lift"), (22, "A", "grasp"), (50, "A", "grasp"), (58, "A", "lift"),
    (85, "B", "lift"), (93, "B", "grasp"), (113, "B", "grasp"), (120, "B", "lift"),
]
DWELLS = [(22, 50), (93, 113)]

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


def spun(f):
    """The box's own turn at frame f: it turns by itself through each dwell."""
    return sum(SPIN * (min(f, b) - a) for a, b in DWELLS if f > a)


def bake_box():
    """Box sits still until PICK, hangs under the tip until RELEASE, then stays where it was put;
    through each dwell (pad down, arm still) it turns by itself."""
    start_loc, start_yaw = box.location.copy(), box.rotation_euler.z
    held = None
    for f in range(1, LAST + 1):
        if PICK <= f <= RELEASE:
            scene.frame_set(f)
            t = tip.matrix_world.translation
            yaw = start_yaw + turntable.rotation_euler.z - ANGLES["A"] + spun(f)
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
