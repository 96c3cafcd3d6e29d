"""Verifier version: a digest of everything that decides a grade — probe code, rubric, and the
task's criteria, verification weights and scoring profile. Status and pipeline_ref are left out,
so freezing a task does not change its verifier version.

Two forms:

* ``vv1-…`` (``verifier_version_of`` / ``verifier_version(store, task_package)``): the packaged
  ``tests/`` folder + the task's grading fields -- what the pipeline records for rule trials;
  unchanged so frozen task versions stay stable.
* ``vv2-…`` (``scoring_verifier_version``): the full scoring identity -- probe code (every file
  the standalone probe needs, plus a task's own ``task_probes.py``), rubric, the task's grading
  fields, the scoring profile with its params, the evidence renderer version and the judge
  questions (when the profile weights VL).  Every score record carries it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from contracts.digests import canonical_file_bytes, canonical_json_bytes, sha256_hex

GRADING_TASK_FIELDS = ("criteria", "verification", "scoring_profile")
VERIFIERS = Path(__file__).resolve().parent
# Every file the standalone rule probe needs (stdlib + bpy + numpy, sibling imports only): copy
# them together into a packaged task's tests/.
PROBE_FILES = (
    "rule_probe.py", "probe_primitives.py", "probe_core.py", "probes_objects.py", "probes_geometry.py",
    "probes_animation.py", "probes_materials.py", "probes_render_spec.py", "colour.py", "scoring.py",
)
# What a packaged task's tests/ holds to also run under Harbor + RewardKit (python -m rewardkit).
REWARDKIT_FILES = PROBE_FILES + ("rewardkit_rules.py",)


def verifier_version_of(test_files: dict[str, str], task: dict) -> str:
    """`test_files`: {path under tests/: sha256} of everything except task.json."""
    basis = {
        "tests": dict(sorted(test_files.items())),
        "task": {k: task[k] for k in GRADING_TASK_FIELDS},
    }
    return "vv1-" + sha256_hex(canonical_json_bytes(basis))[:16]


def verifier_version(store, task_package) -> str:
    """Verifier version of a task package in the store."""
    entries = store.tree_entries(task_package)
    tests = {p: e["sha256"] for p, e in entries.items()
             if p.startswith("tests/") and p != "tests/task.json"}
    task = json.loads(store.get_bytes(store.tree_file(task_package, "tests/task.json")))
    return verifier_version_of(tests, task)


def probe_code_digests(extra: Path | None = None) -> dict[str, str]:
    """{file: sha256 of its canonical bytes} of the probe code (+ a task's own probes)."""
    out = {name: sha256_hex(canonical_file_bytes(VERIFIERS / name)) for name in PROBE_FILES}
    if extra is not None and Path(extra).is_file():
        out["task_probes.py"] = sha256_hex(canonical_file_bytes(Path(extra)))
    return out


def scoring_verifier_version(*, task: Mapping, rubric: Mapping, profile_ref: Mapping,
                             profile_params: Mapping | None = None, renderer: str | None = None,
                             judge_config: Mapping | None = None,
                             probe_files: Mapping[str, str] | None = None) -> str:
    """``vv2-`` + 16 hex of the digest of probe code + rubric + profile + renderer version
    (+ judge questions).  ``task`` is the task as graded (after any profile override)."""
    basis = {
        "probe": dict(sorted((probe_files or probe_code_digests()).items())),
        "rubric": rubric,
        "task": {k: task[k] for k in GRADING_TASK_FIELDS},
        "profile": {**dict(profile_ref), "params": dict(profile_params or {})},
        "renderer": renderer,
        "judge": judge_config,
    }
    return "vv2-" + sha256_hex(canonical_json_bytes(basis))[:16]
