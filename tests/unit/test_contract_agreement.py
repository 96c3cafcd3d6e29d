"""The JSON Schemas generated from the pydantic models accept and reject what the models do.

The schemas are generated (`contracts/json_schemas.py`), but the rules a model states twice
(a validator, and its `json_schema_extra` for the schema) and the generator's rewrites
(number unions, pattern names, map keys) can still drift apart. Each document kind has valid
samples and invalid samples that each break one rule; every sample goes through jsonschema and
through the model, and both must give the expected verdict.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from contracts import json_schemas, models
from contracts.digests import canonical_json_bytes
from contracts.json_schemas import SCHEMA_DIR
from contracts.validation import (
    DOCUMENTS,
    ContractError,
    load_schema,
    read_json,
    read_jsonl,
    validate_document,
)

SHA = "0123456789abcdef" * 4
PIPELINE_REF = {
    "pipeline_id": "arkevo-blender",
    "pipeline_version": "0.1.0",
    "pipeline_digest": SHA,
}
SCRIPTED = "scripted policy — not a model result"
PROFILE = {"profile_id": "rule-only", "profile_version": "1"}
POLICY = {"policy_id": "rl-task-basic-sanitization", "policy_version": "0.1.1"}


def _set(doc: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of `doc` with the dotted `path` (list indexes as numbers) set to `value`."""
    doc = copy.deepcopy(doc)
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    target = doc
    for part in parents:
        target = target[part]
    target[last] = value
    return doc


def _drop(doc: dict[str, Any], path: str) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    target = doc
    for part in parents:
        target = target[part]
    del target[last]
    return doc


SEED = {
    "seed_id": "robot-carry",
    "title": "Robot arm carries a box between tables",
    "software": {"name": "blender", "version": "5.2"},
    "start_mode": "continue",
    "workflow_primary": "ANI-07",
    "profession_primary": "PRF-ANIM",
    "provenance": {"source": "hand-built", "license": "CC0-1.0", "collected_by": "arkevo"},
    "materials": [
        {"path": "materials/build_reference.py", "role": "reference_project", "public": False},
        {"path": "materials/brief.md", "role": "requirement_doc", "public": True},
    ],
    "sanitization_policy": POLICY,
}

TASK = {
    "task_id": "robot-carry",
    "title": "Carry the box to table B",
    "status": "draft",
    "start_mode": "continue",
    "software": {"name": "blender", "version": "5.2"},
    "workflow_primary": "ANI-07",
    "profession_primary": "PRF-ANIM",
    "instruction": "instruction.md",
    "public_attachments": ["public/spec.md"],
    "criteria": [
        {"id": "C01", "requirement_id": "REQ-END-ON-B", "channel": "rule",
         "method": "location_at_frame", "weight": 0.75, "core": True,
         "description": "the box rests on table B at the last frame"},
        {"id": "C02", "requirement_id": "REQ-LIFT", "channel": "rule",
         "method": "max_height", "weight": 0.25, "core": False,
         "description": "the box is lifted clear of table A"},
        {"id": "C03", "requirement_id": "REQ-LOOK", "channel": "vl",
         "method": "vl_judge", "weight": 1, "core": False,
         "description": "the motion reads as a careful carry"},
    ],
    "verification": {
        "weights": {"rule": 0.8, "vl": 0.2, "agent": 0},
        "pass_threshold": 0.7,
        "core_failure_cap": 0.4,
    },
    "scoring_profile": PROFILE,
    "pipeline_ref": None,
    "sanitization_policy": POLICY,
}

TAXONOMY = {
    "taxonomy_version": "1.0.0",
    "software": "blender",
    "professions": [{"id": "PRF-ANIM", "name": "Animator", "description": "Animates."}],
    "groups": [{"id": "ANI", "name": "Animation", "description": "Motion."}],
    "workflows": [
        {"id": "ANI-07", "group": "ANI", "name": "Pick and place",
         "description": "Carry an object.", "professions": ["PRF-ANIM"]},
    ],
}

RUBRIC = {
    "rubric_version": "1",
    "criteria": [
        {"id": "C01", "method": "location_at_frame",
         "params": {"object": "Box", "frame": 120, "expected": [0.0, 2.0, 0.9], "tolerance": 0.05}},
    ],
}

TRIAL = {
    "trial_id": "robot-carry/evaluation/oracle/1",
    "task_id": "robot-carry",
    "task_version": "1",
    "config": "oracle",
    "config_kind": "scripted",
    "label": SCRIPTED,
    "stage": "evaluation",
    "attempt": 1,
    "verifier_version": "rule-probe-1",
    "scoring_profile": PROFILE,
    "reward": 0.95,
    "success": True,
    "exception": None,
    "failure": None,
    "timed_out": False,
    "judge": {"id": "image-metric@1", "kind": "offline-metric",
              "label": "offline image-metric judge (similarity to the reference renders) - not a model result"},
    "delivery": {"key": "blobs/ab/cd", "sha256": SHA, "size": 1024},
    "report": {"key": "blobs/ef/01", "sha256": SHA, "size": 0},
    "score": {"key": "blobs/ef/02", "sha256": SHA, "size": 10},
    "started_at": "2026-01-31T12:00:00Z",
    "finished_at": "2026-01-31T12:01:30.250+01:00",
}

SOLVER_FAILURE = {
    "kind": "solver",
    "type": "BlenderHostDied",
    "message": "Blender host exited with code 1 during or after tool call 2",
    "evidence": {"tool_call": 2, "exit_code": 1, "log_tail": ""},
}

PLAN = {
    "plan_id": "robot-carry-1-eval",
    "task_id": "robot-carry",
    "task_version": "1",
    "verifier_version": "rule-probe-1",
    "scoring_profile": PROFILE,
    "pipeline_ref": PIPELINE_REF,
    "configs": [
        {"config_id": "oracle", "kind": "scripted", "label": SCRIPTED},
        {"config_id": "nop", "kind": "scripted", "label": SCRIPTED},
    ],
    "k": 3,
    "metrics": ["avg@k", "pass@k", "reward_delta"],
    "pass_threshold": 0.7,
    "input_reward": 0.1,
    "created_at": "2026-01-31T12:00:00Z",
}

PUBLICATION = {
    "publication_id": "robot-carry-1-r2",
    "task_id": "robot-carry",
    "task_version": "1",
    "revision": 2,
    "previous": {"publication_id": "robot-carry-1-r1", "sha256": SHA},
    "pipeline_ref": PIPELINE_REF,
    "files": [
        {"path": "task/instruction.md", "sha256": SHA, "size": 120},
        {"path": "task/task.toml", "sha256": SHA, "size": 0},
    ],
}

PUBLICATION_RECORDS = {
    "publication_id": "robot-carry-1-r2",
    "published_at": "2026-01-31T12:00:00Z",
    "files": [
        {"path": "evaluation/trials.jsonl", "sha256": SHA, "size": 4096},
        {"path": "review/frozen-task.json", "sha256": SHA, "size": 900},
    ],
}

HANDOFF = {
    "event_id": "robot-carry-1-r2",
    "kind": "publication",
    "created_at": "2026-01-31T12:00:00Z",
    "subject": {"task_id": "robot-carry", "task_version": "1"},
    "publication": {"publication_id": "robot-carry-1-r2",
                    "path": "var/publications/robot-carry-1-r2", "sha256": SHA},
}

DATASET_LINK = {"namespace": "demo", "revision": "r1"}

FREEZE_EVENT = {
    "event_id": "demo-r1-0123456789ab",
    "kind": "freeze",
    "created_at": "2026-01-31T12:00:00Z",
    "subject": {"namespace": "demo", "revision": "r1"},
    "manifest": {"path": "var/datasets/demo/r1/freeze/split-manifest.json", "sha256": SHA,
                 "semantic_digest": SHA, "chain_head": {"sequence": 8, "sha256": SHA}},
}

