"""What the trial sandbox costs per trial: start + exec + stop around a Blender script, against
the same script run as a plain subprocess — N repetitions each, interleaved, in one run.

    sudo .venv/bin/python bench/sandbox_overhead.py [-n 10] [--base-dir DIR]

Prints a markdown table (means, min/max, the sandboxed/plain ratio) that docs/performance.md
quotes. Needs what the sandbox needs: root, bubblewrap, Landlock, cgroup v1.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.progress import track

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harbor.models.task.config import EnvironmentConfig, NetworkMode, NetworkPolicy  # noqa: E402
from harbor.models.trial.paths import TrialPaths  # noqa: E402

from sandbox.environment import ArkevoSandboxEnvironment  # noqa: E402

# A trial-sized Blender job: empty scene, a modelled object, save the .blend.
BLENDER_SCRIPT = """\
import bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_cube_add(size=2.0)
bpy.ops.object.modifier_add(type="SUBSURF")
bpy.context.active_object.modifiers[0].levels = 2
bpy.ops.object.modifier_apply(modifier="Subdivision")
bpy.ops.wm.save_as_mainfile(filepath="outputs/result.blend")
"""


def plain_run(workdir: Path) -> float:
    (workdir / "outputs").mkdir(exist_ok=True)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", BLENDER_SCRIPT], cwd=workdir,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"plain run failed: {done.stderr[-2000:]}")
    return elapsed


def plain_true() -> float:
    started = time.perf_counter()
    subprocess.run(["bash", "-c", "true"], check=True)
    return time.perf_counter() - started


async def sandboxed_run(root: Path, index: int, base_dir: Path | None) -> dict[str, float]:
    env_dir = root / f"task{index}" / "environment"
    (env_dir / "workspace").mkdir(parents=True)
    (env_dir / "Dockerfile").write_text("FROM scratch\nCOPY workspace /workspace\n")
    paths = TrialPaths(root / f"trial{index}")
    paths.mkdir()
    kwargs = {"base_dir": base_dir} if base_dir else {}
    env = ArkevoSandboxEnvironment(
        environment_dir=env_dir, environment_name="bench", session_id=f"bench{index}__env",
        trial_paths=paths, task_env_config=EnvironmentConfig(workdir="/workspace"),
        logger=logging.getLogger("bench"),
        network_policy=NetworkPolicy(network_mode=NetworkMode.NO_NETWORK), **kwargs)
    times: dict[str, float] = {}
    t0 = time.perf_counter()
    await env.start(force_build=False)
    t1 = time.perf_counter()
    result = await env.exec(f"mkdir -p outputs && python3 -c {_quote(BLENDER_SCRIPT)}")
    t2 = time.perf_counter()
    empty = await env.exec("true")
    t3 = time.perf_counter()
    await env.stop(delete=True)
    t4 = time.perf_counter()
    if result.return_code != 0 or empty.return_code != 0:
        raise SystemExit(f"sandboxed run failed: {result.stderr}")
    times.update(start=t1 - t0, exec=t2 - t1, exec_true=t3 - t2, stop=t4 - t3,
                 trial=(t1 - t0) + (t2 - t1) + (t4 - t3))
    return times


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _row(label: str, values: list[float]) -> str:
    return (f"| {label} | {statistics.mean(values) * 1000:.0f} | {min(values) * 1000:.0f} | "
            f"{max(values) * 1000:.0f} |")


EXIT_CODES = """\
exit codes:
  0  measured
  1  a run failed (its stderr is printed), or the sandbox cannot start here
  2  bad usage"""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/sandbox_overhead.py", description=__doc__, epilog=EXIT_CODES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=10, help="repetitions of each (default 10)")
    parser.add_argument("--base-dir", type=Path, default=None, help="sandbox base folder")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("-n must be at least 1")
    return args


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="arkevo-bench-") as tmp:
        root = Path(tmp)
        plain_run(root)  # warm the page cache for bpy before anything is timed
        await sandboxed_run(root, -1, args.base_dir)
        plain, sandboxed, trues = [], [], []
        # interleaved, so drift hits both sides alike; the bar on stderr keeps stdout the table
        for i in track(range(args.n), "plain + sandboxed runs", console=Console(stderr=True), transient=True):
            plain.append(plain_run(root))
            sandboxed.append(await sandboxed_run(root, i, args.base_dir))
            trues.append(plain_true())

    mean_plain = statistics.mean(plain)
    mean_trial = statistics.mean(s["trial"] for s in sandboxed)
    print(f"sandbox overhead, n={args.n}, {platform.node()}, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}\n")
    print("| measured (ms) | mean | min | max |")
    print("|---|---:|---:|---:|")
    print(_row("plain: Blender script as a subprocess", plain))
    print(_row("sandbox: start (slot, cgroup, namespaces, workspace)", [s["start"] for s in sandboxed]))
    print(_row("sandbox: exec of the same Blender script", [s["exec"] for s in sandboxed]))
    print(_row("sandbox: stop (kill, cgroup, wipe slot)", [s["stop"] for s in sandboxed]))
    print(_row("sandbox: start + exec + stop per trial", [s["trial"] for s in sandboxed]))
    print(_row("plain: `bash -c true`", trues))
    print(_row("sandbox: exec `true`", [s["exec_true"] for s in sandboxed]))
    print(f"\nratio sandboxed trial / plain run: {mean_trial / mean_plain:.2f}x "
          f"(+{(mean_trial - mean_plain) * 1000:.0f} ms per trial)")


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
