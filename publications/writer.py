"""How `publication.json` and `records.json` are serialised: by packaging when it commits a
publication, and by a dataset revision's chain when it finishes a commit that crashed (the link
holds the document; these bytes are what its sha256 was taken of)."""

from __future__ import annotations

import json


def publication_bytes(doc: dict) -> bytes:
    # Not sorted: the document keeps its key order, so rewriting it gives the same bytes.
    return json.dumps(doc, indent=2, ensure_ascii=False).encode() + b"\n"
