"""contracts/taxonomy.json: the catalogue every task points into (stage 01)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from jsonschema import Draft202012Validator

from contracts.models import Taxonomy
from contracts.seed_check import TAXONOMY_PATH, check_taxonomy, load_taxonomy
from contracts.validation import ContractError, load_schema

PROFESSIONS = {"PRF-3DART", "PRF-ANIM", "PRF-LOOKDEV", "PRF-ENV", "PRF-TD"}
GROUPS = {"MOD": 16, "ANI": 14, "TEX": 12, "MAT": 12, "SCN": 14, "PIP": 12}


@pytest.fixture(scope="module")
def raw() -> dict:
    return json.loads(TAXONOMY_PATH.read_text(encoding="utf-8"))


def test_taxonomy_is_schema_valid(raw: dict) -> None:
    assert not list(Draft202012Validator(load_schema("taxonomy")).iter_errors(raw))


def test_counts(raw: dict) -> None:
    assert raw["taxonomy_version"] == "1.0.0"
    assert raw["software"] == "blender"
    assert len(raw["professions"]) == 5
    assert len(raw["groups"]) == 6
    assert len(raw["workflows"]) == 80
    assert {p["id"] for p in raw["professions"]} == PROFESSIONS
    assert {g["id"] for g in raw["groups"]} == set(GROUPS)
    assert Counter(w["group"] for w in raw["workflows"]) == GROUPS


def test_ids_are_unique_and_numbered_per_group(raw: dict) -> None:
    ids = [w["id"] for w in raw["workflows"]]
    assert len(set(ids)) == len(ids)
    for group, count in GROUPS.items():
        numbered = [w["id"] for w in raw["workflows"] if w["group"] == group]
        assert numbered == [f"{group}-{n:02d}" for n in range(1, count + 1)]
    names = [w["name"] for w in raw["workflows"]]
    assert len(set(names)) == len(names)


def test_every_profession_has_workflows(raw: dict) -> None:
    used = {p for w in raw["workflows"] for p in w["professions"]}
    assert used == PROFESSIONS


def test_workflows_seeds_rely_on(raw: dict) -> None:
    taxonomy = load_taxonomy()
    mod01 = taxonomy.workflow("MOD-01")
    assert (mod01.group, mod01.name) == ("MOD", "Dimensioned prop modeling")
    assert "PRF-3DART" in mod01.professions
    ani07 = taxonomy.workflow("ANI-07")
    assert (ani07.group, ani07.name) == ("ANI", "Object interaction / pick-and-place animation")
    assert "PRF-ANIM" in ani07.professions
    with pytest.raises(KeyError):
        taxonomy.workflow("ANI-99")


def test_load_taxonomy_is_cached_and_intact() -> None:
    assert load_taxonomy() is load_taxonomy()
    check_taxonomy(load_taxonomy())


def _duplicate_workflow(t: dict) -> str:
    t["workflows"].append(dict(t["workflows"][0]))
    return f"workflows[{len(t['workflows']) - 1}].id"


def _duplicate_profession(t: dict) -> str:
    t["professions"].append(dict(t["professions"][0]))
    return f"professions[{len(t['professions']) - 1}].id"


def _undefined_group(t: dict) -> str:
    gone = t["groups"].pop()["id"]
    return f"workflows[{next(i for i, w in enumerate(t['workflows']) if w['group'] == gone)}].group"


def _wrong_prefix(t: dict) -> str:
    t["workflows"][3]["group"] = "ANI" if t["workflows"][3]["group"] != "ANI" else "MOD"
    return "workflows[3].id"


def _undefined_profession(t: dict) -> str:
    gone = t["professions"].pop()["id"]
    index, workflow = next((i, w) for i, w in enumerate(t["workflows"]) if gone in w["professions"])
    return f"workflows[{index}].professions[{workflow['professions'].index(gone)}]"


@pytest.mark.parametrize(
    "break_it",
    [_duplicate_workflow, _duplicate_profession, _undefined_group, _wrong_prefix,
     _undefined_profession],
)
def test_check_taxonomy_rejects_broken_references(raw: dict, break_it) -> None:
    broken = json.loads(json.dumps(raw))
    field = break_it(broken)
    with pytest.raises(ContractError) as info:
        check_taxonomy(Taxonomy.model_validate(broken), "taxonomy.json")
    assert (info.value.file, info.value.field) == ("taxonomy.json", field)
