"""What the worker measures for the final reviewer (drafting/final_review.py), on the bundled
table-model seed, and how the reviewer's reply is read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from drafting.final_review import ROLE_MARKER, parse_verdict, review_facts, review_messages

SEED = Path(__file__).resolve().parents[2] / "seeds" / "table-model"
REPORT = {"margin": 0.45, "required_margin": 0.2, "min_good": 0.93, "max_bad": 0.48, "passed": True,
          "samples": [{"sample": "reference", "kind": "reference", "reward": 0.97, "success": True,
                       "expected": "succeed", "met": True}]}


@pytest.fixture
def seed(tmp_path) -> Path:
    return Path(shutil.copytree(SEED, tmp_path / "table-model"))


def test_the_bundled_seed_is_covered_and_leaks_nothing(seed):
    facts = review_facts(seed, REPORT)
    coverage = facts["coverage"]
    assert coverage["complete"] and coverage["uncovered"] == []
    assert set(coverage["requirements"]) == {c["requirement_id"] for c in
                                              json.loads((seed / "draft/task.json").read_text())["criteria"]}
    assert facts["solution_lines_in_public"] == []
    assert facts["leaks"]["numbers"] == [] and facts["leaks"]["identifiers"] == []
    assert "draft/solution/solve.py" in facts["leaks"]["private_files"]
    assert "materials/build_reference.py" in facts["leaks"]["private_files"]
    assert facts["margins"] == {"margin": 0.45, "required_margin": 0.2, "min_good": 0.93,
                                "max_bad": 0.48, "passed": True, "meets_required": True}


def test_a_private_number_in_the_instruction_is_reported(seed):
    instruction = seed / "draft/instruction.md"
    instruction.write_text(instruction.read_text() + "\nThe legs are 0.06 m square, set 0.03 m in.\n")
    assert review_facts(seed, REPORT)["leaks"]["numbers"] == ["0.03", "0.06"]


def test_solution_code_in_public_text_is_reported(seed):
    line = "dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2"
    spec = seed / "draft/public/spec.md"
    spec.write_text(spec.read_text() + f"\n    {line}\n")
    assert review_facts(seed, REPORT)["solution_lines_in_public"] == [line]


def test_an_uncovered_requirement_is_reported(seed):
    spec = seed / "draft/public/spec.md"
    spec.write_text(spec.read_text() + "\n- **REQ-APRON** - an apron joins the legs.\n")
    coverage = review_facts(seed, REPORT)["coverage"]
    assert coverage["uncovered"] == ["REQ-APRON"] and not coverage["complete"]


def test_the_review_is_a_fresh_context(seed):
    messages = review_messages(seed, REPORT, review_facts(seed, REPORT))
    assert [m["role"] for m in messages] == ["system", "user"]
    assert ROLE_MARKER in messages[0]["content"].splitlines()
    user = messages[1]["content"]
    assert user.splitlines()[0] == "seed_id: table-model"
    for part in ("## draft/instruction.md", "## draft/solution/solve.py", "## materials/brief.md",
                 "## calibration summary", "## measured facts", '"meets_required": true'):
        assert part in user


@pytest.mark.parametrize("reply, expected", [
    ('{"verdict": "accept", "reasons": [], "checks": {"coverage": {"ok": true, "note": ""}}}',
     ("accept", [], {"coverage": {"ok": True, "note": ""}})),
    ('Here it is:\n```json\n{"verdict": "reject", "reasons": ["leaks the leg size"]}\n```',
     ("reject", ["leaks the leg size"], {})),
])
def test_parse_verdict_reads_a_verdict(reply, expected):
    assert parse_verdict(reply) == expected


@pytest.mark.parametrize("reply, message", [
    ("looks good to me", "not JSON"),
    ('{"verdict": "approve", "reasons": []}', "verdict must be one of accept, revise, reject"),
    ('{"verdict": "revise", "reasons": []}', "a revise verdict needs at least one reason"),
    ('{"verdict": "reject"}', "a reject verdict needs at least one reason"),
    ('{"verdict": "accept", "reasons": "fine"}', "reasons must be a list of strings"),
])
def test_parse_verdict_refuses_an_unreadable_reply(reply, message):
    with pytest.raises(ValueError, match=message):
        parse_verdict(reply)