DATASET_SPEC = {
    "namespace": "demo",
    "revision": "r1",
    "seeds": ["seeds/table-model", "seeds/robot-carry"],
    "splits": {"train": 4, "validation": 2, "test": 2},
    "max_per_source": 2,
    "coverage": {"min_groups_per_split": 2, "min_professions_per_split": 1, "min_sources": 4},
    "selection_seed": 7,
    "concurrency": 4,
}

SPLIT_ENTRY = {"task_id": "table-model", "task_version": "v1-abc", "publication_id": "table-model-r1",
               "publication_sha256": SHA, "source": "arkevo-examples/workshop",
               "workflow_group": "MOD", "profession": "PRF-3DART"}

RETRACTION = {
    "sequence": 2, "namespace": "demo", "revision": "r1", "task_id": "mug-material",
    "publication_id": "mug-material-r1", "publication_sha256": SHA, "reason": "license withdrawn",
    "by": "ana", "at": "2026-01-31T12:00:00Z", "previous_retraction_sha256": SHA,
}

SPLIT_MANIFEST = {
    "namespace": "demo",
    "revision": "r1",
    "selection_seed": 7,
    "spec_sha256": SHA,
    "semantic_digest": SHA,
    "splits": {"train": [SPLIT_ENTRY], "test": []},
}

CAMPAIGN_TRIAL = {
    **TRIAL,
    "trial_id": "demo-r1-test/robot-carry/gpt-high/1",
    "config": "gpt-high",
    "config_kind": "model",
    "label": "model result",
    "stage": "campaign",
    "judge": None,
    "campaign_id": "demo-r1-test",
    "agent": "arkevo-llm",
    "model": "gpt-5",
    "reasoning_effort": "high",
    "validated": True,
    "publication_id": "robot-carry-1-r2",
    "cost": {"wall_sec": 90.5, "agent_sec": 80, "model_calls": 12, "input_tokens": 40000,
             "output_tokens": 2000, "agent_steps": 12, "sandbox_cpu_sec": 55.25, "gpu_sec": None},
    "evidence": {"key": "trees/ab/cd", "sha256": SHA, "size": 4096},
    "trajectory": {"key": "blobs/ab/ef", "sha256": SHA, "size": 512},
    "harbor_trial": "robot-carry__AbC123",
    "recovery": {"round": 1, "replaces_sha256": SHA},
}

# An original (not recovered) campaign record of a scripted agent: the nullable extras are null.
CAMPAIGN_TRIAL_NULLS = {
    **CAMPAIGN_TRIAL,
    "model": None,
    "reasoning_effort": None,
    "evidence": None,
    "trajectory": None,
    "harbor_trial": None,
    "recovery": None,
}

CAMPAIGN_CONFIG = {
    "config_id": "gpt-high",
    "agent": "arkevo-llm",
    "kind": "model",
    "label": "model result",
    "model": "gpt-5",
    "reasoning_effort": "high",
    "timeout_sec": 900,
    "attempts": 3,
    "validated": True,
    "agent_kwargs": {"temperature": 0.2, "tools": ["bpy"], "extra": {"nested": None}},
}

ORACLE_CONFIG = {
    "config_id": "oracle",
    "agent": "oracle",
    "kind": "scripted",
    "label": SCRIPTED,
    "model": None,
    "reasoning_effort": None,
    "timeout_sec": None,
    "attempts": 1,
    "validated": False,
    "agent_kwargs": {},
}

CAMPAIGN_TASK = {
    "task_id": "robot-carry",
    "task_version": "1",
    "publication_id": "robot-carry-1-r2",
    "publication_sha256": SHA,
    "split": "test",
    "verifier_version": "rule-probe-1",
    "scoring_profile": PROFILE,
    "pass_threshold": 0.7,
    "input_reward": 0.1,
    "pipeline_ref": PIPELINE_REF,
}

CAMPAIGN_PLAN = {
    "campaign_id": "demo-r1-test",
    "created_at": "2026-01-31T12:00:00Z",
    "mode": "dataset",
    "registry_version": "1",
    "registry_sha256": SHA,
    "source": {"dataset": {"namespace": "demo", "revision": "r1", "split": "test", "manifest_sha256": SHA},
               "publications": []},
    "configs": [CAMPAIGN_CONFIG, ORACLE_CONFIG],
    "tasks": [CAMPAIGN_TASK],
    "trials": [
        {"trial_id": "demo-r1-test/robot-carry/gpt-high/1", "task_id": "robot-carry",
         "config_id": "gpt-high", "attempt": 1},
        {"trial_id": "demo-r1-test/robot-carry/oracle/1", "task_id": "robot-carry",
         "config_id": "oracle", "attempt": 1},
    ],
    "metrics": ["avg@k", "pass@k", "win_tie_loss", "mcnemar_exact", "paired_mean_difference"],
    "statistics": {"bootstrap_samples": 1000, "confidence": 0.95, "seed": 7},
    "caps": {"model": 4, "blender": 2},
    "trial_attempts": 2,
}

DIFFICULTY_CONFIG = {"config_id": "oracle", "kind": "scripted", "label": "scripted policy — not a model result",
                     "k": 3, "recorded": 3, "scored": 2, "solved": 2, "infra_exceptions": 1, "solve_rate": 1,
                     "interval": {"method": "wilson", "confidence": 0.95, "low": 0.342372, "high": 1.0}}
DIFFICULTY_RECORD = {
    "campaign_id": "demo-r1-candidates-pilot", "namespace": "demo", "revision": "r1",
    "target": "candidates", "split": None, "plan_sha256": SHA, "recovery_round": None,
    "tasks": [{"task_id": "robot-carry", "task_version": "v1-abc", "publication_id": "robot-carry-r1",
               "publication_sha256": SHA, "verifier_version": "vv2-abc", "configs": [DIFFICULTY_CONFIG]}],
}

REPLACED = {
    "trial_id": "demo-r1-test/robot-carry/gpt-high/1",
    "original_sha256": SHA,
    "original_failure": {"kind": "infra", "type": "BlenderHostDied"},
    "recovered_sha256": SHA,
    "recovered_reward": 0.8,
    "recovered_success": True,
    "recovered_failure": None,
}

RECOVERY_AUDIT = {
    "campaign_id": "demo-r1-test",
    "round": 1,
    "requested_by": "operator",
    "reason": "Blender hosts died on one node",
    "created_at": "2026-02-01T09:00:00Z",
    "trial_ids": ["demo-r1-test/robot-carry/gpt-high/1"],
    "backup": {"location": "recoveries/1/trials.jsonl", "sha256": SHA, "records": 2},
    "replaced": [REPLACED],
    "trials_jsonl": {"original_sha256": SHA, "recovered_sha256": SHA},
}

ENDPOINT_CHECK = {
    "config_ids": ["llm-default"],
    "endpoint": "https://models.example.com/v1",
    "model": "gpt-x",
    "reasoning_effort": "high",
    "ok": True,
    "latency_sec": 0.42,
    "error_type": None,
    "error": None,
}

PREFLIGHT = {
    "campaign_id": "demo-r1-test",
    "checked_at": "2026-02-01T09:00:00+00:00",
    "worker": "gpu-1:4242",
    "endpoints": [ENDPOINT_CHECK],
    "smoke": {"task_id": "robot-carry", "ok": True, "seconds": 41.5, "blender_version": "5.2.0",
              "criteria": 6, "error_type": None, "error": None},
    "recovery_round": None,
    "ok": True,
    "failure": None,
}

UNREACHABLE = {"type": "ModelEndpointUnreachable",
               "message": "preflight: model endpoint of config(s) llm-default: 401 Unauthorized"}
