"""Red team 40 (issue 33), in real Blender: a cabinet of staggered slats under a top.

table-model passed with walls between its legs built from three staggered rows of slats, each row
3.5 cm further in and 2 cm higher than the last: every slat ring its own piece (none runs over
half the height) and no vertical line through two rows (a third filled), yet seen from the front
or a side the rows close into solid walls. ``under_stays_open``'s ``max_side_fill``: seen straight
from the front or a side, other geometry closes at most half of the height anywhere across. The
apron, stretchers and corner braces of red team 38's test pass it (test_redteam38.py); rows of
slats with gaps between them pass here, the staggered cabinet does not. Since red team 44 a
line's fill counts what lies within 10 cm of it: the cabinet's walls fill that too.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.integration.test_redteam38 import MAKE as TABLES, PARTS
from tests.probe_cases import assert_refused_as_expected, build_scenes, probe_local

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

# red team 38's tables (their scenes are made again; only these are probed here)
MAKE = TABLES.split("\ntable(\"table\")")[0] + r'''


def slat_walls(rows, gap):
    """walls 0.80 x 0.48 m round the middle, floor to top: ``rows`` staggered rows of 2 cm slats
    (each 3.5 cm further in), a row of each every ``rows`` x 2 cm + ``gap``"""
    def extra(scene, wood):
        level, n = 0.0, 0
        while level < 0.71:
            for r in range(rows):
                low = level + r * 0.02
                high = min(low + 0.02, 0.71)
                if high - low < 0.005:
                    continue
                x, y = 0.40 - r * 0.035, 0.24 - r * 0.035
                for name, size, at in (("F", (2 * x, 0.01, high - low), (0.0, -y + 0.005, (low + high) / 2)),
                                       ("B", (2 * x, 0.01, high - low), (0.0, y - 0.005, (low + high) / 2)),
                                       ("L", (0.01, 2 * y, high - low), (-x + 0.005, 0.0, (low + high) / 2)),
                                       ("R", (0.01, 2 * y, high - low), (x - 0.005, 0.0, (low + high) / 2))):
                    add_on(f"Slat.{n}.{name}", size, at, wood)
                n += 1
            level += rows * 0.02 + gap
    return extra


table("louvred_cabinet", slat_walls(3, 0.0))
table("open_slats", slat_walls(1, 0.06))  # a slat every 8 cm: three quarters of each wall open
'''

CASES = {"OPEN": ("under_stays_open", {"under": "Tabletop", "parts": PARTS, "frame": 1})}
EXPECTED = {"louvred_cabinet": {"OPEN": "seen from the front, other geometry closes 9"}, "open_slats": {}}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam40"), MAKE, CASES, "redteam40", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_a_cabinet_of_staggered_slats_is_refused(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                         scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)
    measured = report["criteria"][0]["measured"]
    assert measured["span"] <= 0.5, measured  # no piece runs over half the height
    # the fill of a line is what lies within 10 cm of it since red team 44: the walls fill it too
    assert (measured["fill"] > 0.5) is (delivery == "louvred_cabinet"), measured
