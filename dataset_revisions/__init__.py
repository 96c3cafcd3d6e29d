"""Dataset revisions (docs/datasets.md): many publications chained by hash, frozen into balanced splits."""
