"""`arkevo seed expand`: a seed family's instances as seed folders, each checked as admission would.

Writes instance k of the family to OUT/<root>-<k:03d>/ (seed_families.expansion). The same root
gives the same bytes, so an instance folder already there with the same files is left as it is;
one with other files is refused unless --replace. Then each instance goes through `check`'s
judgement (activities.admission.judge_seed). Whether an instance is solvable and not trivial is
stage 05's calibration, per instance: `arkevo seed calibrate OUT/<id>`, or the production.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import cast

from rich.markup import escape
from rich.progress import Progress
from rich.table import Table

from cli.common import EXIT_BAD_INPUT, EXIT_NO, EXIT_OK, console, err


def _same(folder: Path, files: dict[str, bytes]) -> bool:
    there = {p.relative_to(folder).as_posix(): p for p in folder.rglob("*") if p.is_file()}
    return there.keys() == files.keys() and all(there[rel].read_bytes() == data for rel, data in files.items())


def expand(seed: Path, out: Path | None, count: int | None, replace: bool, check: bool) -> int:
    from activities.admission import judge_seed
    from contracts.models import SeedManifest
    from contracts.validation import ContractError, load_json_file, validate_document
    from seed_families.expansion import FamilyError, check_family, instances, write_instance
    from workers.settings import settings_from_env

    try:
        doc = load_json_file(seed / "seed.json", f"{seed}/seed.json")
        manifest = cast(SeedManifest, validate_document("seed", doc, f"{seed}/seed.json"))
    except ContractError as e:
        err.print(f"[red]error:[/] {escape(str(e))}")
        return EXIT_BAD_INPUT
    family = manifest.family
    if family is None:
        err.print(f"[red]error:[/] {escape(str(seed))}/seed.json: family: not a seed family (no `family` "
                  "declared; docs/seed-authoring.md, \"Seed families\")")
        return EXIT_BAD_INPUT
    if count is not None and count < 1:
        err.print(f"[red]error:[/] --count: {count}: give at least 1")
        return EXIT_BAD_INPUT
    problems = check_family(seed, doc, family)
    if problems:
        for problem in problems:
            err.print(f"[red]{escape(str(seed))}/{escape(problem.file)}[/]: {escape(problem.field)}: "
                      f"{escape(problem.reason)}")
        return EXIT_NO
    try:
        made = instances(seed, doc, family, count)
    except FamilyError as e:
        err.print(f"[red]error:[/] {escape(str(seed))}/{escape(str(e))}")
        return EXIT_NO
    out = out or settings_from_env().var / "seed-instances" / manifest.seed_id
    table = Table("instance", *family.parameters, "folder", "check", title=f"{manifest.seed_id}: "
                  f"{len(made)} instances (sampler seed {family.sampler_seed})")
    refused = 0
    with Progress(console=err, transient=True) as progress:
        job = progress.add_task("expanding", total=len(made))
        for inst in made:
            dest = out / inst.seed_id
            if dest.exists() and _same(dest, inst.files):
                state = "unchanged"
            elif dest.exists() and any(dest.iterdir()) and not replace:
                err.print(f"[red]error:[/] {escape(str(dest))}: holds other files than instance {inst.index} "
                          "renders (an earlier family?): --replace writes it anew")
                return EXIT_BAD_INPUT
            else:
                shutil.rmtree(dest, ignore_errors=True)
                write_instance(inst, dest)
                state = "written"
            verdict = "[dim]not checked[/]"
            if check:
                found = judge_seed(dest, str(dest), None).findings
                verdict = "[green]admits[/]" if not found else f"[red]{escape(found[0].message)}[/]"
                refused += bool(found)
            table.add_row(inst.seed_id, *(json.dumps(v) for v in inst.parameters.values()),
                          f"{escape(str(dest))} ({state})", verdict)
            progress.advance(job)
    console.print(table)
    if refused:
        err.print(f"[red]{refused} of {len(made)} instances would be refused at admission[/] "
                  f"(`arkevo seed check {escape(str(out))}/<id>` lists every finding)")
        return EXIT_NO
    console.print(f"{len(made)} instances in {escape(str(out))}; calibrate one with "
                  f"`arkevo seed calibrate {escape(str(out))}/<id>`")
    return EXIT_OK
