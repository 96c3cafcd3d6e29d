"""Model authoring: an author model drafts tasks from a seed's materials, a reviewer model judges
them in a fresh context, and new seeds are derived from existing Harbor tasks
(docs/authoring.md). Everything a model writes here is outside code: it is stored and checked in
the worker, and only ever run in the sandbox."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
