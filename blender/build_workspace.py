"""Build a task's reference scene and starting workspace from a seed's reference project.

    python build_workspace.py --reference materials/build_reference.py --start-mode continue \
        --out-start inputs/start.blend --out-reference private/reference.blend

Runs in a plain Python with ``bpy`` (stdlib + bpy only, no arkevo imports: it runs in worker
subprocesses).  The reference project is either a ``.py`` build script, run in a fresh empty
scene, or a ``.blend``, opened as is.  The reference scene is saved to ``--out-reference``;
``--out-start`` is that same scene for continue/refine/repair and an empty scene for
from_scratch.  Exits non-zero with a message on failure.
"""

from __future__ import annotations

import argparse
import runpy
import sys
import traceback
from pathlib import Path

import bpy

START_MODES = ("from_scratch", "continue", "refine", "repair")


class BuildError(Exception):
    pass


def reset_empty_scene() -> None:
    # Factory settings, not the user's startup file: the same inputs give the same scene anywhere.
    bpy.ops.wm.read_factory_settings(use_empty=True)


def load_reference(reference: Path) -> None:
    if not reference.is_file():
        raise BuildError(f"reference project not found: {reference}")
    suffix = reference.suffix.lower()
    if suffix == ".py":
        reset_empty_scene()
        try:
            runpy.run_path(str(reference), init_globals={"bpy": bpy}, run_name="__main__")
        except Exception as exc:
            raise BuildError(f"build script {reference} failed:\n{traceback.format_exc()}") from exc
    elif suffix == ".blend":
        try:
            bpy.ops.wm.open_mainfile(filepath=str(reference), load_ui=False, use_scripts=False)
        except RuntimeError as exc:
            raise BuildError(f"cannot open reference .blend {reference}: {str(exc).strip()}") from exc
    else:
        raise BuildError(f"reference project must be a .py build script or a .blend, got {reference.name}")


def save(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # saved at the first frame: the state a solver sees on opening it
    bpy.context.scene.frame_set(bpy.context.scene.frame_start)
    bpy.ops.wm.save_as_mainfile(filepath=str(path), compress=False, copy=True)


def build(reference: Path, start_mode: str, out_start: Path, out_reference: Path) -> None:
    if start_mode not in START_MODES:
        raise BuildError(f"unknown start mode {start_mode!r}; expected one of {', '.join(START_MODES)}")
    load_reference(reference)
    save(out_reference)
    if start_mode == "from_scratch":
        reset_empty_scene()
    save(out_start)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", required=True, type=Path, help="build_reference.py or a .blend")
    ap.add_argument("--start-mode", required=True, choices=START_MODES)
    ap.add_argument("--out-start", required=True, type=Path, help="starting workspace .blend to write")
    ap.add_argument("--out-reference", required=True, type=Path, help="private reference .blend to write")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        build(args.reference.resolve(), args.start_mode, args.out_start.resolve(), args.out_reference.resolve())
    except BuildError as exc:
        print(f"build_workspace: error: {exc}", file=sys.stderr)
        return 2
    print(f"build_workspace: wrote {args.out_reference} and {args.out_start} ({args.start_mode})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