FAILED_ENDPOINT = {**ENDPOINT_CHECK, "ok": False, "latency_sec": 0.1, "error_type": "ModelEndpointUnreachable",
                   "error": "401 Unauthorized"}

PRIVACY_POLICY = {
    "policy_id": "rl-task-basic-sanitization",
    "policy_version": "0.1.0",
    "title": "Basic sanitization",
    "rules": [
        {"id": "aws-access-key-id", "kind": "secret", "description": "an AWS access key id",
         "pattern": "(?<![A-Z0-9])AKIA[0-9A-Z]{16}(?![A-Z0-9])"},
        {"id": "email-address", "kind": "personal", "description": "an e-mail address",
         "pattern": "[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}",
         "allow": ["@example\\.com$"]},
        {"id": "payment-card-number", "kind": "personal", "description": "a card number",
         "pattern": "\\d{16}", "validator": "luhn"},
    ],
    "allowed_licences": ["CC0-1.0", "MIT"],
}

BASE = {
    "seed": SEED,
    "task": TASK,
    "taxonomy": TAXONOMY,
    "rubric": RUBRIC,
    "trial-record": TRIAL,
    "evaluation-plan": PLAN,
    "publication": PUBLICATION,
    "publication-records": PUBLICATION_RECORDS,
    "handoff-event": HANDOFF,
    "dataset-spec": DATASET_SPEC,
    "split-manifest": SPLIT_MANIFEST,
    "retraction": RETRACTION,
    "privacy-policy": PRIVACY_POLICY,
    "campaign-plan": CAMPAIGN_PLAN,
    "recovery-audit": RECOVERY_AUDIT,
    "difficulty-record": DIFFICULTY_RECORD,
    "preflight": PREFLIGHT,
}

VALID: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "seed": [
        ("accepts-a-range", _set(SEED, "software.accepts", {"min": "4.2", "max": "5.2"})),
        ("example", SEED),
        ("from-scratch-blend", _set(_set(SEED, "start_mode", "from_scratch"),
                                    "materials.0.path", "materials/scene.blend")),
        ("only-reference", _set(SEED, "materials", [SEED["materials"][0]])),
    ],
    "task": [
        ("draft", TASK),
        ("frozen", _set(_set(TASK, "status", "frozen"), "pipeline_ref", PIPELINE_REF)),
        ("no-attachments", _set(TASK, "public_attachments", [])),
        ("agent-zero-float", _set(TASK, "verification.weights.agent", 0.0)),
    ],
    "taxonomy": [
        ("tiny", TAXONOMY),
        ("project", json.loads((SCHEMA_DIR.parent / "taxonomy.json").read_text("utf-8"))),
    ],
    "rubric": [
        ("example", RUBRIC),
        ("empty-params", _set(RUBRIC, "criteria.0.params", {})),
        ("no-rule-criteria", _set(RUBRIC, "criteria", [])),
    ],
    "trial-record": [
        ("with-blender-version", _set(TRIAL, "blender_version", "5.2.0")),
        ("scored", TRIAL),
        ("unscored-vl-missing", _set(_set(TRIAL, "reward", None), "success", None)),
        ("exception", _set(_set(_set(_set(TRIAL, "reward", None), "success", None), "exception",
                                {"type": "SandboxTimeout", "message": "no heartbeat"}),
                           "delivery", None)),
        ("integral-float-attempt", _set(TRIAL, "attempt", 2.0)),
        ("agent-timeout-still-graded", _set(_set(TRIAL, "timed_out", True), "reward", 0.3)),
        ("rule-only-no-judge", _set(TRIAL, "judge", None)),
        ("solver-killed-blender-graded", _set(_set(TRIAL, "reward", 0), "failure", SOLVER_FAILURE)),
        ("infra-failure-unscored", _set(_set(_set(TRIAL, "reward", None), "success", None), "failure",
                                        {**SOLVER_FAILURE, "kind": "infra", "evidence": {}})),
        ("campaign", CAMPAIGN_TRIAL),
        ("campaign-nulls", CAMPAIGN_TRIAL_NULLS),
        ("campaign-cost-unmeasured", _set(CAMPAIGN_TRIAL, "cost", {
            "wall_sec": 0, "agent_sec": None, "model_calls": None, "input_tokens": None,
            "output_tokens": None, "agent_steps": None, "sandbox_cpu_sec": None, "gpu_sec": None})),
        ("campaign-infra-unscored", _set(_set(_set(CAMPAIGN_TRIAL, "reward", None), "success", None),
                                         "failure", {**SOLVER_FAILURE, "kind": "infra"})),
        ("campaign-minimal", {**TRIAL, "stage": "campaign", "campaign_id": "demo-r1-test"}),
    ],
    "evaluation-plan": [
        ("example", PLAN),
        ("no-baseline", _set(PLAN, "input_reward", None)),
    ],
    "publication": [
        ("revision-2", PUBLICATION),
        ("revision-1", _set(_set(PUBLICATION, "revision", 1), "previous", None)),
        ("content-digest", _set(PUBLICATION, "content_sha256", SHA)),
        ("in-a-dataset", _set(PUBLICATION, "dataset", DATASET_LINK)),
    ],
    "publication-records": [("example", PUBLICATION_RECORDS)],
    "handoff-event": [("example", HANDOFF), ("freeze", FREEZE_EVENT)],
    "dataset-spec": [
        ("example", DATASET_SPEC),
        ("seed-folder", _set(DATASET_SPEC, "seeds", {"folder": "seeds"})),
        ("absolute-seed", _set(DATASET_SPEC, "seeds", ["/srv/seeds/table-model"])),
        ("minimal", _drop(_drop(_drop(DATASET_SPEC, "coverage"), "selection_seed"), "concurrency")),
        ("with-options", _set(DATASET_SPEC, "options", {"k": 1})),
        ("integral-float", _set(DATASET_SPEC, "max_per_source", 2.0)),
        ("bands", _set(DATASET_SPEC, "bands", {"test": {"solved_by": "oracle", "not_always_solved_by": "nop"},
                                               "train": {"not_always_solved_by": "nop"}})),
    ],
    "retraction": [
        ("example", RETRACTION),
        ("first", _set(_set(RETRACTION, "sequence", 1), "previous_retraction_sha256", None)),
    ],
    "split-manifest": [
        ("example", SPLIT_MANIFEST),
        ("one-split", _set(SPLIT_MANIFEST, "splits", {"all": [SPLIT_ENTRY]})),
    ],
    "campaign-plan": [
        ("example", CAMPAIGN_PLAN),
        ("publications", _set(CAMPAIGN_PLAN, "source", {"dataset": None,
                                                        "publications": ["robot-carry-1-r2"]})),
        ("no-metrics-no-caps", _set(_set(CAMPAIGN_PLAN, "metrics", []), "caps", {})),
        ("retracted", _set(CAMPAIGN_PLAN, "source.retracted", [
            {"task_id": "mug-material", "publication_id": "mug-material-r1", "reason": "license withdrawn",
             "by": "ana", "at": "2026-01-31T12:00:00Z"}])),
        ("no-split-no-baseline", _set(_set(CAMPAIGN_PLAN, "tasks.0.split", None), "tasks.0.input_reward", None)),
        ("fractional-timeout", _set(CAMPAIGN_PLAN, "configs.0.timeout_sec", 0.5)),
        ("negative-seed", _set(CAMPAIGN_PLAN, "statistics.seed", -1)),
        ("candidates", _set(CAMPAIGN_PLAN, "source.dataset", {"namespace": "demo", "revision": "r1", "split": None,
                                                              "manifest_sha256": None, "target": "candidates"})),
    ],
    "difficulty-record": [
        ("example", DIFFICULTY_RECORD),
        ("frozen-split-after-recovery", _set(_set(_set(DIFFICULTY_RECORD, "target", "split"), "split", "test"),
                                             "recovery_round", 1)),
        ("nothing-scored", _set(_set(_set(DIFFICULTY_RECORD, "tasks.0.configs.0.scored", 0),
                                     "tasks.0.configs.0.solve_rate", None), "tasks.0.configs.0.interval", None)),
    ],
    "recovery-audit": [
        ("example", RECOVERY_AUDIT),
        ("still-failing", _set(RECOVERY_AUDIT, "replaced.0", {
            **REPLACED, "recovered_reward": None, "recovered_success": None,
            "recovered_failure": {"kind": "infra", "type": "BlenderHostDied"}})),
    ],
    "preflight": [
        ("example", PREFLIGHT),
        ("recovery-round", _set(PREFLIGHT, "recovery_round", 2)),
        ("no-model-configs", _set(PREFLIGHT, "endpoints", [])),
        ("endpoint-unreachable", _set(_set(_set(_set(PREFLIGHT, "endpoints", [FAILED_ENDPOINT]), "smoke", None),
                                           "ok", False), "failure", UNREACHABLE)),
        ("not-configured", _set(_set(_set(_set(PREFLIGHT, "endpoints", [{
            **FAILED_ENDPOINT, "endpoint": "", "model": None, "latency_sec": None,
            "error_type": "ModelNotConfigured", "error": "set ARKEVO_LLM_BASE_URL"}]), "smoke", None),
            "ok", False), "failure", {**UNREACHABLE, "type": "ModelNotConfigured"})),
        ("smoke-failed", _set(_set(_set(PREFLIGHT, "smoke", {
            "task_id": "robot-carry", "ok": False, "seconds": 3, "blender_version": None, "criteria": None,
            "error_type": "SandboxSmokeFailed", "error": "TrialInfraError: no free sandbox slot"}),
            "ok", False), "failure", {"type": "SandboxSmokeFailed", "message": "preflight: sandbox smoke trial"})),
    ],
    "privacy-policy": [
        ("example", PRIVACY_POLICY),
        ("described", _set(PRIVACY_POLICY, "description", "What the policy is for.")),
        ("empty-allow", _set(PRIVACY_POLICY, "rules.1.allow", [])),
        ("project", json.loads((SCHEMA_DIR.parent / "privacy"
                                / "rl-task-basic-sanitization@0.1.0.json").read_text("utf-8"))),
        ("project-0.1.1", json.loads((SCHEMA_DIR.parent / "privacy"
                                      / "rl-task-basic-sanitization@0.1.1.json").read_text("utf-8"))),
    ],
}

