"""The part of a task's `environment/` the sandbox can honour without building an image.

Harbor tasks describe their container with a Dockerfile. The sandbox has no image: its runtime
is the worker's venv (Python 3.13 + bpy), bound read-only. What it does take from the
Dockerfile is what lands in the container's writable paths:

* `COPY`/`ADD` of local files (`COPY workspace /workspace`) — copied into the slot at start;
* `WORKDIR` — the default cwd when the task's config names none;
* `ENV` — added to every exec's environment.

`FROM`, `RUN` and the rest are reported as ignored (`pip install bpy==…` is what the venv
already is). Without a Dockerfile the whole `environment/` folder is copied into the workdir,
which is what Harbor itself does for prebuilt-image tasks.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath


class TaskImageError(ValueError):
    pass


@dataclass
class TaskImage:
    copies: list[tuple[Path, PurePosixPath]] = field(default_factory=list)  # host src -> dest
    env: dict[str, str] = field(default_factory=dict)
    workdir: PurePosixPath | None = None
    ignored: list[str] = field(default_factory=list)


def read_task_image(environment_dir: Path, default_workdir: PurePosixPath) -> TaskImage:
    if (environment_dir / "docker-compose.yaml").exists():
        raise TaskImageError(
            f"{environment_dir}/docker-compose.yaml: multi-container tasks are not supported by "
            "the arkevo sandbox (use Harbor's docker environment)")
    dockerfile = environment_dir / "Dockerfile"
    if not dockerfile.is_file():
        image = TaskImage()
        if environment_dir.is_dir():
            image.copies.append((environment_dir, default_workdir))
        return image
    return _parse(dockerfile, environment_dir)


def _instructions(text: str):
    joined = ""
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not joined and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            joined += line[:-1] + " "
            continue
        joined += line
        keyword, _, rest = joined.partition(" ")
        yield number, keyword.upper(), rest.strip()
        joined = ""


def _parse(dockerfile: Path, context: Path) -> TaskImage:
    image = TaskImage()
    workdir = PurePosixPath("/")
    for number, keyword, rest in _instructions(dockerfile.read_text()):
        where = f"{dockerfile}:{number}"
        if keyword == "WORKDIR":
            workdir = workdir / rest  # relative WORKDIRs stack, absolute ones reset
            image.workdir = workdir
        elif keyword == "ENV":
            image.env.update(_env_pairs(rest, where))
        elif keyword in ("COPY", "ADD"):
            words = [w for w in shlex.split(rest) if not w.startswith("--")]
            if rest.lstrip().startswith("["):
                raise TaskImageError(f"{where}: JSON-form {keyword} is not supported")
            if len(words) < 2:
                raise TaskImageError(f"{where}: {keyword} needs a source and a destination")
            *sources, dest = words
            dest_path = workdir / dest
            for source in sources:
                if "://" in source:
                    raise TaskImageError(f"{where}: remote {keyword} sources are not supported")
                host = (context / source).resolve()
                if not host.is_relative_to(context.resolve()) or not host.exists():
                    raise TaskImageError(f"{where}: {source} is not a file in {context}")
                target = dest_path
                if host.is_file() and (dest.endswith("/") or len(sources) > 1):
                    target = dest_path / host.name
                image.copies.append((host, target))
        else:
            image.ignored.append(f"{keyword} {rest}"[:120])
    return image


def _env_pairs(rest: str, where: str) -> dict[str, str]:
    words = shlex.split(rest)
    if words and "=" not in words[0]:  # legacy `ENV KEY value with spaces`
        return {words[0]: " ".join(words[1:])}
    pairs = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep:
            raise TaskImageError(f"{where}: cannot read ENV {rest!r}")
        pairs[key] = value
    return pairs
