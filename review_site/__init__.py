"""Static review site: every task, its evidence and its scores, in a browser (docs/review-site.md)."""
