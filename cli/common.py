"""What every `arkevo` command shares: the consoles, exit codes, the workers' store and objects,
the Temporal client, starting a workflow on arkevo-control and following its progress."""

from __future__ import annotations

import asyncio

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

console = Console(soft_wrap=True)  # paths and digests stay on one line (greppable)
err = Console(stderr=True, soft_wrap=True)

EXIT_OK, EXIT_NO, EXIT_BAD_INPUT = 0, 1, 2


def parse_dataset(text: str) -> tuple[str, str] | None:
    """(namespace, revision) of a `--dataset NAMESPACE/REVISION`; None when it is not that form."""
    parts = text.split("/")
    return (parts[0], parts[1]) if len(parts) == 2 and all(parts) else None


def worker_objects():
    from workers.settings import settings_from_env

    return settings_from_env().objects()


def worker_store():
    from workers.settings import settings_from_env

    return settings_from_env().content_store()


async def temporal_client(address: str | None):
    from workers.client import connect  # --address, else ARKEVO_*, else the client profile

    return await connect(address=address)


async def start_workflow(address: str | None, workflow: str, arg, wid: str, result_type, **options):
    """Start `workflow` on arkevo-control; its handle, or None after saying why not."""
    from temporalio.service import RPCError

    from contracts import queues

    try:
        temporal = await temporal_client(address)
    except RuntimeError as e:
        err.print(f"[red]error:[/] cannot reach the Temporal server: {e} (start it with `make up`)")
        return None
    try:
        handle = await temporal.start_workflow(workflow, arg, id=wid, task_queue=queues.CONTROL,
                                               result_type=result_type, **options)
    except RPCError as e:
        err.print(f"[red]error:[/] could not start {wid}: {e}")
        return None
    console.print(f"started {workflow} [bold]{wid}[/] (run {handle.result_run_id})")
    return handle


async def follow(handle, what: str, measure, poll: float = 2.0):
    """A progress bar from the workflow's `progress` query until it ends; its result.
    `measure(progress) -> (total, completed, detail)`."""
    task = asyncio.ensure_future(handle.result())
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[detail]}"), TimeElapsedColumn(), console=console) as bar:
        tid = bar.add_task(what, total=None, detail="")
        while not task.done():
            try:
                total, completed, detail = measure(await handle.query("progress"))
                bar.update(tid, total=total, completed=completed, detail=detail)
            except Exception:  # before the first workflow task, or between runs  # noqa: BLE001
                pass
            await asyncio.wait([task], timeout=poll)
        try:  # the bar as it ended, not as the last poll saw it
            total, completed, detail = measure(await handle.query("progress"))
            bar.update(tid, total=total, completed=completed, detail=detail)
        except Exception:  # a query the ended run no longer answers  # noqa: BLE001
            pass
    return task.result()