INVALID: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "seed": [
        ("null-accepts", _set(SEED, "software.accepts", None)),
        ("accepts-no-minor", _set(SEED, "software.accepts", {"min": "5", "max": "5.2"})),
        ("missing-provenance", _drop(SEED, "provenance")),
        ("unknown-key", _set(SEED, "notes", "x")),
        ("uppercase-seed-id", _set(SEED, "seed_id", "Robot-Carry")),
        ("two-reference-projects", _set(SEED, "materials.1.role", "reference_project")),
        ("no-reference-project", _set(SEED, "materials.0.role", "other")),
        ("escaping-path", _set(SEED, "materials.1.path", "../secret.md")),
        ("absolute-path", _set(SEED, "materials.1.path", "/etc/passwd")),
        ("bad-start-mode", _set(SEED, "start_mode", "extend")),
        ("other-software", _set(SEED, "software.name", "maya")),
        ("short-workflow-id", _set(SEED, "workflow_primary", "ANI-7")),
        ("string-public", _set(SEED, "materials.0.public", "no")),
        ("blank-title", _set(SEED, "title", "   ")),
        ("no-materials", _set(SEED, "materials", [])),
    ],
    "task": [
        ("negative-weight", _set(TASK, "criteria.1.weight", -1)),
        ("weight-above-one", _set(TASK, "criteria.1.weight", 1.5)),
        ("string-weight", _set(TASK, "criteria.1.weight", "0.5")),
        ("bool-weight", _set(TASK, "criteria.1.weight", True)),
        ("agent-weight", _set(TASK, "verification.weights.agent", 0.1)),
        ("agent-false", _set(TASK, "verification.weights.agent", False)),
        ("frozen-without-pipeline", _set(TASK, "status", "frozen")),
        ("uppercase-digest", _set(_set(TASK, "pipeline_ref", PIPELINE_REF),
                                  "pipeline_ref.pipeline_digest", SHA.upper())),
        ("short-digest", _set(_set(TASK, "pipeline_ref", PIPELINE_REF),
                              "pipeline_ref.pipeline_digest", SHA[:-1])),
        ("agent-channel", _set(TASK, "criteria.0.channel", "agent")),
        ("no-criteria", _set(TASK, "criteria", [])),
        ("duplicate-attachment", _set(TASK, "public_attachments", ["a.md", "a.md"])),
        ("int-core", _set(TASK, "criteria.0.core", 1)),
        ("criterion-extra-key", _set(TASK, "criteria.0.params", {})),
        ("missing-pipeline-ref", _drop(TASK, "pipeline_ref")),
        ("bad-status", _set(TASK, "status", "final")),
        ("absolute-instruction", _set(TASK, "instruction", "/instruction.md")),
        ("threshold-above-one", _set(TASK, "verification.pass_threshold", 1.01)),
        ("bad-profile", _set(TASK, "scoring_profile", {"profile_id": "rule-only"})),
    ],
    "taxonomy": [
        ("other-software", _set(TAXONOMY, "software", "maya")),
        ("bad-workflow-id", _set(TAXONOMY, "workflows.0.id", "ANI-7")),
        ("unknown-group", _set(TAXONOMY, "workflows.0.group", "FX")),
        ("no-professions", _set(TAXONOMY, "workflows.0.professions", [])),
        ("duplicate-profession", _set(TAXONOMY, "workflows.0.professions", ["PRF-ANIM"] * 2)),
        ("missing-version", _drop(TAXONOMY, "taxonomy_version")),
        ("short-version", _set(TAXONOMY, "taxonomy_version", "1.0")),
        ("bad-profession-id", _set(TAXONOMY, "professions.0.id", "ANIM")),
    ],
    "rubric": [
        ("list-params", _set(RUBRIC, "criteria.0.params", [1, 2])),
        ("missing-params", _drop(RUBRIC, "criteria.0.params")),
        ("camel-method", _set(RUBRIC, "criteria.0.method", "LocationAtFrame")),
        ("missing-criteria", _drop(RUBRIC, "criteria")),
        ("extra-key", _set(RUBRIC, "criteria.0.weight", 1)),
        ("int-version", _set(RUBRIC, "rubric_version", 1)),
    ],
    "trial-record": [
        ("null-blender-version", _set(TRIAL, "blender_version", None)),
        ("blender-version-words", _set(TRIAL, "blender_version", "latest")),
        ("attempt-zero", _set(TRIAL, "attempt", 0)),
        ("timed-out-not-bool", _set(TRIAL, "timed_out", "yes")),
        ("bool-attempt", _set(TRIAL, "attempt", True)),
        ("fractional-attempt", _set(TRIAL, "attempt", 1.5)),
        ("reward-above-one", _set(TRIAL, "reward", 1.2)),
        ("exception-scored-zero", _set(_set(TRIAL, "reward", 0), "exception",
                                       {"type": "SandboxTimeout", "message": "x"})),
        ("unknown-config-kind", _set(TRIAL, "config_kind", "human")),
        ("not-a-timestamp", _set(TRIAL, "started_at", "yesterday")),
        ("timestamp-without-zone", _set(TRIAL, "started_at", "2026-01-31T12:00:00")),
        ("bad-delivery-sha", _set(TRIAL, "delivery.sha256", "xyz")),
        ("negative-size", _set(TRIAL, "report.size", -1)),
        ("calibration-stage", _set(TRIAL, "stage", "calibration")),
        ("string-success", _set(TRIAL, "success", "true")),
        ("missing-finished-at", _drop(TRIAL, "finished_at")),
        ("exception-without-message", _set(_set(_set(TRIAL, "reward", None), "success", None),
                                           "exception", {"type": "Boom"})),
        ("missing-failure", _drop(TRIAL, "failure")),
        ("missing-judge", _drop(TRIAL, "judge")),
        ("judge-of-unknown-kind", _set(TRIAL, "judge", {**TRIAL["judge"], "kind": "human"})),
        ("unknown-failure-kind", _set(TRIAL, "failure", {**SOLVER_FAILURE, "kind": "model"})),
        ("failure-without-evidence", _set(TRIAL, "failure", _drop(SOLVER_FAILURE, "evidence"))),
        ("failure-extra-key", _set(TRIAL, "failure", {**SOLVER_FAILURE, "retried": True})),
        ("list-evidence", _set(TRIAL, "failure", {**SOLVER_FAILURE, "evidence": []})),
        ("infra-failure-scored-zero", _set(_set(TRIAL, "reward", 0), "failure",
                                           {**SOLVER_FAILURE, "kind": "infra"})),
        ("campaign-infra-scored", _set(_set(CAMPAIGN_TRIAL, "success", False), "failure",
                                       {**SOLVER_FAILURE, "kind": "infra"})),
        ("cost-negative-wall", _set(CAMPAIGN_TRIAL, "cost.wall_sec", -1)),
        ("cost-null-wall", _set(CAMPAIGN_TRIAL, "cost.wall_sec", None)),
        ("cost-fractional-calls", _set(CAMPAIGN_TRIAL, "cost.model_calls", 1.5)),
        ("cost-negative-gpu", _set(CAMPAIGN_TRIAL, "cost.gpu_sec", -0.5)),
        ("cost-unknown-key", _set(CAMPAIGN_TRIAL, "cost.dollars", 1.5)),
        ("cost-missing-key", _drop(CAMPAIGN_TRIAL, "cost.agent_steps")),
        ("recovery-round-zero", _set(CAMPAIGN_TRIAL, "recovery.round", 0)),
        ("recovery-short-sha", _set(CAMPAIGN_TRIAL, "recovery.replaces_sha256", SHA[:63])),
        ("recovery-extra-key", _set(CAMPAIGN_TRIAL, "recovery.by", "me")),
        ("unknown-effort", _set(CAMPAIGN_TRIAL, "reasoning_effort", "max")),
        ("null-campaign-id", _set(CAMPAIGN_TRIAL, "campaign_id", None)),
        ("null-agent", _set(CAMPAIGN_TRIAL, "agent", None)),
        ("null-validated", _set(CAMPAIGN_TRIAL, "validated", None)),
        ("null-cost", _set(CAMPAIGN_TRIAL, "cost", None)),
        ("null-publication-id", _set(CAMPAIGN_TRIAL, "publication_id", None)),
        ("blank-model", _set(CAMPAIGN_TRIAL, "model", " ")),
        ("string-validated", _set(CAMPAIGN_TRIAL, "validated", "yes")),
        ("bad-evidence-sha", _set(CAMPAIGN_TRIAL, "evidence.sha256", "xyz")),
        ("unknown-extra-key", _set(CAMPAIGN_TRIAL, "campaign", "demo")),
    ],
    "evaluation-plan": [
        ("k-zero", _set(PLAN, "k", 0)),
        ("unknown-metric", _set(PLAN, "metrics", ["avg@3"])),
        ("duplicate-metric", _set(PLAN, "metrics", ["avg@k", "avg@k"])),
        ("no-configs", _set(PLAN, "configs", [])),
        ("null-pipeline-ref", _set(PLAN, "pipeline_ref", None)),
        ("negative-baseline", _set(PLAN, "input_reward", -0.1)),
        ("missing-threshold", _drop(PLAN, "pass_threshold")),
        ("config-extra-key", _set(PLAN, "configs.0.model", "gpt")),
    ],
    "publication": [
        ("revision-zero", _set(_set(PUBLICATION, "revision", 0), "previous", None)),
        ("first-with-previous", _set(PUBLICATION, "revision", 1)),
        ("later-without-previous", _set(PUBLICATION, "previous", None)),
        ("no-files", _set(PUBLICATION, "files", [])),
        ("absolute-file", _set(PUBLICATION, "files.0.path", "/etc/passwd")),
        ("fractional-size", _set(PUBLICATION, "files.0.size", 1.5)),
        ("previous-bad-sha", _set(PUBLICATION, "previous.sha256", SHA[:10])),
        ("null-dataset", _set(PUBLICATION, "dataset", None)),
        ("dataset-with-a-chain-place", _set(PUBLICATION, "dataset", {**DATASET_LINK, "sequence": 2})),
        ("wall-time", _set(PUBLICATION, "created_at", "2026-01-31T12:00:00Z")),
        ("null-content-digest", _set(PUBLICATION, "content_sha256", None)),
    ],
    "publication-records": [
        ("no-files", _set(PUBLICATION_RECORDS, "files", [])),
        ("missing-published-at", _drop(PUBLICATION_RECORDS, "published_at")),
        ("bad-time", _set(PUBLICATION_RECORDS, "published_at", "yesterday")),
        ("parent-path", _set(PUBLICATION_RECORDS, "files.0.path", "../up.json")),
    ],
    "handoff-event": [
        ("other-kind", _set(HANDOFF, "kind", "task")),
        ("path-like-event-id", _set(HANDOFF, "event_id", "../x")),
        ("missing-task-version", _drop(HANDOFF, "subject.task_version")),
        ("short-sha", _set(HANDOFF, "publication.sha256", SHA[:63])),
        ("extra-key", _set(HANDOFF, "payload", {})),
        ("publication-without-publication", _drop(HANDOFF, "publication")),
        ("publication-with-manifest", _set(HANDOFF, "manifest", FREEZE_EVENT["manifest"])),
        ("freeze-without-manifest", _drop(FREEZE_EVENT, "manifest")),
        ("freeze-of-a-task", _set(FREEZE_EVENT, "subject", HANDOFF["subject"])),
        ("freeze-with-publication", _set(FREEZE_EVENT, "publication", HANDOFF["publication"])),
        ("null-manifest", _set(FREEZE_EVENT, "manifest", None)),
        ("manifest-short-digest", _set(FREEZE_EVENT, "manifest.semantic_digest", SHA[:10])),
        ("freeze-without-chain-head", _drop(FREEZE_EVENT, "manifest.chain_head")),
    ],
    "dataset-spec": [
        ("no-seeds", _set(DATASET_SPEC, "seeds", [])),
        ("duplicate-seeds", _set(DATASET_SPEC, "seeds", ["seeds/a", "seeds/a"])),
        ("parent-seed", _set(DATASET_SPEC, "seeds", ["seeds/../etc"])),
        ("double-slash-seed", _set(DATASET_SPEC, "seeds", ["//srv/seeds"])),
        ("folder-extra-key", _set(DATASET_SPEC, "seeds", {"folder": "seeds", "glob": "*"})),
        ("no-splits", _set(DATASET_SPEC, "splits", {})),
        ("empty-split", _set(DATASET_SPEC, "splits", {"train": 0})),
        ("split-bad-name", _set(DATASET_SPEC, "splits", {"Train Set": 3})),
        ("max-per-source-zero", _set(DATASET_SPEC, "max_per_source", 0)),
        ("missing-max-per-source", _drop(DATASET_SPEC, "max_per_source")),
        ("negative-coverage", _set(DATASET_SPEC, "coverage.min_sources", -1)),
        ("coverage-extra-key", _set(DATASET_SPEC, "coverage.min_tasks", 3)),
        ("too-much-concurrency", _set(DATASET_SPEC, "concurrency", 65)),
        ("null-options", _set(DATASET_SPEC, "options", None)),
        ("null-bands", _set(DATASET_SPEC, "bands", None)),
        ("empty-band", _set(DATASET_SPEC, "bands", {"test": {}})),
        ("band-extra-key", _set(DATASET_SPEC, "bands", {"test": {"solved_by": "oracle", "solved_by_all": "x"}})),
        ("null-band-config", _set(DATASET_SPEC, "bands", {"test": {"solved_by": None}})),
        ("bad-namespace", _set(DATASET_SPEC, "namespace", "Demo")),
        ("extra-key", _set(DATASET_SPEC, "owner", "me")),
    ],
    "retraction": [
        ("blank-reason", _set(RETRACTION, "reason", " ")),
        ("no-publication-sha", _drop(RETRACTION, "publication_sha256")),
        ("sequence-zero", _set(RETRACTION, "sequence", 0)),
        ("extra-key", _set(RETRACTION, "note", "x")),
    ],
    "split-manifest": [
        ("no-splits", _set(SPLIT_MANIFEST, "splits", {})),
        ("unknown-group", _set(SPLIT_MANIFEST, "splits.train.0.workflow_group", "XYZ")),
        ("bad-profession", _set(SPLIT_MANIFEST, "splits.train.0.profession", "artist")),
        ("short-digest", _set(SPLIT_MANIFEST, "semantic_digest", SHA[:63])),
        ("wall-time", _set(SPLIT_MANIFEST, "created_at", "2026-01-31T12:00:00Z")),
        ("chain-head", _set(SPLIT_MANIFEST, "chain_head", {"sequence": 8, "sha256": SHA})),
        ("entry-extra-key", _set(SPLIT_MANIFEST, "splits.train.0.split", "train")),
        ("missing-spec-sha", _drop(SPLIT_MANIFEST, "spec_sha256")),
    ],
    "campaign-plan": [
        ("missing-created-at", _drop(CAMPAIGN_PLAN, "created_at")),
        ("null-retracted", _set(CAMPAIGN_PLAN, "source.retracted", None)),
        ("empty-retracted", _set(CAMPAIGN_PLAN, "source.retracted", [])),
        ("bad-campaign-id", _set(CAMPAIGN_PLAN, "campaign_id", "Demo")),
        ("short-registry-sha", _set(CAMPAIGN_PLAN, "registry_sha256", SHA[:10])),
        ("no-configs", _set(CAMPAIGN_PLAN, "configs", [])),
        ("no-tasks", _set(CAMPAIGN_PLAN, "tasks", [])),
        ("no-trials", _set(CAMPAIGN_PLAN, "trials", [])),
        ("config-extra-key", _set(CAMPAIGN_PLAN, "configs.0.temperature", 0.2)),
        ("config-missing-kwargs", _drop(CAMPAIGN_PLAN, "configs.0.agent_kwargs")),
        ("list-kwargs", _set(CAMPAIGN_PLAN, "configs.0.agent_kwargs", [])),
        ("unknown-config-kind", _set(CAMPAIGN_PLAN, "configs.0.kind", "human")),
        ("unknown-effort", _set(CAMPAIGN_PLAN, "configs.0.reasoning_effort", "max")),
        ("zero-timeout", _set(CAMPAIGN_PLAN, "configs.0.timeout_sec", 0)),
        ("attempts-zero", _set(CAMPAIGN_PLAN, "configs.0.attempts", 0)),
        ("task-bad-slug", _set(CAMPAIGN_PLAN, "tasks.0.task_id", "Robot Carry")),
        ("task-threshold-above-one", _set(CAMPAIGN_PLAN, "tasks.0.pass_threshold", 1.5)),
        ("task-null-pipeline-ref", _set(CAMPAIGN_PLAN, "tasks.0.pipeline_ref", None)),
        ("trial-attempt-zero", _set(CAMPAIGN_PLAN, "trials.0.attempt", 0)),
        ("trial-extra-key", _set(CAMPAIGN_PLAN, "trials.0.stage", "campaign")),
        ("unknown-metric", _set(CAMPAIGN_PLAN, "metrics", ["avg@3"])),
        ("duplicate-metric", _set(CAMPAIGN_PLAN, "metrics", ["avg@k", "avg@k"])),
        ("too-few-bootstrap-samples", _set(CAMPAIGN_PLAN, "statistics.bootstrap_samples", 99)),
        ("confidence-one", _set(CAMPAIGN_PLAN, "statistics.confidence", 1)),
        ("confidence-zero", _set(CAMPAIGN_PLAN, "statistics.confidence", 0.0)),
        ("fractional-seed", _set(CAMPAIGN_PLAN, "statistics.seed", 1.5)),
        ("bad-pool-name", _set(CAMPAIGN_PLAN, "caps", {"GPU": 1})),
        ("cap-zero", _set(CAMPAIGN_PLAN, "caps", {"model": 0})),
        ("dataset-extra-key", _set(CAMPAIGN_PLAN, "source.dataset.sequence", 1)),
        ("dataset-short-sha", _set(CAMPAIGN_PLAN, "source.dataset.manifest_sha256", SHA[:10])),
        ("missing-publications", _drop(CAMPAIGN_PLAN, "source.publications")),
        ("trial-attempts-zero", _set(CAMPAIGN_PLAN, "trial_attempts", 0)),
    ],
    "difficulty-record": [
        ("model-label-kind", _set(DIFFICULTY_RECORD, "tasks.0.configs.0.kind", "policy")),
        ("unknown-interval", _set(DIFFICULTY_RECORD, "tasks.0.configs.0.interval.method", "normal")),
        ("rate-above-one", _set(DIFFICULTY_RECORD, "tasks.0.configs.0.solve_rate", 1.5)),
        ("negative-solved", _set(DIFFICULTY_RECORD, "tasks.0.configs.0.solved", -1)),
        ("zero-k", _set(DIFFICULTY_RECORD, "tasks.0.configs.0.k", 0)),
        ("unknown-target", _set(DIFFICULTY_RECORD, "target", "publications")),
        ("missing-verifier", _drop(DIFFICULTY_RECORD, "tasks.0.verifier_version")),
    ],
    "recovery-audit": [
        ("round-zero", _set(RECOVERY_AUDIT, "round", 0)),
        ("bad-campaign-id", _set(RECOVERY_AUDIT, "campaign_id", "-demo")),
        ("blank-reason", _set(RECOVERY_AUDIT, "reason", " ")),
        ("missing-created-at", _drop(RECOVERY_AUDIT, "created_at")),
        ("no-trials", _set(RECOVERY_AUDIT, "trial_ids", [])),
        ("duplicate-trial-ids", _set(RECOVERY_AUDIT, "trial_ids", [REPLACED["trial_id"]] * 2)),
        ("no-records-backed-up", _set(RECOVERY_AUDIT, "backup.records", 0)),
        ("backup-extra-key", _set(RECOVERY_AUDIT, "backup.path", "x")),
        ("nothing-replaced", _set(RECOVERY_AUDIT, "replaced", [])),
        ("null-original-failure", _set(RECOVERY_AUDIT, "replaced.0.original_failure", None)),
        ("unknown-failure-kind", _set(RECOVERY_AUDIT, "replaced.0.original_failure.kind", "model")),
        ("failure-with-message", _set(RECOVERY_AUDIT, "replaced.0.recovered_failure",
                                      {"kind": "solver", "type": "AgentTimeout", "message": "x"})),
        ("reward-above-one", _set(RECOVERY_AUDIT, "replaced.0.recovered_reward", 1.5)),
        ("string-success", _set(RECOVERY_AUDIT, "replaced.0.recovered_success", "true")),
        ("missing-recovered-failure", _drop(RECOVERY_AUDIT, "replaced.0.recovered_failure")),
        ("short-jsonl-sha", _set(RECOVERY_AUDIT, "trials_jsonl.recovered_sha256", SHA[:63])),
    ],
    "preflight": [
        ("passed-with-failure", _set(PREFLIGHT, "failure", UNREACHABLE)),
        ("failed-without-failure", _set(_set(PREFLIGHT, "endpoints", [FAILED_ENDPOINT]), "ok", False)),
        ("passed-endpoint-with-error", _set(PREFLIGHT, "endpoints.0.error", "slow")),
        ("failed-endpoint-without-type", _set(PREFLIGHT, "endpoints.0", {**FAILED_ENDPOINT, "error_type": None})),
        ("unknown-error-type", _set(PREFLIGHT, "endpoints.0", {**FAILED_ENDPOINT, "error_type": "Timeout"})),
        ("no-config-ids", _set(PREFLIGHT, "endpoints.0.config_ids", [])),
        ("round-zero", _set(PREFLIGHT, "recovery_round", 0)),
        ("missing-recovery-round", _drop(PREFLIGHT, "recovery_round")),
        ("bad-timestamp", _set(PREFLIGHT, "checked_at", "yesterday")),
        ("negative-latency", _set(PREFLIGHT, "endpoints.0.latency_sec", -1)),
        ("smoke-extra-key", _set(PREFLIGHT, "smoke.slot", 3)),
        ("blank-failure-message", _set(_set(_set(PREFLIGHT, "endpoints", [FAILED_ENDPOINT]), "ok", False),
                                       "failure", {**UNREACHABLE, "message": " "})),
    ],
    "privacy-policy": [
        ("no-rules", _set(PRIVACY_POLICY, "rules", [])),
        ("unknown-kind", _set(PRIVACY_POLICY, "rules.0.kind", "licence")),
        ("unknown-validator", _set(PRIVACY_POLICY, "rules.2.validator", "crc")),
        ("null-validator", _set(PRIVACY_POLICY, "rules.2.validator", None)),
        ("null-allow", _set(PRIVACY_POLICY, "rules.1.allow", None)),
        ("null-description", _set(PRIVACY_POLICY, "description", None)),
        ("blank-pattern", _set(PRIVACY_POLICY, "rules.0.pattern", " ")),
        ("uppercase-rule-id", _set(PRIVACY_POLICY, "rules.0.id", "AWS")),
        ("rule-extra-key", _set(PRIVACY_POLICY, "rules.0.flags", "i")),
        ("duplicate-licence", _set(PRIVACY_POLICY, "allowed_licences", ["MIT", "MIT"])),
        ("no-licences", _set(PRIVACY_POLICY, "allowed_licences", [])),
        ("missing-version", _drop(PRIVACY_POLICY, "policy_version")),
    ],
}

