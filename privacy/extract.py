"""Read the texts inside .blend files through Blender, in the trial sandbox, once per content.

A .blend's text datablocks and custom properties are only readable through bpy, and a .blend
is outside content, so `privacy/blend_text.py` runs the way every other untrusted .blend is
opened by the worker (docs/sandbox.md, "Outside code the worker opens itself"): through
`blender.runner.BlenderJob` — sandboxed, its own slot user, Landlock, no network, only the
.blend files go in and only the JSON comes out; or, when the worker runs outside code
unisolated (`ARKEVO_TRIAL_BACKEND=local`, `sandbox=LOCAL`), a plain Blender subprocess — like
`build_workspace` and `render_evidence`. A reader that crashes or hangs on the files is the
files' problem (`DeliveryBrokeBlender`): each is recorded with that error.

Each extraction is cached in the content store under the name `privacy/blend-text/<sha256>`,
so a .blend is read once: the dispatch checkpoint reads a task's .blend files on the first
trial, every later trial and the export checkpoint find them there. A file Blender cannot
open is recorded with its `error` (and is pending at the checkpoints), not cached; a crash or
timeout of the reader is not cached either.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from functools import cache
from importlib.metadata import version
from pathlib import Path

from storage.content import ContentStore
from contracts.digests import sha256_file
from blender.runner import BlenderJob, DeliveryBrokeBlender
from sandbox.script_run import ScriptIsolation

BLEND_TEXT = Path(__file__).resolve().parent / "blend_text.py"
CACHE_PREFIX = "privacy/blend-text/"
TIMEOUT_SEC = 300
MAX_OUTPUT_BYTES = 64 << 20


def cache_name(sha256: str) -> str:
    return f"{CACHE_PREFIX}{sha256}"


@cache
def reader_version() -> str:
    """Who read a cached extraction: the reader script and Blender. An entry another reader
    made is read again (the reader may have learnt to read more)."""
    return f"{sha256_file(BLEND_TEXT)[:16]}/bpy-{version('bpy')}"


def cached_blend_text(store: ContentStore, sha256: str) -> dict | None:
    ref = store.get_name(cache_name(sha256))
    if ref is None:
        return None
    doc = store.get_json(ref)
    return doc if isinstance(doc, dict) and doc.get("reader") == reader_version() else None


def blend_text_lookup(store: ContentStore) -> Callable[[str], dict | None]:
    """`blend_texts` for `privacy.scan.scan_tree`: the cached extraction of a .blend, or None."""
    return lambda sha256: cached_blend_text(store, sha256)


async def read_blend_texts(store: ContentStore, blends: dict[str, Path], *,
                           sandbox: ScriptIsolation = None, work: Path | None = None
                           ) -> dict[str, dict]:
    """{sha256: extraction} for `blends` ({sha256: host path}): cached ones from the store, the
    rest read in one Blender process (sandboxed unless `sandbox` is LOCAL) and cached.
    An extraction with an `error` key could not be read. Raises only when the sandbox cannot
    be set up (infrastructure)."""
    found = {sha: doc for sha in blends if (doc := cached_blend_text(store, sha)) is not None}
    todo = {sha: path for sha, path in blends.items() if sha not in found}
    if not todo:
        return found
    with tempfile.TemporaryDirectory(prefix="arkevo-blend-text-", dir=work) as tmp:
        read = await _read(todo, Path(tmp), sandbox)
    for sha, doc in read.items():
        if "error" not in doc:
            doc = {**doc, "reader": reader_version()}
            store.set_name(cache_name(sha), store.put_json(doc))
        found[sha] = doc
    return found


async def _read(blends: dict[str, Path], tmp: Path, sandbox: ScriptIsolation) -> dict[str, dict]:
    ids = {f"b{i}": sha for i, sha in enumerate(sorted(blends))}
    out, log = tmp / "texts.json", tmp / "blend_text.log"
    job = BlenderJob(sandbox)
    args = ["--out", job.output(out, "/workspace/out/texts.json"),
            *(f"{i}={job.input(blends[sha].resolve(), f'/workspace/in/{i}.blend')}" for i, sha in ids.items())]
    try:  # the files are outside content: Blender failing on them is theirs, recorded, not retried
        await job.run(BLEND_TEXT, args, cwd=tmp, timeout=TIMEOUT_SEC, log=log, delivery=True)
        failure = None
    except DeliveryBrokeBlender as exc:
        failure = f"the reader failed: {str(exc).splitlines()[0]}: {_last_line(exc.log_tail)}"
    docs = _parse(out) if failure is None else None
    if docs is None:
        failure = failure or "the reader wrote no readable output"
        return {sha: {"error": failure} for sha in ids.values()}
    return {sha: docs.get(i) or {"error": "the reader wrote nothing for it"} for i, sha in ids.items()}


def _parse(out: Path) -> dict[str, dict] | None:
    """The reader's output, checked: it ran on outside content, so it is trusted for nothing
    but strings in the expected shape."""
    if not out.is_file() or out.stat().st_size > MAX_OUTPUT_BYTES:
        return None
    try:
        raw = json.loads(out.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(raw, dict):
        return None
    docs = {}
    for ident, doc in raw.items():
        if not isinstance(doc, dict):
            continue
        if isinstance(doc.get("error"), str):
            docs[ident] = {"error": doc["error"][:500]}
            continue
        texts = [{"name": t["name"], "lines": [line for line in t["lines"] if isinstance(line, str)]}
                 for t in doc.get("texts", []) if isinstance(t, dict)
                 and isinstance(t.get("name"), str) and isinstance(t.get("lines"), list)]
        strings = [{"location": s["location"], "value": s["value"]} for s in doc.get("strings", [])
                   if isinstance(s, dict) and isinstance(s.get("location"), str)
                   and isinstance(s.get("value"), str)]
        docs[ident] = {"texts": texts, "strings": strings}
    return docs


def _last_line(log: str) -> str:
    lines = [line for line in log.strip().splitlines() if line.strip()]
    return lines[-1][-300:] if lines else "no output"
