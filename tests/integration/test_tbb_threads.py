"""The probe's oneTBB at one thread (verifiers/tbb_threads.py), in real Blender: held inside the
block, the machine's width back after it (a render in the same process gets its pool back), and
nothing held where the switch says "all" (a bench's before)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.blender

VERIFIERS = Path(__file__).resolve().parents[2] / "verifiers"

SCRIPT = r'''
import ctypes, json, sys
sys.path.insert(0, sys.argv[1])
import bpy  # noqa: F401 -- loads Blender's oneTBB
import tbb_threads

lib = tbb_threads._library()
active = getattr(lib, tbb_threads._ACTIVE)
active.restype = ctypes.c_size_t
width = lambda: int(active(ctypes.c_int(tbb_threads.MAX_ALLOWED_PARALLELISM)))
before = width()
with tbb_threads.one_thread() as held:
    inside = width()
print(json.dumps({"before": before, "held": held, "inside": inside, "after": width()}))
'''


def run(env: dict[str, str] | None = None) -> dict:
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(VERIFIERS)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_one_thread_inside_the_block_and_the_machine_after_it():
    width = len(os.sched_getaffinity(0))
    seen = run({"ARKEVO_PROBE_TBB_THREADS": ""})
    assert seen == {"before": width, "held": True, "inside": 1, "after": width}, seen


def test_all_threads_where_the_switch_says_so():
    width = len(os.sched_getaffinity(0))
    seen = run({"ARKEVO_PROBE_TBB_THREADS": "all"})
    assert seen == {"before": width, "held": False, "inside": width, "after": width}, seen
