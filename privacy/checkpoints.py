"""The three privacy checkpoints (docs/privacy.md). Each scans with the policy the seed or task
names; a finding raises the non-retryable `PrivacyFinding` (contracts.errors) listing every
finding; what could not be read comes back as the report's `pending`.

* admission (`check_admission`): every material and draft file of a seed and seed.json, before
  anything is written to the store; .blend materials are pending unless already read;
* dispatch (`check_dispatch`): exactly what a solver receives, before the agent starts; its
  .blend files are read through Blender in the sandbox (cached by sha256);
* export (`check_export`): every file of a publication's staging folder; .blend files from
  the extraction cache, uncached ones and unknown binaries pending.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from contracts.errors import privacy_finding
from storage.content import ContentStore
from privacy.extract import blend_text_lookup, cached_blend_text, read_blend_texts
from privacy.policy import Policy, load_policy_for
from privacy.report import PrivacyReport
from privacy.scan import is_blend, list_files, scan_tree, sha256_of
from sandbox.script_run import ScriptIsolation

# What a solver receives of a Harbor task directory (activities/harbor_task.py): the
# instruction (Harbor hands its text to the agent) and environment/ — the Dockerfile's
# `COPY workspace /workspace` puts environment/workspace/ (inputs/start.blend, the public
# attachments, the empty outputs/) into its sandbox (sandbox/isolation/taskimage.py); the
# Dockerfile itself is read by the worker, and is ours. Never tests/ (uploaded only to the
# separate verifier sandbox), solution/ or the privileged scripts (worker side only), task.toml
# (read by Harbor) — see sandbox/environment.py and docs/sandbox.md.
SOLVER_VIEW = ("instruction.md", "environment/")


def raise_for_findings(report: PrivacyReport) -> PrivacyReport:
    if report.findings:
        raise privacy_finding(report)
    return report


def check_admission(seed_dir: Path, files: list[str], sanitization_policy: Mapping | object,
                    store: ContentStore | None) -> PrivacyReport:
    """Scan the seed's `files` (relative paths: materials, draft, seed.json). Reads the store
    (cached .blend extractions; None: none cached) and never writes to it. Raises
    `ContractError` for a policy that is missing or invalid, `PrivacyFinding` for findings."""
    policy = load_policy_for(sanitization_policy)
    return raise_for_findings(scan_tree(seed_dir, policy, files=files, checkpoint="admission",
                                        blend_texts=blend_text_lookup(store) if store else lambda sha256: None))


def solver_view(task_dir: Path) -> list[str]:
    return [rel for rel in list_files(task_dir) if any(
        rel == prefix or (prefix.endswith("/") and rel.startswith(prefix)) for prefix in SOLVER_VIEW)]


async def check_dispatch(task_dir: Path, policy: Policy, store: ContentStore, *,
                         sandbox: ScriptIsolation = None, work: Path | None = None,
                         also_read: Mapping[str, Path] | None = None) -> PrivacyReport:
    """Scan what the solver receives of `task_dir`. Its .blend files (and `also_read`,
    {sha256: path} of the package's other .blend files, so that the export finds them read)
    are read in one sandboxed Blender process unless cached. Raises `PrivacyFinding`."""
    files = solver_view(task_dir)
    blends = {}
    for rel in files:
        path = task_dir / rel
        with open(path, "rb") as f:
            head = f.read(16)
        if is_blend(rel, head):
            blends[sha256_of(path)] = path
    blends.update(also_read or {})
    docs = await read_blend_texts(store, blends, sandbox=sandbox, work=work) if blends else {}
    cached = blend_text_lookup(store)
    report = scan_tree(task_dir, policy, files=files, checkpoint="dispatch",
                       blend_texts=lambda sha: docs.get(sha) or cached(sha))
    return raise_for_findings(report)


def check_export(root: Path, policy: Policy, store: ContentStore) -> PrivacyReport:
    """Scan every file under `root` (a publication's staging folder). .blend files are covered
    by their cached extraction (read at dispatch); uncached ones and unknown binaries are the
    report's `pending`. Raises `PrivacyFinding`."""
    return raise_for_findings(scan_tree(root, policy, checkpoint="export",
                                        blend_texts=blend_text_lookup(store)))


def unread_blends(store: ContentStore, entries: Mapping[str, Mapping]) -> dict[str, str]:
    """{sha256: path} of the .blend files of a store tree's `entries` not yet read."""
    return {e["sha256"]: rel for rel, e in entries.items()
            if is_blend(rel, b"") and cached_blend_text(store, e["sha256"]) is None}
