"""What a dataset revision yielded and what it cost (`arkevo dataset report`, docs/datasets.md).

Read from what the revision holds, never re-derived: the seeds' outcomes (`outcomes/`: the stage
and named error a failed seed stopped at, when its production started and ended), the committed
publications and their records (the authoring record's model usage; the cost every trial
measured: stage 03's input baseline and reference and stage 04's pilot trials in the pilot
record, stage 05's calibration trials and mutation testing's wall in the calibration report,
stage 06's trial records), and
the split manifest.

The funnel follows a seed through the pipeline: submitted (every seed of the spec with an
outcome) -> admitted (02) -> authored (03) -> calibrated (04-05: trial solves, review and
freeze) -> published (06-07) -> frozen (chosen by the split manifest). Each loss is named by the
stage and failure kind that ended it; a published task the selection left out is lost at the
freeze as `not selected`.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import datetime

from dataset_revisions.layout import RevisionKeys
from dataset_revisions.revision import committed_links, is_frozen, outcomes, read_spec
from publications.reader import Publication, read_publication
from storage.objects import ObjectStore

FUNNEL = ("submitted", "admitted", "authored", "calibrated", "published", "frozen")
# the stage a failed seed stopped at -> the last step of the funnel it reached
REACHED = {"01-taxonomy": "submitted", "02-admission": "submitted", "03-authoring": "admitted",
           "04-trial-solves": "authored", "05-review": "authored", "06-evaluation": "calibrated",
           "07-packaging": "calibrated"}
NOT_RECORDED = ("the sandbox CPU of 05's mutation testing (its wall is counted), and any model "
                "endpoint time outside the trials and the authoring record")
STAGE_OF_TRIAL = {"authoring": "03-authoring", "pilot": "04-trial-solves", "calibration": "05-review",
                  "evaluation": "06-evaluation"}


@dataclass
class Loss:
    seed_id: str
    lost_at: str  # the funnel step it did not reach
    stage: str  # the pipeline stage that ended it ("" for one the selection left out)
    failure_type: str
    reason: str

    @property
    def kind(self) -> str:
        """"<stage> <failure type>", the freeze's own losses as "freeze not selected"."""
        return f"{self.stage or 'freeze'} {self.failure_type}"


@dataclass
class StageCost:
    """Sums over the stage's records; None where no record measured it."""

    stage: str
    wall_sec: float | None = None
    sandbox_cpu_sec: float | None = None
    model_calls: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    by_role: dict[str, dict] = field(default_factory=dict)  # model role -> calls and tokens
    records: int = 0  # trials or authoring records counted

    def add(self, name: str, value: float | int | None) -> None:
        if value is not None:
            setattr(self, name, (getattr(self, name) or 0) + value)


@dataclass
class DatasetReport:
    namespace: str
    revision: str
    frozen: bool
    funnel: dict[str, int]
    losses: list[Loss]
    losses_by_kind: dict[str, int]  # "<stage> <failure type>" -> seeds
    costs: list[StageCost]
    production_wall_sec: float | None  # every seed's TaskProduction, start to outcome
    accepted: int  # frozen tasks (published ones while the revision is not frozen)
    per_accepted_task: dict[str, float | None]
    not_recorded: list[str]
    deferred: list[str] = field(default_factory=list)  # seeds a ready revision did not start: no loss

    def to_dict(self) -> dict:
        return asdict(self)


