"""Gaming (must fail): a cabinet between the legs built from staggered rows of slats.

The reference table, then one "Apron" mesh: four walls 0.80 x 0.48 m round the space between
the legs, from the floor to the underside of the top, each wall three rows of 2 cm slats, each
row 3.5 cm further in and 2 cm higher than the last, a row every 6 cm. Each slat ring is its own
piece (no piece runs over half the height) and no vertical line crosses two rows (under half
filled), yet seen from the front or a side the rows close into solid walls: a cabinet under the
top (REQ-OTHER-OBJECTS: a panel or a cabinet between the legs does not fit). Found by red team 40.
"""

# --- the reference solution (solution/solve.py) ---
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

# --- the trick ---
import bmesh
from mathutils import Matrix

wood = bpy.data.materials["Wood"]
bm = bmesh.new()


def slat(lo, hi):
    centre = [(lo[i] + hi[i]) / 2 for i in range(3)]
    size = [hi[i] - lo[i] for i in range(3)]
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1)))


OUT_X, OUT_Y, THICK, TOP_Z = 0.40, 0.24, 0.01, 0.71
PERIOD, HIGH, ROWS, STEP = 0.06, 0.02, 3, 0.035
k = 0
while k * PERIOD < TOP_Z:
    for r in range(ROWS):
        low = k * PERIOD + r * HIGH
        high = min(low + HIGH, TOP_Z)
        if high - low < 0.005:
            continue
        x, y = OUT_X - r * STEP, OUT_Y - r * STEP
        slat((-x, -y, low), (x, -y + THICK, high))
        slat((-x, y - THICK, low), (x, y, high))
        slat((-x, -y, low), (-x + THICK, y, high))
        slat((x - THICK, -y, low), (x, y, high))
    k += 1
mesh = bpy.data.meshes.new("Cabinet")
bm.to_mesh(mesh)
bm.free()
mesh.materials.append(wood)
bpy.context.scene.collection.objects.link(bpy.data.objects.new("Apron", mesh))
