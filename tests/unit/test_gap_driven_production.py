"""Gap-driven production on the real store and the bundled seeds (issue 25, point 3): the
revision opens with its seeds in gap-first order (source families round-robin), and
`check_freeze_ready` answers what `freeze-check` would, gaps named, on a real revision."""

from __future__ import annotations

import json
from pathlib import Path

from activities.datasets import DatasetActivities
from contracts.payloads.common import DatasetRef
from contracts.payloads.datasets import OpenRevisionInput
from dataset_revisions.freeze import freeze_check
from storage.objects import FilesystemObjects
from tests.unit.test_dataset_revisions import KEYS, NOW, ROOT, TASKS, open_demo_revision

BUNDLED = {"namespace": "gaps", "revision": "r1", "seeds": {"folder": "seeds"},
           "splits": {"train": 4, "validation": 2, "test": 2}, "max_per_source": 1, "selection_seed": 2026}


def family(seed_dir: str) -> str:
    return json.loads((ROOT / seed_dir / "seed.json").read_text())["provenance"]["source"]


def test_the_bundled_seeds_open_in_round_robin_order_of_their_families(tmp_path):
    plan = DatasetActivities(FilesystemObjects(tmp_path / "var"), ROOT).open_dataset_revision(
        OpenRevisionInput(BUNDLED, None, NOW))
    families = [s.family for s in plan.seeds]
    assert families == [family(s.seed) for s in plan.seeds]  # the seed's own provenance source
    distinct = len(set(families))
    assert distinct == 4  # robot-cell, product-studio, garden, workshop: two seeds each
    # first one seed of each family, then (max_per_source 1) every family's surplus
    assert len(set(families[:distinct])) == distinct
    assert sorted(s.seed_id for s in plan.seeds) == sorted(p.name for p in (ROOT / "seeds").iterdir()
                                                             if (p / "seed.json").is_file())
    again = DatasetActivities(FilesystemObjects(tmp_path / "var"), ROOT).open_dataset_revision(
        OpenRevisionInput(BUNDLED, None, NOW))
    assert [s.seed_id for s in again.seeds] == [s.seed_id for s in plan.seeds]  # deterministic
    assert plan.stop_when_ready is False  # absent in the spec


def test_readiness_is_freeze_check_on_the_revision_as_it_stands(tmp_path):
    rev = open_demo_revision(tmp_path)
    datasets = DatasetActivities(rev.objects, ROOT, rev.store)
    seen = []
    for task_id in TASKS:
        readiness = datasets.check_freeze_ready(DatasetRef(KEYS.namespace, KEYS.revision))
        seen.append(readiness.ready)
        assert not readiness.ready and readiness.gaps  # each gap as "<rule>: <message>"
        assert all(g.split(":", 1)[0] in {"split_minimums", "source_coverage", "group_coverage",
                                          "profession_coverage"} for g in readiness.gaps), readiness.gaps
        rev.publish(task_id)
    readiness = datasets.check_freeze_ready(DatasetRef(KEYS.namespace, KEYS.revision))
    report = freeze_check(rev.objects, KEYS, store=rev.store)
    assert (readiness.ready, readiness.candidates, readiness.gaps) == (True, 4, []) == (
        report.freeze_ready, report.candidates, report.gaps)
    assert seen == [False] * 4
    assert not Path(rev.objects.local_path(KEYS.manifest)).exists()  # a check writes nothing


def test_readiness_runs_the_export_checkpoint_only_once_the_rules_pass(tmp_path, monkeypatch):
    """The export checkpoint and verify read every publication's files: a production asks after
    each publication, so they wait until the rest passes. A finding there still says no."""
    from dataset_revisions import freeze

    rev = open_demo_revision(tmp_path)
    datasets = DatasetActivities(rev.objects, ROOT, rev.store)
    scans = []
    real = freeze.privacy_gaps
    monkeypatch.setattr(freeze, "privacy_gaps", lambda *a: scans.append(1) or real(*a))
    tasks = list(TASKS)
    for task_id in tasks[:-1]:
        rev.publish(task_id)
        assert not datasets.check_freeze_ready(DatasetRef(KEYS.namespace, KEYS.revision)).ready
    assert scans == []  # splits short: no file read
    result = rev.publish(tasks[-1])
    target = Path(result.path) / "task" / "instruction.md"
    target.chmod(0o644)
    target.write_text(target.read_text() + "\nupload with " + "AKIA" + "QX7LMN2PRS4TUV6W" + "\n")
    readiness = datasets.check_freeze_ready(DatasetRef(KEYS.namespace, KEYS.revision))
    assert scans == [1] and not readiness.ready
    assert {g.split(":", 1)[0] for g in readiness.gaps} == {"privacy", "integrity"}


def test_deferred_seeds_are_listed_apart_and_never_counted_as_losses(tmp_path):
    from contracts.payloads.datasets import SeedOutcome
    from dataset_revisions.report import dataset_report

    rev = open_demo_revision(tmp_path)
    failed = SeedOutcome(KEYS.namespace, KEYS.revision, "seeds/broken", "broken", "failed", "wf", NOW,
                         reason="InvalidSeed: seeds/broken/seed.json: title: missing", started_at=NOW,
                         stage="02-admission", failure_type="InvalidSeed")
    deferred = [SeedOutcome(KEYS.namespace, KEYS.revision, f"seeds/{s}", s, "deferred", "", NOW,
                            reason="not started: freeze-check passed before its turn (stop_when_ready)")
                for s in ("late-1", "late-2")]
    DatasetActivities(rev.objects, ROOT).record_seed_outcomes([failed, *deferred])
    report = dataset_report(rev.objects, KEYS)
    assert report.deferred == ["late-1", "late-2"]
    assert report.funnel["submitted"] == 1  # the failed seed entered the pipeline; they did not
    assert [(loss.seed_id, loss.kind) for loss in report.losses] == [("broken", "02-admission InvalidSeed")]


def test_a_readiness_answer_keeps_the_history_bounded_however_many_gaps():
    """Each check is an activity result in the production's history: with a gap per task (bands
    unmeasured) whole lists would grow it as the square of the revision's size."""
    from activities.datasets import readiness
    from contracts.payloads.datasets import READINESS_GAPS
    from dataset_revisions.freeze_rules import Gap

    gaps = [Gap("difficulty_bands", f"task-{i}: unmeasured") for i in range(150)] + [
        Gap("split_minimums", "train holds 120, needs 130")]
    answer = readiness(False, 150, gaps)
    assert answer.gap_count == 151 and len(answer.gaps) == READINESS_GAPS + 1
    assert answer.gaps[0] == "difficulty_bands: task-0: unmeasured"
    assert answer.gaps[-1] == "... and 130 more difficulty_bands, 1 more split_minimums"
    assert readiness(True, 3, []).gaps == [] and readiness(True, 3, []).gap_count == 0
