"""Which Worker Deployment Versioning behaviour a workflow declares (docs/operations.md,
"Worker versioning and shutdown").

Workflow modules import this (passed through the sandbox); the workers' side — build id,
deployment version, promotion — is workers/promote.py.
"""

from __future__ import annotations

import os

from temporalio.common import VersioningBehavior

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def versioning_enabled(environ=None) -> bool:
    """On when ARKEVO_DEPLOYMENT_NAME is set, or ARKEVO_WORKER_VERSIONING=1 (which then uses the
    default deployment name); ARKEVO_WORKER_VERSIONING=0 turns it off either way. Off by default:
    the embedded dev stack and the tests run unversioned workers, which need no promotion."""
    environ = os.environ if environ is None else environ
    flag = environ.get("ARKEVO_WORKER_VERSIONING", "").strip().lower()
    if flag in _TRUE:
        return True
    if flag in _FALSE:
        return False
    if flag:
        raise ValueError(f"ARKEVO_WORKER_VERSIONING={flag!r}: expected 1 or 0")
    return bool(environ.get("ARKEVO_DEPLOYMENT_NAME", "").strip())


# Decided once per process, from its environment, when this module is first imported: before
# any workflow module (they import it, passed through the sandbox, so every sandboxed re-import
# of a workflow module sees this same value).
VERSIONED = versioning_enabled()


def versioned(behaviour: VersioningBehavior) -> VersioningBehavior:
    """For `@workflow.defn(versioning_behavior=versioned(VersioningBehavior.PINNED))`: the
    declared behaviour in a process whose workers are versioned, UNSPECIFIED otherwise. The
    server refuses a workflow task completion that names a behaviour from a worker outside
    versioned mode ("versioning behavior cannot be specified without deployment options being
    set with versioned mode"), so unversioned workers (dev stack, tests) must not send one."""
    return behaviour if VERSIONED else VersioningBehavior.UNSPECIFIED
