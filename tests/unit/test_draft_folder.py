"""DraftFolder: what the author model's file tools may read and write, and every refusal."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from drafting.draft_folder import MAX_DRAFT_FILES, MAX_FILE_BYTES, DraftFolder


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


@pytest.fixture
def folder(tmp_path) -> DraftFolder:
    seed = tmp_path / "seed"
    (seed / "materials" / "refs").mkdir(parents=True)
    (seed / "seed.json").write_text('{"seed_id": "x"}')
    (seed / "materials" / "brief.md").write_text("Make a table 1.2 m wide.")
    (seed / "materials" / "refs" / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    (tmp_path / "outside.txt").write_text("not yours")
    return DraftFolder(seed)


def test_reads_seed_materials_and_draft(folder):
    assert folder.read("seed.json") == '{"seed_id": "x"}'
    assert folder.read("materials/brief.md").startswith("Make a table")
    assert folder.write("draft/public/spec.md", "# Spec\n").startswith("wrote draft/public/spec.md")
    assert folder.read("draft/public/spec.md") == "# Spec\n"
    assert folder.entries() == {"seed.json": 16, "materials/brief.md": 24,
                                "materials/refs/photo.png": 10, "draft/public/spec.md": 7}
    assert '"draft/public/spec.md"' in folder.list_files()
    assert folder.draft_files() == ["public/spec.md"]
    assert folder.write("draft/public/spec.md", "# Spec v2\n").startswith("wrote")  # replace
    assert folder.delete("draft/public/spec.md") == "deleted draft/public/spec.md"
    assert folder.draft_files() == []


def test_binary_files_are_named_not_read(folder):
    assert folder.read("materials/refs/photo.png") == "Error: materials/refs/photo.png: binary file, 10 bytes"


@pytest.mark.parametrize("path, reason", [
    ("/etc/passwd", "absolute paths are not allowed"),
    ("../outside.txt", "'..' and '.' are not allowed"),
    ("draft/../seed.json", "'..' and '.' are not allowed"),
    ("materials\\brief.md", "NUL and backslashes"),
    ("seed.json\x00", "NUL and backslashes"),
    ("", "non-empty string"),
    (None, "non-empty string"),
    ("outside.txt", "only seed.json, materials/... and draft/... can be read"),
    ("seed.json/x", "only seed.json"),
    ("materials/none.md", "no such file"),
])
def test_read_refusals(folder, path, reason):
    answer = folder.read(path)
    assert answer.startswith("Error:") and reason in answer, answer


@pytest.mark.parametrize("path, reason", [
    ("/etc/passwd", "absolute paths are not allowed"),
    ("../seed.json", "'..' and '.' are not allowed"),
    ("draft/../../x", "'..' and '.' are not allowed"),
    ("draft/./x", "'..' and '.' are not allowed"),
    ("materials/brief.md", "only files under draft/"),
    ("seed.json", "only files under draft/"),
    ("draft", "only files under draft/"),
    ("draft\\x.md", "NUL and backslashes"),
    ("draft/x\x00.md", "NUL and backslashes"),
])
def test_write_and_delete_refusals(folder, path, reason):
    before = snapshot(folder.root.parent)
    for answer in (folder.write(path, "pwned"), folder.delete(path)):
        assert answer.startswith("Error:") and reason in answer, answer
    assert snapshot(folder.root.parent) == before
    assert not Path("/etc/passwd").read_text().startswith("pwned")


def test_symlinks_are_refused_anywhere_on_the_path(folder, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    os.symlink(outside, folder.root / "draft" / "linked")
    os.symlink(tmp_path / "outside.txt", folder.root / "draft" / "file.md")
    os.symlink(tmp_path / "outside.txt", folder.root / "materials" / "leak.md")
    for answer in (folder.read("draft/linked/secret.txt"), folder.write("draft/linked/new.md", "x"),
                   folder.write("draft/file.md", "x"), folder.delete("draft/file.md"),
                   folder.read("materials/leak.md")):
        assert answer.startswith("Error:") and "is a symlink" in answer, answer
    assert not (outside / "new.md").exists()
    assert (tmp_path / "outside.txt").read_text() == "not yours"
    assert "materials/leak.md" not in folder.entries() and folder.draft_files() == []


def test_size_and_count_limits(folder):
    big = "x" * (MAX_FILE_BYTES + 1)
    assert "larger than" in folder.write("draft/big.txt", big)
    (folder.root / "materials" / "big.txt").write_text(big)
    assert "larger than" in folder.read("materials/big.txt")
    assert "content must be a string" in folder.write("draft/x.md", {"not": "text"})
    for i in range(MAX_DRAFT_FILES):
        (folder.root / "draft" / f"f{i}.txt").write_text("")
    answer = folder.write("draft/one-more.txt", "x")
    assert answer.startswith("Error:") and f"{MAX_DRAFT_FILES} files" in answer
    assert folder.write("draft/f0.txt", "replacing is fine").startswith("wrote")


def test_folder_conflicts_are_answers_not_exceptions(folder):
    folder.write("draft/a.md", "x")
    assert folder.write("draft/a.md/b.md", "y").startswith("Error:")
    folder.write("draft/d/e.md", "x")
    assert folder.write("draft/d", "y").startswith("Error:")
    assert folder.delete("draft/d").startswith("Error:")