CASES = [
    pytest.param(kind, doc, True, id=f"{kind}-valid-{name}")
    for kind, samples in VALID.items()
    for name, doc in samples
] + [
    pytest.param(kind, doc, False, id=f"{kind}-invalid-{name}")
    for kind, samples in INVALID.items()
    for name, doc in samples
]


def _schema_accepts(kind: str, doc: Any) -> bool:
    return not list(Draft202012Validator(load_schema(kind)).iter_errors(doc))


def _model_accepts(kind: str, doc: Any) -> bool:
    try:
        DOCUMENTS[kind].model_validate(doc)
    except ValidationError:
        return False
    return True


def test_every_kind_has_samples() -> None:
    assert set(VALID) == set(INVALID) == set(DOCUMENTS)
    for kind in DOCUMENTS:
        assert VALID[kind] and len(INVALID[kind]) >= 3, kind


@pytest.mark.parametrize(("kind", "doc", "valid"), CASES)
def test_schema_and_model_agree(kind: str, doc: dict[str, Any], valid: bool) -> None:
    assert _schema_accepts(kind, doc) is valid
    assert _model_accepts(kind, doc) is valid


@pytest.mark.parametrize("kind", list(BASE))
def test_model_dumps_back_to_the_document(kind: str) -> None:
    """Documents are hashed, so a model must not change a number's type or drop a null."""
    model = DOCUMENTS[kind].model_validate(BASE[kind])
    assert canonical_json_bytes(model.model_dump(mode="json")) == canonical_json_bytes(BASE[kind])


