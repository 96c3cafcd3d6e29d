"""The tests' bpy scripts forked from one warm template (tests/bpy_forks.py) run as the cold
`python script.py args` they replace: the same sys.path, argv, `__main__`, cwd and environment,
the same scene after a save, their exit codes and their output; a hung one is killed at its
timeout and the next still forks."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.bpy_forks import run_bpy_script

pytestmark = pytest.mark.blender

SCRIPT = '''
import json, os, sys
import bpy

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_cube_add(size=2)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
bpy.ops.wm.open_mainfile(filepath=sys.argv[1])
print(json.dumps({"path": sys.path, "argv": sys.argv, "name": __name__, "cwd": os.getcwd(),
                  "marker": os.environ.get("ARKEVO_TEST_MARKER"), "objects": sorted(bpy.data.objects.keys()),
                  "verts": len(bpy.data.objects["Cube"].data.vertices)}))
'''


def _last_json(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def test_a_forked_script_sees_what_a_cold_one_sees(tmp_path, monkeypatch):
    script = tmp_path / "scene.py"
    script.write_text(SCRIPT, encoding="utf-8")
    monkeypatch.setenv("ARKEVO_TEST_MARKER", "m1")
    monkeypatch.chdir(tmp_path)
    cold = subprocess.run([sys.executable, str(script), str(tmp_path / "cold.blend")], capture_output=True,
                          text=True, timeout=300)
    forked = run_bpy_script(script, tmp_path / "forked.blend")
    assert cold.returncode == forked.returncode == 0, (cold.stderr[-2000:], forked.stderr[-2000:])
    a, b = _last_json(cold.stdout), _last_json(forked.stdout)
    assert a.pop("argv")[1:] == [str(tmp_path / "cold.blend")] and b.pop("argv")[1:] == [str(tmp_path / "forked.blend")]
    assert a == b and a["marker"] == "m1" and a["name"] == "__main__" and a["verts"] == 8
    assert a["path"].index(str(tmp_path)) < a["path"].index(str(sys.prefix) + f"/lib/python{sys.version_info.major}"
                                                              f".{sys.version_info.minor}/site-packages")


def test_exit_codes_errors_and_a_timeout(tmp_path):
    (tmp_path / "exits.py").write_text("import sys\nprint('said')\nsys.exit(3)\n", encoding="utf-8")
    (tmp_path / "raises.py").write_text("raise ValueError('no such part')\n", encoding="utf-8")
    (tmp_path / "hangs.py").write_text("import time\ntime.sleep(120)\n", encoding="utf-8")
    done = run_bpy_script(tmp_path / "exits.py")
    assert (done.returncode, done.stdout) == (3, "said\n")
    done = run_bpy_script(tmp_path / "raises.py")
    assert done.returncode == 1 and "ValueError: no such part" in done.stderr
    with pytest.raises(subprocess.TimeoutExpired):
        run_bpy_script(tmp_path / "hangs.py", timeout=2)
    assert run_bpy_script(tmp_path / "exits.py").returncode == 3  # the template still forks
