"""held.py restates three constants of the launcher (which runs inside the sandbox on the
stdlib alone, so the worker does not import it): they must stay the same."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from sandbox.isolation import held

LAUNCHER = Path(held.__file__).with_name("launcher.py")


def test_held_launches_hand_over_what_the_launcher_hands_over():
    path, modules = list(sys.path), set(sys.modules)
    try:
        spec = importlib.util.spec_from_file_location("arkevo_launcher_under_test", LAUNCHER)
        assert spec is not None and spec.loader is not None
        launcher = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(launcher)
    finally:  # it puts its folder first on sys.path and imports its sibling landlock.py
        sys.path[:] = path
        for name in set(sys.modules) - modules:
            del sys.modules[name]
    assert held.NAMESPACES == tuple(name for name, _flag in launcher.HANDED_NAMESPACES)
    assert held.EXIT_LAUNCH_FAILED == launcher.EXIT_LAUNCH_FAILED
    assert held.ANSWER_SEC == launcher.FORKSERVER_ANSWER_SEC
