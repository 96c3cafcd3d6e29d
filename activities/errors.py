"""Error types shared by activities and workflows.

Bad input is a non-retryable ApplicationError whose message names the file and field; anything
else an activity raises is treated as an infrastructure fault and retried by Temporal.
"""

from __future__ import annotations

from temporalio.exceptions import ApplicationError

INVALID_SEED = "InvalidSeed"
INVALID_DRAFT = "InvalidDraft"
CALIBRATION_FAILED = "CalibrationFailed"
# A draft's own script (reference solution, defect, variant, build script) failed
# deterministically: the author's mistake, named with the file and the exception, never retried.
AUTHOR_SCRIPT_FAILED = "AuthorScriptFailed"
NON_RETRYABLE = [INVALID_SEED, INVALID_DRAFT, CALIBRATION_FAILED, AUTHOR_SCRIPT_FAILED]


def invalid_seed(message: str) -> ApplicationError:
    return ApplicationError(message, type=INVALID_SEED, non_retryable=True)


def invalid_draft(message: str) -> ApplicationError:
    return ApplicationError(message, type=INVALID_DRAFT, non_retryable=True)


def author_script_failed(message: str, **details) -> ApplicationError:
    """`message` names the draft file and the exception; `details` (file, exception, log tail)
    travel with the error for the Web UI and the failure record."""
    extra = [details] if details else []
    return ApplicationError(message, *extra, type=AUTHOR_SCRIPT_FAILED, non_retryable=True)
