"""A Blender host that stops answering: SIGSTOP of the real sandboxed host process of attempt 1,
before the agent's first tool call (its start is infrastructure's, docs/failures.md). The gpu
worker's heartbeat follows the host's liveness (activities/trial_backends.py `_heartbeating`,
sandbox/mcp_session.py `HostLiveness`): no sign of life, no heartbeat; the server's heartbeat
timeout fires, attempt 2 runs on the other gpu worker (the first keeps its only slot until the
server has given up), the stuck host is killed, and exactly one trial record exists."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time

import pytest
from temporalio.api.enums.v1 import TimeoutType

from contracts import queues
from contracts.payloads.campaigns import CampaignRecord
from tests.chaos.helpers import (alive, blender_hosts, chaos, pending_run_trial, records,
                                 run_trial_history, started_on, trial_input, until)
from workflows.evaluation_campaign import CampaignTrial

pytestmark = [*chaos, pytest.mark.timeout(150)]


async def test_frozen_blender_host_is_retried_on_another_worker_and_recorded_once(stack, chaos_task):
    began = time.monotonic()
    gpu1 = stack.start_worker("gpu", concurrency=1)
    await stack.ready()
    workflow_id, trial = trial_input(chaos_task, "freeze-host")
    handle = await stack.client.start_workflow(CampaignTrial.run, trial, id=workflow_id,
                                               task_queue=queues.CONTROL, result_type=CampaignRecord)
    started = time.monotonic()

    async def started_on_worker(worker, attempt):
        activity = await pending_run_trial(handle)
        return activity if started_on(activity, worker.identity, attempt) else None

    await until("run_trial STARTED on gpu worker 1", lambda: started_on_worker(gpu1, 1), 60)
    # The host appears ~1 s before it is ready (bpy import, .blend load), and the agent's
    # first call comes after the MCP server's own start: stopped here, it never got one.
    [host] = await until("the Blender host of attempt 1", lambda: blender_hosts(gpu1.pid), 60,
                         every=0.01)
    os.kill(host, signal.SIGSTOP)
    frozen = time.monotonic()
    host_gone = asyncio.create_task(until("the frozen host killed by gpu worker 1",
                                          lambda: None if alive(host) else time.monotonic(), 60))
    gpu2 = stack.start_worker("gpu", concurrency=1)

    retry = await until("run_trial attempt 2 STARTED on gpu worker 2",
                        lambda: started_on_worker(gpu2, 2), 90, every=0.2)
    retried = time.monotonic()
    assert retry.last_failure.timeout_failure_info.timeout_type == TimeoutType.TIMEOUT_TYPE_HEARTBEAT, \
        retry.last_failure
    # Worker 1 killed the host it had stopped hearing from, and lives on.
    host_killed = await host_gone
    assert gpu1.running()

    record = await handle.result(rpc_timeout=None)
    done = time.monotonic()
    history = await run_trial_history(handle)
    # scheduled once, completed once, by the new worker, on a retry: attempt 2 on a quiet
    # machine; a loaded one can time a later attempt out too (counts, not timings, are asserted)
    assert (history["scheduled"], history["completed"], history["identities"]) == (1, 1, [gpu2.identity]), history
    assert history["attempts"][0] >= 2, history
    [path] = records(stack.var, trial.campaign_id)  # attempt 1 wrote nothing
    written = json.loads(path.read_text())
    assert (written["trial_id"], written["reward"], written["success"]) == (trial.trial_id, 1.0, True)
    assert (record.reward, record.failure_kind) == (1.0, None)
    said = await until("gpu worker 1 logging why it let the attempt go",
                       lambda: "gave no sign of life" in gpu1.log.read_text(errors="replace"), 30)
    assert said
    print(f"\nchaos frozen Blender host: SIGSTOP {frozen - started:.1f}s after start (before the "
          f"agent's first call); host killed by worker 1 {host_killed - frozen:.1f}s later "
          f"(no sign of life for the heartbeat timeout); attempt 2 on worker 2 "
          f"{retried - frozen:.1f}s after the freeze (heartbeat timeout); workflow done "
          f"{done - started:.1f}s after start; run_trial attempts {history['attempts'][0]}, "
          f"records 1, reward {written['reward']}; test {time.monotonic() - began:.1f}s")
