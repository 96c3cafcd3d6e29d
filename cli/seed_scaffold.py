"""`arkevo seed new`: a seed folder with every required file, each holding what goes there.

Every part the author must still write carries the marker `ARKEVO-TODO:` followed by what to
write. `arkevo seed check` (and admission) name each marker left -- file, line, what to write --
before any other check, so a fresh scaffold fails only on those; a seed with a marker left is
never admitted. `--like <bundled seed>` takes its start mode, workflow and profession;
`--kind <workflow id>` takes the workflow from contracts/taxonomy.json and its first profession.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from rich.markup import escape

from cli.common import EXIT_BAD_INPUT, EXIT_OK, console, err
from contracts.models import Taxonomy

TODO = "ARKEVO-TODO:"
_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{1,62}[a-z0-9]$")


def _json(doc: dict) -> str:
    return json.dumps(doc, indent=2) + "\n"


def files_for(seed_id: str, start_mode: str, workflow: str, profession: str) -> dict[str, str]:
    """{relative path: text} of a new seed."""
    seed = {
        "seed_id": seed_id,
        "title": f"{TODO} one line naming the work, e.g. 'Four-legged table modelled to dimensions'",
        "software": {"name": "blender", "version": "5.2"},
        "start_mode": start_mode,
        "workflow_primary": workflow,
        "profession_primary": profession,
        "provenance": {"source": f"{TODO} where the materials come from (studio/project)",
                       "license": f"{TODO} the materials' licence, e.g. CC0-1.0",
                       "collected_by": f"{TODO} who collected them"},
        "materials": [
            {"path": "materials/build_reference.py", "role": "reference_project", "public": False},
            {"path": "materials/brief.md", "role": "requirement_doc", "public": True},
        ],
        "sanitization_policy": {"policy_id": "rl-task-basic-sanitization", "policy_version": "0.1.1"},
    }
    task = {
        "task_id": seed_id,
        "title": f"{TODO} the task's title, as a reviewer reads it",
        "status": "draft",
        "start_mode": start_mode,
        "software": {"name": "blender", "version": "5.2"},
        "workflow_primary": workflow,
        "profession_primary": profession,
        "instruction": "instruction.md",
        "public_attachments": ["public/spec.md"],
        "criteria": [{"id": "C01", "requirement_id": "REQ-01", "channel": "rule", "method": "objects_exist",
                      "weight": 1.0, "core": True,
                      "description": f"{TODO} what C01 checks, in one line; add a criterion per requirement "
                                     "(weights of a channel sum to 1; methods: docs/scoring.md)"}],
        "verification": {"weights": {"rule": 1.0, "vl": 0.0, "agent": 0}, "pass_threshold": 0.7,
                         "core_failure_cap": 0.4},
        "scoring_profile": {"profile_id": "rule-only", "profile_version": "1"},
        "sanitization_policy": {"policy_id": "rl-task-basic-sanitization", "policy_version": "0.1.1"},
    }
    rubric = {"rubric_version": "1", "criteria": [
        {"id": "C01", "method": "objects_exist",
         "params": {"objects": [f"{TODO} the names of the parts the task asks for"]}}]}
    script = ("import bpy\n\n# {todo} {what}\n# It runs with bpy on {on}; "
              "docs/seed-authoring.md, \"Calibration scripts\".\n")
    start = "the start scene (inputs/start.blend)" if start_mode != "from_scratch" else "an empty start scene"
    return {
        "seed.json": _json(seed),
        "materials/brief.md": f"# Brief\n\n{TODO} the client's brief as received: what to make, sizes, names, "
                              "materials, what must stay as it is. The requirements come from here.\n",
        "materials/build_reference.py": script.format(
            todo=TODO, what="build the reference scene: the finished work the solution reproduces "
                            "(continue/refine/repair: its start is this scene)", on="an empty scene"),
        "draft/task.json": _json(task),
        "draft/rubric.json": _json(rubric),
        "draft/instruction.md": f"{TODO} the task as the solver reads it. Name each requirement id "
                                "(REQ-01 ...) where it is stated, here or in the spec.\n\n"
                                "The scene to work on is `inputs/start.blend`; the spec is `inputs/spec.md`.\n"
                                "Save the finished scene as `outputs/result.blend`.\n",
        "draft/public/spec.md": f"# Spec\n\n**REQ-01** {TODO} the first requirement, measurable "
                                "(numbers, names, tolerances).\n",
        "draft/solution/solve.py": script.format(todo=TODO, what="the reference solution: make what the "
                                                 "instruction asks, as a professional would", on=start),
        "draft/calibration/defects/one_requirement_broken.py": script.format(
            todo=TODO, what="a defect (must fail): right in everything but one requirement", on=start),
        "draft/calibration/variants/another_valid_way.py": script.format(
            todo=TODO, what="a variant (must pass): the task solved another valid way", on=start),
        "draft/calibration/gaming/proxy_trick_1.py": script.format(
            todo=TODO, what="a gaming sample (must fail): what a reward-hacking solver would try", on=start),
        "draft/calibration/gaming/proxy_trick_2.py": script.format(
            todo=TODO, what="a second gaming sample (must fail), another trick", on=start),
    }


def new_seed(folder: Path, like: str | None, kind: str | None, seeds_root: Path, taxonomy: Taxonomy) -> int:
    seed_id = folder.name
    if not _SLUG.match(seed_id):
        err.print(f"[red]error:[/] {escape(seed_id)}: a seed id is lower-case letters, digits and hyphens "
                  "(the folder's name is the seed id)")
        return EXIT_BAD_INPUT
    if folder.exists() and any(folder.iterdir()):
        err.print(f"[red]error:[/] {escape(str(folder))}: not empty; nothing written")
        return EXIT_BAD_INPUT
    workflows = {w.id: w for w in taxonomy.workflows}
    if like is not None:
        source = seeds_root / like / "seed.json"
        if not source.is_file():
            known = ", ".join(sorted(p.parent.name for p in seeds_root.glob("*/seed.json")))
            err.print(f"[red]error:[/] --like {escape(like)}: no such bundled seed (one of: {known})")
            return EXIT_BAD_INPUT
        manifest = json.loads(source.read_text(encoding="utf-8"))
        start_mode, workflow = manifest["start_mode"], manifest["workflow_primary"]
        profession = manifest["profession_primary"]
    else:
        if kind not in workflows:
            err.print(f"[red]error:[/] --kind {escape(str(kind))}: not a workflow id of contracts/taxonomy.json "
                      f"(one of: {', '.join(sorted(workflows))})")
            return EXIT_BAD_INPUT
        start_mode, workflow = "from_scratch", str(kind)
        profession = workflows[workflow].professions[0]
    for rel, text in files_for(seed_id, start_mode, workflow, profession).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    console.print(f"new seed {escape(seed_id)} in {escape(str(folder))} ({workflow}, {profession}, {start_mode}). "
                  f"Each part to write holds {TODO!r}; `arkevo seed check {escape(str(folder))}` names them. "
                  "Then: docs/seed-authoring.md")
    return EXIT_OK
