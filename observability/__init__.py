"""What every layer reports: structured logs and Temporal metrics (telemetry.py)."""
