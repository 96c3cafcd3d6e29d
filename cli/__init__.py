"""The `arkevo` command line (installed into .venv/bin by scripts/bootstrap.sh)."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
