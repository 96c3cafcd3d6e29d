"""Deployment helpers: building and running arkevo's artefacts outside the workers."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
