"""Typed payloads that cross Temporal boundaries: every workflow and activity input and output,
one module per stage (`admission`, `authoring`, `trials`, `review`, ...) and `common` for what
they share. A stage's result is the next stage's input without re-deriving anything: what a later
stage needs travels here, validated once at the edge (admission). Payloads carry store
references (key + sha256), never file contents: large data lives in the content-addressed store.

Nothing is re-exported here: each payload has one import path, its stage's module.
"""
