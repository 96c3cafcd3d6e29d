"""Run an exported/published Harbor task under Harbor's Docker environment with the oracle agent.

    python -m deploy.harbor_docker <task dir> [--jobs-dir var/harbor-jobs] [--timeout 1800]

runs `harbor run -p <task dir> -e docker -a oracle` (the task image is built from the task's
environment/Dockerfile, the reference solution runs in it as the agent, the separate verifier
grades the delivery in a second container) and prints the reward, the wall time (image build
included) and the size of the image Harbor built. `run_oracle()` is the same run as a function:
it returns the reward and raises `HarborRunError`, with the tail of the job's logs, when the job
did not produce one. Needs a Docker engine with `docker compose` (docs/exports.md).

Our tasks set `network_mode = "no-network"`. Harbor's docker environment enforces that with an
egress-control sidecar whose images (and a kernel probe's) come from a registry; where none can
be had — no registry, or a kernel without nftables' fib — `harbor run -e docker` refuses the
task. `NoNetworkDockerEnvironment` (`-e deploy.harbor_docker:NoNetworkDockerEnvironment`) is
Harbor's docker environment that then runs the containers with `network_mode: none` (Harbor's
own docker-compose-no-network.yaml) instead: no interface but `lo`, in every phase. run_oracle
picks it only when Harbor's probe says the sidecar cannot run.

The task image's PyPI download trusts the build host's CA bundle when it is handed over as the
build secret `ca_bundle` (environment/Dockerfile, as for the worker image): run_oracle passes
`$ARKEVO_BUILD_CA_BUNDLE`, else /etc/ssl/certs/ca-certificates.crt, through an
`--extra-docker-compose` overlay. Harbor gives a separate verifier's container no overlay; its
image build finds every layer in the cache the agent's build just filled.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

from harbor.environments.capabilities import EnvironmentCapabilities
from harbor.environments.docker import COMPOSE_NO_NETWORK_PATH
from harbor.environments.docker.docker import DockerEnvironment
from harbor.models.task.config import NetworkMode

HARBOR = Path(sys.executable).with_name("harbor")  # the venv's console script
TAIL_CHARS = 4000
STOP_GRACE_SEC = 120  # after a timeout: time for Harbor to take its containers down
OFFLINE_DOCKER = "deploy.harbor_docker:NoNetworkDockerEnvironment"
PROJECT_ROOT = Path(__file__).resolve().parent.parent


class HarborRunError(RuntimeError):
    pass


class NoNetworkDockerEnvironment(DockerEnvironment):
    """Harbor's docker environment, with `no-network` as `network_mode: none` where Harbor's
    egress-control sidecar is unavailable (exactly Harbor's behaviour where it is)."""

    @classmethod
    @cache
    def _egress_control_kernel_support(cls) -> bool:
        return DockerEnvironment._egress_control_kernel_support()  # once per process

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        caps = super().capabilities
        if self._enable_egress_control:
            return caps
        # A container without a network can always be had; allowlists and switching the
        # policy after start cannot (Harbor then applies the broadest phase policy up front).
        return caps.model_copy(update={"disable_internet": True})

    @property
    def _docker_compose_paths(self) -> list[Path]:
        paths = super()._docker_compose_paths
        if (not self._enable_egress_control
                and self._network_policy.network_mode == NetworkMode.NO_NETWORK):
            paths.append(COMPOSE_NO_NETWORK_PATH)
        return paths


def docker_environment() -> str:
    """`docker` where Harbor's own docker environment can enforce `no-network` here, else the
    `network_mode: none` variant above."""
    return "docker" if DockerEnvironment._egress_control_kernel_support() else OFFLINE_DOCKER


def default_ca_bundle() -> Path | None:
    path = Path(os.environ.get("ARKEVO_BUILD_CA_BUNDLE") or "/etc/ssl/certs/ca-certificates.crt")
    return path if path.is_file() else None


def job_name_for(task_dir: Path) -> str:
    task_dir = Path(task_dir).resolve()
    name = task_dir.parent.name if task_dir.name == "task" else task_dir.name  # a publication's
    return f"{_slug(name)}-oracle-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"


def run_oracle(task_dir: Path, jobs_dir: Path, timeout: float, *, delete: bool = True,
               environment: str | None = None, ca_bundle: Path | None | bool = True,
               job_name: str | None = None) -> float:
    """Run the task's oracle under `harbor run -e docker`; the reward of its single trial.

    The job's folder is `jobs_dir/<job name>` (Harbor's layout; `<job name>.log` beside it holds
    harbor's own output; default name: `job_name_for()`). `delete=False` keeps the images
    Harbor built (`image_names()`). `environment` is what `-e` gets (default:
    `docker_environment()`); `ca_bundle` the build secret's file (True: `default_ca_bundle()`;
    None or False: none)."""
    environment = environment or docker_environment()
    if ca_bundle is True:
        ca_bundle = default_ca_bundle()
    task_dir, jobs_dir = Path(task_dir).resolve(), Path(jobs_dir).resolve()
    if not (task_dir / "task.toml").is_file():
        raise HarborRunError(f"{task_dir} is not a Harbor task directory (no task.toml)")
    jobs_dir.mkdir(parents=True, exist_ok=True)
    job_name = job_name or job_name_for(task_dir)
    job_dir, log = jobs_dir / job_name, jobs_dir / f"{job_name}.log"
    command = [str(HARBOR), "run", "-p", str(task_dir), "-e", environment, "-a", "oracle",
               "-o", str(jobs_dir), "--job-name", job_name, "-n", "1", "-y", "-q",
               "--delete" if delete else "--no-delete"]
    if ca_bundle and (task_dir / "environment" / "Dockerfile").is_file():
        overlay = jobs_dir / f"{job_name}.build-secrets.json"
        overlay.write_text(json.dumps({
            "services": {"main": {"build": {"secrets": ["ca_bundle"]}}},
            "secrets": {"ca_bundle": {"file": str(Path(ca_bundle).resolve())}}}, indent=2))
        command += ["--extra-docker-compose", str(overlay)]
    # Harbor imports LiteLLM, which would fetch its model price list without this.
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    if environment == OFFLINE_DOCKER:  # the import path must resolve in harbor's process
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), env.get("PYTHONPATH")]))
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env,
                                   start_new_session=True)
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _stop(process)
            raise HarborRunError(f"harbor run timed out after {timeout:.0f} s\n"
                                 + _tails(job_dir, log)) from None
    results = _trial_results(job_dir)
    if len(results) != 1:
        raise HarborRunError(f"harbor run exited with {code} and {len(results)} trial results in "
                             f"{job_dir} (expected 1)\n" + _tails(job_dir, log))
    trial_dir, result = results[0]
    exception = result.get("exception_info")
    rewards = (result.get("verifier_result") or {}).get("rewards") or {}
    if exception or "reward" not in rewards:
        what = (f"{exception.get('exception_type')}: {exception.get('exception_message')}"
                if exception else f"no reward (rewards: {rewards})")
        raise HarborRunError(f"trial {trial_dir.name} failed: {what}\n" + _tails(job_dir, log))
    if code != 0:
        raise HarborRunError(f"harbor run exited with {code}\n" + _tails(job_dir, log))
    return float(rewards["reward"])


