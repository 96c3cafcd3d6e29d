"""The privacy checkpoints with real Blender in the real sandbox (docs/privacy.md): a .blend's
text blocks and custom properties are read by Blender in the trial sandbox (never in the
worker's process) once per content; admission stops a seed with a planted key before anything
is stored; dispatch stops a task whose start.blend carries a key the build script assembled
from pieces, before any agent starts. No Temporal server: the activity methods are called as
the workers call them."""

from __future__ import annotations


import pytest
from temporalio.exceptions import ApplicationError

from activities.admission import AdmissionActivities
from contracts.errors import PRIVACY_FINDING
from storage.content import FilesystemStore
from activities.trial_backends import HarborSandboxBackend
from activities.trials import TrialActivities
from contracts.payloads.admission import AdmissionInput
from contracts.payloads.trials import TrialRequest
from privacy.extract import cache_name, read_blend_texts
from privacy.policy import load_policy_for
from privacy.scan import scan_blend_extraction, sha256_of
from sandbox.isolation.settings import SandboxSettings
from sandbox.script_run import LOCAL
from tests.adversarial.sandbox_helpers import requires_landlock, sandbox_kwargs
from tests.conftest import assemble_seed
from blender import runner

pytestmark = [requires_landlock, pytest.mark.blender, pytest.mark.timeout(180)]

POLICY = load_policy_for({"policy_id": "rl-task-basic-sanitization", "policy_version": "0.1.1"})
# Assembled from pieces wherever it is written, so no source file holds it whole.
KEY = "AKIA" + "Q3EGRIT4" + "VZ7XK2MB"
MAIL = "jane.doe" + "@" + "acme-robotics.com"

MAKE_BLENDS = """
import sys
import bpy
key_out, mail_out = sys.argv[1:3]
bpy.ops.wm.read_factory_settings(use_empty=True)
notes = bpy.data.texts.new("HandoverNotes")
notes.write("handover notes\\nstorage key: " + "AKIA" + "Q3EGRIT4" + "VZ7XK2MB" + "\\n")
bpy.ops.wm.save_as_mainfile(filepath=key_out)
bpy.ops.wm.read_factory_settings(use_empty=True)
cube = bpy.data.objects.new("Cube", bpy.data.meshes.new("Cube"))
bpy.context.scene.collection.objects.link(cube)
cube["owner"] = {"contact": ["studio", "jane.doe" + "@" + "acme-robotics.com"]}
bpy.ops.wm.save_as_mainfile(filepath=mail_out)
"""


@pytest.fixture(scope="module")
def settings(tmp_path_factory) -> SandboxSettings:
    return SandboxSettings(**sandbox_kwargs(tmp_path_factory.mktemp("privacy-sandbox")))


async def test_blend_texts_and_properties_are_read_in_the_sandbox_once(tmp_path, settings,
                                                                       monkeypatch):
    script = tmp_path / "make_blends.py"
    script.write_text(MAKE_BLENDS)
    keyed, mailed = tmp_path / "keyed.blend", tmp_path / "mailed.blend"
    await runner.run(script, [str(keyed), str(mailed)], LOCAL, timeout=120)
    store = FilesystemStore(tmp_path / "store")
    blends = {sha256_of(keyed): keyed, sha256_of(mailed): mailed}

    launched = []
    real = runner.run_sandboxed_script

    async def spy(script, args, **kwargs):
        launched.append((script.name, kwargs["settings"], sorted(kwargs["inputs"])))
        return await real(script, args, **kwargs)

    monkeypatch.setattr(runner, "run_sandboxed_script", spy)
    docs = await read_blend_texts(store, blends, sandbox=settings, work=tmp_path)
    # one sandboxed Blender, with the test's slot users, that got only the two .blend files
    assert launched == [("blend_text.py", settings, ["/workspace/in/b0.blend", "/workspace/in/b1.blend"])]
    found = {(f.location, f.line, f.rule) for sha in blends
             for f in scan_blend_extraction(docs[sha], POLICY, "x.blend")}
    assert found == {("text:HandoverNotes", 2, "aws-access-key-id"),
                     ("prop:Object/Cube/owner/contact[1]", 1, "email-address")}
    assert all(store.get_name(cache_name(sha)) is not None for sha in blends)

    async def no_blender(*args, **kwargs):
        raise AssertionError("a cached extraction started Blender again")

    monkeypatch.setattr(runner, "run_sandboxed_script", no_blender)
    again = await read_blend_texts(store, blends, sandbox=settings, work=tmp_path)
    assert again == docs


