"""A task package (store tree) written out as a Harbor task directory.

    task.toml  instruction.md  environment/{Dockerfile, workspace/}  tests/  solution/

Used for publications and for running trials through Harbor's own trial API, so the package a
trial grades and the package that is published are written by the same code.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from importlib.metadata import version
from pathlib import Path
from typing import cast

from harbor.models.task.config import (
    AgentConfig, EnvironmentConfig, NetworkMode, PackageInfo, TaskConfig, VerifierConfig,
    VerifierEnvironmentMode,
)

from blender.runner import BLENDER_SCRIPTS
from storage.content import ContentStore
from contracts import lineage
from contracts.payloads.authoring import GradingSpec, TaskIdentity
from contracts.payloads.common import BlobRef
from verifiers.evidence import resolve_spec
from verifiers.version import PROBE_FILES

VERIFIERS = Path(__file__).resolve().parent.parent / "verifiers"

TEST_SH = """#!/bin/bash
# Grades /workspace/outputs/result.blend by measuring it in Blender (bpy); writes Harbor's reward.
# The same tests/ also run under RewardKit:
#   python -m rewardkit /tests --workspace /workspace --output /logs/verifier/reward.json
set -euo pipefail
mkdir -p /logs/verifier
args=(--blend /workspace/outputs/result.blend
      --task /tests/task.json --rubric /tests/rubric.json --out /logs/verifier/report.json)
probe=(python3 /tests/rule_probe.py "${args[@]}")
status=0
if [ -f /tests/evidence_job.json ]; then
    # A pipeline trial whose profile weights VL: the probe's process then renders the delivery's
    # evidence for the gpu worker (probe_and_render.py). Once it marks its report final, the
    # report stands, whatever the renders after it do (crash, kill, time limit).
    timeout -k 10 "${ARKEVO_PROBE_TIMEOUT_SEC:-300}" python3 /tests/probe_and_render.py \\
        --evidence /tests/evidence_job.json --done /logs/verifier/probe-done.json \\
        -- "${args[@]}" --started /logs/verifier/probe-started.json || status=$?
    if [ -f /logs/verifier/probe-done.json ]; then status=0; fi
else
    timeout -k 10 "${ARKEVO_PROBE_TIMEOUT_SEC:-300}" "${probe[@]}" \\
        --started /logs/verifier/probe-started.json || status=$?
fi
# The probe marks when it starts on the delivery. Killed by a signal (>128) or the timeout
# (124) after that mark, the delivery broke it: scored 0 with the reason (docs/failures.md).
# Without the mark, or a Python error (1), the verifier failed: no report, retried.
if [ "$status" -ne 0 ]; then
    if [ ! -f /logs/verifier/probe-started.json ] || { [ "$status" -ne 124 ] && [ "$status" -le 128 ]; }; then
        exit "$status"
    fi
    problem=DeliveryCrashedProbe
    if [ "$status" -eq 124 ]; then problem=DeliveryHungProbe; fi
    "${probe[@]}" --delivery-problem "$problem" --detail "the rule probe exited with status $status"
fi
if [ -f /tests/grading.json ]; then
    # A published task whose profile weights VL: grade as the pipeline did, offline
    # (evidence renders + the image-metric judge + the scoring profile).
    exec python3 /tests/packaged_grade.py --tests /tests --blend /workspace/outputs/result.blend \
        --report /logs/verifier/report.json --out /logs/verifier
fi
python3 - <<'PY'
import json, sys
report = json.load(open("/logs/verifier/report.json"))
if report["reward"] is None:  # a weighted channel has no score: no reward, never a silent 0
    sys.exit(f"no reward: {report['reward_null_reason']}")
json.dump({"reward": report["reward"]}, open("/logs/verifier/reward.json", "w"))
PY
"""

SOLVE_SH = """#!/bin/bash
# Reference solution: applies solve.py to the starting scene and saves the delivery.
set -euo pipefail
mkdir -p /workspace/outputs
cd /workspace
python3 /solution/apply_script.py --in inputs/start.blend --script /solution/solve.py \\
    --out outputs/result.blend
