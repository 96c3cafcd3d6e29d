"""Stage 03, model authoring: the author model's rounds (gpu worker) and the endpoint check.

`author_round` resolves the author endpoint on this worker first (no endpoint: a
non-retryable error within seconds, before any sandbox starts), lays the seed and the previous
round's draft into a temporary `DraftFolder`, starts the authoring sandbox on the reference
scene and runs one `AuthorSession`. The draft files go to the store as a tree (paths inside
draft/), the redacted transcript as JSON.

Errors: an endpoint that refuses the request (4xx, a reply no retry fixes) is
`ModelEndpointError` (non-retryable). The round is a live Blender session, so it retries its own
calls (`modelapi.retry.SessionRetry`); an endpoint still busy after them is a retryable
`ModelEndpointUnavailable` carrying the server's Retry-After, and a sandbox or MCP session that
cannot start is a plain exception: Temporal retries both with a new round.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from temporalio import activity
from temporalio.exceptions import ApplicationError

from contracts.errors import SANDBOX_REQUIRED
from activities.model_calls import model_session, resolve
from modelapi.retry import SessionRetry
from storage.content import ContentStore
from contracts.payloads.model_authoring import AuthorRoundInput, AuthorRoundResult, EndpointCheckInput
from drafting.author_agent import AuthorSession
from drafting.authoring_sandbox import authoring_sandbox
from drafting.draft_folder import DraftFolder
from observability.heartbeats import heartbeating


class AuthorModelActivities:
    def __init__(self, store: ContentStore, sandbox_kwargs: dict | None = None, local: bool = False,
                 max_steps: int | None = None) -> None:
        self.store = store
        self.sandbox_kwargs = dict(sandbox_kwargs or {})  # ArkevoSandboxEnvironment kwargs
        self.local = local  # ARKEVO_TRIAL_BACKEND=local: no sandbox for the author's Blender
        self.max_steps = max_steps  # default: the registry's max_steps for the author

    @activity.defn(name="check_model_endpoints")
    async def check_model_endpoints(self, req: EndpointCheckInput) -> list[dict]:
        """Fail a run at its start when this worker lacks a role's endpoint; never the key."""
        return [resolve(role).describe() for role in req.roles]

    @activity.defn(name="author_round")
    async def author_round(self, req: AuthorRoundInput) -> AuthorRoundResult:
        # A live Blender session: the loop retries its own calls (modelapi/retry.py).
        async with model_session("author", retry=SessionRetry()) as client:  # no endpoint: fails before any sandbox
            if self.local:
                raise ApplicationError("model authoring needs the sandbox: run the gpu worker "
                                       "with ARKEVO_TRIAL_BACKEND=sandbox", type=SANDBOX_REQUIRED,
                                       non_retryable=True)
            with tempfile.TemporaryDirectory(prefix="arkevo-author-") as tmp:
                work = Path(tmp)
                seed_dir = work / "seed"
                self.store.materialize_tree(req.seed_tree, seed_dir, exclude="draft/")
                if req.previous_draft is not None:
                    self.store.materialize_tree(req.previous_draft, seed_dir / "draft")
                folder = DraftFolder(seed_dir)
                start = self.store.fetch_to(req.workspace.start_blend, work / "start.blend")
                reference = self.store.fetch_to(req.workspace.reference_blend, work / "reference.blend")
                async with heartbeating(f"author round {req.round} of {req.seed_id}"):
                    async with authoring_sandbox(
                            seed_dir, start, reference, work=work / "sandbox",
                            name=f"author-{req.seed_id}-r{req.round}",
                            sandbox_kwargs=self.sandbox_kwargs) as mcp:
                        session = AuthorSession(client, folder, mcp, seed_id=req.seed_id,
                                                round_no=req.round, feedback=req.feedback,
                                                max_steps=self.max_steps or client.endpoint.max_steps)
                        result = await session.run()
                files = folder.draft_files()
                draft = self.store.put_tree(seed_dir / "draft", files) if files else None
                return AuthorRoundResult(outcome=result.outcome, draft=draft,
                                         transcript=self.store.put_json(result.transcript),
                                         usage=client.usage, summary=result.summary,
                                         missing=result.missing)
