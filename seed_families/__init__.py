"""Seed families: one seed folder, many tasks at other specifications (docs/seed-authoring.md,
"Seed families"). `sampling` picks each instance's parameter values; `expansion` renders an
instance's files and checks a family's root."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
