"""Scoring profiles: versioned, registered ways of turning rule results + a VL result into one
score record.  Stdlib only (plus ``verifiers.scoring``).

| profile          | total                                   | core failure                       | success |
|------------------|-----------------------------------------|------------------------------------|---------|
| ``rule-only@1``  | rule score                              | total capped at ``core_failure_cap`` | total >= pass_threshold, no core failed |
| ``blender-70-30@1`` | (Rule 0-70 + VL 0-30) / 100, VL A-gated | total capped at ``core_failure_cap`` | total >= pass_threshold, no core failed |
| ``blender-70-30@2`` | as ``@1``                              | as ``@1``                          | as ``@1``, and the VL gate (question A) did not fail |
| ``kuka-80-20@1`` | 0.8 rule + 0.2 VL                      | capped per criterion, caps set by calibration (``core_caps``; default ``core_failure_cap``) | key deliverables (every core criterion) pass, rule score >= ``quality_threshold``, VL gate not 0 -- decided independently of the total |

In every profile that weights VL a delivery whose gate question fails cannot succeed
(``blender-70-30@1`` let rule points alone reach the 0.7 threshold with VL 0: kept registered,
unchanged, so its old records still read; seeds name ``@2``).  In every profile that weights
VL, a missing VL score makes the total **null** with the reason
(never a renormalised rule score).  Records from different profiles, verifier versions or
judges are never aggregated together: ``aggregate`` raises ``ScoringProfileMismatch``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from verifiers import scoring

RECORD_VERSION = "1"
DIGITS = scoring.DIGITS
# KUKA's calibrated caps came from this ladder (its defect samples were capped at 0.25 or 0.4).
CAP_LADDER = (0.4, 0.25, 0.1, 0.0)
# A VL question that scores the untouched input at least this high is uninformative for the
# task (it cannot tell the work from no work): calibration records it in the profile params
# (``uninformative_vl`` {question: input score}), a judge may flag an answer itself
# (``uninformative: true``), and either way the question lifts nothing above the rule score.
UNINFORMATIVE_AT = 0.9


def _vl_weights(task: Mapping) -> dict[str, float]:
    """{question id: weight} from the task's VL criteria (method ``judge_<id>``)."""
    return {str(c["method"])[len("judge_"):].upper(): float(c.get("weight", 0.0))
            for c in task.get("criteria", []) if c.get("channel") == "vl" and str(c.get("method", "")).startswith("judge_")}


def uninformative_questions(vl: Any, params: Mapping | None = None) -> dict[str, float | None]:
    """{question id: the untouched input's score} of the questions that cannot lift a delivery:
    those calibration found uninformative (``params['uninformative_vl']``) and those the judge
    flagged on this answer."""
    out: dict[str, float | None] = dict((params or {}).get("uninformative_vl") or {})
    _, _, _, _, d = _vl_fields(vl)
    for qid, answer in ((d or {}).get("answers") or {}).items():
        if isinstance(answer, Mapping) and answer.get("uninformative"):
            out[str(qid)] = answer.get("input_score")
    return dict(sorted(out.items()))


def effective_vl(vl: Any, rule_score: float, task: Mapping, params: Mapping | None) -> tuple[float | None, dict]:
    """(VL score as scored, the uninformative questions). An uninformative question counts for
    nothing above the rule channel: its answer is taken as min(answer, rule score), so whatever
    it says, the total cannot rise above what the rule score alone supports. Without the task's
    question weights the whole VL score is capped at the rule score (the safe side)."""
    vl_score, _, _, _, d = _vl_fields(vl)
    useless = uninformative_questions(vl, params)
    if vl_score is None or not useless:
        return vl_score, useless
    weights, answers = _vl_weights(task), (d or {}).get("answers") or {}
    if not all(q in weights for q in useless):
        return min(float(vl_score), rule_score), useless
    lift = 0.0
    for qid in useless:
        score = (answers.get(qid) or {}).get("score") if isinstance(answers.get(qid), Mapping) else None
        if score is not None:
            lift += weights[qid] * max(0.0, float(score) - rule_score)
    return round(max(0.0, float(vl_score) - lift), 6), useless


