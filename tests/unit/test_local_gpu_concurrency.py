"""`make up`'s gpu worker runs two trials per core (bench/gpu_slots.py), never more than the
sandbox has slots, and ARKEVO_GPU_CONCURRENCY overrides it with a clear error when malformed."""

import pytest

from sandbox.isolation.settings import SandboxSettings
from workers.stack import GPU_CONCURRENCY_ENV, local_gpu_concurrency


def test_two_per_core_capped_at_the_sandbox_slots():
    slots = SandboxSettings.model_fields["slots"].default
    assert local_gpu_concurrency({}, cpus=1) == 2
    assert local_gpu_concurrency({}, cpus=2) == 4
    assert local_gpu_concurrency({}, cpus=64) == slots


def test_the_environment_overrides_it():
    assert local_gpu_concurrency({GPU_CONCURRENCY_ENV: "3"}, cpus=2) == 3


@pytest.mark.parametrize("value", ["0", "-1", "two", "2.5"])
def test_a_malformed_override_names_the_variable(value):
    with pytest.raises(SystemExit, match=f"{GPU_CONCURRENCY_ENV}={value!r}: expected a positive integer"):
        local_gpu_concurrency({GPU_CONCURRENCY_ENV: value}, cpus=2)
