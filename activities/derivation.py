"""Task derivation: new seeds derived from existing Harbor tasks (drafting/derivation.py).

read_source_task -> extract_pattern -> generate_candidates -> measure_novelty ->
write_derived_seed (each accepted candidate) -> write_derivation_record. The model calls run
as the author role's model in the deriver's own context; everything else is plain measuring
and writing. A candidate's build script is outside code: stored and written, never run here.
"""

from __future__ import annotations

import dataclasses
import filecmp
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import cast

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.model_calls import ReplyInvalid, ask_json, model_session, store_transcript
from contracts.errors import DERIVED_SEED_CONFLICT, DERIVER_REPLY_INVALID, INVALID_SOURCE_TASK
from storage.content import ContentStore
from contracts.payloads.common import BlobRef
from contracts.payloads.derivation import (CandidateRequest, CandidateSet, DerivationRecordInput,
                                           NoveltyInput, NoveltyVerdict, SeedCandidate, SourcePlacement,
                                           SourceTask, TaskPattern, WriteSeedInput)
from contracts.lineage import derive as derive_lineage
from dataset_revisions.revision import frozen_entries
from drafting.derivation import (SourceTaskError, build_candidate, candidate_messages,
                                 parse_candidates, parse_pattern, pattern_messages, read_task_dir,
                                 source_lineage)
from drafting.similarity import profile_of_candidate, profile_of_source, similarity
from modelapi.rate_budget import Budget
from storage.objects import ObjectStore

MODEL_ROLE, USAGE_ROLE = "author", "deriver"


def _unreadable(what: str, exc: ReplyInvalid, transcript: BlobRef) -> ApplicationError:
    return ApplicationError(f"{what}: the deriver's reply is unreadable after one corrective "
                            f"follow-up: {exc}", {"transcript": transcript.as_dict()},
                            type=DERIVER_REPLY_INVALID, non_retryable=True)