def calibrated_uninformative(samples: Sequence[tuple[str, Mapping, Any]]) -> dict[str, float]:
    """{question id: input score} for each question the untouched input (kind ``input``)
    answers at ``UNINFORMATIVE_AT`` or above."""
    out: dict[str, float] = {}
    for kind, _report, vl in samples:
        if kind != "input":
            continue
        _, _, _, _, d = _vl_fields(vl)
        for qid, answer in ((d or {}).get("answers") or {}).items():
            score = answer.get("score") if isinstance(answer, Mapping) else None
            if score is not None and float(score) >= UNINFORMATIVE_AT:
                out[str(qid)] = round(float(score), 4)
    return dict(sorted(out.items()))


class ScoringProfileMismatch(ValueError):
    """Scores from different scoring profiles, verifier versions or judges were mixed."""


def _vl_fields(vl: Any) -> tuple[float | None, str | None, bool, dict | None, dict | None]:
    """(vl_score, missing_reason, gated, judge, as_dict) from a VLResult, its dict, or None."""
    if vl is None:
        return None, "VL not judged", False, None, None
    d = vl if isinstance(vl, Mapping) else vl.to_dict()
    return d.get("vl_score"), d.get("missing_reason"), bool(d.get("gated")), d.get("judge"), dict(d)


def _check_range(name: str, value: float, top: float) -> float:
    if not (0.0 - 1e-9 <= value <= top + 1e-9):
        raise ValueError(f"{name} {value} outside 0..{top:g}")
    return round(min(max(value, 0.0), top), 4)


@dataclass(frozen=True)
class ScoringProfile:
    profile_id: str
    profile_version: str
    weights: Mapping[str, float]
    description: str
    default_params: Mapping[str, Any] = field(default_factory=dict)
    # a retired profile still scores (old records stay readable) but no new task may name it
    retired_by: str | None = None

    @property
    def key(self) -> str:
        return f"{self.profile_id}@{self.profile_version}"

    @property
    def uses_vl(self) -> bool:
        return float(self.weights.get("vl", 0.0)) > 0

    def ref(self) -> dict:
        return {"profile_id": self.profile_id, "profile_version": self.profile_version}

    def params(self, overrides: Mapping | None = None) -> dict:
        return {**copy.deepcopy(dict(self.default_params)), **dict(overrides or {})}

    def score(self, rule_report: Mapping, vl: Any, task: Mapping, params: Mapping | None = None) -> dict:
        raise NotImplementedError

    def calibrate_params(self, samples: Sequence[tuple[str, Mapping, Any]], task: Mapping,
                         margin: float) -> dict:
        """Profile params chosen from calibration samples [(kind, rule_report, vl)]: a profile
        that weights VL records the questions the untouched input answers near 1
        (``uninformative_vl``); the rule-only profile has none."""
        if not self.uses_vl:
            return self.params()
        return self.params({"uninformative_vl": calibrated_uninformative(samples)})


def _base(rule_report: Mapping, task: Mapping) -> tuple[list, float, list[str], float, float]:
    criteria = [c for c in rule_report["criteria"]]
    rule_score = scoring.weighted_score(criteria) or 0.0
    v = task["verification"]
    return criteria, rule_score, scoring.core_failures(criteria), float(v["core_failure_cap"]), float(v["pass_threshold"])


class RuleOnly(ScoringProfile):
    def score(self, rule_report, vl, task, params=None):
        _, rule_score, core_failed, cap, threshold = _base(rule_report, task)
        total, reason = scoring.total_reward({"rule": 1.0, "vl": 0.0}, {"rule": rule_score}, core_failed, cap)
        return {"rule_score": rule_score, "vl_score": None, "core_failed": core_failed,
                "cap_applied": cap if core_failed and rule_score > cap else None,
                "total": total, "total_null_reason": reason,
                "success": scoring.is_success(total, core_failed, threshold), "pass_threshold": threshold}


