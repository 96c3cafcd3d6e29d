"""Where a worker connects and keeps its data, from the environment (defaults: embedded dev
server on localhost and `var/` under the project root)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from storage.objects import FilesystemObjects, ObjectStore

PROJECT_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Settings:
    address: str
    namespace: str
    var: Path

    @property
    def store_root(self) -> Path:
        return Path(os.environ.get("ARKEVO_STORE") or self.var / "store")

    def objects(self) -> ObjectStore:
        """Publications, handoff events and dataset revisions: `var/` (see storage/objects.py)."""
        return FilesystemObjects(self.var)

    @property
    def publications(self) -> Path:
        return self.var / "publications"

    @property
    def handoff(self) -> Path:
        return self.var / "handoff"

    @property
    def tasks(self) -> Path:
        return self.var / "tasks"


def settings_from_env() -> Settings:
    return Settings(
        address=os.environ.get("ARKEVO_TEMPORAL_ADDRESS", "localhost:7233"),
        namespace=os.environ.get("ARKEVO_TEMPORAL_NAMESPACE", "default"),
        var=Path(os.environ.get("ARKEVO_VAR") or PROJECT_ROOT / "var"),
    )