class DerivationActivities:
    def __init__(self, store: ContentStore, project_root: Path, derived_root: Path | None = None,
                 budget: Budget | None = None, objects: ObjectStore | None = None):
        self.store = store
        self.objects = objects  # where frozen revisions say which split a source task sits in
        self.budget = budget  # the llm workers' shared request budget (modelapi/rate_budget.py)
        self.project_root = Path(project_root)
        self.derived_root = Path(derived_root or self.project_root / "var" / "derived")

    def _path(self, path: str) -> Path:
        return Path(path) if Path(path).is_absolute() else self.project_root / path

    @activity.defn(name="read_source_task")
    def read_source_task(self, source: str) -> SourceTask:
        try:
            summary = read_task_dir(self._path(source))
        except SourceTaskError as exc:
            raise ApplicationError(str(exc), type=INVALID_SOURCE_TASK, non_retryable=True) from None
        summary["source"] = source
        try:
            summary["lineage"], parent = source_lineage(self._path(source), summary)
        except SourceTaskError as exc:
            raise ApplicationError(str(exc), type=INVALID_SOURCE_TASK, non_retryable=True) from None
        placements = self._placements(parent["task_id"], parent.get("task_version"))
        # The parent's split, when a frozen revision of the one it names holds it.
        split = {p.split for p in placements
                 if (p.namespace, p.revision) == (parent.get("namespace"), parent.get("revision"))}
        summary["parent"] = parent | ({"split": split.pop()} if len(split) == 1 else {})
        summary["placements"] = [dataclasses.asdict(p) for p in placements]
        return SourceTask(source, summary["source_id"], self.store.put_json(summary),
                          summary["lineage"]["root_seed"], summary["lineage"]["family"], placements,
                          summary["lineage"].get("split", ""))

    def _placements(self, task_id: str, task_version: str | None) -> list[SourcePlacement]:
        """Every frozen revision's split holding this task version (none without an object
        store, or for a task without a version: a foreign task is in no revision)."""
        if self.objects is None or not task_version:
            return []
        return [SourcePlacement(keys.namespace, keys.revision, split, e["publication_sha256"])
                for keys, split, e in frozen_entries(self.objects)
                if (e["task_id"], e["task_version"]) == (task_id, task_version)]

    @activity.defn(name="extract_pattern")
    async def extract_pattern(self, source: SourceTask) -> TaskPattern:
        summary = cast(dict, self.store.get_json(source.summary))
        async with model_session(MODEL_ROLE, USAGE_ROLE, budget=self.budget) as client:
            try:
                pattern, messages = await ask_json(client, pattern_messages(summary), parse_pattern)
            except ReplyInvalid as exc:
                raise _unreadable(f"pattern of {source.source_id}",
                                  exc, store_transcript(self.store, client, exc.messages)) from None
            transcript = store_transcript(self.store, client, messages, source_id=source.source_id)
            ref = self.store.put_json({"source_id": source.source_id, "pattern": pattern,
                                       "transcript": transcript.as_dict()})
            return TaskPattern(source.source_id, ref, client.usage)

    @activity.defn(name="generate_candidates")
    async def generate_candidates(self, req: CandidateRequest) -> CandidateSet:
        summary = cast(dict, self.store.get_json(req.source.summary))
        pattern = cast(dict, self.store.get_json(req.pattern.pattern))["pattern"]
        async with model_session(MODEL_ROLE, USAGE_ROLE, budget=self.budget) as client:
            try:
                raws, messages = await ask_json(
                    client, candidate_messages(summary, pattern, req.k), parse_candidates)
            except ReplyInvalid as exc:
                raise _unreadable(f"candidates from {req.source.source_id}",
                                  exc, store_transcript(self.store, client, exc.messages)) from None
            transcript = store_transcript(self.store, client, messages,
                                          source_id=req.source.source_id)
            usage = client.usage
        software = (summary.get("task") or {}).get("software") or {"name": "blender", "version": "5.2"}
        candidates, rejected, seen = [], [], {summary["source_id"]}
        # Each derived seed declares its source's lineage, the source appended, pinned to the
        # split the derivation joins (a summary read before lineage: the source is a root).
        lineage = derive_lineage(
            summary.get("lineage") or {"root_seed": summary["source_id"], "family": summary["source_id"]},
            summary.get("parent") or {"task_id": summary["source_id"]}, req.joins_split)
        for index, raw in enumerate(raws):
            seed_id = raw.get("seed_id") if isinstance(raw, dict) else None
            seed_id = seed_id if isinstance(seed_id, str) else f"candidate-{index + 1}"
            try:
                if index >= req.k:
                    raise ValueError(f"beyond the {req.k} candidates asked for")
                if seed_id in seen:
                    raise ValueError(f"duplicate seed_id {seed_id!r}")
                files, plan = build_candidate(
                    raw, source_id=summary["source_id"], source_sha256=req.source.summary.sha256,
                    software=software, license=summary["license"], lineage=lineage)
            except ValueError as exc:
                rejected.append({"seed_id": seed_id, "reason": str(exc)})
                continue
            seen.add(seed_id)
            tree = self._put_files(files)
            # The transcript travels with the plan: CandidateSet has no field of its own for it.
            candidates.append(SeedCandidate(seed_id, raw["title"], tree,
                                            {**plan, "transcript": transcript.as_dict()}))
        return CandidateSet(candidates, rejected, usage)

    def _put_files(self, files: dict[str, str]) -> BlobRef:
        refs = {rel: self.store.put_bytes(text.encode()) for rel, text in files.items()}
        return self.store.put_tree_manifest({rel: {"sha256": ref.sha256, "size": ref.size}
                                             for rel, ref in refs.items()})

    def _candidate_profile(self, candidate: SeedCandidate) -> dict:
        files = {rel: self.store.get_bytes(self.store.ref_for(e["sha256"], e["size"])).decode()
                 for rel, e in self.store.tree_entries(candidate.files).items() if rel.endswith(".md")}
        return profile_of_candidate(files, candidate.plan)

    @activity.defn(name="measure_novelty")
    def measure_novelty(self, req: NoveltyInput) -> list[NoveltyVerdict]:
        """Each candidate against the source and every earlier accepted candidate, so of two
        near-identical candidates the first survives."""
        source = profile_of_source(cast(dict, self.store.get_json(req.source.summary)))
        accepted: dict[str, dict] = {}
        verdicts = []
        for candidate in req.candidates:
            mine = self._candidate_profile(candidate)
            sims = {"source": similarity(mine, source)}
            sims |= {seed_id: similarity(mine, other) for seed_id, other in accepted.items()}
            closest = max(sims, key=lambda k: sims[k]["combined"])
            top = sims[closest]["combined"]
            ok = top < req.threshold
            reason = "" if ok else (f"near-duplicate of {closest}: combined similarity {top:.4f}"
                                    f" >= threshold {req.threshold}")
            if ok:
                accepted[candidate.seed_id] = mine
            verdicts.append(NoveltyVerdict(candidate.seed_id, ok, sims, top, reason))
        return verdicts

    @activity.defn(name="write_derived_seed")
    def write_derived_seed(self, req: WriteSeedInput) -> str:
        """The candidate's seed folder at <out_dir>/<seed_id>, written whole or not at all; a
        rerun finds identical content and reuses it."""
        out = self._path(req.out_dir) if req.out_dir else self.derived_root / req.run
        dest = out / req.candidate.seed_id
        out.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{req.candidate.seed_id}-", dir=out))
        try:
            self.store.materialize_tree(req.candidate.files, tmp)
            tmp.chmod(0o755)  # mkdtemp's 0700 would stay on the published folder
            try:
                os.rename(tmp, dest)  # fails when dest exists (non-empty): compare below
                return str(dest)
            except OSError:
                if not dest.is_dir():
                    raise
            if not _same_tree(tmp, dest):
                raise ApplicationError(
                    f"{dest}: a different seed folder already exists; remove it or choose another "
                    f"out_dir", type=DERIVED_SEED_CONFLICT, non_retryable=True)
            return str(dest)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @activity.defn(name="write_derivation_record")
    def write_derivation_record(self, req: DerivationRecordInput) -> BlobRef:
        tasks = [dataclasses.asdict(t) for t in req.tasks]
        status = {t["seed_id"]: t["status"] for t in tasks}
        return self.store.put_json({
            "record": "task-derivation",
            "threshold": req.threshold,
            "sources": [dataclasses.asdict(s) for s in req.sources],
            "candidates": [{**dataclasses.asdict(v), "status": status.get(v.seed_id)}
                           for v in req.novelty],
            "tasks": tasks,
            "statuses": dict(sorted(Counter(t["status"] for t in tasks).items())),
            "usage": [dataclasses.asdict(u) for u in req.usage],
        })


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def _same_tree(a: Path, b: Path) -> bool:
    names = _files(a)
    if names != _files(b):
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, names, shallow=False)
    return not (mismatch or errors)
