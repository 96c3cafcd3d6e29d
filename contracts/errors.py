"""Error types shared by activities and workflows.

Bad input is a non-retryable ApplicationError whose message names the file and field; anything
else an activity raises is treated as an infrastructure fault and retried by Temporal.
"""

from __future__ import annotations

from temporalio.exceptions import ApplicationError

INVALID_SEED = "InvalidSeed"
# A seed declaring a Blender (major.minor) the runtime is not, and no range that includes it.
BLENDER_VERSION_MISMATCH = "BlenderVersionMismatch"
INVALID_DRAFT = "InvalidDraft"
CALIBRATION_FAILED = "CalibrationFailed"
# Mutation testing (stage 05, docs/scoring.md "Gaming resistance"): applicable gaming operators
# survived the grader -- the rubric measures a proxy the solver controls; never frozen.
GRADER_GAMEABLE = "GraderGameable"
# The reference deliverable's evidence renders leave a graded part too small (or hidden) for the
# VL judge to see: the task's judge.json evidence section must frame or resolve it better.
EVIDENCE_TOO_COARSE = "EvidenceTooCoarse"
# A draft's own script (reference solution, defect, variant, build script) failed
# deterministically: the author's mistake, named with the file and the exception, never retried.
AUTHOR_SCRIPT_FAILED = "AuthorScriptFailed"
# Model authoring (docs/authoring.md): a role with no endpoint on the worker, an endpoint that
# refuses the request (4xx, a reply no retry fixes), a reviewer whose verdict cannot be read,
# and the two outcomes that end stage 03 without a draft.
MODEL_NOT_CONFIGURED = "ModelNotConfigured"
MODEL_ENDPOINT_ERROR = "ModelEndpointError"
REVIEWER_REPLY_INVALID = "ReviewerReplyInvalid"
AUTHORING_NEEDS_INPUT = "AuthoringNeedsInput"
AUTHORING_REJECTED = "AuthoringRejected"
INVALID_SOURCE_TASK = "InvalidSourceTask"
SANDBOX_REQUIRED = "SandboxRequired"  # model authoring on a gpu worker running trials unisolated
DERIVER_REPLY_INVALID = "DeriverReplyInvalid"
DERIVED_SEED_CONFLICT = "DerivedSeedConflict"  # another seed already has that folder
# A derivation source that is a task of a frozen revision's held-out split (any but train),
# without DerivationInput.joins_split naming that split; joins_split naming another split.
HELD_OUT_DERIVATION_SOURCE = "HeldOutDerivationSource"
DERIVATION_SPLIT_MISMATCH = "DerivationSplitMismatch"
# Dataset revisions (docs/datasets.md): a spec that disagrees with the revision's stored one, a
# frozen revision asked to change, a seed list that does not resolve; a publication racing
# another run for the same revision (retried: the retry takes the next one).
INVALID_DATASET_SPEC = "InvalidDatasetSpec"
DATASET_SPEC_CONFLICT = "DatasetSpecConflict"
DATASET_REVISION_FROZEN = "DatasetRevisionFrozen"
PUBLICATION_CONFLICT = "PublicationConflict"
PRIVACY_COVERAGE_REJECTED = "PrivacyCoverageRejected"  # a reviewer rejected coverage_pending files
# Human review gate of stage 05 (`review: human`, docs/datasets.md): a reviewer rejected the task,
# or no decision came within the timeout; either way nothing is published.
REVIEW_REJECTED = "ReviewRejected"
REVIEW_TIMED_OUT = "ReviewTimedOut"
# A privacy checkpoint (admission, dispatch, export: docs/privacy.md) found what the policy
# forbids in a file: the content's problem, named file:line:col and rule, never retried.
PRIVACY_FINDING = "PrivacyFinding"
# Evaluation campaigns (docs/campaigns.md): a request that names no frozen tasks or unknown
# configs, a campaign id reused with another plan, a recovery that names trials it may not
# rerun, a second record for one trial, figures that would pool incomparable grades.
INVALID_CAMPAIGN = "InvalidCampaign"
CAMPAIGN_PLAN_CONFLICT = "CampaignPlanConflict"
INVALID_RECOVERY = "InvalidRecovery"
DUPLICATE_TRIAL_RECORD = "DuplicateTrialRecord"
INCOMPARABLE_FIGURES = "IncomparableFigures"
RECOVERY_INCOMPLETE = "RecoveryIncomplete"  # a named trial got no record: rerun the same ids
# A campaign's preflight (docs/campaigns.md "Preflight"): a model endpoint that does not answer
# a minimal chat request (refused connection, 401, unknown model, a reply that is not a chat
# completion), a sandbox smoke trial that fails; and `arkevo campaign resume` of a campaign that
# is not paused by its circuit breaker (a CLI answer: the workflow ignores such a signal).
MODEL_ENDPOINT_UNREACHABLE = "ModelEndpointUnreachable"
SANDBOX_SMOKE_FAILED = "SandboxSmokeFailed"
CAMPAIGN_NOT_PAUSED = "CampaignNotPaused"
# The verifier drift check (docs/verifier-drift.md): a malformed or unknown dataset revision, a
# tolerance that is not a number >= 0, a candidate's probe code that is not a folder of probe files.
INVALID_DRIFT_REQUEST = "InvalidDriftRequest"
NON_RETRYABLE = [INVALID_SEED, BLENDER_VERSION_MISMATCH, INVALID_DRAFT, CALIBRATION_FAILED, GRADER_GAMEABLE, EVIDENCE_TOO_COARSE,
                 AUTHOR_SCRIPT_FAILED,
                 MODEL_NOT_CONFIGURED, MODEL_ENDPOINT_ERROR, REVIEWER_REPLY_INVALID,
                 AUTHORING_NEEDS_INPUT, AUTHORING_REJECTED, INVALID_SOURCE_TASK, SANDBOX_REQUIRED,
                 DERIVER_REPLY_INVALID, DERIVED_SEED_CONFLICT, HELD_OUT_DERIVATION_SOURCE,
                 DERIVATION_SPLIT_MISMATCH, INVALID_DATASET_SPEC,
                 DATASET_SPEC_CONFLICT, DATASET_REVISION_FROZEN, PRIVACY_COVERAGE_REJECTED,
                 PRIVACY_FINDING, INVALID_CAMPAIGN, CAMPAIGN_PLAN_CONFLICT, INVALID_RECOVERY,
                 DUPLICATE_TRIAL_RECORD, INCOMPARABLE_FIGURES, INVALID_DRIFT_REQUEST,
                 REVIEW_REJECTED, REVIEW_TIMED_OUT, MODEL_ENDPOINT_UNREACHABLE, SANDBOX_SMOKE_FAILED]


