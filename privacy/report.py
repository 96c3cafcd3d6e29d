"""What a privacy checkpoint found: findings (which block) and pending items (which a reviewer
settles). Plain dataclasses; only `PendingItem` (= `contracts.payloads.PrivacyPending`) travels
in Temporal payloads, the rest goes into records as `as_dict()`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from contracts.payloads.admission import PrivacyPending

PendingItem = PrivacyPending
CHECKPOINTS = ("admission", "dispatch", "export")
EXCERPT_CHARS = 4  # of a match kept in a report: never the secret itself


def redact(text: str) -> str:
    """The first few characters of a match and an ellipsis: enough to find it, never the secret."""
    text = text.replace("\n", " ")
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + "…"


@dataclass(frozen=True)
class PrivacyFinding:
    """One match of one rule. `line`/`column` are 1-based (for a binary: inside the text its
    metadata item holds); `offset` is the byte offset of that item in a binary file;
    `location` names the item (`text:Notes`, `prop:Object/Cube/note`, `png:tEXt:Comment`,
    `exif:Artist`, `provenance.license`)."""

    file: str
    rule: str
    kind: str  # forbidden | secret | personal | licence
    excerpt: str  # redacted
    line: int | None = None
    column: int | None = None
    offset: int | None = None
    location: str | None = None

    @property
    def where(self) -> str:
        out = self.file
        if self.location:
            out += f":{self.location}"
        if self.offset is not None:
            out += f"@{self.offset}"
        if self.line is not None:
            out += f":{self.line}"
        if self.column is not None:
            out += f":{self.column}"
        return out

    def message(self) -> str:
        return f"privacy finding in {self.where}: rule {self.rule} ({self.kind}) {self.excerpt}"

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class PrivacyReport:
    checkpoint: str  # admission | dispatch | export
    policy_id: str
    policy_version: str
    policy_sha256: str
    files_scanned: int = 0
    findings: list[PrivacyFinding] = field(default_factory=list)
    pending: list[PendingItem] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """No finding (pending items may remain)."""
        return not self.findings

    @property
    def complete(self) -> bool:
        """No finding and nothing left unread."""
        return not self.findings and not self.pending

    def message(self, limit: int = 100) -> str:
        """Every finding, one per line (at most `limit`, then how many more)."""
        lines = [f.message() for f in self.findings[:limit]]
        if len(self.findings) > limit:
            lines.append(f"… and {len(self.findings) - limit} more privacy findings")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {
            "checkpoint": self.checkpoint,
            "policy": {"policy_id": self.policy_id, "policy_version": self.policy_version,
                       "sha256": self.policy_sha256},
            "files_scanned": self.files_scanned,
            "findings": [f.as_dict() for f in self.findings],
            "pending": [asdict(p) for p in self.pending],
        }

    @classmethod
    def from_dict(cls, doc: dict) -> PrivacyReport:
        policy = doc["policy"]
        return cls(doc["checkpoint"], policy["policy_id"], policy["policy_version"],
                   policy["sha256"], doc["files_scanned"],
                   [PrivacyFinding(**f) for f in doc["findings"]],
                   [PendingItem(**p) for p in doc["pending"]])
