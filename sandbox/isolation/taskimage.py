"""The part of a task's `environment/` the sandbox can honour without building an image.

Harbor tasks describe their container with a Dockerfile. The sandbox has no image: its runtime
is the worker's venv (Python 3.13 + bpy), bound read-only. What it does take from the
Dockerfile is what lands in the container's writable paths:

* `COPY`/`ADD` of local files (`COPY workspace /workspace`) — copied into the slot at start;
* `WORKDIR` — the default cwd when the task's config names none;
* `ENV` — added to every exec's environment, `$VAR`/`${VAR}` expanded the way Docker does
  against the Dockerfile's earlier `ENV`s. A value that refers to anything else takes it from
  the base image, which here is the sandbox's runtime: that assignment is left out (reported as
  ignored) and the runtime's own value stands — `ENV PATH=/opt/bpy/bin:$PATH` leaves the
  sandbox's PATH, the venv's `bin/` first, as it is.

`FROM`, `RUN` and the rest are reported as ignored (`pip install bpy==…` is what the venv
already is). Without a Dockerfile the whole `environment/` folder is copied into the workdir,
which is what Harbor itself does for prebuilt-image tasks.
"""

from __future__ import annotations

import re
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
            pairs, inherited = _env_pairs(rest, where, image.env)
            image.env.update(pairs)
            image.ignored += [f"ENV {key}: refers to ${name} of the base image (the sandbox "
                              f"keeps its own)"[:120] for key, name in inherited]
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


_REFERENCE = re.compile(r"\$(?:\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?P<modifier>:[-+][^}]*)?\}"
                        r"|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))")


def _env_pairs(rest: str, where: str, known: dict[str, str]
               ) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """An ENV line's assignments, expanded against `known` (the earlier ENVs: Docker expands a
    whole line against the environment before it), and the (key, variable) pairs left out
    because their value refers to a variable only the base image could define."""
    words = _env_words(rest, where, known)
    if words and "=" not in words[0][0]:  # legacy `ENV KEY value with spaces`
        key, value = words[0][0], " ".join(word for word, _ in words[1:])
        unresolved = sorted({name for _, names in words[1:] for name in names})
        assignments = [(key, value, unresolved)]
    else:
        assignments = []
        for word, names in words:
            key, sep, value = word.partition("=")
            if not sep or not key:
                raise TaskImageError(f"{where}: cannot read ENV {rest!r}")
            assignments.append((key, value, sorted(names)))
    pairs, inherited = {}, []
    for key, value, unresolved in assignments:
        if unresolved:
            inherited.append((key, unresolved[0]))
        else:
            pairs[key] = value
    return pairs, inherited


def _env_words(rest: str, where: str, known: dict[str, str]) -> list[tuple[str, set[str]]]:
    """Split like Docker's ENV: quotes group (no expansion inside single quotes), a backslash
    escapes the next character, `$VAR`, `${VAR}`, `${VAR:-word}`, `${VAR:+word}` expand
    against `known`. Each word comes with the names it referred to that `known` lacks."""
    words: list[tuple[str, set[str]]] = []
    text, unresolved, quote, started, i = [], set(), None, False, 0
    while i < len(rest):
        char = rest[i]
        if quote == "'":
            if char == "'":
                quote = None
            else:
                text.append(char)
        elif char == "\\" and i + 1 < len(rest):
            i += 1
            text.append(rest[i])
        elif char == quote:  # closing double quote
            quote = None
        elif quote is None and char in "'\"":
            quote, started = char, True
        elif char == "$" and (match := _REFERENCE.match(rest, i)):
            name = match["braced"] or match["bare"]
            modifier = match["modifier"]
            if name not in known:
                unresolved.add(name)
            elif modifier and modifier[1] == "-":
                text.append(known[name] or modifier[2:])
            elif modifier:
                text.append(modifier[2:] if known[name] else "")
            else:
                text.append(known[name])
            i, started = match.end(), True
            continue
        elif quote is None and char.isspace():
            if started or text:
                words.append(("".join(text), unresolved))
            text, unresolved, started = [], set(), False
        else:
            text.append(char)
        started = started or bool(text)
        i += 1
    if quote is not None:
        raise TaskImageError(f"{where}: unterminated quote in ENV {rest!r}")
    if started or text:
        words.append(("".join(text), unresolved))
    return words
