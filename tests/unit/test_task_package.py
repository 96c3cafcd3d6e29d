"""A seed's own probes travel with its verifier: admission admits draft/task_probes.py and
stage 03 packages it into tests/, beside the rubric, where rule_probe.py loads it."""

from __future__ import annotations

import shutil
from pathlib import Path

from temporalio.testing import ActivityEnvironment

from activities.admission import AdmissionActivities
from activities.authoring import AuthoringActivities
from storage.content import FilesystemStore
from contracts.payloads.admission import AdmissionInput
from contracts.payloads.authoring import AssembleInput, WorkspaceBuild

ROOT = Path(__file__).resolve().parents[2]
TASK_PROBES = '''from probe_core import binary_outcome, primitive


@primitive(required=("object", "min_volume"), params={"object": "name", "min_volume": "number"})
def block_volume(probe, p):
    (x0, y0, z0), (x1, y1, z1) = probe.aabb(probe.obj(p["object"]), 1)
    v = (x1 - x0) * (y1 - y0) * (z1 - z0)
    return binary_outcome(v >= p["min_volume"], v, p["min_volume"], f"volume {v:.3f}")
'''


def assemble_table_model(tmp_path: Path, with_probes: bool = False):
    """(store, admitted, assembled): the bundled table-model seed admitted and its task package
    assembled with placeholder blends — no Blender runs."""
    seed = tmp_path / "table-model"
    shutil.copytree(ROOT / "seeds" / "table-model", seed)
    if with_probes:
        (seed / "draft" / "task_probes.py").write_text(TASK_PROBES)
    store = FilesystemStore(tmp_path / "store")
    env = ActivityEnvironment()
    admitted = env.run(AdmissionActivities(store, ROOT).admit_seed,
                       AdmissionInput(seed=str(seed), admitted_at="2025-01-01T00:00:00Z"))
    blends = WorkspaceBuild(store.put_bytes(b"start"), store.put_bytes(b"reference"))
    assembled = env.run(AuthoringActivities(store).assemble_task_package,
                        AssembleInput(admitted.seed_tree, blends, admitted.draft, vl_judge="image-metric"))
    return store, admitted, assembled


def _package(tmp_path: Path, with_probes: bool) -> dict[str, dict]:
    store, admitted, assembled = assemble_table_model(tmp_path, with_probes)
    entries = store.tree_entries(assembled.task_package)
    seed_entries = store.tree_entries(admitted.seed_tree)
    if with_probes:
        assert entries["tests/task_probes.py"]["sha256"] == seed_entries["draft/task_probes.py"]["sha256"]
    return entries


def test_task_probes_are_packaged_beside_the_rubric(tmp_path: Path) -> None:
    entries = _package(tmp_path, with_probes=True)
    assert {"tests/rubric.json", "tests/rule_probe.py", "tests/task_probes.py"} <= set(entries)


def test_no_task_probes_no_file(tmp_path: Path) -> None:
    assert "tests/task_probes.py" not in _package(tmp_path, with_probes=False)


def test_a_seed_given_by_its_tree_is_admitted_without_its_folder(tmp_path: Path) -> None:
    """A derived seed's folder is on the disk of the worker that wrote it; the production reads
    its tree from the store instead, and admits the same files as from the folder."""
    store, admitted, _ = assemble_table_model(tmp_path)
    elsewhere = str(tmp_path / "on-another-worker" / "table-model")  # no such folder here
    from_tree = ActivityEnvironment().run(
        AdmissionActivities(store, ROOT).admit_seed,
        AdmissionInput(seed=elsewhere, admitted_at="2025-01-01T00:00:00Z", seed_tree=admitted.seed_tree))
    assert from_tree.seed_tree == admitted.seed_tree
    assert (from_tree.seed_id, from_tree.task_id) == (admitted.seed_id, admitted.task_id)
    assert store.get_json(from_tree.admission_record)["seed_path"] == elsewhere
