"""Composition roots: one entry point per worker pool (`python -m workers <pool>`)."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
