"""Workspace builds run real Blender once per distinct input; a rerun with the same materials,
builder and Blender reuses the stored build, so the frozen task version stays the same."""

from __future__ import annotations

import pytest

from activities.authoring import AuthoringActivities
from contracts.payloads.authoring import BuildWorkspaceInput
from storage.content import FilesystemStore
from verifiers.seed_check import check_seed_dir

pytestmark = [pytest.mark.blender]


async def test_identical_build_inputs_reuse_the_stored_build(tmp_path, project_root):
    seed = project_root / "seeds" / "table-model"
    checked = check_seed_dir(seed)
    store = FilesystemStore(tmp_path / "store")
    tree = store.put_tree(seed, sorted({*checked.material_paths, *checked.draft_files, "seed.json"}))
    authoring = AuthoringActivities(store)
    req = BuildWorkspaceInput(tree, checked.reference_project, checked.manifest.start_mode)

    first = await authoring.build_workspace(req)
    objects = store.count()
    second = await authoring.build_workspace(req)
    assert second == first and store.count() == objects  # nothing rebuilt, nothing new stored

    other_mode = await authoring.build_workspace(
        BuildWorkspaceInput(tree, checked.reference_project, "continue"))
    assert other_mode.start_blend != first.start_blend  # a different input is built anew
