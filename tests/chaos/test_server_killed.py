"""kill -9 of the Temporal dev server while a trial runs, then `temporal server start-dev` again
on the same database file and port: the workers reconnect by themselves (the SDK retries; no
worker restarts), the trial workflow completes, with exactly one trial record."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from contracts import queues
from contracts.payloads.campaigns import CampaignRecord
from tests.chaos.helpers import (alive, blender_hosts, chaos, pending_run_trial, port_open,
                                 records, run_trial_history, started_on, trial_input, until)
from workflows.evaluation_campaign import CampaignTrial

pytestmark = [*chaos, pytest.mark.timeout(150)]


async def test_server_killed_mid_trial_and_restarted_the_run_completes(stack, chaos_task):
    began = time.monotonic()
    gpu = stack.start_worker("gpu", concurrency=1)
    await stack.ready()
    workflow_id, trial = trial_input(chaos_task, "kill-server")
    handle = await stack.client.start_workflow(CampaignTrial.run, trial, id=workflow_id,
                                               task_queue=queues.CONTROL, result_type=CampaignRecord)
    started = time.monotonic()

    async def running():
        activity = await pending_run_trial(handle)
        return activity if started_on(activity, gpu.identity, 1) else None

    await until("run_trial STARTED on the gpu worker", running, 60)
    [host] = await until("the trial's Blender host running", lambda: blender_hosts(gpu.pid), 60,
                         every=0.02)
    stack.kill9_server()
    killed = time.monotonic()
    assert not port_open(stack.port)
    restart_sec = await stack.start_server()  # same --db-filename, same --port
    back = time.monotonic()

    # Every worker polls again on its own, the very processes started before.
    reconnect_sec = await stack.ready()
    assert all(w.running() for w in stack.workers)
    record = await asyncio.wait_for(handle.result(rpc_timeout=None), 120)
    done = time.monotonic()
    history = await run_trial_history(handle)
    assert (history["scheduled"], history["completed"]) == (1, 1), history
    assert history["identities"] == [gpu.identity] * len(history["attempts"]), history
    [path] = records(stack.var, trial.campaign_id)
    written = json.loads(path.read_text())
    assert (written["trial_id"], written["reward"], written["success"]) == (trial.trial_id, 1.0, True)
    assert (record.reward, record.failure_kind) == (1.0, None)
    assert not alive(host)  # the trial's sandbox ended with it
    print(f"\nchaos kill-9 dev server: SIGKILL {killed - started:.1f}s after start (trial "
          f"running); server back on the same db/port {back - killed:.1f}s later (start "
          f"{restart_sec:.1f}s); all {len(stack.workers)} workers polling again "
          f"{reconnect_sec:.1f}s after that (same processes); workflow done "
          f"{done - started:.1f}s after start; run_trial attempts {history['attempts'][0]}, "
          f"records 1, reward {written['reward']}; test {time.monotonic() - began:.1f}s")
