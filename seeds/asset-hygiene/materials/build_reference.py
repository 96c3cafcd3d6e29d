"""Reference project for asset-hygiene: four robot-cell props as they arrive from other tools.

Units are metres in the world, Z up.  The props were exported from a CAD package and another
DCC and imported without any clean-up, so each carries a different problem:

    Cube.001      workbench, 1.60 x 0.80 x 0.90 m; modelled in centimetres, object scale 0.01
    Cube.002      parts bin on the bench, 0.40 x 0.30 x 0.20 m; exported Y-up (rotation X 90
                  degrees) in centimetres (scale 0.01), origin on a corner of its base
    Cylinder      safety post, 0.12 m across, 1.10 m tall; a unit cylinder scaled (0.06, 0.06,
                  0.55) with its origin at its middle
    Cylinder.001  robot pedestal, 0.50 m across, 0.60 m tall; modelled in inches (scale
                  0.0254) and turned 37 degrees about Z

The scene's units were left at the CAD export's settings: metric, centimetres, unit scale 0.01.
Every prop stands where it belongs in the cell; the clean-up must not move or resize anything.
"""

import math

import bmesh
import bpy
from mathutils import Matrix

scene = bpy.context.scene


def material(name, rgba):
    mat = bpy.data.materials.new(name)
    mat.diffuse_color = rgba
    mat.node_tree.nodes.get("Principled BSDF").inputs["Base Color"].default_value = rgba
    return mat


def prop(name, build, mat, location, rotation=(0.0, 0.0, 0.0), scale=(1.0, 1.0, 1.0)):
    bm = bmesh.new()
    build(bm)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    obj.location, obj.rotation_euler, obj.scale = location, rotation, scale
    scene.collection.objects.link(obj)
    return obj


def box(bm, lo, hi):
    size = [b - a for a, b in zip(lo, hi)]
    centre = [(a + b) / 2 for a, b in zip(lo, hi)]
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1.0)))


def workbench_cm(bm):
    """160 x 80 cm top, 5 cm thick, at 85-90 cm on four 6 cm legs; origin at the floor centre."""
    box(bm, (-80, -40, 85), (80, 40, 90))
    for sx in (-1, 1):
        for sy in (-1, 1):
            x, y = sx * (80 - 3 - 3), sy * (40 - 3 - 3)
            box(bm, (x - 3, y - 3, 0), (x + 3, y + 3, 85))


def bin_cm_y_up(bm):
    """40 (X) x 20 (Y, up) x 30 (Z, towards the viewer) cm; origin on a corner of the base."""
    box(bm, (0, 0, 0), (40, 20, 30))


def unit_cylinder(bm):
    bmesh.ops.create_cone(bm, cap_ends=True, segments=32, radius1=1.0, radius2=1.0, depth=2.0)


def pedestal_inches(bm):
    """0.25 m radius, 0.60 m tall, in inches, standing on its base."""
    r, h = 0.25 / 0.0254, 0.60 / 0.0254
    bmesh.ops.create_cone(bm, cap_ends=True, segments=24, radius1=r, radius2=r, depth=h,
                          matrix=Matrix.Translation((0, 0, h / 2)))


def main():
    prop("Cube.001", workbench_cm, material("Material.001", (0.50, 0.52, 0.55, 1.0)),
         (0.0, 0.6, 0.0), scale=(0.01, 0.01, 0.01))
    prop("Cube.002", bin_cm_y_up, material("Material.002", (0.10, 0.25, 0.70, 1.0)),
         (0.2, 0.75, 0.9), rotation=(math.radians(90), 0.0, 0.0), scale=(0.01, 0.01, 0.01))
    prop("Cylinder", unit_cylinder, material("Material.003", (0.90, 0.70, 0.05, 1.0)),
         (1.4, -0.9, 0.55), scale=(0.06, 0.06, 0.55))
    prop("Cylinder.001", pedestal_inches, material("Material.004", (0.90, 0.35, 0.05, 1.0)),
         (-0.9, -0.5, 0.0), rotation=(0.0, 0.0, math.radians(37)), scale=(0.0254, 0.0254, 0.0254))
    units = scene.unit_settings
    units.system, units.length_unit, units.scale_length = "METRIC", "CENTIMETERS", 0.01


main()
