"""The static probe catalogue (read with `ast`, no bpy) agrees with the runtime registry, and reads
task probes' declarations -- literal constants included -- without running them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from contracts.validation import ContractError
from verifiers.probe_catalogue import builtin_methods, catalogue, task_methods

ROOT = Path(__file__).resolve().parents[2]

# Every way of declaring that the catalogue must resolve like Python does.
TASK_PROBES = '''
import probe_core as core
from probe_core import POINTS, binary_outcome
from probe_core import primitive as probe

FRAMES = ("frame_start", "frame_end")
SAMPLING = {"frame_start": "integer", "frame_end": "integer", "frame_step": "step"}
HEIGHT = {"type": "number", "minimum": 0}


@probe(required=("object", "min", *FRAMES), params={"object": "name", "min": HEIGHT, **SAMPLING})
def max_height(probe_, p):
    return binary_outcome(True, 0, 0, "")


@core.primitive("corner_at", group="geometry", required=("object|objects", "corner"),
                params={"object": "name", "objects": "names", "corner": {"enum": POINTS},
                        "scale": {"type": "number", "maximum": -1.5}})
def _corner(probe_, p):
    return binary_outcome(True, 0, 0, "")


@probe(required=("anything",))
def untyped(probe_, p):
    return binary_outcome(True, 0, 0, "")


FRAMES = ("frame_end",)  # rebinding later does not change the decorators above
'''

# (method, params) whose verdict the runtime `validate` and admission's jsonschema must share.
SAMPLES = [
    ("dimensions", {"object": "A", "expected": [1, 2, 3], "tolerance": 0.1}),
    ("dimensions", {"object": "A", "expected": [1, 2], "tolerance": 0.1}),
    ("dimensions", {"objects": [], "expected": [1, 2, 3], "tolerance": 0.1}),
    ("dimensions", {"object": "A", "expected": [1, 2, 3], "tolerance": "5mm"}),
    ("dimensions", {"object": "A", "expected": [1, 2, 3], "tolerance": -1}),
    ("dimensions", {"object": "A", "expected": [1, 2, 3], "tolerance": True}),
    ("dimensions", {"object": "A", "expected": [1, 2, 3], "tolerance": 0.1, "frame": 2.0}),
    ("dimensions", {"object": "A", "expected": [1, 2, 3], "tolerance": 0.1, "frame": 2.5}),
    ("dimensions", {"expected": [1, 2, 3], "tolerance": 0.1}),
    ("object_min_z", {"objects": ["A"], "expected": 0, "tolerance": 0.1, "oops": 1}),
    ("aabb_within", {"regions": {"A": {"min": [0, 0, 0], "max": [1, 1, 1]}}}),
    ("aabb_within", {"regions": {"A": {"min": [0, 0, 0]}}}),
    ("aabb_within", {"regions": {"A": {"min": [0, 0, 0], "max": [1, 1, 1], "mid": [0, 0, 0]}}}),
    ("mesh_counts", {"object": "A", "faces": {"min": 1}}),
    ("mesh_counts", {"object": "A", "faces": {"least": 1}}),
    ("mesh_counts", {"object": "A", "faces": -1}),
    ("mesh_counts", {"object": "A"}),
    ("value_at_frame", {"object": "A", "data_path": "location", "frame": 1, "expected": [1, 2], "tolerance": 0}),
    ("value_at_frame", {"object": "A", "data_path": "location", "frame": 1, "expected": "x", "tolerance": 0}),
    ("parent_is", {"object": "A", "parent": None}),
    ("parent_is", {"object": "A", "parent": ""}),
    ("object_type", {"object": "A", "type": "EMPTY"}),
    ("object_type", {"object": "A", "type": True}),
    ("base_color", {"object": "A", "expected": "#ff00AA", "max_delta_e": 1}),
    ("base_color", {"object": "A", "expected": "ff00aa0", "max_delta_e": 1}),
    ("base_color", {"material": "M", "expected": [1, 0, 0, 1], "max_delta_e": 1, "source": "viewport"}),
    ("render_resolution", {"expected": [640, 0]}),
    ("file_version", {"expected": "5.2"}),
    ("file_version", {"min_version": "5.x"}),
    ("supported_throughout", {"object": "A", "supports": ["B"], "carrier": "C", "rest_tolerance": 0,
                              "carrier_tolerance": 0, "frame_start": 1, "frame_end": 2, "anchor": "origin"}),
    ("stays_in_place", {"objects": {"A": [0, 0, 0]}, "tolerance": 0, "frame_start": 1, "frame_end": 2,
                        "frame_step": 0}),
    ("max_height", {"object": "A", "min": -1, "frame_start": 1, "frame_end": 2}),
    ("corner_at", {"objects": ["A"], "corner": "origin", "scale": -2}),
    ("corner_at", {"objects": ["A"], "corner": "origin", "scale": 0}),
    ("untyped", {"anything": {"at": ["all"]}}),
    ("untyped", {"anything": 1, "more": 2}),
    # lights, cameras, aim and placement (product-lighting)
    ("light_settings", {"object": "Key", "type": "AREA", "energy": 60, "energy_tolerance": 0.05,
                        "color": "#D6E4FF", "max_delta_e": 3}),
    ("light_settings", {"object": "Key", "type": "area"}),
    ("light_settings", {"objects": ["Key"], "energy": 60}),
    ("light_settings", {"object": "Key", "type": "SPOT", "energy": -1}),
    ("camera_settings", {"object": "Camera", "lens": 85, "tolerance": 0.5, "projection": "PERSP", "active": True}),
    ("camera_settings", {"object": "Camera", "lens": 0}),
    ("aimed_at", {"objects": ["Key", "Rim"], "target": "Product", "max_angle": 10, "point": "top_center"}),
    ("aimed_at", {"object": "Key", "target": "Product", "max_angle": 200}),
    ("placed_around", {"object": "Key", "target": "Product", "azimuth": [150, 210], "frame": 1}),
    ("placed_around", {"object": "Key", "target": "Product", "distance": [1]}),
    ("placed_around", {"object": "Key", "target": "Product"}),
    # transforms, origins, names, units (asset-hygiene)
    ("transforms_applied", {"objects": ["A"], "location": True, "tolerance": 1e-4}),
    ("transforms_applied", {"objects": ["A"], "scale": "yes"}),
    ("origin_at", {"objects": ["A"], "point": "aabb_bottom_center", "tolerance": 0.001}),
    ("origin_at", {"objects": ["A"], "point": "origin", "tolerance": 0.001}),
    ("names_match", {"type": "MESH", "pattern": "SM_[A-Z][A-Za-z0-9]*", "data_same_name": True, "min": 4}),
    ("names_match", {"type": "MESH", "pattern": ""}),
    ("scene_units", {"system": "METRIC", "length_unit": "METERS", "scale_length": 1.0}),
    ("scene_units", {"scale_length": 0}),
    ("scene_units", {"system": "metric"}),
    # render settings (render-setup)
    ("scene_settings", {"settings": {"cycles.samples": 256, "render.film_transparent": True,
                                     "view_settings.look": "None"}, "tolerance": 1e-4}),
    ("scene_settings", {"settings": {}}),
    ("scene_settings", {"settings": {"cycles.samples": [256]}}),
    ("render_output", {"file_format": "OPEN_EXR", "color_depth": "16", "exr_codec": "DWAA", "color_mode": "RGBA",
                       "path_pattern": "//renders/x_#{4}"}),
    ("render_output", {"file_format": "PNG", "color_depth": 16}),
    ("render_output", {"color_mode": "RGBA"}),
    ("colour_management", {"view_transform": "AgX", "look": "AgX - Punchy", "exposure": 0}),
    ("colour_management", {"tolerance": 0.1}),
    # Principled values, image textures (mug-material, crate-texture)
    ("principled_inputs", {"material": "Ceramic", "inputs": {"Metallic": 0, "Roughness": 0.12}, "tolerance": 0.02}),
    ("principled_inputs", {"material": "Ceramic", "inputs": {}}),
    ("principled_inputs", {"object": "Mug", "inputs": {"Roughness": "low"}}),
    ("image_texture", {"material": "CrateWood", "image": "Crate_BaseColor", "size": [1024, 1024],
                       "colorspace": "sRGB", "input": "Base Color", "embedded": True}),
    ("image_texture", {"material": "CrateWood", "image": "Crate_BaseColor", "size": [1024, 0]}),
    ("image_texture", {"material": "CrateWood", "size": [1024, 1024]}),
    # UV layout, mesh islands, modifiers (crate-texture, fence-array)
    ("uv_map", {"object": "Crate", "uv_map": "CrateUV", "render_active": True}),
    ("uv_map", {"object": "Crate", "render_active": True}),
    ("uv_bounds", {"objects": ["Crate"], "uv_map": "CrateUV", "tolerance": 0.001, "frame": 1}),
    ("uv_bounds", {"object": "Crate", "min": [0, 0]}),
    ("uv_overlap", {"object": "Crate", "max_overlap": 0.005, "resolution": 256}),
    ("uv_overlap", {"object": "Crate", "max_overlap": 1.5}),
    ("uv_overlap", {"object": "Crate", "resolution": 8}),
    ("uv_stretch", {"object": "Crate", "max_anisotropy": 1.05, "max_density_ratio": 1.1}),
    ("uv_stretch", {"object": "Crate", "uv_map": "CrateUV"}),
    ("uv_stretch", {"object": "Crate", "max_anisotropy": 0.9}),
    ("mesh_islands", {"object": "Fence.Pickets", "count": 10, "pitch": 0.16, "axis": "X", "tolerance": 0.002}),
    ("mesh_islands", {"objects": ["Fence.Rails"], "count": {"min": 2, "max": 2}}),
    ("mesh_islands", {"object": "Fence.Pickets", "pitch": 0.16, "axis": "W"}),
    ("mesh_islands", {"object": "Fence.Pickets", "axis": "X"}),
    ("modifier_settings", {"object": "Fence.Pickets", "type": "ARRAY", "name": "Array", "enabled": True,
                           "settings": {"count": 10, "fit_type": "FIXED_COUNT", "use_axis": [True, False, False],
                                        "mirror_object": None}, "tolerance": 1e-4}),
    ("modifier_settings", {"object": "Fence.Posts", "type": "MIRROR", "settings": {"use_axis": []}}),
    ("modifier_settings", {"object": "Fence.Posts", "settings": {"count": 10}}),
    ("modifier_settings", {"object": "Fence.Posts", "type": "MIRROR", "settings": {"offset": {"x": 1}}}),
]

RUNTIME = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import probe_primitives as pp
pp.load_task_probes(Path(sys.argv[2]))
verdicts = []
for method, params in json.loads(sys.argv[3]):
    try:
        pp.validate(method, params)
        verdicts.append(None)
    except (KeyError, ValueError) as exc:
        verdicts.append(str(exc))
print(json.dumps({"catalogue": pp.catalogue(), "verdicts": verdicts}, default=list))
"""


