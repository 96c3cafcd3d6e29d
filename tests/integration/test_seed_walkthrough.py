"""The walk-through of docs/seed-authoring.md, run as written: its `arkevo seed` commands are read
from the page (between the `walkthrough` markers) and run in order on a real dev server with the
worker pools, real Blender in the sandbox. `new` makes the scaffold and `check` names every part
still to write (exit 1, nothing but the scaffold's markers); the "write the seed" step fills them
from fixture files (the table seed, lightened: `light_copy`); then `check` passes, `measure`
measures the reference, `calibrate` gives stage 05's verdict and `submit --wait` publishes,
its `progress` query read while it runs (a stage with its counts part done).
The page cannot drift from what the commands do."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from tests.integration.test_dataset_production import light_copy
from verifiers.mutation_testing import OPERATOR_NAMES
from tests.integration.test_task_production import arkevo
from workers.settings import PROJECT_ROOT

pytestmark = [pytest.mark.temporal, pytest.mark.blender, pytest.mark.timeout(900)]

PAGE = PROJECT_ROOT / "docs" / "seed-authoring.md"
FILL = "write the seed"  # the page's comment line for the author's own work
# Fewer trials than the defaults: what is under test is the walk-through, not evaluation.
OPTIONS = json.dumps({"pilot_policies": ["oracle"], "evaluation_policies": ["oracle"], "k": 1})


def walkthrough() -> list[list[str] | str]:
    """The page's walk-through: each `arkevo seed` command as argv, and the fill step as FILL."""
    block = re.search(r"<!-- walkthrough -->\s*```sh\n(.*?)```\s*<!-- /walkthrough -->", PAGE.read_text(), re.S)
    assert block, f"{PAGE}: no walk-through block"
    steps: list[list[str] | str] = []
    for line in block.group(1).splitlines():
        if line.startswith("# ") and FILL in line:
            steps.append(FILL)
        elif line.startswith(".venv/bin/arkevo seed "):
            steps.append(shlex.split(line.split("#")[0])[1:])
    return steps


def fill_from_fixture(seed: Path, tmp_path: Path) -> None:
    """What the author writes: the lightened table seed's materials and draft, under this id."""
    fixture = light_copy("table-model", tmp_path / "fixture")
    for part in ("materials", "draft"):
        shutil.rmtree(seed / part)
        shutil.copytree(fixture / part, seed / part)
    for name, key in (("seed.json", "seed_id"), ("draft/task.json", "task_id")):
        doc = json.loads((fixture / name).read_text())
        (seed / name).write_text(json.dumps({**doc, key: seed.name}, indent=2))


async def progress_while(client, wid: str, running) -> list[dict]:
    """Every distinct `progress` answer of `wid` until `running` ends."""
    seen: list[dict] = []
    while not running.done():
        try:
            answer = await client.get_workflow_handle(wid).query("progress")
            if not seen or answer != seen[-1]:
                seen.append(answer)
        except Exception:  # noqa: BLE001 - not started yet
            pass
        await asyncio.wait([running], timeout=0.2)
    return seen


async def test_the_walkthrough_of_the_authoring_guide_ends_in_a_published_task(
        temporal_env, workers, settings, tmp_path):
    steps = walkthrough()
    commands = [s[1] if isinstance(s, list) else s for s in steps]
    assert commands == ["new", "check", FILL, "check", "measure", "calibrate", "submit"], commands
    seed = tmp_path / "seeds" / "my-seed"
    expected_exit = iter([0, 1, 0, 0, 0, 0])
    outputs = {}
    for step in steps:
        if step == FILL:
            fill_from_fixture(seed, tmp_path)
            continue
        argv = [str(seed) if a == "seeds/my-seed" else a for a in step]
        if argv[1] == "submit":
            argv += ["--address", settings.address, "--options", OPTIONS, "--workflow-id", "it-walkthrough"]
        if argv[1] == "calibrate":
            argv += ["--out", str(tmp_path / "calibration")]
        if argv[1] == "submit":  # the production's progress read while it runs
            running = asyncio.ensure_future(arkevo(settings, *argv))
            seen = await progress_while(temporal_env.client, "it-walkthrough", running)
        done = await running if argv[1] == "submit" else await arkevo(settings, *argv)
        assert done.returncode == next(expected_exit), (argv, done.stdout, done.stderr)
        outputs.setdefault(argv[1], []).append(done.stdout)

    scaffold_check = outputs["check"][0]
    findings = [line for line in scaffold_check.splitlines() if re.match(r"\s*\d+\. ", line)]
    assert findings and all(" InvalidSeed " in f for f in findings), scaffold_check
    assert "still to write" in scaffold_check and "draft/solution/solve.py" in scaffold_check
    assert "admission would pass" in outputs["check"][1]
    assert "the reference solution, measured by the rubric" in outputs["measure"][0]
    calibrated = outputs["calibrate"][0]
    assert "as stage 05 judges it (margin 0.2, reference at least 0.9)" in calibrated
    assert "my-seed under rule-only@1: margin" in calibrated and "(passed)" in calibrated
    assert "mutation score" in calibrated and "gaming samples refused 2/2" in calibrated
    assert (tmp_path / "calibration" / "private" / "validation" / "report.json").is_file()
    assert "published my-seed v1-" in outputs["submit"][0]
    # read mid-stage: a stage running with its own counts, not all of them done yet
    mid = [p for p in seen if p["stage"] in p.get("detail", {}) and p["stages"][p["stage"]] == "running"
           and any(v.split("/")[0] != v.split("/")[1] for v in p["detail"][p["stage"]].values())]
    assert mid, [(p["stage"], p.get("detail")) for p in seen]
    # mutation testing is one activity: it signals its own count, every operator tried
    operators = f"{len(OPERATOR_NAMES)}/{len(OPERATOR_NAMES)}"
    assert seen[-1]["detail"]["05-review"]["operators tried"] == operators, seen[-1]["detail"]
