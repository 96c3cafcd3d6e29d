"""Measured similarity of a derived seed to its source task and to its sibling candidates.

A derived seed must be a new task, not the source with the names changed. Three measures, each
in [0, 1], over "profiles" (plain dicts, so they travel in records):

    text       cosine similarity of word unigram + bigram counts (lowercased words)
    structure  Jaccard over the check structure: the probe methods used and the
               `method.param` pairs they are given (the source's rubric, the candidate's plan)
    facts      Jaccard over concrete facts: every number (as a float rounded to 4 dp, so
               1.2 == 1.20; units are not converted) and every identifier written in
               backticks or double quotes (object and material names); requirement ids
               (REQ-...) are structure, not facts, and are left out

    combined = 0.5 * text + 0.25 * structure + 0.25 * facts

Two empty sets have Jaccard 0: nothing to compare counts as no overlap. A candidate whose
combined similarity reaches the threshold (`derivation_similarity_threshold` in
contracts/pipeline.json) is a near-duplicate.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable

WEIGHTS = {"text": 0.5, "structure": 0.25, "facts": 0.25}
_WORD = re.compile(r"[a-z0-9]+(?:[._][a-z0-9]+)*")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w])")
_QUOTED = re.compile(r"`([^`\n]{1,80})`|\"([^\"\n]{1,80})\"")  # not '': apostrophes
_REQUIREMENT = re.compile(r"^REQ-", re.I)


def words(text: str) -> Counter:
    """Unigram and bigram counts of the lowercased words."""
    tokens = _WORD.findall(text.lower())
    return Counter(tokens) + Counter(f"{a} {b}" for a, b in zip(tokens, tokens[1:]))


def number_key(value: float | str) -> str:
    """A number as a fact: a float rounded to 4 dp, written shortest (1.20 -> "1.2")."""
    return f"{abs(float(value)):.4f}".rstrip("0").rstrip(".")  # the sign is text, not the fact


def numbers_in(text: str) -> set[str]:
    return {number_key(n) for n in _NUMBER.findall(text)}


def facts_of(text: str) -> set[str]:
    numbers = numbers_in(text)
    names = {next(g for g in m.groups() if g is not None).strip() for m in _QUOTED.finditer(text)}
    return numbers | {n for n in names if n and not _REQUIREMENT.match(n)}


def structure_of(checks: Iterable[tuple[str, Iterable[str]]]) -> set[str]:
    """`method` and `method.param` tokens of (method, param names) pairs."""
    tokens = set()
    for method, params in checks:
        tokens.add(method)
        tokens.update(f"{method}.{p}" for p in params)
    return tokens


def profile(text: str, checks: Iterable[tuple[str, Iterable[str]]]) -> dict:
    return {"text": text, "structure": sorted(structure_of(checks)), "facts": sorted(facts_of(text))}


def profile_of_source(summary: dict) -> dict:
    """A source task (drafting.derivation summary): the instruction and public attachments it
    shows the solver, and its rubric's checks (the task's rule criteria without a rubric)."""
    text = "\n\n".join([summary.get("instruction", ""), *summary.get("public", {}).values()])
    rubric = summary.get("rubric") or {}
    if rubric.get("criteria"):
        checks = [(c["method"], c.get("params", {})) for c in rubric["criteria"]]
    else:
        checks = [(c["method"], ()) for c in (summary.get("task") or {}).get("criteria", [])
                  if c.get("channel") == "rule"]
    return profile(text, checks)


def profile_of_candidate(files: dict[str, str], plan: dict) -> dict:
    """A candidate seed: its public requirement documents (the .md materials) and the checks
    its plan names."""
    text = "\n\n".join(body for path, body in sorted(files.items()) if path.endswith(".md"))
    checks = [(r["check"], r.get("params", [])) for r in plan.get("requirements", [])]
    return profile(text, checks)


def cosine(a: Counter, b: Counter) -> float:
    dot = sum(count * b[token] for token, count in a.items())
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a | b else 0.0


def similarity(a: dict, b: dict) -> dict:
    """{"text", "structure", "facts", "combined"} of two profiles, rounded to 4 dp."""
    values = {"text": cosine(words(a["text"]), words(b["text"])),
              "structure": jaccard(a["structure"], b["structure"]),
              "facts": jaccard(a["facts"], b["facts"])}
    values["combined"] = sum(WEIGHTS[k] * v for k, v in values.items())
    return {k: round(v, 4) for k, v in values.items()}
