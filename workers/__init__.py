"""Composition roots: one entry point per worker pool (`python -m workers <pool>`)."""