def dataset_report(objects: ObjectStore, keys: RevisionKeys) -> DatasetReport:
    read_spec(objects, keys)  # DatasetNotFound when there is no such revision
    recorded = {o["seed_id"]: o for o in outcomes(objects, keys)}
    # A deferred seed never entered the pipeline (stop_when_ready): listed, not submitted.
    seeds = {seed_id: o for seed_id, o in recorded.items() if o["state"] != "deferred"}
    latest = {link.task_id: link for link in committed_links(objects, keys)}  # in chain order: the last stands
    frozen = is_frozen(objects, keys)
    chosen: set[str] = set()
    if frozen:
        manifest = json.loads(objects.get(keys.manifest))
        chosen = {e["task_id"] for entries in manifest["splits"].values() for e in entries}

    reached: Counter[str] = Counter()
    losses: list[Loss] = []
    for seed_id, o in sorted(seeds.items()):
        if o["state"] == "published":
            step = "frozen" if o.get("task_id") in chosen else "published"
            if frozen and step == "published":
                losses.append(Loss(seed_id, "frozen", "", "not selected",
                                   "published, but the split selection left it out"))
        else:
            step = REACHED.get(o.get("stage", ""), "submitted")
            losses.append(Loss(seed_id, FUNNEL[FUNNEL.index(step) + 1], o.get("stage", ""),
                               o.get("failure_type", "") or "unknown", o.get("reason", "")))
        reached[step] += 1
    funnel = {step: sum(n for s, n in reached.items() if FUNNEL.index(s) >= i) for i, step in enumerate(FUNNEL)}
    by_kind = Counter(loss.kind for loss in losses)

    costs = {stage: StageCost(stage) for stage in STAGE_OF_TRIAL.values()}
    for link in latest.values():
        pub = read_publication(objects, link.publication_key, link.publication_sha256,
                               records_sha256=link.records_sha256)
        _authoring_cost(pub, costs["03-authoring"])
        for stage, spent in _trial_costs(pub):
            if stage in STAGE_OF_TRIAL:
                c = costs[STAGE_OF_TRIAL[stage]]
                c.records += 1
                for key in ("wall_sec", "sandbox_cpu_sec", "model_calls", "input_tokens", "output_tokens"):
                    c.add(key, (spent or {}).get(key))
    walls = [_seconds(o["started_at"], o["at"]) for o in seeds.values() if o.get("started_at")]
    wall = sum(walls) if walls else None
    accepted = funnel["frozen"] if frozen else funnel["published"]
    stages = list(costs.values())
    for c in stages:  # sums of measured seconds: no float noise in the report
        c.wall_sec, c.sandbox_cpu_sec = (None if v is None else round(v, 3) for v in (c.wall_sec, c.sandbox_cpu_sec))
    per_task = {"production_wall_sec": wall,
                "sandbox_cpu_sec": _total(*(c.sandbox_cpu_sec for c in stages)),
                "model_calls": _total(*(c.model_calls for c in stages)),
                "tokens": _total(*(c.input_tokens for c in stages), *(c.output_tokens for c in stages))}
    return DatasetReport(keys.namespace, keys.revision, frozen, funnel, losses, dict(sorted(by_kind.items())),
                         stages, None if wall is None else round(wall, 3), accepted,
                         {k: None if v is None or not accepted else round(v / accepted, 3)
                          for k, v in per_task.items()},
                         [NOT_RECORDED], sorted(set(recorded) - set(seeds)))


def _total(*values: float | int | None) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _seconds(start: str, end: str) -> float:
    return max(0.0, (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds())


def _authoring_cost(pub: Publication, cost: StageCost) -> None:
    """A model-authored task's authoring record: calls and tokens by role, and its wall."""
    record = pub.json("authoring/authoring-record.json")
    if record is None:
        return  # a human draft: no model spent anything in 03
    cost.records += 1
    cost.add("wall_sec", record.get("totals", {}).get("wall_seconds"))
    for usage in record.get("usage", []):
        role = cost.by_role.setdefault(usage["role"], {"model_calls": 0, "input_tokens": 0, "output_tokens": 0})
        for mine, theirs in (("model_calls", "model_calls"), ("input_tokens", "prompt_tokens"),
                             ("output_tokens", "completion_tokens")):
            role[mine] += usage.get(theirs, 0)
            cost.add(mine, usage.get(theirs, 0))


def _trial_costs(pub: Publication) -> list[tuple[str, dict | None]]:
    """(the stage that ran it, what it measured) of every trial the publication records, each
    once: the calibration samples (stage 03's input baseline and reference, stage 05's defects
    and variants), stage 05's mutation testing (one run), the pilot trials stage 04 ran itself
    (those it carried from 03 are the calibration's input and reference), stage 06's records."""
    calibration = pub.json("review/calibration-report.json") or {}
    out: list[tuple[str, dict | None]] = [(row["trial_stage"], row.get("cost"))
                                          for row in calibration.get("samples", []) if "trial_stage" in row]
    if (mutations := calibration.get("mutations") or {}).get("cost"):  # one run: operators and gaming samples
        out.append(("calibration", mutations["cost"]))
    pilot = pub.json("trial-solves/pilot-record.json") or {}
    out += [("pilot", trial.get("cost")) for trial in pilot.get("trials", []) if trial.get("stage") == "pilot"]
    if "evaluation/trials.jsonl" in pub.listed:
        out += [("evaluation", json.loads(line).get("cost"))
                for line in pub.read("evaluation/trials.jsonl").decode().splitlines() if line.strip()]
    return out
