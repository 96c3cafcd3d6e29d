"""Evidence renders in real Blender: fixed views, 16 animation frames + MP4, determinism, and the
content-hash cache (scoring the same delivery twice renders nothing the second time). Blender
runs in the trial sandbox, as the scoring CLI runs it (test slot users, a temporary base)."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from sandbox.isolation.settings import SandboxSettings
from tests.adversarial.sandbox_helpers import requires_landlock, sandbox_kwargs
from verifiers import bpy_procs, score_delivery
from verifiers.evidence import SHEET, EvidenceCache, EvidenceRenderer, renderer_version, resolve_spec, sha256_file
from verifiers.profiles import get_profile
from verifiers.scorer import Scorer, TaskBundle
from verifiers.vl import load_judge_config

pytestmark = [pytest.mark.blender, requires_landlock]

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "seeds"


@pytest.fixture(scope="module")
def isolation(tmp_path_factory) -> SandboxSettings:
    return SandboxSettings(**sandbox_kwargs(tmp_path_factory.mktemp("evidence-sandbox")))


@pytest.fixture(scope="module")
def workspaces(tmp_path_factory, isolation) -> dict[str, dict[str, Path]]:
    """Both seeds' built workspaces: {seed: {"start": ..., "reference": ...}}."""
    work = tmp_path_factory.mktemp("evidence-ws")

    def build(seed: str) -> tuple[str, dict[str, Path]]:
        bundle = TaskBundle.load(SEEDS / seed / "draft")
        start, ref = work / seed / "start.blend", work / seed / "reference.blend"
        bpy_procs.build_workspace(bundle.reference_project, bundle.start_mode, start, ref,
                                  seed_dir=bundle.seed_dir, sandbox=isolation)
        return seed, {"start": start, "reference": ref}

    with ThreadPoolExecutor(2) as pool:
        return dict(pool.map(build, ("robot-carry", "table-model")))


@pytest.fixture(scope="module")
def scored_twice(workspaces, tmp_path_factory, isolation):
    """The table reference scene scored twice under blender-70-30 with the image-metric judge,
    through one worker cache; the second time by a new Scorer, as a second request would."""
    cache = EvidenceCache(tmp_path_factory.mktemp("cache"))
    bundle = TaskBundle.load(SEEDS / "table-model" / "draft")
    delivery = workspaces["table-model"]["reference"]
    first = Scorer(bundle, get_profile("blender-70-30"), cache=cache, sandbox=isolation).score(delivery)
    after_first = cache.counters.as_dict()
    second = Scorer(bundle, get_profile("blender-70-30"), cache=cache, sandbox=isolation).score(delivery)
    return cache, delivery, first, after_first, second, cache.counters.as_dict()


def test_scoring_the_same_delivery_twice_reuses_everything(scored_twice):
    _, _, first, c1, second, c2 = scored_twice
    # first time: the delivery and the reference deliverable were rendered
    assert c1["renders"] == 2 and c1["misses"] == 2 and c1["hits"] == 0
    # second time: nothing rendered; the delivery and the reference came from the cache
    assert c2["renders"] == c1["renders"] and c2["render_processes"] == c1["render_processes"]
    assert c2["hits"] == 2 and c2["misses"] == c1["misses"]
    assert first["evidence"]["cache"] == "miss" and second["evidence"]["cache"] == "hit"
    assert second["evidence"]["files"] == first["evidence"]["files"]  # identical evidence hashes
    assert second["criteria"] == first["criteria"]  # identical rule results
    for key in ("total", "rule_score", "vl_score", "verifier_version", "blend_sha256"):
        assert second[key] == first[key]
    assert first["total"] == 1.0 and first["judge"]["id"].startswith("image-metric@")
    assert set(first["evidence"]["files"]) == {"front.png", "side.png", "top.png", "close.png"}


def test_cli_scores_one_delivery_prints_a_table_and_writes_evidence(scored_twice, tmp_path, isolation,
                                                                    capsys):
    """The CLI's own main() (in this process, to hand it the test's slot users)."""
    cache, delivery, first, *_ = scored_twice
    out = tmp_path / "out"
    code = score_delivery.main(
        ["--blend", str(delivery), "--task-dir", str(SEEDS / "table-model" / "draft"),
         "--profile", "blender-70-30", "--judge", "image-metric", "--cache", str(cache.root),
         "--out", str(out)], sandbox=isolation)
    stdout = capsys.readouterr().out
    assert code == 0, stdout
    for needle in ("C07", "material_on_faces", "image-metric@2", "total 1.000", "cache hit", "renders this run 0"):
        assert needle in stdout, needle
    record = json.loads((out / "score.json").read_text())
    assert record["criteria"] == first["criteria"] and record["evidence"]["files"] == first["evidence"]["files"]
    assert (out / "report.json").is_file()
    for name, sha in record["evidence"]["files"].items():  # the evidence images next to the output
        assert sha256_file(out / "evidence" / name) == sha


def test_static_views_frame_the_deliverable(scored_twice):
    cache, _, first, *_ = scored_twice
    ev = cache.lookup(first["evidence"]["key"])
    for name in ("front.png", "side.png", "top.png", "close.png"):
        img = np.asarray(Image.open(ev.path(name)))
        assert img.shape == (120, 160, 4)
        coverage = (img[..., 3] > 127).mean()
        assert 0.02 < coverage < 0.95, f"{name}: {coverage:.3f} of the frame covered"


