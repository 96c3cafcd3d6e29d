"""Where a campaign's files live in the object store (`storage/objects.py`).

    campaigns/<id>/evaluation-plan.json            written once, before the first trial
    campaigns/<id>/preflight.json                  the latest preflight (each start or resume)
    campaigns/<id>/records/<trial_id>.json         one record per attempt, create-only
    campaigns/<id>/trials.jsonl                    the original run, in plan order
    campaigns/<id>/harbor/<id>/<trial_id>/         Harbor's trial directories (`harbor view`)
    campaigns/<id>/recoveries/<n>/backup.jsonl     the records round n replaced, as they were
    campaigns/<id>/recoveries/<n>/preflight.json   the latest preflight of round n, before its reruns
    campaigns/<id>/recoveries/<n>/records/<trial_id>.json
    campaigns/<id>/recoveries/<n>/trials.jsonl     the whole set after round n
    campaigns/<id>/recoveries/<n>/audit.json       who, why, which ids, old and new sha256
    campaigns/<id>/report.json, report.md          original and recovered figures, side by side
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CAMPAIGN_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,79}$")


@dataclass(frozen=True)
class CampaignKeys:
    campaign_id: str

    @property
    def root(self) -> str:
        return f"campaigns/{self.campaign_id}"

    @property
    def plan(self) -> str:
        return f"{self.root}/evaluation-plan.json"

    @property
    def preflight(self) -> str:
        return f"{self.root}/preflight.json"

    def record(self, trial_id: str, recovery: int | None = None) -> str:
        if recovery is None:
            return f"{self.root}/records/{trial_id}.json"
        return f"{self.recovery_root(recovery)}/records/{trial_id}.json"

    @property
    def records(self) -> str:
        return f"{self.root}/records/"

    @property
    def trials(self) -> str:
        return f"{self.root}/trials.jsonl"

    @property
    def harbor_jobs(self) -> str:
        """The folder to give `harbor view`: one job (this campaign), one trial per attempt."""
        return f"{self.root}/harbor"

    def harbor_trial(self, run_id: str) -> str:
        return f"{self.harbor_jobs}/{self.campaign_id}/{run_id}"

    def recovery_root(self, round_: int) -> str:
        return f"{self.root}/recoveries/{round_:03d}"

    @property
    def recoveries(self) -> str:
        return f"{self.root}/recoveries/"

    def backup(self, round_: int) -> str:
        return f"{self.recovery_root(round_)}/backup.jsonl"

    def recovered_trials(self, round_: int) -> str:
        return f"{self.recovery_root(round_)}/trials.jsonl"

    def audit(self, round_: int) -> str:
        return f"{self.recovery_root(round_)}/audit.json"

    def recovery_preflight(self, round_: int) -> str:
        return f"{self.recovery_root(round_)}/preflight.json"

    @property
    def report_json(self) -> str:
        return f"{self.root}/report.json"

    @property
    def report_md(self) -> str:
        return f"{self.root}/report.md"


def trial_id(campaign_id: str, task_id: str, config_id: str, attempt: int) -> str:
    return f"{campaign_id}.{task_id}.{config_id}.{attempt}"
