"""FAKE scripted author sessions, for tests only -- TEST FIXTURES, never a policy or a model.

They build the canned replies a `FakeOpenAIServer` answers an author round with, so tests can
drive `AuthorSession` / the `author_round` activity end to end without a model:

    script = author_writes(bundled_draft_files(SEEDS / "table-model"))
    with FakeOpenAIServer({"author:table-model": script}, route=route_by_role_and_seed) as fake:
        ...
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.fakes.openai_server import Reply, tool_call, tool_calls

# Prints the open (reference) scene's objects: the test sees what the sandbox's Blender has.
LIST_OBJECTS = ("import bpy\n"
                "print('OBJECTS', sorted(o.name for o in bpy.data.objects))\n")
WRITES_PER_TURN = 4


def author_writes(files: dict[str, str], inspect: bool = True, summary: str = "FAKE author: draft written",
                  read: str | None = "materials/brief.md") -> list[Reply]:
    """FAKE round: optionally inspect the reference scene and read a material, write `files`
    ({"draft/<rel>": text}) a few per turn, then submit."""
    script = []
    if inspect:
        script.append(tool_call("execute_blender_code", {"code": LIST_OBJECTS},
                                content="FAKE author: looking at the reference scene"))
    if read:
        script.append(tool_call("read_file", {"path": read}))
    items = list(files.items())
    for i in range(0, len(items), WRITES_PER_TURN):
        script.append(tool_calls(*(("write_file", {"path": p, "content": text})
                                   for p, text in items[i:i + WRITES_PER_TURN])))
    script.append(tool_call("submit", {"summary": summary}))
    return script


def author_needs_input(missing: list[str], summary: str = "FAKE author: the materials lack data") -> list[Reply]:
    """FAKE round: read the materials, then say what they lack."""
    return [tool_call("list_files", {}),
            tool_call("needs_input", {"missing": missing, "summary": summary})]


def bundled_draft_files(seed_dir: Path, max_gaming: int | None = None) -> dict[str, str]:
    """Every file under a seed's draft/ as {"draft/<rel>": text} (what a scripted author writes);
    with ``max_gaming``, only that many gaming samples (review needs two: the rest cost a test
    time, each a graded, rendered trial per round)."""
    draft = Path(seed_dir) / "draft"
    files = {f"draft/{p.relative_to(draft).as_posix()}": p.read_text(encoding="utf-8")
             for p in sorted(draft.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}
    gaming = sorted(k for k in files if k.startswith("draft/calibration/gaming/"))
    for extra in gaming[max_gaming:] if max_gaming is not None else []:
        del files[extra]
    return files


def rule_only(files: dict[str, str]) -> dict[str, str]:
    """A draft's files graded on rules alone (its VL criteria, judge.json and their ledger ids
    dropped): for tests of authoring, not of grading, where every calibration sample would
    otherwise render evidence."""
    out = dict(files)
    task = json.loads(out["draft/task.json"])
    dropped = {c["id"] for c in task["criteria"] if c["channel"] != "rule"}
    task["criteria"] = [c for c in task["criteria"] if c["id"] not in dropped]
    task["verification"]["weights"] = {"rule": 1.0, "vl": 0.0, "agent": 0}
    task["scoring_profile"] = {"profile_id": "rule-only", "profile_version": "1"}
    out["draft/task.json"] = json.dumps(task, indent=2)
    out.pop("draft/judge.json", None)
    if "draft/ledger.json" in out:
        ledger = json.loads(out["draft/ledger.json"])
        for requirement in ledger["requirements"]:
            requirement["criteria"] = [c for c in requirement["criteria"] if c not in dropped]
        out["draft/ledger.json"] = json.dumps(ledger, indent=2)
    return out


_ROLE = re.compile(r"^ARKEVO-ROLE:\s*(\S+)", re.M)
_ID = {"author": "seed_id", "reviewer": "seed_id", "deriver": "source_id"}


def _texts(body: Any, role: str) -> list[str]:
    messages = body.get("messages") if isinstance(body, dict) else None
    texts = []
    for m in messages or []:
        if isinstance(m, dict) and m.get("role") == role:
            content = m.get("content")
            if isinstance(content, list):  # content parts (images, text)
                content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
            texts.append(content or "")
    return texts


def route_by_role_and_seed(body: Any) -> str:
    """FAKE server route: "author:<seed_id>", "reviewer:<seed_id>" or "deriver:<source_id>",
    from the `ARKEVO-ROLE:` line of the system prompt and the id line of the first user
    message; "unrouted" when either is missing."""
    system = "\n".join(_texts(body, "system"))
    users = _texts(body, "user")
    role = _ROLE.search(system)
    if not role or not users:
        return "unrouted"
    name = role.group(1)
    found = re.search(rf"^{_ID.get(name, 'seed_id')}:\s*(\S+)", users[0], re.M)
    return f"{name}:{found.group(1)}" if found else f"{name}:unrouted"
