"""`arkevo export`: frozen tasks as ZIPs in Harbor's layout (docs/exports.md).

    arkevo export task --publication datasets/demo/<rev>/publications/table-model/table-model-r1 --out table-model.zip
    arkevo export split --dataset demo/<rev> --split test --out demo-test.zip
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from cli.common import EXIT_BAD_INPUT, EXIT_NO, EXIT_OK, console, err, parse_dataset, worker_objects
from cli.help import add_command, exit_codes


_HOLD = ("Every file is read from the object store and held to the sha256 its publication.json "
         "lists; on a mismatch nothing is written (exit 1). The same input gives the same bytes.")


_EXIT_CODES = exit_codes("the ZIP written", "not exported: a file does not hold to its sha256 (nothing written)",
                         "no such publication, dataset or split, no folder to write the ZIP in")


def register(top) -> None:
    ex = top.add_parser("export", help="ZIPs of frozen tasks in Harbor's layout, with a sha256 manifest",
                        description="A ZIP of one published task or of a frozen split that runs "
                                    "with `harbor run` after unzipping; manifest.json and "
                                    "SHA256SUMS at its root (docs/exports.md).")
    sub = ex.add_subparsers(dest="command", required=True)

    p = add_command(sub, "task", _EXIT_CODES, help="one publication's task/ as <task_id>/ in a ZIP",
                    description="Exports the publication's task/ folder (a Harbor task "
                                "directory) as <task_id>/; never private/, review/, "
                                "admission/ or evaluation/. " + _HOLD)
    p.add_argument("--publication", required=True, metavar="KEY_OR_PATH",
                   help="the publication's folder: an object key (datasets/<ns>/<rev>/publications/"
                        "<task>/<pub>) or a local path inside the object store")
    p.add_argument("--out", required=True, type=Path, metavar="FILE.zip", help="the ZIP to write")

    p = add_command(sub, "split", _EXIT_CODES,
                    help="every task of a frozen split as <ns>-<rev>-<split>/<task_id>/",
                    description="Exports each task of the split named by the revision's split "
                                "manifest, its publication.json held to the manifest's sha256; "
                                "`harbor run -p <ns>-<rev>-<split>` runs the folder as a "
                                "dataset. " + _HOLD)
    p.add_argument("--dataset", required=True, help="a frozen dataset revision as NAMESPACE/REVISION")
    p.add_argument("--split", required=True, help="the split to export (train, validation, test)")
    p.add_argument("--out", required=True, type=Path, metavar="FILE.zip", help="the ZIP to write")


def handlers() -> dict:
    return {"task": cmd_task, "split": cmd_split}


def cmd_task(args) -> int:
    from exports.harbor_zip import export_task

    name = args.publication
    if not Path(name).is_absolute() and Path(name).is_dir():
        name = str(Path(name).resolve())  # a local path from here, not a key
    return _export(args.out, lambda objects, progress: export_task(objects, name, args.out,
                                                                   progress=progress))


def cmd_split(args) -> int:
    from exports.harbor_zip import export_split

    if (dataset := parse_dataset(args.dataset)) is None:
        err.print(f"[red]error:[/] --dataset {args.dataset!r}: give NAMESPACE/REVISION")
        return EXIT_BAD_INPUT
    namespace, revision = dataset
    return _export(args.out, lambda objects, progress: export_split(
        objects, namespace, revision, args.split, args.out, progress=progress))


def _export(out: Path, build) -> int:
    """Runs `build(objects, progress)` under a progress bar; prints the result and how to run it."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from exports.harbor_zip import ExportError, ExportSourceError

    try:
        with Progress(TextColumn("export"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("{task.fields[name]}"), TimeElapsedColumn(), console=err,
                      transient=True, disable=not err.is_terminal) as bar:
            tid = bar.add_task("files", total=None, name="")
            result = build(worker_objects(), lambda done, total, name: bar.update(
                tid, completed=done, total=total, name=name))
    except ExportSourceError as e:
        err.print(f"[red]error:[/] {_escape(e)}")
        return EXIT_BAD_INPUT
    except ExportError as e:
        err.print(f"[red]not exported:[/] {_escape(e)}")
        return EXIT_NO
    console.print(f"wrote {result.path}")
    console.print(f"  sha256  {result.sha256}")
    console.print(f"  {result.files} files, {len(result.tasks)} task(s), {result.size} bytes")
    for line in result.retracted:
        console.print(f"  left out, retracted: {line}", markup=False, highlight=False)
    console.print("run it with Harbor (oracle agent, the arkevo sandbox; docs/exports.md):")
    console.print("  " + run_command(result), markup=False, highlight=False)
    return EXIT_OK


def _escape(e: Exception) -> str:
    from rich.markup import escape

    return escape(str(e))


def run_command(result) -> str:
    """The exact unzip + `harbor run` command for an export."""
    from workers.settings import PROJECT_ROOT

    path = Path(result.path)
    dest = path.with_suffix("") if path.suffix == ".zip" else path.with_name(path.name + ".d")
    q = shlex.quote
    return (f"unzip -q {q(str(path))} -d {q(str(dest))} && "
            f"(cd {q(str(dest))} && sha256sum -c --quiet SHA256SUMS) && "
            f"PYTHONPATH={q(str(PROJECT_ROOT))} LITELLM_LOCAL_MODEL_COST_MAP=True "
            f"{q(str(Path(sys.prefix) / 'bin' / 'harbor'))} run -p {q(str(dest / result.root))} "
            f"-a oracle -e sandbox.environment:ArkevoSandboxEnvironment "
            f"-o {q(str(dest.with_name(dest.name + '-jobs')))} -y")
