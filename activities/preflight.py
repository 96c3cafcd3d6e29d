"""A campaign's preflight (docs/campaigns.md "Preflight"), on a gpu worker — where the model
endpoints' configuration and the sandboxes are — before the first trial.

1. Every model endpoint the campaign's `arkevo-llm` configs need gets one real chat request
   through the agent's own client code (`modelapi.client.ChatClient`, the agent's base URL, key,
   model choice, request extras such as `reasoning_effort`, temperature and max_tokens): a
   refused connection, a 401, an unknown model or a reply that is not a chat completion fails
   it (`ModelEndpointUnreachable`), as a missing variable does (`ModelNotConfigured`).
2. Then one nop-agent trial on the campaign's first task still to run, in the real sandbox
   through the one trial path (`TrialActivities.trial`), not recorded: the sandbox starts,
   Blender opens the workspace, the verifier reports (`SandboxSmokeFailed` otherwise).

The activity never raises for a failed check: it returns the `PreflightReport` so the workflow
can store it (preflight.json) before it fails with the named error.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
from datetime import UTC, datetime
from typing import cast

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.trials import TrialActivities, solver_endpoint
from contracts.errors import MODEL_ENDPOINT_UNREACHABLE, SANDBOX_SMOKE_FAILED
from contracts.payloads.campaigns import (EndpointCheck, PlannedTask, PreflightInput,
                                          PreflightReport, SmokeTrial)
from contracts.payloads.trials import SolverSpec, TrialRequest
from activities.policies import policy_from_solver

# The one message of the ping. Tests' fake endpoints recognise it (tests/fakes route by body).
PING_PROMPT = "ping: answer with the single word ok"
PING_TIMEOUT_SEC = 60.0  # one reply; the agent's own read timeout may be minutes
HEARTBEAT_SEC = 5.0


async def ping(specs: list[SolverSpec], environ) -> EndpointCheck:
    """One request for configs that share an endpoint, model and request extras."""
    # Lazy: the agent's module loads Harbor; a worker imports this module at start.
    from modelapi.client import ChatClient, ModelEndpointError, Timeouts
    from observability.redaction import Redactor
    from sandbox.agents.llm import API_KEY_ENV, BASE_URL_ENV, LlmAgentOptions, request_extras

    spec = specs[0]
    ids = [s.config_id for s in specs]
    try:
        found = solver_endpoint(spec, environ)
    except ApplicationError as e:  # ModelNotConfigured: the variables to set
        return EndpointCheck(ids, "", spec.model, spec.reasoning_effort, False,
                             error_type=e.type, error=e.message)
    # The agent's options as its trials will parse them (max_tokens, temperature, effort): the
    # ping carries what the agent's requests carry, no more — a max_tokens the agent never sends
    # could be refused by a reasoning model and fail an endpoint its trials would reach.
    opts = LlmAgentOptions.model_validate(policy_from_solver(spec).kwargs)
    client = ChatClient(environ[BASE_URL_ENV], found["model"], environ.get(API_KEY_ENV),
                        redactor=Redactor.from_environ(environ), extra_body=request_extras(opts),
                        timeouts=Timeouts(min(PING_TIMEOUT_SEC, opts.request_timeout_sec),
                                          opts.connect_timeout_sec))
    began = time.monotonic()
    try:
        async with client:
            await client.complete([{"role": "user", "content": PING_PROMPT}],
                                  temperature=opts.temperature, max_tokens=opts.max_tokens)
    except ModelEndpointError as e:  # refused, 4xx, 5xx, not a chat completion (redacted)
        return EndpointCheck(ids, found["endpoint"], found["model"], spec.reasoning_effort, False,
                             round(time.monotonic() - began, 3), MODEL_ENDPOINT_UNREACHABLE, str(e))
    return EndpointCheck(ids, found["endpoint"], found["model"], spec.reasoning_effort, True,
                         round(time.monotonic() - began, 3))


def endpoint_groups(configs: list[SolverSpec], environ) -> list[list[SolverSpec]]:
    """The `arkevo-llm` configs grouped by what their requests share (model as the worker will
    choose it, reasoning effort, agent options): one ping per group."""
    from sandbox.agents.llm import MODEL_ENV, choose_model

    groups: dict[tuple, list[SolverSpec]] = {}
    for spec in configs:
        if spec.agent != "arkevo-llm":
            continue  # other agents' endpoints are their own (Harbor's agents read their env)
        key = (choose_model(spec.model, environ.get(MODEL_ENV)), spec.reasoning_effort,
               json.dumps(spec.agent_kwargs, sort_keys=True))
        groups.setdefault(key, []).append(spec)
    return list(groups.values())


async def _beating(coro):
    """Await a ping, heartbeating: one can take the ping's read timeout, longer than the gpu
    activities' heartbeat timeout (the smoke trial heartbeats on its own)."""
    task = asyncio.ensure_future(coro)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=HEARTBEAT_SEC)
            if done:
                return task.result()
            activity.heartbeat("preflight: waiting for a model endpoint")
    except asyncio.CancelledError:
        task.cancel()
        raise


class PreflightActivities:
    def __init__(self, trials: TrialActivities):
        self.trials = trials

    @activity.defn(name="preflight_campaign")
    async def preflight_campaign(self, req: PreflightInput) -> PreflightReport:
        environ = dict(os.environ)
        endpoints = [await _beating(ping(group, environ))
                     for group in endpoint_groups(req.configs, environ)]
        smoke = None
        if req.task is not None and all(e.ok for e in endpoints):
            smoke = await self.smoke_trial(req.campaign_id, req.task)
        return PreflightReport(req.campaign_id, datetime.now(UTC).isoformat(timespec="seconds"),
                               f"{socket.gethostname()}:{os.getpid()}", endpoints, smoke,
                               req.recovery_round)

    async def smoke_trial(self, campaign_id: str, task: PlannedTask) -> SmokeTrial:
        frozen = task.frozen
        began = time.monotonic()
        try:
            outcome = await self.trials.trial(TrialRequest(
                frozen.task_package, frozen.identity, "nop", f"{campaign_id}.preflight", "preflight"))
        except Exception as e:  # noqa: BLE001 — whatever stops the trial is the reason, named
            from observability.redaction import Redactor

            why = Redactor.from_environ().text(
                f"{getattr(e, 'type', None) or type(e).__name__}: {getattr(e, 'message', None) or e}")
            return SmokeTrial(frozen.task_id, False, round(time.monotonic() - began, 3),
                              error_type=SANDBOX_SMOKE_FAILED, error=why[:1000])
        seconds = round(time.monotonic() - began, 3)
        criteria = (len(cast(dict, self.trials.store.get_json(outcome.report))["criteria"])
                    if outcome.report is not None else None)
        # The nop agent does nothing a sandbox could hold against it: a failure or a timeout
        # here is the sandbox's or Blender's, not a solver's.
        problem = (f"{outcome.failure.type}: {outcome.failure.message}" if outcome.failure
                   else "the nop agent timed out" if outcome.timed_out else None)
        return SmokeTrial(frozen.task_id, problem is None, seconds, outcome.blender_version, criteria,
                          SANDBOX_SMOKE_FAILED if problem else None, problem)
