"""`.dockerignore` keeps model keys, products, the venv and caches out of every image built from
this folder (`COPY . /app` in the Dockerfile). Matched the way Docker does (patterns relative
to the context root; `**` any depth; a pattern also covers everything under a matching folder)."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def patterns() -> list[str]:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    return [p.strip().rstrip("/") for p in lines if p.strip() and not p.startswith("#")]


def ignored(path: str) -> bool:
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for pattern in patterns():
        for prefix in prefixes:
            if fnmatch.fnmatchcase(prefix, pattern):
                return True
            if pattern.startswith("**/") and fnmatch.fnmatchcase(prefix.rsplit("/", 1)[-1], pattern[3:]):
                return True
    return False


@pytest.mark.parametrize("path", [
    ".env", ".env.local", ".env.production", "var/store/objects/ab/cd", "var/publications/x/task/tests/rubric.json",
    ".venv/bin/python", "activities/__pycache__/store.cpython-313.pyc", "sandbox/x.pyc", ".pytest_cache/v",
    ".mypy_cache/3.13/contracts/models.data.json", ".ruff_cache/0.9/123",
    "deploy/env/models.env", "deploy/env/s3.env", "deploy/env/minio.env",
])
def test_secrets_products_and_caches_stay_out(path):
    assert ignored(path), path


@pytest.mark.parametrize("path", ["pyproject.toml", "uv.lock", "scripts/bootstrap.sh", "storage/content.py",
                                  "seeds/table-model/seed.json", "contracts/pipeline.json",
                                  "deploy/gpu-worker-entrypoint.sh", "deploy/env/models.env.example",
                                  "deploy/temporal/scripts/register-search-attributes.sh"])
def test_the_code_goes_in(path):
    assert not ignored(path), path
