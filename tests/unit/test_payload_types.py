"""Every payload's field types are real types, never strings: Temporal's converter resolves a
dataclass's hints with `typing.get_type_hints`, which looks a string up in the class's module
as the workflow sandbox's `sys.modules` has it -- and a payload module imported only by another
passed-through module is not there (a PlannedTask's FrozenTask failed to decode: "name
'BlobRef' is not defined"). So the payload modules do not use `from __future__ import
annotations`, and define a class before the classes that use it."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import pytest

import contracts.payloads as payloads

MODULES = [importlib.import_module(f"contracts.payloads.{m.name}") for m in pkgutil.iter_modules(payloads.__path__)]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_every_payload_field_has_a_real_type(module):
    classes = [c for c in vars(module).values() if isinstance(c, type) and c.__module__ == module.__name__]
    assert any(dataclasses.is_dataclass(c) for c in classes)
    strings = {f"{c.__name__}.{k}": v for c in classes for k, v in c.__dict__.get("__annotations__", {}).items()
               if isinstance(v, str)}
    assert strings == {}


def test_one_module_per_stage_and_no_re_exports():
    names = [n for m in MODULES for n, c in vars(m).items() if isinstance(c, type) and c.__module__ == m.__name__]
    assert len(names) == len(set(names)), "a payload name defined twice"
    assert not [n for n in vars(payloads) if not n.startswith("_") and n not in {m.__name__.rsplit(".", 1)[-1] for m in MODULES}]
