"""`make deploy-test`: the production compose file, run for real on this machine.

1. the Debian 13 base image (pulled, or built locally by deploy/base_image.sh) and the worker
   image from ./Dockerfile;
2. the stack: docker-compose.yml + deploy/compose.offline.yml (the `temporal` CLI's server on a
   named volume, moto's S3 server, the real workers and one-shot jobs), up and healthy, with two
   cpu and two gpu workers, each in its own container with its own /data: no volume is shared
   but the object store's;
3. a seed submitted with `temporal workflow start`;
4. while a stage-06 trial runs, the container of the gpu worker running it is killed with
   SIGKILL; Docker's restart policy brings it back and the trial is retried;
5. the publication's trial records are checked: every planned trial recorded once (0 lost,
   0 duplicated) and the killed trial's activity ran a second attempt;
6. an evaluation campaign over the publication (`EvaluationCampaign`, pilot configs): every
   planned trial has one create-only record, 0 lost, 0 duplicated, and the gpu workers that
   ran them are named;
7. the published task, exported from the shared store, runs under Harbor's Docker environment
   (`harbor run -e docker -a oracle`) and scores 1.0.

Prints what each step took and writes the figures to var/deploy-test/summary.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "arkevo-deploy-test"
ENV_FILE = ROOT / "deploy" / "offline" / "compose.env"
SEED = "seeds/table-model"
NO_ENGINE = 3
IMAGE_LABEL = "org.opencontainers.image.title=arkevo-worker"  # the Dockerfile's
LONG_RUNNING = ("temporal", "object-store", "worker-control", "worker-cpu", "worker-llm", "worker-gpu")
# Two cpu and two gpu workers, each its own container with its own /data: they share nothing
# but Temporal and the object store, so a record kept on one worker's disk would show here.
SCALE = ("--scale", "worker-cpu=2", "--scale", "worker-gpu=2")
CAMPAIGN = "deploy-campaign"


class DeployTestFailed(Exception):
    pass


def _env_file_values() -> dict[str, str]:
    values = {}
    for line in ENV_FILE.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


OFFLINE = _env_file_values()
IMAGE = f"{OFFLINE.get('ARKEVO_IMAGE', 'arkevo/worker')}:{OFFLINE['ARKEVO_TAG']}"


def compose(*args: str) -> list[str]:
    return ["docker", "compose", "-p", PROJECT, "--env-file", str(ENV_FILE),
            "-f", str(ROOT / "docker-compose.yml"), "-f", str(ROOT / "deploy" / "compose.offline.yml"),
            *args]


def run(argv: list[str], *, timeout: float = 600, check: bool = True) -> str:
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-25:])
        raise DeployTestFailed(f"`{' '.join(argv[:8])} …` exited {proc.returncode}:\n{tail}")
    return proc.stdout


def engine_problem() -> str | None:
    """Why no deploy test can run here, or None."""
    if shutil.which("docker") is None:
        return "no `docker` command (bash scripts/docker-engine.sh installs Debian's docker.io)"
    info = subprocess.run(["docker", "info", "-f", "{{.ServerVersion}}"], capture_output=True, text=True)
    if info.returncode != 0:
        return f"no Docker engine answers: {(info.stderr or info.stdout).strip()[:200]}"
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode != 0:
        return "the `docker compose` (v2) plugin is missing (bash scripts/docker-engine.sh installs it)"
    return None


def image_size(ref: str) -> int:
    return int(run(["docker", "image", "inspect", "-f", "{{.Size}}", ref]).strip())


def containers(service: str) -> list[str]:
    cids = run(compose("ps", "-a", "-q", service)).strip().splitlines()
    if not cids:
        raise DeployTestFailed(f"service {service} has no container")
    return cids


def container(service: str) -> str:
    return containers(service)[0]


def probe(*args: str, timeout: float = 900) -> dict:
    out = run(compose("exec", "-T", "worker-control", "python", "-m", "deploy.stack_probe", *args),
              timeout=timeout + 30)
    return json.loads(out.strip().splitlines()[-1])


def inspect(cid: str) -> dict:
    return json.loads(run(["docker", "inspect", cid]))[0]


def kill_gpu_worker(identity: str) -> dict:
    """SIGKILL the container of the gpu worker `identity` (pid@hostname: the hostname is the
    container id's prefix) from the host (a crash, not a stop), then wait for the restart policy
    to bring it back."""
    host = identity.rpartition("@")[2]
    matching = [c for c in containers("worker-gpu") if host and c.startswith(host)]
    if len(matching) != 1:
        raise DeployTestFailed(f"no single worker-gpu container runs {identity!r}")
    cid = matching[0]
    before = inspect(cid)
    os.kill(before["State"]["Pid"], 9)
    killed_at = time.monotonic()
    deadline = killed_at + 120
    while time.monotonic() < deadline:
        state = inspect(cid)
        if state["RestartCount"] > before["RestartCount"] and state["State"]["Running"]:
            return {"container": cid[:12], "restart_count": state["RestartCount"],
                    "exit_code": state["State"].get("ExitCode"),
                    "back_after_s": round(time.monotonic() - killed_at, 1)}
        time.sleep(0.5)
    raise DeployTestFailed("the killed gpu worker was not restarted by its restart policy within 120 s")


def wait_exit(service: str, timeout: float) -> int:
    """A one-shot service's exit code, once its container has exited (restarts included)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = inspect(container(service))["State"]
        if state["Status"] == "exited" and not state.get("Restarting"):
            return state["ExitCode"]
        time.sleep(1)
    raise DeployTestFailed(f"{service} still runs after {timeout:.0f}s")


def export_task(publication: str, dest: Path) -> Path:
    """The published task from the shared store, as `arkevo export` writes it, unpacked."""
    inside = "/data/deploy-test-export.zip"
    run(compose("exec", "-T", "worker-control", "arkevo", "export", "task",
                "--publication", publication, "--out", inside))
    run(["docker", "cp", f"{container('worker-control')}:{inside}", str(dest / "task.zip")])
    with zipfile.ZipFile(dest / "task.zip") as zf:
        zf.extractall(dest / "unzipped")
    tasks = [p.parent for p in (dest / "unzipped").glob("*/task.toml")]
    if len(tasks) != 1:
        raise DeployTestFailed(f"the export holds {len(tasks)} task directories, expected 1")
    return tasks[0]


def log_tails() -> str:
    return run(compose("logs", "--no-color", "--tail", "30"), check=False, timeout=60)


def deploy_test(args: argparse.Namespace) -> dict:
    figures: dict = {"seed": SEED, "image": IMAGE}
    t0 = time.monotonic()

    def step(name: str, started: float) -> float:
        figures.setdefault("seconds", {})[name] = round(time.monotonic() - started, 1)
        print(f"deploy-test: {name}: {figures['seconds'][name]} s", flush=True)
        return time.monotonic()

    t = time.monotonic()
    print(run(["bash", str(ROOT / "deploy" / "base_image.sh"), "debian:trixie-slim"]).strip())
    t = step("base image", t)
    run(compose("build", "--progress", "plain"), timeout=1800)
    figures["image_bytes"] = {"debian:trixie-slim": image_size("debian:trixie-slim"), IMAGE: image_size(IMAGE)}
    t = step("worker image build", t)

    run(compose("down", "-v", "--remove-orphans"), timeout=180)
    # The long-running services healthy (their one-shot jobs done first), then the version
    # promotion job, which has nothing to be healthy for: it must exit 0.
    run(compose("up", "-d", "--wait", "--wait-timeout", "300", *SCALE, *LONG_RUNNING), timeout=420)
    run(compose("up", "-d", *SCALE, "promote-version"), timeout=120)  # an `up` without it scales back to one
    promoted = wait_exit("promote-version", 300)
    if promoted != 0:
        raise DeployTestFailed(f"promote-version exited {promoted}:\n"
                               + run(compose("logs", "--no-color", "promote-version"), check=False))
    t = step("stack start (up --wait: every service healthy, one-shot jobs done)", t)
    figures["services"] = run(compose("ps", "-a", "--format", "{{.Service}}\t{{.State}}\t{{.Status}}"),
                              check=False).strip().splitlines()
    figures["containers"] = {s: len(containers(s)) for s in ("worker-cpu", "worker-gpu")}
    if figures["containers"] != {"worker-cpu": 2, "worker-gpu": 2}:
        raise DeployTestFailed(f"expected two cpu and two gpu worker containers: {figures['containers']}")
    shared = {m["Name"] for s in ("worker-cpu", "worker-gpu") for c in containers(s)
              for m in inspect(c)["Mounts"] if m["Type"] == "volume" and m["Name"].startswith(PROJECT)}
    if shared:
        raise DeployTestFailed(f"worker containers mount named volumes: {sorted(shared)}")

    wid = f"deploy-{int(time.time())}"
    options = json.dumps({"seed": SEED, "options": {"k": args.k}})
    run(compose("exec", "-T", "temporal", "temporal", "workflow", "start", "--address", "127.0.0.1:7233",
                "--task-queue", "arkevo-control", "--type", "TaskProduction", "--workflow-id", wid,
                "--input", options))
    figures["workflow_id"] = wid
    print(f"deploy-test: submitted {wid} ({options})", flush=True)
    submitted = time.monotonic()

    running = probe("wait-trial", "--workflow-id", wid, "--timeout", str(args.timeout))
    figures["killed_during"] = running
    print(f"deploy-test: {running['workflow_id']} {running['activity_id']} running "
          f"(attempt {running['attempt']}); kill -9 of the gpu worker", flush=True)
    figures["kill"] = kill_gpu_worker(running["worker"])
    print(f"deploy-test: gpu worker restarted after {figures['kill']['back_after_s']} s", flush=True)

    probe("result", "--workflow-id", wid, "--timeout", str(args.timeout), timeout=args.timeout)
    figures["production_s"] = round(time.monotonic() - submitted, 1)
    t = step("seed production (incl. the kill)", submitted)
    checked = probe("records", "--workflow-id", wid)
    figures["records"] = checked
    attempts = checked["run_trial_attempts"].get(running["activity_id"], 0)
    problems = []
    if checked["lost"] or checked["duplicated"] or checked["unplanned"]:
        problems.append(f"records: lost {checked['lost']}, duplicated {checked['duplicated']}, "
                        f"unplanned {checked['unplanned']}")
    if checked["records"] != checked["planned"]:
        problems.append(f"{checked['records']} records for {checked['planned']} planned trials")
    if checked["infra_failures"]:
        problems.append(f"{checked['infra_failures']} trials recorded as infra failures")
    if attempts < 2:
        problems.append(f"the killed trial {running['activity_id']} shows no retry (attempt {attempts})")
    if problems:
        raise DeployTestFailed("; ".join(problems))
    print(f"deploy-test: {checked['records']} of {checked['planned']} trial records, 0 lost, "
          f"0 duplicated; the killed trial ran attempt {attempts}", flush=True)

    t = time.monotonic()
    campaign = json.dumps({"campaign_id": CAMPAIGN, "publications": [checked["publication"]]})
    run(compose("exec", "-T", "temporal", "temporal", "workflow", "start", "--address", "127.0.0.1:7233",
                "--task-queue", "arkevo-control", "--type", "EvaluationCampaign",
                "--workflow-id", f"campaign-{CAMPAIGN}", "--input", campaign))
    probe("result", "--workflow-id", f"campaign-{CAMPAIGN}", "--timeout", str(args.timeout), timeout=args.timeout)
    evaluated = probe("campaign-records", "--workflow-id", CAMPAIGN)
    figures["campaign"] = evaluated
    if evaluated["lost"] or evaluated["duplicated"] or evaluated["unplanned"] or \
            evaluated["records"] != evaluated["planned"] or evaluated["record_files"] != evaluated["planned"]:
        raise DeployTestFailed(f"campaign records: {evaluated}")
    if evaluated["infra_failures"]:
        raise DeployTestFailed(f"campaign: {evaluated['infra_failures']} trials recorded as infra failures")
    t = step("campaign over the publication", t)
    print(f"deploy-test: campaign {CAMPAIGN}: {evaluated['records']} of {evaluated['planned']} trial records, "
          f"0 lost, 0 duplicated; run_trial by {evaluated['run_trial_workers']}", flush=True)

    if not args.skip_harbor:
        from deploy.harbor_docker import HarborRunError, run_oracle

        with tempfile.TemporaryDirectory(prefix="arkevo-deploy-test-") as tmp:
            task_dir = export_task(checked["publication"], Path(tmp))
            try:
                reward = run_oracle(task_dir, Path(tmp) / "jobs", timeout=1200)
            except HarborRunError as exc:
                raise DeployTestFailed(f"harbor run -e docker on the published task: {exc}") from exc
        figures["harbor_docker_oracle_reward"] = reward
        t = step("harbor run -e docker -a oracle on the published task", t)
        if reward != 1.0:
            raise DeployTestFailed(f"Harbor's oracle scored {reward} on the published task, expected 1.0")
        print(f"deploy-test: harbor run -e docker -a oracle: reward {reward}", flush=True)
    figures["total_s"] = round(time.monotonic() - t0, 1)
    return figures


EXIT_CODES = f"""\
exit codes:
  0  every check held
  1  a check failed (with the services' log tails)
  2  bad usage
  {NO_ENGINE}  no Docker engine answers (the reason is printed)"""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m deploy.deploy_test", description=__doc__,
                                epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--k", type=int, default=1, help="stage-06 attempts per configuration (default 1)")
    p.add_argument("--timeout", type=float, default=900, help="seconds for the seed's production")
    p.add_argument("--keep", action="store_true", help="leave the stack up afterwards")
    p.add_argument("--skip-harbor", action="store_true", help="skip the Harbor Docker run")
    p.add_argument("--summary", type=Path, default=ROOT / "var" / "deploy-test" / "summary.json",
                   help="where the figures go (default var/deploy-test/summary.json)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.k < 1:
        print("deploy-test: --k must be at least 1", file=sys.stderr)
        return 2
    problem = engine_problem()
    if problem:
        print(f"deploy-test: cannot run: {problem}", file=sys.stderr)
        return NO_ENGINE
    def terminated(signum, frame):  # SIGTERM: fail here, so the stack still comes down below
        raise DeployTestFailed("terminated (SIGTERM)")

    signal.signal(signal.SIGTERM, terminated)
    ok = False
    try:
        figures = deploy_test(args)
        ok = True
    except (DeployTestFailed, subprocess.TimeoutExpired) as exc:
        print(f"deploy-test: FAILED: {exc}", file=sys.stderr)
        print(log_tails(), file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            run(compose("down", "-v", "--remove-orphans"), check=False, timeout=300)
            # Earlier builds of the worker image that this one replaced (untagged, same title).
            run(["docker", "image", "prune", "-f", "--filter", f"label={IMAGE_LABEL}"],
                check=False, timeout=300)
    args.summary.parent.mkdir(parents=True, exist_ok=True)
    args.summary.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    print(f"deploy-test: passed in {figures['total_s']} s; figures in {args.summary}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
