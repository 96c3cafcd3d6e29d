"""What a failed child or activity says went wrong, under Temporal's wrappers."""

from temporalio.exceptions import ApplicationError


def root_cause(err: BaseException) -> BaseException:
    """The first application error under the child and activity wrappers (its own causes are
    the details it was raised from), else the deepest error."""
    while getattr(err, "cause", None) is not None:
        if isinstance(err, ApplicationError):
            return err
        err = err.cause  # type: ignore[attr-defined]  # the loop's condition checked it has one
    return err


def describe(err: BaseException) -> str:
    root = root_cause(err)
    return f"{getattr(root, 'type', None) or type(root).__name__}: {root}"
