"""FAKE scripted model replies for tests of the final review and task derivation -- written by
hand, NOT produced by a model. Each helper returns a `Reply` for `FakeOpenAIServer`'s script
(or the dict that goes into one), so a test reads as the conversation it stages.

`table_like_candidate` builds a complete derived seed as the deriver would propose it: a client
brief with the given numbers and part names, a real bpy build script modelled on
seeds/table-model/materials/build_reference.py, and the requirements with their checks.
`harbor_task_from_draft` lays out a minimal Harbor task folder from a seed's draft (what a
publication's task/ holds that derivation reads), without running the pipeline.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from tests.fakes.openai_server import Reply, final

CORNERS = ("FL", "FR", "BL", "BR")
TABLE_SEED = Path(__file__).resolve().parents[2] / "seeds" / "table-model"
REFERENCE = TABLE_SEED / "materials" / "build_reference.py"


def swap_table(text: str, width: float, depth: float, height: float, top: float, leg: float,
               inset: float, top_name: str, leg_prefix: str, material: str) -> str:
    """A bundled table script with another table's numbers and names: its constants lines and
    the part and material names it creates."""
    text = re.sub(r"^WIDTH, DEPTH, HEIGHT, TOP = .*$", f"WIDTH, DEPTH, HEIGHT, TOP = {width}, {depth}, {height}, {top}",
                  text, flags=re.M)
    text = re.sub(r"^LEG, INSET = .*$", f"LEG, INSET = {leg}, {inset}", text, flags=re.M)
    # the variant's round legs stand where the reference's square ones do, sized to them
    text = re.sub(r"^INSET, R_FOOT, R_TOP = .*$", f"INSET, R_FOOT, R_TOP = {round(inset + leg / 2, 4)}, "
                  f"{round(leg * 0.37, 4)}, {round(leg * 0.53, 4)}", text, flags=re.M)
    return (text.replace('"Tabletop"', f'"{top_name}"').replace('f"Leg.{tag}"', f'f"{leg_prefix}.{{tag}}"')
            .replace('"Wood"', f'"{material}"'))


def pattern_reply(skill: str = "model a piece of furniture from primitives to exact dimensions",
                  deliverable: str = "a .blend scene with named parts and one material",
                  check_kinds: list[str] | None = None, varies: list[str] | None = None) -> Reply:
    return final(json.dumps({
        "skill": skill, "deliverable": deliverable,
        "check_kinds": check_kinds or ["objects_exist", "solid_parts", "dimensions", "ground_contact",
                                       "aabb_within", "parts_touch", "material_on_faces", "surface_shader",
                                       "new_objects"],
        "varies": varies or ["the product", "overall size", "part names", "material name"],
        "keeps": ["named parts", "sizes graded on world bounding boxes", "one named material"]}))


def candidates_reply(candidates: list[dict]) -> Reply:
    return final(json.dumps({"candidates": candidates}))


def reviewer_reply(verdict: str, reasons: list[str], checks: dict | None = None) -> Reply:
    checks = checks or {name: {"ok": verdict == "accept", "note": "checked"}
                        for name in ("coverage", "leaks", "client_request", "margins")}
    return final(json.dumps({"verdict": verdict, "reasons": reasons, "checks": checks}))


def _m(value: float) -> str:
    return f"{value:.2f}"


def table_like_candidate(seed_id: str, title: str, product: str, width: float, depth: float,
                         height: float, top: float, leg: float, *, top_name: str = "Tabletop",
                         leg_prefix: str = "Leg", material: str = "Wood", inset: float = 0.03,
                         brief: str | None = None) -> dict:
    """A deriver's candidate: a four-legged `product` of width x depth x height metres with a
    `top`-thick top on square `leg` legs named `<leg_prefix>.FL` etc."""
    legs = [f"{leg_prefix}.{c}" for c in CORNERS]
    parts = [top_name, *legs]
    names = ", ".join(f"`{p}`" for p in parts)
    brief = brief or f"""# {product}: modelling request

Our shop is listing the {product} and needs it as a Blender model built in an empty scene
(`inputs/start.blend`). Deliver `outputs/result.blend`.

