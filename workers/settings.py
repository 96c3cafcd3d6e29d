"""Where a worker connects and keeps its data, from the environment (defaults: embedded dev
server on localhost and `var/` under the project root).

Connecting: `address` / `namespace` here are the project's own variables
(`ARKEVO_TEMPORAL_ADDRESS`, `ARKEVO_TEMPORAL_NAMESPACE`) as set, with the local defaults. A
client is made by `workers.client.connect`, which puts these over Temporal's environment
configuration (a TOML profile, `TEMPORAL_*` variables: TLS, API keys, Temporal Cloud); see
docs/operations.md, "Client configuration". Logs and metrics (`ARKEVO_LOG_FORMAT`,
`ARKEVO_LOG_LEVEL`, `ARKEVO_METRICS_ADDRESS`) are read by `observability.telemetry`.

Storage (docs/operations.md, "Storage: filesystem or S3"): `ARKEVO_STORE` is the content store
(blobs by sha256; default `var/store`), `ARKEVO_OBJECTS` holds publications, handoff events and
dataset revisions (default `var/`). Each is a directory, `file://…` or `s3://bucket[/prefix]`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from storage.content import ContentStore, FilesystemStore
from storage.objects import FilesystemObjects, ObjectStore
from storage.uri import filesystem_root, objects_from_uri

PROJECT_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Settings:
    address: str  # ARKEVO_TEMPORAL_ADDRESS (connect with workers.client.connect, not this alone)
    namespace: str  # ARKEVO_TEMPORAL_NAMESPACE
    var: Path
    store_uri: str | None = None  # ARKEVO_STORE
    objects_uri: str | None = None  # ARKEVO_OBJECTS

    @property
    def store_root(self) -> Path:
        """The content store's directory (filesystem stores only)."""
        root = filesystem_root(self.store_uri) if self.store_uri else self.var / "store"
        if root is None:
            raise ValueError(f"ARKEVO_STORE={self.store_uri} is not a directory")
        return root

    def content_store(self) -> ContentStore:
        if self.store_uri and filesystem_root(self.store_uri) is None:
            return ContentStore(objects_from_uri(self.store_uri))
        return FilesystemStore(self.store_root)

    def objects(self) -> ObjectStore:
        """Publications, handoff events and dataset revisions (storage/objects.py)."""
        if self.objects_uri:
            return objects_from_uri(self.objects_uri, variable="ARKEVO_OBJECTS")
        return FilesystemObjects(self.var)


def settings_from_env() -> Settings:
    return Settings(
        address=os.environ.get("ARKEVO_TEMPORAL_ADDRESS", "localhost:7233"),
        namespace=os.environ.get("ARKEVO_TEMPORAL_NAMESPACE", "default"),
        var=Path(os.environ.get("ARKEVO_VAR") or PROJECT_ROOT / "var"),
        store_uri=os.environ.get("ARKEVO_STORE") or None,
        objects_uri=os.environ.get("ARKEVO_OBJECTS") or None,
    )
