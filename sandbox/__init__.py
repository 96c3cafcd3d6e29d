"""The isolated trial runtime: a Harbor environment (sandbox.environment) over per-slot users,
bubblewrap namespaces, Landlock, rlimits, cgroups and a loopback-only network namespace per
trial (sandbox.isolation), plus the Blender MCP host that runs inside it (sandbox/runtime/).

Import the environment by path, `sandbox.environment:ArkevoSandboxEnvironment`; nothing is
imported here so that the runtime/ scripts stay usable without Harbor.
"""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
