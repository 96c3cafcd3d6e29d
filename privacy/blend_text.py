"""Read every string a .blend carries, for the privacy scan: text datablocks line by line, every
custom (ID) property (strings and integers, recursively through groups and arrays), names,
file paths, 3D text bodies, node labels and video-sequencer text strips.

    python blend_text.py --out texts.json ID=path/to/a.blend [ID=path/to/b.blend ...]

writes {ID: {"texts": [{"name", "lines"}], "strings": [{"location", "value"}]}} or, for a file
Blender cannot open, {ID: {"error": "..."}}. Locations: `prop:Object/Cube/key`,
`prop:Object/Arm/pose.bones/Hand/key`, `name:Object/Cube`, `file:Image/wood`, `body:Curve/Label`,
`label:Material/Wood/Frame`, `strip:Scene/Title`.

It runs INSIDE Blender's own Python: stdlib + bpy only, no arkevo imports. The .blend is outside
content (a seed's, an author model's), so the worker runs this in the trial sandbox
(`privacy/extract.py`), never in its own process; files are opened with scripts disabled.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import bpy

# bpy.data collections whose datablocks are read (names, custom properties, file paths).
COLLECTIONS = (
    ("objects", "Object"), ("scenes", "Scene"), ("materials", "Material"), ("meshes", "Mesh"),
    ("collections", "Collection"), ("worlds", "World"), ("cameras", "Camera"),
    ("lights", "Light"), ("images", "Image"), ("node_groups", "NodeTree"),
    ("textures", "Texture"), ("actions", "Action"), ("armatures", "Armature"),
    ("curves", "Curve"), ("texts", "Text"), ("libraries", "Library"), ("lattices", "Lattice"),
    ("metaballs", "MetaBall"), ("particles", "ParticleSettings"), ("speakers", "Speaker"),
    ("sounds", "Sound"), ("movieclips", "MovieClip"), ("fonts", "Font"),
    ("cache_files", "CacheFile"), ("grease_pencils", "GreasePencil"),
    ("pointclouds", "PointCloud"), ("volumes", "Volume"), ("hair_curves", "Curves"),
    ("linestyles", "FreestyleLineStyle"), ("palettes", "Palette"), ("brushes", "Brush"),
    ("masks", "Mask"), ("lightprobes", "LightProbe"),
)


def _plain(value):
    """An IDProperty value as plain Python (groups to dicts, arrays to lists)."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "to_list"):
        return value.to_list()
    return value


def _leaves(value, path):
    """(path, text) for every string (and integer) inside a property value."""
    value = _plain(value)
    if isinstance(value, bytes):
        yield path, value.decode("utf-8", "replace")
    elif isinstance(value, str):
        yield path, value
    elif isinstance(value, bool) or isinstance(value, float):
        return
    elif isinstance(value, int):
        yield path, str(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}/{key}")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}[{index}]")


def _props(owner, path, out):
    try:
        keys = list(owner.keys())
    except (AttributeError, TypeError):
        return
    for key in keys:
        try:
            value = owner[key]
        except (KeyError, TypeError):
            continue
        for where, text in _leaves(value, f"{path}/{key}"):
            out.append({"location": f"prop:{where}", "value": text})


def _nodes(tree, path, out):
    for node in getattr(tree, "nodes", ()):
        if node.label:
            out.append({"location": f"label:{path}/{node.name}", "value": node.label})
        _props(node, f"{path}/nodes/{node.name}", out)


def read_blend():
    texts, strings = [], []
    for attr, kind in COLLECTIONS:
        for block in getattr(bpy.data, attr, ()):
            where = f"{kind}/{block.name}"
            strings.append({"location": f"name:{where}", "value": block.name})
            _props(block, where, strings)
            filepath = getattr(block, "filepath", "")
            if isinstance(filepath, str) and filepath:
                strings.append({"location": f"file:{where}", "value": filepath})
            if kind == "Text":
                texts.append({"name": block.name, "lines": block.as_string().splitlines()})
            if kind == "Curve" and isinstance(getattr(block, "body", None), str):
                strings.append({"location": f"body:{where}", "value": block.body})
            if kind == "Object" and block.pose is not None:
                for bone in block.pose.bones:
                    _props(bone, f"{where}/pose.bones/{bone.name}", strings)
            if kind == "Armature":
                for bone in block.bones:
                    _props(bone, f"{where}/bones/{bone.name}", strings)
            if kind in ("Material", "World", "NodeTree", "Scene"):
                tree = block if kind == "NodeTree" else getattr(block, "node_tree", None)
                if tree is not None:
                    _nodes(tree, where, strings)
            if kind == "Scene":
                strings.append({"location": f"stamp:{where}",
                                "value": block.render.stamp_note_text})
                for marker in block.timeline_markers:
                    strings.append({"location": f"marker:{where}", "value": marker.name})
                editor = block.sequence_editor
                strips = getattr(editor, "strips_all", None) or getattr(editor, "sequences_all", ())
                for strip in strips if editor else ():
                    strings.append({"location": f"name:{where}/strips", "value": strip.name})
                    if isinstance(getattr(strip, "text", None), str):
                        strings.append({"location": f"strip:{where}/{strip.name}",
                                        "value": strip.text})
                    _props(strip, f"{where}/strips/{strip.name}", strings)
    return {"texts": texts, "strings": [s for s in strings if s["value"]]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("blends", nargs="+", help="ID=path of each .blend to read")
    args = ap.parse_args(argv)
    out = {}
    for item in args.blends:
        ident, _, path = item.partition("=")
        try:
            bpy.ops.wm.open_mainfile(filepath=path, load_ui=False, use_scripts=False)
        except RuntimeError as exc:
            out[ident] = {"error": (str(exc).strip().splitlines() or ["cannot open"])[-1][:500]}
            continue
        out[ident] = read_blend()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False)
    print(f"blend_text: read {len(out)} file(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
