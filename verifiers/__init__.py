"""The grader: the rule probes that run inside Blender, the evidence renders and VL judging, the
scoring profiles, calibration, mutation testing and the verifier version. The scripts that run
in the sandbox import their siblings by file name (stdlib + bpy + numpy), not through this package."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
