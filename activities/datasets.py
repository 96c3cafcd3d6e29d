"""Dataset revisions (docs/datasets.md): open one for production, record each seed's outcome.

Opening validates the spec once, at the edge: a bad spec or a seed list that does not resolve
is a non-retryable `InvalidDatasetSpec` naming the file and field, and writes nothing; a spec
that differs from the revision's stored dataset.json is `DatasetSpecConflict`; a frozen
revision is `DatasetRevisionFrozen` (changes need a new revision).
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path
from typing import cast

from temporalio import activity
from temporalio.exceptions import ApplicationError

from contracts import lineage
from contracts.errors import (DATASET_REVISION_FROZEN, DATASET_SPEC_CONFLICT,
                               INVALID_DATASET_SPEC)
from contracts.digests import sha256_hex
from contracts.models import DatasetSpec, SeedManifest
from contracts.payloads.common import ProductionOptions
from contracts.payloads.common import BlobRef, DatasetRef
from contracts.payloads.datasets import (READINESS_GAPS, DatasetPlan, DatasetSeed, FreezeReadiness,
                                         OpenRevisionInput, SeedOutcome)
from contracts.validation import ContractError, load_json_file, validate_document
from dataset_revisions.bands import check_band_configs
from dataset_revisions.chain import ChainLink, read_chain
from dataset_revisions.freeze import freeze_check
from dataset_revisions.layout import RevisionKeys
from dataset_revisions.production_order import Published, SeedFacts, production_order
from dataset_revisions.revision import is_frozen
from storage.content import ContentStore
from storage.objects import ObjectStore
from publications.layout import document_key
from seed_families.expansion import FamilyError, Instance, check_family, instances


def _invalid(message: str) -> ApplicationError:
    return ApplicationError(message, type=INVALID_DATASET_SPEC, non_retryable=True)


def family_of(manifest: SeedManifest) -> str:
    """The seed's lineage family (contracts/lineage.py): what the selection keeps apart and caps."""
    return lineage.resolve(manifest.seed_id, manifest.provenance.model_dump(mode="json"))["family"]


def spec_bytes(doc: dict) -> bytes:
    """Canonical (sorted keys): the same spec gives the same bytes however it travelled (a
    Temporal payload sorts keys, a file need not)."""
    return json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=True).encode() + b"\n"


def readiness(ready: bool, candidates: int, gaps: list) -> FreezeReadiness:
    """A freeze-check as the production's history keeps it: the first READINESS_GAPS gaps and a
    count by rule of the rest. Every check is an activity result in the history, and a revision
    of N tasks can have N gaps (unmeasured bands), so whole lists would grow it as N squared."""
    lines = [f"{gap.rule}: {gap.message}" for gap in gaps[:READINESS_GAPS]]
    rest = Counter(gap.rule for gap in gaps[READINESS_GAPS:])
    if rest:
        lines.append("... and " + ", ".join(f"{n} more {rule}" for rule, n in sorted(rest.items())))
    return FreezeReadiness(ready, candidates, lines, len(gaps))