def test_committed_schemas_are_what_the_models_generate() -> None:
    """The models are the one description of each document; the files are their output."""
    assert json_schemas.stale() == [], "run `make schemas`"
    for kind in DOCUMENTS:
        assert load_schema(kind) == json.loads((SCHEMA_DIR / f"{kind}.schema.json").read_text("utf-8"))


def test_every_pattern_is_a_named_definition() -> None:
    """A pattern error explains itself with its definition's description, so no pattern may be
    left inline (a new pattern constant needs a name in NAMED_PATTERNS)."""

    def inline_patterns(node: Any, inside_defs: bool = False) -> list[str]:
        if isinstance(node, dict):
            found = [node["pattern"]] if isinstance(node.get("pattern"), str) and not inside_defs else []
            for key, value in node.items():
                if key == "$defs":
                    found += [p for d in value.values() for p in inline_patterns(d, d.get("type") == "string")]
                else:
                    found += inline_patterns(value)
            return found
        if isinstance(node, list):
            return [p for value in node for p in inline_patterns(value)]
        return []

    for kind in DOCUMENTS:
        assert inline_patterns(load_schema(kind)) == [], kind


def test_stale_schema_files_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("task.schema.json", "seed.schema.json"):
        (tmp_path / name).write_text(json_schemas.render(name.removesuffix(".schema.json")), "utf-8")
    (tmp_path / "seed.schema.json").write_text("{}", "utf-8")
    (tmp_path / "old.schema.json").write_text("{}", "utf-8")
    monkeypatch.setattr(json_schemas, "SCHEMA_DIR", tmp_path)
    assert "seed.schema.json" in json_schemas.stale() and "old.schema.json" in json_schemas.stale()
    assert "task.schema.json" not in json_schemas.stale()
    assert json_schemas.main(["--check"]) == 1
    json_schemas.write()
    assert json_schemas.stale() == [] and not (tmp_path / "old.schema.json").exists()
    assert json_schemas.main(["--check"]) == 0