Measurements, in metres: overall footprint {_m(width)} along X by {_m(depth)} along Y, total
height {_m(height)} from the floor (z = 0). The board on top is {_m(top)} thick. Legs stand
at the four corners, each within {_m(min(width, depth) / 4)} of both edges of the board that
meet there, reach up to the board and rest on the floor. Every part is a closed solid.

Name the parts {names}, and give every part a material named `{material}`, a plain surface
our shader swap can replace. Anything else in the scene must stay inside the {product}'s outline.

Checklist: REQ-PARTS, REQ-OVERALL-SIZE, REQ-TOP-SIZE, REQ-ON-FLOOR, REQ-LEG-PLACEMENT,
REQ-LEGS-MEET-TOP, REQ-MATERIAL, REQ-OTHER-OBJECTS.
"""
    build = f'''"""Reference project for {seed_id}: the {product} built from primitives (run in bpy).

{_m(width)} m (X) x {_m(depth)} m (Y) x {_m(height)} m (Z): a {_m(top)} m thick top on four
{_m(leg)} m square legs, standing on the floor (z = 0). Every part carries ``{material}``.
"""
''' + swap_table(REFERENCE.read_text().split('"""', 2)[2], width, depth, height, top, leg, inset,
                  top_name, leg_prefix, material)
    requirements = [
        ("REQ-PARTS", "objects_exist", ["objects"]),
        ("REQ-PARTS", "solid_parts", ["objects", "min_faces", "min_volume", "min_extent", "max_loose_fraction"]),
        ("REQ-OVERALL-SIZE", "dimensions", ["objects", "expected", "tolerance"]),
        ("REQ-TOP-SIZE", "dimensions", ["object", "expected", "tolerance"]),
        ("REQ-ON-FLOOR", "ground_contact", ["objects", "z", "tolerance", "min_area"]),
        ("REQ-LEG-PLACEMENT", "aabb_within", ["regions"]),
        ("REQ-LEGS-MEET-TOP", "parts_touch", ["object", "others", "tolerance"]),
        ("REQ-MATERIAL", "material_on_faces", ["objects", "material", "min_share"]),
        ("REQ-MATERIAL", "surface_shader", ["material", "shader", "max_emission", "min_alpha"]),
        ("REQ-PARTS", "parts_unoccluded", ["objects", "min_share", "elevations"]),
        ("REQ-PARTS", "render_overrides", ["border", "compositor", "sequencer", "colour_neutral", "engines"]),
        ("REQ-OTHER-OBJECTS", "new_objects", ["expected", "others_max", "others_types", "others_within",
                                              "all_within"]),
        ("REQ-OTHER-OBJECTS", "others_drawn", ["expected", "others_within"]),
    ]
    return {"seed_id": seed_id, "title": title, "workflow_primary": "MOD-01",
            "profession_primary": "PRF-3DART", "start_mode": "from_scratch", "brief": brief,
            "build_reference": build,
            "requirements": [{"id": i, "check": c, "params": p} for i, c, p in requirements]}


