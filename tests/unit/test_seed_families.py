"""Seed families (seed_families/, docs/seed-authoring.md "Seed families"): deterministic,
lineage-safe expansion, the root as the family at its defaults, the checks' named errors, and
DatasetProduction's plan carrying each instance's files through the store."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from activities.admission import judge_seed
from activities.datasets import DatasetActivities
from activities.harbor_task import task_config
from cli.arkevo import main
from contracts import lineage
from contracts.models import SeedManifest
from contracts.payloads.authoring import TaskIdentity
from contracts.payloads.datasets import OpenRevisionInput
from contracts.validation import ContractError, validate_document
from dataset_revisions.selection import Candidate, select
from seed_families.expansion import FamilyError, check_family, instances, write_instance
from seed_families.sampling import FamilyTooSmall, grid, sample
from storage.content import FilesystemStore
from storage.objects import FilesystemObjects
from workers.settings import PROJECT_ROOT

FAMILIES = ("table-model", "mug-material", "robot-carry")  # geometry, material, animation


def load(root: Path) -> tuple[dict, SeedManifest]:
    doc = json.loads((root / "seed.json").read_text())
    return doc, validate_document("seed", doc, f"{root}/seed.json")  # type: ignore[return-value]


def copy_family(name: str, tmp_path: Path) -> Path:
    dest = tmp_path / name
    shutil.copytree(PROJECT_ROOT / "seeds" / name, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


@pytest.mark.parametrize("name", FAMILIES)
def test_each_bundled_family_is_its_root_at_the_defaults_and_every_instance_admits(name, tmp_path):
    root = PROJECT_ROOT / "seeds" / name
    doc, manifest = load(root)
    assert manifest.family is not None and manifest.family.count >= 3
    assert check_family(root, doc, manifest.family) == []
    made = instances(root, doc, manifest.family, 3)
    for inst in made:
        write_instance(inst, tmp_path / inst.seed_id)
        verdict = judge_seed(tmp_path / inst.seed_id, inst.seed_id, None)
        assert verdict.findings == [], verdict.findings
        seed = verdict.checked.manifest
        assert seed.seed_id == inst.seed_id == f"{name}-{inst.index:03d}" and seed.family is None
        assert verdict.checked.task.task_id == inst.seed_id  # a task of its own
        # the root's lineage: its family (what splits keep apart) and root seed
        assert lineage.resolve(seed.seed_id, seed.provenance.model_dump()) == {
            "root_seed": name, "family": manifest.provenance.source, "derived_from": []}
        assert seed.provenance.family_instance.parameters == inst.parameters
        assert not (tmp_path / inst.seed_id / "family").exists()
    # different specifications: no two instances (nor the root) share their values
    values = [tuple(i.parameters.values()) for i in instances(root, doc, manifest.family)]
    defaults = tuple(p.default for p in manifest.family.parameters.values())
    assert len(set(values)) == len(values) == manifest.family.count and defaults not in values


def test_two_expansions_are_byte_identical_and_more_instances_leave_the_first_as_they_were(tmp_path):
    root = PROJECT_ROOT / "seeds" / "table-model"
    doc, manifest = load(root)
    first = instances(root, doc, manifest.family, 5)
    again = instances(root, doc, manifest.family, 5)
    assert [i.files for i in first] == [i.files for i in again]
    for inst in first:
        write_instance(inst, tmp_path / "a" / inst.seed_id)
        write_instance(inst, tmp_path / "b" / inst.seed_id)
    tree = lambda d: {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}  # noqa: E731
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
    more = instances(root, doc, manifest.family, 8)
    assert [i.files for i in more[:5]] == [i.files for i in first]


def test_a_changed_template_changes_that_file_in_every_instance_and_nothing_else(tmp_path):
    root = copy_family("table-model", tmp_path)
    doc, manifest = load(root)
    before = instances(root, doc, manifest.family, 4)
    for rel in ("family/draft/public/spec.md", "draft/public/spec.md"):  # root and template alike
        path = root / rel
        path.write_text(path.read_text().replace("Units are metres", "All units are metres"))
    assert check_family(root, doc, manifest.family) == []
    after = instances(root, doc, manifest.family, 4)
    for old, new in zip(before, after):
        changed = {rel for rel in old.files if old.files[rel] != new.files.get(rel)}
        assert changed == {"draft/public/spec.md"} and old.parameters == new.parameters


def test_a_changed_family_seed_or_parameter_changes_only_what_it_must(tmp_path):
    root = copy_family("table-model", tmp_path)
    doc, manifest = load(root)
    before = sample(manifest.family, 10)
    # another sampler seed: other instances
    reseeded = json.loads(json.dumps(doc))
    reseeded["family"]["sampler_seed"] += 1
    assert sample(validate_document("seed", reseeded, "x").family, 10) != before  # type: ignore[attr-defined]
    # a wider height range: the other parameters' values stay where they were (barring a clash)
    wider = json.loads(json.dumps(doc))
    wider["family"]["parameters"]["height"]["max"] = 0.8
    after = sample(validate_document("seed", wider, "x").family, 10)  # type: ignore[attr-defined]
    same = sum((a["width"], a["depth"]) == (b["width"], b["depth"]) for a, b in zip(before, after))
    assert same >= 8, (before, after)


def test_grid_values_are_clean_numbers_and_ints_stay_ints():
    _, manifest = load(PROJECT_ROOT / "seeds" / "table-model")
    assert grid(manifest.family.parameters["depth"]) == [0.7, 0.75, 0.8, 0.85, 0.9]
    assert grid(manifest.family.parameters["height"])[:3] == [0.72, 0.73, 0.74]
    ints = validate_document("seed", {**json.loads((PROJECT_ROOT / "seeds/table-model/seed.json").read_text()),
                                      "family": {"parameters": {"n": {"default": 5, "min": 3, "max": 11, "step": 2}},
                                                 "count": 2}}, "x")
    assert grid(ints.family.parameters["n"]) == [3, 5, 7, 9, 11]  # type: ignore[attr-defined]


def test_a_family_too_small_for_its_count_is_refused_naming_the_field():
    doc, _ = load(PROJECT_ROOT / "seeds" / "table-model")
    doc = {**doc, "family": {"parameters": {"finish": {"default": "oak", "choices": ["oak", "ash", "elm"]}},
                             "count": 3}}
    manifest = validate_document("seed", doc, "x")
    with pytest.raises(FamilyTooSmall, match=r"family.count: 3 instances asked, but the parameters make only 2"):
        sample(manifest.family)  # type: ignore[attr-defined]


@pytest.mark.parametrize("bad, where", [
    ({"default": 1.25, "min": 1.0, "max": 1.8, "step": 0.1}, "not on the grid"),
    ({"default": "walnut", "choices": ["oak", "ash"]}, "not one of the choices"),
    ({"default": 1, "choices": [1, 2], "min": 0}, "family.parameters.width"),
    ({"default": 1, "min": 0, "max": 2}, "family.parameters.width"),
    ({"default": 1, "min": 2, "max": 1, "step": 1}, "family.parameters.width"),
])
def test_a_bad_parameter_is_refused_naming_the_file_and_field(bad, where):
    doc, _ = load(PROJECT_ROOT / "seeds" / "table-model")
    doc = {**doc, "family": {"parameters": {"width": bad}, "count": 2}}
    with pytest.raises(ContractError) as e:
        validate_document("seed", doc, "seeds/x/seed.json")
    assert str(e.value).startswith("seeds/x/seed.json: family.parameters.width") and where in str(e.value)


def test_check_family_names_the_template_and_line_that_breaks_the_root(tmp_path, capsys):
    root = copy_family("table-model", tmp_path)
    doc, manifest = load(root)
    rubric = root / "family" / "draft" / "rubric.json"
    rubric.write_text(rubric.read_text().replace('"tolerance": 0.01', '"tolerance": 0.02'))
    [problem] = check_family(root, doc, manifest.family)
    assert (problem.file, problem.field) == ("family/draft/rubric.json", "line 8")
    assert "differs from draft/rubric.json at line 8" in problem.reason
    # admission judges the root as the seed it is (family/ is never admitted) ...
    assert judge_seed(root, "seeds/table-model", None).admitted
    # ... `arkevo seed check` says the family cannot make its instances, and where
    assert main(["seed", "check", str(root), "--json"]) == 1
    finding = json.loads(capsys.readouterr().out)["findings"][0]
    assert (finding["file"], finding["field"]) == ("family/draft/rubric.json", "line 8")


@pytest.mark.parametrize("template, expected", [
    ("{{ colour }}", "UndefinedError: 'colour' is undefined"),
    ("{{ ''.__class__.__mro__ }}", "SecurityError"),  # the sandbox: no Python internals
    ("{% for x in %}", "TemplateSyntaxError"),
])
def test_a_broken_or_hostile_template_is_a_named_error_not_code_run_in_the_worker(tmp_path, template, expected):
    root = copy_family("table-model", tmp_path)
    doc, manifest = load(root)
    (root / "family" / "materials" / "brief.md").write_text(template)
    [problem] = check_family(root, doc, manifest.family)
    assert problem.file == "family/materials/brief.md" and expected in problem.reason
    with pytest.raises(FamilyError, match="family/materials/brief.md"):
        instances(root, doc, manifest.family, 1)


def test_a_template_for_seed_json_or_for_no_root_file_is_refused(tmp_path):
    root = copy_family("table-model", tmp_path)
    doc, manifest = load(root)
    (root / "family" / "seed.json").write_text("{}")
    (root / "family" / "draft" / "extra.md").write_text("x")
    problems = {p.file: p.reason for p in check_family(root, doc, manifest.family)}
    assert "written by the expansion" in problems["family/seed.json"]
    assert "no draft/extra.md" in problems["family/draft/extra.md"]


def test_instances_of_one_family_never_sit_in_two_splits():
    """The selection keeps a lineage family whole: with a family bigger than any split, its
    instances go to one split (the rest unused), never across two."""
    root = PROJECT_ROOT / "seeds" / "table-model"
    doc, manifest = load(root)
    made = instances(root, doc, manifest.family, 12)
    fams = {}
    for inst in made:
        seed = validate_document("seed", json.loads(inst.files["seed.json"]), "x")
        fams[inst.seed_id] = lineage.resolve(inst.seed_id, seed.provenance.model_dump())  # type: ignore[attr-defined]
    candidates = [Candidate(i, "1", f"p-{i}", "0" * 64, "arkevo-examples/workshop", "MOD", "PRF-3DART",
                            lineage_root=f["root_seed"], lineage_family=f["family"]) for i, f in fams.items()]
    candidates += [Candidate(f"other-{n}", "1", f"p-o{n}", "0" * 64, f"source-{n}", "ANI", "PRF-ANIM")
                   for n in range(6)]
    chosen = select(candidates, {"train": 10, "validation": 4, "test": 4}, max_per_source=20, seed=3)
    holding = {split for split, tasks in chosen.items()
               for c in tasks if c.family == "arkevo-examples/workshop"}
    assert len(holding) == 1


def test_the_production_plan_carries_each_instance_in_the_store(tmp_path):
    """open_dataset_revision expands a family into `family_instances` instances, each with its
    files in the content store (the same bytes `arkevo seed expand` writes), its own seed id and
    the root's lineage family; a spec asking for none plans the root alone."""
    store = FilesystemStore(tmp_path / "store")
    datasets = DatasetActivities(FilesystemObjects(tmp_path / "var"), PROJECT_ROOT, store)
    spec = {"namespace": "fam", "revision": "r1", "seeds": ["seeds/table-model", "seeds/fence-array"],
            "splits": {"train": 2}, "max_per_source": 10, "family_instances": 3}
    plan = datasets.open_dataset_revision(OpenRevisionInput(spec, None, "2026-12-04T00:00:00Z"))
    planned = {s.seed_id: s for s in plan.seeds}
    assert set(planned) == {"table-model", "table-model-001", "table-model-002", "table-model-003", "fence-array"}
    assert planned["table-model"].seed_tree is None and planned["fence-array"].seed_tree is None
    doc, manifest = load(PROJECT_ROOT / "seeds" / "table-model")
    for inst in instances(PROJECT_ROOT / "seeds" / "table-model", doc, manifest.family, 3):
        seed = planned[inst.seed_id]
        assert seed.seed == f"seeds/table-model#{inst.index:03d}" and seed.family == "arkevo-examples/workshop"
        stored = {rel: store.get_bytes(store.tree_file(seed.seed_tree, rel))
                  for rel in store.tree_entries(seed.seed_tree)}
        assert stored == inst.files
    roots = datasets.open_dataset_revision(OpenRevisionInput(
        {**spec, "revision": "r2", "family_instances": 0}, None, "2026-12-04T00:00:00Z"))
    assert sorted(s.seed_id for s in roots.seeds) == ["fence-array", "table-model"]


