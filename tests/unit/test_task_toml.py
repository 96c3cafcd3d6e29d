"""task.toml is written by Harbor's own model (`TaskConfig.model_dump_toml`) and read back by it:
values that need TOML escaping survive the round trip, `[task]` names the package for a Harbor
registry, and a value Harbor's writer would mangle is refused instead of written."""

from __future__ import annotations

import dataclasses

import pytest
from harbor.models.task.config import NetworkMode, TaskConfig, VerifierEnvironmentMode

from activities.harbor_task import HARBOR_ORG, task_config, task_toml
from contracts.payloads.authoring import TaskIdentity

# Quotes, backslashes (a Windows path), a newline, a tab and Chinese text: each broke the old
# `str.format` template or needs an escape in a TOML basic string.
AWKWARD = TaskIdentity(
    task_id="table-model",
    task_version='v1-"quoted"',
    verifier_version="vv2-00000000000000aa",
    pipeline_digest="C:\\pipelines\\new\\table",
    workflow_primary="MOD-01\nsecond line\twith a tab",
    profession_primary="三维美术师 (3D artist) — «建模»",
    blender_version="5.2.0",
    lineage_root="table-model",
    lineage_family='arkevo-examples/"workshop" \\ 工作室',
    lineage_split="test",
    family_instance={"family_root": "table-model", "family_instance": "7",
                     "family_parameters": '{"finish":"\"oak\" \\ 橡木","width":1.15}'},
)


def test_task_toml_round_trips_through_harbors_model():
    text = task_toml(AWKWARD)
    back = TaskConfig.model_validate_toml(text)
    assert back == task_config(AWKWARD)
    # every identity field by its name, a family instance's entries flat beside them
    assert back.metadata == {**{field.name: getattr(AWKWARD, field.name) for field in dataclasses.fields(AWKWARD)
                                if field.name != "family_instance"}, **AWKWARD.family_instance}
    assert back.task.name == f"{HARBOR_ORG}/table-model"
    assert back.task.version == 'v1-"quoted"'
    assert back.artifacts == ["/workspace/outputs"]
    assert back.verifier.timeout_sec == 600.0
    assert back.verifier.environment_mode == VerifierEnvironmentMode.SEPARATE
    assert back.agent.timeout_sec == 3600.0 and back.agent.user == "agent"
    assert back.environment.build_timeout_sec == 900.0
    assert back.environment.workdir == "/workspace"
    assert back.environment.network_mode == NetworkMode.NO_NETWORK


def test_the_task_table_names_the_package_for_a_registry():
    """Harbor's publisher takes the destination from `[task] name` (org/name)."""
    package = TaskConfig.model_validate_toml(task_toml(AWKWARD)).task
    assert (package.org, package.short_name) == (HARBOR_ORG, AWKWARD.task_id)


@pytest.mark.parametrize("value", ["ctrl\x01char", "C:\\xfiles"])
def test_a_value_harbors_writer_would_mangle_is_refused(value):
    """Harbor dumps with the `toml` package, which drops the backslash of a control character's
    escape and leaves a backslash before `x` unescaped: neither reads back, so neither is written."""
    with pytest.raises(ValueError, match="table-model: Harbor"):
        task_toml(dataclasses.replace(AWKWARD, profession_primary=value))
