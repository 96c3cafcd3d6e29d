"""Apply a bpy script to a .blend and save the result.

    python apply_script.py --in inputs/start.blend --script solve.py --out result.blend
    python apply_script.py --in start.blend --script a.py --out a.blend --script b.py --out b.blend

Runs in a plain Python with ``bpy`` (stdlib + bpy only).  Used for reference solutions,
calibration defects and variants, gaming samples and scripted solver policies.  The script runs
with ``bpy`` and ``__name__ = "__main__"`` in its globals (``__file__`` is the script's path); the
scene is then saved uncompressed to ``--out``.  A failing script exits non-zero with its
traceback and writes nothing.  Several ``--script``/``--out`` pairs run in order in this one
process, each on a fresh open of ``--in`` (one Blender start-up for all); the first that fails
stops the run, and the outputs of those before it stay written.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from pathlib import Path

import bpy


def apply(blend_in: Path, script: Path, blend_out: Path) -> None:
    if not blend_in.is_file():
        raise FileNotFoundError(f"input .blend not found: {blend_in}")
    source = script.read_text(encoding="utf-8")
    bpy.ops.wm.open_mainfile(filepath=str(blend_in), load_ui=False, use_scripts=False)
    code = compile(source, str(script), "exec")
    exec(code, {"bpy": bpy, "__name__": "__main__", "__file__": str(script)})
    blend_out.parent.mkdir(parents=True, exist_ok=True)
    bpy.ops.wm.save_as_mainfile(filepath=str(blend_out), compress=False, copy=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--in", dest="blend_in", required=True, type=Path, help=".blend to start from")
    ap.add_argument("--script", required=True, type=Path, action="append", help="bpy script to run")
    ap.add_argument("--out", required=True, type=Path, action="append", help=".blend to write (one per --script)")
    args = ap.parse_args(argv)
    if len(args.script) != len(args.out):
        ap.error(f"{len(args.script)} --script but {len(args.out)} --out: give one --out per --script")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    for script, out in zip(args.script, args.out):
        try:
            apply(args.blend_in.resolve(), script.resolve(), out.resolve())
        except Exception:
            print(f"apply_script: {script} on {args.blend_in} failed:", file=sys.stderr)
            traceback.print_exc()
            return 2
        print(f"apply_script: {script.name} -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
