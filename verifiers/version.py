"""Verifier version: a digest of everything that decides a grade — probe code, rubric, and the
task's criteria, verification weights and scoring profile. Status and pipeline_ref are left out,
so freezing a task does not change its verifier version."""

from __future__ import annotations

import json

from contracts.digests import canonical_json_bytes, sha256_hex

GRADING_TASK_FIELDS = ("criteria", "verification", "scoring_profile")


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
