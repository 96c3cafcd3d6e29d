"""The documents arkevo exchanges: their models and JSON Schemas, the taxonomy, the pipeline
configuration, and pure-Python helpers around them.

- `contracts.models`: pydantic models, the one description of each document;
- `contracts.json_schemas`: the JSON Schemas generated from them (`contracts/schemas/`);
- `contracts.validation`: `validate_document`, `read_json`, `ContractError`;
- `contracts.digests`: canonical JSON, sha256 helpers, `pipeline_digest`, `pipeline_ref`;
- `contracts.seed_check`: `check_seed_dir` (the probe library injected; `verifiers.seed_check` binds it), `load_taxonomy`.

- `contracts.entry_points`: which modules are commands (every package's `__init__` refuses a
  `python -m` of a module that is not one).

Only that stdlib check is imported here, on purpose: workflow code imports `contracts.payloads`
inside Temporal's sandbox, and importing the package must not drag pydantic and jsonschema in.
"""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
