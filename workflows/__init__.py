"""Temporal workflow definitions only: deterministic orchestration, no I/O."""
