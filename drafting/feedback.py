"""Structured findings: what a check round tells the author model, and what the record keeps.

A finding names the check that failed, the draft file and field, and, for calibration, the
sample and what it scored, so the author can repair exactly that. Findings are plain dicts in
payloads (`Finding.as_dict`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from dataclasses import field as _field  # "field" is also a Finding attribute
from typing import Any

CHECKS = ("admission", "ledger", "draft_rules", "build", "script", "calibration", "review")


@dataclass
class Finding:
    check: str  # one of CHECKS
    message: str
    file: str | None = None  # path inside the seed (draft/rubric.json, materials/...)
    field: str | None = None  # e.g. criteria[2].params.tolerance
    sample: str | None = None  # calibration: the sample's name (defect:missing_leg)
    scores: dict[str, Any] = _field(default_factory=dict)  # calibration: reward, rule, vl, ...

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, {})}


def from_contract_error(error, check: str = "admission", seed_dir: str | None = None) -> Finding:
    """A `ContractError` (file, field, reason) as a finding; paths made relative to the seed."""
    file = str(error.file)
    if seed_dir and file.startswith(seed_dir.rstrip("/") + "/"):
        file = file[len(seed_dir.rstrip("/")) + 1:]
    return Finding(check, error.reason, file=file,
                   field=None if error.field == "<root>" else error.field)


def from_calibration_report(report: dict) -> list[Finding]:
    """One finding per sample that missed its expectation, with its scores, then the misses
    the report lists that are not about a single sample (the margin)."""
    findings = []
    for row in report.get("samples", []):
        if row.get("met", True):
            continue
        failed = [c["id"] for c in row.get("criteria", []) if c.get("passed") is False]
        findings.append(Finding(
            "calibration",
            f"{row['sample']} ({row['kind']}) expected {row.get('expected', 'to meet its expectation')};"
            f" scored reward {row.get('reward')} (success {row.get('success')})",
            file=_sample_file(row), sample=row["sample"],
            scores={"reward": row.get("reward"), "rule_score": row.get("rule_score"),
                    "vl_score": row.get("vl_score"), "success": row.get("success"),
                    "failed_criteria": failed,
                    "passed_criteria": [c["id"] for c in row.get("criteria", []) if c.get("passed")]}))
    for miss in report.get("misses", []):
        if not miss.startswith("sample "):  # per-sample misses are the rows above
            findings.append(Finding("calibration", miss, scores={
                "margin": report.get("margin"), "required_margin": report.get("required_margin"),
                "min_good": report.get("min_good"), "max_bad": report.get("max_bad")}))
    return findings


def _sample_file(row: dict) -> str | None:
    policy = row.get("policy") or ""
    if policy.startswith("script:private/"):
        return "draft/" + policy.removeprefix("script:private/")
    if row.get("kind") == "reference":
        return "draft/solution/solve.py"
    return None