@pytest.fixture
def task_probes(tmp_path: Path) -> Path:
    path = tmp_path / "task_probes.py"
    path.write_text(TASK_PROBES)
    return path


@pytest.mark.blender  # the runtime registry imports bpy: in a subprocess
def test_static_catalogue_agrees_with_the_runtime_registry(task_probes: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", RUNTIME, str(ROOT / "verifiers"), str(task_probes),
                           json.dumps(SAMPLES)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    runtime = json.loads(proc.stdout.splitlines()[-1])
    static = catalogue(task_probes)
    assert sorted(runtime["catalogue"]) == sorted(static)
    for method, entry in runtime["catalogue"].items():
        ours = static[method]
        assert (entry["group"], entry["required"], entry["params"]) == (
            ours["group"], ours["required"], ours["params"]), method
    methods = {**builtin_methods(), **task_methods(task_probes)}
    for (method, params), verdict in zip(SAMPLES, runtime["verdicts"]):
        valid = Draft202012Validator(methods[method].schema()).is_valid(params)
        assert valid is (verdict is None), (method, params, verdict)
    assert any(v is None for v in runtime["verdicts"]) and any(v for v in runtime["verdicts"])


def test_every_built_in_param_is_typed() -> None:
    """The built-ins declare every required name (task probes may leave one untyped)."""
    for method in builtin_methods().values():
        assert method.params, method.name
        untyped = [k for k, schema in method.params.items() if not schema]
        assert not untyped, (method.name, untyped)
        Draft202012Validator.check_schema(method.schema())


def test_literal_constants_and_aliases_are_resolved(task_probes: Path) -> None:
    methods = task_methods(task_probes)
    assert sorted(methods) == ["corner_at", "max_height", "untyped"]
    height = methods["max_height"]
    assert height.required == ("object", "min", "frame_start", "frame_end")
    assert height.params["min"] == {"type": "number", "minimum": 0}
    assert height.params["frame_step"]["minimum"] == 1
    assert height.group == "task"
    corner = methods["corner_at"]
    assert corner.group == "geometry"
    assert corner.params["corner"] == {"enum": ["origin", "aabb_center", "aabb_bottom_center", "top_center"]}
    assert corner.schema()["allOf"] == [{"anyOf": [{"required": ["object"]}, {"required": ["objects"]}]}]
    assert methods["untyped"].params == {"anything": {}}


def test_the_task_probe_is_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = tmp_path / "task_probes.py"
    path.write_text(f"open({str(marker)!r}, 'w').close()\nfrom probe_core import primitive\n\n"
                    "@primitive(required=('object',))\ndef probe_it(probe, p):\n    return None\n")
    assert list(task_methods(path)) == ["probe_it"]
    assert not marker.exists()


@pytest.mark.parametrize(("source", "line", "reason"), [
    ("X = len('ab')\n@primitive(required=('object',), params={'object': X})\n", "line 3", "(X)"),
    ("@primitive(required=('object',), params={'object': {'type': 'vector3'}})\n", "line 2",
     "not a JSON Schema"),
    ("@primitive(required='object')\n", "line 2", "must be a tuple of param names"),
    ("@primitive(required=('object|',))\n", "line 2", "must be a tuple of param names"),
    ("@primitive\n", "line 2", "register a function with @primitive(...)"),
    ("if True:\n    @primitive(required=('object',))\n    def inner(probe, p):\n        return None\n",
     "line 3", "other than as the decorator"),
])
def test_unreadable_declarations_are_refused(tmp_path: Path, source: str, line: str, reason: str) -> None:
    path = tmp_path / "task_probes.py"
    path.write_text("from probe_core import primitive\n" + source + "def probe_it(probe, p):\n    return None\n")
    with pytest.raises(ContractError) as info:
        task_methods(path, "draft/task_probes.py")
    assert (info.value.file, info.value.field) == ("draft/task_probes.py", line), str(info.value)
    assert reason in info.value.reason, str(info.value)


def test_a_method_defined_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "task_probes.py"
    one = "@primitive('lift', required=('object',))\ndef {}(probe, p):\n    return None\n"
    path.write_text("from probe_core import primitive\n" + one.format("a") + one.format("b"))
    with pytest.raises(ContractError, match="already defined at line 2"):
        task_methods(path)
