"""Evaluation campaigns: solver configurations over frozen tasks (docs/campaigns.md)."""
