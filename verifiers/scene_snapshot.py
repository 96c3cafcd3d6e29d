"""Write a scene's snapshot (``probes_scene.snapshot``) as JSON: the start scene's fingerprint the
``scene_unchanged`` criterion compares a delivery against.

    python scene_snapshot.py --blend start.blend --out start_scene.json [--frames FIRST LAST]

Runs in a plain Python with ``bpy``; standalone (sibling imports only), like ``rule_probe.py``.
The .blend opens with ``use_scripts=False``; the snapshot is taken through
``probe_core.render_probe`` (the render-mode depsgraph a delivery is measured on) at every frame
of the scene's frame range (or ``--frames``), and written with sorted keys, indented, plus
``snapshot_version``.  Host side:
``python -m verifiers.start_scene`` builds a task's start scene and runs this on it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy  # noqa: E402
from probe_core import open_delivery, render_probe  # noqa: E402  (siblings: need the sys.path entry above)
from probes_scene import SNAPSHOT_VERSION, snapshot  # noqa: E402


def snapshot_file(blend: Path, frames: tuple[int, int] | None = None) -> dict:
    """The snapshot of the first scene of ``blend`` over ``frames`` [first, last] (default: the
    scene's frame range), measured as a render evaluates it, with its version."""
    if not blend.is_file():
        raise FileNotFoundError(f"no such .blend: {blend}")
    open_delivery(blend)
    scene = bpy.context.scene
    span = frames or (int(scene.frame_start), int(scene.frame_end))
    data = render_probe(scene, None, lambda probe: snapshot(probe, span), list(range(span[0], span[1] + 1)))
    return {**data, "snapshot_version": SNAPSHOT_VERSION}


def snapshot_text(data: dict) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blend", required=True, type=Path, help="the scene to fingerprint (start.blend)")
    ap.add_argument("--out", required=True, type=Path, help="start_scene.json to write")
    ap.add_argument("--frames", type=int, nargs=2, metavar=("FIRST", "LAST"),
                    help="the frames to fingerprint (default: the scene's frame range)")
    ap.add_argument("--frame", type=int, help="ignored (older callers): every frame of the range is taken")
    args = ap.parse_args(argv)
    data = snapshot_file(args.blend, tuple(args.frames) if args.frames else None)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(args.out.name + ".tmp")
    tmp.write_text(snapshot_text(data), encoding="utf-8")
    os.replace(tmp, args.out)
    print(f"scene_snapshot: {len(data['objects'])} objects, frames {data['frames'][0]}..{data['frames'][1]} "
          f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
