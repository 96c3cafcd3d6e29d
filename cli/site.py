"""`arkevo site build`: the static review site (docs/review-site.md).

    arkevo site build --dataset demo/r1 --out site/
    arkevo site build --publication publications/table-model/table-model-r1 --out site-one/
    arkevo site build --dataset demo/r1 --out site/ --watch 30   # rebuild as publications land
    arkevo site build --pending-reviews --out site-reviews/   # tasks waiting for a human decision
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

from cli.common import EXIT_BAD_INPUT, EXIT_OK, console, err, parse_dataset, worker_objects, worker_store
from cli.help import add_command, exit_codes



def register(top) -> None:
    sp = top.add_parser("site", help="build the static review site",
                        description="A static site (no server needed) of a dataset revision or of "
                                    "publications: every task with its evidence, calibration, "
                                    "evaluation and provenance, and the campaigns over them.")
    sub = sp.add_subparsers(dest="command", required=True)
    p = add_command(sub, "build", exit_codes(
        "built (--watch: until interrupted; the last build's code)", None,
        "--dataset with --publication, none of them nor --pending-reviews, --watch not positive, "
        "a human review record whose evidence is not in the store, a source that cannot be read as published, "
        "an --out folder that holds something else"),
                    help="build or bring up to date a site folder",
                    description="Writes only what changed since the last build into --out "
                                "(pages whose data changed, new images and plots), so a rebuild "
                                "after a new publication is quick. Prints `site: <index.html>`.")
    p.add_argument("--dataset", help="a dataset revision as NAMESPACE/REVISION (frozen or not)")
    p.add_argument("--publication", action="append", default=[],
                   help="a publication's folder (object key or local path); repeatable")
    p.add_argument("--pending-reviews", action="store_true",
                   help="add the store's human review records (stage 05 with review: human): "
                        "reviews/<task>.html, the evidence of each task waiting for a decision, "
                        "and the decided ones listed on the index; alone or with --dataset/--publication")
    p.add_argument("--out", type=Path, required=True, help="the site folder (new, empty, or an earlier site)")
    p.add_argument("--watch", type=float, metavar="SECONDS",
                   help="keep rebuilding every SECONDS (incremental) until interrupted; "
                        "prints only the builds that changed something")


def handlers() -> dict:
    return {"build": cmd_build}


def _stop(signum, frame):
    raise KeyboardInterrupt


def cmd_build(args) -> int:
    from review_site.build import SiteOutputError, build_site
    from review_site.sources import SiteSourceError, Source

    dataset = None
    if args.dataset is not None and (dataset := parse_dataset(args.dataset)) is None:
        err.print(f"[red]error:[/] --dataset {args.dataset!r}: expected NAMESPACE/REVISION")
        return EXIT_BAD_INPUT
    if dataset is not None and args.publication:
        err.print("[red]error:[/] give --dataset NAMESPACE/REVISION or --publication (not both)")
        return EXIT_BAD_INPUT
    if dataset is None and not args.publication and not args.pending_reviews:
        err.print("[red]error:[/] give --dataset NAMESPACE/REVISION or --publication, or --pending-reviews")
        return EXIT_BAD_INPUT
    if args.watch is not None and args.watch <= 0:
        err.print("[red]error:[/] --watch: SECONDS must be positive")
        return EXIT_BAD_INPUT
    source = Source(worker_objects(), worker_store())
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    def once(quiet_if_unchanged: bool = False) -> int:
        with Progress(TextColumn("site"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                      TimeElapsedColumn(), console=err, transient=True) as bar:
            job = bar.add_task("reading", total=None)
            try:
                result = build_site(source, args.out, dataset=dataset, publications=args.publication,
                                    pending_reviews=args.pending_reviews,
                                    progress=lambda done, total, what: bar.update(
                                        job, completed=done, total=total, description=what))
            except (SiteSourceError, SiteOutputError) as e:
                err.print(f"[red]error:[/] {e}")
                return EXIT_BAD_INPUT
        if not (quiet_if_unchanged and result.pages_written == 0 and result.removed == 0):
            console.print(result.summary())
            console.print(f"site: {result.index}")
            console.file.flush()  # a watcher's output goes to logs as it happens
        return EXIT_OK

    code = once()
    if args.watch is None or code != EXIT_OK:
        return code
    signal.signal(signal.SIGTERM, _stop)  # stopped by a service manager: end like Ctrl-C
    try:
        while True:  # a round that changes nothing prints nothing
            time.sleep(args.watch)
            code = once(quiet_if_unchanged=True)
    except KeyboardInterrupt:
        return code
