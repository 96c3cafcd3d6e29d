"""Calibration of the bundled seeds' rule channel, measured in real Blender (bpy subprocesses).

For each seed: build the workspace, apply the reference solution, every defect and every
variant to inputs/start.blend, probe each delivery plus the untouched start.blend, and check
that the rule probe alone separates them — the task graded under `rule-only` (its VL part is
the pipeline's and `test_calibration_step.py`'s business): reference high, untouched input and
defects low (at least 0.2 below the pass threshold), variants passing.  A seed's scripts run in
one Blender and its deliveries are probed in one warm probe (as calibration does).  Also:
probing is deterministic (the packaged test's fresh probe reports what the warm probe did), and
an empty or unreadable delivery scores 0 without crashing while a broken rubric crashes.
"""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

from sandbox.script_run import LOCAL
from tests.probe_cases import local_probe
from verifiers import bpy_procs
from verifiers.profiles import get_profile, task_with_profile
from tests.bpy_forks import run_bpy_script

pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "blender" / "build_workspace.py"
PROBE = ROOT / "verifiers" / "rule_probe.py"
SEEDS = ("robot-carry", "table-model", "product-lighting", "asset-hygiene", "render-setup",
         "mug-material", "crate-texture", "fence-array")
MARGIN = 0.2  # defects and the untouched input must score this far below the pass threshold
PARALLEL = 2  # concurrent bpy processes


@dataclass(frozen=True)
class Sample:
    seed: str
    name: str  # reference | input | defect:<stem> | variant:<stem>
    script: Path | None  # None: the untouched start.blend is the delivery

    @property
    def kind(self) -> str:
        return self.name.split(":")[0]

    @property
    def slug(self) -> str:
        return self.name.replace(":", "-")


def seed_dir(seed: str) -> Path:
    return ROOT / "seeds" / seed


def seed_samples(seed: str, every_defect: bool = True) -> list[Sample]:
    draft = seed_dir(seed) / "draft"
    samples = [Sample(seed, "reference", draft / "solution" / "solve.py"), Sample(seed, "input", None)]
    for kind in ("defect", "variant", "gaming"):
        scripts = sorted((draft / "calibration" / ("gaming" if kind == "gaming" else f"{kind}s")).glob("*.py"))
        # every defect of the FULL seeds; one gaming sample each (test_calibration_step.py runs
        # every gaming sample of the FULL seeds under three profiles, the demo every seed's)
        keep = scripts if kind == "variant" or (every_defect and kind == "defect") else scripts[:1]
        for script in keep:
            samples.append(Sample(seed, f"{kind}:{script.stem}", script))
    return samples


# Every sample of the two seeds the other tests lean on; of the rest the reference, the input,
# the first defect and every variant (the demo calibrates every sample of every seed through
# the pipeline; this keeps `make test` in its time).
FULL = ("robot-carry", "table-model")
ALL_SAMPLES = [s for seed in SEEDS for s in seed_samples(seed, every_defect=seed in FULL)]


def run_bpy(script: Path, *args: str | Path) -> subprocess.CompletedProcess:
    return run_bpy_script(script, *args, timeout=600)


