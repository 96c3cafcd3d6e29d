"""Render a delivery's evidence: fixed static views, animation frames and an MP4 (runs in bpy).

    python render_evidence.py --blend result.blend --spec spec.json --out evidence/
    python render_evidence.py --jobs jobs.json      # [{"blend", "spec", "out"}, ...] in one process

Standalone (stdlib + bpy): it runs in worker subprocesses.  The spec is fully resolved by the
caller (``verifiers/evidence.py``): engine, resolution, samples and seed, and for every view
its camera direction, target centre and radius.  Cameras are the verifier's own -- the
delivery's cameras, lights, world and render settings are ignored and never saved -- so the
same view spec frames every delivery of a task identically.

Determinism: fixed engine settings (Workbench: studio light, material colour, 8 AA samples;
Cycles: fixed samples and seed, no denoising or adaptive sampling, fixed thread count),
Standard view transform, no stamp or render-statistics metadata in the PNGs.  The delivery is opened with
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
RENDERER_ID = "arkevo-evidence/3"  # 2: part_pixels in the manifest
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


def configure(scene, spec: dict) -> None:
    r = scene.render
    r.engine = spec["engine"]
    r.resolution_x, r.resolution_y = (int(v) for v in spec["resolution"])
    r.resolution_percentage = 100
    r.film_transparent = True
    r.use_compositing = False
    r.use_sequencer = False
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
    if spec["engine"] == "BLENDER_WORKBENCH":
        sh = scene.display.shading
        sh.light, sh.color_type = "STUDIO", "MATERIAL"
        sh.show_shadows, sh.show_cavity, sh.show_object_outline = False, False, False
        scene.display.render_aa = "8"
    elif spec["engine"] == "CYCLES":
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
        c.use_animated_seed = False
        c.use_denoising = False
        c.use_adaptive_sampling = False
    elif spec["engine"] == "BLENDER_EEVEE":  # GPU workers only: software GL is far too slow
        scene.eevee.taa_render_samples = int(spec.get("samples", 16))
    else:
        raise ValueError(f"unsupported evidence engine {spec['engine']!r}")


def look_at(location: Vector, target: Vector) -> Matrix:
    forward = (target - location).normalized()
    up_hint = Vector((0.0, 0.0, 1.0)) if abs(forward.z) < 0.99 else Vector((0.0, 1.0, 0.0))
    right = forward.cross(up_hint).normalized()
    up = right.cross(forward)
    rot = Matrix((right, up, -forward)).transposed()  # columns: camera X, Y, Z axes
    return Matrix.Translation(location) @ rot.to_4x4()


def place_camera(scene, view: dict, aspect: float) -> bpy.types.Object:
    cam_data = bpy.data.cameras.new("ArkevoEvidenceCam")
    cam = bpy.data.objects.new("ArkevoEvidenceCam", cam_data)
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


def drawable_points(obj, depsgraph):
    """World-space points of what the render draws for `obj`: the evaluated mesh's vertices
    (numpy, bpy's own), or the evaluated bounding box's corners for other geometry."""
    import numpy as np

    ev = obj.evaluated_get(depsgraph)
    if obj.type == "MESH":
        mesh = ev.to_mesh()
        try:
            co = np.empty(len(mesh.vertices) * 3, dtype=np.float64)
            mesh.vertices.foreach_get("co", co)
        finally:
            ev.to_mesh_clear()
        local = co.reshape(-1, 3)
    else:
        local = np.array([tuple(c) for c in ev.bound_box], dtype=np.float64)
    if not len(local):
        return local
    m = np.array(ev.matrix_world, dtype=np.float64)
    return local @ m[:3, :3].T + m[:3, 3]


def part_pixels(scene, cam, resolution: list[int]) -> dict:
    """{object: [width, height]}: the pixel box each drawn object covers inside this view's
    frame (clipped to it), so a check can tell whether the judge can see a graded part at this
    resolution and framing. Objects hidden from the render are not drawn and not listed."""
    import numpy as np

    depsgraph = bpy.context.evaluated_depsgraph_get()
    res_x, res_y = int(resolution[0]), int(resolution[1])
    proj = np.array(cam.calc_matrix_camera(depsgraph, x=res_x, y=res_y), dtype=np.float64)
    view = np.array(cam.matrix_world.inverted(), dtype=np.float64)
    full = proj @ view
    out = {}
    for obj in scene.objects:
        if obj.type not in DRAWN_TYPES or obj.hide_render or obj == cam or not obj.visible_camera:
            continue
        pts = drawable_points(obj, depsgraph)
        if not len(pts):
            continue
        clip = np.c_[pts, np.ones(len(pts))] @ full.T
        front = clip[:, 3] > 1e-9
        if not front.any():
            continue
        ndc = clip[front, :2] / clip[front, 3:4]
        x = np.clip((ndc[:, 0] + 1) / 2 * res_x, 0, res_x)
        y = np.clip((ndc[:, 1] + 1) / 2 * res_y, 0, res_y)
        out[obj.name] = [round(float(x.max() - x.min()), 1), round(float(y.max() - y.min()), 1)]
    return out


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
    for view in spec["views"]:
        scene.frame_set(int(view.get("frame", spec.get("static_frame", scene.frame_start))))
        cam = place_camera(scene, view, aspect)
        name = f"{view['name']}.png"
        render_to(scene, out / name)
        manifest.setdefault("part_pixels", {})[view["name"]] = part_pixels(scene, cam, spec["resolution"])
        files[name] = {"kind": "static", "view": view["name"], "frame": scene.frame_current}
    anim = spec.get("animation")
    if anim:
        place_camera(scene, anim, aspect)
        paths = []
        for i, frame in enumerate(animation_frames(anim)):
            scene.frame_set(frame)
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
