"""docker-compose.yml keeps the production layout docs/deployment.md describes: what a
reviewer checked by hand (issue 12) holds on every change, without a Docker engine. The
deploy test (tests/background/test_deploy_stack.py) runs the file for real where one answers."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
JOBS = {"temporal-admin-tools", "temporal-create-namespace", "register-search-attributes",
        "object-store-setup", "promote-version"}
LONG_RUNNING = set(SERVICES) - JOBS
WORKERS = {"worker-control", "worker-cpu", "worker-llm", "worker-gpu"}


def env_files(service: dict) -> list[str]:
    return [e["path"] if isinstance(e, dict) else e for e in service.get("env_file", [])]


def test_no_deprecated_auto_setup_and_every_image_named_and_tagged():
    for name, service in SERVICES.items():
        image = service["image"]
        assert "auto-setup" not in image, name
        assert ":" in image.rsplit("/", 1)[-1], f"{name}: {image} has no tag"


@pytest.mark.parametrize("name", sorted(LONG_RUNNING))
def test_long_running_services_restart_and_report_health(name):
    service = SERVICES[name]
    assert service["restart"] == "unless-stopped"
    if name != "temporal-ui":  # the UI is nothing's dependency
        assert service["healthcheck"]["test"], name


@pytest.mark.parametrize("name", sorted(JOBS))
def test_one_shot_jobs_restart_only_on_failure(name):
    assert SERVICES[name]["restart"].startswith("on-failure")


def test_dependencies_wait_for_health_or_completion():
    for name, service in SERVICES.items():
        for dependency, how in (service.get("depends_on") or {}).items():
            assert isinstance(how, dict), f"{name} -> {dependency}: a plain depends_on"
            expected = "service_completed_successfully" if dependency in JOBS else "service_healthy"
            assert how["condition"] == expected, f"{name} -> {dependency}"
    for worker in WORKERS:
        assert set(SERVICES[worker]["depends_on"]) == {"register-search-attributes", "object-store-setup"}


def test_model_keys_only_on_llm_and_gpu_workers():
    holders = {name for name, s in SERVICES.items() if any("models.env" in f for f in env_files(s))}
    assert holders == {"worker-llm", "worker-gpu"}


def test_workers_share_the_object_store_not_a_volume():
    for worker in WORKERS:
        env = SERVICES[worker]["environment"]
        assert env["ARKEVO_STORE"].startswith("s3://") and env["ARKEVO_OBJECTS"].startswith("s3://")
        assert not SERVICES[worker].get("volumes")


def test_gpu_worker_is_one_gpu_by_device_id_with_graphics():
    gpu = SERVICES["worker-gpu"]
    (device,) = gpu["deploy"]["resources"]["reservations"]["devices"]
    assert device["device_ids"] == ["${ARKEVO_GPU_DEVICE:-0}"] and "count" not in device
    assert "graphics" in device["capabilities"]
    assert "graphics" in gpu["environment"]["NVIDIA_DRIVER_CAPABILITIES"].split(",")
    assert not gpu.get("privileged") and gpu["cgroup"] == "private"
    assert gpu["user"] == "root" and set(gpu["cap_add"]) == {"SYS_ADMIN", "NET_ADMIN", "SYS_PTRACE"}


def test_stop_grace_exceeds_the_graceful_shutdown():
    from workers.pools import GRACEFUL_SHUTDOWN_SEC

    def seconds(value: str) -> float:
        value = value.split(":-", 1)[-1].rstrip("}")
        return float(value[:-1]) * {"s": 1, "m": 60, "h": 3600}[value[-1]]

    for worker in WORKERS:
        pool = worker.removeprefix("worker-")
        assert seconds(SERVICES[worker]["stop_grace_period"]) > GRACEFUL_SHUTDOWN_SEC[pool], worker


class _ComposeTags(yaml.SafeLoader):
    """Compose's merge tags (`!reset`, `!override`) read as the plain value they tag."""


_ComposeTags.add_multi_constructor(
    "!", lambda loader, _tag, node: (loader.construct_sequence(node) if isinstance(node, yaml.SequenceNode)
                                     else loader.construct_mapping(node) if isinstance(node, yaml.MappingNode)
                                     else loader.construct_scalar(node)))


def test_offline_dev_server_runs_sqlite_as_the_stack_does():
    """deploy/compose.offline.yml cannot import workers/stack.py: its dev server's pragmas are
    written out there, and must be the same ones (WAL, synchronous=normal)."""
    from workers.stack import DEV_SERVER_SQLITE

    offline = yaml.load((ROOT / "deploy" / "compose.offline.yml").read_text(), Loader=_ComposeTags)
    argv = offline["services"]["temporal"]["entrypoint"]
    pragmas = [(a, b) for a, b in zip(argv, argv[1:]) if a == "--sqlite-pragma"]
    assert pragmas == list(zip(DEV_SERVER_SQLITE[::2], DEV_SERVER_SQLITE[1::2]))
