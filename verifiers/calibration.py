"""Calibration as a reusable step: does the verifier separate good deliveries from bad ones?

    result = calibrate(Path("seeds/table-model/draft"), out_dir, profiles=[get_profile("blender-70-30")])
    result.require_passed()          # raises CalibrationFailed: freeze only when this holds

Samples: ``reference`` (the reference solution applied to the starting workspace), ``input``
(the untouched ``start.blend``), every ``defect:<name>`` and ``variant:<name>`` script under
``calibration/``.  Each becomes a delivery via ``blender/apply_script.py``, is
probed (warm bpy probe processes, at most ``parallel`` at a time), rendered (evidence cache)
and judged (the VL judge compares against the reference sample's renders), then scored under
every requested profile.  Deliveries are made and probed once; each profile only re-scores.

Expectations per profile, all of which must hold:

* reference: total >= ``reference_min`` (0.9) and success;
* variant: total >= the task's pass threshold and success;
* input and defects: not success, and total <= (lowest good total) - ``margin`` (0.2);
* no total may be null (a null total cannot show separation);
* the overall margin (defined below) is at least ``margin``.

``judge_samples`` is that judgement as a pure function of the graded samples (stdlib only);
``judge_profile`` and the Temporal pipeline's stage 05 (``activities/review.py``) both use it.

``margin`` of a profile = lowest total among reference + variants - highest total among input
+ defects; each sample's own margin is its distance to the other side.  Profiles with
calibrated params (``kuka-80-20``'s core-failure caps) get them chosen here and recorded.
Everything lands in ``<out>/private/validation/report.json`` (per sample and criterion:
score, measured, expected, detail, evidence; the VL answers; the evidence files, copied to
``private/validation/evidence/<sample>/`` with their sha256).

The seed's build script, the solution, every calibration script, the task's probes and the
deliveries they make run in the trial sandbox (``bpy_procs``; ``sandbox=LOCAL``, the CLI's
``--no-sandbox`` or ``ARKEVO_TRIAL_BACKEND=local`` run them unisolated).  A script that raises
is ``ScriptFailed`` naming every failing file and its exception.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from sandbox.script_run import LOCAL, ScriptIsolation
from verifiers import bpy_procs
from blender.runner import BlenderProcessError, ScriptFailed
from contracts.errors import unseen_parts_message
from verifiers.evidence import Evidence, EvidenceCache, rubric_names, sha256_file, unseen_parts
from verifiers.mutation_testing import allowed_operators, gaming_table, mutation_table
from verifiers.profiles import ScoringProfile, profile_of_task, score_record
from verifiers.scorer import ScoreOptions, Scorer, TaskBundle
from verifiers.vl import VLResult

REPORT_VERSION = "1"
# progress(stage, done, total): "deliveries", "probes", "operators" (mutation testing), "renders", "VL"
# as they advance.
StepCallback = Callable[[str, int, int], None]
KINDS = ("reference", "input", "defect", "variant")
# + gaming samples (draft/calibration/gaming/*.py): the author's own attacks on the grader,
# delivered and probed like the samples, then judged like the gaming operators
# (mutation_testing.gaming_table: no renders, no VL, not in the margin)
SAMPLE_FOLDERS = ("defect", "variant", "gaming")
GOOD = ("reference", "variant")


class CalibrationFailed(Exception):
    """An expectation did not hold: the task version must not be frozen."""


@dataclass(frozen=True)
class Sample:
    name: str  # reference | input | defect:<stem> | variant:<stem>
    kind: str
    script: Path | None  # None: the untouched start.blend

    @property
    def slug(self) -> str:
        return self.name.replace(":", "-")


def samples_of(bundle: TaskBundle) -> list[Sample]:
    out = [Sample("reference", "reference", bundle.solution), Sample("input", "input", None)]
    for kind in SAMPLE_FOLDERS:
        folder = "gaming" if kind == "gaming" else f"{kind}s"
        for script in sorted((bundle.draft / "calibration" / folder).glob("*.py")):
            out.append(Sample(f"{kind}:{script.stem}", kind, script))
    return out


@dataclass
class Measured:
    """A sample's delivery, probed, rendered and judged -- profile-independent."""

    sample: Sample
    delivery: Path
    delivery_sha256: str | None
    rule_report: dict
    evidence: Evidence | None = None
    vl: VLResult | None = None
    mutations: list[dict] | None = None  # reference only: the gaming operators' rows
    gaming: list[dict] | None = None  # reference only: the gaming samples' probe rows