def harbor_task_from_draft(draft: Path, dest: Path) -> Path:
    """A minimal Harbor task folder from a seed draft: instruction.md, task.toml, tests/ (task
    and rubric), environment/workspace/inputs/ (the public attachments) and solution/."""
    task = json.loads((draft / "task.json").read_text())
    (dest / "tests").mkdir(parents=True)
    shutil.copyfile(draft / task["instruction"], dest / "instruction.md")
    for name in ("task.json", "rubric.json"):
        shutil.copyfile(draft / name, dest / "tests" / name)
    inputs = dest / "environment" / "workspace" / "inputs"
    for rel in task["public_attachments"]:
        (inputs / Path(rel).name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(draft / rel, inputs / Path(rel).name)
    shutil.copytree(draft / "solution", dest / "solution")
    (dest / "task.toml").write_text(
        f'schema_version = "1.4"\n\n[metadata]\ntask_id = "{task["task_id"]}"\n'
        f'workflow_primary = "{task["workflow_primary"]}"\n')
    return dest


# --- the draft a scripted author writes for a table-like derived seed ---------------------------

TABLE_DRAFT = TABLE_SEED / "draft"
REQUIREMENTS = ("REQ-PARTS", "REQ-OVERALL-SIZE", "REQ-TOP-SIZE", "REQ-ON-FLOOR",
                "REQ-LEG-PLACEMENT", "REQ-LEGS-MEET-TOP", "REQ-MATERIAL", "REQ-OTHER-OBJECTS")


def template_passages(width: float, top: float, material: str) -> dict[str, str]:
    """Passages of `table_like_candidate`'s default brief, one per requirement."""
    return {"REQ-PARTS": "Name the parts", "REQ-OVERALL-SIZE": f"overall footprint {_m(width)} along X",
            "REQ-TOP-SIZE": f"The board on top is {_m(top)} thick",
            "REQ-ON-FLOOR": "rest on the floor", "REQ-LEG-PLACEMENT": "Legs stand at the four corners",
            "REQ-LEGS-MEET-TOP": "reach up to the board",
            "REQ-MATERIAL": f"give every part a material named `{material}`",
            "REQ-OTHER-OBJECTS": "Anything else in the scene must stay inside"}


def table_like_draft(seed_id: str, product: str, width: float, depth: float, height: float,
                     top: float, leg: float, *, top_name: str, leg_prefix: str, material: str,
                     inset: float = 0.03, passages: dict[str, str] | None = None,
                     profile: str = "blender-70-30") -> dict[str, str]:
    """FAKE author output: the whole draft ({"draft/<rel>": text}) for a table-like seed made by
    `table_like_candidate` with the same numbers and names -- the bundled table draft's
    scripts with the numbers and names swapped, and rubric, judge, spec and ledger computed.
    `profile` "rule-only" drops the VL criteria and judge.json (a task graded on rules alone)."""
    passages = passages or template_passages(width, top, material)
    legs = [f"{leg_prefix}.{c}" for c in CORNERS]
    parts = [top_name, *legs]
    zone = round(min(width, depth) / 4, 4)
    w2, d2 = width / 2, depth / 2

    def script(rel: str, h: float = height) -> str:
        return swap_table((TABLE_DRAFT / rel).read_text(), width, depth, h, top, leg, inset,
                          top_name, leg_prefix, material)

    region = {}
    for tag, sx, sy in (("FL", -1, -1), ("FR", 1, -1), ("BL", -1, 1), ("BR", 1, 1)):
        xs = sorted([sx * (w2 + 0.002), sx * (w2 - zone)])
        ys = sorted([sy * (d2 + 0.002), sy * (d2 - zone)])
        region[f"{leg_prefix}.{tag}"] = {"min": [round(xs[0], 4), round(ys[0], 4), -0.003],
                                          "max": [round(xs[1], 4), round(ys[1], 4), round(height + 0.002, 4)]}
    outline = {"min": [round(-w2 - 0.01, 4), round(-d2 - 0.01, 4), -0.01],
               "max": [round(w2 + 0.01, 4), round(d2 + 0.01, 4), round(height + 0.01, 4)]}
    rubric = {"rubric_version": "1", "criteria": [
        {"id": "C01", "method": "objects_exist", "params": {"objects": parts}},
        {"id": "C02", "method": "dimensions", "params": {"objects": parts, "expected": [width, depth, height],
                                                          "tolerance": 0.01, "frame": 1}},
        {"id": "C03", "method": "dimensions", "params": {"object": top_name, "expected": [width, depth, top],
                                                          "tolerance": 0.005, "frame": 1}},
        {"id": "C04", "method": "ground_contact", "params": {"objects": legs, "z": 0.0, "tolerance": 0.003,
                                                              "min_area": 0.0001, "frame": 1}},
        {"id": "C05", "method": "aabb_within", "params": {"frame": 1, "regions": region}},
        {"id": "C06", "method": "parts_touch", "params": {"object": top_name, "others": legs,
                                                           "tolerance": 0.003, "frame": 1}},
        {"id": "C07", "method": "material_on_faces", "params": {"objects": parts, "material": material,
                                                                 "min_share": 0.999, "every_face": True,
                                                                 "frame": 1}},
        {"id": "C08", "method": "solid_parts", "params": {"objects": parts, "min_faces": 4, "min_volume": 0.0002,
                                                           "min_extent": 0.02, "max_loose_fraction": 0.0,
                                                           "max_shells": 1, "min_fill": 0.9, "max_holes": 0,
                                                           "frame": 1}},
        {"id": "C09", "method": "surface_shader", "params": {"material": material,
                                                              "shader": ["BSDF_PRINCIPLED", "BSDF_DIFFUSE"],
                                                              "max_emission": 0.0, "min_alpha": 0.99}},
        {"id": "C10", "method": "new_objects", "params": {
            "expected": parts, "others_max": 12, "others_types": ["MESH", "CAMERA", "LIGHT", "EMPTY"],
            "all_within": True, "others_within": outline, "frame": 1}},
        {"id": "C11", "method": "others_drawn", "params": {"expected": parts, "others_within": outline,
                                                            "frame": 1}},
        {"id": "C12", "method": "parts_unoccluded", "params": {"objects": parts, "min_share": 0.5,
                                                                "elevations": [15, 45], "frame": 1}},
        {"id": "C13", "method": "render_overrides", "params": {
            "border": False, "frame_step": 1, "simplify": False, "compositor": False, "sequencer": False,
            "colour_neutral": True, "engines": ["BLENDER_EEVEE", "CYCLES"], "min_resolution": [640, 360],
            "motion_blur": False, "square_pixels": True, "max_pixel_filter": 3, "max_world_strength": 10}},
        {"id": "C14", "method": "shape_measures", "params": {"object": top_name, "fill": [0.95, 1.001], "frame": 1}},
        {"id": "C15", "method": "scene_units", "params": {"system": "METRIC", "scale_length": 1.0}},
        {"id": "C16", "method": "normals_follow_faces", "params": {"objects": parts, "max_angle": 90,
                                                                    "max_share": 0.0}},
        {"id": "C17", "method": "unchanged_over_frames", "params": {"objects": parts}},
        {"id": "C18", "method": "under_stays_open", "params": {"under": top_name, "parts": parts, "max_span": 0.5,
                                                                "max_fill": 0.5, "max_side_fill": 0.5, "frame": 1}}]}
    task = json.loads((TABLE_DRAFT / "task.json").read_text())
    task["task_id"], task["title"] = seed_id, f"Model the {product} to dimensions"
    described = {
        "C01": f"objects {', '.join(parts)} exist",
        "C02": f"the five parts together measure {_m(width)} x {_m(depth)} x {_m(height)} m (+-1 cm)",
        "C03": f"{top_name} measures {_m(width)} x {_m(depth)} x {_m(top)} m (+-5 mm)",
        "C05": f"each leg lies in its own corner zone, within {zone} m of both edges meeting there",
        "C07": f"the material {material} covers every face of the five parts",
        "C09": f"{material}'s surface is a Principled or Diffuse BSDF, not emissive, opaque",
        "C10": f"at most 12 other objects, each a mesh, camera, light or empty; every other object inside the "
               f"{product}'s own box (1 cm slack), a camera, light or empty by where it stands",
        "C11": f"everything else the render draws (other meshes and instances) lies inside the {product}'s "
               f"own box (1 cm slack)"}
    for c in task["criteria"]:
        c["description"] = described.get(c["id"], c["description"])
    if profile == "rule-only":
        task["criteria"] = [c for c in task["criteria"] if c["channel"] == "rule"]
        task["verification"]["weights"] = {"rule": 1.0, "vl": 0.0, "agent": 0}
        task["scoring_profile"] = {"profile_id": "rule-only", "profile_version": "1"}
    judge = json.loads((TABLE_DRAFT / "judge.json").read_text())
    for q in judge["questions"]:
        q["prompt"] = (q["prompt"].replace("dining table", product).replace("1.20 m wide", f"{_m(width)} m wide")
                       .replace("0.80 m deep", f"{_m(depth)} m deep").replace("0.75 m high", f"{_m(height)} m high")
                       .replace("four-legged table", f"four-legged {product}").replace("wood", material.lower()))
    diagonal = (width ** 2 + depth ** 2 + height ** 2) ** 0.5
    judge["evidence"]["target"] = {"center": [0.0, 0.0, round(height / 2, 4)], "radius": round(0.43 * diagonal, 4)}
    judge["evidence"]["close"] = {"center": [round(w2 * 0.83, 4), round(-d2 * 0.75, 4), round(height * 0.8, 4)],
                                  "radius": round(0.3 * max(width, depth), 4), "direction": [1.0, -1.0, 0.6]}
    spec = f"""# {product.capitalize()}: product sheet and model spec

Units are metres, Z is up, the floor is the plane z = 0. The {product} is centred on the origin
with its long side along X. **Front** is the -Y side, **left** is -X.

| object | part |
|---|---|
""" + "".join(f"| `{p}` | {'the top' if p == top_name else 'leg ' + p.split('.')[-1]} |\n" for p in parts) + f"""
Sizes are measured on the world-space bounding box of what Blender shows.

- **REQ-PARTS** - the five objects above exist, each a solid: faces enclosing at least 0.2 litres, at least 2 cm across on every axis, no loose vertices; one closed piece with no hole through it, filled across (every cross-section at least 90 % of its outline); nothing hides a part: at least half of each part's surface is seen from above or around the {product} (15 or 45 degrees up) along a line crossing no other geometry. *(critical)*
- **REQ-OVERALL-SIZE** - together they measure {_m(width)} (X) x {_m(depth)} (Y) x {_m(height)} (Z), each within 1 cm. *(critical)*
- **REQ-TOP-SIZE** - `{top_name}` measures {_m(width)} x {_m(depth)} and is {_m(top)} thick, each within 5 mm, a solid slab filling at least 95 % of its box.
- **REQ-ON-FLOOR** - every leg stands on z = 0 (within 3 mm) by downward faces of at least 1 cm², nothing below.
- **REQ-LEG-PLACEMENT** - each leg lies entirely within {zone} m of both edges of the top meeting at its corner, and no higher than the top surface.
- **REQ-LEGS-MEET-TOP** - every leg's surface reaches the top's: a gap of at most 3 mm.
- **REQ-MATERIAL** - every face of the five parts uses a material named exactly `{material}`, a Principled or Diffuse BSDF with no emission and alpha 1. *(critical)*
- **REQ-OTHER-OBJECTS** - at most 12 other objects, each a mesh, camera, light or empty; every other object (a camera, light or empty where it stands), and whatever is drawn as instances, inside x +-{_m(w2 + 0.01)}, y +-{_m(d2 + 0.01)}, z -0.01..{_m(height + 0.01)}. *(critical)*
"""
    instruction = f"""# {product.capitalize()} for our catalogue

Hello, please model our {product} in Blender from the empty scene in `inputs/start.blend`.
The sizes, part names and the acceptance checklist ({', '.join(f'`{r}`' for r in REQUIREMENTS)})
are in `inputs/spec.md`. Save the finished scene as `outputs/result.blend`. Thank you!
"""
    criteria_of = {}
    for c in task["criteria"]:
        criteria_of.setdefault(c["requirement_id"], []).append(c["id"])
    ledger = {"ledger_version": "1", "requirements": [
        {"requirement_id": r, "source": {"file": "materials/brief.md", "passage": passages[r]},
         "public": {"file": "public/spec.md", "anchor": r}, "criteria": criteria_of[r],
         "evidence": "; ".join(described.get(cid, cid) for cid in criteria_of[r])}
        for r in REQUIREMENTS]}
    vl = {"draft/judge.json": json.dumps(judge, indent=2)} if task["verification"]["weights"]["vl"] else {}
    return {
        "draft/instruction.md": instruction, "draft/public/spec.md": spec,
        "draft/task.json": json.dumps(task, indent=2), "draft/rubric.json": json.dumps(rubric, indent=2),
        **vl, "draft/ledger.json": json.dumps(ledger, indent=2),
        "draft/solution/solve.py": script("solution/solve.py"),
        "draft/calibration/defects/bar_height.py": script("calibration/defects/bar_height.py",
                                                          round(height + 0.19, 4)),
        "draft/calibration/defects/missing_leg.py": script("calibration/defects/missing_leg.py"),
        "draft/calibration/defects/no_material.py": script("calibration/defects/no_material.py"),
        "draft/calibration/variants/tapered_round_legs.py": script("calibration/variants/tapered_round_legs.py"),
        **{f"draft/calibration/gaming/{p.name}": script(f"calibration/gaming/{p.name}")
           for p in sorted((TABLE_DRAFT / "calibration" / "gaming").glob("*.py"))[:2]},  # review needs two
    }
