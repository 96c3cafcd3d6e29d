"""Measured similarity (drafting/similarity.py): a copy scores 1, a renamed near-copy of the
table-model task stays above the derivation threshold, a genuinely new table-like task below."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drafting.similarity import (facts_of, profile_of_candidate, profile_of_source, similarity,
                                 structure_of)
from tests.fakes.derivation_sessions import table_like_candidate

DRAFT = Path(__file__).resolve().parents[2] / "seeds" / "table-model" / "draft"
THRESHOLD = json.loads((DRAFT.parents[2] / "contracts" / "pipeline.json").read_text())[
    "derivation_similarity_threshold"]


@pytest.fixture(scope="module")
def source() -> dict:
    summary = {"instruction": (DRAFT / "instruction.md").read_text(),
               "public": {"spec.md": (DRAFT / "public" / "spec.md").read_text()},
               "task": json.loads((DRAFT / "task.json").read_text()),
               "rubric": json.loads((DRAFT / "rubric.json").read_text())}
    return profile_of_source(summary)


def candidate_profile(candidate: dict) -> dict:
    plan = {"requirements": candidate["requirements"]}
    return profile_of_candidate({"materials/brief.md": candidate["brief"],
                                 "materials/build_reference.py": candidate["build_reference"]}, plan)


def test_identical_profiles_score_one(source):
    assert similarity(source, source) == {"text": 1.0, "structure": 1.0, "facts": 1.0, "combined": 1.0}


def test_a_renamed_near_copy_is_a_near_duplicate(source):
    text = "\n\n".join([(DRAFT / "instruction.md").read_text(), (DRAFT / "public" / "spec.md").read_text()])
    renamed = text.replace("dining table", "kitchen table").replace("Dining table", "Kitchen table")
    near = table_like_candidate("kitchen-table", "Kitchen table", "kitchen table",
                                1.20, 0.80, 0.75, 0.04, 0.06, brief=renamed)
    measured = similarity(candidate_profile(near), source)
    assert measured["facts"] == 1.0 and measured["text"] > 0.95
    assert measured["combined"] >= THRESHOLD


def test_a_new_desk_is_novel(source):
    desk = table_like_candidate("writing-desk", "Writing desk", "writing desk", 1.40, 0.70, 0.74,
                                0.03, 0.05, top_name="DeskTop", leg_prefix="DeskLeg", material="Oak")
    measured = similarity(candidate_profile(desk), source)
    assert measured["structure"] > 0.5  # the same kind of checks: a derived task, not a copy
    assert measured["facts"] < 0.2
    assert measured["combined"] < THRESHOLD


def test_facts_normalise_numbers_and_read_quoted_names():
    assert facts_of('top 1.20 m, `Leg.FL`, material "Wood", REQ-PARTS, `REQ-MATERIAL`') == {
        "1.2", "Leg.FL", "Wood"}
    assert facts_of("1.2 and 1.20 and 1.2000") == {"1.2"}
    assert structure_of([("dimensions", ["object", "expected"])]) == {
        "dimensions", "dimensions.object", "dimensions.expected"}


def test_combined_is_the_documented_weighting():
    a = {"text": "a b c", "structure": ["m", "m.x"], "facts": ["1", "2"]}
    b = {"text": "x y z", "structure": ["m"], "facts": ["1", "2"]}
    assert similarity(a, b) == {"text": 0.0, "structure": 0.5, "facts": 1.0, "combined": 0.375}