@dataclass
class ProfileVerdict:
    profile: str
    verifier_version: str
    params: dict
    passed: bool
    margin: float | None
    min_good: float | None
    max_bad: float | None
    misses: list[str]
    sample_margins: dict[str, float | None]
    records: dict[str, dict] = field(repr=False)
    mutations: dict | None = None  # the mutation table (mutation_testing.mutation_table)
    gaming: dict | None = None  # the gaming samples' table (mutation_testing.gaming_table)


@dataclass
class CalibrationResult:
    task_id: str
    report_path: Path
    report: dict
    verdicts: dict[str, ProfileVerdict]
    measured: list[Measured] = field(default_factory=list, repr=False)

    @property
    def passed(self) -> bool:
        return all(v.passed for v in self.verdicts.values())

    @property
    def freeze_allowed(self) -> bool:
        return self.passed

    def require_passed(self) -> None:
        if not self.passed:
            misses = [f"{k}: {m}" for k, v in self.verdicts.items() for m in v.misses]
            raise CalibrationFailed(f"calibration of {self.task_id} failed: " + "; ".join(misses))


EPS = 1e-9  # float slack on the bound and margin comparisons


@dataclass(frozen=True)
class SampleJudgement:
    """One sample's expectation, whether it held, and its distance to the other side."""

    name: str
    kind: str
    expected: str
    met: bool
    margin: float | None  # good: total - max_bad; bad: min_good - total; None when unknown


@dataclass(frozen=True)
class Judgement:
    passed: bool
    misses: list[str]
    margin: float | None  # min_good - max_bad
    min_good: float | None
    max_bad: float | None
    required_margin: float
    samples: list[SampleJudgement]  # in the order of the rows

    @property
    def sample_margins(self) -> dict[str, float | None]:
        return {s.name: s.margin for s in self.samples}

    def sample(self, name: str) -> SampleJudgement:
        return next(s for s in self.samples if s.name == name)


def _expected(kind: str, threshold: float, reference_min: float, bound: float | None) -> str:
    if kind == "reference":
        return f"total >= {reference_min} and success"
    if kind == "variant":
        return f"total >= {threshold} and success"
    return "not success" + (f" and total <= {bound:.4f}" if bound is not None else "")


