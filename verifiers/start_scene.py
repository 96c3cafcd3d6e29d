"""Write a task's start scene snapshot, draft/start_scene.json, or check that it is current.

    python -m verifiers.start_scene --task-dir seeds/<seed>/draft [--no-sandbox] [--check]

Builds the start scene the solver gets (``inputs/start.blend``: the seed's reference project
through ``build_workspace`` in the task's start mode) and fingerprints it with
``verifiers/scene_snapshot.py`` (``probes_scene.snapshot`` on the render-mode depsgraph, at every
frame of the start scene's frame range).  The ``scene_unchanged``
criterion compares each delivery with that snapshot; packaging copies it to the task's tests/.
``--check`` writes nothing and fails when the committed file is missing or differs (stale: the
seed, the build or the snapshot code changed since it was written).  The seed's build script
runs in the trial sandbox unless ``--no-sandbox`` (your own code, your own machine).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from sandbox.script_run import LOCAL, ScriptIsolation

START_SCENE = "start_scene.json"

EXIT_CODES = """\
exit codes:
  0  written (or, with --check, the committed start_scene.json is current)
  1  stale or failed: --check found it missing or different, the seed's build script raises,
     Blender failed, or the sandbox cannot start
  2  bad usage or input: an unknown option, no task.json in --task-dir"""


def build_snapshot(bundle, out: Path, *, sandbox: ScriptIsolation = None) -> dict:
    """Build the start scene of ``bundle`` (a ``TaskBundle``) in a temporary folder and write
    its snapshot to ``out``."""
    from verifiers import bpy_procs

    with tempfile.TemporaryDirectory(prefix="arkevo-start-scene-") as tmp:
        start = bundle.build_start(Path(tmp), sandbox)
        return bpy_procs.snapshot_scene(start, out, sandbox=sandbox)


def main(argv: list[str] | None = None, *, sandbox: ScriptIsolation = None) -> int:
    """The CLI; the exit codes are EXIT_CODES."""
    from rich.console import Console
    from rich.markup import escape

    from blender.runner import BlenderProcessError
    from verifiers.score_delivery import RUN_FAILURES, BadInput, load_bundle, print_run_failure

    ap = argparse.ArgumentParser(prog="python -m verifiers.start_scene", description=__doc__.split("\n\n")[0],
                                 epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task-dir", required=True, type=Path, help="the task draft folder: seeds/<seed>/draft")
    ap.add_argument("--check", action="store_true",
                    help=f"write nothing; exit 1 when the committed {START_SCENE} is missing or stale")
    ap.add_argument("--no-sandbox", action="store_true",
                    help="run the seed's build script unisolated (your own code, your own machine)")
    args = ap.parse_args(argv)
    console = Console(width=160)
    try:
        bundle = load_bundle(args.task_dir)
    except BadInput as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        return 2
    target = args.task_dir / START_SCENE
    if args.check and not target.is_file():
        console.print(f"[red]missing[/] {escape(str(target))}: run without --check to write it",
                      highlight=False, soft_wrap=True)
        return 1
    with tempfile.TemporaryDirectory(prefix="arkevo-snapshot-") as tmp:
        fresh = Path(tmp) / START_SCENE
        try:
            data = build_snapshot(bundle, fresh, sandbox=LOCAL if args.no_sandbox else sandbox)
        except RUN_FAILURES as exc:
            return print_run_failure(console, exc)
        except BlenderProcessError as exc:
            console.print(f"[red]failed[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
            return 1
        text = fresh.read_text(encoding="utf-8")
        if args.check:
            try:
                committed = json.loads(target.read_text(encoding="utf-8"))
            except ValueError:
                committed = None
            if committed != data:
                console.print(f"[red]stale[/] {escape(str(target))} differs from the start scene built now: "
                              "run without --check to rewrite it", highlight=False, soft_wrap=True)
                return 1
            console.print(f"current: {escape(str(target))}", highlight=False, soft_wrap=True)
            return 0
        tmp_target = target.with_name(target.name + ".tmp")
        tmp_target.write_text(text, encoding="utf-8")
        tmp_target.replace(target)
    console.print(f"wrote {escape(str(target))} ({len(data['objects'])} objects)", highlight=False, soft_wrap=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
