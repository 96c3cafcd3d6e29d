"""Canonical JSON, file hashes and `pipeline_digest`: the digest follows what grades a task
and nothing else."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from contracts.digests import (
    canonical_file_bytes,
    canonical_json_bytes,
    load_pipeline_config,
    pipeline_digest,
    pipeline_files,
    pipeline_manifest,
    pipeline_ref,
    sha256_file,
    sha256_hex,
)
from contracts.validation import ContractError

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of what the digest covers, plus files it must ignore."""
    shutil.copytree(PROJECT / "contracts" / "schemas", tmp_path / "contracts" / "schemas")
    for name in ("taxonomy.json", "pipeline.json"):
        shutil.copy(PROJECT / "contracts" / name, tmp_path / "contracts" / name)
    (tmp_path / "contracts" / "models.py").write_text("# not part of the digest\n")
    verifiers = tmp_path / "verifiers"
    (verifiers / "profiles").mkdir(parents=True)
    (verifiers / "rule_probe.py").write_text("def probe():\n    return 1\n")
    (verifiers / "profiles" / "rule_only.py").write_text("WEIGHTS = {'rule': 1.0}\n")
    (verifiers / "README.md").write_text("verifier notes\n")
    (verifiers / "__pycache__").mkdir()
    (verifiers / "__pycache__" / "rule_probe.cpython-313.pyc").write_bytes(b"\x00\x01")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "x.md").write_text("# notes\n")
    (tmp_path / "README.md").write_text("# arkevo\n")
    return tmp_path


def _reformat(path: Path) -> None:
    """Same JSON value, different bytes: other indentation, reversed key order."""

    def reverse(value):
        if isinstance(value, dict):
            return {key: reverse(value[key]) for key in reversed(list(value))}
        if isinstance(value, list):
            return [reverse(item) for item in value]
        return value

    value = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps(reverse(value), indent=4, ensure_ascii=True) + "\n\n")


def test_canonical_json_is_key_order_independent() -> None:
    one = {"b": [1, {"y": 2, "x": "é"}], "a": None}
    two = {"a": None, "b": [1, {"x": "é", "y": 2}]}
    assert canonical_json_bytes(one) == canonical_json_bytes(two)
    assert canonical_json_bytes(one) == '{"a":null,"b":[1,{"x":"é","y":2}]}'.encode()
    assert canonical_json_bytes(1) != canonical_json_bytes(1.0)
    with pytest.raises(ValueError):
        canonical_json_bytes({"x": float("nan")})


def test_sha256_helpers(tmp_path: Path) -> None:
    data = b"x" * (3 * 1024 * 1024 + 7)  # several read chunks
    path = tmp_path / "blob.bin"
    path.write_bytes(data)
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest() == sha256_file(path)


def test_canonical_file_bytes(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{ "b": 1,\r\n  "a": [true] }')
    assert canonical_file_bytes(tmp_path / "a.json") == b'{"a":[true],"b":1}'
    (tmp_path / "a.py").write_bytes(b"x = 1\r\ny = 2\rz = 3\n")
    assert canonical_file_bytes(tmp_path / "a.py") == b"x = 1\ny = 2\nz = 3\n"
    (tmp_path / "a.blend").write_bytes(b"BLENDER\r\n")
    assert canonical_file_bytes(tmp_path / "a.blend") == b"BLENDER\r\n"
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ContractError, match="invalid JSON"):
        canonical_file_bytes(tmp_path / "bad.json")


def test_pipeline_files(root: Path) -> None:
    files = pipeline_files(root)
    assert files == sorted(files)
    assert "contracts/taxonomy.json" in files
    assert "contracts/pipeline.json" in files
    assert "contracts/schemas/task.schema.json" in files
    assert "verifiers/rule_probe.py" in files
    assert "verifiers/profiles/rule_only.py" in files
    assert not any("__pycache__" in f or f.endswith(".md") for f in files)
    assert "contracts/models.py" not in files
    assert [path for path, _ in pipeline_manifest(root)] == files


