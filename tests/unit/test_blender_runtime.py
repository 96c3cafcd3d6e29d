"""The Blender a seed declares against the one the runtime runs (issue 25, point 6): a different
major.minor is refused unless the seed's `software.accepts` range includes it; the admission
record, task.toml and every trial record carry the runtime's version."""

from __future__ import annotations

import json
import shutil
from importlib.metadata import version
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from activities.admission import AdmissionActivities
from activities.harbor_task import task_config
from blender.runtime import blender_version, version_problem
from contracts.errors import BLENDER_VERSION_MISMATCH
from contracts.payloads.admission import AdmissionInput
from contracts.payloads.authoring import TaskIdentity
from contracts.validation import ContractError, validate_document
from storage.content import FilesystemStore

ROOT = Path(__file__).resolve().parents[2]


def test_the_runtime_version_is_the_bpy_wheels():
    assert blender_version() == version("bpy")
    assert blender_version().startswith("5.2.")


@pytest.mark.parametrize("declared,accepts,runtime,refused", [
    ("5.2", None, "5.2.0", None),
    ("5.2.1", None, "5.2.0", None),  # a patch release is the same major.minor
    ("4.0", None, "5.2.0", "the seed declares Blender 4.0; this runtime is Blender 5.2.0"),
    ("5.1", None, "5.2.0", "another major.minor"),
    ("4.0", ("4.2", "5.2"), "5.2.0", None),
    ("4.0", ("4.2", "5.10"), "5.2.0", None),  # compared as numbers, not text
    ("4.0", ("4.0", "4.2"), "5.2.0", "the seed accepts Blender 4.0 to 4.2; this runtime is Blender 5.2.0"),
])
def test_version_problem(declared, accepts, runtime, refused):
    problem = version_problem(declared, accepts, runtime)
    assert problem == refused if refused is None else refused in problem


def _seed(tmp_path: Path, software: dict) -> Path:
    seed = tmp_path / "table-model"
    shutil.copytree(ROOT / "seeds" / "table-model", seed)
    for declared in (seed / "seed.json", seed / "draft" / "task.json"):  # the draft agrees with its seed
        doc = json.loads(declared.read_text())
        doc["software"] = software
        declared.write_text(json.dumps(doc, indent=2))
    return seed


def test_admission_refuses_another_major_minor_and_stores_nothing(tmp_path):
    store = FilesystemStore(tmp_path / "store")
    seed = _seed(tmp_path, {"name": "blender", "version": "4.0"})
    with pytest.raises(ApplicationError) as e:
        AdmissionActivities(store, ROOT).admit_seed(AdmissionInput(str(seed), "2026-12-02T00:00:00+00:00"))
    assert e.value.type == BLENDER_VERSION_MISMATCH and e.value.non_retryable
    assert f"{seed}/seed.json: software.version: the seed declares Blender 4.0" in str(e.value)
    assert store.count() == 0


def test_admission_takes_a_seed_whose_range_holds_the_runtime_and_records_it(tmp_path):
    store = FilesystemStore(tmp_path / "store")
    seed = _seed(tmp_path, {"name": "blender", "version": "4.0", "accepts": {"min": "4.0", "max": "5.2"}})
    admitted = AdmissionActivities(store, ROOT).admit_seed(AdmissionInput(str(seed), "2026-12-02T00:00:00+00:00"))
    assert store.get_json(admitted.admission_record)["runtime"] == {"blender": blender_version()}


def test_a_range_runs_low_to_high_and_is_never_null():
    seed = json.loads((ROOT / "seeds" / "table-model" / "seed.json").read_text())
    for accepts, words in (({"min": "5.2", "max": "4.0"}, "min 5.2 is newer than max 4.0"),
                           (None, "None is not of type 'object'"),
                           ({"min": "5", "max": "5.2"}, "is not a major.minor")):
        with pytest.raises(ContractError, match=words):
            validate_document("seed", {**seed, "software": {"name": "blender", "version": "5.2", "accepts": accepts}},
                              "seed.json")


def test_task_toml_names_the_blender_that_built_the_workspace():
    identity = TaskIdentity("table-model", "v1-x", "vv2-00000000000000aa", "d" * 64, "MOD-01", "PRF-3DART",
                            blender_version="5.2.0")
    assert task_config(identity).metadata["blender_version"] == "5.2.0"
    unrecorded = TaskIdentity("table-model", "v1-x", "vv2-00000000000000aa", "d" * 64, "MOD-01", "PRF-3DART")
    assert "blender_version" not in task_config(unrecorded).metadata