class Blender7030(ScoringProfile):
    """Rule 0-70 points + VL 0-30 points, VL A-gated (blender_rl); arkevo's core cap applies.
    ``gate_vetoes``: a failed gate question also denies success (version 2)."""

    gate_vetoes: bool = False

    def score(self, rule_report, vl, task, params=None):
        _, rule_score, core_failed, cap, threshold = _base(rule_report, task)
        raw_vl, missing, gated, _, _ = _vl_fields(vl)
        vl_score, useless = effective_vl(vl, rule_score, task, params)
        rule_points = _check_range("rule points", 70.0 * rule_score, 70.0)
        out = {"rule_score": rule_score, "rule_points": rule_points, "vl_score": vl_score, "vl_gated": gated,
               "core_failed": core_failed, "pass_threshold": threshold, "cap_applied": None}
        if useless:
            out.update(vl_uninformative=useless, vl_score_judged=raw_vl)
        if vl_score is None:
            out.update(vl_points=None, total=None, total_points=None, success=False,
                       total_null_reason=missing or "VL score missing")
            return out
        vl_points = _check_range("VL points", 30.0 * float(vl_score), 30.0)
        total = round((rule_points + vl_points) / 100.0, DIGITS)
        if core_failed and total > cap:
            total, out["cap_applied"] = cap, cap
        success = scoring.is_success(total, core_failed, threshold) and not (self.gate_vetoes and gated)
        out.update(vl_points=vl_points, total=total, total_points=round(total * 100, 4), total_null_reason=None,
                   success=success)
        return out


class Blender7030Gated(Blender7030):
    """Version 2: 70/30 where the VL gate can veto. With weight 0.7 = pass_threshold, rule 1.0
    alone used to pass a delivery whose renders show nothing the task asked for."""

    gate_vetoes: bool = True


class Kuka8020(ScoringProfile):
    """Rule 0.8 / VL 0.2 (task_scaling's KUKA profile)."""

    def _caps(self, task, params) -> dict:
        return dict(self.params(params).get("core_caps") or {})

    def score(self, rule_report, vl, task, params=None):
        criteria, rule_score, core_failed, default_cap, threshold = _base(rule_report, task)
        p = self.params(params)
        caps = self._caps(task, params)
        quality = float(p.get("quality_threshold") or threshold)
        raw_vl, missing, gated, _, _ = _vl_fields(vl)
        vl_score, useless = effective_vl(vl, rule_score, task, params)
        key_ok = not core_failed
        success = key_ok and rule_score >= quality and not gated
        out = {"rule_score": rule_score, "vl_score": vl_score, "vl_gated": gated, "core_failed": core_failed,
               "pass_threshold": threshold, "quality_threshold": quality, "key_deliverables_ok": key_ok,
               "success": success, "cap_applied": None}
        if useless:
            out.update(vl_uninformative=useless, vl_score_judged=raw_vl)
        if vl_score is None:
            out.update(total=None, total_null_reason=missing or "VL score missing")
            return out
        total = round(0.8 * rule_score + 0.2 * float(vl_score), DIGITS)
        if core_failed:
            cap = min(float(caps.get(c, default_cap)) for c in core_failed)
            if total > cap:
                total, out["cap_applied"] = cap, cap
        out.update(total=total, total_null_reason=None)
        return out

    def calibrate_params(self, samples, task, margin):
        """Per core criterion, the largest cap on ``CAP_LADDER`` (and at most the task's
        ``core_failure_cap``) that keeps every bad sample failing it ``margin`` below the lowest
        good sample; criteria no bad sample fails keep the task's cap."""
        default_cap = float(task["verification"]["core_failure_cap"])
        uncapped = self.params()
        good = []
        for kind, report, vl in samples:
            if kind in ("reference", "variant"):
                rec = self.score(report, vl, task, uncapped)
                if rec["total"] is not None:
                    good.append(rec["total"])
        useless = calibrated_uninformative(samples)
        if not good:
            return self.params({"core_caps": {}, "uninformative_vl": useless})
        bound = min(good) - margin
        allowed = max([c for c in CAP_LADDER if c <= min(bound, default_cap) + 1e-9] or [0.0])
        caps = {}
        for kind, report, _vl in samples:
            if kind in ("input", "defect"):
                for cid in scoring.core_failures(report["criteria"]):
                    caps[cid] = allowed
        return self.params({"core_caps": dict(sorted(caps.items())), "uninformative_vl": useless})


