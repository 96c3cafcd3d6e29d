"""Content digests: canonical JSON, file hashes and the pipeline fingerprint.

`pipeline_digest` fingerprints everything that decides whether a task is valid and how it is
graded (schemas, taxonomy, pipeline configuration, verifier code). A frozen task records it in
its `pipeline_ref`, so scores produced by different pipelines are never mixed up. It hashes
*canonical* content, so re-indenting a JSON file or checking it out with CRLF line endings does
not make the same pipeline look different.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from contracts.models import PipelineConfig, PipelineRef
from contracts.validation import load_json_file, model_error, parse_json

TEXT_SUFFIXES = frozenset({".py", ".md", ".toml", ".txt"})
PIPELINE_CONFIG = "contracts/pipeline.json"
_CHUNK = 1 << 20


def canonical_json_bytes(obj: Any) -> bytes:
    """One byte string per JSON value: sorted keys, no whitespace, UTF-8 (not \\u escapes).
    NaN and Infinity are refused: they are not JSON and would not round-trip."""
    return json.dumps(
        obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """sha256 of a file's raw bytes, read in chunks so large blends do not fill memory."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def canonical_file_bytes(path: Path) -> bytes:
    """The bytes of a file that matter for its meaning: JSON as canonical JSON of its parsed
    value, text files (.py .md .toml .txt) with CRLF/CR line endings turned into LF, anything
    else raw. Malformed JSON raises `ContractError`."""
    path = Path(path)
    raw = path.read_bytes()
    suffix = path.suffix.lower()
    if suffix == ".json":
        return canonical_json_bytes(parse_json(raw, str(path)))
    if suffix in TEXT_SUFFIXES:
        return raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return raw


def _tree(root: Path, folder: str, pattern: str) -> list[Path]:
    """Files under `root/folder` matching `pattern`, leaving out caches and hidden files
    (editor and OS litter such as .DS_Store must not change the fingerprint)."""
    base = root / folder
    if not base.is_dir():
        return []
    return [
        path
        for path in base.rglob(pattern)
        if path.is_file()
        and not any(
            part == "__pycache__" or part.startswith(".")
            for part in path.relative_to(base).parts
        )
    ]


def pipeline_files(root: Path) -> list[str]:
    """Relative POSIX paths of the files `pipeline_digest` covers, sorted: every file under
    contracts/schemas/, contracts/taxonomy.json, contracts/pipeline.json and every *.py file
    under verifiers/."""
    root = Path(root)
    paths = _tree(root, "contracts/schemas", "*") + _tree(root, "verifiers", "*.py")
    for required in ("contracts/taxonomy.json", PIPELINE_CONFIG):
        if not (root / required).is_file():
            raise FileNotFoundError(f"{root / required}: the pipeline digest needs it")
        paths.append(root / required)
    return sorted(path.relative_to(root).as_posix() for path in paths)


def pipeline_manifest(root: Path) -> list[list[str]]:
    """`[[relpath, sha256 of canonical bytes], ...]` sorted by path: what `pipeline_digest`
    hashes, kept inspectable so a changed digest can be traced to the file that changed."""
    root = Path(root)
    return [
        [relpath, sha256_hex(canonical_file_bytes(root / relpath))]
        for relpath in pipeline_files(root)
    ]


def pipeline_digest(root: Path) -> str:
    """sha256 over the canonical JSON of `pipeline_manifest(root)`."""
    return sha256_hex(canonical_json_bytes(pipeline_manifest(root)))


def load_pipeline_config(root: Path) -> PipelineConfig:
    """`contracts/pipeline.json` under `root`, validated. Raises `ContractError`."""
    path = Path(root) / PIPELINE_CONFIG
    data = load_json_file(path)
    try:
        return PipelineConfig.model_validate(data)
    except ValidationError as exc:
        raise model_error(str(path), exc) from exc


def pipeline_ref(root: Path) -> PipelineRef:
    """The `pipeline_ref` a task frozen by the pipeline checked out at `root` records."""
    config = load_pipeline_config(root)
    return PipelineRef(
        pipeline_id=config.pipeline_id,
        pipeline_version=config.pipeline_version,
        pipeline_digest=pipeline_digest(root),
    )


def task_version_of(frozen_package_sha256: str) -> str:
    """A frozen task version names its package tree's content."""
    return "v1-" + frozen_package_sha256[:12]
