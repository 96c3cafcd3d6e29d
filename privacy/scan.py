"""Pure scanning: a folder (or some files of it) against a privacy policy.

* text (UTF-8, no NUL byte): every line, every rule; a finding names file, line, column, rule;
* PNG / JPEG / MP4: the texts their metadata holds (`privacy.media`), the pixels and samples
  are covered as they are;
* `.blend`: covered only through `blend_texts(sha256)`, the texts and custom properties read
  by Blender in the sandbox (`privacy.extract`); without it, pending;
* anything else: pending ("unknown binary type");
* `seed.json` and an admission record: `provenance.license` must be an allowed licence.

No I/O but reading the files; no Blender. The checkpoints (`privacy.checkpoints`) decide
what to scan and what a finding does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from pathlib import Path

from privacy.media import MediaUnreadable, media_kind, read_metadata
from privacy.policy import Policy
from privacy.report import PendingItem, PrivacyFinding, PrivacyReport, redact

BlendTexts = Callable[[str], dict | None]

MAX_TEXT_BYTES = 64 << 20  # a text file larger than this is not read (pending)
MAX_MEDIA_BYTES = 512 << 20
BLEND_PENDING = "embedded text blocks and custom properties need bpy (read in the sandbox)"
UNKNOWN_BINARY = "unknown binary type"
LICENCE_FILES = ("seed.json", "admission-record.json")


def scan_text(text: str, policy: Policy, file: str, *, location: str | None = None,
              offset: int | None = None) -> list[PrivacyFinding]:
    """Every rule on every line of `text`; lines and columns 1-based."""
    findings = []
    for number, line in enumerate(text.splitlines(), start=1):
        for rule in policy.rules:
            for match in rule.find(line):
                findings.append(PrivacyFinding(file, rule.id, rule.kind, redact(match.group(0)),
                                               number, match.start() + 1, offset, location))
    return findings


def is_blend(name: str, head: bytes) -> bool:
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return head.startswith(b"BLENDER") or suffix.rstrip("0123456789") == "blend"


def scan_blend_extraction(doc: dict, policy: Policy, file: str) -> list[PrivacyFinding]:
    """Findings in what `privacy/blend_text.py` read out of a .blend: text datablocks
    (`text:NAME`, line by line) and strings (`prop:Object/Cube/key`, `name:Object/Cube`, ...)."""
    findings = []
    for text in doc.get("texts", []):
        findings += scan_text("\n".join(text["lines"]), policy, file,
                              location=f"text:{text['name']}")
    for item in doc.get("strings", []):
        findings += scan_text(item["value"], policy, file, location=item["location"])
    return findings


def check_licence(doc: object, policy: Policy, file: str, text: str) -> list[PrivacyFinding]:
    """`provenance.license` of a seed manifest or admission record against the policy's
    allowed licences (an SPDX id; `A OR B` needs one allowed, `A AND B` all)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("provenance"), dict):
        return []
    licence = doc["provenance"].get("license")
    if not isinstance(licence, str):
        return []
    allowed = set(policy.allowed_licences)
    expr = licence.strip().strip("()")
    if " OR " in expr:
        ok = any(part.strip() in allowed for part in expr.split(" OR "))
    else:
        ok = all(part.strip() in allowed for part in expr.split(" AND "))
    if ok:
        return []
    line, column = _position(text, '"license"')
    return [PrivacyFinding(file, "licence-not-allowed", "licence", redact(licence) if len(
        licence) > 24 else licence, line, column, None, "provenance.license")]


def _position(text: str, needle: str) -> tuple[int | None, int | None]:
    for number, line in enumerate(text.splitlines(), start=1):
        if (index := line.find(needle)) >= 0:
            return number, index + 1
    return None, None


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def scan_file(path: Path, rel: str, policy: Policy, blend_texts: BlendTexts | None
              ) -> tuple[list[PrivacyFinding], PendingItem | None]:
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(64)
    if is_blend(rel, head):
        doc = blend_texts(sha256_of(path)) if blend_texts else None
        if doc is None:
            return [], PendingItem(rel, sha256_of(path), BLEND_PENDING)
        if doc.get("error"):
            return [], PendingItem(rel, sha256_of(path),
                                   f"Blender could not read it: {doc['error']}"[:500])
        return scan_blend_extraction(doc, policy, rel), None
    if (kind := media_kind(head, rel)) is not None:
        if size > MAX_MEDIA_BYTES:
            return [], PendingItem(rel, sha256_of(path), f"{kind} larger than {MAX_MEDIA_BYTES} bytes")
        try:
            texts = read_metadata(kind, path.read_bytes())
        except MediaUnreadable as exc:
            return [], PendingItem(rel, sha256_of(path), f"unreadable {kind}: {exc}"[:500])
        findings = []
        for item in texts:
            findings += scan_text(item.text, policy, rel, location=item.location, offset=item.offset)
        return findings, None
    if size > MAX_TEXT_BYTES:
        return [], PendingItem(rel, sha256_of(path), f"larger than {MAX_TEXT_BYTES} bytes")
    data = path.read_bytes()
    try:
        if b"\0" in data:
            raise UnicodeDecodeError("utf-8", data, 0, 1, "NUL byte")
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return [], PendingItem(rel, hashlib.sha256(data).hexdigest(), UNKNOWN_BINARY)
    findings = scan_text(text, policy, rel)
    if path.name in LICENCE_FILES:
        try:
            findings += check_licence(json.loads(text), policy, rel, text)
        except ValueError:
            pass  # not JSON: the seed's own validation says so
    return findings, None


def list_files(root: Path) -> list[str]:
    """Every regular file under `root` (links to files followed, linked folders not), sorted."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def scan_tree(root: Path, policy: Policy, *, blend_texts: BlendTexts | None = None,
              files: Iterable[str] | None = None, checkpoint: str = "admission") -> PrivacyReport:
    """Scan every file under `root` (or only `files`, relative posix paths)."""
    root = Path(root)
    report = PrivacyReport(checkpoint, policy.policy_id, policy.policy_version, policy.sha256)
    for rel in (sorted(files) if files is not None else list_files(root)):
        findings, pending = scan_file(root / rel, rel, policy, blend_texts)
        report.files_scanned += 1
        report.findings += findings
        if pending is not None:
            report.pending.append(pending)
    return report