def test_a_family_with_a_broken_template_refuses_the_spec_naming_the_file(tmp_path):
    root = copy_family("table-model", tmp_path)
    (root / "family" / "draft" / "instruction.md").write_text("{{ nope }}")
    datasets = DatasetActivities(FilesystemObjects(tmp_path / "var"), tmp_path, FilesystemStore(tmp_path / "store"))
    spec = {"namespace": "fam", "revision": "r1", "seeds": ["table-model"], "splits": {"train": 2},
            "max_per_source": 10, "family_instances": 2}
    from temporalio.exceptions import ApplicationError

    with pytest.raises(ApplicationError) as e:
        datasets.open_dataset_revision(OpenRevisionInput(spec, None, "2026-12-04T00:00:00Z"))
    assert e.value.type == "InvalidDatasetSpec" and e.value.non_retryable
    assert "table-model/family/draft/instruction.md" in str(e.value) and "'nope' is undefined" in str(e.value)
    assert not (tmp_path / "var" / "datasets").exists()  # nothing stored


def test_an_instance_carries_its_values_in_task_toml_metadata():
    meta = lineage.instance_metadata({"family_instance": {
        "root_seed": "table-model", "index": 7, "sampler_seed": 2026,
        "parameters": {"width": 1.15, "depth": 0.9, "height": 0.74}}})
    identity = TaskIdentity("table-model-007", "1", "vv2-x", "d" * 64, "MOD-01", "PRF-3DART",
                            lineage_root="table-model", lineage_family="arkevo-examples/workshop",
                            family_instance=meta)
    metadata = task_config(identity).metadata
    assert metadata["family_root"] == "table-model" and metadata["family_instance"] == "7"
    assert json.loads(metadata["family_parameters"]) == {"width": 1.15, "depth": 0.9, "height": 0.74}
    assert lineage.instance_metadata({"source": "x"}) == {}
