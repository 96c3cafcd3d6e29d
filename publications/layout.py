"""Where a publication's files live, relative to its folder in the object store.

    <root>/<task_id>/<publication_id>/publication.json    written last: the publication exists
    <root>/<task_id>/<publication_id>/records.json        lists the run's records (below)
    <root>/<task_id>/<publication_id>/task/                the Harbor task (task.toml, tests/, ...)
    <root>/<task_id>/<publication_id>/private/             what is never exported
    <root>/<task_id>/<publication_id>/admission/           records: admission record
    <root>/<task_id>/<publication_id>/authoring/           records: authoring record (model drafts)
    <root>/<task_id>/<publication_id>/trial-solves/        records: the pilot record (stage 03-04 trials)
    <root>/<task_id>/<publication_id>/review/              records: frozen-task.json, privacy.json, ...
    <root>/<task_id>/<publication_id>/evaluation/          records: plan, trial records, report

`publication.json` lists the task version -- `task/` and `private/`, a function of the seed and
the code -- so the same inputs publish the same publication.json. Everything else is a record of
the run that made it (wall times, trials, calibration deliveries) and is listed in
`records.json`, which a dataset revision's chain link pins by sha256.

`<root>` is `publications` (outside any dataset revision) or a revision's
`datasets/<namespace>/<revision>/publications` (`dataset_revisions.layout.RevisionKeys`).
"""

from __future__ import annotations

OUTSIDE_REVISIONS = "publications"  # the root of publications outside any dataset revision
DOCUMENT = "publication.json"
RECORDS = "records.json"
VERSION_PARTS = ("task/", "private/")  # what publication.json lists; every other file is a record
FROZEN_TASK = "review/frozen-task.json"  # the frozen record: package, grading, input baseline
PRIVACY = "review/privacy.json"  # the export scan (privacy checkpoint 3)
TASK = "task/"  # the Harbor task tree
TASK_TOML = "task/task.toml"


def folder(root: str, task_id: str, publication_id: str) -> str:
    return f"{root}/{task_id}/{publication_id}"


def document_key(folder: str) -> str:
    return f"{folder.rstrip('/')}/{DOCUMENT}"


def file_key(folder: str, rel: str) -> str:
    return f"{folder.rstrip('/')}/{rel}"


def records_key(folder: str) -> str:
    return f"{folder.rstrip('/')}/{RECORDS}"


def is_version_file(rel: str) -> bool:
    return rel.startswith(VERSION_PARTS)
