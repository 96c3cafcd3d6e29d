"""Timeouts and retry policies per kind of activity, in one place."""

from datetime import timedelta
from typing import TypedDict

from temporalio.common import RetryPolicy

from contracts.errors import NON_RETRYABLE
from contracts import queues


class ActivityOptions(TypedDict, total=False):
    """The keyword arguments of `workflow.execute_activity_method` these presets set: typed, so
    a type checker matches `**CPU` against the SDK's overloads (a plain dict does not)."""

    task_queue: str
    start_to_close_timeout: timedelta
    schedule_to_start_timeout: timedelta
    heartbeat_timeout: timedelta
    retry_policy: RetryPolicy


_INFRA_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=2),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=60),
    maximum_attempts=4,
    non_retryable_error_types=NON_RETRYABLE,
)

# Light file work on the cpu pool.
CPU = ActivityOptions(
    task_queue=queues.CPU,
    start_to_close_timeout=timedelta(minutes=5),
    retry_policy=_INFRA_RETRY,
)

# Blender processes on the gpu pool; heartbeats let a dead worker's trial move elsewhere fast.
# 20 s: its activities heartbeat every 5 s (trials every second while their Blender host shows
# life), so a lost worker's (or a frozen host's) attempt is retried within 20-36 s (the SDK sends
# at most one heartbeat per 0.8 x timeout); the price is that no gpu activity may block its
# worker's event loop for ~15 s (docs/failures.md, "Chaos tests").
GPU = ActivityOptions(
    task_queue=queues.GPU,
    start_to_close_timeout=timedelta(minutes=45),
    schedule_to_start_timeout=timedelta(hours=6),
    heartbeat_timeout=timedelta(seconds=20),
    retry_policy=_INFRA_RETRY,
)

# Model calls on the llm pool: waits on the shared budget can be long, hence heartbeats. This
# policy is the only retry of a judge request (modelapi/retry.py): a busy endpoint's Retry-After
# comes back as the next_retry_delay.
LLM = ActivityOptions(
    task_queue=queues.LLM,
    start_to_close_timeout=timedelta(minutes=30),
    heartbeat_timeout=timedelta(seconds=60),
    retry_policy=RetryPolicy(
        initial_interval=timedelta(seconds=5),
        backoff_coefficient=2.0,
        maximum_interval=timedelta(minutes=2),
        maximum_attempts=5,
        non_retryable_error_types=["ModelEndpointError", "InvalidJudge", "JudgeNotConfigured"],
    ),
)

# The author model's tool loop (gpu pool: its authoring sandbox runs Blender). A round can take
# long with a real model; heartbeats cover the model calls too.
AUTHOR = ActivityOptions(
    task_queue=queues.GPU,
    start_to_close_timeout=timedelta(hours=2),
    schedule_to_start_timeout=timedelta(hours=6),
    heartbeat_timeout=timedelta(minutes=2),
    retry_policy=RetryPolicy(initial_interval=timedelta(seconds=5), backoff_coefficient=2.0,
                             maximum_interval=timedelta(minutes=2), maximum_attempts=3,
                             non_retryable_error_types=NON_RETRYABLE),
)

# The reviewer's and the deriver's single model calls (llm pool).
MODEL_CALL: ActivityOptions = {**LLM, "retry_policy": RetryPolicy(
    initial_interval=timedelta(seconds=5), backoff_coefficient=2.0,
    maximum_interval=timedelta(minutes=2), maximum_attempts=4,
    non_retryable_error_types=NON_RETRYABLE)}


def endpoint_check(task_queue: str) -> ActivityOptions:
    """Is a role's endpoint configured on that pool's workers? Answered in seconds, never
    retried when it is not (the error names the variables to set)."""
    return ActivityOptions(task_queue=task_queue, start_to_close_timeout=timedelta(seconds=30),
                retry_policy=RetryPolicy(maximum_attempts=3, non_retryable_error_types=NON_RETRYABLE))


# A campaign's preflight (activities/preflight.py) on the gpu pool: model endpoint pings, then one
# smoke trial in the sandbox; a failed check is its answer, not an exception, so the retries
# are for a lost worker only.
PREFLIGHT: ActivityOptions = {**GPU, "start_to_close_timeout": timedelta(minutes=30),
                              "retry_policy": RetryPolicy(maximum_attempts=3,
                                                          non_retryable_error_types=NON_RETRYABLE)}
