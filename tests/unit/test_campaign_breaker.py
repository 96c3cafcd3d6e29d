"""The circuit breaker's window rule (campaigns/breaker.py): pure, no workflow."""

from __future__ import annotations

import pytest

from campaigns.breaker import Finished, breaker_problem, pause_reason, tripped

OK = None


def run(*infra: str | None) -> list[Finished]:
    return [Finished(f"t{i}", why) for i, why in enumerate(infra, 1)]


def test_trips_when_the_window_holds_enough_infra_exceptions():
    finished = run(OK, "SandboxDown: slot", OK, OK, "SandboxDown: slot")
    assert tripped(finished[:4], 2, 3) is None  # one infra exception so far
    assert tripped(finished, 2, 3) is None  # t3, t4, t5: one
    assert tripped(finished, 2, 4) == [finished[1], finished[4]]  # t2..t5: two


def test_only_the_last_window_counts():
    finished = run("A: x", "B: y", OK, OK, OK, "C: z")
    assert tripped(finished, 2, 4) is None  # A and B fell out of the window
    assert tripped(finished, 2, 6) == [finished[0], finished[1], finished[5]]
    assert tripped(finished[:2], 2, 10) == finished[:2]  # fewer finished than the window


def test_zero_failures_is_off_and_graded_attempts_never_count():
    assert tripped(run("A: x", "B: y", "C: z"), 0, 0) is None
    assert tripped(run(OK, OK, OK, OK, OK), 1, 5) is None


def test_the_reason_names_each_trial_and_its_failure():
    infra = run("TrialInfraError: sandbox could not start", "ModelEndpointUnavailable: 503")
    reason = pause_reason(infra, 2, 10)
    assert reason.startswith("circuit breaker: 2 of the last 10 finished trials")
    assert "t1: TrialInfraError: sandbox could not start" in reason
    assert "t2: ModelEndpointUnavailable: 503" in reason


@pytest.mark.parametrize("failures, window, ok", [(5, 10, True), (0, 0, True), (1, 1, True),
                                                  (6, 5, False), (-1, 3, False), (2, -1, False)])
def test_settings(failures, window, ok):
    assert (breaker_problem(failures, window) is None) == ok
