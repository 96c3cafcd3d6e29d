"""The renderer measures, in real Blender, how many pixels each drawn object covers in each
static view, so authoring can refuse evidence in which the VL judge cannot see a graded part
(tests/unit/test_evidence_visibility.py has the pure check)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from blender.runner import bpy_python
from sandbox.script_run import LOCAL
from verifiers import bpy_procs
from verifiers.evidence import resolve_spec, unseen_parts

pytestmark = pytest.mark.blender

SCENE = """
import bpy, sys
bpy.ops.wm.read_factory_settings(use_empty=True)
def cube(name, size, location, hidden=False):
    bpy.ops.mesh.primitive_cube_add(size=size, location=location)
    obj = bpy.context.active_object
    obj.name = name
    obj.hide_render = hidden
cube("Big", 1.0, (0, 0, 0))
cube("Pebble", 0.1, (0.9, 0, 0))  # about 4 px across at 160x120 over a 3 m frame
cube("Hidden", 1.0, (-0.9, 0, 0), hidden=True)
bpy.data.objects.new("Helper", None)  # an empty draws nothing
bpy.context.scene.collection.objects.link(bpy.data.objects["Helper"])
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[-1])
"""


@pytest.fixture(scope="module")
def scene(tmp_path_factory) -> Path:
    blend = tmp_path_factory.mktemp("visibility") / "scene.blend"
    subprocess.run([bpy_python(), "-c", SCENE, str(blend)], check=True, capture_output=True, timeout=300)
    return blend


def measured(blend: Path, out: Path, resolution: list[int]) -> dict:
    cfg = {"target": {"center": [0, 0, 0], "radius": 1.5}, "resolution": resolution,
           "close": {"center": [0, 0, 0], "radius": 1.5, "direction": [1, -1, 0.8]}}
    return bpy_procs.render_jobs([{"blend": str(blend), "spec": resolve_spec(cfg), "out": str(out)}],
                                 sandbox=LOCAL)[0]


def test_the_renderer_measures_drawn_parts_and_a_small_graded_part_is_unseen_until_resolved(scene, tmp_path):
    coarse = measured(scene, tmp_path / "coarse", [160, 120])
    pixels = coarse["part_pixels"]
    assert set(pixels) == {"front", "side", "top", "close"}
    assert set(pixels["front"]) == {"Big", "Pebble"}  # render-hidden and empty objects draw nothing
    big_w, big_h = pixels["front"]["Big"]
    assert 30 < big_w < 45 and 30 < big_h < 45  # 1 m of a ~4.2 m wide ortho frame at 160 px
    graded = {"Big", "Pebble", "Helper", "Hidden"}
    unseen = unseen_parts(coarse, graded, hidden=[])
    assert list(unseen) == ["Pebble"], unseen
    # four times the pixels on each side: the same framing now shows the pebble
    fine = measured(scene, tmp_path / "fine", [640, 480])
    assert min(fine["part_pixels"]["front"]["Pebble"]) > 4 * min(pixels["front"]["Pebble"]) - 1
    assert unseen_parts(fine, graded, hidden=[]) == {}
