"""The Blender this worker runs, and whether a seed's declared Blender is one it may run.

The version is the `bpy` wheel's, read from its package metadata: importing bpy to ask would
start Blender inside the worker.
"""

from __future__ import annotations

from importlib.metadata import version

from contracts.models import software_release as release


def blender_version() -> str:
    """This runtime's Blender release, e.g. "5.2.0"."""
    return version("bpy")


def version_problem(declared: str, accepts: tuple[str, str] | None, runtime: str) -> str | None:
    """Why a seed declaring Blender `declared` (and accepting the major.minor range `accepts`,
    inclusive, when given) may not run on `runtime`; None when it may. A different major.minor
    changes file format, operators and defaults, so it is never taken silently."""
    here = release(runtime)
    if accepts is not None:
        low, high = release(accepts[0]), release(accepts[1])
        if low <= here <= high:
            return None
        return (f"the seed accepts Blender {accepts[0]} to {accepts[1]}; this runtime is Blender {runtime}")
    if release(declared) == here:
        return None
    return (f"the seed declares Blender {declared}; this runtime is Blender {runtime} (another "
            f"major.minor): port the seed to {here[0]}.{here[1]}, or declare the versions it "
            f"accepts in software.accepts {{\"min\": ..., \"max\": ...}}")
