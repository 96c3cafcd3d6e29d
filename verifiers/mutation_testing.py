"""Mutation testing of a task's grader: the verdict over the gaming operators' rows (stdlib only).

The operators themselves run in Blender (``verifiers/mutations.py``, in a warm probe process);
this module turns their rows into the *mutation table* the calibration report, stage 05, the
review site and the publication show::

    table = mutation_table(rows, profile, task, params, allowed)
    table["score"]       # killed / applicable, counting allowed survivors as neither
    table["survivors"]   # applicable operators the grader did not kill (and the draft did not allow)

An operator is *killed* when the grader refuses the mutated delivery on the rule channel
alone: scored under the task's profile with a perfect VL answer (score 1, gate passed), it is
not a success.  The VL judge is not trusted to catch gaming -- the offline image-metric judge
is a crude stand-in and a model judge can be fooled -- so the rule probe must.

The author's own *gaming samples* (``draft/calibration/gaming/*.py``, at least ``MIN_GAMING``)
are judged the same way (``gaming_table``): each script is applied to a fresh open of the start
scene (all of a draft's in one sandboxed Blender, apart from the probe), the delivery probed,
and it must not succeed on the rule channel with a perfect VL answer -- an attack the judge might miss must fail anyway.  They are attacks on the
grader, not calibration samples of known quality: no renders, no VL, not in the margin.

A draft may allow an operator with a reason (``task.json`` ``mutation_allowed``: [{operator,
reason}]), e.g. a task whose spec permits extra objects; admission checks the names, the reviewer
sees the reasons, and an allowed survivor does not block the freeze.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# The operator names, in the order they run (verifiers/mutations.py registers them; a bpy test
# checks the two agree).  Listed here so admission can check a draft's `mutation_allowed`
# without Blender.
OPERATOR_NAMES = (
    "bbox_vertices", "strip_faces", "shrink_standins", "emission_lookalike", "material_unused_slot",
    "render_hidden", "occluder", "junk_objects", "retime_keys", "teleport_keys", "reparent_helpers",
    "transforms_to_parents", "modifiers_applied", "modifiers_neutralised", "camera_override",
    "light_override", "render_override",
    # issue 33: render-only modifiers, shells, after frame 1, surface graphs, render flags, roll, spread
    "render_only_collapse", "render_subdivision", "render_switch_nodes", "inner_shell_stub", "open_shell",
    "hole_through", "truncated_puck", "driver_after_first_frame", "shape_key_collapse",
    "material_keyed_after_first_frame", "displacement_wreck", "texture_one_texel", "mix_factor_zero",
    "colour_inverted", "holdout_parts", "shadow_catcher_parts", "camera_invisible", "collection_indirect_only",
    "collection_holdout", "camera_roll", "light_spread",
    # issue 33, after: a shape changed after frame 1 by a deforming parent (no modifier, no shape key)
    "parent_deform_after_first_frame",
    # issue 33, red team 2: instances, what the surface evaluates to, what a render uses beyond the parts
    "instanced_extra_geometry", "dupliverts_child", "gn_instance_on_part",
    "negative_emission", "transmission_glass", "coat_tint_black", "image_alpha_zero", "texture_other_uv",
    "texture_tiled",
    "sequencer_strip", "marker_camera_switch", "engine_setting_drift", "camera_mirrored", "negative_light",
    "light_node_boost", "custom_normals_flipped",
    # issue 33, red team 3: Principled inputs that re-shade, what else a render draws, hidden keys, sensor fit
    "principled_ior_mirror", "thin_film_tint", "normal_input_inverted", "nla_meta_hidden_animation",
    "sensor_fit_vertical_wide", "background_set_occluder", "hair_on_parts",
    # issue 33, red team 4: the view layer's filters and override, see-through parts, a world volume
    "view_layer_surfaces_off", "material_override_transparent", "parts_transparent", "world_volume_fog",
    # a light's object scale narrowing its beam or shrinking its emitter
    "light_scaled_narrow",
    # issue 33, red team 5: Principled layers that re-colour the surface, a see-through viewport colour
    "sheen_veil", "subsurface_deep", "specular_tint_coloured", "viewport_alpha_zero",
    # a close light outshining the rig, a depth-of-field smear
    "extra_lights_close", "dof_smear",
    # thin walls enclosing the parts inside their outline
    "enclosing_shell",
    # a box that turns in the grip or slides by itself
    "spin_while_carried", "slide_while_resting",
    # issue 33, red team 6: render settings that blank the picture
    "exposure_crushed", "compositor_flat",
    # what the file holds besides the scene: Python run on a trusted open, copies in another scene
    "autorun_text_module", "leftover_scene_copies",
    # a modifier shown in the viewport only
    "viewport_only_array",
    # a graded area light made a Cycles portal (it emits nothing)
    "light_portal",
    # issue 33, red team 7: a metal mirror, an output only another engine renders
    "metallic_mirror", "engine_output_ghost",
    # issue 33, red team 8: Freestyle lines painted over the picture
    "freestyle_blanket",
    # a joint bent off its own axis (joint_axes)
    "joint_off_axis",
    # a camera's clip range pulled in to the graded subject, the rest of the set cut away
    "camera_clip_tight",
    # issue 33, red team 9: renamed objects keep their ray visibility, faces, materials and node settings
    "ray_visibility_off_renamed", "material_backface_culled", "principled_enum_switch",
    # issue 33, red team 10: the world's light as an Emission shader inside a node group
    "world_group_emission",
    # issue 33, red team 11: a subdivision Cycles dices at render time
    "adaptive_subdivision", "uv_from_instancer",
    # issue 33, red team 12: a kept surface changed in the world; a holdout through a second collection
    "surface_normals_tilted", "surface_shade_smooth", "surface_mirrored", "surface_warped",
    "second_collection_holdout", "second_collection_indirect_only",
    # issue 33, red team 12: a light output only one engine uses; a light the camera sees
    "engine_light_output_off", "engine_light_output_boost", "camera_visible_light",
    # issue 33, red team 12: a Specular Tint past 1
    "specular_tint_overbright", "specular_tint_infinite",
    # issue 33, red team 13: robot-carry, an arm re-posed through the set or holding the box from inside
    "elbow_branch_flipped", "pad_flipped_through_tip",
    # issue 33, red team 13: displacement the render shades as a bump, or moves only at the vertices
    "displacement_bump_ribs", "displacement_bump_tangent", "displacement_at_one_vertex",
    # issue 33, red team 13: the working colour space, a compositor reading a layer that does not render
    "working_space_switched", "compositor_hidden_layer",
    # issue 33, red team 13: a part's mesh kept in the file with no object
    "mesh_kept_no_object",
    # issue 33, red team 14: colour management a render applies
    "view_false_colour", "look_greyscale", "white_balance_cast", "display_device_hdr", "output_view_raw",
    # issue 33, red team 14: lights a render draws
    "light_shell_over_parts", "blinding_sun",
    # issue 33, red team 14: a material's volume and coat
    "volume_emission_halo", "volume_dark_absorption", "coat_milky_white",
    # issue 33, red team 14: values that are not numbers
    "light_colour_nan", "camera_nan_setting", "light_blend_nan",
    # issue 33, red team 15: what a render bakes and sums
    "texture_level_windows", "clamp_light_away", "chain_folded_at_end",
    # issue 33, red team 16: the file's own camera
    "camera_smears_parts", "camera_clips_parts",
    # issue 33, red team 17: between frames, every channel in view, what else the file delivers
    "part_passes_through_between_frames", "texture_on_faces_away", "texture_red_channel_only",
    "leftover_scene_mesh_curves", "leftover_scene_instances", "collection_exporter_rescaled",
    # issue 33, red team 18: after frame 1, where the engines part, what else lights or frames
    "clock_deletes_faces", "base_colour_engine_split", "camera_shifted_off_parts", "glowing_helper",
    "displaced_helper", "stereo_top_bottom", "output_grey", "world_colour_linked_bright", "extra_light_narrow_beam",
    "extra_light_swarm",
    # issue 33, open red-team items: a fill focused by its own Spread, a metal's edges darkened by its tint,
    # a link folded into its neighbour
    "fill_focused_by_spread", "metal_edge_tint_black", "hinge_folded_in",
    # red team 19: between frames as the frames show it, outputs Blender picks, the evaluator's edge
    # cases, animation written into another data-block, how the file shows the objects when opened
    "part_jumps_through_between_frames", "light_output_over_material", "texture_floored_by_exclusion",
    "texture_switched_by_black_hue", "foreign_path_hides_object", "kept_objects_off_in_viewports",
    # red team 20: units, the model as the file opens, frames past the supplied range, shading normals
    "unit_scale_centimetres", "parts_off_in_viewports", "parts_shade_turned_away", "parts_shrink_past_range",
    "part_hidden_by_engine_driver", "saved_between_frames", "area_lights_focused", "extra_light_grazing_target",
    "base_colour_flips_in_single_precision", "principled_thin_wall", "camera_looks_up_past_parts",
    "part_emits_without_showing", "render_single_layer", "stamp_burnt_over_picture",
    # red team 21: a sheared part, a namesake from a library, a copy two instances deep, a material's
    # viewport display, rotation channels the mode ignores
    "kept_part_sheared", "namesake_linked_from_library", "copy_two_instances_deep",
    "kept_materials_viewport_recoloured", "rotation_left_under_quaternion",
    # red team 21: a texture cancelled by a second read, greyed, pushed past white
    "texture_cancelled_by_second_read", "texture_greyscaled", "texture_pushed_past_white",
    # red team 22: a sheared light, the engine read through a node group, a world summed or textured past
    # its limit, parts that glow, a viewport colour keyed later, unbaked simulations, the active camera read,
    # a preview range past the end
    "light_sheared_by_parent", "engine_read_through_node_group", "world_backgrounds_added",
    "world_texture_overbright", "parts_glow", "viewport_colour_keyed_later", "parts_fall_as_rigid_bodies",
    "parts_read_active_camera", "parts_collapse_in_preview_range",
    # red team 23: editor state, the scene's own settings, a read jumping tiles, a pad hovering, playback read
    "kept_objects_editor_locked", "scene_gravity_and_preview_changed", "texture_read_jumps_tiles",
    "held_object_hangs_below_pad", "part_driven_by_playback", "normal_map_turned_inward",
    # red team 24: shaders that let the light through, a clip range no depth holds, a driver reading the
    # frame range, a coat carrying the colour, a glowing patch
    "parts_ray_portal", "parts_hair_shader", "camera_clip_vast", "part_reads_frame_range",
    "coat_tint_carries_colour", "emission_patch",
    # red team 25: data from another file, a patch of discarded texture, a collection that locks what it
    # holds, a driver on session state, a turned normal behind a Bump
    "part_linked_from_packed_library", "texture_discarded_on_patch", "kept_objects_in_unselectable_collection",
    "part_driven_by_session_state", "bump_turns_normal_inward",
    # red team 26: light the camera does not see, glow that takes light away, a light's temperature
    "glowing_helper_hidden_from_camera", "glowing_cube_instanced", "negative_glow_helper",
    "sun_in_indirect_only_collection", "extra_light_hot_temperature", "viewport_only_mask", "camera_far_away",
    "camera_is_an_empty", "world_colour_negative", "area_light_not_normalised", "eevee_light_threshold_cut",
    "emission_switched_by_engine_modulo", "emission_colour_nan_at_zero",
    # red team 27: what the renderers do not read
    "texture_squeezed_by_curve_levels", "kept_object_hidden_in_viewport_animated", "kept_mesh_faces_hidden",
    "kept_camera_background_image",
    # red team 28: a camera that looks the other way, a surface laid on a part, a guard on the values a
    # parametric check looks at, a piece lifted off what it held, viewport metal, a strip light
    "camera_scaled_negative", "coincident_skin_over_parts", "parametric_guard_below_delivered",
    "touching_piece_lifted_clear", "viewport_display_metallic", "strip_light_against_target",
    "image_empty_over_parts",
    # red team 30: a camera's lens shifted off its aim
    "camera_lens_shifted_off_aim",
    # red team 30's open finding: a piece sheared into a stick across its own box
    "pieces_sheared_thin",
    # red team 31: a machine's links snapping and flickering between frames
    "moving_parts_flicker",
    # red team 31: what the file holds besides the graded scene's render
    "uv_islands_mirrored", "material_slot_linked_to_object", "second_scene_added",
    # red team 32: a linked Coat Weight past 1, parts inside out under culling, a strip picture
    "coat_weight_linked_past_one", "parts_inside_out_culled", "render_resolution_strip",
    # red team 33: a colour attribute added to a kept mesh, a stacked UV map made active
    "mesh_colour_attribute_added", "active_uv_map_stacked",
    # red team 34: an Array's spacing pinned to the delivered Count, a light's Power read from the frame rate
    "array_pitch_pinned_to_count", "light_power_read_from_frame_rate", "spare_face_volume_glow",
    # red team 36: a slot and a saw cut between the section planes, two pieces run into one, a rod for a top
    "part_slotted_between_sections", "part_sawn_nearly_through", "pieces_run_into_each_other", "top_turned_to_rod",
    # red team 37: a shudder under the step-change limit, a vertex group on a kept mesh
    "moving_parts_shudder", "vertex_group_added",
    # red team 38: a light ticked Holdout, a face in a glowing second material, a colour
    # keyed over the frames, more legs under a top
    "extra_light_holdout", "face_in_glowing_material", "material_colour_keyed_after_first_frame",
    "more_legs_under_part",
    # red team 39: the paint canvas left on a decoy image node, a Single Image paint canvas, a kept
    # mesh's own settings and custom properties
    "paint_canvas_left_on_decoy", "single_image_paint_canvas", "kept_mesh_settings_changed",
    # red team 40: a cabinet of staggered slat rows under a top
    "louvred_box_under_part",
    # red team 41: UV faces shrunk onto the coverage grid's corners, a leftover named like the
    # probe's camera, an attribute with an editing prefix, full-turn rotations, helper objects
    # kept outside the scene
    "uv_faces_shrunk_to_grid_corners", "leftover_named_like_probe_camera", "kept_mesh_attribute_editing_prefix",
    "rotation_full_turns", "camera_and_light_outside_scene",
    # red team 42: a Base Color above 1, pieces of a part stacked face to face
    "base_colour_above_one", "pieces_stacked_face_to_face", "reference_panel_as_wide_as_its_distance",
    # red team 43: the paint slot through a stacked UV map, a black Mask over the strokes, a swing
    # every 6 frames, "_RNA_UI..." custom properties
    "paint_slot_through_stacked_uv_map", "paint_strokes_masked", "moving_parts_swing_every_six_frames",
    "kept_object_rna_ui_custom_props",
    # red team 44: a Spread read as 1 / sin², a negative subsurface scale, parts saved in Edit Mode
    # with their faces hidden, a post stepped sideways, pieces the viewport alone moves, a colour and
    # a normal read from attributes, a colour mixed by a keyed scene property, an unbounded Noise
    "dimmer_light_spread_read_as_sine", "subsurface_scale_negative", "parts_saved_in_edit_mode_faces_hidden",
    "post_stepped_under_part", "viewport_only_pieces_shifted", "base_colour_from_attribute_above_one",
    "normal_from_attribute_turned", "colour_mixed_by_keyed_scene_property", "world_colour_from_unbounded_noise",
    # red team 45: Texture Paint's settings holding the strokes back or sending them elsewhere, a
    # helper armature drawing a kept mesh, an action nothing plays (an FBX take), custom normals added
    "paint_face_mask_nothing_selected", "paint_strength_zero", "paint_symmetry_mirrored", "paint_through_hidden_faces",
    "helper_armature_draws_kept_mesh", "orphan_action_import_take", "kept_mesh_custom_normals_added",
    # red team 46: an Array's parts squashed at every Count but the delivered one
    "array_parts_squashed_at_other_counts",
)
MIN_GAMING = 2  # gaming samples a draft must carry
PERFECT_VL = {"vl_score": 1.0, "gated": False, "missing_reason": None,
              "judge": {"id": "assumed-perfect", "kind": "mutation-testing"}}


def allowed_operators(task: Mapping) -> dict[str, str]:
    """{operator: reason} from ``task.json`` ``mutation_allowed``."""
    return {a["operator"]: a["reason"] for a in task.get("mutation_allowed") or []}


def check_allowed(task: Mapping, where: str) -> None:
    """Admission: every allowed operator is known and has a reason (ValueError naming the field)."""
    for i, a in enumerate(task.get("mutation_allowed") or []):
        if a.get("operator") not in OPERATOR_NAMES:
            raise ValueError(f"{where}: mutation_allowed[{i}].operator: unknown gaming operator "
                             f"{a.get('operator')!r}; known: {', '.join(OPERATOR_NAMES)}")
        if not str(a.get("reason") or "").strip():
            raise ValueError(f"{where}: mutation_allowed[{i}].reason: say why {a['operator']} may survive")


def mutation_table(rows: Sequence[Mapping], profile: Any, task: Mapping, params: Mapping | None,
                   allowed: Mapping[str, str] | None = None) -> dict:
    """The table over ``rows`` (``mutations.run``'s: operator, doc, applicable, why, criteria,
    error), judged under ``profile`` (a ``verifiers.profiles.ScoringProfile``) with ``params``."""
    allowed = dict(allowed or {})
    out_rows, survivors = [], []
    applicable = killed = 0
    for row in rows:
        entry = {"operator": row["operator"], "doc": row.get("doc"), "applicable": bool(row["applicable"]),
                 "why": row.get("why"), "reward": None, "rule_score": None, "success": None,
                 "killed": None, "allowed": allowed.get(row["operator"]), "caught_by": [],
                 "error": row.get("error")}
        if row["applicable"]:
            if row.get("criteria") is None:  # the operator could not be applied: not killed
                entry["killed"] = False
            else:
                judged = _judged(row["criteria"], profile, task, params, row.get("unmeasured"))
                entry.update(judged, killed=not judged["success"])
            if entry["allowed"] is None:
                applicable += 1
                killed += int(bool(entry["killed"]))
                if not entry["killed"]:
                    survivors.append(row["operator"])
        out_rows.append(entry)
    return {
        "operators": out_rows,
        "applicable": applicable,
        "killed": killed,
        "score": round(killed / applicable, 6) if applicable else 1.0,
        "survivors": survivors,
        "allowed": allowed,
        "judged_with": "rule channel, VL assumed perfect",
    }


def _judged(criteria: Sequence[Mapping], profile: Any, task: Mapping, params: Mapping | None,
            unmeasured: Sequence[str] | None = None) -> dict:
    """The rule report of ``criteria`` scored under ``profile`` with a perfect VL answer.  With
    ``unmeasured`` criteria (measuring stopped at a failed core criterion) the scene fails under
    every profile, and its reward and rule score are not known: None."""
    from verifiers import scoring

    if unmeasured:
        caught = [c["id"] for c in criteria if not c["passed"]]
        if not scoring.core_failures(criteria):
            raise ValueError(f"criteria {list(unmeasured)} were left unmeasured, but no core criterion failed")
        return {"reward": None, "rule_score": None, "success": False, "caught_by": caught}

    report = {"criteria": list(criteria), **scoring.summarize(criteria, task["verification"])}
    scored = profile.score(report, PERFECT_VL, task, params)
    return {"reward": scored.get("total"), "rule_score": scored.get("rule_score"),
            "success": bool(scored["success"]), "caught_by": [c["id"] for c in criteria if not c["passed"]]}


def gaming_table(rows: Sequence[Mapping], profile: Any, task: Mapping, params: Mapping | None) -> dict:
    """The author's gaming samples (rows: sample, script, criteria, delivery) judged like the
    operators: each must not succeed with a perfect VL answer.  ``misses`` says what failed."""
    out, misses = [], []
    for row in rows:
        judged = _judged(row["criteria"], profile, task, params)
        entry = {"sample": row["sample"], "script": row.get("script"), "delivery": row.get("delivery"),
                 **judged, "refused": not judged["success"]}
        if not entry["refused"]:
            misses.append(f"gaming sample {row['sample']!r} succeeds (rule {judged['rule_score']:.3f} with a "
                          "perfect VL answer): the grader does not refuse the author's own attack")
        out.append(entry)
    if len(rows) < MIN_GAMING:
        misses.append(f"{len(rows)} gaming sample(s) in calibration/gaming/, at least {MIN_GAMING} required")
    return {"samples": out, "refused": sum(1 for e in out if e["refused"]), "total": len(out),
            "misses": misses, "judged_with": "rule channel, VL assumed perfect"}
