"""Several scripts of one author in one sandboxed Blender (`bpy_procs.apply_scripts`, how stage 05
applies a draft's gaming samples): each runs on a fresh open of the start scene, and the one that
fails is named, with the outputs of those before it kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.isolation.settings import SandboxSettings
from tests.adversarial.sandbox_helpers import requires_landlock, sandbox_kwargs
from verifiers import bpy_procs
from blender.runner import ScriptFailed

pytestmark = [pytest.mark.blender, requires_landlock]

ADD_EMPTY = """import bpy
bpy.context.scene.collection.objects.link(bpy.data.objects.new({name!r}, None))
"""


@pytest.fixture(scope="module")
def isolation(tmp_path_factory) -> SandboxSettings:
    return SandboxSettings(**sandbox_kwargs(tmp_path_factory.mktemp("apply-scripts-sandbox")))


@pytest.fixture(scope="module")
def start(tmp_path_factory, isolation) -> Path:
    work = tmp_path_factory.mktemp("apply-scripts-start")
    ref = work / "ref.py"
    ref.write_text("import bpy\n")
    empty = work / "start.blend"
    bpy_procs.build_workspace(ref, "from_scratch", empty, work / "unused.blend", sandbox=isolation)
    return empty


def script(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(text)
    return path


def objects_in(blend: Path) -> set[str]:
    """Object names in a .blend: an object's ID name is stored as b"OB<name>\\0"."""
    data = blend.read_bytes()
    return {name for name in ("FirstAdded", "SecondAdded") if f"OB{name}\0".encode() in data}


def test_each_script_starts_from_the_start_scene(start, tmp_path, isolation):
    first = script(tmp_path, "first", ADD_EMPTY.format(name="FirstAdded"))
    second = script(tmp_path, "second", ADD_EMPTY.format(name="SecondAdded"))
    outs = bpy_procs.apply_scripts(start, [(first, tmp_path / "a.blend"), (second, tmp_path / "b.blend")],
                                   sandbox=isolation)
    assert outs == [tmp_path / "a.blend", tmp_path / "b.blend"]
    assert objects_in(outs[0]) == {"FirstAdded"}
    assert objects_in(outs[1]) == {"SecondAdded"}  # not the first script's scene


def test_the_failing_script_is_named_and_the_earlier_output_kept(start, tmp_path, isolation):
    first = script(tmp_path, "first", ADD_EMPTY.format(name="FirstAdded"))
    broken = script(tmp_path, "broken", "import bpy\nbpy.data.objects['NoSuchObject']\n")
    third = script(tmp_path, "third", ADD_EMPTY.format(name="SecondAdded"))
    with pytest.raises(ScriptFailed) as failed:
        bpy_procs.apply_scripts(start, [(first, tmp_path / "a.blend"), (broken, tmp_path / "b.blend"),
                                        (third, tmp_path / "c.blend")], sandbox=isolation)
    (host, exception), = failed.value.problems
    assert host == broken and "KeyError" in exception and "NoSuchObject" in exception
    assert (tmp_path / "a.blend").is_file()
    assert not (tmp_path / "b.blend").exists() and not (tmp_path / "c.blend").exists()


def test_duplicate_names_are_refused_before_blender_starts(start, tmp_path, isolation):
    first = script(tmp_path, "first", ADD_EMPTY.format(name="FirstAdded"))
    with pytest.raises(ValueError, match="unique"):
        bpy_procs.apply_scripts(start, [(first, tmp_path / "a.blend"), (first, tmp_path / "b.blend")],
                                sandbox=isolation)
