"""Gaming (must fail): the box is left unheld on one edge, tipped 9.5 degrees, for 38 frames.

The gripper tilts the box 9.5 degrees in its radial plane during the swing (the pad still within 10
degrees of straight down), sets it on TableB on its lowest bottom edge at frame 67, lets go and
parks 25 cm above it: frames 68-105 the box stands frozen on that edge, one side 4 cm off the
table, its centre of mass 10 cm inside the edge -- a real box drops flat at once. The gripper then
re-grips it, rolls it flat about the edge while holding it and releases it flat by frame 115. The
instruction: "physically believable ... at every moment it is either sitting on a table or held by
the suction gripper"; REQ-ALWAYS-SUPPORTED: resting on a table top as in REQ-START-ON-A (its bottom
face on the top). Found by red team 29.
"""

import math
import bpy
from mathutils import Matrix, Vector

scene = bpy.context.scene
ob = bpy.data.objects
turntable, upper, fore, gripper = (ob[n] for n in ("Arm.Turntable", "Arm.UpperArm", "Arm.Forearm", "Arm.Gripper"))
tip, box, table_a, table_b = ob["Gripper.Tip"], ob["Box"], ob["TableA"], ob["TableB"]
L1, L2, L3 = fore.location.z, gripper.location.z, tip.location.z
SHOULDER_Z = upper.matrix_world.translation.z
H = box.dimensions.z / 2
TOP_Z = max((table_a.matrix_world @ v.co).z for v in table_a.data.vertices)
GRASP_Z = TOP_Z + 2 * H
LIFT = 0.30
R = math.hypot(table_a.location.x, table_a.location.y)
TA, TB = math.atan2(table_a.location.y, table_a.location.x), math.atan2(table_b.location.y, table_b.location.x)
PHI = math.radians(9.5)


def ik(theta, r, z, phi):
    # pad direction in (r, z): (sin phi, -cos phi); link angle sum alpha = pi - phi
    wx, wz = r - L3 * math.sin(phi), z + L3 * math.cos(phi) - SHOULDER_Z
    c = (wx * wx + wz * wz - L1 * L1 - L2 * L2) / (2 * L1 * L2)
    elbow = math.acos(max(-1.0, min(1.0, c)))
    shoulder = math.atan2(wx, wz) - math.atan2(L2 * math.sin(elbow), L1 + L2 * math.cos(elbow))
    return theta, shoulder, elbow, (math.pi - phi) - shoulder - elbow


def sm(t):
    t = max(0.0, min(1.0, t))
    return t * t * (3 - 2 * t)


# tilted box: rotate about tip (top centre) by phi in radial plane; lowest point offset below tip
# box corners relative to tip in (r, z) plane: bottom corners at (+-H, -2H) rotated by phi
def lowest_below_tip(phi):
    # rotation taking down (0,-1) to (sin phi, -cos phi): r' = r cos - z sin ... use matrix
    pts = [(sx * H, zz) for sx in (-1, 1) for zz in (0.0, -2 * H)]
    rot = [(x * math.cos(phi) + (-z) * (-math.sin(phi)) * 0 + x * 0, 0) for x, z in pts]  # placeholder
    lows = []
    for x, z in pts:
        # rotate vector (x, z) by angle -phi? down vector (0,-1) -> (sin phi, -cos phi): rotation by +phi (ccw in (r,z))
        xr = x * math.cos(phi) - z * math.sin(phi)
        zr = x * math.sin(phi) + z * math.cos(phi)
        lows.append((zr, xr))
    return min(lows)  # (z offset, r offset) of lowest corner


zlow, rlow = lowest_below_tip(PHI)
SET_Z = TOP_Z + 0.0005 - zlow  # tip z so lowest edge sits on the table top
PIVOT = (R + rlow, TOP_Z + 0.0005)  # the lowest edge in (r, z)


