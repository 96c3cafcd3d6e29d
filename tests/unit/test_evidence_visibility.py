"""Whether the VL judge can see the graded parts: the rubric's names and the renderer's
measured pixel boxes (the bpy side is tests/integration/test_evidence_part_pixels.py)."""

from verifiers.evidence import MIN_PART_PIXELS, rubric_names, unseen_parts


def test_rubric_names_are_every_string_of_the_criteria_params_keys_included():
    rubric = {"criteria": [
        {"id": "C1", "method": "objects_exist", "params": {"objects": ["Top", "Leg"]}},
        {"id": "C2", "method": "aabb_within", "params": {"regions": {"Leg": {"min": [0, 0, 0]}}}},
        {"id": "C3", "method": "material_on_faces", "params": {"object": "Top", "material": "Wood"}},
    ]}
    assert rubric_names(rubric) >= {"Top", "Leg", "Wood", "regions", "objects"}
    assert "C1" not in rubric_names(rubric)  # ids and methods are not params


def test_a_part_is_seen_when_one_view_shows_it_large_enough_on_both_sides():
    manifest = {"part_pixels": {
        "front": {"Top": [98.0, 3.3], "Leg": [4.9, 58.0], "Floor": [1.0, 1.0]},
        "close": {"Top": [150.0, 48.0], "Leg": [8.4, 73.4]},
    }}
    assert unseen_parts(manifest, {"Top", "Leg", "Wood"}) == {}  # Floor is not graded
    unseen = unseen_parts(manifest, {"Top", "Leg"}, min_px=9)
    assert list(unseen) == ["Leg"] and "at most 8x73 px" in unseen["Leg"]
    assert "needs 9x9" in unseen["Leg"] and "resolution" in unseen["Leg"]


def test_a_graded_part_hidden_from_the_views_is_unseen_and_malformed_sizes_count_as_nothing():
    manifest = {"part_pixels": {"front": {"Box": ["x", None], "Arm": [40, 40]}}}
    unseen = unseen_parts(manifest, ["Box", "Arm", "Floor"], hidden=["Floor"])
    assert set(unseen) == {"Box", "Floor"}
    assert "evidence.hide" in unseen["Floor"]
    assert f"needs {MIN_PART_PIXELS}x{MIN_PART_PIXELS}" in unseen["Box"]


def test_names_the_renderer_did_not_draw_are_not_parts():
    # a light, a camera, a material or an object missing from the reference draws nothing
    assert unseen_parts({"part_pixels": {"front": {}}}, {"Key.Light", "Camera", "Wood"}) == {}
    assert unseen_parts({}, {"Top"}) == {}  # an old manifest without measurements
