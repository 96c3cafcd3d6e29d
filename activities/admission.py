"""Stage 02: admit a seed folder — validate it whole, privacy-check it, then hash every file
into the store.

The one place a seed is validated: the checked draft and the run's settings travel on in the
result (`DraftPlan`, `RunPlan`), so no later stage parses the draft again. Validation and the
privacy scan (docs/privacy.md) happen before the first write, so a bad seed leaves the store
untouched.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from temporalio import activity
from temporalio.exceptions import ApplicationError

from blender.runtime import blender_version, version_problem
from contracts.errors import BLENDER_VERSION_MISMATCH, INVALID_SEED, PRIVACY_FINDING, invalid_seed
from contracts import lineage
from activities.policies import policy_from_name
from storage.content import ContentStore
from contracts.digests import load_pipeline_config, pipeline_ref
from contracts.payloads.admission import (AdmissionInput, AdmissionResult, CalibrationSample, DraftPlan,
                                          PipelineDefaults, RunPlan)
from contracts.payloads.common import ProductionOptions
from contracts.seed_check import CheckedSeed, scaffold_markers
from verifiers.seed_check import check_seed_dir
from contracts.validation import ContractError
from drafting.ledger import check_ledger
from privacy.checkpoints import check_admission
from privacy.report import PrivacyReport
from seed_families.expansion import check_family
from verifiers.mutation_testing import check_allowed
from verifiers.profiles import ScoringProfileMismatch, check_task_profile
from verifiers.scorer import JUDGES as VL_JUDGES
from verifiers.vl import load_judge_config

REVIEW_MODES = ("automatic", "human")  # stage 05: the automatic checks alone, or a person too


class AdmissionActivities:
    def __init__(self, store: ContentStore, project_root: Path):
        self.store = store
        self.project_root = project_root

    def resolve_seed(self, seed: str) -> Path:
        path = Path(seed)
        if not path.is_absolute():
            path = self.project_root / path
        if not (path / "seed.json").is_file():
            raise invalid_seed(f"{seed}/seed.json: <file>: no seed.json in seed folder {path}")
        return path.resolve()

    @activity.defn(name="admit_seed")
    def admit_seed(self, req: AdmissionInput) -> AdmissionResult:
        if req.seed_tree is None:
            return self._admit(req, self.resolve_seed(req.seed))
        # A seed in the store (a derived one): whichever worker wrote its folder, this one reads
        # the same bytes -- no worker's disk is shared state.
        with tempfile.TemporaryDirectory(prefix="arkevo-seed-") as tmp:
            seed_dir = Path(tmp) / (Path(req.seed).name or "seed")
            self.store.materialize_tree(req.seed_tree, seed_dir)
            return self._admit(req, seed_dir)

    def _admit(self, req: AdmissionInput, seed_dir: Path) -> AdmissionResult:
        verdict = judge_seed(seed_dir, req.seed, self.store)
        if verdict.checked is None:  # the seed's own documents first, then the run's options
            raise verdict.findings[0].error()
        run = self.run_plan(req.options or ProductionOptions())
        if verdict.findings:
            raise verdict.findings[0].error()
        checked, privacy, draft = verdict.checked, verdict.privacy, verdict.draft
        assert checked is not None and privacy is not None  # no finding: every check ran
        manifest = checked.manifest
        runtime = blender_version()
        by_model = checked.task is None
        files = verdict.files
        tree = self.store.put_tree(seed_dir, files)
        entries = self.store.tree_entries(tree)
        record = {
            "seed_id": manifest.seed_id,
            "seed_path": req.seed,
            "admitted_at": req.admitted_at,
            "runtime": {"blender": runtime},  # the Blender admission checked the seed against
            "seed_tree": {"key": tree.key, "sha256": tree.sha256},
            "provenance": manifest.provenance.model_dump(),
            # the split key of dataset revisions, resolved once (contracts/lineage.py)
            "lineage": lineage.resolve(manifest.seed_id, manifest.provenance.model_dump()),
            "sanitization_policy": manifest.sanitization_policy.model_dump(),
            "materials": [
                {**m.model_dump(), **entries[m.path]} for m in manifest.materials
            ],
            "draft_files": {rel: entries[rel] for rel in checked.draft_files},
            "authoring": "model" if by_model else "human",
            "privacy": privacy.as_dict(),
        }
        record_ref = self.store.put_json(record)
        activity.logger.info("admitted seed %s: %d files (draft by %s)", manifest.seed_id,
                             len(files), "model" if by_model else "human")
        return AdmissionResult(
            seed_id=manifest.seed_id,
            task_id=manifest.seed_id if draft is None else draft.task_id,
            seed_tree=tree,
            admission_record=record_ref,
            material_count=len(manifest.materials),
            reference_project=checked.reference_project,
            start_mode=manifest.start_mode,
            run=run,
            draft=draft,
            authoring="model" if by_model else "human",
            privacy_pending=list(privacy.pending),
        )

    @activity.defn(name="pipeline_defaults")
    def pipeline_defaults(self) -> PipelineDefaults:
        """contracts/pipeline.json as the workers have it (workflows read no files)."""
        c = load_pipeline_config(self.project_root)
        return PipelineDefaults(list(c.pilot_policies), list(c.evaluation_policies), c.k,
                                float(c.calibration_reference_min), float(c.calibration_margin),
                                c.vl_judge, c.max_author_rounds,
                                float(c.derivation_similarity_threshold))

    def run_plan(self, opts: ProductionOptions) -> RunPlan:
        """Defaults from contracts/pipeline.json, overridden by the run's options; a bad option
        is bad input, named like a seed field."""
        config = load_pipeline_config(self.project_root)
        plan = RunPlan(
            pilot_policies=opts.pilot_policies or list(config.pilot_policies),
            evaluation_policies=opts.evaluation_policies or list(config.evaluation_policies),
            k=config.k if opts.k is None else opts.k,
            reference_min=float(config.calibration_reference_min),
            margin=float(config.calibration_margin),
            vl_judge=opts.vl_judge or config.vl_judge,
            pipeline_ref=pipeline_ref(self.project_root).model_dump(),
            max_author_rounds=(config.max_author_rounds if opts.max_author_rounds is None
                               else opts.max_author_rounds),
            review=opts.review or "automatic",
            review_timeout_sec=(RunPlan.review_timeout_sec if opts.review_timeout_sec is None
                                else opts.review_timeout_sec),
        )
        if plan.review not in REVIEW_MODES:
            raise invalid_seed(f"options.review: {plan.review!r} is not one of {', '.join(REVIEW_MODES)}")
        if not isinstance(plan.review_timeout_sec, int) or plan.review_timeout_sec < 1:
            raise invalid_seed(f"options.review_timeout_sec: must be a whole number of seconds >= 1, "
                               f"got {plan.review_timeout_sec!r}")
        if plan.k < 1:
            raise invalid_seed(f"options.k: must be at least 1, got {plan.k}")
        if plan.max_author_rounds < 1:
            raise invalid_seed(f"options.max_author_rounds: must be at least 1, got "
                               f"{plan.max_author_rounds}")
        if plan.vl_judge not in VL_JUDGES:
            raise invalid_seed(f"options.vl_judge: {plan.vl_judge!r} is not one of {', '.join(VL_JUDGES)}")
        for option in ("pilot_policies", "evaluation_policies"):
            for index, name in enumerate(getattr(plan, option)):
                try:
                    policy_from_name(name)
                except ValueError as e:
                    raise invalid_seed(f"options.{option}[{index}]: {e}") from e
        return plan


@dataclass(frozen=True)
class SeedFinding:
    """One reason admission refuses a seed: the named error it raises (`error_type`) and its
    message, "<seed>/<file>: <field>: <reason>" (a privacy finding: "privacy finding in
    <file>:<line>:<col>: rule ..."), with the file and field split out for a reader."""

    error_type: str  # InvalidSeed | BlenderVersionMismatch | PrivacyFinding
    message: str
    file: str = ""
    field: str = ""
    details: dict | None = None

    def error(self) -> ApplicationError:
        return ApplicationError(self.message, *([self.details] if self.details else []),
                                type=self.error_type, non_retryable=True)

    def as_dict(self) -> dict:
        return {"error_type": self.error_type, "file": self.file, "field": self.field,
                "message": self.message}


@dataclass
class SeedVerdict:
    """What admission decides about a seed folder before anything is stored: every finding, in
    the order admission meets them (it raises the first), and, when there is none, what it
    stores and carries on."""

    findings: list[SeedFinding] = field(default_factory=list)
    checked: CheckedSeed | None = None
    draft: DraftPlan | None = None
    privacy: PrivacyReport | None = None
    files: list[str] = field(default_factory=list)

    @property
    def admitted(self) -> bool:
        return not self.findings


def judge_seed(seed_dir: Path, seed: str, store: ContentStore | None) -> SeedVerdict:
    """Every check of stage 02 on `seed_dir` (named `seed` in messages), writing nothing: the
    whole-seed check, the Blender version, the draft against the scoring profile and judge,
    the requirement ledger and the privacy scan. A later check that needs an earlier one's
    result (the checked seed) is not run when that one failed; the others all are, so an
    author sees every finding at once (`arkevo seed check`). `store`: cached .blend text
    extractions for the privacy scan (None: a .blend's texts are pending, as on a new store)."""
    verdict = SeedVerdict()
    if markers := scaffold_markers(seed_dir):  # a scaffold's parts still to write, before the rest
        verdict.findings = [SeedFinding(INVALID_SEED, f"{seed}/{rel}: line {line}: still to write: {what}",
                                        rel, f"line {line}") for rel, line, what in markers]
        return verdict
    try:
        checked = check_seed_dir(seed_dir)
    except ContractError as e:
        verdict.findings.append(_finding(INVALID_SEED, str(e), seed, e.file, e.field, seed_dir))
        return verdict
    verdict.checked = checked
    manifest = checked.manifest
    accepts = manifest.software.accepts
    if problem := version_problem(manifest.software.version, (accepts.min, accepts.max) if accepts else None,
                                  blender_version()):
        field_name = f"software.{'accepts' if accepts else 'version'}"
        verdict.findings.append(SeedFinding(BLENDER_VERSION_MISMATCH, f"{seed}/seed.json: {field_name}: {problem}",
                                            "seed.json", field_name))
    if checked.task is not None:  # no draft (or "authoring": "model"): the model writes it in 03
        try:
            verdict.draft = draft_plan(checked, seed)
        except ApplicationError as e:
            verdict.findings.append(_finding(INVALID_SEED, e.message, seed))
        if "draft/ledger.json" in checked.draft_files:  # optional for a human draft; checked if there
            for finding in check_ledger(checked.seed_dir, manifest, checked.task):
                verdict.findings.append(SeedFinding(
                    INVALID_SEED, f"{seed}/{finding.file}: {finding.field or '<file>'}: {finding.message}",
                    finding.file or "", finding.field or "<file>"))
    verdict.files = sorted(set(checked.material_paths) | set(checked.draft_files) | {"seed.json"})
    # Privacy checkpoint 1 of 3: every file the seed brings in, before anything is stored. A
    # .blend material whose texts were never read (only Blender can, in the sandbox) is
    # pending, carried on for review.
    try:
        verdict.privacy = check_admission(seed_dir, verdict.files, manifest.sanitization_policy, store)
    except ContractError as e:  # the named policy is missing or broken
        verdict.findings.append(SeedFinding(INVALID_SEED, f"{seed}/seed.json: sanitization_policy: {e}",
                                            "seed.json", "sanitization_policy"))
    except ApplicationError as e:
        report = (e.details or [{}])[0]
        verdict.findings.append(SeedFinding(e.type or PRIVACY_FINDING, e.message,
                                            ", ".join(sorted({f["file"] for f in report.get("findings", [])})),
                                            "", report))
    return verdict


def family_findings(seed_dir: Path, seed: str, checked: CheckedSeed) -> list[SeedFinding]:
    """A family root's own check, after admission's (which judges the root as the seed it is:
    `family/` is never admitted): the root must be the family at its defaults, and every instance
    must render (seed_families.expansion.check_family). `arkevo seed check` and `expand` run it;
    a dataset revision that produces the instances refuses its spec on the same findings."""
    if checked.manifest.family is None:
        return []
    doc = json.loads((seed_dir / "seed.json").read_text())
    return [SeedFinding(INVALID_SEED, f"{seed}/{mistake}", mistake.file, mistake.field)
            for mistake in check_family(seed_dir, doc, checked.manifest.family)]


def _finding(error_type: str, message: str, seed: str, file: str | None = None, field_name: str | None = None,
             seed_dir: Path | None = None) -> SeedFinding:
    """A finding from a "<file>: <field>: <reason>" message; the file relative to the seed."""
    if file is None:
        file, _, rest = message.partition(": ")
        field_name = rest.partition(": ")[0]
    for prefix in (str(seed_dir) + "/" if seed_dir else None, seed.rstrip("/") + "/"):
        if prefix and file.startswith(prefix):
            file = file[len(prefix):]
    return SeedFinding(error_type, message, file, field_name or "")


def draft_plan(checked: CheckedSeed, seed: str) -> DraftPlan:
    """The checked draft, plus the checks that need the verifier's registry: the weights agree
    with the named scoring profile, and a VL-weighted task has a readable judge.json."""
    task = checked.task
    if task is None:
        raise invalid_seed(f"{seed}/draft/task.json: <file>: the seed has no draft")
    task_doc = task.model_dump(mode="json")
    try:
        profile = check_task_profile(task_doc)
    except (ScoringProfileMismatch, KeyError) as e:
        raise invalid_seed(f"{seed}/draft/task.json: scoring_profile: {e}") from e
    try:
        check_allowed(task_doc, f"{seed}/draft/task.json")
    except ValueError as e:
        raise invalid_seed(str(e)) from e
    if profile.uses_vl:
        judge = checked.seed_dir / "draft" / "judge.json"
        if not judge.is_file():
            raise invalid_seed(f"{seed}/draft/judge.json: <file>: profile {profile.key} weights "
                               "the VL channel, so the draft needs judge questions")
        try:
            questions = {q.id: q for q in load_judge_config(judge).questions}
        except (ValueError, KeyError, TypeError) as e:
            raise invalid_seed(f"{seed}/draft/judge.json: {e}") from e
        _check_vl_criteria(task_doc["criteria"], questions, f"{seed}/draft/task.json")
    draft_files = set(checked.draft_files)
    samples = [CalibrationSample("reference", "reference", "oracle"),
               CalibrationSample("input", "input", "nop")]
    for kind in ("defect", "variant"):  # gaming samples attack the grader: mutation testing's
        prefix = f"draft/calibration/{kind}s/"
        for rel in sorted(f for f in draft_files if f.startswith(prefix) and f.endswith(".py")
                          and "/" not in f[len(prefix):]):
            name = Path(rel).stem
            samples.append(CalibrationSample(f"{kind}:{name}", kind,
                                             f"script:private/{rel.removeprefix('draft/')}"))
    return DraftPlan(
        task_id=task.task_id,
        instruction=task.instruction,
        public_attachments=list(task.public_attachments),
        workflow_primary=task.workflow_primary,
        profession_primary=task.profession_primary,
        scoring_profile=profile.ref(),
        verification=task_doc["verification"],
        has_task_probes="draft/task_probes.py" in draft_files,
        calibration_samples=samples,
    )


def _check_vl_criteria(criteria: list[dict], questions: dict, source: str) -> None:
    """Each VL criterion names one judge question (method `judge_<id>`, e.g. judge_a for
    question A) with its weight, and every question has its criterion: the task says what the
    judge grades."""
    by_method = {f"judge_{qid.lower()}": qid for qid in questions}
    named = set()
    for index, c in enumerate(criteria):
        if c["channel"] != "vl":
            continue
        qid = by_method.get(c["method"])
        if qid is None:
            raise invalid_seed(f"{source}: criteria[{index}].method ({c['id']}): {c['method']!r} "
                               f"names no judge question; expected one of {sorted(by_method)}")
        if abs(float(c["weight"]) - questions[qid].weight) > 1e-9:
            raise invalid_seed(f"{source}: criteria[{index}].weight ({c['id']}): {c['weight']} but "
                               f"judge.json question {qid} weighs {questions[qid].weight}")
        named.add(qid)
    if missing := sorted(set(questions) - named):
        raise invalid_seed(f"{source}: criteria: no vl criterion for judge question(s) {missing}")