@pytest.mark.parametrize(
    "doc",
    [CAMPAIGN_TRIAL, CAMPAIGN_TRIAL_NULLS, _drop(CAMPAIGN_TRIAL, "recovery"),
     {**TRIAL, "stage": "campaign", "campaign_id": "demo-r1-test"}],
    ids=["all-extras", "null-extras", "no-recovery", "minimal"],
)
def test_trial_record_optional_keys_dump_as_read(doc: dict[str, Any]) -> None:
    """An optional key the document left out stays out; one it set to null stays null."""
    model = models.TrialRecord.model_validate(doc)
    assert canonical_json_bytes(model.model_dump(mode="json")) == canonical_json_bytes(doc)


# Rules JSON Schema cannot state (references inside a document, ids unique by one field, an
# ordered version range): the
# schema accepts these documents, the model (and so `validate_document`) rejects them.
BEYOND_THE_SCHEMA = [
    pytest.param("campaign-plan", _set(CAMPAIGN_PLAN, "trials.1.config_id", "claude"), "not in configs",
                 id="campaign-plan-unknown-config"),
    pytest.param("campaign-plan", _set(CAMPAIGN_PLAN, "trials.1.task_id", "table-model"), "not in tasks",
                 id="campaign-plan-unknown-task"),
    pytest.param("campaign-plan", _set(CAMPAIGN_PLAN, "trials.1.trial_id", CAMPAIGN_PLAN["trials"][0]["trial_id"]),
                 "not unique", id="campaign-plan-duplicate-trial-id"),
    pytest.param("recovery-audit", _set(RECOVERY_AUDIT, "replaced.0.trial_id", "other/1"), "exactly the trials",
                 id="recovery-audit-other-trial-replaced"),
    pytest.param("recovery-audit", _set(RECOVERY_AUDIT, "trial_ids", [REPLACED["trial_id"], "other/1"]),
                 "exactly the trials", id="recovery-audit-trial-not-replaced"),
    pytest.param("recovery-audit", _set(RECOVERY_AUDIT, "replaced", [REPLACED, REPLACED]), "more than once",
                 id="recovery-audit-trial-replaced-twice"),
    pytest.param("preflight", _set(PREFLIGHT, "endpoints", [FAILED_ENDPOINT]), "every endpoint and the smoke",
                 id="preflight-ok-with-a-failed-endpoint"),
    pytest.param("preflight", _set(_set(PREFLIGHT, "ok", False), "failure", UNREACHABLE),
                 "every endpoint and the smoke", id="preflight-failed-with-every-check-passed"),
    pytest.param("dataset-spec", _set(DATASET_SPEC, "bands", {"holdout": {"solved_by": "oracle"}}),
                 "not a split of this spec", id="dataset-spec-band-for-an-unknown-split"),
    pytest.param("seed", _set(SEED, "software.accepts", {"min": "5.2", "max": "4.2"}), "newer than max",
                 id="seed-accepts-reversed"),
]


