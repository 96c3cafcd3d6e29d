"""Exports (exports/harbor_zip.py, `arkevo export`): ZIPs in Harbor's layout from publications in
a real local object store — same input, same bytes; manifest and SHA256SUMS that match; only
task/ exported; every file held to its sha256; Harbor's own loader accepts what unzips."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import stat
import zipfile
from pathlib import Path

import pytest
from harbor.models.job.config import DatasetConfig
from harbor.models.task.task import Task

from activities.harbor_task import task_toml
from cli.arkevo import main
from contracts.payloads.authoring import TaskIdentity
from dataset_revisions.layout import RevisionKeys
from exports.harbor_zip import (MANIFEST, SUMS, ExportError, ExportSourceError, export_split,
                                export_task, extract)
from storage.objects import FilesystemObjects

NS, REV = "demo", "r1"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _files(task_id: str) -> dict[str, bytes]:
    return {
        "task/task.toml": task_toml(TaskIdentity(task_id, "v1-abc", "vv2-00000000000000aa", "", "MOD-01",
                                                 "PRF-3DART")).encode(),
        "task/instruction.md": f"Fix the {task_id} scene.\n".encode(),
        "task/environment/Dockerfile": b"FROM ubuntu:24.04\n",
        "task/environment/workspace/inputs/spec.md": b"# spec\n" + b"x" * 4000,
        "task/tests/test.sh": b"#!/bin/bash\nmkdir -p /logs/verifier\necho 1 > /logs/verifier/reward.txt\n",
        "task/tests/probe.py": b"print('probe')\n",
        "task/solution/solve.sh": b"#!/bin/bash\ntrue\n",
        "private/reference.blend": b"the private reference",
        "review/frozen-task.json": b"{}",
        "admission/admission-record.json": b"{}",
        "evaluation/report.json": b"{}",
    }


def write_publication(objects: FilesystemObjects, folder: str, task_id: str) -> str:
    """A publication as the pipeline lays it out; the sha256 of its publication.json."""
    files = _files(task_id)
    for rel, data in files.items():
        objects.put_if_absent(f"{folder}/{rel}", data)
    doc = {"publication_id": f"{task_id}-r1", "task_id": task_id, "task_version": "v1-abc",
           "pipeline_ref": {"pipeline_id": "arkevo-blender", "pipeline_version": "0.1.0"},
           "dataset": {"namespace": NS, "revision": REV, "sequence": 1, "previous": None},
           "files": [{"path": rel, "sha256": _sha(data), "size": len(data)}
                     for rel, data in sorted(files.items())]}
    data = json.dumps(doc, indent=2).encode()
    objects.put_if_absent(f"{folder}/publication.json", data)
    return _sha(data)


def write_revision(objects: FilesystemObjects, splits: dict[str, list[str]]) -> None:
    keys = RevisionKeys(NS, REV)
    objects.put_if_absent(keys.spec, b"{}")
    manifest = {"namespace": NS, "revision": REV, "splits": {}}
    for split, tasks in splits.items():
        manifest["splits"][split] = [
            {"task_id": t, "task_version": "v1-abc", "publication_id": f"{t}-r1",
             "publication_sha256": write_publication(objects, f"{keys.publications}/{t}/{t}-r1", t)}
            for t in tasks]
    objects.put_if_absent(keys.manifest, json.dumps(manifest, indent=2).encode())


def _pub(task: str) -> str:
    return f"{RevisionKeys(NS, REV).publications}/{task}/{task}-r1"


@pytest.fixture
def objects(tmp_path):
    objects = FilesystemObjects(tmp_path / "var")
    write_revision(objects, {"test": ["beta", "alpha"], "train": ["gamma"]})
    return objects


def _entries(path: Path) -> dict[str, zipfile.ZipInfo]:
    with zipfile.ZipFile(path) as zf:
        return {i.filename: i for i in zf.infolist()}


def _overwrite(objects: FilesystemObjects, key: str, data: bytes) -> None:
    path = objects.local_path(key)
    path.chmod(0o644)
    path.write_bytes(data)


def test_same_input_same_bytes_whatever_the_clock_or_mtimes(objects, tmp_path):
    one = export_task(objects, _pub("alpha"), tmp_path / "one.zip")
    for key in objects.list(_pub("alpha") + "/"):
        os.utime(objects.local_path(key), (1_900_000_000, 1_900_000_000))
    two = export_task(objects, str(objects.local_path(_pub("alpha"))), tmp_path / "two.zip")
    assert one.path.read_bytes() == two.path.read_bytes()
    assert one.sha256 == two.sha256 == _sha(one.path.read_bytes()) and one.size == one.path.stat().st_size
    assert (one.files, one.tasks, one.root) == (7, ["alpha"], "alpha")
    infos = list(_entries(one.path).values())
    assert [i.filename for i in infos] == sorted(i.filename for i in infos)
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
    assert not any(i.is_dir() or i.extra or i.comment for i in infos)
    assert {i.compress_type for i in infos} == {zipfile.ZIP_DEFLATED}


def test_manifest_and_sha256sums_match_the_zip_and_only_task_is_exported(objects, tmp_path):
    result = export_task(objects, _pub("alpha"), tmp_path / "alpha.zip")
    with zipfile.ZipFile(result.path) as zf:
        data = {n: zf.read(n) for n in zf.namelist()}
    manifest = json.loads(data.pop(MANIFEST))
    sums = data.pop(SUMS).decode()
    assert sorted(data) == sorted(f"alpha/{p[5:]}" for p in _files("alpha") if p.startswith("task/"))
    assert manifest["files"] == {n: {"sha256": _sha(d), "size": len(d)} for n, d in sorted(data.items())}
    assert list(manifest["files"]) == sorted(manifest["files"])
    with zipfile.ZipFile(result.path) as zf:
        assert sums == "".join(f"{_sha(zf.read(n))}  {n}\n" for n in sorted(zf.namelist()) if n != SUMS)
    pub_sha = _sha(objects.get(_pub("alpha") + "/publication.json"))
    assert manifest["format"] == "arkevo-export/1" and manifest["kind"] == "task"
    assert manifest["source"]["namespace"] == NS and manifest["source"]["revision"] == REV
    [source] = manifest["source"]["publications"]
    assert (source["publication_id"], source["publication_sha256"], source["key"]) == (
        "alpha-r1", pub_sha, _pub("alpha"))
    assert not any(w in n for n in data for w in ("private", "review", "admission", "evaluation"))


def test_modes_come_from_the_name_not_the_store(objects, tmp_path):
    objects.local_path(_pub("alpha") + "/task/tests/probe.py").chmod(0o555)  # S3 keeps no modes
    result = export_task(objects, _pub("alpha"), tmp_path / "alpha.zip")
    modes = {n: (i.external_attr >> 16) for n, i in _entries(result.path).items()}
    assert {n for n, m in modes.items() if m == stat.S_IFREG | 0o755} == {
        "alpha/tests/test.sh", "alpha/solution/solve.sh"}
    assert all(m in (stat.S_IFREG | 0o755, stat.S_IFREG | 0o644) for m in modes.values())
    dest = extract(result.path, tmp_path / "out")
    assert os.access(dest / "alpha" / "tests" / "test.sh", os.X_OK)
    assert not os.access(dest / "alpha" / "instruction.md", os.X_OK)


@pytest.mark.parametrize("damage, words", [
    (lambda o: _overwrite(o, _pub("alpha") + "/task/tests/probe.py", b"print('changed')\n"),
     ["task/tests/probe.py", "but publication.json lists"]),
    (lambda o: o.delete(_pub("alpha") + "/task/instruction.md"),
     ["task/instruction.md", "listed in publication.json but missing"]),
    (lambda o: o.put_if_absent(_pub("alpha") + "/task/tests/extra.py", b"x"),
     ["task/tests/extra.py", "is not listed in"]),
])
def test_a_file_off_its_sha256_is_export_error_and_nothing_is_written(objects, tmp_path, damage, words):
    damage(objects)
    out = tmp_path / "exports" / "alpha.zip"
    out.parent.mkdir()
    with pytest.raises(ExportError) as e:
        export_task(objects, _pub("alpha"), out)
    assert str(objects.local_path(_pub("alpha"))) in str(e.value)
    assert all(w in str(e.value) for w in words), str(e.value)
    assert list(out.parent.iterdir()) == []  # neither the ZIP nor its temp file


def test_split_export_holds_each_task_once_as_a_harbor_dataset(objects, tmp_path):
    result = export_split(objects, NS, REV, "test", tmp_path / "test.zip")
    assert result.tasks == ["alpha", "beta"] and result.root == "demo-r1-test" and result.files == 14
    names = _entries(result.path)
    assert {n.split("/")[1] for n in names if n.startswith("demo-r1-test/")} == {"alpha", "beta"}
    assert set(names) - {MANIFEST, SUMS} == {n for n in names if n.startswith("demo-r1-test/")}
    with zipfile.ZipFile(result.path) as zf:
        manifest = json.loads(zf.read(MANIFEST))
    manifest_sha = _sha(objects.get(RevisionKeys(NS, REV).manifest))
    assert manifest["kind"] == "split" and manifest["source"]["split"] == "test"
    assert manifest["source"]["manifest_sha256"] == manifest_sha
    assert [p["task_id"] for p in manifest["source"]["publications"]] == ["alpha", "beta"]
    again = export_split(objects, NS, REV, "test", tmp_path / "again.zip")
    assert again.path.read_bytes() == result.path.read_bytes()

    dest = extract(result.path, tmp_path / "unzipped")
    assert not Task.is_valid_dir(dest / "demo-r1-test")  # so `harbor run -p` takes it as a dataset
    configs = asyncio.run(DatasetConfig(path=dest / "demo-r1-test").get_task_configs())
    assert sorted(c.path.name for c in configs) == ["alpha", "beta"]
    assert {c.source for c in configs} == {"demo-r1-test"}


def test_harbors_loader_accepts_the_unzipped_task(objects, tmp_path):
    result = export_task(objects, _pub("gamma"), tmp_path / "gamma.zip")
    dest = extract(result.path, tmp_path / "unzipped")
    assert Task.is_valid_dir(dest / "gamma")
    task = Task(dest / "gamma")
    # task.toml's [task] name, as a Harbor registry knows the task
    assert task.name == "arkevo/gamma" and task.instruction == "Fix the gamma scene.\n"
    assert not Task.is_valid_dir(dest)  # the manifest's folder is not a task


def test_split_publication_off_the_manifest_and_bad_input(objects, tmp_path):
    _overwrite(objects, _pub("beta") + "/publication.json",
               objects.get(_pub("beta") + "/publication.json") + b"\n")
    with pytest.raises(ExportError, match=r"beta-r1/publication.json: sha256 .* split manifest records"):
        export_split(objects, NS, REV, "test", tmp_path / "test.zip")
    with pytest.raises(ExportSourceError, match="no split 'nope'"):
        export_split(objects, NS, REV, "nope", tmp_path / "x.zip")
    with pytest.raises(ExportSourceError, match="dataset demo/r2 not found"):
        export_split(objects, NS, "r2", "test", tmp_path / "x.zip")
    with pytest.raises(ExportSourceError, match="no publication at publications/x/x-r1"):
        export_task(objects, "publications/x/x-r1", tmp_path / "x.zip")
    with pytest.raises(ExportSourceError, match="not inside the object store"):
        export_task(objects, str(tmp_path), tmp_path / "x.zip")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["var"]


# --- the CLI -------------------------------------------------------------------------------------


@pytest.fixture
def var(objects, monkeypatch):
    monkeypatch.setenv("ARKEVO_VAR", str(objects.root))
    monkeypatch.delenv("ARKEVO_STORE", raising=False)
    monkeypatch.delenv("ARKEVO_OBJECTS", raising=False)
    return objects.root


@pytest.mark.parametrize("argv", [["export"], ["export", "task"], ["export", "split"]])
def test_cli_help_exits_zero_and_writes_nothing(argv, tmp_path, var, capsys):
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(SystemExit) as e:
        main([*argv, "--help"])
    assert e.value.code == 0
    assert f"usage: arkevo {' '.join(argv)}" in capsys.readouterr().out
    assert sorted(tmp_path.rglob("*")) == before


@pytest.mark.parametrize("argv, words", [
    (["export", "split", "--dataset", "demo", "--split", "test"], "--dataset 'demo': give NAMESPACE/REVISION"),
    (["export", "split", "--dataset", "demo/r1", "--split", "nope"], "no split 'nope'"),
    (["export", "split", "--dataset", "demo/r9", "--split", "test"], "dataset demo/r9 not found"),
    (["export", "task", "--publication", "publications/x/x-r1"], "no publication at publications/x/x-r1"),
])
def test_cli_bad_input_exits_2_naming_the_problem(argv, words, tmp_path, var, capsys):
    assert main([*argv, "--out", str(tmp_path / "x.zip")]) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "x.zip").exists()
    assert main(["export", "task", "--publication", _pub("alpha"), "--out",
                 str(tmp_path / "nowhere" / "x.zip")]) == 2
    assert "no folder" in capsys.readouterr().err


def test_cli_writes_the_zip_and_says_how_to_run_it(tmp_path, var, capsys, monkeypatch):
    monkeypatch.chdir(var.parent)
    out = tmp_path / "alpha.zip"
    assert main(["export", "task", "--publication", f"var/{_pub('alpha')}", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert _sha(out.read_bytes()) in printed and "7 files" in printed
    assert f"unzip -q {out} -d {tmp_path / 'alpha'}" in printed
    assert f"run -p {tmp_path / 'alpha' / 'alpha'} -a oracle -e sandbox.environment:ArkevoSandboxEnvironment" in printed
    written = out.read_bytes()
    _overwrite(FilesystemObjects(var), _pub("alpha") + "/task/instruction.md", b"changed\n")
    assert main(["export", "task", "--publication", _pub("alpha"), "--out", str(out)]) == 1
    assert "task/instruction.md" in capsys.readouterr().err
    assert out.read_bytes() == written  # the earlier export stands; no temp file beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alpha.zip", "var"]
