"""Static review site: every task, its evidence and its scores, in a browser (docs/review-site.md)."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