"""

# Debian packages of the task image's runtime: what bpy's __init__.so links (`ldd` mapped
# through `dpkg -S`; tests/unit/test_harbor_lint.py derives the list again on the build host),
# and what it loads at run time without a display: EGL + Mesa's software GL (llvmpipe) for
# Workbench/EEVEE renders (the packaged VL grading renders evidence), libXxf86vm for GL.
BPY_LIBRARIES = (
    "libbsd0", "libgl1", "libglvnd0", "libglx0", "libice6", "libmd0", "libsm6", "libstdc++6",
    "libuuid1", "libx11-6", "libxau6", "libxcb1", "libxdmcp6", "libxext6", "libxfixes3",
    "libxi6", "libxkbcommon0", "libxrender1",
    "libegl1", "libxxf86vm1", "libegl-mesa0", "libgl1-mesa-dri", "libglx-mesa0",
)

# The task image for Harbor's Docker environments (`harbor run -e docker`, docs/exports.md).
# Debian 13 ships Python 3.13, the version bpy's wheels are built for; its Python is externally
# managed (PEP 668), so bpy lives in a venv, first on PATH: `python3` in test.sh and solve.sh
# (and in the separate verifier's container, built from this same file) is the venv's. Pillow
# (the worker's version) sits beside bpy for the packaged VL grading (verifiers/vl.py). The
# agent runs as the unprivileged `agent` (task.toml [agent] user), who owns /workspace; the
# verifier keeps the image's root. The build host's CA bundle (optional build secret
# `ca_bundle`, as for the worker image) is trusted for the PyPI download, for hosts behind a
# TLS-inspecting proxy; the image keeps Debian's own trust. arkevo's own sandbox reads only
# COPY/ADD, WORKDIR and ENV of this file (sandbox/isolation/taskimage.py): its runtime is the
# worker's venv, and an ENV that extends the base image's `$PATH` leaves the sandbox's PATH be.
DOCKERFILE = """FROM debian:trixie-slim
RUN apt-get update \\
    && apt-get install -y --no-install-recommends python3.13 python3.13-venv \\
