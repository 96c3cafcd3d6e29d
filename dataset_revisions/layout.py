"""Where a dataset revision's objects live in the object store (`storage/objects.py`).

    datasets/<namespace>/<revision>/dataset.json                 the spec (written once)
    datasets/<namespace>/<revision>/chain/<sequence>.json         one link per publication
    datasets/<namespace>/<revision>/publications/<task>/<pub>/    the publications themselves
    datasets/<namespace>/<revision>/outcomes/<seed_id>.json       last outcome per seed (status)
    datasets/<namespace>/<revision>/freeze/split-manifest.json    written once: the revision froze
    datasets/<namespace>/<revision>/drift/<code id>-<sha12>.json  verifier drift reports (each once)
    datasets/<namespace>/<revision>/retractions/<sequence>.json   retracted tasks (hash-chained, create-only)
    datasets/<namespace>/<revision>/difficulty/<campaign id>.json difficulty per task (each campaign's report)
    handoff/<kind>/<event_id>.json                                publication and freeze events
"""

from __future__ import annotations

from dataclasses import dataclass

HANDOFF = "handoff"


@dataclass(frozen=True)
class RevisionKeys:
    namespace: str
    revision: str

    @property
    def root(self) -> str:
        return f"datasets/{self.namespace}/{self.revision}"

    @property
    def spec(self) -> str:
        return f"{self.root}/dataset.json"

    @property
    def chain(self) -> str:
        return f"{self.root}/chain/"

    def link(self, sequence: int) -> str:
        return f"{self.root}/chain/{sequence:06d}.json"

    @property
    def publications(self) -> str:
        return f"{self.root}/publications"

    def outcome(self, seed_id: str) -> str:
        return f"{self.root}/outcomes/{seed_id}.json"

    @property
    def outcomes(self) -> str:
        return f"{self.root}/outcomes/"

    @property
    def manifest(self) -> str:
        return f"{self.root}/freeze/split-manifest.json"

    @property
    def freeze_report(self) -> str:
        return f"{self.root}/freeze/freeze-report.json"

    @property
    def drift_reports(self) -> str:
        return f"{self.root}/drift/"

    @property
    def retractions(self) -> str:
        return f"{self.root}/retractions/"

    def retraction(self, sequence: int) -> str:
        return f"{self.root}/retractions/{sequence:06d}.json"

    def drift_report(self, code_id: str, sha12: str) -> str:
        """A verifier drift report (docs/verifier-drift.md): named by the verifier code it
        re-scored with and its own digest, written once."""
        return f"{self.root}/drift/{code_id}-{sha12}.json"

    @property
    def difficulty_records(self) -> str:
        return f"{self.root}/difficulty/"

    def difficulty(self, campaign_id: str) -> str:
        """A campaign's difficulty record over this revision (docs/datasets.md "Difficulty
        bands"): rewritten with each of the campaign's reports."""
        return f"{self.root}/difficulty/{campaign_id}.json"


def revision_of(publication_folder: str) -> RevisionKeys | None:
    """The revision whose publications hold this folder; None for one outside any revision."""
    parts = publication_folder.strip("/").split("/")
    if len(parts) == 6 and parts[0] == "datasets" and parts[3] == "publications":
        return RevisionKeys(parts[1], parts[2])
    return None


def handoff_key(kind: str, event_id: str) -> str:
    return f"{HANDOFF}/{kind}/{event_id}.json"
