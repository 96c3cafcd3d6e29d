"""`arkevo review`: the decision stage 05 waits for when a production runs with `review: human`
(docs/datasets.md, "Human review").

    arkevo review accept mug-material --by ana --reason "renders match the brief"
    arkevo review reject mug-material --by ana --reason "the handle is missing"

Decide on the evidence: `arkevo site build --pending-reviews --out DIR` writes the review
site's page of every waiting task, `DIR/reviews/<task>.html` (the pending record's
`evidence.review_site_page`): its instruction, package files, calibration samples and renders.

The waiting workflow is found from the task's pending record (`reviews/pending/<task>.json`,
written by stage 05) or given with --workflow-id, and asked with the `human_review` query that
it really waits before the `review_decision` signal is sent. The same, with the Temporal CLI:

    temporal workflow signal --workflow-id <production id>.05-review --name review_decision \\
        --input '{"decision": "accept", "by": "ana", "reason": "renders match the brief"}'
"""

from __future__ import annotations

import asyncio
import json

from cli.common import EXIT_BAD_INPUT, EXIT_OK, console, err, temporal_client, worker_objects
from cli.help import add_command, exit_codes

_EXIT_CODES = exit_codes("the decision was sent to the waiting workflow", None,
                         "ReviewNotWaiting (no pending review of that task, or its workflow does "
                         "not wait), a blank --by, no server; nothing sent")


def register(top) -> None:
    rv = top.add_parser("review", help="accept or reject a task waiting for human review (stage 05)",
                        description="Send the reviewer's decision to a stage 05 that waits for one "
                                    "(`review: human` in the spec's options). The evidence: "
                                    "`arkevo site build --pending-reviews --out DIR` writes "
                                    "DIR/reviews/<task>.html. Accept: the task "
                                    "is frozen and published with the decision in its records; "
                                    "reject: nothing is published (ReviewRejected).")
    sub = rv.add_subparsers(dest="command", required=True)
    for decision in ("accept", "reject"):
        p = add_command(sub, decision, _EXIT_CODES, help=f"{decision} a waiting task",
                        description=f"Signal review_decision {{decision: {decision}}} to the task's "
                                    "waiting Review workflow.")
        p.add_argument("task", help="the task id (its pending record names the workflow)")
        p.add_argument("--by", required=True, help="who decides (recorded)")
        p.add_argument("--reason", default="", help="why (recorded)")
        p.add_argument("--workflow-id", help="the waiting Review workflow (<production id>.05-review); "
                                             "default: the one the task's pending record names")
        p.add_argument("--address", help="Temporal frontend")


def handlers() -> dict:
    return {"accept": cmd_decide, "reject": cmd_decide}


class ReviewNotWaiting(LookupError):
    """No workflow waits for a review decision on that task: nothing is sent."""


def _pending(task_id: str) -> dict:
    from activities.review import pending_review_key
    from storage.objects import ObjectMissing

    objects = worker_objects()
    key = pending_review_key(task_id)
    try:
        record = json.loads(objects.get(key))
    except ObjectMissing:
        raise ReviewNotWaiting(f"task {task_id!r} has no pending review ({objects.location(key)} does not "
                               f"exist): it never ran stage 05 with review: human") from None
    if record["state"] != "waiting":
        raise ReviewNotWaiting(f"task {task_id!r} is not waiting for review: {objects.location(key)} "
                               f"says {record['state']}")
    return record


async def _send(args, wid: str) -> None:
    from temporalio.client import WorkflowExecutionStatus
    from temporalio.service import RPCError

    from contracts.payloads.review import ReviewDecision

    try:
        client = await temporal_client(args.address)
    except RuntimeError as e:
        raise ReviewNotWaiting(f"cannot reach the Temporal server: {e}") from None
    handle = client.get_workflow_handle(wid)
    try:
        # An ended workflow is refused here: a query would wait on the server for a worker to
        # replay it (~30 s when none polls its queue) only to say the same.
        status = (await handle.describe()).status
        if status != WorkflowExecutionStatus.RUNNING:
            name = status.name.lower() if status is not None else "unknown"
            raise ReviewNotWaiting(f"{wid} has ended ({name}): it waits for no review decision")
        state = await handle.query("human_review")
    except RPCError as e:
        raise ReviewNotWaiting(f"{wid}: {e}") from None
    if not state["waiting"]:
        raise ReviewNotWaiting(f"{wid} does not wait for a review decision")
    await handle.signal("review_decision", ReviewDecision(args.command, args.by, args.reason))


def cmd_decide(args) -> int:
    from rich.markup import escape

    try:
        if not args.by.strip():
            raise ReviewNotWaiting("--by: name who decides")  # checked before anything is sent
        record = {} if args.workflow_id else _pending(args.task)
        wid = args.workflow_id or record["workflow_id"]
        asyncio.run(_send(args, wid))
    except ReviewNotWaiting as e:
        err.print(f"[red]error:[/] ReviewNotWaiting: {escape(str(e))}")
        return EXIT_BAD_INPUT
    console.print(f"sent review_decision {args.command} by {args.by} to {wid}", markup=False, highlight=False)
    page = (record.get("evidence") or {}).get("review_site_page")
    if page:  # what the decision was taken on; the page stays until the site is rebuilt
        console.print(f"evidence: {page} (arkevo site build --pending-reviews --out DIR)",
                      markup=False, highlight=False)
    return EXIT_OK
