"""Evidence renders with a worker-side content-hash cache.

A delivery's evidence is a fixed set of renders made by ``render_evidence.py`` from a *view
spec*: static ``front`` / ``side`` / ``top`` (orthographic) and ``close`` (perspective) views
of the deliverable and, for animation tasks, ``count`` (16) evenly spaced frames from a fixed
camera, an MP4 of them and a 4x4 contact sheet (``frames_sheet.png``).

Cache key = sha256 of canonical JSON ``{delivery scene digest, resolved view spec, renderer
version}``.  The scene digest (``blender/blend_digest.py``) is the sha256 of the delivery's bytes
with the two fields Blender seeds from the clock zeroed (a mesh's face-set colour seed, a node's
id in its tree); every other byte counts, so two deliveries share evidence only when Blender
reads the same scene from both -- the same script applied twice, a scripted policy's repeated
attempts -- and a file the digest cannot read shares nothing (raw sha256).

Entries live under ``<root>/objects/<key[:2]>/<key>/`` with ``manifest.json`` (per-file
sha256); they are written into a temp folder and renamed into place, and every hit
re-verifies the file hashes (a damaged entry is replaced, counted in ``corrupt``).
The renderer version is ``RENDERER_ID`` + digests of the render script and this module's
post-processing + the ``bpy`` package version, so a renderer change never reuses old renders.

``render_many`` renders misses in batches (``bpy_procs.render_jobs``: sandboxed unless
``sandbox=LOCAL`` or ``ARKEVO_TRIAL_BACKEND=local``); ``render_elsewhere`` lets the worker
render a miss in its own activity sandbox.  Either way a render enters the cache only after
``check_rendered`` (a delivery is solver output; what Blender wrote from it is untrusted); one
that fails it is evidence with an ``error`` (nothing to judge), never cached.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from PIL import Image

from contracts.digests import canonical_json_bytes, sha256_file  # noqa: F401 (sha256_file re-exported)
from blender.blend_digest import scene_digest
from sandbox.script_run import ScriptIsolation
from verifiers.bpy_procs import RENDER_EVIDENCE, render_jobs
from verifiers.vl import contact_sheet

POSTPROCESS_VERSION = "2"  # contact sheet layout and encoding (2: composited and written by Pillow)
SHEET = "frames_sheet.png"
STATIC_VIEWS = ("front", "side", "top", "close")
DEFAULT_RESOLUTION = (160, 120)
# A graded part the judge is to see must cover at least this many pixels on both sides of its
# box in one static view of the reference deliverable: under it the part is a smudge a VL model
# cannot judge (a table leg at 160x120 in the front view is 5 px wide; the close view shows 8+).
MIN_PART_PIXELS = 8
# The production engine with the delivery's materials: Cycles on the CPU at few samples (a view
# at 160x120, 8 samples: ~0.2-0.5 s here). Workbench drew viewport colours, so materials,
# textures and lights never reached the judge; it is refused (issue 33).
DEFAULT_ENGINE = "CYCLES"
ENGINES = ("CYCLES", "BLENDER_EEVEE")
DEFAULT_SAMPLES = 8
# Cycles' own cap on one view's sampling time (s): an honest delivery needs well under 1 s.
DEFAULT_TIME_LIMIT = 10.0
LIGHTING = ("grader", "delivery")


@functools.lru_cache(maxsize=1)
def _render_script_text() -> str:
    return RENDER_EVIDENCE.read_text(encoding="utf-8").replace("\r\n", "\n")


def _renderer_id() -> str:
    m = re.search(r'^RENDERER_ID = "([^"]+)"', _render_script_text(), re.M)
    return m.group(1) if m else "arkevo-evidence/?"


def renderer_version() -> str:
    """Changes whenever the same spec could render differently: render script, post-processing,
    Blender build."""
    try:
        bpy_version = version("bpy")
    except PackageNotFoundError:
        bpy_version = "unknown"
    code = hashlib.sha256(_render_script_text().encode() + b"\0post" + POSTPROCESS_VERSION.encode()).hexdigest()
    return f"{_renderer_id()}+{code[:12]}+bpy-{bpy_version}"


# --- view specs -------------------------------------------------------------------------------


def resolve_spec(cfg: dict | None, *, engine: str | None = None, resolution: tuple[int, int] | None = None,
                 device: str | None = None) -> dict:
    """The full view spec from a task's ``judge.json`` ``evidence`` section.

    ``cfg``: ``target`` {center, radius} framed by front/side/top; optional ``close``
    {center, radius, direction}; ``static_frame``; ``hide`` (names of stage objects left out
    of every render, e.g. a floor); optional ``animation`` {frame_start,
    frame_end, count (16), direction, fps, mp4}; ``engine`` (CYCLES, or BLENDER_EEVEE on GPU
    workers), ``resolution``, ``samples``, ``seed``, ``time_limit`` (s per view), ``lighting``
    (``grader``: the grader's world and sun, the delivery's lights dark; ``delivery``: its own
    lights and world, for a lighting task).  Keyword overrides (CLI / worker settings) win; ``ARKEVO_EVIDENCE_ENGINE`` and
    ``ARKEVO_EVIDENCE_DEVICE`` configure GPU workers (e.g. CYCLES + OPTIX)."""
    cfg = dict(cfg or {})
    target = cfg.get("target", {"center": [0.0, 0.0, 0.5], "radius": 1.5})
    center, radius = [float(v) for v in target["center"]], float(target["radius"])
    engine = engine or os.environ.get("ARKEVO_EVIDENCE_ENGINE") or cfg.get("engine", DEFAULT_ENGINE)
    if engine not in ENGINES:
        raise ValueError(f"unknown evidence engine {engine!r}; use one of {', '.join(ENGINES)} (Workbench "
                         f"draws viewport colours, not the delivery's materials)")
    lighting = str(cfg.get("lighting", "grader"))
    if lighting not in LIGHTING:
        raise ValueError(f"unknown evidence lighting {lighting!r}; use one of {', '.join(LIGHTING)}")
    res = list(resolution or cfg.get("resolution", DEFAULT_RESOLUTION))
    close = cfg.get("close", {})
    spec = {
        "engine": engine,
        "resolution": [int(res[0]), int(res[1])],
        "static_frame": int(cfg.get("static_frame", 1)),
        "views": [
            {"name": "front", "direction": [0.0, -1.0, 0.0], "ortho": True, "center": center, "radius": radius},
            {"name": "side", "direction": [1.0, 0.0, 0.0], "ortho": True, "center": center, "radius": radius},
            {"name": "top", "direction": [0.0, 0.0, 1.0], "ortho": True, "center": center, "radius": radius},
            {"name": "close", "direction": [float(v) for v in close.get("direction", [1.0, -1.0, 0.8])],
             "ortho": False, "center": [float(v) for v in close.get("center", center)],
             "radius": float(close.get("radius", radius * 0.5)), "fov_deg": 40.0},
        ],
        "animation": None,
        "hide": sorted(str(n) for n in cfg.get("hide", [])),
        "lighting": lighting,
    }
    if engine == "CYCLES":
        spec["samples"] = int(cfg.get("samples", DEFAULT_SAMPLES))
        spec["seed"] = int(cfg.get("seed", 0))
        spec["time_limit"] = float(cfg.get("time_limit", DEFAULT_TIME_LIMIT))
        spec["device"] = device or os.environ.get("ARKEVO_EVIDENCE_DEVICE") or cfg.get("device", "CPU")
    if cfg.get("animation"):
        a = cfg["animation"]
        spec["animation"] = {
            "frame_start": int(a["frame_start"]), "frame_end": int(a["frame_end"]),
            "count": int(a.get("count", 16)), "fps": int(a.get("fps", 8)), "mp4": bool(a.get("mp4", True)),
            "direction": [float(v) for v in a.get("direction", [-1.0, -1.0, 0.8])],
            "center": [float(v) for v in a.get("center", center)],
            "radius": float(a.get("radius", radius)), "fov_deg": 40.0,
        }
    return spec


# --- what the judge can see -------------------------------------------------------------------


def rubric_names(rubric: dict) -> set[str]:
    """Every string in the rubric's criteria params, keys included. Among them are the object
    names it grades; the visibility check keeps those the renderer drew (lights, cameras and
    material names draw nothing and drop out)."""
    names: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            names.add(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                names.add(str(key))
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for criterion in rubric.get("criteria", []):
        walk(criterion.get("params", {}))
    return names


def unseen_parts(manifest: dict, graded: set[str] | list[str], hidden: list[str] | tuple = (),
                 min_px: int = MIN_PART_PIXELS) -> dict[str, str]:
    """{part: why} for each graded part the judge cannot see in these renders (the reference
    deliverable's): left out by the view spec's ``hide``, or smaller than ``min_px`` x ``min_px``
    in every static view (the manifest's ``part_pixels``, {view: {object: [w, h]}}, measured by
    the renderer on what it drew). Graded names the renderer did not draw are not parts."""
    unseen = {name: "left out of every view by judge.json evidence.hide"
              for name in sorted(set(graded) & set(hidden))}
    best: dict[str, tuple[float, float]] = {}
    for view in (manifest.get("part_pixels") or {}).values():
        for name, size in (view or {}).items():
            try:
                w, h = float(size[0]), float(size[1])
            except (TypeError, ValueError, IndexError, KeyError):
                w, h = 0.0, 0.0  # the renderer runs sandboxed: a malformed size counts as unseen
            if name in graded and min(w, h) > min(best.get(name, (-1.0, -1.0))):
                best[name] = (w, h)
    for name, (w, h) in sorted(best.items()):
        if min(w, h) < min_px:
            unseen[name] = (f"at most {w:.0f}x{h:.0f} px in any view (needs {min_px}x{min_px}): "
                            f"raise judge.json evidence.resolution or frame a close view on it")
    return unseen


# --- cache ------------------------------------------------------------------------------------


@dataclass
class Evidence:
    """One delivery's renders: ``files`` {name: {sha256, kind, view, frame...}}."""

    key: str
    folder: Path
    manifest: dict
    cache_hit: bool

    @property
    def files(self) -> dict[str, dict]:
        return self.manifest.get("files", {})

    @property
    def error(self) -> str | None:
        return self.manifest.get("error")

    def path(self, name: str) -> Path:
        return self.folder / name

    def hashes(self) -> dict[str, str]:
        return {n: e["sha256"] for n, e in sorted(self.files.items())}

    def names(self, kind: str) -> list[str]:
        entries = [(e.get("index", 0), n) for n, e in self.files.items() if e.get("kind") == kind]
        return [n for _, n in sorted(entries)]

    def summary(self) -> dict:
        return {"key": self.key, "cache": "hit" if self.cache_hit else "miss", "error": self.error,
                "files": self.hashes(), "mp4": self.manifest.get("mp4")}

    def copy_to(self, dest: Path) -> list[Path]:
        dest.mkdir(parents=True, exist_ok=True)
        out = []
        for name in self.files:
            shutil.copyfile(self.path(name), dest / name)
            out.append(dest / name)
        return out


@dataclass
class CacheCounters:
    hits: int = 0
    misses: int = 0
    renders: int = 0  # deliveries actually rendered
    render_processes: int = 0  # bpy processes started for rendering
    corrupt: int = 0
    absent: int = 0  # requests for a delivery file that does not exist (no render)
    prerendered: int = 0  # renders a trial's verifier made, taken in (no process here)
    render_seconds: float = 0.0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class EvidenceCache:
    """Worker-side evidence cache (a local folder; one per worker host)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        (self.root / "objects").mkdir(parents=True, exist_ok=True)
        (self.root / "tmp").mkdir(parents=True, exist_ok=True)
        self.counters = CacheCounters()
        self._lock = threading.Lock()

    @staticmethod
    def key(scene: str | None, spec: dict, renderer: str | None = None) -> str:
        """``scene``: the delivery's ``blend_digest.scene_digest`` (None: nothing delivered)."""
        basis = {"scene": scene, "spec": spec, "renderer": renderer or renderer_version()}
        return hashlib.sha256(canonical_json_bytes(basis)).hexdigest()

    def folder(self, key: str) -> Path:
        return self.root / "objects" / key[:2] / key

    def lookup(self, key: str) -> Evidence | None:
        folder = self.folder(key)
        manifest_path = folder / "manifest.json"
        if not manifest_path.is_file():
            return None
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        for name, entry in manifest.get("files", {}).items():
            p = folder / name
            if not p.is_file() or sha256_file(p) != entry["sha256"]:
                with self._lock:
                    self.counters.corrupt += 1
                shutil.rmtree(folder, ignore_errors=True)
                return None
        return Evidence(key, folder, manifest, cache_hit=True)

    def scratch(self) -> Path:
        return Path(tempfile.mkdtemp(prefix="render-", dir=self.root / "tmp"))

    def commit(self, key: str, rendered: Path) -> Evidence:
        """Move a rendered folder into place (first writer wins; ours is dropped on a race)."""
        final = self.folder(key)
        final.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.rename(rendered, final)
        except OSError:
            shutil.rmtree(rendered, ignore_errors=True)
        manifest = json.loads((final / "manifest.json").read_text(encoding="utf-8"))
        return Evidence(key, final, manifest, cache_hit=False)


def _postprocess(folder: Path, scene: str | None) -> None:
    """Add the 4x4 contact sheet of the animation frames to a fresh render's manifest, and the
    delivery's scene digest: not its sha256, which differs between two saves of one scene (a
    reference deliverable comes from a trial on a running clock), while the manifest is part of
    the task version (docs/reproducibility.md)."""
    manifest_path = folder / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest.pop("blend_sha256", None)
    manifest["scene"] = scene
    frames = sorted((e["index"], n) for n, e in manifest.get("files", {}).items() if e.get("kind") == "frame")
    if frames:
        contact_sheet([folder / n for _, n in frames], columns=4).save(folder / SHEET)
        manifest["files"][SHEET] = {"kind": "sheet", "view": "animation", "frames": len(frames),
                                    "sha256": sha256_file(folder / SHEET), "size": (folder / SHEET).stat().st_size}
    manifest["renderer_version"] = renderer_version()
    tmp = manifest_path.with_name("manifest.json.tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, manifest_path)


@dataclass
class RenderRequest:
    blend: Path
    spec: dict
    scene: str | None = None  # blend_digest.scene_digest; None: nothing delivered
    key: str = field(default="", init=False)


class EvidenceRenderer:
    """Renders evidence through the cache: hits cost a hash check, misses are batched into at
    most ``processes`` bpy processes (2 on a 2-core worker)."""

    def __init__(self, cache: EvidenceCache, processes: int = 2, timeout: float = 900, *,
                 sandbox: ScriptIsolation = None):
        self.cache = cache
        self.processes = max(1, processes)
        self.timeout = timeout
        self.sandbox = sandbox  # where render_jobs opens the deliveries (see bpy_procs)

    def render(self, blend: Path, spec: dict) -> Evidence:
        return self.render_many([(blend, spec)])[0]

    def _request(self, blend: Path, spec: dict) -> RenderRequest:
        req = RenderRequest(Path(blend), spec, scene_digest(blend) if Path(blend).is_file() else None)
        req.key = self.cache.key(req.scene, spec)
        return req

    async def cached(self, blend: Path, spec: dict) -> bool:
        """Whether the cache holds this delivery's evidence already (uncounted: a look ahead)."""
        req = await asyncio.to_thread(self._request, blend, spec)
        return req.scene is not None and self.cache.folder(req.key).joinpath("manifest.json").is_file()

    def _known(self, req: RenderRequest) -> Evidence | None:
        """Evidence that needs no render (nothing delivered, or a cache hit); None: render it."""
        if req.scene is None:  # nothing delivered: nothing to render, nothing to cache
            with self.cache._lock:
                self.cache.counters.absent += 1
            manifest: dict = {"renderer": _renderer_id(), "scene": None, "files": {},
                        "error": f"delivered .blend not found: {req.blend}"}
            return Evidence(req.key, self.cache.root / "tmp", manifest, cache_hit=False)
        hit = self.cache.lookup(req.key)
        with self.cache._lock:
            if hit is not None:
                self.cache.counters.hits += 1
            else:
                self.cache.counters.misses += 1
        return hit

    def render_many(self, items: list[tuple[Path, dict]]) -> list[Evidence]:
        requests = [self._request(blend, spec) for blend, spec in items]
        results: dict[str, Evidence] = {}
        todo: dict[str, RenderRequest] = {}
        for req in requests:
            if req.scene is not None and (req.key in results or req.key in todo):
                continue
            if (known := self._known(req)) is not None:
                results[req.key] = known
            else:
                todo[req.key] = req
        if todo:
            results.update(self._render(list(todo.values())))
        # duplicates within one call count as hits of the first render
        seen: set[str] = set()
        out = []
        for req in requests:
            ev = results[req.key]
            if req.key in seen:
                ev = Evidence(ev.key, ev.folder, ev.manifest, cache_hit=True)
            seen.add(req.key)
            out.append(ev)
        return out

    def _render(self, reqs: list[RenderRequest]) -> dict[str, Evidence]:
        from concurrent.futures import ThreadPoolExecutor

        scratch = {r.key: self.cache.scratch() for r in reqs}
        batches = [reqs[i::self.processes] for i in range(min(self.processes, len(reqs)))]
        started = time.monotonic()
        try:
            with ThreadPoolExecutor(len(batches)) as pool:
                list(pool.map(lambda batch: render_jobs(
                    [{"blend": str(r.blend), "spec": r.spec, "out": str(scratch[r.key])} for r in batch],
                    timeout=self.timeout, sandbox=self.sandbox), batches))
        except BaseException:
            for folder in scratch.values():
                shutil.rmtree(folder, ignore_errors=True)
            raise
        with self.cache._lock:
            self.cache.counters.renders += len(reqs)
            self.cache.counters.render_processes += len(batches)
            self.cache.counters.render_seconds += time.monotonic() - started
        out = {}
        for r in reqs:
            try:
                if (problem := check_rendered(scratch[r.key], r.spec)) is not None:
                    raise RenderFailed(problem)
                _postprocess(scratch[r.key], r.scene)
            except (RenderFailed, ValueError, KeyError, TypeError) as exc:  # nothing to judge
                shutil.rmtree(scratch[r.key], ignore_errors=True)
                out[r.key] = Evidence(r.key, self.cache.root / "tmp", {
                    "renderer": _renderer_id(), "scene": r.scene, "files": {},
                    "error": f"the renderer's output is malformed: {exc}"}, cache_hit=False)
                continue
            out[r.key] = self.cache.commit(r.key, scratch[r.key])
        return out

    async def render_elsewhere(self, blend: Path, spec: dict,
                               render_job: Callable[[dict], Awaitable[None]], *,
                               process: bool = True) -> Evidence:
        """One delivery through the cache, rendered by `await render_job({blend, spec, out})`
        (e.g. in the worker's sandbox); a hit starts nothing. What comes back from there is
        untrusted: it enters the cache only if `check_rendered` accepts it, else RenderFailed.
        `process=False`: `render_job` only brings renders another process already made (a
        trial's verifier, verifiers/probe_and_render.py): counted as `prerendered`."""
        req = await asyncio.to_thread(self._request, blend, spec)  # hashing stays off the loop
        if (known := await asyncio.to_thread(self._known, req)) is not None:
            return known
        folder = self.cache.scratch()
        started = time.monotonic()
        try:
            await render_job({"blend": str(req.blend), "spec": spec, "out": str(folder)})
            if (problem := check_rendered(folder, spec)) is not None:
                raise RenderFailed(f"the renderer's output is malformed: {problem}")
            try:
                _postprocess(folder, req.scene)
            except (ValueError, KeyError, TypeError) as exc:  # frames the worker cannot read
                raise RenderFailed(f"the renderer's output is malformed: {exc}") from exc
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        with self.cache._lock:
            if process:
                self.cache.counters.renders += 1
                self.cache.counters.render_processes += 1
                self.cache.counters.render_seconds += time.monotonic() - started
            else:
                self.cache.counters.prerendered += 1
        return self.cache.commit(req.key, folder)


class RenderFailed(Exception):
    """The renderer crashed, hung or wrote nonsense on this delivery: nothing to judge."""


def check_rendered(folder: Path, spec: dict) -> str | None:
    """Why a render folder from an untrusted process cannot be used, or None. Every listed
    file must be a plain name in the folder with its recorded sha256 (names later become
    paths on the worker), and every PNG must have the spec's size (the worker decodes them)."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        files = manifest["files"]
        for name, entry in files.items():
            path = folder / name
            if "/" in name or name in ("", ".", "..", "manifest.json") or not path.is_file():
                return f"{name!r} is not a rendered file"
            if path.is_symlink() or sha256_file(path) != entry["sha256"]:
                return f"{name!r} does not match its sha256"
            if name.endswith(".png") and _png_size(path) != tuple(spec["resolution"]):
                return f"{name!r} is not {spec['resolution'][0]}x{spec['resolution'][1]}"
    except (OSError, ValueError, KeyError, TypeError, AttributeError, Image.DecompressionBombError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _png_size(path: Path) -> tuple[int, int]:
    """(width, height) from the PNG header; Pillow decodes no pixels here."""
    with Image.open(path, formats=("PNG",)) as img:
        return img.size


def default_cache_root() -> Path:
    """``ARKEVO_EVIDENCE_CACHE`` or ``var/cache/evidence`` under the project (``ARKEVO_VAR``)."""
    if os.environ.get("ARKEVO_EVIDENCE_CACHE"):
        return Path(os.environ["ARKEVO_EVIDENCE_CACHE"])
    var = Path(os.environ.get("ARKEVO_VAR", Path(__file__).resolve().parent.parent / "var"))
    return var / "cache" / "evidence"
