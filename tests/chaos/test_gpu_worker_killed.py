"""kill -9 of the gpu worker mid-trial: the server's heartbeat timeout (gpu: 20 s,
workflows/activity_options.py) hands the trial to a new gpu worker; the workflow completes
with exactly one trial record, from a retry (attempt 2 unless load times out another)."""

from __future__ import annotations

import json
import time

import pytest
from temporalio.api.enums.v1 import TimeoutType

from contracts import queues
from contracts.payloads.campaigns import CampaignRecord
from tests.chaos.helpers import (alive, blender_hosts, chaos, pending_run_trial, records,
                                 run_trial_history, started_on, trial_input, until)
from workflows.evaluation_campaign import CampaignTrial

pytestmark = [*chaos, pytest.mark.timeout(150)]


async def test_gpu_worker_killed_mid_trial_is_retried_and_recorded_once(stack, chaos_task):
    began = time.monotonic()
    gpu1 = stack.start_worker("gpu", concurrency=1)
    await stack.ready()
    workflow_id, trial = trial_input(chaos_task, "kill-gpu")
    handle = await stack.client.start_workflow(CampaignTrial.run, trial, id=workflow_id,
                                               task_queue=queues.CONTROL, result_type=CampaignRecord)
    started = time.monotonic()

    await until("run_trial STARTED on gpu worker 1",
                lambda: _started(handle, gpu1.identity, 1), 60)
    # Mid-trial: the sandboxed Blender host of this attempt runs.
    [host] = await until("the trial's Blender host running under gpu worker 1",
                         lambda: blender_hosts(gpu1.pid), 60, every=0.02)
    gpu1.kill9()
    killed = time.monotonic()
    gpu2 = stack.start_worker("gpu", concurrency=1)
    await stack.ready(gpu2)

    retry = await until("run_trial attempt 2 STARTED on gpu worker 2",
                        lambda: _started(handle, gpu2.identity, 2), 90, every=0.2)
    retried = time.monotonic()
    assert retry.last_failure.timeout_failure_info.timeout_type == TimeoutType.TIMEOUT_TYPE_HEARTBEAT, \
        retry.last_failure
    assert not alive(host)  # the killed worker's sandbox died with it

    record = await handle.result(rpc_timeout=None)
    done = time.monotonic()
    history = await run_trial_history(handle)
    # scheduled once, completed once, by the new worker, on a retry: attempt 2 on a quiet
    # machine; a loaded one can time a later attempt out too (counts, not timings, are asserted)
    assert (history["scheduled"], history["completed"], history["identities"]) == (1, 1, [gpu2.identity]), history
    assert history["attempts"][0] >= 2, history
    [path] = records(stack.var, trial.campaign_id)  # 0 lost, 0 duplicated
    written = json.loads(path.read_text())
    assert (written["trial_id"], written["reward"], written["success"]) == (trial.trial_id, 1.0, True)
    assert (record.reward, record.failure_kind) == (1.0, None)
    print(f"\nchaos kill-9 gpu worker: SIGKILL {killed - started:.1f}s after start (Blender host "
          f"up); attempt 2 started on the new worker {retried - killed:.1f}s later (heartbeat "
          f"timeout); workflow done {done - started:.1f}s after start; run_trial attempts "
          f"{history['attempts'][0]}, records 1, reward {written['reward']}; "
          f"test {time.monotonic() - began:.1f}s")


async def _started(handle, identity: str, attempt: int):
    activity = await pending_run_trial(handle)
    return activity if started_on(activity, identity, attempt) else None
