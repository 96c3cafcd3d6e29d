"""Privacy and sanitization (docs/privacy.md): a policy named by a seed's or task's
`sanitization_policy`, a pure scanner, a sandboxed reader for the texts inside .blend files,
and the three checkpoints (admission, dispatch, export).

    policy.py       load_policy(id, version), load_policy_for(sanitization_policy) -> Policy
    scan.py         scan_tree(root, policy, *, blend_texts) -> PrivacyReport (pure)
    media.py        metadata texts of PNG / JPEG / MP4 (stdlib, no pixel decoding)
    blend_text.py   runs inside Blender (stdlib + bpy): a .blend's texts and custom properties
    extract.py      runs blend_text.py in the trial sandbox; cache privacy/blend-text/<sha256>
    checkpoints.py  check_admission, check_dispatch, check_export
    report.py       PrivacyReport, PrivacyFinding, PendingItem

Import the submodules directly (this package imports nothing, so the Blender-side script and
the pure scanner load without the worker's dependencies).
"""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
