"""The container paths a trial can use, each backed by one folder of its slot.

| container path          | slot folder      | owner | in the sandbox |
|-------------------------|------------------|-------|----------------|
| task workdir (/workspace) | work/workspace | slot  | read-write     |
| /tmp                    | work/tmp         | slot  | read-write     |
| /home/sandbox ($HOME)   | work/home        | slot  | read-write     |
| /logs (agent, verifier, artifacts, user-agent) | work/logs | slot | read-write |
| /tests, /solution       | work/tests, work/solution | root | read-only |
| /private (verifier only)| work/private     | root  | read-only      |

Anything else is outside the mapped roots: uploads and downloads there are refused, and the
sandbox itself cannot create it (its root is read-only).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from sandbox.isolation.bwrap import Bind


class SandboxPathError(ValueError):
    pass


@dataclass(frozen=True)
class Root:
    container: PurePosixPath
    host: Path
    writable: bool  # slot-owned: transfers run inside the sandbox with the slot's rights


class Layout:
    def __init__(self, roots: list[Root]):
        containers = [r.container for r in roots]
        for a in containers:
            for b in containers:
                if a != b and a.is_relative_to(b):
                    raise SandboxPathError(f"mapped roots overlap: {a} is inside {b}")
        self.roots = roots

    @staticmethod
    def normalize(path: str | PurePosixPath) -> PurePosixPath:
        pure = PurePosixPath(path)
        if not pure.is_absolute():
            raise SandboxPathError(f"{path}: sandbox paths must be absolute")
        if ".." in pure.parts:
            raise SandboxPathError(f"{path}: '..' is not allowed in sandbox paths")
        return pure

    def locate(self, path: str | PurePosixPath) -> tuple[Root, PurePosixPath]:
        """The root holding `path` and the path relative to it, or SandboxPathError."""
        pure = self.normalize(path)
        for root in sorted(self.roots, key=lambda r: len(r.container.parts), reverse=True):
            if pure.is_relative_to(root.container):
                return root, pure.relative_to(root.container)
        mapped = ", ".join(str(r.container) for r in self.roots)
        raise SandboxPathError(f"{path} is outside the sandbox's mapped roots ({mapped})")

    def host_path(self, path: str | PurePosixPath) -> Path:
        root, rel = self.locate(path)
        return root.host / rel

    def binds(self) -> list[Bind]:
        return [Bind(r.host, str(r.container), "rw" if r.writable else "ro") for r in self.roots]
