"""A seed's lineage, resolved (docs/datasets.md, "Lineage"): the root seed and family every
task keeps through derivation and model authoring, and the split it is pinned to.

A seed whose seed.json declares no `provenance.lineage` is its own root: root = its seed id,
family = its provenance source. A derived seed declares the lineage of the task it came from,
with that task appended to `derived_from`. Plain dicts in and out: admission records and
task.toml metadata carry them as JSON.
"""

from __future__ import annotations

import json
from typing import Any

# task.toml [metadata] keys of a published task's lineage (activities/harbor_task.py)
META_ROOT, META_FAMILY, META_SPLIT = "lineage_root", "lineage_family", "lineage_split"
# ... and of a seed family's instance: its family (root seed id), number and values (JSON)
META_INSTANCE_OF, META_INSTANCE, META_PARAMETERS = "family_root", "family_instance", "family_parameters"


def resolve(seed_id: str, provenance: dict[str, Any]) -> dict[str, Any]:
    """{"root_seed", "family", "derived_from", "split"?} of a seed from its provenance (as
    seed.json or an admission record holds it)."""
    declared = provenance.get("lineage")
    if not declared:
        return {"root_seed": seed_id, "family": provenance["source"], "derived_from": []}
    out = {"root_seed": declared["root_seed"], "family": declared["family"],
           "derived_from": list(declared.get("derived_from") or [])}
    if declared.get("split"):
        out["split"] = declared["split"]
    return out


def derive(parent_lineage: dict[str, Any], parent: dict[str, Any], split: str | None) -> dict[str, Any]:
    """The lineage a seed derived from `parent` declares: the parent's root and family, its
    chain plus the parent itself; pinned to `split` when given (or when the parent was)."""
    out = {"root_seed": parent_lineage["root_seed"], "family": parent_lineage["family"],
           "derived_from": [*parent_lineage.get("derived_from", []),
                            {k: v for k, v in parent.items() if v is not None}]}
    pin = split or parent_lineage.get("split")
    if pin:
        out["split"] = pin
    return out


def metadata(lineage: dict[str, Any]) -> dict[str, str]:
    """The task.toml [metadata] entries of a lineage (flat strings: what Harbor's TOML keeps)."""
    meta = {META_ROOT: lineage["root_seed"], META_FAMILY: lineage["family"]}
    if lineage.get("split"):
        meta[META_SPLIT] = lineage["split"]
    return meta


def instance_metadata(provenance: dict[str, Any]) -> dict[str, str]:
    """The task.toml [metadata] entries of a seed family's instance (none for any other seed):
    flat strings, the values as canonical JSON."""
    inst = provenance.get("family_instance")
    if not inst:
        return {}
    return {META_INSTANCE_OF: inst["root_seed"], META_INSTANCE: str(inst["index"]),
            META_PARAMETERS: json.dumps(inst["parameters"], sort_keys=True, separators=(",", ":"))}
