"""Gaming (must fail): the forearm passes from one side of the box to the other between two whole frames, the turntable keyed the long way round.

rt17_forearm_sweeps_through_box, with one change: from frame 7 on, the turntable's keys carry
one extra full turn (+360 degrees, the same pose at every frame).  At frame 6 the lowered
forearm lies beside the box on its +Y side (+14 degrees), at frame 7 on its -Y side (-14
degrees = 346 degrees): every rendered frame is identical to the rt17 sample's, and the clip
shows the forearm on one side of the untouched box, then on the other.  The spec states this
is a pass-through (REQ-NO-PENETRATION: "a part on one side of the box at one frame and on its
other side at the next has passed through it").  The between-frames sweep evaluates the
F-curves at subframes, and between frames 6 and 7 they turn the arm 332 degrees the other way
round (through TableB's side, clear of everything), so no subframe shows the forearm in the box.
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


SWEEP_YAW = math.radians(14.0)
SWEEP_Z = 0.875  # forearm centre line height: half-way up the box, 7.5 cm over the table top


def sweep_pose(yaw):
    """Forearm and gripper horizontal at SWEEP_Z, pointing out from the axis at ``yaw``."""
    dz = SWEEP_Z - SHOULDER_Z
    ex = math.sqrt(L1 * L1 - dz * dz)
    shoulder = math.atan2(ex, dz)
    return yaw, shoulder, math.pi / 2 - shoulder, 0.0


def blend(a, b, s):
    s = smooth(s)
    return tuple(x + (y - x) * s for x, y in zip(a, b))


def key_arm():
    rest = (turntable.rotation_euler.z, upper.rotation_euler.y, fore.rotation_euler.y, gripper.rotation_euler.y)
    p_plus, p_minus, hover = sweep_pose(SWEEP_YAW), sweep_pose(-SWEEP_YAW), pose(15, rest)
    up_plus = (SWEEP_YAW,) + rest[1:]
    for f in range(1, LAST + 1):
        if f <= 3:
            yaw, shoulder, elbow, wrist = blend(rest, up_plus, (f - 1) / 2)
        elif f <= 6:
            yaw, shoulder, elbow, wrist = blend(up_plus, p_plus, (f - 3) / 3)
        elif f < 15:
            yaw, shoulder, elbow, wrist = blend(p_minus, hover, (f - 7) / 8)
        else:
            yaw, shoulder, elbow, wrist = pose(f, rest)
        turntable.rotation_euler.z = yaw + (2 * math.pi if f >= 7 else 0.0)
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
            yaw = start_yaw + math.remainder(turntable.rotation_euler.z - ANGLES["A"], 2 * math.pi)
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
