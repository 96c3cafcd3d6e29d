"""Rule-probe primitives: the whole built-in library, registered in ``PRIMITIVES`` (bpy only).

Each primitive measures one property of the open Blender scene and is registered under its
rubric ``method`` name.  The library is grouped by what it measures, one sibling module per
group:

    probes_objects      objects and hierarchy: object_exists, objects_exist, object_type,
                        parent_is, object_count, light_settings, camera_settings,
                        transforms_applied, names_match, modifier_settings, modifier_effect
    probes_geometry     dimensions, object_min_z, aabb_within, aabb_contact, mesh_counts,
                        manifold, normals_outward, aimed_at, placed_around, origin_at,
                        uv_map, uv_bounds, uv_stretch, uv_overlap, mesh_islands
    probes_animation    keyframes_on_channel, location_at_frame, value_at_frame, path_through,
                        rests_on_at_frame, no_interpenetration, supported_throughout,
                        frame_range, fps, stays_in_place, attached_to, joint_axes
    probes_materials    material_assigned, base_color (CIEDE2000), material_node_types,
                        principled_inputs, image_texture
    probes_render_spec  render_engine, render_resolution, file_version, render_output,
                        colour_management, scene_units, scene_settings
    probes_solid        solid_parts, shape_measures, parts_touch, ground_contact, shape_match,
                        solids_apart
    probes_surface      material_on_faces, surface_shader, texture_influence
    probes_scene        scene_unchanged, render_overrides, new_objects (the start-scene diff)
    probes_visibility   parts_unoccluded (each part seen from outside, not enclosed)

``probe_core`` holds the measured scene (``Probe``), ``Outcome``, the registry and
``validate`` / ``measure``; this module re-exports them so callers keep importing from here.
Parameter reference: docs/scoring.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # standalone: siblings only
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import probes_animation  # noqa: E402,F401  (importing a group registers its primitives)
import probes_geometry  # noqa: E402,F401
import probes_materials  # noqa: E402,F401
import probes_objects  # noqa: E402,F401
import probes_render_spec  # noqa: E402,F401
import probes_scene  # noqa: E402,F401
import probes_solid  # noqa: E402,F401
import probes_surface  # noqa: E402,F401
import probes_visibility  # noqa: E402,F401
from probe_core import (  # noqa: E402,F401
    DIGITS, GEOMETRY_TYPES, GROUPS, PRIMITIVES, MissingObjects, Outcome, Primitive, Probe, RenderShowsNothing,
    aabb_gap, aabb_point, aabb_size, binary_outcome, fraction_outcome, graded_frames, load_task_probes, measure,
    names_param, open_delivery, penetration_depth, primitive, render_probe, rests_on, rnd, sampled_frames,
    shift_samples, start_frame_range, validate,
)

# The files a standalone verifier needs next to rule_probe.py: verifiers/version.py PROBE_FILES.


def catalogue() -> dict[str, dict]:
    """{method: {group, required, doc, params}} of every registered primitive (``params``: the
    JSON-Schema fragment of each accepted param; verifiers/probe_catalogue.py reads the same
    without bpy)."""
    return {m: {"group": p.group, "required": list(p.required), "doc": p.doc, "params": p.params}
            for m, p in sorted(PRIMITIVES.items())}