def test_digest_of_the_project_is_stable() -> None:
    digest = pipeline_digest(PROJECT)
    assert len(digest) == 64 and digest == digest.lower()
    assert digest == pipeline_digest(PROJECT)


@pytest.mark.parametrize(
    ("relpath", "key", "value"),
    [
        ("contracts/schemas/task.schema.json", "title", "Task v2"),
        ("contracts/taxonomy.json", "taxonomy_version", "1.0.1"),
        ("contracts/pipeline.json", "k", 5),
    ],
)
def test_digest_changes_with_a_json_input(root: Path, relpath: str, key: str, value) -> None:
    before = pipeline_digest(root)
    path = root / relpath
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), key: value}))
    assert pipeline_digest(root) != before


def test_digest_changes_with_a_new_schema(root: Path) -> None:
    before = pipeline_digest(root)
    (root / "contracts" / "schemas" / "extra.schema.json").write_text("{}")
    assert pipeline_digest(root) != before


@pytest.mark.parametrize("relpath", ["verifiers/rule_probe.py", "verifiers/profiles/rule_only.py"])
def test_digest_changes_with_verifier_code(root: Path, relpath: str) -> None:
    before = pipeline_digest(root)
    (root / relpath).write_text((root / relpath).read_text() + "# tweak\n")
    assert pipeline_digest(root) != before


def test_digest_changes_with_a_new_verifier_module(root: Path) -> None:
    before = pipeline_digest(root)
    (root / "verifiers" / "vl_judge.py").write_text("")
    assert pipeline_digest(root) != before


@pytest.mark.parametrize(
    "relpath",
    [
        "docs/x.md",
        "README.md",
        "verifiers/README.md",
        "contracts/models.py",
        "verifiers/__pycache__/rule_probe.cpython-313.pyc",
    ],
)
def test_digest_ignores_unrelated_files(root: Path, relpath: str) -> None:
    before = pipeline_digest(root)
    (root / relpath).write_bytes(b"something else entirely\n")
    (root / "docs" / "new.md").write_text("new\n")
    (root / "verifiers" / "data.bin").write_bytes(b"\x00")
    assert pipeline_digest(root) == before


@pytest.mark.parametrize(
    "relpath",
    ["contracts/schemas/task.schema.json", "contracts/taxonomy.json", "contracts/pipeline.json"],
)
def test_digest_ignores_json_reformatting(root: Path, relpath: str) -> None:
    before = pipeline_digest(root)
    _reformat(root / relpath)
    assert pipeline_digest(root) == before


def test_digest_ignores_crlf_line_endings(root: Path) -> None:
    before = pipeline_digest(root)
    for path in [*(root / "verifiers").rglob("*.py"), *(root / "contracts").rglob("*.json")]:
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert pipeline_digest(root) == before


def test_digest_needs_taxonomy_and_pipeline_config(root: Path) -> None:
    (root / "contracts" / "pipeline.json").unlink()
    with pytest.raises(FileNotFoundError, match="pipeline.json"):
        pipeline_digest(root)


def test_pipeline_ref(root: Path) -> None:
    ref = pipeline_ref(root)
    assert (ref.pipeline_id, ref.pipeline_version) == ("arkevo-blender", "0.1.0")
    assert ref.pipeline_digest == pipeline_digest(root)


def test_pipeline_config_defaults() -> None:
    config = load_pipeline_config(PROJECT)
    assert config.k == 3
    assert config.pilot_policies == ["oracle", "nop"]
    assert config.evaluation_policies == ["oracle", "nop"]
    assert config.calibration_reference_min == 0.9


def test_pipeline_config_errors_name_the_field(root: Path) -> None:
    path = root / "contracts" / "pipeline.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "k": 0}))
    with pytest.raises(ContractError) as info:
        load_pipeline_config(root)
    assert (info.value.file, info.value.field) == (str(path), "k")
