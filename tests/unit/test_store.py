"""The filesystem content-addressed store: keys from content, atomic writes, integrity checks."""

from __future__ import annotations

import hashlib

import pytest

from activities.store import FilesystemStore, StoreIntegrityError


def test_identical_content_is_stored_once(tmp_path):
    store = FilesystemStore(tmp_path / "store")
    a = store.put_bytes(b"hello")
    (tmp_path / "f").write_bytes(b"hello")
    b = store.put_file(tmp_path / "f")
    assert a == b and a.sha256 == hashlib.sha256(b"hello").hexdigest() and a.size == 5
    assert store.count() == 1
    assert not any((tmp_path / "store" / "tmp").iterdir())  # no temp file left behind


def test_tree_round_trip(tmp_path):
    src = tmp_path / "src"
    (src / "a" / "b").mkdir(parents=True)
    (src / "top.txt").write_text("top")
    (src / "a" / "b" / "deep.bin").write_bytes(bytes(range(256)))
    store = FilesystemStore(tmp_path / "store")
    tree = store.put_tree(src)
    assert set(store.tree_entries(tree)) == {"top.txt", "a/b/deep.bin"}
    out = store.materialize_tree(tree, tmp_path / "out")
    assert (out / "a" / "b" / "deep.bin").read_bytes() == bytes(range(256))
    only_a = store.materialize_tree(tree, tmp_path / "only", prefix="a/")
    assert [p.name for p in only_a.rglob("*") if p.is_file()] == ["deep.bin"]
    assert store.put_tree(src) == tree  # same content, same key


def test_corrupted_object_is_detected(tmp_path):
    store = FilesystemStore(tmp_path / "store")
    ref = store.put_bytes(b"payload")
    obj = tmp_path / "store" / ref.key
    obj.chmod(0o644)
    obj.write_bytes(b"tampered")
    with pytest.raises(StoreIntegrityError):
        store.get_bytes(ref)
    with pytest.raises(StoreIntegrityError):
        store.fetch_to(ref, tmp_path / "out.bin")
    assert not (tmp_path / "out.bin").exists()
