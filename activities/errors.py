"""Error types shared by activities and workflows.

Bad input is a non-retryable ApplicationError whose message names the file and field; anything
else an activity raises is treated as an infrastructure fault and retried by Temporal.
"""

from __future__ import annotations

from temporalio.exceptions import ApplicationError

INVALID_SEED = "InvalidSeed"
INVALID_DRAFT = "InvalidDraft"
CALIBRATION_FAILED = "CalibrationFailed"
NON_RETRYABLE = [INVALID_SEED, INVALID_DRAFT, CALIBRATION_FAILED]


def invalid_seed(message: str) -> ApplicationError:
    return ApplicationError(message, type=INVALID_SEED, non_retryable=True)


def invalid_draft(message: str) -> ApplicationError:
    return ApplicationError(message, type=INVALID_DRAFT, non_retryable=True)
