"""Verifier drift (docs/verifier-drift.md): what a verifier change does to verdicts already
stored. Pure comparison (no Blender, no store) of a stored grade and the same delivery graded again, and
the probe code a drift check runs.

    entry = record_entry("evaluation", trial_id, Graded.of(stored), Graded.of(new), tolerance=0.01)
    entry["verdict_flip"], entry["reward_changed"], entry["criteria_added"], entry["drift"]

A record *drifts* when its verdict (success) flips, its reward moves by more than the tolerance
(or becomes null, or stops being null), or its criteria are not the same ids (added or
removed). A criterion whose own pass/fail changed is listed (``criteria_changed``) but is drift
only through the reward and verdict it moves. A record that was never a graded attempt (an
infrastructure exception, nothing delivered, a delivery this store does not hold) is listed as
not re-scored and is never drift.

The code a drift check re-scores with is the workers' own ``verifiers/`` unless a *candidate*
is named: a folder holding replacements for some of ``CANDIDATE_FILES`` (a probe module with a
tightened tolerance, say), laid over the workers' files by ``stage_code`` -- exactly what the
warm probe then copies into the verifier sandbox, so a candidate is judged by running it.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from verifiers.version import PROBE_FILES, VERIFIERS

MUTATIONS = "mutations.py"
PROBE_SERVER = "probe_server.py"
# What a candidate may replace: the graded probe code and the gaming operators.
CANDIDATE_FILES = (*PROBE_FILES, MUTATIONS)
# What the warm probe runs (verifiers.bpy_procs.WarmProbe(code=...)).
CODE_FILES = (*CANDIDATE_FILES, PROBE_SERVER)
SOURCES = ("calibration", "evaluation", "campaign")


def candidate_problems(folder: Path) -> list[str]:
    """Why `folder` cannot be a candidate's probe code (empty when it can): it must be a folder
    holding only files named in ``CANDIDATE_FILES``, at least one."""
    folder = Path(folder)
    if not folder.is_dir():
        return [f"{folder}: not a folder"]
    entries = sorted(folder.iterdir())
    unknown = [p.name for p in entries if not p.is_file() or p.name not in CANDIDATE_FILES]
    problems = [f"{folder}: {', '.join(unknown)}: not probe code a candidate may replace "
                f"(one of {', '.join(CANDIDATE_FILES)})"] if unknown else []
    if not entries:
        problems.append(f"{folder}: empty; put the changed probe files in it")
    return problems


def stage_code(dest: Path, candidate: Path | None = None) -> tuple[Path, list[str]]:
    """The probe code to run, in `dest`: the workers' ``CODE_FILES`` with a candidate's files laid
    over them; and the names the candidate replaced. Raises ValueError naming what is wrong with
    the candidate."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for name in CODE_FILES:
        shutil.copyfile(VERIFIERS / name, dest / name)
    if candidate is None:
        return dest, []
    if problems := candidate_problems(candidate):
        raise ValueError("; ".join(problems))
    replaced = sorted(p.name for p in Path(candidate).iterdir())
    for name in replaced:
        shutil.copyfile(Path(candidate) / name, dest / name)
    return dest, replaced


@dataclass(frozen=True)
class Graded:
    """One side of a comparison: the reward, the verdict and each criterion's pass/fail."""

    reward: float | None
    success: bool | None
    criteria: Mapping[str, bool | None]  # criterion id -> passed

    @classmethod
    def of(cls, reward: float | None, success: bool | None, criteria: Sequence[Mapping]) -> "Graded":
        return cls(None if reward is None else float(reward), success,
                   {c["id"]: c.get("passed") for c in criteria})

    @classmethod
    def of_score(cls, record: Mapping) -> "Graded":
        """From a score record (``verifiers.profiles.score_record``)."""
        return cls.of(record["total"], record["success"], record["criteria"])


def compare(stored: Graded, new: Graded, tolerance: float) -> dict:
    """What changed between the stored grade and the new one (module docstring: what drifts)."""
    delta = None if stored.reward is None or new.reward is None else round(new.reward - stored.reward, 6)
    reward_changed = (stored.reward is None) != (new.reward is None) or (
        delta is not None and abs(delta) > tolerance)
    flip = bool(stored.success) != bool(new.success)  # a null success never passed
    added = sorted(set(new.criteria) - set(stored.criteria))
    removed = sorted(set(stored.criteria) - set(new.criteria))
    changed = sorted(c for c in set(stored.criteria) & set(new.criteria) if stored.criteria[c] != new.criteria[c])
    return {"verdict_flip": flip, "reward_changed": reward_changed, "reward_delta": delta,
            "criteria_added": added, "criteria_removed": removed, "criteria_changed": changed,
            "drift": flip or reward_changed or bool(added or removed)}


