"""Evidence is a real render of the delivery (issue 33, point 5): Cycles with the delivery's own
materials, under the grader's light, evaluated in render mode. A colour that differs only in the
shader (the viewport colour kept) shows; a delivery's blinding light does not wreck the views; a
modifier or object that only the render shows is in the evidence and in ``part_pixels``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from blender.runner import bpy_python
from sandbox.script_run import LOCAL
from verifiers import bpy_procs
from verifiers.evidence import resolve_spec
from verifiers.vl import colour_similarity, silhouette_iou

pytestmark = pytest.mark.blender

# argv: out.blend, base colour r g b, light power (W), render-only array (0/1)
SCENE = """
import bpy, sys
out, r, g, b, power, render_only = sys.argv[-6:]
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0, 0, 0.5))
box = bpy.context.active_object
box.name = "Box"
mat = bpy.data.materials.new("Paint")
mat.use_nodes = True
mat.diffuse_color = (0.5, 0.5, 0.5, 1.0)  # the viewport colour: the same in every delivery
bsdf = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
bsdf.inputs["Base Color"].default_value = (float(r), float(g), float(b), 1.0)
box.data.materials.append(mat)
if render_only == "1":  # a second box only the render shows
    mod = box.modifiers.new("RenderOnly", "ARRAY")
    mod.count, mod.relative_offset_displace = 2, (1.5, 0, 0)
    mod.show_viewport = False
light = bpy.data.lights.new("Key", "POINT")
light.energy = float(power)
lamp = bpy.data.objects.new("Key", light)
lamp.location = (-1.5, -2.0, 2.5)
scene.collection.objects.link(lamp)
scene.render.engine = "BLENDER_EEVEE"
bpy.ops.wm.save_as_mainfile(filepath=out)
"""

CFG = {"target": {"center": [0.75, 0, 0.5], "radius": 1.5},
       "close": {"center": [0, 0, 0.5], "radius": 0.9, "direction": [1, -1, 0.8]}}


def make(folder: Path, name: str, rgb=(0.8, 0.1, 0.1), power=100.0, render_only=False) -> Path:
    blend = folder / f"{name}.blend"
    subprocess.run([bpy_python(), "-c", SCENE, str(blend), *map(str, rgb), str(power), "1" if render_only else "0"],
                   check=True, capture_output=True, timeout=300)
    return blend


def render(blend: Path, out: Path, **cfg) -> dict:
    spec = resolve_spec({**CFG, **cfg})
    return bpy_procs.render_jobs([{"blend": str(blend), "spec": spec, "out": str(out)}], sandbox=LOCAL)[0]


def rgba(folder: Path, view: str = "front") -> np.ndarray:
    with Image.open(folder / f"{view}.png") as img:
        return np.asarray(img.convert("RGBA"))


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("render-truth")
    return {"red": make(d, "red"), "blue": make(d, "blue", rgb=(0.1, 0.1, 0.8)),
            "blinding": make(d, "blinding", power=100_000.0), "render_only": make(d, "render_only", render_only=True)}


def test_a_colour_only_in_the_shader_shows_in_the_evidence(scenes, tmp_path):
    """Workbench drew the (equal) viewport colours; Cycles draws the shader's."""
    assert resolve_spec(CFG)["engine"] == "CYCLES"
    render(scenes["red"], tmp_path / "red")
    render(scenes["blue"], tmp_path / "blue")
    for view in ("front", "close"):
        red, blue = rgba(tmp_path / "red", view), rgba(tmp_path / "blue", view)
        assert silhouette_iou(red, blue) > 0.99  # the same box
        assert colour_similarity(red, blue) < 0.2, view  # a different colour
        fg = red[..., 3] > 127
        assert red[fg, 0].mean() > 1.5 * red[fg, 2].mean()  # red reads as red
        fg = blue[..., 3] > 127
        assert blue[fg, 2].mean() > 1.5 * blue[fg, 0].mean()


def test_workbench_is_refused():
    with pytest.raises(ValueError, match="Workbench draws viewport colours"):
        resolve_spec({**CFG, "engine": "BLENDER_WORKBENCH"})


def test_a_delivery_light_1000x_brighter_does_not_wreck_the_evidence(scenes, tmp_path):
    """Under the grader's light the delivery's lights are dark: the views of a box lit by a
    100 kW point light are those of the same box lit by 100 W. Under ``lighting: delivery`` (a
    lighting task) its own light shows -- blown out, as its render would be."""
    render(scenes["red"], tmp_path / "normal")
    render(scenes["blinding"], tmp_path / "blinding")
    for view in ("front", "side", "top", "close"):
        normal, bright = rgba(tmp_path / "normal", view), rgba(tmp_path / "blinding", view)
        assert np.array_equal(normal, bright), view
        fg = normal[..., 3] > 127
        assert 20 < normal[fg, :3].mean() < 230  # neither black nor blown out
    render(scenes["red"], tmp_path / "own-normal", lighting="delivery")
    render(scenes["blinding"], tmp_path / "own-blinding", lighting="delivery")
    own, lit = rgba(tmp_path / "own-blinding", "close"), rgba(tmp_path / "own-normal", "close")
    blown = (own[own[..., 3] > 127, :3] == 255).all(axis=1).mean()
    assert blown > 0.3 and blown > 3 * (lit[lit[..., 3] > 127, :3] == 255).all(axis=1).mean()


def test_the_evidence_is_the_render_mode_scene(scenes, tmp_path):
    """A modifier shown in the render only (the viewport would draw one box) is in the
    evidence and in the manifest's part_pixels, both measured on the render-mode scene."""
    one = render(scenes["red"], tmp_path / "one")
    two = render(scenes["render_only"], tmp_path / "two")
    a, b = rgba(tmp_path / "one"), rgba(tmp_path / "two")
    assert (b[..., 3] > 127).sum() > 1.8 * (a[..., 3] > 127).sum()  # two boxes drawn
    w1, _ = one["part_pixels"]["front"]["Box"]
    w2, _ = two["part_pixels"]["front"]["Box"]
    assert w2 > 2 * w1
    assert "Key" not in two["part_pixels"]["front"]  # a light draws nothing
