"""A privacy policy, loaded by the id and version a seed's or task's `sanitization_policy` names.

    contracts/privacy/<policy_id>@<policy_version>.json   (contracts/schemas/privacy-policy.schema.json)

Loading checks the file against its schema and model (`contracts.validation.read_json`), then
what a schema cannot say: the id and version inside agree with the file name, rule ids are
unique, every pattern and allow-pattern compiles. Every problem is a `ContractError` naming the
file and the field (`rules[3].pattern: not a valid regular expression: ...`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import cast

from contracts.digests import sha256_hex
from contracts.models import PrivacyPolicy
from contracts.validation import ROOT, ContractError, parse_json, validate_document

POLICY_DIR = Path(__file__).resolve().parent.parent / "contracts" / "privacy"
KINDS = ("forbidden", "secret", "personal", "licence")


@dataclass(frozen=True)
class Rule:
    id: str
    kind: str  # forbidden | secret | personal
    description: str
    regex: re.Pattern[str]
    validator: str | None
    allow: tuple[re.Pattern[str], ...]

    def find(self, text: str) -> Iterator[re.Match[str]]:
        """The rule's findings in `text`: pattern matches that pass the validator and that no
        allow-pattern excuses."""
        for match in self.regex.finditer(text):
            value = match.groupdict().get("value") or match.group(0)
            if self.validator and not VALIDATORS[self.validator](value):
                continue
            if any(a.search(match.group(0)) for a in self.allow):
                continue
            yield match


@dataclass(frozen=True)
class Policy:
    policy_id: str
    policy_version: str
    sha256: str  # of the policy file's bytes: every report names exactly what checked it
    source: str  # the file, for messages
    rules: tuple[Rule, ...]
    allowed_licences: tuple[str, ...]

    @property
    def ref(self) -> dict:
        return {"policy_id": self.policy_id, "policy_version": self.policy_version,
                "sha256": self.sha256}


def policy_path(policy_id: str, policy_version: str, policy_dir: Path | None = None) -> Path:
    return (policy_dir or POLICY_DIR) / f"{policy_id}@{policy_version}.json"


def load_policy(policy_id: str, policy_version: str, *, policy_dir: Path | None = None) -> Policy:
    """The policy `policy_id` at `policy_version`. Raises `ContractError` (file, field, why)."""
    path = policy_path(policy_id, policy_version, policy_dir)
    source = _display(path)
    if "/" in policy_id or "/" in policy_version or not path.is_file():
        known = sorted(p.name.removesuffix(".json") for p in path.parent.glob("*@*.json"))
        raise ContractError(source, ROOT, f"no privacy policy {policy_id}@{policy_version} "
                                          f"(known: {', '.join(known) or 'none'})")
    return _compile(source, path.read_bytes())


def load_policy_for(ref: Mapping | object) -> Policy:
    """The policy a seed's or task's `sanitization_policy` names ({policy_id, policy_version}
    as a dict, or the `SanitizationPolicy` model)."""
    if not isinstance(ref, Mapping):
        ref = {"policy_id": getattr(ref, "policy_id"), "policy_version": getattr(ref, "policy_version")}
    return load_policy(str(ref["policy_id"]), str(ref["policy_version"]))


@lru_cache(maxsize=32)
def _compile(source: str, data: bytes) -> Policy:
    doc = cast(PrivacyPolicy, validate_document("privacy-policy", parse_json(data, source), source))
    expected = Path(source).name.removesuffix(".json")
    if f"{doc.policy_id}@{doc.policy_version}" != expected:
        field = "policy_id" if not expected.startswith(f"{doc.policy_id}@") else "policy_version"
        raise ContractError(source, field, f"the file is named {expected}.json but holds "
                                           f"{doc.policy_id}@{doc.policy_version}")
    rules, seen = [], set()
    for index, rule in enumerate(doc.rules):
        if rule.id in seen:
            raise ContractError(source, f"rules[{index}].id", f"duplicate rule id {rule.id!r}")
        seen.add(rule.id)
        regex = _regex(rule.pattern, source, f"rules[{index}].pattern")
        allow = tuple(_regex(a, source, f"rules[{index}].allow[{i}]")
                      for i, a in enumerate(rule.allow or ()))
        rules.append(Rule(rule.id, rule.kind, rule.description, regex, rule.validator, allow))
    return Policy(doc.policy_id, doc.policy_version, sha256_hex(data), source, tuple(rules),
                  tuple(doc.allowed_licences))


def _regex(pattern: str, source: str, field: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ContractError(source, field, f"not a valid regular expression: {exc}") from None


def _display(path: Path) -> str:
    root = POLICY_DIR.parent.parent
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


# --- validators: checks a regular expression cannot make -------------------------------------------


def luhn(value: str) -> bool:
    digits = [int(c) for c in value if c.isdigit()]
    if len(set(digits)) < 2:  # 0000 0000 0000 0000 and friends pass Luhn but are no card
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d *= 2
            d -= 9 if d > 9 else 0
        total += d
    return total % 10 == 0


def prc_id(value: str) -> bool:
    """GB 11643-1999 (ISO 7064 MOD 11-2) check digit of an 18-character resident id."""
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    if len(value) != 18 or not value[:17].isdigit():
        return False
    check = "10X98765432"[sum(int(c) * w for c, w in zip(value[:17], weights)) % 11]
    return value[17].upper() == check


def e164(value: str) -> bool:
    digits = sum(c.isdigit() for c in value)
    return 8 <= digits <= 15 and ".." not in value and "--" not in value


_IDENTIFIER_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")


def token_like(value: str) -> bool:
    """Looks like a credential: letters and digits mixed, not a dotted name (`self.api_token`),
    not a path or a file name."""
    if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
        return False
    if _IDENTIFIER_PATH.match(value) or value.startswith(("/", "./", "../")):
        return False
    return not re.search(r"\.(?:py|json|md|txt|blend|png|jpe?g|sh|toml|ya?ml)$", value)


VALIDATORS = {"luhn": luhn, "prc_id": prc_id, "e164": e164, "token_like": token_like}
