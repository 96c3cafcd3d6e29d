"""Bundled seeds copied and lightened for a test: fewer calibration scripts, same seed otherwise."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path


def keep_calibration_scripts(draft: Path, kept: Mapping[str, Iterable[str]]) -> None:
    """Remove every script of ``draft``/calibration/<folder> not named in ``kept[folder]``
    (folders not named are left whole)."""
    for folder, names in kept.items():
        names = set(names)
        for script in (draft / "calibration" / folder).glob("*.py"):
            if script.name not in names:
                script.unlink()
