"""One oneTBB thread for the probe's own work.

Blender runs its parallel loops (depsgraph evaluation, mesh extraction, BVH builds) on oneTBB,
whose pool is as wide as the machine. A probe's loops are small: the second thread of a warm
probe added ~30 % to the main thread's CPU, most of it system time, and no speed (robot-carry's 149
operators: 99-108 CPU-s, 20 of them system time, in 71-77 s), where the same process held to
one CPU took 71 CPU-s in 71 s (docs/performance.md "One oneTBB thread per probe"). Every probe
of a worker or a test shares the machine's cores with others, so the extra thread only burns
what another needs.

``one_thread()`` holds oneTBB at one thread (a ``tbb::global_control`` for
``max_allowed_parallelism``, made and ended through the library's exported ``create`` /
``destroy``: there is no Python API for it, and bpy's own thread setting is the render's) while
the probe measures; a render in the same process after it gets the pool back. Where the library
or its symbols are not there, it holds nothing: only the cost changes, never a verdict.

Stdlib only: it runs inside Blender's Python (the probe), hence ctypes.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
from collections.abc import Iterator

_CREATE = "_ZN3tbb6detail2r16createERNS0_2d114global_controlE"
_DESTROY = "_ZN3tbb6detail2r17destroyERNS0_2d114global_controlE"
_ACTIVE = "_ZN3tbb6detail2r127global_control_active_valueEi"
MAX_ALLOWED_PARALLELISM = 0  # tbb::global_control::parameter
ENV_OFF = "ARKEVO_PROBE_TBB_THREADS"  # "all": leave oneTBB as wide as the machine (a bench's before)


class _GlobalControl(ctypes.Structure):
    """oneTBB's ``d1::global_control``: its value, a reserved word, its parameter."""

    _fields_ = [("value", ctypes.c_size_t), ("reserved", ctypes.c_ssize_t), ("param", ctypes.c_int)]


_found: list[ctypes.CDLL] = []  # the library, once found: a warm probe asks at every job


def _library() -> ctypes.CDLL | None:
    """The oneTBB that bpy loaded (none before ``import bpy``, none where it is another build)."""
    if _found:
        return _found[0]
    try:
        with open("/proc/self/maps") as maps:
            paths = sorted({line.split()[-1] for line in maps if "/libtbb.so" in line})
    except OSError:
        return None
    if not paths:
        return None
    try:
        lib = ctypes.CDLL(paths[0], mode=getattr(os, "RTLD_NOLOAD", 0))
        for name in (_CREATE, _DESTROY, _ACTIVE):
            getattr(lib, name)
    except (OSError, AttributeError):
        return None
    getattr(lib, _ACTIVE).restype = ctypes.c_size_t
    _found.append(lib)
    return lib


@contextlib.contextmanager
def one_thread() -> Iterator[bool]:
    """oneTBB held at one thread inside the block; yields whether it is."""
    lib = None if os.environ.get(ENV_OFF) == "all" else _library()
    if lib is None:
        yield False
        return
    control = _GlobalControl(1, 0, MAX_ALLOWED_PARALLELISM)
    getattr(lib, _CREATE)(ctypes.byref(control))
    try:
        yield int(getattr(lib, _ACTIVE)(ctypes.c_int(MAX_ALLOWED_PARALLELISM))) == 1
    finally:
        getattr(lib, _DESTROY)(ctypes.byref(control))
