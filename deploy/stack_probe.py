"""`python -m deploy.stack_probe`: what the deploy test asks of a running stack, from inside it.

Run in a worker container (`docker compose exec -T worker-control python -m deploy.stack_probe
…`), so it sees the cluster's Temporal address and object store exactly as the workers do. Each
command prints one JSON object on stdout; exit 1 with the reason on stderr when it cannot.

    wait-trial --workflow-id W [--stage 06-evaluation]   a run_trial of W's stage child is running
    result --workflow-id W                                 W's result (waits)
    records --workflow-id W                                W's stage-06 trial records, checked
    campaign-records --workflow-id C                       campaign C's records, and which gpu
                                                           workers ran its trials
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter

from temporalio.api.enums.v1 import EventType, PendingActivityState
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError

from campaigns.layout import CampaignKeys
from workers.client import connect as client_connect, exit_process
from workers.settings import settings_from_env


class ProbeError(Exception):
    pass


async def connect() -> Client:
    return await client_connect()  # the workers' own settings (workers/client.py)


async def wait_trial(client: Client, workflow_id: str, stage: str, timeout: float) -> dict:
    """The first run_trial activity STARTED on a worker in `<workflow_id>.<stage>`."""
    child = f"{workflow_id}.{stage}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        parent = await client.get_workflow_handle(workflow_id).describe()
        if parent.status != WorkflowExecutionStatus.RUNNING:
            assert parent.status is not None  # a described execution always has a status
            raise ProbeError(f"{workflow_id} is {parent.status.name} before a stage {stage} trial ran")
        try:
            desc = await client.get_workflow_handle(child).describe()
        except RPCError:
            desc = None  # the stage has not started yet
        for pending in (desc.raw_description.pending_activities if desc else []):
            if (pending.activity_type.name == "run_trial"
                    and pending.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED):
                return {"workflow_id": child, "activity_id": pending.activity_id,
                        "attempt": pending.attempt, "worker": pending.last_worker_identity}
        await asyncio.sleep(0.5)
    raise ProbeError(f"no run_trial of {child} started within {timeout:.0f}s")


async def result(client: Client, workflow_id: str, timeout: float) -> dict:
    handle = client.get_workflow_handle(workflow_id)
    value = await asyncio.wait_for(handle.result(), timeout)
    return json.loads(json.dumps(value, default=lambda o: getattr(o, "__dict__", str(o))))


async def run_trial_attempts(client: Client, workflow_id: str) -> dict[str, int]:
    """activity id -> the highest attempt of run_trial that started, from the history."""
    names: dict[int, str] = {}
    attempts: dict[str, int] = {}
    async for event in client.get_workflow_handle(workflow_id).fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attrs = event.activity_task_scheduled_event_attributes
            if attrs.activity_type.name == "run_trial":
                names[event.event_id] = attrs.activity_id
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            started = event.activity_task_started_event_attributes
            if started.scheduled_event_id in names:
                activity = names[started.scheduled_event_id]
                attempts[activity] = max(attempts.get(activity, 0), started.attempt)
    return attempts


async def records(client: Client, workflow_id: str) -> dict:
    """Stage 06's planned trials against the records its publication holds."""
    done = await result(client, workflow_id, 60)
    path = done["publication"]["path"]
    key = "publications/" + path.split("/publications/", 1)[1].strip("/")
    objects = settings_from_env().objects()
    plan = json.loads(objects.get(f"{key}/evaluation/evaluation-plan.json"))
    rows = [json.loads(line) for line in
            objects.get(f"{key}/evaluation/trials.jsonl").decode().splitlines() if line.strip()]
    planned = {(c["config_id"], a) for c in plan["configs"] for a in range(1, plan["k"] + 1)}
    seen = Counter((r["config"], r["attempt"]) for r in rows)
    stage = f"{workflow_id}.06-evaluation"
    return {
        "publication": key,
        "planned": len(planned),
        "records": len(rows),
        "lost": sorted(f"{c}/{a}" for c, a in planned - set(seen)),
        "duplicated": sorted(f"{c}/{a}" for (c, a), n in seen.items() if n > 1),
        "unplanned": sorted(f"{c}/{a}" for c, a in set(seen) - planned),
        "infra_failures": sum(1 for r in rows if (r.get("failure") or {}).get("kind") == "infra"),
        "rewards": {f"{r['config']}/{r['attempt']}": r.get("reward") for r in rows},
        "run_trial_attempts": await run_trial_attempts(client, stage),
    }


async def started_by(client: Client, workflow_id: str, activity: str) -> list[str]:
    """The worker identities that started `activity` in the workflow's history."""
    names: set[int] = set()
    who = []
    async for event in client.get_workflow_handle(workflow_id).fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            if event.activity_task_scheduled_event_attributes.activity_type.name == activity:
                names.add(event.event_id)
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            started = event.activity_task_started_event_attributes
            if started.scheduled_event_id in names:
                who.append(started.identity)
    return who


async def campaign_records(client: Client, campaign_id: str) -> dict:
    """A campaign's planned trials against its create-only records, and the gpu workers that
    ran them (from each CampaignTrial's history)."""
    keys = CampaignKeys(campaign_id)
    objects = settings_from_env().objects()
    plan = json.loads(objects.get(keys.plan))
    planned = {t["trial_id"] for t in plan["trials"]}
    rows = [json.loads(line) for line in objects.get(keys.trials).decode().splitlines() if line.strip()]
    files = [k for k in objects.list(keys.records) if k.endswith(".json")]
    seen = Counter(r["trial_id"] for r in rows)
    workers: Counter[str] = Counter()
    async for wf in client.list_workflows(f"WorkflowId STARTS_WITH 'campaign-{campaign_id}.'"):
        workers.update(await started_by(client, wf.id, "run_trial"))
    return {
        "planned": len(planned), "records": len(rows), "record_files": len(files),
        "lost": sorted(planned - set(seen)),
        "duplicated": sorted(t for t, n in seen.items() if n > 1),
        "unplanned": sorted(set(seen) - planned),
        "infra_failures": sum(1 for r in rows if (r.get("failure") or {}).get("kind") == "infra"),
        "run_trial_workers": dict(sorted(workers.items())),
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m deploy.stack_probe", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=["wait-trial", "result", "records", "campaign-records"])
    p.add_argument("--workflow-id", required=True, help="for campaign-records: the campaign id")
    p.add_argument("--stage", default="06-evaluation")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds (default 900)")
    return p.parse_args(argv)


async def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    client = await connect()
    try:
        if args.command == "wait-trial":
            out = await wait_trial(client, args.workflow_id, args.stage, args.timeout)
        elif args.command == "result":
            out = await result(client, args.workflow_id, args.timeout)
        elif args.command == "records":
            out = await records(client, args.workflow_id)
        else:
            out = await campaign_records(client, args.workflow_id)
    except (ProbeError, TimeoutError) as exc:
        print(f"stack_probe {args.command}: {exc or 'timed out'}", file=sys.stderr)
        return 1
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    exit_process(asyncio.run(main()))  # the status, whatever the SDK runtime does at exit
