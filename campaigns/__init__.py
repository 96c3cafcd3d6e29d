"""Evaluation campaigns: solver configurations over frozen tasks (docs/campaigns.md)."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
