"""The bundled table-model seed as test scenes are made from it: its draft, part names and outline
box, and the head of a bpy script that builds deliveries from the draft's own scripts."""

from __future__ import annotations

from pathlib import Path

DRAFT = Path(__file__).resolve().parents[1] / "seeds" / "table-model" / "draft"
PARTS = ["Tabletop", "Leg.FL", "Leg.FR", "Leg.BL", "Leg.BR"]
OUTLINE = {"min": [-0.61, -0.41, -0.01], "max": [0.61, 0.41, 0.76]}

# Run as `python make.py <draft> <out>`: `build(*scripts)` starts an empty scene and runs the
# draft's scripts (solution/solve.py, calibration/...) in it, as a delivery is made.
MAKE_HEAD = r'''
import sys
from pathlib import Path

import bpy  # before bmesh: importing bpy makes Blender's modules importable
import bmesh
from mathutils import Matrix

draft, out = Path(sys.argv[-2]), Path(sys.argv[-1])


def build(*scripts):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    for rel in scripts:
        exec(compile((draft / rel).read_text(), rel, "exec"), {"__name__": "__main__"})
'''
