"""Static probe catalogue: every rule method with its params as a JSON Schema, read from the
probe modules' source with `ast`.  It needs no bpy, and a seed's own ``draft/task_probes.py`` is
parsed, never imported or run: it is outside code, and admission runs in the worker.

What it reads: module-level functions decorated ``@primitive(...)`` (``primitive`` imported from
probe_core or probe_primitives, also under another name, or used as ``probe_core.primitive``)
whose arguments are literals or names of module-level literal constants -- ``FRAMES =
("frame_start", "frame_end")``, ``(*FRAMES, "object")``, ``{**SAMPLING}`` -- including constants
imported from probe_core.  Anything else (a computed argument, ``primitive`` used in any other
way) is a `ContractError` naming the file and line: what admission cannot read, it cannot check.

A method accepts the params it declares (type names of probe_core ``PARAM_TYPES`` or JSON-Schema
fragments) and its required names (of any type when not declared); nothing else.  The runtime
registry (``probe_primitives.catalogue()``) must agree: tests/unit/test_probe_catalogue.py.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeGuard

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from contracts.validation import ContractError

VERIFIERS = Path(__file__).resolve().parent
CORE = VERIFIERS / "probe_core.py"
LIBRARY = VERIFIERS / "probe_primitives.py"  # its `import probes_*` lines are the built-in groups
REGISTRY_MODULES = ("probe_core", "probe_primitives")  # where `primitive` can be imported from
DECORATOR_ARGS = ("name", "required", "params", "group", "frames")


@dataclass(frozen=True)
class Method:
    name: str
    group: str
    required: tuple[str, ...]  # "a|b": either one
    params: dict[str, Any]  # {param: JSON-Schema fragment}; {} = any value
    source: str
    line: int

    def schema(self) -> dict[str, Any]:
        """JSON Schema of the method's params object."""
        schema: dict[str, Any] = {"type": "object", "properties": self.params, "additionalProperties": False,
                                  "required": [r for r in self.required if "|" not in r]}
        either = [{"anyOf": [{"required": [n]} for n in r.split("|")]} for r in self.required if "|" in r]
        if either:
            schema["allOf"] = either
        return schema


class _NotLiteral(Exception):
    def __init__(self, node: ast.AST):
        super().__init__(ast.unparse(node))
        self.node = node


