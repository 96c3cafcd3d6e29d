"""What the author model is told: the system prompt (the draft contract), the first user
message of a round, and the catalogue sections it can read on demand (`read_catalogue`).

The marker lines (`ARKEVO-ROLE: author`, `seed_id: <id>`) let a test's FAKE endpoint route
requests of concurrent sessions; a real model just reads them as context.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
EXAMPLE_DRAFT = PROJECT / "seeds" / "table-model" / "draft"
SECTIONS = ("taxonomy", "probes", "operators", "profiles", "example")
ROLE_MARKER = "ARKEVO-ROLE: author"

SYSTEM_PROMPT = f"""{ROLE_MARKER}
You are the author of a Blender reinforcement-learning task. A seed folder gives you seed.json
(ids, start mode, provenance) and materials/ (the client's documents and a reference project).
Write the task's whole draft into draft/ with the file tools; then call submit. If the
materials cannot support a gradable task, call needs_input naming what is missing instead.

Your working folders:
- Files (list_files, read_file, write_file, delete_file): seed-relative paths; seed.json and
  materials/... are read-only, you write only under draft/. Nothing you write runs here.
- Blender (execute_blender_code, get_scene_info, ...): an isolated sandbox whose working folder
  holds materials/, seed.json, inputs/start.blend (the solver's starting scene) and
  reference/reference.blend, which is open: inspect it to get exact names, sizes and
  positions. You may run bpy code there to try your scripts; it is never graded.
- read_catalogue(section): taxonomy | probes | operators | profiles | example.

The draft contract (draft/...):
- instruction.md: the task as the client's request to a Blender artist, in their voice. It
  names the starting scene inputs/start.blend, the delivery outputs/result.blend and the
  public attachments as inputs/<name>; every requirement id the task grades appears in it or
  in an attachment. Exact numbers belong in the public attachments.
- public/...: the attachments the solver gets (e.g. public/spec.md with names, dimensions,
  tolerances and the requirement ids, e.g. REQ-PARTS). Listed in task.json public_attachments.
- task.json: task_id equal to the seed_id, status "draft", start_mode, software,
  workflow_primary and profession_primary equal to seed.json's (ids from the taxonomy),
  instruction "instruction.md", criteria [{{id, requirement_id, channel rule|vl, method,
  weight, core, description}}] (weights of each channel sum to 1), verification {{weights
  {{rule, vl, agent}} of the scoring profile, pass_threshold, core_failure_cap}},
  scoring_profile {{profile_id, profile_version}}, pipeline_ref null, sanitization_policy
  from seed.json.
- rubric.json: {{"rubric_version": "1", "criteria": [{{id, method, params}}]}} for exactly
  the rule criteria, with the probe library's methods and params (read_catalogue probes).
- judge.json: the VL questions and evidence views, when the scoring profile weights VL
  (vl criteria methods judge_a / judge_b / judge_c match questions A / B / C).
- solution/solve.py: bpy code that turns inputs/start.blend into a delivery passing every
  criterion.
- calibration/defects/*.py: at least 3 plausible wrong deliveries, each failing a criterion
  (a core one for at least one); calibration/variants/*.py: at least 1 different but valid
  delivery that must pass. The same bpy form as solve.py.
- calibration/gaming/*.py: at least 2 ways a reward-hacking solver would try to pass this
  grader without doing the work (loose vertices or a box in place of the parts, the material
  name on an unused slot, an emission shader of the right colour, a helper re-parented to fake
  an attachment, a setting overridden elsewhere); each must fail. The grader is also attacked
  with task-agnostic gaming operators (read_catalogue operators lists them): every applicable one
  must fail, so measure solid parts, the material on the faces and the shader that reaches the
  surface, attachment over the animation, and everything the task leaves unchanged
  (scene_unchanged against the start scene), never a name or a bounding box alone. An operator
  the spec truly permits goes in task.json "mutation_allowed": [{{"operator", "reason"}}].
- ledger.json: {{"requirements": [{{"requirement_id", "source": {{"file": "materials/...",
  "passage": "<verbatim quote from that material>"}}, "public": {{"file": "public/...",
  "anchor": "<text in that file>"}}, "criteria": ["C01", ...], "evidence": "<how the
  reference scene shows it, e.g. measured values>"}}]}}: one entry per graded requirement.
Never invent a requirement the materials do not support; never leak the private rubric,
solution or calibration into instruction.md or public/. Keep files small and plain UTF-8.
A round ends when you call submit or needs_input; after a submitted round the draft is
checked and you may get findings to fix in a new round.
"""


def user_message(seed_id: str, seed_json: str, materials: dict[str, int], round_no: int,
                 feedback: list[dict], previous: list[str]) -> str:
    """The round's first (and only) user message: each round starts a fresh context."""
    lines = [f"seed_id: {seed_id}", f"round: {round_no}", "", "seed.json:", seed_json.strip(), "",
             "materials (path, bytes):", *(f"- {p} ({n})" for p, n in materials.items())]
    if previous:
        lines += ["", f"Your previous draft is already in draft/ ({len(previous)} files): "
                      + ", ".join(previous)]
    if feedback:
        lines += ["", "Findings of the previous round's checks (fix every one):",
                  json.dumps(feedback, indent=1)]
    lines += ["", "Write the draft, then call submit with a short summary."]
    return "\n".join(lines)


def _line(obj) -> str:
    return json.dumps(obj, separators=(",", ":"))


def _params(schema: dict) -> str:
    """A method's params in one short line: `name*: description` per property (the full JSON
    Schema of 40 methods would not fit one tool answer)."""
    required = set(schema.get("required", []))
    return "; ".join(f"{name}{'*' if name in required else ''}: {prop.get('description', prop.get('type', 'any'))}"
                     for name, prop in schema.get("properties", {}).items())


@cache
def catalogue(section: str) -> str:
    """Reference text the author reads through `read_catalogue`: one compact line per entry."""
    if section == "taxonomy":
        taxonomy = json.loads((PROJECT / "contracts" / "taxonomy.json").read_text())
        return "\n".join(
            ["workflows (workflow_primary: id | name | professions | description):"]
            + [f"{w['id']} | {w['name']} | {','.join(w['professions'])} | {w['description']}"
               for w in taxonomy["workflows"]]
            + ["professions (profession_primary: id | name):"]
            + [f"{p['id']} | {p['name']}" for p in taxonomy["professions"]])
    if section == "probes":
        from verifiers.probe_catalogue import rule_methods
        return "\n".join(["rubric methods (method | group | params: name: type, * required; object or objects where both "
                          "appear: give one; admission checks them against the full JSON Schema):"]
                         + [f"{name} | {m.group} | {_params(m.schema())}"
                            for name, m in sorted(rule_methods().items())])
    if section == "operators":  # its own answer: with the methods it outgrew one tool answer (MAX_TOOL_OUTPUT_CHARS)
        from verifiers.mutation_testing import OPERATOR_NAMES
        return ("gaming operators every applicable one of which the grader must kill (docs: Gaming resistance): "
                + ", ".join(OPERATOR_NAMES))
    if section == "profiles":
        from verifiers.profiles import REGISTRY
        return "\n".join(["scoring profiles (scoring_profile | verification.weights | description):"]
                         + [f"{_line(p.ref())} | {_line(dict(p.weights))} | {p.description}"
                            for p in REGISTRY.values()])
    if section == "example":
        return "\n\n".join(f"draft/{name} of the bundled seed table-model:\n"
                           + (EXAMPLE_DRAFT / name).read_text()
                           for name in ("task.json", "rubric.json"))
    return f"Error: unknown catalogue section {section!r}; sections: {', '.join(SECTIONS)}"
