"""Settings of the trial sandbox: Harbor's environment kwargs (`--ek key=value`, or
`environment.kwargs` in a trial/job config) validated into one model.

Every field has a working default, so `harbor run -e sandbox.environment:ArkevoSandboxEnvironment`
needs no kwargs. Harbor hands kwargs over as strings from the CLI; pydantic coerces them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

PROJECT_ROOT = Path(__file__).resolve().parents[2]
MiB = 1024 * 1024


def _env_int(name: str) -> int | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r}: expected an integer") from None


def _default_base_dir() -> Path:
    return Path(os.environ.get("ARKEVO_SANDBOX_DIR", "/var/tmp/arkevo-sandbox"))


class SandboxSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Slots: one host user + one folder tree each, reused across trials.
    base_dir: Path = Field(default_factory=_default_base_dir,
                           description="root of slot folders and slot locks (root-owned, 0711)")
    slots: int = Field(default=8, ge=1, le=256, description="concurrent sandboxes per host")
    slot_wait_sec: float = Field(default=600.0, ge=0, description="how long start() waits for a free slot")
    user_prefix: str = Field(default="arkevo-slot-", pattern=r"^[a-z][a-z0-9-]{0,20}$")
    # Slot N's uid is uid_base + N when set; else useradd picks a system uid. Slot cleanup kills
    # every process of the slot's uid that it can see, so sandboxes on one kernel must not
    # share uids unless they share a pid namespace: the worker image sets its own range.
    uid_base: int | None = Field(default_factory=lambda: _env_int("ARKEVO_SANDBOX_UID_BASE"),
                                 ge=1000, le=2**31 - 1024)

    # Per-trial cgroup (v1 or v2: memory + pids; a CPU quota when the task sets cpus).
    memory_mb: int | None = Field(default=None, ge=64,
                                  description="defaults to the task's [environment].memory_mb, else 8192")
    pids_max: int = Field(default=1024, ge=8, description="tasks (processes + threads) per trial")

    # Per-process rlimits set by the launcher; None = unlimited.
    address_space_mb: int | None = Field(default=32768, ge=256)
    nproc: int = Field(default=1024, ge=8, description="RLIMIT_NPROC for the slot user")
    nofile: int = Field(default=4096, ge=64)
    fsize_mb: int = Field(default=2048, ge=1, description="largest file a sandboxed process may write")
    cpu_sec: int | None = Field(default=14400, ge=1, description="CPU seconds per process")

    default_timeout_sec: float | None = Field(
        default=3600.0, description="wall-clock limit of an exec when Harbor passes none")
    max_output_mb: int = Field(default=64, ge=1, description="stdout/stderr kept per exec and stream")

    # What the sandbox can see besides the system: the worker's venv (bpy) and its base
    # interpreter, the Blender MCP host runtime, optional device nodes (GPU).
    python_prefix: Path = Field(default_factory=lambda: Path(sys.prefix))
    python_base_prefix: Path = Field(default_factory=lambda: Path(sys.base_prefix))
    runtime_dir: Path | None = Field(default=PROJECT_ROOT / "sandbox" / "runtime")
    devices: list[str] = Field(default_factory=list,
                               description="host device nodes bound read-write, e.g. /dev/nvidia0")
    private_dir: Path | None = Field(
        default=None, description="host folder copied read-only to /private for the verifier only")

    role: Literal["auto", "solver", "verifier"] = Field(
        default="auto", description="auto: 'verifier' when Harbor's session id says so")
    require_landlock: bool = True
    # Spawned `python -m` processes (the Blender MCP host, the MCP server) are forked from the
    # worker's fork server, which imported bpy once, instead of starting a fresh interpreter
    # (isolation/forkserver.py). ARKEVO_FORK_SERVER=0 turns it off (A/B benches).
    fork_server: bool = Field(default_factory=lambda: os.environ.get("ARKEVO_FORK_SERVER", "1") != "0")
    # Execs and file transfers are forked into namespaces the worker holds for the sandbox (one
    # bwrap per sandbox, not per exec: isolation/held.py). ARKEVO_HELD_LAUNCHES=0 turns it off.
    held_launches: bool = Field(
        default_factory=lambda: os.environ.get("ARKEVO_HELD_LAUNCHES", "1") != "0")

    @field_validator("devices", mode="before")
    @classmethod
    def _split_devices(cls, value):
        if isinstance(value, str):  # --ek devices=/dev/nvidia0,/dev/nvidiactl
            return [item for item in value.split(",") if item]
        return value

    @field_validator("devices")
    @classmethod
    def _devices_are_dev_nodes(cls, value: list[str]) -> list[str]:
        for item in value:
            if not item.startswith("/dev/") or ".." in item:
                raise ValueError(f"devices: {item!r} is not a /dev path")
        return value

    @field_validator("runtime_dir", "private_dir", "address_space_mb", "cpu_sec",
                     "default_timeout_sec", "memory_mb", mode="before")
    @classmethod
    def _none_words(cls, value):
        # --ek address_space_mb=none: lift that limit (CUDA drivers reserve huge address space)
        return None if isinstance(value, str) and value.lower() in ("", "none", "null") else value

    def memory_bytes(self, task_memory_mb: int | None) -> int:
        return (self.memory_mb or task_memory_mb or 8192) * MiB

    def rlimits(self) -> dict[str, int | None]:
        return {
            "as": self.address_space_mb * MiB if self.address_space_mb else None,
            "nproc": self.nproc,
            "nofile": self.nofile,
            "fsize": self.fsize_mb * MiB,
            "cpu": self.cpu_sec,
            "core": 0,
        }

    @classmethod
    def split_kwargs(cls, kwargs: dict) -> tuple[SandboxSettings, dict]:
        """Our fields out of Harbor's constructor kwargs; the rest stays for BaseEnvironment."""
        ours = {k: kwargs.pop(k) for k in list(kwargs) if k in cls.model_fields}
        return cls(**ours), kwargs
