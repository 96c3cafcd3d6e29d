"""Temporal workflow definitions only: deterministic orchestration, no I/O."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
