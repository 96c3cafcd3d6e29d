"""What every layer reports: structured logs and Temporal metrics (telemetry.py)."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