def check(proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 0, f"{proc.args}\nstdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}"


def rule_only_task(seed: str, path: Path) -> Path:
    """The seed's task graded by its rule channel alone (a copy: the seed is not edited)."""
    task = task_with_profile(json.loads((seed_dir(seed) / "draft" / "task.json").read_text()),
                             get_profile("rule-only"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(task))
    return path


def probe(seed: str, blend: Path, out: Path) -> dict:
    rubric = seed_dir(seed) / "draft" / "rubric.json"
    task = rule_only_task(seed, out.with_name(f"{out.stem}.task.json"))
    check(run_bpy(PROBE, "--blend", blend, "--task", task, "--rubric", rubric, "--out", out))
    return json.loads(out.read_text())


def seed_start_mode(seed: str) -> str:
    return json.loads((seed_dir(seed) / "seed.json").read_text())["start_mode"]


def build(seed: str, work: Path) -> Path:
    start = work / seed / "inputs" / "start.blend"
    reference = work / seed / "private" / "reference.blend"
    check(run_bpy(BUILD, "--reference", seed_dir(seed) / "materials" / "build_reference.py",
                  "--start-mode", seed_start_mode(seed), "--out-start", start, "--out-reference", reference))
    return start


def delivery_path(work: Path, sample: Sample) -> Path:
    return work / sample.seed / "deliveries" / f"{sample.slug}.blend"


def deliver_and_probe(seed: str, work: Path) -> dict[str, dict]:
    """{sample name: report} of one seed's samples: its scripts applied in one Blender (one
    author's, as stage 05 applies a draft's gaming samples) and probed in one warm probe, as
    calibration does (test_probing_twice checks a fresh probe of the packaged test reports the
    same)."""
    start = build(seed, work)
    samples = [s for s in ALL_SAMPLES if s.seed == seed]
    scripted = [s for s in samples if s.script is not None]
    bpy_procs.apply_scripts(start, [(cast(Path, s.script), delivery_path(work, s)) for s in scripted],
                            sandbox=LOCAL)
    task = rule_only_task(seed, work / seed / "reports" / "task.json")
    rubric = seed_dir(seed) / "draft" / "rubric.json"
    with local_probe() as warm:
        return {s.name: warm.probe(start if s.script is None else delivery_path(work, s), task, rubric,
                                   work / seed / "reports" / f"{s.slug}.json") for s in samples}


@dataclass
class Calibration:
    work: Path
    reports: dict[tuple[str, str], dict]  # (seed, sample name) -> probe report


@pytest.fixture(scope="module")
def calibration(tmp_path_factory) -> Calibration:
    work = tmp_path_factory.mktemp("calibration")
    with ThreadPoolExecutor(PARALLEL) as pool:  # a seed per process: at most PARALLEL bpy processes
        by_seed = dict(zip(SEEDS, pool.map(lambda seed: deliver_and_probe(seed, work), SEEDS)))
    return Calibration(work, {(seed, name): r for seed, reports in by_seed.items() for name, r in reports.items()})


def summary(report: dict) -> str:
    failed = [f"{c['id']}={c['score']} ({c['detail']})" for c in report["criteria"] if not c["passed"]]
    return f"reward={report['reward']} core_failed={report['core_failed']} failed: {failed}"


def test_each_seed_has_defects_and_variants():
    for seed in SEEDS:
        kinds = [s.kind for s in seed_samples(seed)]
        assert kinds.count("defect") >= 3 and kinds.count("variant") >= 1, seed
        gaming = list((seed_dir(seed) / "draft" / "calibration" / "gaming").glob("*.py"))
        assert len(gaming) >= 2, seed  # the author's own attacks on the grader


@pytest.mark.parametrize("sample", ALL_SAMPLES, ids=lambda s: f"{s.seed}:{s.name}")
def test_calibration(calibration, sample):
    report = calibration.reports[(sample.seed, sample.name)]
    threshold = report["pass_threshold"]
    assert report["reward_null_reason"] is None
    if sample.kind == "reference":
        assert report["reward"] >= 0.9 and report["success"], summary(report)
    elif sample.kind == "variant":
        assert report["reward"] >= threshold and report["success"], summary(report)
    else:  # input, defect, gaming
        assert report["reward"] <= threshold - MARGIN and not report["success"], summary(report)


@pytest.mark.parametrize("seed", ["robot-carry", "table-model"])  # an animated and a static scene
def test_probing_twice_gives_identical_results(calibration, seed, tmp_path):
    reference = next(s for s in ALL_SAMPLES if s.seed == seed and s.kind == "reference")
    again = probe(seed, delivery_path(calibration.work, reference), tmp_path / "again.json")
    assert again == calibration.reports[(seed, "reference")]


def test_missing_and_unreadable_deliveries_score_zero(tmp_path):
    garbage = tmp_path / "garbage.blend"
    garbage.write_bytes(b"not a blend file")
    for blend, why in ((tmp_path / "absent.blend", "not found"), (garbage, "cannot be opened")):
        report = probe("table-model", blend, tmp_path / f"{blend.stem}.json")
        assert report["reward"] == 0.0 and not report["success"]
        assert all(c["score"] == 0.0 and why in c["detail"] for c in report["criteria"])
    assert report["blend_sha256"] is not None


def test_broken_rubric_crashes_instead_of_scoring_zero(tmp_path):
    draft = seed_dir("table-model") / "draft"
    rubric = json.loads((draft / "rubric.json").read_text())
    rubric["criteria"][0]["params"] = {}  # objects_exist without its objects
    bad = tmp_path / "rubric.json"
    bad.write_text(json.dumps(rubric))
    # even with nothing delivered: the rubric is checked before the delivery is looked at
    proc = run_bpy(PROBE, "--blend", tmp_path / "absent.blend", "--task", draft / "task.json",
                   "--rubric", bad, "--out", tmp_path / "r.json")
    assert proc.returncode != 0
    assert "missing param(s) objects" in proc.stderr
    assert not (tmp_path / "r.json").exists()