def test_a_damaged_cache_entry_is_rendered_again(scored_twice, isolation):
    cache, delivery, first, *_ = scored_twice
    ev = cache.lookup(first["evidence"]["key"])
    ev.path("front.png").write_bytes(b"tampered")
    renders, corrupt = cache.counters.renders, cache.counters.corrupt
    spec = resolve_spec(load_judge_config(SEEDS / "table-model" / "draft" / "judge.json").evidence)
    again = EvidenceRenderer(cache, sandbox=isolation).render(delivery, spec)
    assert cache.counters.corrupt == corrupt + 1 and cache.counters.renders == renders + 1
    assert again.hashes() == first["evidence"]["files"] and not again.cache_hit


def test_the_same_scene_saved_twice_is_rendered_once(workspaces, tmp_path, isolation):
    """A solver's repeated attempts save one scene into different bytes (Blender seeds a mesh's
    face-set colours and a node's id from the clock, which only our own builds freeze); the
    cache keys on the scene digest (blender/blend_digest.py), so the second delivery's evidence
    is the first's, unrendered."""
    start = workspaces["table-model"]["start"]
    solve = SEEDS / "table-model" / "draft" / "solution" / "solve.py"
    first_blend = bpy_procs.apply_script(start, solve, tmp_path / "a" / "result.blend", sandbox=isolation,
                                         reproducible=False)
    time.sleep(1.1)  # the face-set colour seed changes with the second
    second_blend = bpy_procs.apply_script(start, solve, tmp_path / "b" / "result.blend", sandbox=isolation,
                                          reproducible=False)
    assert sha256_file(first_blend) != sha256_file(second_blend)
    cache = EvidenceCache(tmp_path / "cache")
    spec = resolve_spec(load_judge_config(SEEDS / "table-model" / "draft" / "judge.json").evidence)
    first = EvidenceRenderer(cache, sandbox=isolation).render(first_blend, spec)
    second = EvidenceRenderer(cache, sandbox=isolation).render(second_blend, spec)
    assert not first.cache_hit and second.cache_hit and first.error is None
    assert cache.counters.renders == 1 and cache.counters.hits == 1
    assert second.hashes() == first.hashes()


def robot_spec() -> dict:
    return resolve_spec(load_judge_config(SEEDS / "robot-carry" / "draft" / "judge.json").evidence)


def test_animation_evidence_has_16_frames_an_mp4_and_is_deterministic(workspaces, tmp_path, isolation):
    """Rendered twice in two processes, through two caches: byte-identical files."""
    spec = robot_spec()
    caches = [EvidenceCache(tmp_path / "a"), EvidenceCache(tmp_path / "b")]
    start = workspaces["robot-carry"]["start"]
    with ThreadPoolExecutor(2) as pool:
        a, b = pool.map(lambda c: EvidenceRenderer(c, sandbox=isolation).render(start, spec), caches)
    assert a.key == b.key and a.hashes() == b.hashes()
    frames = a.names("frame")
    assert len(frames) == 16
    assert [a.files[n]["frame"] for n in frames] == [round(1 + i * 119 / 15) for i in range(16)]
    assert set(a.names("static")) == {"front.png", "side.png", "top.png", "close.png"}
    # Blender's FFmpeg is available in bpy 5.2: a real MP4 (ISO base media, 'ftyp' box)
    assert a.manifest["mp4"] == "written" and a.path("animation.mp4").read_bytes()[4:8] == b"ftyp"
    sheet = np.asarray(Image.open(a.path(SHEET)))
    assert sheet.shape == (480, 640, 3)
    assert a.manifest["renderer_version"] == renderer_version()


def test_unrenderable_deliveries_have_no_evidence(tmp_path, isolation):
    garbage = tmp_path / "garbage.blend"
    garbage.write_bytes(b"not a blend file")
    cache = EvidenceCache(tmp_path / "cache")
    spec = robot_spec()
    missing, broken = EvidenceRenderer(cache, sandbox=isolation).render_many(
        [(tmp_path / "absent.blend", spec), (garbage, spec)])
    assert missing.files == {} and "not found" in missing.error
    assert broken.files == {} and "cannot be opened" in broken.error
    # nothing delivered: no render at all; an unreadable file: rendered (its bytes key the cache)
    assert cache.counters.absent == 1 and cache.counters.misses == 1 and cache.counters.renders == 1


def test_cycles_is_deterministic_with_fixed_samples_and_seed(workspaces, tmp_path, isolation):
    cfg = dict(load_judge_config(SEEDS / "table-model" / "draft" / "judge.json").evidence)
    spec = resolve_spec(cfg, engine="CYCLES", resolution=(64, 48))
    spec["samples"] = 4
    assert spec["engine"] == "CYCLES" and spec["device"] == "CPU" and spec["seed"] == 0
    delivery = workspaces["table-model"]["reference"]
    renders = []
    for name in ("x", "y"):  # two separate bpy processes
        renders.append(EvidenceRenderer(EvidenceCache(tmp_path / name), sandbox=isolation).render(delivery, spec))
    assert renders[0].hashes() == renders[1].hashes()
    img = np.asarray(Image.open(renders[0].path("front.png")))
    assert img.shape == (48, 64, 4) and np.any(img[..., 3] > 0)