REGISTRY: dict[tuple[str, str], ScoringProfile] = {}


def register(profile: ScoringProfile) -> ScoringProfile:
    key = (profile.profile_id, profile.profile_version)
    if key in REGISTRY:
        raise ValueError(f"scoring profile {profile.key} already registered")
    REGISTRY[key] = profile
    return profile


register(RuleOnly("rule-only", "1", {"rule": 1.0, "vl": 0.0, "agent": 0},
                  "Rule channel only: total = rule score, core cap, success at the pass threshold."))
register(Blender7030("blender-70-30", "1", {"rule": 0.7, "vl": 0.3, "agent": 0},
                     "Rule 0-70 + VL 0-30 (A-gated); core cap; success at the pass threshold.",
                     retired_by="blender-70-30@2"))
register(Blender7030Gated("blender-70-30", "2", {"rule": 0.7, "vl": 0.3, "agent": 0},
                          "Rule 0-70 + VL 0-30 (A-gated); core cap; success at the pass threshold and "
                          "only when the VL gate question did not fail."))
register(Kuka8020("kuka-80-20", "1", {"rule": 0.8, "vl": 0.2, "agent": 0},
                  "Rule 0.8 / VL 0.2; core-failure caps set by calibration; success from key "
                  "deliverables and a quality threshold, independent of the total.",
                  {"core_caps": {}, "quality_threshold": None}))


def get_profile(profile_id: str, version: str | None = None) -> ScoringProfile:
    """``get_profile("blender-70-30")`` (latest version), ``("blender-70-30", "1")`` or
    ``("blender-70-30@1")``."""
    if version is None and "@" in profile_id:
        profile_id, version = profile_id.split("@", 1)
    matches = [p for (pid, ver), p in REGISTRY.items() if pid == profile_id and (version is None or ver == version)]
    if not matches:
        known = ", ".join(sorted(p.key for p in REGISTRY.values()))
        raise KeyError(f"unknown scoring profile {profile_id}{'@' + version if version else ''}; known: {known}")
    return max(matches, key=lambda p: p.profile_version)


def profile_of_task(task: Mapping) -> ScoringProfile:
    ref = task["scoring_profile"]
    return get_profile(ref["profile_id"], ref["profile_version"])


def task_with_profile(task: Mapping, profile: ScoringProfile) -> dict:
    """A copy of the task graded under ``profile`` (its scoring_profile and channel weights);
    pass threshold and core cap stay the task's.  Built in memory -- seeds are not edited."""
    out = copy.deepcopy(dict(task))
    out["scoring_profile"] = profile.ref()
    out["verification"] = {**out["verification"], "weights": dict(profile.weights)}
    return out


def check_task_profile(task: Mapping) -> ScoringProfile:
    """The task's profile, refusing a task whose channel weights disagree with it."""
    profile = profile_of_task(task)
    if profile.retired_by:
        raise ScoringProfileMismatch(
            f"task {task.get('task_id')}: scoring_profile {profile.key} is retired (rule points alone could "
            f"pass a delivery whose VL gate failed); name {profile.retired_by}")
    weights = task["verification"]["weights"]
    for ch in ("rule", "vl"):
        if abs(float(weights.get(ch, 0.0)) - float(profile.weights[ch])) > 1e-9:
            raise ScoringProfileMismatch(
                f"task {task.get('task_id')}: verification.weights.{ch}={weights.get(ch)} but profile "
                f"{profile.key} weights it {profile.weights[ch]}")
    return profile


