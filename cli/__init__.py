"""The `arkevo` command line (installed into .venv/bin by scripts/bootstrap.sh)."""
