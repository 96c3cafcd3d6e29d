"""What a trial writes of the package's privileged scripts on the worker: the scripted policy's
own script and nothing else of `solution/` or `private/calibration/` (a calibration package holds
dozens of defect scripts; each used to be written, then deleted, for every trial)."""

from __future__ import annotations

from pathlib import Path

import pytest

from activities.policies import policy_from_name
from activities.trial_backends import LocalBackend
from activities.trials import TrialActivities
from storage.content import FilesystemStore

FILES = {
    "solution/solve.py": b"# the oracle\n",
    "private/calibration/defects/short_legs.py": b"# a defect\n",
    "private/calibration/defects/no_top.py": b"# another\n",
    "private/reference.blend": b"BLENDER-v500",
    "tests/rule_probe.py": b"# the probe\n",
}


class Request:  # the one field _fetch_script reads of a TrialRequest
    def __init__(self, package):
        self.task_package = package


@pytest.fixture
def fetch(tmp_path):
    store = FilesystemStore(tmp_path / "store")
    entries = {}
    for rel, data in FILES.items():
        ref = store.put_bytes(data)
        entries[rel] = {"sha256": ref.sha256, "size": ref.size}
    request = Request(store.put_tree_manifest(entries))
    trials = TrialActivities(store, LocalBackend())

    def written(policy: str) -> dict[str, bytes]:
        scripts = tmp_path / policy.replace("/", "_").replace(":", "_")
        trials._fetch_script(request, policy_from_name(policy), scripts)
        return {p.relative_to(scripts).as_posix(): p.read_bytes()
                for p in sorted(scripts.rglob("*")) if p.is_file()}
    return written


def test_the_oracle_gets_its_solution_and_nothing_else(fetch):
    assert fetch("oracle") == {"solution/solve.py": b"# the oracle\n"}


def test_a_calibration_script_comes_alone(fetch):
    assert fetch("script:private/calibration/defects/no_top.py") == {
        "private/calibration/defects/no_top.py": b"# another\n"}


@pytest.mark.parametrize("policy", ["nop", "script:private/calibration/defects/absent.py",
                                    "script:tests/rule_probe.py", "script:private/reference.blend"])
def test_no_script_absent_or_outside_the_privileged_folders_is_written(fetch, policy):
    # nop has none; an absent one is named by the backend ("script_path not found", infra:
    # tests/integration/test_trial_paths.py); the verifier's files and the rest of private/ are
    # never a policy's to read on the worker.
    assert fetch(policy) == {}


def test_every_script_is_checked_against_its_sha256(fetch, tmp_path):
    objects = [p for p in (tmp_path / "store" / "objects").rglob("*") if p.is_file()]
    target = next(p for p in objects if p.read_bytes() == b"# the oracle\n")
    target.chmod(0o644)
    target.write_bytes(b"# tampered\n")
    with pytest.raises(Exception, match="does not match sha256"):
        fetch("oracle")
    assert not Path(tmp_path / "oracle" / "solution" / "solve.py").exists()