""" + "".join(f"        {line} \\\n" for line in textwrap.wrap(" ".join(BPY_LIBRARIES), 80)) + """\
    && rm -rf /var/lib/apt/lists/*
ENV PATH=/opt/bpy/bin:$PATH
RUN --mount=type=secret,id=ca_bundle \\
    if [ -s /run/secrets/ca_bundle ]; then export PIP_CERT=/run/secrets/ca_bundle; fi \\
    && python3.13 -m venv /opt/bpy \\
    && python3 -m pip install --no-cache-dir bpy=={bpy_version} pillow=={pillow_version}
RUN useradd --create-home --uid 1000 --shell /bin/bash agent
COPY --chown=agent:agent workspace /workspace
WORKDIR /workspace
"""

# The Harbor registry organisation a packaged task is named under: `[task] name = "arkevo/<task_id>"`.
HARBOR_ORG = "arkevo"


def dockerfile() -> str:
    """environment/Dockerfile, with bpy and Pillow pinned to the worker's versions."""
    return DOCKERFILE.format(bpy_version=version("bpy"), pillow_version=version("pillow"))


def task_config(meta: TaskIdentity) -> TaskConfig:
    """task.toml as Harbor's own model: `[task]` names the package for a Harbor registry,
    `[metadata]` carries the task's identity."""
    return TaskConfig(
        task=PackageInfo(name=f"{HARBOR_ORG}/{meta.task_id}", version=meta.task_version),
        metadata={"task_id": meta.task_id, "task_version": meta.task_version,
                  "verifier_version": meta.verifier_version, "pipeline_digest": meta.pipeline_digest,
                  "workflow_primary": meta.workflow_primary, "profession_primary": meta.profession_primary,
                  # the Blender that built the workspace (the environment's Dockerfile pins it too)
                  **({"blender_version": meta.blender_version} if meta.blender_version else {}),
                  # where the task comes from: the split key (docs/datasets.md, "Lineage")
                  **{key: value for key, value in (
                      (lineage.META_ROOT, meta.lineage_root), (lineage.META_FAMILY, meta.lineage_family),
                      (lineage.META_SPLIT, meta.lineage_split)) if value},
                  **meta.family_instance},
        # The delivery travels to a separate verifier sandbox; nothing else of the solver's does.
        artifacts=["/workspace/outputs"],
        verifier=VerifierConfig(timeout_sec=600.0, environment_mode=VerifierEnvironmentMode.SEPARATE),
        # `agent` exists in the task image and owns /workspace (environment/Dockerfile).
        agent=AgentConfig(timeout_sec=3600.0, user="agent"),
        environment=EnvironmentConfig(build_timeout_sec=900.0, workdir="/workspace",
                                      network_mode=NetworkMode.NO_NETWORK),
    )


def task_toml(meta: TaskIdentity) -> str:
    """task.toml's text, written by Harbor's `TaskConfig.model_dump_toml`. Harbor serialises
    with the `toml` package, which mangles control characters and a backslash before `x`; a
    text that does not read back as the same config is refused, never written."""
    config = task_config(meta)
    text = config.model_dump_toml()
    try:
        same = TaskConfig.model_validate_toml(text) == config
    except ValueError as exc:  # tomllib.TOMLDecodeError, pydantic.ValidationError
        raise ValueError(f"{meta.task_id}: Harbor wrote a task.toml it cannot read back: {exc}") from None
    if not same:
        raise ValueError(f"{meta.task_id}: Harbor's task.toml does not read back as written")
    return text


# What the verifier of a pipeline trial renders the evidence with (probe_and_render.py).
EVIDENCE_PREFETCH_SCRIPTS = ("probe_and_render.py", "render_evidence.py")
EVIDENCE_OUT = "/logs/verifier/evidence"  # Harbor reads /logs/verifier back: <trial>/verifier/evidence
EVIDENCE_JOB = "tests/evidence_job.json"  # in the task dir: test.sh renders when it is there


def write_harbor_task(store: ContentStore, package: BlobRef, dest: Path, meta: TaskIdentity,
                      evidence: dict | None = None) -> Path:
    """Write the Harbor view of `package` to `dest` (private/ stays out of it). `evidence`
    ({"spec": resolved view spec, "budget_sec"}): the verifier also renders the delivery's
    evidence after the probe, in the same process, into EVIDENCE_OUT (tests/evidence_job.json)."""
    store.materialize_tree(package, dest / "environment" / "workspace", prefix="workspace/")
    (dest / "environment" / "workspace" / "outputs").mkdir(exist_ok=True)  # where deliveries go
    store.materialize_tree(package, dest / "tests", prefix="tests/")
    store.materialize_tree(package, dest / "solution", prefix="solution/")
    store.fetch_to(store.tree_file(package, "instruction.md"), dest / "instruction.md")
    shutil.copyfile(BLENDER_SCRIPTS / "apply_script.py", dest / "solution" / "apply_script.py")
    _write_exec(dest / "tests" / "test.sh", TEST_SH)
    _write_exec(dest / "solution" / "solve.sh", SOLVE_SH)
    if evidence is not None:
        for name in EVIDENCE_PREFETCH_SCRIPTS:
            shutil.copyfile(VERIFIERS / name, dest / "tests" / name)
        (dest / EVIDENCE_JOB).write_text(
            json.dumps({**evidence, "out": EVIDENCE_OUT}, indent=2, sort_keys=True) + "\n")
    (dest / "environment" / "Dockerfile").write_text(dockerfile())
    (dest / "task.toml").write_text(task_toml(meta), encoding="utf-8")
    return dest


# What a published VL-weighted task's verifier needs to grade under its profile offline
# (verifiers/packaged_grade.py): the renderer and the scoring code, as the package `verifiers/`.
PACKAGED_GRADING_SCRIPTS = ("render_evidence.py", "packaged_grade.py")
PACKAGED_GRADING_MODULES = ("vl.py", "colour_math.py", "profiles.py", "scoring.py")
# The project's own modules a trial's verifier imports from tests/: compiled on the worker for
# a trial's task folder (verifiers/verifier_bytecode.py; never in a publication), never the
# task's own task_probes.py. Not what a pipeline trial never imports: the scripts test.sh runs
# as __main__ (probe_and_render.py, packaged_grade.py: Python compiles a script from its source
# whatever lies beside it) and RewardKit's rewardkit_rules.py.
VERIFIER_MODULES = (*PROBE_FILES, "render_evidence.py", *(f"verifiers/{name}" for name in PACKAGED_GRADING_MODULES))


def write_packaged_grading(store: ContentStore, grading: GradingSpec, tests: Path) -> None:
    """Add to a publication's tests/ what `harbor run` needs to grade it as the pipeline did:
    grading.json, the reference deliverable's renders and the offline image-metric judge."""
    if not grading.uses_vl:
        return  # rule-only: test.sh's rule reward is the whole grade
    if grading.reference_evidence is None:
        raise ValueError(f"{grading.task_id}: VL is weighted but the grading has no reference renders")
    assert grading.judge_config is not None  # set whenever the profile weights VL (assemble_package)
    doc = {
        "task_id": grading.task_id, "profile": grading.profile, "params": grading.params,
        "verification": grading.verification, "verifier_version": grading.verifier_version,
        "judge": "image-metric",
        "evidence_spec": resolve_spec(cast(dict, store.get_json(grading.judge_config)).get("evidence")),
    }
    (tests / "grading.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    store.materialize_tree(grading.reference_evidence, tests / "reference_evidence")
    for name in PACKAGED_GRADING_SCRIPTS:
        shutil.copyfile(VERIFIERS / name, tests / name)
    (tests / "verifiers").mkdir(exist_ok=True)
    for name in PACKAGED_GRADING_MODULES:
        shutil.copyfile(VERIFIERS / name, tests / "verifiers" / name)


def _write_exec(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