def judge_samples(rows: list[Mapping], *, pass_threshold: float, reference_min: float,
                  margin: float) -> Judgement:
    """Judge graded calibration samples against their expectations (pure, stdlib only).

    Each row: ``name``, ``kind`` (reference | input | defect | variant), ``total`` (float or
    None), ``success`` (bool or None), ``criteria`` ([{id, passed}, ...]) and ``null_reason``
    (why ``total`` is None).  The calibration step and the pipeline's stage 05 both judge
    with this; see the module docstring for the expectations."""
    names = [r["name"] for r in rows]
    if len(set(names)) != len(names):
        raise ValueError(f"sample names are not unique: {names}")
    for r in rows:
        if r["kind"] not in KINDS:
            raise ValueError(f"sample {r['name']!r}: unknown kind {r['kind']!r} (expected one of {KINDS})")
    good = [r["total"] for r in rows if r["kind"] in GOOD and r["total"] is not None]
    bad = [r["total"] for r in rows if r["kind"] not in GOOD and r["total"] is not None]
    min_good, max_bad = (min(good) if good else None), (max(bad) if bad else None)
    bound = None if min_good is None else min_good - margin
    misses: list[str] = []
    samples: list[SampleJudgement] = []
    for r in rows:
        name, kind, total = r["name"], r["kind"], r["total"]
        expected = _expected(kind, pass_threshold, reference_min, bound)
        if total is None:
            misses.append(f"sample {name!r}: total is null ({r.get('null_reason')})")
            samples.append(SampleJudgement(name, kind, expected, False, None))
            continue
        criteria = r.get("criteria") or []
        if kind in GOOD:
            floor = reference_min if kind == "reference" else pass_threshold
            met = total >= floor and bool(r["success"])
            own = None if max_bad is None else round(total - max_bad, 6)
        else:
            met = not r["success"] and (bound is None or total <= bound + EPS)
            own = None if min_good is None else round(min_good - total, 6)
        samples.append(SampleJudgement(name, kind, expected, met, own))
        if not met:
            if kind in GOOD:
                what, ids = "failed criteria", [c["id"] for c in criteria if not c["passed"]]
            else:
                what, ids = "criteria that did not catch it", [c["id"] for c in criteria if c["passed"]]
            misses.append(f"sample {name!r} scored {total:.3f} (success {r['success']}), expected "
                          f"{expected} ({what}: {', '.join(ids) or '-'})")
    overall = None if min_good is None or max_bad is None else round(min_good - max_bad, 6)
    if overall is not None and overall < margin - EPS:
        misses.append(f"margin {overall:.3f} < {margin}")
    return Judgement(not misses, misses, overall, min_good, max_bad, margin, samples)


def judge_profile(profile: ScoringProfile, scorer: Scorer, measured: list[Measured], *, margin: float,
                  reference_min: float, params: dict | None = None) -> ProfileVerdict:
    task = scorer.task
    threshold = float(task["verification"]["pass_threshold"])
    if params is None:
        params = profile.calibrate_params([(m.sample.kind, m.rule_report, m.vl) for m in measured], task, margin)
    scorer.options.profile_params = params
    vv = scorer.verifier_version()
    records = {m.sample.name: score_record(profile, m.rule_report, m.vl, task, verifier_version=vv, params=params,
                                           evidence=m.evidence.summary() if m.evidence else None)
               for m in measured}
    judgement = judge_samples(
        [{"name": m.sample.name, "kind": m.sample.kind, "total": r["total"], "success": r["success"],
          "criteria": r["criteria"], "null_reason": r.get("total_null_reason")}
         for m in measured for r in (records[m.sample.name],)],
        pass_threshold=threshold, reference_min=reference_min, margin=margin)
    for s in judgement.samples:
        records[s.name]["expected"], records[s.name]["met"] = s.expected, s.met
    misses = list(judgement.misses)
    rows = next((m.mutations for m in measured if m.mutations is not None), None)
    mutations = None
    if rows is None:  # never frozen on an unattacked grader
        misses.append("mutation testing did not run (no reference delivery, or mutate=False)")
    else:
        mutations = mutation_table(rows, profile, task, params, allowed_operators(task))
        if mutations["survivors"]:
            misses.append(f"grader gameable: operators not killed: {', '.join(mutations['survivors'])}")
    reference = next((m for m in measured if m.sample.kind == "reference"), None)
    if profile.uses_vl and reference is not None and reference.evidence is not None \
            and not reference.evidence.error:
        if unseen := unseen_parts(reference.evidence.manifest, rubric_names(scorer.bundle.rubric),
                                  scorer.spec["hide"]):
            misses.append(f"evidence: {unseen_parts_message(unseen)}")
    gaming_rows = next((m.gaming for m in measured if m.gaming is not None), [])
    gaming = gaming_table(gaming_rows, profile, task, params)
    misses += gaming["misses"]
    return ProfileVerdict(profile.key, vv, params, not misses, judgement.margin, judgement.min_good,
                          judgement.max_bad, misses, judgement.sample_margins, records, mutations, gaming)


