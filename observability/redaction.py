"""Redact secret values from anything an agent records or sends into a sandbox.

A secret is the value of any environment variable whose name contains KEY, TOKEN, SECRET or
PASSWORD (case-insensitive), or starts with ARKEVO_LLM_API.  Every occurrence of such a value is
replaced by ``[REDACTED:<NAME>]`` wherever it appears: trajectories, tool arguments and outputs,
error messages.  A value is matched as a whole token -- not preceded or followed by a letter or
digit -- longest first, so a secret that contains another is replaced whole, and a short value
inside a longer word ("prod" in "production") is left alone.

Values shorter than ``MIN_SECRET_LENGTH`` (8) and boolean-like words
(``TOKENIZERS_PARALLELISM=false``) are not treated as secrets: replacing every "false" or "us" in
a trajectory would destroy it without protecting anything, and nothing that short is a key.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

SECRET_NAME_PARTS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
SECRET_NAME_PREFIXES = ("ARKEVO_LLM_API",)
MIN_SECRET_LENGTH = 8
NOT_SECRETS = frozenset({"true", "false", "yes", "no", "none", "null", "on", "off"})


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return any(part in upper for part in SECRET_NAME_PARTS) or upper.startswith(SECRET_NAME_PREFIXES)


def is_secret_value(value: str) -> bool:
    return len(value) >= MIN_SECRET_LENGTH and value.strip().lower() not in NOT_SECRETS


class Redactor:
    """Replaces known secret values in strings and in nested JSON-like data."""

    def __init__(self, secrets: Mapping[str, str]) -> None:
        by_value: dict[str, str] = {}
        for name, value in secrets.items():
            if value and is_secret_value(value):
                by_value.setdefault(value, name)
        self._pairs = sorted(by_value.items(), key=lambda kv: len(kv[0]), reverse=True)
        self._names = dict(self._pairs)
        # One pass, longest first: a token boundary is anything but a letter or digit.
        self._pattern = re.compile("(?<![0-9A-Za-z])(?:" + "|".join(re.escape(v) for v, _ in self._pairs)
                                   + ")(?![0-9A-Za-z])") if self._pairs else None

    @classmethod
    def from_environ(cls, *environs: Mapping[str, str]) -> Redactor:
        """Secrets of the given environments (default: this process's ``os.environ``)."""
        merged: dict[str, str] = {}
        for environ in environs or (os.environ,):
            merged.update({k: v for k, v in environ.items() if is_secret_name(k)})
        return cls(merged)

    @property
    def names(self) -> list[str]:
        return sorted({name for _, name in self._pairs})

    def text(self, value: str) -> str:
        if self._pattern is None:
            return value
        return self._pattern.sub(lambda m: f"[REDACTED:{self._names[m.group(0)]}]", value)

    def value(self, data: Any) -> Any:
        """Redact every string (dict keys included) in dicts, lists and tuples."""
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, Mapping):
            return {self.value(k): self.value(v) for k, v in data.items()}
        if isinstance(data, (list, tuple)):
            return type(data)(self.value(v) for v in data)
        return data

    def contains_secret(self, value: str) -> bool:
        return any(secret in value for secret, _ in self._pairs)
