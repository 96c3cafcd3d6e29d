"""Render a delivery's evidence: fixed static views, animation frames and an MP4 (runs in bpy).

    python render_evidence.py --blend result.blend --spec spec.json --out evidence/
    python render_evidence.py --jobs jobs.json      # [{"blend", "spec", "out"}, ...] in one process

Standalone (stdlib + bpy): it runs in worker subprocesses.  The spec is fully resolved by the
caller (``verifiers/evidence.py``): engine, resolution, samples, seed, time cap and lighting,
and for every view its camera direction, target centre and radius.  Cameras are the verifier's
own -- the delivery's cameras and render settings are ignored and never saved -- so the same
view spec frames every delivery of a task identically.

The production engine draws the delivery's own materials: Cycles on the CPU (few samples, no
denoising, no adaptive sampling, fixed seed and threads, capped light paths, a time cap, no
simplify, no motion blur, no OSL).  Lighting is the grader's (``lighting: grader``, the
default): every light of the delivery is switched off (energy 0, instances included) and the
world is replaced by the grader's neutral world plus a fixed key light, so a delivery's own
lights cannot blind or darken the views while its materials (emission included) show.  A
lighting task asks for ``lighting: delivery``: its own lights and world light the renders.
A real render evaluates the scene in render mode (render levels, render visibility); so does
``part_pixels``, measured inside a render-engine callback on the render depsgraph.

Determinism: fixed engine settings, Standard view transform, no dither, no stamp or
render-statistics metadata in the PNGs.  The delivery is opened with
``use_scripts=False``.  For each job ``out/manifest.json`` lists every file with its sha256.
A missing or unreadable delivery yields a manifest with ``error`` and no files (nothing to see
is a fact about the delivery, not a renderer failure); anything else raises.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path

# Workbench draws through Mesa's llvmpipe on these CPU machines, and every process compiles its
# shaders afresh (no shader cache is shared between deliveries: one could plant code for the
# next). Unoptimised shader JIT and drawing on the main thread cut a render's CPU time to
# 0.83x; the images are byte-identical (docs/performance.md). A GPU driver ignores both.
os.environ.setdefault("GALLIVM_PERF", "nopt")
os.environ.setdefault("LP_NUM_THREADS", "0")

import bpy  # noqa: E402
from mathutils import Matrix, Vector  # noqa: E402

# Bumped whenever the rendering of the same spec could change; part of the cache key together
# with this file's digest (see evidence.renderer_version()).
RENDERER_ID = "arkevo-evidence/4"  # 2: part_pixels in the manifest; 4: Cycles, grader lights, render depsgraph
MP4_NAME = "animation.mp4"
DRAWN_TYPES = {"MESH", "CURVE", "SURFACE", "META", "FONT", "CURVES", "POINTCLOUD", "VOLUME", "GREASEPENCIL"}


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def open_delivery(blend: Path) -> str | None:
    if not blend.is_file():
        return f"delivered .blend not found: {blend}"
    try:
        bpy.ops.wm.open_mainfile(filepath=str(blend), load_ui=False, use_scripts=False)
    except RuntimeError as exc:
        return f"delivered .blend cannot be opened: {str(exc).strip()}"
    return None


# Grader-controlled Cycles settings: what an honest delivery renders in well under a second a
# view at 160x120 and what no delivery can raise (light paths, subdivision, volume steps).
CYCLES_LIMITS = {
    "max_bounces": 4, "diffuse_bounces": 2, "glossy_bounces": 2, "transmission_bounces": 4,
    "volume_bounces": 0, "transparent_max_bounces": 8, "caustics_reflective": False,
    "caustics_refractive": False, "sample_clamp_direct": 0.0, "sample_clamp_indirect": 10.0,
    "blur_glossy": 1.0, "volume_max_steps": 64, "volume_step_rate": 1.0, "shading_system": False,
    "film_exposure": 1.0, "pixel_filter_type": "BLACKMAN_HARRIS", "filter_width": 1.5,
    "texture_limit_render": "OFF", "max_subdivisions": 8, "dicing_rate": 1.0,
    "offscreen_dicing_scale": 4.0, "use_guiding": False, "use_fast_gi": False,
    "use_camera_cull": False, "use_distance_cull": False, "use_light_tree": True,
    "film_transparent_glass": False, "use_animated_seed": False, "use_denoising": False,
    "use_adaptive_sampling": False, "use_auto_tile": False, "use_layer_samples": "IGNORE",
}
# The grader's light for ``lighting: grader``: a neutral grey world (ambient, never seen:
# the film is transparent) and one soft sun from the front left, above.
GRADER_WORLD = (0.4, 0.4, 0.4)
GRADER_SUN = {"direction": (-0.45, -0.75, 1.0), "strength": 0.8, "angle_deg": 30.0}


def configure(scene, spec: dict) -> None:
    r = scene.render
    r.engine = spec["engine"]
    r.resolution_x, r.resolution_y = (int(v) for v in spec["resolution"])
    r.resolution_percentage = 100
    r.pixel_aspect_x = r.pixel_aspect_y = 1.0
    r.film_transparent = True
    r.use_compositing = False
    r.use_sequencer = False
    r.use_single_layer = True
    r.use_simplify = False
    r.use_motion_blur = False
    r.use_freestyle = False
    r.use_persistent_data = False
    r.dither_intensity = 0.0
    # the verifier's own framing: a delivery's border crop must not blank the judge's views
    r.use_border = False
    r.use_crop_to_border = False
    r.threads_mode = "FIXED"
    r.threads = int(spec.get("threads", 2))
    for name in r.bl_rna.properties.keys():
        if name.startswith("use_stamp"):
            setattr(r, name, False)
    img = r.image_settings
    img.file_format = "PNG"
    img.color_mode = "RGBA"
    img.color_depth = "8"
    img.compression = 15
    vs = scene.view_settings
    scene.display_settings.display_device = "sRGB"
    vs.view_transform, vs.look, vs.exposure, vs.gamma = "Standard", "None", 0.0, 1.0
    vs.use_curve_mapping = False
    if hasattr(vs, "use_white_balance"):
        vs.use_white_balance = False
    for layer in scene.view_layers:
        layer.samples = 0  # the scene's (grader's) sample count, never a view layer's own
    if spec["engine"] == "CYCLES":
        c = scene.cycles
        device = spec.get("device", "CPU")  # CPU, or a GPU backend: CUDA, OPTIX, HIP, ONEAPI, METAL
        if device != "CPU":
            prefs = bpy.context.preferences.addons["cycles"].preferences
            prefs.compute_device_type = device
            prefs.get_devices()
            usable = [d for d in prefs.devices if d.type == device]
            if not usable:
                raise RuntimeError(f"no {device} device for Cycles on this worker")
            for d in prefs.devices:
                d.use = d.type == device
        c.device = "CPU" if device == "CPU" else "GPU"
        c.samples = int(spec.get("samples", 8))
        c.seed = int(spec.get("seed", 0))
        c.time_limit = float(spec.get("time_limit", 20.0))
        for name, value in CYCLES_LIMITS.items():
            if hasattr(c, name):
                setattr(c, name, value)
    elif spec["engine"] == "BLENDER_EEVEE":  # GPU workers only: software GL is far too slow
        scene.eevee.taa_render_samples = int(spec.get("samples", 16))
    else:
        raise ValueError(f"unsupported evidence engine {spec['engine']!r}")
    if spec.get("lighting", "grader") == "grader":
        grader_lighting(scene)


def grader_lighting(scene) -> None:
    """Replace the delivery's lighting with the grader's: every light data-block dark (so an
    instanced light is dark too), the grader's world on the scene and every view layer, and
    the grader's sun. Emissive materials are the delivery's materials and still show."""
    for light in bpy.data.lights:
        light.energy = 0.0
    world = bpy.data.worlds.new("ArkevoEvidenceWorld")
    world.use_nodes = True
    bg = next(n for n in world.node_tree.nodes if n.type == "BACKGROUND")
    bg.inputs["Color"].default_value = (*GRADER_WORLD, 1.0)
    bg.inputs["Strength"].default_value = 1.0
    scene.world = world
    for layer in scene.view_layers:
        layer.world_override = None
    sun_data = bpy.data.lights.new("ArkevoEvidenceSun", "SUN")
    sun_data.energy = GRADER_SUN["strength"]
    sun_data.angle = math.radians(GRADER_SUN["angle_deg"])
    sun_data.color = (1.0, 1.0, 1.0)
    sun = bpy.data.objects.new("ArkevoEvidenceSun", sun_data)
    direction = Vector(GRADER_SUN["direction"]).normalized()
    sun.matrix_world = look_at(direction * 10.0, Vector((0.0, 0.0, 0.0)))
    scene.collection.objects.link(sun)


def look_at(location: Vector, target: Vector) -> Matrix:
    forward = (target - location).normalized()
    up_hint = Vector((0.0, 0.0, 1.0)) if abs(forward.z) < 0.99 else Vector((0.0, 1.0, 0.0))
    right = forward.cross(up_hint).normalized()
    up = right.cross(forward)
    rot = Matrix((right, up, -forward)).transposed()  # columns: camera X, Y, Z axes
    return Matrix.Translation(location) @ rot.to_4x4()


def place_camera(scene, view: dict, aspect: float, name: str = "ArkevoEvidenceCam") -> bpy.types.Object:
    cam_data = bpy.data.cameras.new(name)
    cam = bpy.data.objects.new(name, cam_data)
    scene.collection.objects.link(cam)
    center = Vector(view["center"])
    radius = float(view["radius"])
    direction = Vector(view["direction"]).normalized()
    cam_data.sensor_fit = "AUTO"
    if view.get("ortho", False):
        cam_data.type = "ORTHO"
        cam_data.ortho_scale = 2.0 * radius * 1.05 * max(1.0, aspect)
        distance = radius * 4.0 + 1.0
    else:
        cam_data.type = "PERSP"
        cam_data.angle = math.radians(float(view.get("fov_deg", 40.0)))
        vertical = 2 * math.atan(math.tan(cam_data.angle / 2) / max(1.0, aspect))
        distance = radius / math.sin(vertical / 2)
    cam_data.clip_start = max(0.001, distance - radius * 3.0) if view.get("ortho") else 0.01
    cam_data.clip_end = distance + radius * 4.0
    cam.matrix_world = look_at(center + direction * distance, center)
    scene.camera = cam
    return cam


# Text and time chunks carry render statistics (Cycles writes its render time there): drop
# them so identical pixels always mean identical bytes. A stdlib chunk filter, not Pillow: this
# runs inside bpy's Python (ARKEVO_BPY_PYTHON may have no Pillow), and it keeps Blender's bytes.
VOLATILE_PNG_CHUNKS = {b"tEXt", b"zTXt", b"iTXt", b"tIME"}


def strip_png_metadata(path: Path) -> None:
    data = path.read_bytes()
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return
    out, pos = [data[:8]], 8
    while pos + 8 <= len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        chunk = data[pos:pos + 12 + length]
        if data[pos + 4:pos + 8] not in VOLATILE_PNG_CHUNKS:
            out.append(chunk)
        pos += 12 + length
    path.write_bytes(b"".join(out))


class _RenderDepsgraphProbe:
    """Runs ``fn(depsgraph)`` on the depsgraph a render evaluates (render mode: render levels,
    render visibility, drivers as a render sees them), through a minimal render engine whose
    render() callback receives it. One render-mode evaluation per call, nothing drawn."""

    engine_id = "ARKEVO_EVIDENCE_DEPSGRAPH"
    _engine = None

    @classmethod
    def run(cls, scene, fn):
        if cls._engine is None:
            class ArkevoDepsgraphEngine(bpy.types.RenderEngine):
                bl_idname = cls.engine_id
                bl_label = "arkevo evidence depsgraph"
                callback = None

                def render(self, depsgraph):
                    result = self.begin_result(0, 0, 1, 1)
                    try:
                        type(self).callback(depsgraph)
                    finally:
                        self.end_result(result)

            bpy.utils.register_class(ArkevoDepsgraphEngine)
            cls._engine = ArkevoDepsgraphEngine
        engine, res = scene.render.engine, (scene.render.resolution_x, scene.render.resolution_y)
        out: list = []
        cls._engine.callback = lambda depsgraph: out.append(fn(depsgraph))
        scene.render.engine = cls.engine_id
        try:
            bpy.ops.render.render(write_still=False)
        finally:
            scene.render.engine = engine
            scene.render.resolution_x, scene.render.resolution_y = res
            cls._engine.callback = None
        if not out:
            raise RuntimeError("the render-mode depsgraph probe was not called")
        return out[0]


def drawable_points(depsgraph) -> dict:
    """{object name: world-space points} of what a render draws, from the render-mode
    depsgraph: each drawn instance's evaluated mesh vertices (its box corners for instances
    and for non-mesh geometry), under the name of the object that owns it (an instancer's
    name for its instances). Holdouts and objects hidden from camera rays are not drawn."""
    import numpy as np

    out: dict[str, list] = {}
    for inst in depsgraph.object_instances:
        obj = inst.object
        if obj.type not in DRAWN_TYPES or not inst.show_self or not obj.visible_camera or obj.is_holdout:
            continue
        owner = inst.parent if inst.is_instance and inst.parent is not None else obj
        local = None
        if obj.type == "MESH" and not inst.is_instance:
            mesh = obj.to_mesh()
            try:
                co = np.empty(len(mesh.vertices) * 3, dtype=np.float64)
                mesh.vertices.foreach_get("co", co)
            finally:
                obj.to_mesh_clear()
            local = co.reshape(-1, 3)
        else:
            local = np.array([tuple(c) for c in obj.bound_box], dtype=np.float64)
        if not len(local):
            continue
        m = np.array(inst.matrix_world, dtype=np.float64)
        out.setdefault(owner.original.name, []).append(local @ m[:3, :3].T + m[:3, 3])
    return {name: np.concatenate(chunks) for name, chunks in out.items()}


def project_boxes(points: dict, cams: dict, resolution: list[int], depsgraph) -> dict:
    """{view: {object: [width, height]}}: the pixel box each drawn object covers inside each
    camera's frame (clipped to it), so a check can tell whether the judge can see a graded part
    at this resolution and framing."""
    import numpy as np

    res_x, res_y = int(resolution[0]), int(resolution[1])
    views: dict = {}
    for view, cam in cams.items():
        ev = cam.evaluated_get(depsgraph)
        proj = np.array(ev.calc_matrix_camera(depsgraph, x=res_x, y=res_y), dtype=np.float64)
        full = proj @ np.array(ev.matrix_world.inverted(), dtype=np.float64)
        out = {}
        for name, pts in points.items():
            clip = np.c_[pts, np.ones(len(pts))] @ full.T
            front = clip[:, 3] > 1e-9
            if not front.any():
                continue
            ndc = clip[front, :2] / clip[front, 3:4]
            x = np.clip((ndc[:, 0] + 1) / 2 * res_x, 0, res_x)
            y = np.clip((ndc[:, 1] + 1) / 2 * res_y, 0, res_y)
            out[name] = [round(float(x.max() - x.min()), 1), round(float(y.max() - y.min()), 1)]
        views[view] = out
    return views


def part_pixels(scene, cams: dict, resolution: list[int]) -> dict:
    """``project_boxes`` of what the render draws at the scene's current frame, measured on the
    render-mode depsgraph."""
    return _RenderDepsgraphProbe.run(
        scene, lambda depsgraph: project_boxes(drawable_points(depsgraph), cams, resolution, depsgraph))


def render_to(scene, path: Path) -> None:
    scene.render.filepath = str(path)
    bpy.ops.render.render(write_still=True)
    strip_png_metadata(path)


def animation_frames(anim: dict) -> list[int]:
    start, end, count = int(anim["frame_start"]), int(anim["frame_end"]), int(anim["count"])
    if count == 1 or end == start:
        return [start] * max(1, count)
    return [round(start + i * (end - start) / (count - 1)) for i in range(count)]


def write_mp4(frames: list[Path], out: Path, spec: dict, fps: int) -> str:
    """Encode the rendered frames with Blender's FFmpeg via a sequencer scene."""
    if not bpy.app.build_options.codec_ffmpeg:
        return "unavailable: this Blender build has no FFmpeg"
    scene = bpy.data.scenes.new("ArkevoEvidenceMP4")
    scene.render.resolution_x, scene.render.resolution_y = (int(v) for v in spec["resolution"])
    scene.render.resolution_percentage = 100
    scene.render.fps, scene.render.fps_base = fps, 1.0
    for name in scene.render.bl_rna.properties.keys():
        if name.startswith("use_stamp"):
            setattr(scene.render, name, False)
    sed = scene.sequence_editor_create()
    strip = sed.strips.new_image("frames", str(frames[0]), 1, 1)
    for f in frames[1:]:
        strip.elements.append(f.name)
    scene.frame_start, scene.frame_end = 1, len(frames)
    r = scene.render
    r.use_sequencer = True
    if hasattr(r.image_settings, "media_type"):  # Blender 5: pick video before the container
        r.image_settings.media_type = "VIDEO"
    r.image_settings.file_format = "FFMPEG"
    r.ffmpeg.format, r.ffmpeg.codec = "MPEG4", "H264"
    r.ffmpeg.constant_rate_factor = "HIGH"
    r.ffmpeg.gopsize = len(frames)
    r.ffmpeg.use_max_b_frames = False
    r.ffmpeg.audio_codec = "NONE"
    r.ffmpeg.use_autosplit = False
    tmp = out.with_name("mp4-")
    r.filepath = str(tmp)
    bpy.ops.render.render(animation=True, scene=scene.name)
    written = sorted(out.parent.glob("mp4-*"))
    if not written:
        return "failed: FFmpeg wrote no file"
    os.replace(written[0], out)
    return "written"