def record_entry(source: str, record_id: str, stored: Graded | None, new: Graded | None, tolerance: float,
                 *, campaign_id: str | None = None, not_rescored: str | None = None) -> dict:
    """One stored sample or trial in a drift report: compared when re-scored (`new`), else listed
    with why not (`not_rescored`), never drift."""
    if source not in SOURCES:
        raise ValueError(f"unknown record source {source!r} (expected one of {', '.join(SOURCES)})")
    if (new is None) == (not_rescored is None):
        raise ValueError("a record is either re-scored (new) or not (not_rescored, saying why)")
    entry = {"source": source, "id": record_id, "campaign_id": campaign_id, "rescored": new is not None,
             "not_rescored": not_rescored,
             "stored_reward": stored.reward if stored else None, "new_reward": new.reward if new else None,
             "stored_success": stored.success if stored else None, "new_success": new.success if new else None}
    if new is None or stored is None:
        return {**entry, "verdict_flip": False, "reward_changed": False, "reward_delta": None,
                "criteria_added": [], "criteria_removed": [], "criteria_changed": [], "drift": False}
    return {**entry, **compare(stored, new, tolerance)}


def not_rescored_mutation(reason: str) -> dict:
    """The mutation part of a task whose attacks could not be run again (no reference delivery)."""
    return {"rescored": False, "not_rescored": reason, "stored_score": None, "new_score": None,
            "stored_killed": None, "new_killed": None, "stored_applicable": None, "new_applicable": None,
            "newly_surviving": [], "newly_killed": [], "gaming_total": 0, "gaming_stored_refused": None,
            "gaming_new_refused": None, "gaming_newly_accepted": [], "gaming_newly_refused": [],
            "changed": False}


def mutation_drift(stored: Mapping | None, new: Mapping, stored_gaming: Mapping | None,
                   new_gaming: Mapping | None) -> dict:
    """The mutation score under the new grader against the stored one: tables as
    ``verifiers.mutation_testing.mutation_table`` / ``gaming_table`` make them (stored None:
    the task was frozen before mutation testing; nothing to compare, so no change)."""
    before = {o["operator"]: o for o in (stored or {}).get("operators", [])}
    after = {o["operator"]: o for o in new["operators"]}

    def counted_killed(o: Mapping | None) -> bool | None:  # an allowed survivor counts as neither
        return None if o is None or not o["applicable"] or o.get("allowed") else bool(o["killed"])

    both = sorted(set(before) & set(after)) if stored is not None else []
    surviving = [op for op in both if counted_killed(before[op]) is True and counted_killed(after[op]) is False]
    killed = [op for op in both if counted_killed(before[op]) is False and counted_killed(after[op]) is True]
    refused_before = {g["sample"]: g["refused"] for g in (stored_gaming or {}).get("samples", [])}
    refused_after = {g["sample"]: g["refused"] for g in (new_gaming or {}).get("samples", [])}
    common = sorted(set(refused_before) & set(refused_after))
    accepted = [s for s in common if refused_before[s] and not refused_after[s]]
    refused = [s for s in common if not refused_before[s] and refused_after[s]]
    score_changed = stored is not None and (stored["score"], stored["killed"], stored["applicable"]) != (
        new["score"], new["killed"], new["applicable"])
    return {"rescored": True, "not_rescored": None,
            "stored_score": stored["score"] if stored else None, "new_score": new["score"],
            "stored_killed": stored["killed"] if stored else None, "new_killed": new["killed"],
            "stored_applicable": stored["applicable"] if stored else None, "new_applicable": new["applicable"],
            "newly_surviving": surviving, "newly_killed": killed,
            "gaming_total": len(refused_after),
            "gaming_stored_refused": stored_gaming["refused"] if stored_gaming else None,
            "gaming_new_refused": new_gaming["refused"] if new_gaming else None,
            "gaming_newly_accepted": accepted, "gaming_newly_refused": refused,
            "changed": bool(score_changed or surviving or killed or accepted or refused)}


def summarize(tasks: Sequence[Mapping]) -> dict:
    """The report's summary over its task entries."""
    records = [r for t in tasks for r in t["records"]]
    drifted = [t["task_id"] for t in tasks if t["drift"]]
    return {
        "tasks_checked": len(tasks),
        "samples_rescored": sum(1 for r in records if r["rescored"] and r["source"] == "calibration"),
        "trials_rescored": sum(1 for r in records if r["rescored"] and r["source"] != "calibration"),
        "not_rescored": sum(1 for r in records if not r["rescored"]),
        "verdict_flips": sum(1 for r in records if r["verdict_flip"]),
        "reward_changes": sum(1 for r in records if r["reward_changed"]),
        "criteria_changes": sum(1 for r in records if r["criteria_added"] or r["criteria_removed"]),
        "mutation_changes": sum(1 for t in tasks if t["mutation"]["changed"]),
        "calibration_changes": sum(1 for t in tasks if t["calibration"]["changed"]),
        "tasks_with_drift": drifted,
        "zero_drift": not drifted,
    }


def task_drifts(records: Sequence[Mapping], mutation: Mapping, calibration: Mapping) -> bool:
    """Does a task drift: a record drifts, its mutation score changed, or its calibration
    verdict (would it still pass review) changed."""
    return any(r["drift"] for r in records) or bool(mutation["changed"]) or bool(calibration["changed"])
