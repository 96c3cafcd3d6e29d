"""render-setup's own primitive (runs in bpy beside the probe library; stdlib + bpy only).

The delivery settings live on the scene (``scene.cycles``, ``scene.render``), but Blender has
settings elsewhere that override them when the farm renders: a view layer's own sample count,
its denoising switch, its material or world override and its filters (surfaces, environment,
volumes), a second view layer rendered beside the first, a per-frame time limit that stops
sampling early, and sequencer strips that replace the rendered image.  ``render_not_overridden``
measures them.
"""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from probe_core import fraction_outcome, primitive, rnd  # noqa: E402

LAYER_FILTERS = ("use_solid", "use_sky", "use_volumes")


@primitive(required=("min_time_limit",),
           params={"min_time_limit": "tolerance", "view_layers": "count"})
def render_not_overridden(probe, p: dict):
    """Nothing outside the scene's render settings changes what the farm renders: exactly
    ``view_layers`` (default 1) view layers are rendered, each without a sample override
    (``samples`` 0), with Cycles denoising on, no material or world override and its surface,
    environment and volume filters on; the Cycles time limit is off (0) or at least
    ``min_time_limit`` seconds per frame; and with the sequencer on, it holds no strips (they
    would replace the rendered image).  Scores the share of the checks met."""
    scene = probe.scene
    layers = [vl for vl in scene.view_layers if vl.use]
    want_layers = int(p.get("view_layers", 1))
    layer_off = {}
    for vl in layers:
        problems = []
        if int(vl.samples) != 0:
            problems.append(f"samples override {vl.samples}")
        cyc = getattr(vl, "cycles", None)
        if cyc is not None and not cyc.use_denoising:
            problems.append("denoising off")
        for kind in ("material_override", "world_override"):
            if getattr(vl, kind) is not None:
                problems.append(f"{kind} {getattr(vl, kind).name}")
        problems += [f"{f} off" for f in LAYER_FILTERS if not getattr(vl, f)]
        if problems:
            layer_off[vl.name] = problems
    limit = float(scene.cycles.time_limit)
    seq = scene.sequence_editor
    strips = sorted(s.name for s in seq.strips_all) if (seq is not None and scene.render.use_sequencer) else []
    checks = {
        "view_layer_count": len(layers) == want_layers,
        "view_layers": not layer_off,
        "time_limit": limit == 0 or limit >= float(p["min_time_limit"]),
        "sequencer": not strips,
    }
    off = [k for k, ok in checks.items() if not ok]
    notes = {"view_layer_count": f"{len(layers)} view layers rendered, not {want_layers}",
             "view_layers": f"view layer overrides: {layer_off}",
             "time_limit": f"time limit {limit:g} s per frame (min {float(p['min_time_limit']):g} s or none)",
             "sequencer": f"sequencer strips replace the render: {strips[:10]}"}
    detail = "nothing overrides the render settings" if not off else "; ".join(notes[k] for k in off)
    measured = {"view_layers": [vl.name for vl in layers], "layer_overrides": layer_off, "time_limit": rnd(limit),
                "sequencer_strips": strips[:50]}
    expected = {"view_layers": want_layers, "min_time_limit": p["min_time_limit"], "sequencer_strips": []}
    return fraction_outcome(len(checks) - len(off), len(checks), measured, expected, detail, {"off": off})