# Rule probe runs the delivery broke (tests/test.sh, the trial backends): it crashed the probe or
# ran it past its budget.
PROBE_BROKEN = ("DeliveryCrashedProbe", "DeliveryHungProbe")


def delivery_failure(rule_report: Mapping, vl: Mapping | None) -> dict | None:
    """The grader's budget is the solver's problem: a delivery that made the rule probe crash
    or run past its time, or the evidence renders exceed theirs (or die), is graded 0 with the
    failure named -- never an infrastructure retry, never a score from what was left."""
    problem = rule_report.get("delivery_problem") or {}
    if problem.get("type") in PROBE_BROKEN:
        return {"type": problem["type"], "stage": "rule probe", "detail": problem.get("detail", "")}
    if vl and vl.get("delivery_failure"):
        return dict(vl["delivery_failure"])
    return None


def score_record(profile: ScoringProfile, rule_report: Mapping, vl: Any, task: Mapping, *,
                 verifier_version: str, params: Mapping | None = None, evidence: Mapping | None = None) -> dict:
    """The full score record of one delivery: every record carries its verifier version,
    profile and judge."""
    scored = profile.score(rule_report, vl, task, params)
    _, _, _, judge, vl_dict = _vl_fields(vl)
    failure = delivery_failure(rule_report, vl_dict if profile.uses_vl else None)
    if failure is not None:
        scored = {**scored, "total": 0.0, "success": False, "total_null_reason": None,
                  "delivery_failure": failure}
        if "total_points" in scored:
            scored["total_points"] = 0.0
    return {
        "record_version": RECORD_VERSION,
        "task_id": task.get("task_id"),
        "profile": profile.ref(),
        "profile_params": profile.params(params),
        "verifier_version": verifier_version,
        "judge": judge if profile.uses_vl else None,
        "blend_sha256": rule_report.get("blend_sha256"),
        **scored,
        "criteria": [{k: c.get(k) for k in ("id", "method", "weight", "core", "score", "passed", "measured",
                                            "expected", "detail", "evidence")} for c in rule_report["criteria"]],
        "vl": vl_dict if profile.uses_vl else None,
        "evidence": dict(evidence) if evidence else None,
    }


def _group_key(record: Mapping) -> tuple:
    judge = record.get("judge") or {}
    return (record["profile"]["profile_id"], record["profile"]["profile_version"],
            record["verifier_version"], judge.get("id"))


def aggregate(records: Sequence[Mapping]) -> dict:
    """Mean total and success rate over records of ONE profile, verifier version and judge;
    null totals are counted apart, never averaged as 0."""
    if not records:
        raise ValueError("nothing to aggregate")
    keys = {_group_key(r) for r in records}
    if len(keys) > 1:
        profiles = sorted({f"{k[0]}@{k[1]}" for k in keys})
        versions = sorted({k[2] for k in keys})
        judges = sorted({str(k[3]) for k in keys})
        what = ("scoring profiles " + ", ".join(profiles) if len(profiles) > 1 else
                "verifier versions " + ", ".join(versions) if len(versions) > 1 else
                "judges " + ", ".join(judges))
        raise ScoringProfileMismatch(f"refusing to aggregate scores across {what}")
    pid, ver, vv, judge = keys.pop()
    scored = [float(r["total"]) for r in records if r["total"] is not None]
    return {
        "profile": {"profile_id": pid, "profile_version": ver},
        "verifier_version": vv,
        "judge": judge,
        "records": len(records),
        "scored": len(scored),
        "null_totals": len(records) - len(scored),
        "mean_total": round(sum(scored) / len(scored), DIGITS) if scored else None,
        "success_rate": round(sum(bool(r["success"]) for r in records) / len(records), DIGITS),
    }
