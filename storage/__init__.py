"""The content-addressed store: local or S3, keys and sha256."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