def _row(m: Measured, record: dict, margin: float | None, evidence_rel: dict[str, dict]) -> dict:
    return {
        "sample": m.sample.name, "kind": m.sample.kind,
        "script": m.sample.script.name if m.sample.script else None,
        "delivery_sha256": m.delivery_sha256,
        "rule_score": record["rule_score"], "vl_score": record.get("vl_score"),
        "total": record["total"], "total_null_reason": record.get("total_null_reason"),
        "success": record["success"], "core_failed": record["core_failed"], "cap_applied": record.get("cap_applied"),
        "expected": record["expected"], "met": record["met"], "margin": margin,
        "criteria": [{k: c.get(k) for k in ("id", "score", "passed", "measured", "expected", "detail", "evidence")}
                     for c in record["criteria"]],
        "vl": record.get("vl"),
        "evidence": {"key": m.evidence.key, "files": evidence_rel} if m.evidence else None,
    }


def _write_json_atomic(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _stepper(progress: StepCallback | None, stage: str, total: int) -> Callable[[], None]:
    """Reports `stage` at 0 of `total` now; the returned function reports one more step done.
    Thread-safe: the steps finish in worker threads."""
    if progress is None:
        return lambda: None
    lock, done = threading.Lock(), [0]
    progress(stage, 0, total)

    def step() -> None:
        with lock:
            done[0] += 1
            progress(stage, done[0], total)
    return step


def measure_samples(bundle: TaskBundle, scorer: Scorer, work: Path, *, start_blend: Path | None,
                    parallel: int, render: bool, progress: StepCallback | None = None,
                    mutate: bool = True) -> list[Measured]:
    """Deliveries (apply_script), rule reports (warm probes), the gaming operators on the
    reference delivery (in the same warm probe: open, apply, probe, re-open), evidence and VL
    answers."""
    start = Path(start_blend) if start_blend else bundle.build_start(work / "workspace", scorer.sandbox)
    samples = samples_of(bundle)
    deliveries = work / "deliveries"
    deliveries.mkdir(parents=True, exist_ok=True)
    delivered = _stepper(progress, "deliveries", len(samples))

    def deliver_one(s: Sample) -> Path | ScriptFailed:
        try:
            return bpy_procs.apply_script(start, cast(Path, s.script), deliveries / f"{s.slug}.blend",
                                          sandbox=scorer.sandbox)
        except ScriptFailed as exc:  # run the others too: the author sees every failing script
            return exc

    def deliver(batch: list[Sample]) -> list[Path | ScriptFailed]:
        """One Blender for a share of the draft's scripts (one author's: bpy_procs.apply_scripts);
        when one fails, each script of the share again on its own, so every failing one is named."""
        try:
            out: list[Path | ScriptFailed] = list(bpy_procs.apply_scripts(
                start, [(cast(Path, s.script), deliveries / f"{s.slug}.blend") for s in batch],
                sandbox=scorer.sandbox))
        except ScriptFailed:
            out = [deliver_one(s) for s in batch]
        for _ in batch:
            delivered()
        return out

    scripted = [s for s in samples if s.script is not None]
    share = max(1, parallel)
    batches = [scripted[k::share] for k in range(share) if scripted[k::share]]
    for _ in range(len(samples) - len(scripted)):
        delivered()
    with ThreadPoolExecutor(max(1, len(batches))) as pool:
        made = {s.name: out for batch, outs in zip(batches, pool.map(deliver, batches)) for s, out in zip(batch, outs)}
    outcomes = [made.get(s.name, start) for s in samples]
    if failed := [b for b in outcomes if isinstance(b, ScriptFailed)]:
        raise ScriptFailed([p for f in failed for p in f.problems], failed[0].log_tail)
    blends = cast(list[Path], outcomes)  # none failed
    reports = work / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    probes = [bpy_procs.WarmProbe(sandbox=scorer.sandbox) for _ in range(min(parallel, len(samples)))]
    probed = _stepper(progress, "probes", len(samples))
    try:
        def probe_one(i: int, j: int) -> tuple[int, dict]:
            out = reports / f"{samples[j].slug}.json"
            try:
                report = probes[i].probe(blends[j], bundle.task_path, bundle.rubric_path, out, bundle.task_probes)
            except BlenderProcessError:
                if samples[j].kind != "gaming":
                    raise
                # an attack that kills the warm probe is judged as a trial's verifier judges it:
                # a crash on opening it is a 0 (DeliveryCrashedProbe), anything else infra
                report = bpy_procs.probe_as_trial(blends[j], bundle.task_path, bundle.rubric_path, out,
                                                  bundle.task_probes, sandbox=scorer.sandbox)
            probed()
            return j, report

        def probe_share(i: int) -> list[tuple[int, dict]]:
            return [probe_one(i, j) for j in range(i, len(samples), len(probes))]

        with ThreadPoolExecutor(len(probes)) as pool:
            by_index = dict(pair for share in pool.map(probe_share, range(len(probes))) for pair in share)
        ref_index = next(i for i, s in enumerate(samples) if s.kind == "reference")
        mutation_rows = None
        if mutate and blends[ref_index].is_file():
            tried = (lambda done, total: progress("operators", done, total)) if progress is not None else None
            mutation_rows = bpy_procs.mutate_spread(probes[0], blends[ref_index], bundle.task_path,
                                                    bundle.rubric_path, bundle.task_probes, tried=tried,
                                                    beside=probes[1:], processes=len(probes))
    finally:
        for p in probes:
            p.close()
    everything = [Measured(s, b, sha256_file(b) if b.is_file() else None, by_index[i],
                           mutations=mutation_rows if i == ref_index else None)
                  for i, (s, b) in enumerate(zip(samples, blends))]
    measured = [m for m in everything if m.sample.kind != "gaming"]
    next(m for m in measured if m.sample.kind == "reference").gaming = [
        {"sample": m.sample.name, "script": f"calibration/gaming/{cast(Path, m.sample.script).name}",  # samples_of
         "delivery": m.delivery_sha256, "criteria": m.rule_report["criteria"]}
        for m in everything if m.sample.kind == "gaming"]
    if render and scorer.renderer is not None:
        if progress is not None:  # one batch: its start and its end
            progress("renders", 0, len(measured))
        evidences = scorer.renderer.render_many([(m.delivery, scorer.spec) for m in measured])
        if progress is not None:
            progress("renders", len(measured), len(measured))
        for m, ev in zip(measured, evidences):
            m.evidence = ev
        reference = next(m for m in measured if m.sample.kind == "reference")
        assert reference.evidence is not None  # rendered just above
        scorer.remember_reference(reference.evidence)
        if scorer.needs_vl:
            judged = _stepper(progress, "VL", len(measured))
            for m in measured:
                m.vl = scorer.judge_vl(m.evidence, reference.evidence)
                judged()
    return measured


def calibrate(draft: Path, out_dir: Path, *, profiles: list[ScoringProfile] | None = None,
              judge: str | None = "image-metric", cache: EvidenceCache | None = None,
              start_blend: Path | None = None, margin: float = 0.2, reference_min: float = 0.9,
              parallel: int = 2, profile_params: dict[str, dict] | None = None,
              vl_client=None, sandbox: ScriptIsolation = None,
              progress: StepCallback | None = None, mutate: bool = True) -> CalibrationResult:
    """Run the calibration samples of the task draft in ``draft`` and judge them under each
    profile (default: the task's own).  ``profile_params`` ({profile key: params}) fixes
    params instead of calibrating them; ``sandbox``: where Blender runs (see ``bpy_procs``);
    ``progress(stage, done, total)`` is told how the samples advance; ``mutate=False`` skips the
    mutation operators (a quick look while an author fixes samples, or a benchmark: a report
    without them never allows a freeze)."""
    bundle = TaskBundle.load(draft)
    profiles = profiles or [profile_of_task(bundle.task)]
    out_dir = Path(out_dir)
    work = out_dir / "work"
    validation = out_dir / "private" / "validation"
    scorers = {p.key: Scorer(bundle, p, cache=cache, options=ScoreOptions(judge=judge, render=cache is not None),
                             vl_client=vl_client, sandbox=sandbox) for p in profiles}
    # the VL answers do not depend on the profile: judge once with a VL-weighting scorer if any
    lead = next((s for s in scorers.values() if s.needs_vl), next(iter(scorers.values())))
    measured = measure_samples(bundle, lead, work, start_blend=start_blend, parallel=parallel,
                               render=cache is not None, progress=progress, mutate=mutate)

    evidence_files: dict[str, dict[str, dict]] = {}
    for m in measured:
        if m.evidence is None:
            continue
        dest = validation / "evidence" / m.sample.slug
        if dest.exists():
            shutil.rmtree(dest)
        m.evidence.copy_to(dest)
        evidence_files[m.sample.name] = {name: {"path": f"evidence/{m.sample.slug}/{name}", "sha256": sha}
                                         for name, sha in m.evidence.hashes().items()}

    verdicts, sections = {}, {}
    for p in profiles:
        scorer = scorers[p.key]
        fixed = (profile_params or {}).get(p.key)
        v = judge_profile(p, scorer, measured, margin=margin, reference_min=reference_min, params=fixed)
        verdicts[p.key] = v
        sections[p.key] = {
            "profile": p.ref(), "params": v.params, "verifier_version": v.verifier_version,
            "judge": next((r["judge"] for r in v.records.values() if r.get("judge")), None),
            "passed": v.passed, "margin": v.margin, "min_good": v.min_good, "max_bad": v.max_bad,
            "required_margin": margin, "misses": v.misses, "mutations": v.mutations, "gaming": v.gaming,
            "samples": [_row(m, v.records[m.sample.name], v.sample_margins[m.sample.name],
                             evidence_files.get(m.sample.name, {})) for m in measured],
        }
    report = {
        "report_version": REPORT_VERSION,
        "task_id": bundle.task["task_id"],
        "reference_min": reference_min,
        "pass_threshold": bundle.task["verification"]["pass_threshold"],
        "passed": all(v.passed for v in verdicts.values()),
        "freeze": all(v.passed for v in verdicts.values()),
        "cache": cache.counters.as_dict() if cache is not None else None,
        "profiles": sections,
    }
    report_path = validation / "report.json"
    _write_json_atomic(report_path, report)
    return CalibrationResult(bundle.task["task_id"], report_path, report, verdicts, measured)


EXIT_CODES = """\
exit codes:
  0  calibration passed under every profile: the task version may be frozen
  1  it failed: an expectation missed, a script of the task raises, or the sandbox cannot start
  2  bad usage or input: an unknown option, no task.json in --task-dir, an unknown --profile"""


def main(argv: list[str] | None = None, *, sandbox: ScriptIsolation = None) -> int:
    """python -m verifiers.calibration --task-dir seeds/<seed>/draft --out DIR [--profile ...]
    [--no-sandbox]; the exit codes are EXIT_CODES."""
    import argparse

    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from verifiers.evidence import default_cache_root
    from verifiers.score_delivery import RUN_FAILURES, BadInput, load_bundle, print_run_failure, profile_by_ref

    ap = argparse.ArgumentParser(prog="python -m verifiers.calibration",
                                 description=__doc__.split("\n\n")[0], epilog=EXIT_CODES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task-dir", required=True, type=Path, help="the task draft folder: seeds/<seed>/draft")
    ap.add_argument("--out", required=True, type=Path,
                    help="where the deliveries and private/validation/report.json go")
    ap.add_argument("--profile", action="append", default=None,
                    help="scoring profile id[@version]; repeatable (default: the task's)")
    ap.add_argument("--judge", default="image-metric", choices=("image-metric", "none"))
    ap.add_argument("--cache", type=Path, default=None, help="evidence cache folder")
    ap.add_argument("--margin", type=float, default=0.2,
                    help="required separation of good and bad totals (default %(default)s)")
    ap.add_argument("--reference-min", type=float, default=0.9,
                    help="the reference's lowest accepted total (default %(default)s)")
    ap.add_argument("--no-sandbox", action="store_true",
                    help="run Blender on the seed's code unisolated (your own code, your own machine)")
    ap.add_argument("--no-mutate", action="store_true",
                    help="skip mutation testing: the samples and gaming tables only, in a fraction of the time "
                         "(while fixing samples); never passes -- a grader no operator attacked is not frozen")
    args = ap.parse_args(argv)
    console = Console(width=160)
    try:
        load_bundle(args.task_dir)
        profiles = [profile_by_ref(p) for p in args.profile] if args.profile else None
    except BadInput as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        return 2
    # The bar goes to stderr and disappears when done (nothing at all when not a terminal).
    err = Console(stderr=True)
    with Progress(TextColumn("{task.description:>11}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=True, disable=not err.is_terminal) as bar:
        stages: dict[str, TaskID] = {}

        def on_step(stage: str, done: int, total: int) -> None:
            if stage not in stages:
                stages[stage] = bar.add_task(stage, total=total)
            bar.update(stages[stage], completed=done, total=total)

        try:
            result = calibrate(args.task_dir, args.out, profiles=profiles,
                               judge=None if args.judge == "none" else args.judge,
                               cache=EvidenceCache(args.cache or default_cache_root()), margin=args.margin,
                               reference_min=args.reference_min,
                               sandbox=LOCAL if args.no_sandbox else sandbox, progress=on_step,
                               mutate=not args.no_mutate)
        except RUN_FAILURES as exc:
            return print_run_failure(console, exc)
    for key, section in result.report["profiles"].items():
        t = Table(title=f"{result.task_id} under {key}: margin {section['margin']} "
                        f"({'passed' if section['passed'] else 'FAILED'})")
        for col in ("sample", "rule", "VL", "total", "success", "margin", "met"):
            t.add_column(col)
        for r in section["samples"]:
            t.add_row(r["sample"], f"{r['rule_score']:.3f}", "-" if r["vl_score"] is None else f"{r['vl_score']:.3f}",
                      "null" if r["total"] is None else f"{r['total']:.3f}", str(r["success"]),
                      "-" if r["margin"] is None else f"{r['margin']:.3f}", "yes" if r["met"] else "NO")
        console.print(t)
        if section.get("mutations"):
            mt = section["mutations"]
            m = Table(title=f"{result.task_id} under {key}: mutation score {mt['killed']}/{mt['applicable']} "
                            f"({mt['score']:.0%}; judged on the rule channel, VL assumed perfect)")
            for col in ("operator", "applicable", "reward", "killed", "caught by / why"):
                m.add_column(col)
            for r in mt["operators"]:
                m.add_row(r["operator"], "yes" if r["applicable"] else "no",
                          "-" if r["reward"] is None else f"{r['reward']:.3f}",
                          "-" if r["killed"] is None else ("yes" if r["killed"] else
                                                           "allowed" if r["allowed"] else "NO"),
                          escape(", ".join(r["caught_by"]) if r["applicable"] else (r["why"] or ""))
                          + (f" (allowed: {escape(r['allowed'])})" if r["allowed"] else "")
                          + (f" error: {escape(r['error'].splitlines()[-1])}" if r.get("error") else ""))
            console.print(m)
        if section.get("gaming"):
            gt = section["gaming"]
            g = Table(title=f"{result.task_id} under {key}: gaming samples refused {gt['refused']}/{gt['total']} "
                            "(rule channel, VL assumed perfect)")
            for col in ("gaming sample", "rule", "reward", "refused", "caught by"):
                g.add_column(col)
            for r in gt["samples"]:
                g.add_row(r["sample"], f"{r['rule_score']:.3f}", "-" if r["reward"] is None else f"{r['reward']:.3f}",
                          "yes" if r["refused"] else "NO", ", ".join(r["caught_by"]))
            console.print(g)
        for miss in section["misses"]:
            console.print(f"[red]miss[/] {miss}")
    console.print(f"report: {result.report_path}")
    return 0 if result.passed else 1


if __name__ == "__main__":
    import sys

    sys.exit(main())
