"""Probe group: render and file spec (engine, resolution, saved file version, output format and path,
colour management, scene units, any scene setting by its data path).  Runs in bpy."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # standalone: siblings only
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy  # noqa: E402

from probe_core import Probe, binary_outcome, fraction_outcome, primitive, rnd  # noqa: E402


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


# --- settings compared one by one ------------------------------------------------------------------

# a setting's expected value: an enum identifier or string, a number or a flag
SETTING = {"type": ["string", "number", "boolean"], "description": "string, number or true/false"}


def _same_setting(value, expected, tol: float) -> bool:
    if isinstance(expected, bool) or isinstance(value, bool):
        return isinstance(value, bool) and value is expected
    if isinstance(expected, (int, float)):
        return isinstance(value, (int, float)) and abs(float(value) - float(expected)) <= tol
    return value == expected


def _compare(measured: dict, expected: dict, tol: float, what: str):
    """Fraction of the expected settings the measured ones meet (``measured`` holds every key)."""
    measured = rnd(measured)
    off = [k for k, want in expected.items() if not _same_setting(measured[k], want, tol)]
    detail = f"{what} as specified" if not off else f"{what} off: " + ", ".join(
        f"{k} is {measured[k]!r}, not {expected[k]!r}" for k in off)
    return fraction_outcome(len(expected) - len(off), len(expected), measured, expected, detail, {"off": off})


def _plain(value):
    """An RNA value as JSON: enums and strings as they are, numbers as numbers, flags as bools."""
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return float(value) if isinstance(value, float) else int(value)
    if hasattr(value, "__len__"):
        return [_plain(v) for v in value]
    return str(value)


@primitive(group="render_spec", required=("settings",),
           params={"settings": {"type": "object", "minProperties": 1, "additionalProperties": SETTING,
                                "description": "{data path under the scene: expected value}"},
                   "tolerance": "tolerance"})
def scene_settings(probe: Probe, p: dict):
    """Each scene setting, named by its data path from the scene (``cycles.samples``,
    ``render.film_transparent``, ``eevee.taa_render_samples`` ...), has its expected value:
    strings and enum identifiers exactly, flags exactly, numbers within ``tolerance`` (default
    1e-6).  A path that does not resolve is a setting that is off.  Scores the share met."""
    tol = float(p.get("tolerance", 1e-6))
    measured = {}
    for path in p["settings"]:
        try:
            measured[path] = _plain(probe.scene.path_resolve(path))
        except ValueError:
            measured[path] = None
    return _compare(measured, p["settings"], tol, "scene settings")


@primitive(group="render_spec", required=("file_format|path_pattern",),
           params={"file_format": "name",
                   "color_depth": {"enum": ["8", "10", "12", "16", "32"], "description": "8, 10, 12, 16 or 32"},
                   "color_mode": {"enum": ["BW", "RGB", "RGBA"], "description": "BW, RGB or RGBA"},
                   "exr_codec": "name",
                   "path_pattern": {"type": "string", "minLength": 1, "description": "a regular expression"}})
def render_output(probe: Probe, p: dict):
    """The render output: image ``file_format`` (PNG, OPEN_EXR, OPEN_EXR_MULTILAYER, FFMPEG ...),
    ``color_depth`` (bits per channel, as Blender names it: "8", "16", "32" ...), ``color_mode``,
    ``exr_codec`` (ZIP, PIZ, DWAA ...), and the output path ``render.filepath`` matching
    ``path_pattern`` (a full regular-expression match; '#' is a literal character in it, so
    '#{4}' asks for four frame-number signs).  Checks not given are skipped; scores the share met."""
    r = probe.scene.render
    img = r.image_settings
    checks = {}  # {key: (measured, expected, met)}
    for key in ("file_format", "color_depth", "color_mode", "exr_codec"):
        if key in p:
            value = getattr(img, key)
            checks[key] = (value, p[key], value == p[key])
    if "path_pattern" in p:
        checks["filepath"] = (r.filepath, p["path_pattern"], re.fullmatch(p["path_pattern"], r.filepath) is not None)
    off = [k for k, (_, _, met) in checks.items() if not met]
    detail = "render output as specified" if not off else "render output off: " + ", ".join(
        f"{k} {checks[k][0]!r} (want {'a match of ' if k == 'filepath' else ''}{checks[k][1]!r})" for k in off)
    return fraction_outcome(len(checks) - len(off), len(checks), {k: c[0] for k, c in checks.items()},
                            {k: c[1] for k, c in checks.items()}, detail, {"off": off})


@primitive(group="render_spec", required=("view_transform|look|exposure|gamma|display_device",),
           params={"view_transform": "name", "look": "name", "exposure": "number", "gamma": "number",
                   "display_device": "name", "tolerance": "tolerance"})
def colour_management(probe: Probe, p: dict):
    """The scene's colour management: ``view_transform`` (AgX, Filmic, Standard ...), ``look``
    (as Blender lists it, e.g. "AgX - Punchy", or "None"), ``exposure`` and ``gamma`` (within
    ``tolerance``, default 1e-3) and ``display_device``.  Checks not given are skipped; scores
    the share met."""
    vs, ds = probe.scene.view_settings, probe.scene.display_settings
    current = {"view_transform": vs.view_transform, "look": vs.look, "exposure": float(vs.exposure),
               "gamma": float(vs.gamma), "display_device": ds.display_device}
    expected = {k: p[k] for k in current if k in p}
    return _compare({k: current[k] for k in expected}, expected, float(p.get("tolerance", 1e-3)), "colour management")


@primitive(group="render_spec", required=("system|length_unit|scale_length",),
           params={"system": {"enum": ["NONE", "METRIC", "IMPERIAL"], "description": "NONE, METRIC or IMPERIAL"},
                   "length_unit": "name", "scale_length": {"type": "number", "exclusiveMinimum": 0,
                                                           "description": "number > 0"},
                   "tolerance": "tolerance"})
def scene_units(probe: Probe, p: dict):
    """The scene's unit settings: ``system``, ``length_unit`` (METERS, CENTIMETERS, ...) and
    ``scale_length`` (the unit scale, within ``tolerance``, default 1e-6).  Checks not given
    are skipped; scores the share met."""
    u = probe.scene.unit_settings
    current = {"system": u.system, "length_unit": u.length_unit, "scale_length": float(u.scale_length)}
    expected = {k: p[k] for k in current if k in p}
    return _compare({k: current[k] for k in expected}, expected, float(p.get("tolerance", 1e-6)), "scene units")
