"""Each instance's parameter values, deterministically.

Instance k's value of parameter p is drawn from sha256(sampler_seed, k, p, attempt): it depends
on nothing else, so adding a parameter value elsewhere, raising `count` or reordering the
parameters leaves the other instances' values as they were. An attempt is repeated only when the
drawn combination is the root's (the defaults) or an earlier instance's: every instance is a
different task.
"""

from __future__ import annotations

import hashlib
import itertools
from decimal import Decimal

from contracts.models import FamilyParameter, SeedFamily

Value = int | float | str
MAX_ATTEMPTS = 1000


class FamilyTooSmall(ValueError):
    """`count` asks for more distinct instances than the parameters can make."""


def grid(param: FamilyParameter) -> list[Value]:
    """Every value `param` may take, in order. A grid's values are rounded to the decimals its
    min and step are written with (so 1.0 + 3 x 0.1 is 1.3, as an instruction would state it),
    and are ints when min and step are."""
    if param.choices is not None:
        return list(param.choices)
    assert param.min is not None and param.max is not None and param.step is not None  # the model checked it
    n = int(round((param.max - param.min) / param.step + 1e-9))
    if isinstance(param.min, int) and isinstance(param.step, int):
        return [param.min + i * param.step for i in range(n + 1) if param.min + i * param.step <= param.max]
    places = max(_decimals(param.min), _decimals(param.step))
    values = [round(param.min + i * param.step, places) for i in range(n + 1)]
    return [v for v in values if v <= param.max + 1e-9]


def _decimals(x: int | float) -> int:
    exponent = Decimal(repr(x)).as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def defaults(family: SeedFamily) -> dict[str, Value]:
    return {name: p.default for name, p in family.parameters.items()}


def combinations(family: SeedFamily) -> int:
    total = 1
    for p in family.parameters.values():
        total *= len(grid(p))
    return total


def _draw(sampler_seed: int, index: int, name: str, attempt: int, n: int) -> int:
    digest = hashlib.sha256(f"{sampler_seed}\x00{index}\x00{name}\x00{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % n


def sample(family: SeedFamily, count: int | None = None) -> list[dict[str, Value]]:
    """The parameter values of instances 1..count (default: the family's count), in order."""
    count = family.count if count is None else count
    available = combinations(family) - 1  # the root takes the defaults
    if count > available:
        raise FamilyTooSmall(f"family.count: {count} instances asked, but the parameters make only "
                             f"{available} combinations besides the root's defaults")
    spaces = {name: grid(p) for name, p in family.parameters.items()}
    names = sorted(spaces)
    taken = {tuple(family.parameters[n].default for n in names)}
    out: list[dict[str, Value]] = []
    for index in range(1, count + 1):
        for attempt in range(MAX_ATTEMPTS):
            values = {n: spaces[n][_draw(family.sampler_seed, index, n, attempt, len(spaces[n]))] for n in names}
            key = tuple(values[n] for n in names)
            if key not in taken:
                break
        else:  # a nearly full space: take the first free combination in grid order instead
            values = _first_free(spaces, names, taken)
            key = tuple(values[n] for n in names)
        taken.add(key)
        out.append({n: values[n] for n in family.parameters})  # the seed.json's order
    return out


def _first_free(spaces: dict[str, list[Value]], names: list[str], taken: set[tuple]) -> dict[str, Value]:
    for combo in itertools.product(*(spaces[n] for n in names)):
        if combo not in taken:
            return dict(zip(names, combo))
    raise FamilyTooSmall("family.count: no combination left")  # unreachable: count was checked
