"""Exports of frozen tasks: ZIPs in Harbor's layout with a sha256 manifest (docs/exports.md)."""
