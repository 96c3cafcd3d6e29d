"""Temporal activities: each file one stage's side effects, as methods of a class that receives
its dependencies (the store, the sandbox, the model client)."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