@pytest.mark.parametrize(("kind", "doc", "reason"), BEYOND_THE_SCHEMA)
def test_model_checks_what_the_schema_cannot(kind: str, doc: dict[str, Any], reason: str) -> None:
    assert _schema_accepts(kind, doc)
    assert not _model_accepts(kind, doc)
    with pytest.raises(ContractError, match=reason):
        validate_document(kind, doc, "evaluation-plan.json")


def test_schemas_have_ids_and_closed_objects() -> None:
    for kind in DOCUMENTS:
        schema = load_schema(f"{kind}.schema.json")
        assert schema["$id"] == f"https://arkevo.dev/schemas/{kind}.schema.json"
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(schema)

        def objects(node: Any):
            """Object schemas, leaving out `contains`/`if` predicates: they test a part of a
            document and are open on purpose."""
            if isinstance(node, dict):
                if node.get("type") == "object" and "properties" in node:
                    yield node
                for key, value in node.items():
                    if key not in ("contains", "if"):
                        yield from objects(value)
            elif isinstance(node, list):
                for value in node:
                    yield from objects(value)

        for node in objects(schema):
            assert node.get("additionalProperties") is False, (kind, sorted(node["properties"]))
    assert sorted(p.name for p in SCHEMA_DIR.glob("*.schema.json")) == sorted(
        f"{kind}.schema.json" for kind in DOCUMENTS
    )


def test_unknown_kind_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown document kind"):
        validate_document("recipe", {}, "x.json")


# --- error messages ---------------------------------------------------------------------------


def _error(kind: str, doc: Any, source: str = "seeds/x/draft/task.json") -> ContractError:
    with pytest.raises(ContractError) as info:
        validate_document(kind, doc, source)
    return info.value


def test_error_names_file_and_field_path() -> None:
    doc = _set(TASK, "criteria", [*TASK["criteria"], {**TASK["criteria"][0], "weight": -1}])
    error = _error("task", doc)
    assert str(error) == (
        "seeds/x/draft/task.json: criteria[3].weight: -1 is less than the minimum of 0"
    )
    assert (error.file, error.field) == ("seeds/x/draft/task.json", "criteria[3].weight")
    assert error.reason == "-1 is less than the minimum of 0"


def test_missing_and_unexpected_properties_name_the_property() -> None:
    error = _error("task", _drop(TASK, "criteria.1.core"))
    assert (error.field, error.reason) == ("criteria[1].core", "is a required property")
    error = _error("task", _set(TASK, "verification.weights.human", 0))
    assert error.field == "verification.weights.human"
    assert "not an allowed property" in error.reason


def test_all_errors_are_listed_sorted_by_field() -> None:
    doc = _set(_set(TASK, "title", ""), "criteria.0.weight", 2)
    error = _error("task", doc)
    assert [d.split(":")[0] for d in error.details] == ["criteria[0].weight", "title"]


def test_pattern_errors_explain_the_pattern() -> None:
    error = _error("seed", _set(SEED, "materials.1.path", "../up.md"), "seeds/x/seed.json")
    assert error.field == "materials[1].path"
    assert error.reason.startswith("'../up.md' is not a relative POSIX path")


def test_conditional_rules_explain_themselves() -> None:
    error = _error("task", _set(TASK, "status", "frozen"))
    assert error.field == "pipeline_ref"
    assert "frozen task" in error.reason
    error = _error("task", _set(TASK, "verification.weights.agent", 0.5))
    assert error.field == "verification.weights.agent"
    assert "agent weight is always 0" in error.reason
    crashed = _set(_set(TRIAL, "success", None), "exception", {"type": "Boom", "message": ""})
    error = _error("trial-record", crashed)
    assert error.field == "reward"
    assert "never a model's 0" in error.reason


def test_valid_document_becomes_its_model() -> None:
    task = validate_document("task", TASK, "task.json")
    assert isinstance(task, models.Task)
    assert task.criteria[0].id == "C01"
    assert task.verification.weights.agent == 0
    seed = validate_document("seed", SEED, "seed.json")
    assert isinstance(seed, models.SeedManifest)
    assert seed.reference_project.path == "materials/build_reference.py"


def test_models_are_immutable() -> None:
    task = validate_document("task", TASK, "task.json")
    with pytest.raises(ValidationError):
        task.status = "frozen"  # type: ignore[misc]


# --- reading files ----------------------------------------------------------------------------


def test_read_json_reports_malformed_json_with_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "task.json"
    path.write_text('{\n  "task_id": "x",\n  "title": oops\n}\n', encoding="utf-8")
    with pytest.raises(ContractError) as info:
        read_json(path, "task")
    assert info.value.file == str(path)
    assert info.value.field == "<root>"
    assert "line 3, column 12" in info.value.reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"a": 1, "a": 2}', "duplicate key 'a'"),
        ('{"a": NaN}', "NaN is not a JSON number"),
        (b"\xff\xfe{}", "not UTF-8"),
    ],
)
def test_read_json_refuses_what_json_would_let_through(
    tmp_path: Path, text: str | bytes, reason: str
) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ContractError, match=reason):
        read_json(path, "rubric")


def test_read_json_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ContractError, match="file not found"):
        read_json(tmp_path / "nope.json", "seed", source="seeds/nope/seed.json")


def test_read_json_validates(tmp_path: Path) -> None:
    path = tmp_path / "rubric.json"
    path.write_text(json.dumps(RUBRIC, indent=2), encoding="utf-8")
    assert read_json(path, "rubric") == models.Rubric.model_validate(RUBRIC)
    path.write_text(json.dumps(_set(RUBRIC, "criteria.0.method", "Bad")), encoding="utf-8")
    with pytest.raises(ContractError) as info:
        read_json(path, "rubric", source="draft/rubric.json")
    assert str(info.value).startswith("draft/rubric.json: criteria[0].method: 'Bad' is not ")


def test_read_jsonl_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "trials.jsonl"
    lines = [json.dumps(TRIAL), "", json.dumps(_set(TRIAL, "attempt", 0))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ContractError) as info:
        read_jsonl(path, "trial-record")
    assert info.value.file == f"{path}:3"
    assert info.value.field == "attempt"
    path.write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")
    assert [t.trial_id for t in read_jsonl(path, "trial-record")] == [TRIAL["trial_id"]]
