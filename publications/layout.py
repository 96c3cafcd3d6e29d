"""Where a publication's files live, relative to its folder in the object store.

    <root>/<task_id>/<publication_id>/publication.json    written last: the publication exists
    <root>/<task_id>/<publication_id>/task/                the Harbor task (task.toml, tests/, ...)
    <root>/<task_id>/<publication_id>/review/              frozen-task.json, privacy.json, ...
    <root>/<task_id>/<publication_id>/evaluation/          plan, trial records, report
    <root>/<task_id>/<publication_id>/private/             what is never exported

`<root>` is `publications` (outside any dataset revision) or a revision's
`datasets/<namespace>/<revision>/publications` (`dataset_revisions.layout.RevisionKeys`).
"""

from __future__ import annotations

OUTSIDE_REVISIONS = "publications"  # the root of publications outside any dataset revision
DOCUMENT = "publication.json"
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
