"""Exports of frozen tasks: ZIPs in Harbor's layout with a sha256 manifest (docs/exports.md)."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