def image_names(job_dir: Path) -> list[str]:
    """The images Harbor's docker environment built for the job's trials (kept only when the
    job ran with `--no-delete`): compose names them `<project>-main`, the project being the
    environment's session — `<trial>__env`, and `<trial>__verifier__<key>` for a separate
    verifier — so each trial's are the `main` images whose name starts with the trial's."""
    names = []
    for trial_dir, result in _trial_results(job_dir):
        prefix = _project(result.get("trial_name") or trial_dir.name)
        listed = subprocess.run(
            ["docker", "image", "ls", "--filter", f"reference={prefix}__*",
             "--filter", "label=com.docker.compose.service=main",
             "--format", "{{.Repository}}:{{.Tag}}"], capture_output=True, text=True)
        names += sorted(listed.stdout.split())
    return names


def image_size(name: str) -> int:
    """Bytes of `name` as `docker image inspect` reports them (all layers, base included)."""
    info = _inspect(name)
    if info is None:
        raise HarborRunError(f"no docker image {name}")
    return int(info["Size"])


def _inspect(name: str) -> dict | None:
    done = subprocess.run(["docker", "image", "inspect", name], capture_output=True, text=True)
    return json.loads(done.stdout)[0] if done.returncode == 0 else None


def _project(session_id: str) -> str:
    # Harbor's docker environment: _sanitize_docker_compose_project_name(session_id).
    name = session_id.lower()
    if not re.match(r"^[a-z0-9]", name):
        name = "0" + name
    return re.sub(r"[^a-z0-9_-]", "-", name)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "-", text) or "task"


