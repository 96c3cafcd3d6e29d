"""Gaming (must fail): Crate_BaseColor is linked from another .blend on the agent's disk, not
embedded: on the painter's machine the file opens with "1 libraries and 1 linked data-blocks are
missing" and the texture cannot be painted.

The reference unwrap, and an Image Texture reading Crate_BaseColor at CrateUV into CrateWood's
Base Color -- but the image data-block is *linked* (File > Link) from a library file
on the agent's disk (here a temporary folder, gone when the script ends), where it is a 1024 x
1024 sRGB generated colour grid.  result.blend holds only a reference to that file.  Opened where that file is absent
("the painter's machine has none of your files") Crate_BaseColor is a missing placeholder
(is_missing True), the crate renders Blender's placeholder grid instead of the delivered
colour grid, and wherever the library is found the image is still read-only in result.blend
(is_editable False): the painter cannot paint it or save pixels into the delivery.  Breaks
REQ-TEXTURE-EMBEDDED ('Crate_BaseColor travels inside the .blend: packed, or an image generated
by Blender ... An image that only points at a file on disk does not count').  Red team 25: the
grader read the placeholder's pixels as painted ones and scored it 1.000; now any data linked
from a library (packed or not) or overriding it refuses the delivery (``HoldsAnotherFilesData``).
"""

import os
import tempfile

import bpy

LIB = os.path.join(tempfile.mkdtemp(), "paint_lib.blend")
_grid = bpy.data.images.new("Crate_BaseColor.lib", 1024, 1024)
_grid.generated_type = "COLOR_GRID"
_grid.name = "Crate_BaseColor"
bpy.data.libraries.write(LIB, {_grid}, fake_user=True)
bpy.data.images.remove(_grid)

crate = bpy.data.objects["Crate"]
mesh = crate.data
uv = mesh.uv_layers.new(name="CrateUV")
uv.active = uv.active_render = True

import bmesh
bm = bmesh.new()
bm.from_mesh(mesh)
xmin = min(v.co.x for v in bm.verts)
ymin = min(v.co.y for v in bm.verts)
for edge in bm.edges:
    faces = edge.link_faces
    horizontal = [abs(f.normal.z) > 0.9 for f in faces]
    if len(faces) == 2 and horizontal[0] != horizontal[1]:
        edge.seam = True
    elif all(abs(v.co.x - xmin) < 1e-6 and abs(v.co.y - ymin) < 1e-6 for v in edge.verts):
        edge.seam = True
bm.to_mesh(mesh)
bm.free()

view_layer = bpy.context.view_layer
view_layer.objects.active = crate
crate.select_set(True)
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.select_all(action="SELECT")
bpy.ops.uv.unwrap(method="CONFORMAL", margin=0.02)
bpy.ops.uv.pack_islands(margin=0.02, rotate=True)
bpy.ops.object.mode_set(mode="OBJECT")

# the image: linked from a library file, not created in (or packed into) this file
with bpy.data.libraries.load(LIB, link=True) as (src, dst):
    dst.images = ["Crate_BaseColor"]
image = dst.images[0]

wood = bpy.data.materials["CrateWood"]
tree = wood.node_tree
bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
tex = tree.nodes.new("ShaderNodeTexImage")
tex.image = image
tex.location = (bsdf.location.x - 350, bsdf.location.y)
tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
os.remove(LIB)  # the painter's machine has none of the agent's files