async def test_admission_stops_a_planted_key_before_anything_is_stored(tmp_path, seed_copy,
                                                                       project_root):
    seed = seed_copy("table-model")
    brief = seed / "materials" / "brief.md"
    lines = brief.read_text().splitlines()
    lines.insert(2, f"Upload renders with {KEY} when done.")
    brief.write_text("\n".join(lines) + "\n")
    store = FilesystemStore(tmp_path / "store")
    store.put_bytes(b"already here")
    before = (store.count(), sorted(p.name for p in (tmp_path / "store").rglob("*")))
    with pytest.raises(ApplicationError) as raised:
        AdmissionActivities(store, project_root).admit_seed(
            AdmissionInput(str(seed), "2026-01-31T12:00:00Z"))
    error = raised.value
    assert error.type == PRIVACY_FINDING and error.non_retryable
    assert error.message == ("privacy finding in materials/brief.md:3:21: "
                             "rule aws-access-key-id (secret) AKIA…")
    assert KEY not in str(error.details)
    assert (store.count(), sorted(p.name for p in (tmp_path / "store").rglob("*"))) == before


BUILD_TIME_NOTE = """

# Build-time handover note: the key is put together here, so no line of this file holds it.
_note = bpy.data.texts.new("OperatorNotes")
_note.write("operator notes\\n")
_note.write("bucket key " + "AKIA" + "Q3EGRIT4" + "VZ7XK2MB" + "\\n")
"""


async def test_dispatch_stops_a_key_the_build_wrote_into_start_blend(tmp_path, seed_copy,
                                                                      project_root, monkeypatch):
    seed = seed_copy("robot-carry")  # continue: start.blend is the built scene
    with open(seed / "materials" / "build_reference.py", "a") as f:
        f.write(BUILD_TIME_NOTE)
    store = FilesystemStore(tmp_path / "store")
    admitted = AdmissionActivities(store, project_root).admit_seed(
        AdmissionInput(str(seed), "2026-01-31T12:00:00Z"))  # the source passes admission
    assert admitted.privacy_pending == []
    assembled = await assemble_seed(store, seed)
    backend = HarborSandboxBackend(sandbox_kwargs(tmp_path / "slots"))

    async def no_trial(*args, **kwargs):
        raise AssertionError("the solver started on a task that failed its privacy check")

    monkeypatch.setattr(backend, "run", no_trial)
    trials = TrialActivities(store, backend)
    with pytest.raises(ApplicationError) as raised:
        await trials.run_trial(TrialRequest(assembled.task_package, assembled.identity, "nop",
                                            "privacy-1", "pilot"))
    error = raised.value
    assert error.type == PRIVACY_FINDING and error.non_retryable
    assert error.message == ("privacy finding in environment/workspace/inputs/start.blend:"
                             "text:OperatorNotes:2:12: rule aws-access-key-id (secret) AKIA…")
    assert KEY not in error.message and KEY not in str(error.details)
    # the reference .blend was read in the same pass: the export finds every .blend read
    entries = store.tree_entries(assembled.task_package)
    for rel in ("workspace/inputs/start.blend", "private/reference.blend"):
        assert store.get_name(cache_name(entries[rel]["sha256"])) is not None, rel
