"""What every `arkevo` command's --help shares: its exit codes, as an epilog kept line by line."""

from __future__ import annotations

import argparse
import textwrap


class HelpFormatter(argparse.HelpFormatter):
    """Wraps a text written on one line (a command's description) to the terminal and keeps a
    text written on several lines as it stands (the module docstring, the exit-code table)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def exit_codes(ok: str, no: str | None, bad: str = "", more: dict[int, str] | None = None) -> str:
    """The epilog of a command's --help: what 0, 1 and 2 mean (`no` None: it never exits 1),
    and any codes of its own (`more`)."""
    rows = [(0, ok)] + ([(1, no)] if no else []) + [(2, "bad usage or input" + (f": {bad}" if bad else ""))]
    rows += sorted((more or {}).items())
    return "\n".join(["exit codes:"] + [textwrap.fill(text, 92, initial_indent=f"  {code}  ",
                                                       subsequent_indent="     ") for code, text in rows])


def add_command(sub, name: str, epilog: str, **kwargs) -> argparse.ArgumentParser:
    """A subcommand whose --help ends with `epilog` (exit_codes) as written."""
    return sub.add_parser(name, epilog=epilog, formatter_class=HelpFormatter, **kwargs)