def unseen_parts_message(unseen: dict[str, str]) -> str:
    """What `EvidenceTooCoarse` says: each graded part the VL judge cannot see, and why."""
    return "the VL judge cannot see graded part(s): " + "; ".join(f"{n}: {why}" for n, why in unseen.items())


def evidence_too_coarse(unseen: dict[str, str]) -> ApplicationError:
    return ApplicationError(f"judge.json evidence: {unseen_parts_message(unseen)}", unseen,
                            type=EVIDENCE_TOO_COARSE, non_retryable=True)


def invalid_seed(message: str) -> ApplicationError:
    return ApplicationError(message, type=INVALID_SEED, non_retryable=True)


def invalid_draft(message: str) -> ApplicationError:
    return ApplicationError(message, type=INVALID_DRAFT, non_retryable=True)


def author_script_failed(message: str, **details) -> ApplicationError:
    """`message` names the draft file and the exception; `details` (file, exception, log tail)
    travel with the error for the Web UI and the failure record."""
    extra = [details] if details else []
    return ApplicationError(message, *extra, type=AUTHOR_SCRIPT_FAILED, non_retryable=True)


def model_not_configured(exc) -> ApplicationError:
    """`exc`: contracts.model_roles.ModelNotConfigured; its message names the variables."""
    return ApplicationError(str(exc), {"role": exc.role, "variables": exc.variables},
                            type=MODEL_NOT_CONFIGURED, non_retryable=True)


def model_endpoint_error(message: str) -> ApplicationError:
    return ApplicationError(message, type=MODEL_ENDPOINT_ERROR, non_retryable=True)


def privacy_finding(report) -> ApplicationError:
    """`report`: a `privacy.report.PrivacyReport` with findings. The message lists every finding
    as `privacy finding in <file>:<line>:<col>: rule <id> (<kind>) <redacted excerpt>`; the
    details carry the report (excerpts redacted: a secret never travels in an error)."""
    return ApplicationError(report.message(), report.as_dict(), type=PRIVACY_FINDING,
                            non_retryable=True)
