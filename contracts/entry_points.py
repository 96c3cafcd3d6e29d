"""Which modules are commands. `python -m X` of a module with no `if __name__ == "__main__":`
guard would import it, print nothing and exit 0, which reads as a pass (`python -m
verifiers.seed_check <seed>` once did exactly that). Every top-level package's `__init__` calls
`refuse_non_command`, so such a run says it is not a command, names the commands, and exits 2.

stdlib only, and nothing at import: every package imports this module, the workflow sandbox's
re-imports among them.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path

EXIT_NOT_A_COMMAND = 2  # argparse's exit code for a usage mistake
MAIN_GUARD = re.compile(r"""^if __name__ == ["']__main__["']\s*:""", re.MULTILINE)
COMMANDS = ("The commands: `arkevo` (.venv/bin/arkevo or python -m cli: seed, dataset, campaign, review, "
            "site, export, verifier), python -m workers, python -m workers.stack, python -m cli.demo; each answers "
            "--help (README.md, docs/operations.md)")
# What a user who ran one of these most likely wanted.
INSTEAD = {
    "verifiers.seed_check": "arkevo seed check DIR",
    "contracts.seed_check": "arkevo seed check DIR",
    "activities.admission": "arkevo seed check DIR",
    "verifiers.calibration": "arkevo seed calibrate DIR",
}


def has_main_guard(source: str) -> bool:
    return MAIN_GUARD.search(source) is not None


def requested_module(argv: list[str], main_spec_set: bool) -> str | None:
    """The X of `python [options] -m X …` while runpy is still importing X's packages (the
    `__main__` module has no spec yet), else None: a worker, pytest or a script already running
    imports packages without being asked to run one of their modules."""
    if main_spec_set:
        return None
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "-m":
            return argv[i + 1] if i + 1 < len(argv) else None
        if arg.startswith("-m"):
            return arg[2:]
        if arg in ("-c", "-") or not arg.startswith("-"):
            return None  # code or a script, not a module
        i += 2 if arg in ("-W", "-X") else 1
    return None


def _module_source(package_dirs: Iterable[str], relative: list[str]) -> str | None:
    for base in package_dirs:
        for path in (Path(base, *relative).with_suffix(".py"), Path(base, *relative, "__main__.py")):
            if path.is_file():
                return path.read_text(encoding="utf-8", errors="replace")
    return None  # no such module: Python's own "No module named …" follows


def refuse_non_command(package: str, package_dirs: Iterable[str]) -> None:
    """Exit 2 with a message if this process is `python -m <package>.<module>` and that module
    has no __main__ guard. Called from the package's `__init__` with `__name__, __path__`."""
    main = sys.modules.get("__main__")
    target = requested_module(list(getattr(sys, "orig_argv", ())),
                             main is None or getattr(main, "__spec__", None) is not None)
    if target is None or not target.startswith(package + "."):
        return
    source = _module_source(package_dirs, target[len(package) + 1:].split("."))
    if source is None or has_main_guard(source):
        return
    hint = f" For what you may have meant: {INSTEAD[target]}." if target in INSTEAD else ""
    sys.stderr.write(f"python -m {target}: not a command; it is a module the commands import and "
                     f"does nothing on its own.{hint}\n{COMMANDS}.\n")
    raise SystemExit(EXIT_NOT_A_COMMAND)