class DatasetActivities:
    def __init__(self, objects: ObjectStore, project_root: Path, store: ContentStore | None = None):
        self.objects = objects
        self.project_root = project_root
        self.store = store  # for freeze readiness: the export checkpoint reads the content store

    def _read_spec(self, req: OpenRevisionInput) -> tuple[dict, str]:
        if (req.spec is None) == (req.spec_path is None):
            raise _invalid("DatasetProduction needs exactly one of `spec` (the document) and "
                           "`spec_path` (its file, relative to the worker's project root)")
        if req.spec is not None:
            return req.spec, "DatasetProduction input spec"
        assert req.spec_path is not None  # exactly one of the two, checked above
        path = self.project_root / req.spec_path
        try:
            return load_json_file(path, req.spec_path), req.spec_path
        except ContractError as e:
            raise _invalid(str(e)) from e

    def _seeds(self, spec, source: str) -> list[tuple[DatasetSeed, SeedManifest]]:
        if isinstance(spec.seeds, list):
            paths = [(f"seeds[{i}]", p) for i, p in enumerate(spec.seeds)]
        else:
            folder = self.project_root / spec.seeds.folder
            if not folder.is_dir():
                raise _invalid(f"{source}: seeds.folder: {spec.seeds.folder} is not a folder")
            paths = [("seeds.folder", f"{spec.seeds.folder}/{d.name}")
                     for d in sorted(folder.iterdir()) if (d / "seed.json").is_file()]
            if not paths:
                raise _invalid(f"{source}: seeds.folder: no seed (a folder with seed.json) in "
                               f"{spec.seeds.folder}")
        seeds: list[tuple[DatasetSeed, SeedManifest]] = []
        expanded: list[tuple[str, Instance, SeedManifest]] = []
        seen: dict[str, str] = {}
        for field, rel in paths:
            seed_json = self.project_root / rel / "seed.json"
            if not seed_json.is_file():
                raise _invalid(f"{source}: {field}: {rel} has no seed.json")
            try:
                doc = load_json_file(seed_json, f"{rel}/seed.json")
                manifest = cast(SeedManifest, validate_document("seed", doc, f"{rel}/seed.json"))
            except ContractError as e:
                raise _invalid(f"{source}: {field}: {e}") from e
            if manifest.seed_id in seen:
                raise _invalid(f"{source}: {field}: {rel} has seed_id {manifest.seed_id!r}, as "
                               f"{seen[manifest.seed_id]} does")
            seen[manifest.seed_id] = rel
            seeds.append((DatasetSeed(rel, manifest.seed_id, family_of(manifest)), manifest))
            if manifest.family is not None:
                count = min(manifest.family.count, spec.family_instances or 0)
                for name, inst, inst_manifest in self._expand(rel, doc, manifest, count, f"{source}: {field}"):
                    if inst.seed_id in seen:
                        raise _invalid(f"{source}: {field}: instance {name} has seed_id {inst.seed_id!r}, "
                                       f"as {seen[inst.seed_id]} does")
                    seen[inst.seed_id] = name
                    expanded.append((name, inst, inst_manifest))
                    seeds.append((DatasetSeed(name, inst.seed_id, family_of(inst_manifest)), inst_manifest))
        # Only now, with every seed and instance valid, does anything reach the store.
        trees = {name: self._put_instance(inst) for name, inst, _ in expanded}
        return [(dataclasses.replace(seed, seed_tree=trees[seed.seed]) if seed.seed in trees else seed, m)
                for seed, m in seeds]

    def _expand(self, rel: str, doc: dict, root: SeedManifest, count: int,
                where: str) -> list[tuple[str, Instance, SeedManifest]]:
        """The first `count` instances of the family at `rel` ("<rel>#NNN"), each validated as a
        seed of its own; in memory, nothing stored."""
        if count == 0:
            return []
        if self.store is None:
            raise _invalid(f"{where}: {rel} is a seed family: expanding it needs the content store")
        assert root.family is not None
        folder = self.project_root / rel
        if problems := check_family(folder, doc, root.family):  # the root must be the family at its defaults
            raise _invalid(f"{where}: {rel}/{problems[0]}")
        try:
            made = instances(folder, doc, root.family, count)
        except FamilyError as e:
            raise _invalid(f"{where}: {rel}/{e}") from e
        out = []
        for inst in made:
            name = f"{rel}#{inst.index:03d}"
            try:
                manifest = cast(SeedManifest, validate_document(
                    "seed", json.loads(inst.files["seed.json"]), f"{name}/seed.json"))
            except ContractError as e:
                raise _invalid(f"{where}: {e}") from e
            out.append((name, inst, manifest))
        return out

    def _put_instance(self, inst: Instance) -> BlobRef:
        """An instance's files into the content store, as a tree TaskProduction's admission reads
        (any worker, the same bytes); the same root gives the same tree, so re-opening the
        revision stores nothing new."""
        assert self.store is not None
        entries = {}
        for path, data in inst.files.items():
            ref = self.store.put_bytes(data)
            entries[path] = {"sha256": ref.sha256, "size": ref.size}
        return self.store.put_tree_manifest(entries)

    def _ordered(self, seeds: list[tuple[DatasetSeed, SeedManifest]], spec: DatasetSpec,
                 links: list[ChainLink]) -> list[DatasetSeed]:
        """The gaps first (dataset_revisions/production_order.py), counting what `links` (the
        revision's published links) hold; published seeds keep their place at the front, where
        the workflow skips them."""
        published = {link.seed_id for link in links}
        held = [Published(link.family, link.workflow_group, link.profession_primary)
                for link in {link.task_id: link for link in links}.values()]  # the latest of each task
        facts = {seed.seed_id: seed for seed, _ in seeds}
        todo = [SeedFacts(seed.seed_id, seed.family, m.workflow_primary.split("-", 1)[0], m.profession_primary)
                for seed, m in seeds if seed.seed_id not in published]
        order = production_order(todo, held, spec.max_per_source, spec.selection_seed)
        return [seed for seed, _ in seeds if seed.seed_id in published] + [facts[f.seed_id] for f in order]

    @activity.defn(name="open_dataset_revision")
    def open_dataset_revision(self, req: OpenRevisionInput) -> DatasetPlan:
        doc, source = self._read_spec(req)
        try:
            spec = cast(DatasetSpec, validate_document("dataset-spec", doc, source))
            # A band naming a config no registry has could never be measured: refused before
            # anything is stored (UnknownBandConfig names `bands.<split>.<field>`).
            check_band_configs(spec, source)
        except ContractError as e:
            raise _invalid(str(e)) from e
        options = None
        if spec.options is not None:
            try:
                options = ProductionOptions(**spec.options)
            except TypeError as e:
                raise _invalid(f"{source}: options: {e}") from e
        seeds = self._seeds(spec, source)
        keys = RevisionKeys(spec.namespace, spec.revision)
        data = spec_bytes(spec.model_dump(mode="json"))
        if not self.objects.put_if_absent(keys.spec, data):
            stored = self.objects.get(keys.spec)
            if stored != data:
                raise ApplicationError(
                    f"{source}: dataset {spec.namespace} revision {spec.revision} exists with another "
                    f"spec ({self.objects.location(keys.spec)}); a revision's spec never changes: "
                    f"use a new revision", type=DATASET_SPEC_CONFLICT, non_retryable=True)
        if is_frozen(self.objects, keys):
            raise ApplicationError(
                f"dataset {spec.namespace} revision {spec.revision} is frozen "
                f"({self.objects.location(keys.manifest)}); a frozen revision is immutable: "
                f"use a new revision", type=DATASET_REVISION_FROZEN, non_retryable=True)
        links = [link for link in read_chain(self.objects, keys)
                 if self.objects.exists(document_key(link.publication_key))]
        published = {link.seed_id: link.publication_id for link in links}
        activity.logger.info("opened dataset %s/%s: %d seeds, %d already published", spec.namespace,
                             spec.revision, len(seeds), len(published))
        return DatasetPlan(namespace=spec.namespace, revision=spec.revision,
                           spec_sha256=sha256_hex(data), seeds=self._ordered(seeds, spec, links),
                           published=published, concurrency=spec.concurrency, options=options,
                           location=self.objects.location(keys.root),
                           stop_when_ready=bool(spec.stop_when_ready))

    @activity.defn(name="check_freeze_ready")
    def check_freeze_ready(self, ref: DatasetRef) -> FreezeReadiness:
        """`freeze-check` as the command runs it (with the export checkpoint and `verify`), so a
        production that stops when ready stops exactly where a freeze would pass. The export
        checkpoint and `verify` read every file of every publication: asked after each
        publication, they would make a production quadratic. They run only once the rest of
        freeze-check passes; until then the answer is no either way, with the rules' gaps."""
        keys = RevisionKeys(ref.namespace, ref.revision)
        report = freeze_check(self.objects, keys)
        if report.freeze_ready and self.store is not None:
            report = freeze_check(self.objects, keys, store=self.store)
        return readiness(report.freeze_ready, report.candidates, report.gaps)

    @activity.defn(name="record_seed_outcome")
    def record_seed_outcome(self, outcome: SeedOutcome) -> None:
        """The seed's latest outcome, for `arkevo dataset status` (a rerun replaces it)."""
        keys = RevisionKeys(outcome.namespace, outcome.revision)
        self.objects.replace(keys.outcome(outcome.seed_id),
                             json.dumps(outcome.__dict__, indent=2).encode() + b"\n")

    @activity.defn(name="record_seed_outcomes")
    def record_seed_outcomes(self, outcomes: list[SeedOutcome]) -> None:
        """Many at once (the seeds a ready revision deferred): one activity, not one each."""
        for outcome in outcomes:
            self.record_seed_outcome(outcome)