def _literal(node: ast.AST, names: dict[str, Any]) -> Any:
    """The value of a literal expression; names resolve to module-level literal constants."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)):
        items: list[Any] = []
        for elt in node.elts:
            if isinstance(elt, ast.Starred):
                spread = _literal(elt.value, names)
                if not isinstance(spread, (tuple, list)):
                    raise _NotLiteral(elt)
                items.extend(spread)
            else:
                items.append(_literal(elt, names))
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.Dict):
        out: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values):
            if key is None:  # **CONSTANT
                spread = _literal(value, names)
                if not isinstance(spread, dict):
                    raise _NotLiteral(value)
                out.update(spread)
            else:
                out[_literal(key, names)] = _literal(value, names)
        return out
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _literal(node.operand, names)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
    raise _NotLiteral(node)


def _json(value: Any) -> Any:
    """Tuples as lists, so fragments are JSON Schema (and compare equal to the registry's)."""
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    return value


def _parse(path: Path, source: str) -> ast.Module:
    try:
        return ast.parse(path.read_bytes(), filename=source)
    except SyntaxError as exc:
        raise ContractError(source, f"line {exc.lineno}", f"not valid Python: {exc.msg}") from None
    except OSError as exc:
        raise ContractError(source, "<root>", f"cannot read: {exc.strerror}") from None


def _read_module(path: Path, source: str, core: dict[str, Any]) -> tuple[dict[str, Any], list[Method]]:
    """(module-level literal constants, decorated methods) of one probe module, in source order
    (a constant reassigned later does not change a decorator above it)."""
    tree = _parse(path, source)
    names: dict[str, Any] = {}
    decorators: set[str] = set()  # local names of `primitive`
    modules: set[str] = set()  # local names of the registry modules
    allowed: set[int] = set()  # the decorator nodes read below
    methods: list[Method] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module in REGISTRY_MODULES and not node.level:
            for alias in node.names:
                local = alias.asname or alias.name
                names.pop(local, None)
                if alias.name == "primitive":
                    decorators.add(local)
                elif alias.name in core:
                    names[local] = core[alias.name]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                names.pop(local, None)
                if isinstance(node, ast.Import) and alias.name in REGISTRY_MODULES:
                    modules.add(local)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            try:
                value = _literal(node.value, names) if node.value is not None else None
                known = node.value is not None
            except _NotLiteral:
                known = False
            for target in targets:
                if isinstance(target, ast.Name):
                    if known:
                        names[target.id] = value
                    else:
                        names.pop(target.id, None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for deco in node.decorator_list:
                func = deco.func if isinstance(deco, ast.Call) else deco
                if _names_primitive(func, decorators, modules):
                    if not isinstance(deco, ast.Call) or isinstance(node, ast.ClassDef):
                        raise ContractError(source, f"line {deco.lineno}",
                                            f"{node.name}: register a function with @primitive(...)")
                    allowed.add(id(func))
                    methods.append(_method(node, deco, names, core, source))
            names.pop(node.name, None)
    for walked in ast.walk(tree):
        if _names_primitive(walked, decorators, modules) and id(walked) not in allowed:
            reason = ("primitive is used other than as the decorator @primitive(...) of a module-level "
                      "function, so admission cannot read what it registers")
            raise ContractError(source, f"line {walked.lineno}", reason)
    return names, methods


def _names_primitive(node: ast.AST, decorators: set[str], modules: set[str]) -> TypeGuard[ast.Name | ast.Attribute]:
    if isinstance(node, ast.Name):
        return node.id in decorators
    return (isinstance(node, ast.Attribute) and node.attr == "primitive" and isinstance(node.value, ast.Name)
            and node.value.id in modules)


def _method(fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, names: dict[str, Any],
            core: dict[str, Any], source: str) -> Method:
    def refuse(reason: str, line: int = call.lineno) -> ContractError:
        return ContractError(source, f"line {line}", f"@primitive of {fn.name}: {reason}")

    if len(call.args) > 1 or any(isinstance(a, ast.Starred) for a in call.args):
        raise refuse("takes at most one positional argument, the method name")
    nodes = dict(zip(("name",), call.args))
    for kw in call.keywords:
        if kw.arg not in DECORATOR_ARGS:
            raise refuse(f"unknown argument {kw.arg!r}" if kw.arg else "**kwargs cannot be read; write the arguments")
        nodes[kw.arg] = kw.value
    values = {}
    for key, node in nodes.items():
        try:
            values[key] = _literal(node, names)
        except _NotLiteral as exc:
            reason = (f"argument {key!r} is not a literal or a module-level literal constant "
                      f"({exc}); admission reads task probes without running them")
            raise refuse(reason, getattr(exc.node, "lineno", call.lineno)) from None
    name, group = values.get("name") or fn.name, values.get("group", "task")
    required, params = values.get("required", ()), values.get("params") or {}
    if not isinstance(name, str):
        raise refuse("the method name must be a string")
    if group not in core["GROUPS"]:
        raise refuse(f"unknown probe group {group!r}; use one of {', '.join(core['GROUPS'])}")
    if not isinstance(required, (tuple, list)) or not all(
            isinstance(r, str) and all(r.split("|")) for r in required):
        raise refuse("'required' must be a tuple of param names ('a|b': either one)")
    if not isinstance(params, dict):
        raise refuse("'params' must be a dict {param: type name or JSON-Schema fragment}")
    declared: dict[str, Any] = {}
    for key, kind in params.items():
        if isinstance(kind, str):
            if kind not in core["PARAM_TYPES"]:
                raise refuse(f"param {key!r} has unknown type {kind!r}; use one of {', '.join(core['PARAM_TYPES'])}")
            kind = core["PARAM_TYPES"][kind]
        if not isinstance(key, str) or not isinstance(kind, dict):
            raise refuse(f"param {key!r} must be declared by a type name or a JSON-Schema dict")
        try:
            Draft202012Validator.check_schema(_json(kind))
        except SchemaError as exc:
            raise refuse(f"param {key!r}: not a JSON Schema: {exc.message}") from None
        declared[key] = _json(kind)
    for alternatives in required:
        for key in alternatives.split("|"):
            declared.setdefault(key, {})
    return Method(name, group, tuple(required), declared, source, call.lineno)


def _methods_by_name(methods: list[Method], taken: dict[str, Method]) -> dict[str, Method]:
    out: dict[str, Method] = {}
    for m in methods:
        first = taken.get(m.name) or out.get(m.name)
        if first is not None:
            where = "a built-in primitive" if m.name in taken else f"already defined at line {first.line}"
            reason = f"rule method {m.name!r} is {where} ({first.source}); a method name has one definition"
            raise ContractError(m.source, f"line {m.line}", reason)
        out[m.name] = m
    return out


@cache
def _core_constants() -> dict[str, Any]:
    return _read_module(CORE, str(CORE), {})[0]


@cache
def builtin_methods() -> dict[str, Method]:
    """The built-in library: the probes_* modules probe_primitives imports."""
    core = _core_constants()
    groups = [a.name for node in _parse(LIBRARY, str(LIBRARY)).body if isinstance(node, ast.Import)
              for a in node.names if a.name.startswith("probes_")]
    methods = [m for g in groups for m in _read_module(VERIFIERS / f"{g}.py", str(VERIFIERS / f"{g}.py"), core)[1]]
    return _methods_by_name(methods, {})


def task_methods(path: Path, source: str | None = None) -> dict[str, Method]:
    """A task's own primitives (``task_probes.py``), parsed; one redefining a built-in, or
    defined twice, is a `ContractError`."""
    source = source or str(path)
    return _methods_by_name(_read_module(Path(path), source, _core_constants())[1], builtin_methods())


def rule_methods(task_probes: Path | None = None, source: str | None = None) -> dict[str, Method]:
    """Every method a rubric may name: the built-ins, plus the task's own when given."""
    own = task_methods(task_probes, source) if task_probes is not None else {}
    return {**builtin_methods(), **own}


def catalogue(task_probes: Path | None = None) -> dict[str, dict[str, Any]]:
    """{method: {group, required, params}}, comparable with ``probe_primitives.catalogue()``."""
    return {name: {"group": m.group, "required": list(m.required), "params": m.params}
            for name, m in sorted(rule_methods(task_probes).items())}
