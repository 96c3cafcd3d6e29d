"""Running Blender: `runner.py` starts a bpy script out of process (unisolated; the sandboxed
path is `sandbox.script_run`), and the standalone bpy scripts it and the sandbox run
(`apply_script.py`, `build_workspace.py`: stdlib + bpy only)."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