def _trial_results(job_dir: Path) -> list[tuple[Path, dict]]:
    found = []
    for path in sorted(job_dir.glob("*/result.json")):
        try:
            found.append((path.parent, json.loads(path.read_text())))
        except (OSError, ValueError):
            continue
    return found


def _stop(process: subprocess.Popen) -> None:
    """SIGINT first (Harbor cancels its trials and takes the containers down), then SIGKILL."""
    for sig, wait in ((signal.SIGINT, STOP_GRACE_SEC), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _tails(job_dir: Path, log: Path) -> str:
    """The end of what explains a failure: the trial's exception, verifier and oracle output,
    its log, and harbor's own output."""
    files = []
    for trial_dir in sorted(p for p in job_dir.glob("*") if p.is_dir()):
        files += [trial_dir / "exception.txt", trial_dir / "verifier" / "test-stdout.txt",
                  trial_dir / "verifier" / "test-stderr.txt", trial_dir / "agent" / "oracle.txt",
                  trial_dir / "trial.log"]
    files += [job_dir / "job.log", log]
    parts = []
    for path in files:
        if path.is_file() and (text := path.read_text(errors="replace").strip()):
            parts.append(f"--- {path} (tail) ---\n{text[-TAIL_CHARS:]}")
    return "\n".join(parts) or f"(no logs under {job_dir})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.harbor_docker", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("task_dir", type=Path, help="a Harbor task directory (holds task.toml)")
    parser.add_argument("--jobs-dir", type=Path, default=Path("var/harbor-jobs"),
                        help="where Harbor writes the job (default: var/harbor-jobs)")
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds for the whole job, image build included (default: 1800)")
    parser.add_argument("--keep-image", action="store_true",
                        help="keep the images Harbor built (their tags are removed otherwise; "
                             "the layers stay in the build cache)")
    args = parser.parse_args(argv)
    environment, job_name = docker_environment(), job_name_for(args.task_dir)
    job_dir = args.jobs_dir.resolve() / job_name
    print(f"harbor run -e {environment} -a oracle -p {args.task_dir} (job {job_dir})", flush=True)
    started = time.monotonic()
    try:
        reward = run_oracle(args.task_dir, args.jobs_dir, args.timeout, delete=False,
                            environment=environment, job_name=job_name)
    except HarborRunError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        elapsed = time.monotonic() - started
        sizes = {name: image_size(name) for name in image_names(job_dir)}
        if sizes and not args.keep_image:
            subprocess.run(["docker", "image", "rm", *sizes], capture_output=True)
    print(f"reward: {reward}")
    print(f"time: {elapsed:.1f} s (image build + agent + verifier)")
    for name, size in sizes.items():
        print(f"image: {name} {size / 1e6:.0f} MB ({size} bytes)")
    if not sizes:
        print("image: none found")
    return 0


if __name__ == "__main__":
    sys.exit(main())