def render_job(blend: Path, spec: dict, out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    # No sha256 of the .blend: the worker records the scene digest (verifiers/evidence.py).
    manifest: dict = {"renderer": RENDERER_ID, "blender": bpy.app.version_string, "files": {}}
    reason = open_delivery(blend)
    if reason is not None:
        manifest["error"] = reason
        return manifest
    scene = bpy.context.scene
    configure(scene, spec)
    for name in spec.get("hide", []):  # stage objects left out of the evidence (e.g. a floor)
        obj = bpy.data.objects.get(name)
        if obj is not None:
            obj.hide_render = True
    aspect = spec["resolution"][0] / spec["resolution"][1]
    files = manifest["files"]
    # The frame is set on the scene without a viewport evaluation: each render evaluates the
    # render-mode depsgraph at the scene's frame itself.
    by_frame: dict[int, list[dict]] = {}
    for view in spec["views"]:
        by_frame.setdefault(int(view.get("frame", spec.get("static_frame", scene.frame_start))), []).append(view)
    for frame, views in by_frame.items():
        scene.frame_current = frame
        cams = {view["name"]: place_camera(scene, view, aspect, f"ArkevoEvidenceCam.{view['name']}") for view in views}
        scene.camera = next(iter(cams.values()))
        manifest.setdefault("part_pixels", {}).update(part_pixels(scene, cams, spec["resolution"]))
        for view in views:
            scene.camera = cams[view["name"]]
            name = f"{view['name']}.png"
            render_to(scene, out / name)
            files[name] = {"kind": "static", "view": view["name"], "frame": frame}
    anim = spec.get("animation")
    if anim:
        place_camera(scene, anim, aspect)
        paths = []
        for i, frame in enumerate(animation_frames(anim)):
            scene.frame_current = frame
            name = f"frame_{i:02d}.png"
            render_to(scene, out / name)
            files[name] = {"kind": "frame", "view": "animation", "frame": frame, "index": i}
            paths.append(out / name)
        if anim.get("mp4", True):
            manifest["mp4"] = write_mp4(paths, out / MP4_NAME, spec, int(anim.get("fps", 8)))
            if manifest["mp4"] == "written":
                files[MP4_NAME] = {"kind": "video", "view": "animation", "frames": len(paths)}
    for name, entry in files.items():
        entry["sha256"] = sha256_file(out / name)
        entry["size"] = (out / name).stat().st_size
    return manifest


def run_job(job: dict) -> dict:
    out = Path(job["out"])
    manifest = render_job(Path(job["blend"]), job["spec"], out)
    tmp = out / "manifest.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, out / "manifest.json")
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blend", type=Path)
    ap.add_argument("--spec", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--jobs", type=Path, help="JSON list of {blend, spec, out} rendered in this process")
    args = ap.parse_args(argv)
    if args.jobs:
        jobs = json.loads(args.jobs.read_text(encoding="utf-8"))
    elif args.blend and args.spec and args.out:
        jobs = [{"blend": str(args.blend), "spec": json.loads(args.spec.read_text(encoding="utf-8")),
                 "out": str(args.out)}]
    else:
        ap.error("give --jobs, or --blend, --spec and --out")
    for job in jobs:
        started = time.monotonic()
        m = run_job(job)
        # The time goes to the log, not the manifest: a manifest is hashed into the task version.
        print(f"render_evidence: {len(m['files'])} file(s) in {time.monotonic() - started:.3f}s -> {job['out']}"
              + (f" ({m['error']})" if "error" in m else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
