"""Probe group: render and file spec (engine, resolution, saved file version).  Runs in bpy."""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # standalone: siblings only
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy  # noqa: E402

from probe_core import Probe, binary_outcome, primitive  # noqa: E402


@primitive(group="render_spec", required=("expected",), params={"expected": "engines"})
def render_engine(probe: Probe, p: dict):
    """The scene's render engine is ``expected`` (a name such as CYCLES, or a list of names)."""
    allowed = p["expected"] if isinstance(p["expected"], list) else [p["expected"]]
    engine = probe.scene.render.engine
    return binary_outcome(engine in allowed, engine, allowed, f"render engine {engine}")


@primitive(group="render_spec", required=("expected",), params={"expected": "resolution", "effective": "bool"})
def render_resolution(probe: Probe, p: dict):
    """The output resolution [x, y] equals ``expected``; with ``effective: true`` (default)
    the resolution percentage is applied first."""
    r = probe.scene.render
    pct = r.resolution_percentage if p.get("effective", True) else 100
    size = [int(r.resolution_x * pct / 100), int(r.resolution_y * pct / 100)]
    expected = [int(v) for v in p["expected"]]
    return binary_outcome(size == expected, size, expected,
                          f"{r.resolution_x}x{r.resolution_y} at {r.resolution_percentage}%",
                          {"resolution": [r.resolution_x, r.resolution_y], "percentage": r.resolution_percentage})


def _version(v) -> list[int]:
    if isinstance(v, str):
        return [int(x) for x in v.split(".")]
    return [int(x) for x in v]


@primitive(group="render_spec", required=("min_version|expected",),
           params={"expected": "version", "min_version": "version"})
def file_version(probe: Probe, p: dict):
    """The .blend was saved by Blender ``expected`` (major.minor, e.g. "5.2") or at least
    ``min_version``."""
    saved = list(bpy.data.version)  # (major, minor, file subversion) of the opened file
    ok = True
    if "expected" in p:
        want = _version(p["expected"])
        ok = saved[:len(want)] == want
    if "min_version" in p:
        want_min = _version(p["min_version"])
        ok = ok and saved[:len(want_min)] >= want_min
    shown = ".".join(map(str, saved))
    expected = {k: p[k] for k in ("expected", "min_version") if k in p}
    return binary_outcome(ok, shown, expected, f"file saved by Blender {shown}")
