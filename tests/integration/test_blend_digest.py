"""The scene digest of real Blender saves: the same scene saved by two processes (bytes that
differ in the clock-seeded fields) has one digest; a moved vertex, another material colour or a
file the reader cannot follow does not share it."""

from __future__ import annotations

import gzip
import hashlib
import subprocess
import time
from pathlib import Path

import pytest

from blender.blend_digest import DIGEST_VERSION, scene_digest
from blender.runner import bpy_python

pytestmark = pytest.mark.blender

# Our own scene script (not outside code), run as a plain bpy process: a mesh with faces and a
# node material, the two kinds of data Blender seeds from the clock.
SCENE = """
import sys, bpy, bmesh
out, dz, red, compress = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "1"
bpy.ops.wm.read_factory_settings(use_empty=True)
bm = bmesh.new()
bmesh.ops.create_cube(bm, size=1.0)
bm.verts.ensure_lookup_table()
bm.verts[0].co.z += dz
mesh = bpy.data.meshes.new("Box")
bm.to_mesh(mesh)
mat = bpy.data.materials.new("Paint")
mat.use_nodes = True
mat.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (red, 0.2, 0.1, 1.0)
mesh.materials.append(mat)
obj = bpy.data.objects.new("Box", mesh)
bpy.context.scene.collection.objects.link(obj)
bpy.ops.wm.save_as_mainfile(filepath=out, compress=compress)
"""


def save(path: Path, dz: float = 0.0, red: float = 0.8, compress: bool = False) -> Path:
    subprocess.run([bpy_python(), "-c", SCENE, str(path), str(dz), str(red), "1" if compress else "0"],
                   check=True, capture_output=True, timeout=120)
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def saves(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("blend-digest")
    first = save(d / "first.blend")
    time.sleep(1.1)  # the face-set colour seed changes with the second
    return {"first": first, "second": save(d / "second.blend"),
            "moved": save(d / "moved.blend", dz=0.001), "recoloured": save(d / "recoloured.blend", red=0.81),
            "compressed": save(d / "compressed.blend", compress=True)}


def test_the_same_scene_saved_twice_has_one_digest(saves):
    first, second = saves["first"], saves["second"]
    assert sha256(first) != sha256(second)  # Blender wrote the clock into both
    assert scene_digest(first) == scene_digest(second)
    assert scene_digest(first).startswith(f"{DIGEST_VERSION}:")


def test_a_change_to_the_scene_changes_the_digest(saves):
    digests = {name: scene_digest(saves[name]) for name in ("first", "moved", "recoloured")}
    assert len(set(digests.values())) == 3, digests


def test_a_file_the_reader_cannot_follow_shares_nothing(saves, tmp_path):
    compressed = saves["compressed"]
    assert scene_digest(compressed) == f"sha256:{sha256(compressed)}"
    truncated = tmp_path / "truncated.blend"
    truncated.write_bytes(saves["first"].read_bytes()[:-100])
    assert scene_digest(truncated) == f"sha256:{sha256(truncated)}"
    gz = tmp_path / "gzip.blend"
    gz.write_bytes(gzip.compress(saves["first"].read_bytes()))
    assert scene_digest(gz).startswith("sha256:")


def test_a_field_renamed_in_the_files_sdna_is_not_masked(saves, tmp_path):
    """The masks follow the file's own type catalogue: a file whose SDNA names the seed field
    otherwise (Blender then ignores those bytes) has nothing of its meshes zeroed."""
    data = saves["first"].read_bytes()
    name = b"face_sets_color_seed\0"
    assert data.count(name) == 1
    renamed = tmp_path / "renamed.blend"
    renamed.write_bytes(data.replace(name, b"face_sets_color_seeX\0"))
    assert scene_digest(renamed).startswith(f"{DIGEST_VERSION}:")
    assert scene_digest(renamed) != scene_digest(saves["first"])


def _screen_edges(data: bytes) -> list[int]:
    """Offsets of the ScrEdge structs' (v1, v2) pointer pairs in a real save."""
    import io

    from blender.blend_digest import _BHEAD, _blocks, _masks

    blocks = list(_blocks(io.BytesIO(data), len(data)))
    dna = next(b for b in blocks if b.code == b"DNA1")
    masks = _masks(data[dna.head + _BHEAD.size:dna.head + _BHEAD.size + dna.length])
    return [b.head + _BHEAD.size + i * masks[b.sdna].size + offset
            for b in blocks if b.code != b"DNA1" and b.sdna in masks
            for i in range(b.count) for offset in masks[b.sdna].pairs]


def test_a_screen_edge_written_with_its_vertices_swapped_shares_the_digest(saves, tmp_path):
    """Blender orders a screen edge's two vertices by run-time address (ASLR), so the same scene
    saved twice sometimes swaps one pair (CI saw it); the pair is unordered, any other change to
    it is not."""
    data = saves["first"].read_bytes()
    edges = _screen_edges(data)
    assert len(edges) > 10  # the default screens' edges
    at = edges[len(edges) // 2]
    swapped = bytearray(data)
    swapped[at:at + 16] = data[at + 8:at + 16] + data[at:at + 8]
    (tmp_path / "swapped.blend").write_bytes(swapped)
    assert sha256(tmp_path / "swapped.blend") != sha256(saves["first"])
    assert scene_digest(tmp_path / "swapped.blend") == scene_digest(saves["first"])
    rewired = bytearray(data)
    rewired[at:at + 8] = data[at + 8:at + 16]  # both ends on one vertex: another screen
    (tmp_path / "rewired.blend").write_bytes(rewired)
    assert scene_digest(tmp_path / "rewired.blend") != scene_digest(saves["first"])