def roll_tip(s):
    """tip (r, z, phi) when the box has rolled from PHI to 0 about its lowest edge (s 0..1)."""
    phi = PHI * (1 - s)
    dz, dr = lowest_below_tip(phi)  # not the same edge for phi>0 vs 0; keep the same corner
    # keep the same physical edge: corner (sx, -2H) with sx chosen at PHI
    x, z = (H if rlow > 0 else -H), -2 * H
    xr = x * math.cos(phi) - z * math.sin(phi)
    zr = x * math.sin(phi) + z * math.cos(phi)
    return PIVOT[0] - xr, PIVOT[1] - zr, phi


def plan(f):
    lift_z = GRASP_Z + LIFT
    segs = [(1, 15, None), ]
    if f <= 15:
        return None
    if f <= 25:
        s = sm((f - 15) / 10); return TA, R, lift_z + (GRASP_Z - lift_z) * s, 0.0
    if f <= 30:
        return TA, R, GRASP_Z, 0.0
    if f <= 45:
        s = sm((f - 30) / 15); return TA, R, GRASP_Z + LIFT * s, 0.0
    if f <= 58:
        s = sm((f - 45) / 13); return TA + (TB - TA) * s, R, lift_z, PHI * s
    if f <= 66:
        s = sm((f - 58) / 8); return TB, R, lift_z + (SET_Z - lift_z) * s, PHI
    if f <= 67:
        return TB, R, SET_Z, PHI
    if f <= 75:  # lift away, box left on its edge
        s = sm((f - 67) / 8); return TB, R, SET_Z + 0.25 * s, PHI
    if f <= 98:
        return TB, R, SET_Z + 0.25, PHI
    if f <= 106:
        s = sm((f - 98) / 8); return TB, R, SET_Z + 0.25 * (1 - s), PHI
    if f <= 108:
        return TB, R, SET_Z, PHI
    if f <= 114:
        r, z, phi = roll_tip(sm((f - 108) / 6)); return TB, r, z, phi
    if f <= 115:
        r, z, phi = roll_tip(1.0); return TB, r, z, phi
    r, z, phi = roll_tip(1.0)
    s = sm((f - 115) / 5); return TB, r, z + 0.15 * s, 0.0


rest = (turntable.rotation_euler.z, upper.rotation_euler.y, fore.rotation_euler.y, gripper.rotation_euler.y)
first = ik(*plan(16)[:1], *plan(16)[1:]) if False else None
hover = ik(TA, R, GRASP_Z + LIFT, 0.0)
scene.frame_start, scene.frame_end = 1, 120
for f in range(1, 121):
    p = plan(f)
    if p is None:
        s = sm((f - 1) / 14)
        q = tuple(a + (b - a) * s for a, b in zip(rest, hover))
    else:
        q = ik(*p)
    turntable.rotation_euler.z = q[0]
    upper.rotation_euler.y, fore.rotation_euler.y, gripper.rotation_euler.y = q[1], q[2], q[3]
    turntable.keyframe_insert("rotation_euler", index=2, frame=f)
    for j in (upper, fore, gripper):
        j.keyframe_insert("rotation_euler", index=1, frame=f)

HELD = set(range(25, 68)) | set(range(106, 116))
offset, cur = None, box.matrix_world.copy()
prev_eul = box.rotation_euler.copy()
for f in range(1, 121):
    scene.frame_set(f)
    tw = tip.matrix_world.copy()
    if f in HELD:
        if offset is None:
            offset = tw.inverted() @ cur
        cur = tw @ offset
    else:
        offset = None
    box.matrix_world = cur
    loc, rot, _ = cur.decompose()
    box.location = loc
    box.rotation_euler = rot.to_euler("XYZ", prev_eul)
    prev_eul = box.rotation_euler.copy()
    box.keyframe_insert("location", frame=f)
    box.keyframe_insert("rotation_euler", frame=f)
scene.frame_set(1)
