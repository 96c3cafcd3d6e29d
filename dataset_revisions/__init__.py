"""Dataset revisions (docs/datasets.md): many publications chained by hash, frozen into balanced splits."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
