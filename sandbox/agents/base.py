"""Common base of the agents that act only through Blender MCP tools in the sandbox."""

from __future__ import annotations

from harbor.agents.base import BaseAgent
from harbor.agents.options import AgentOptions
from harbor.environments.base import BaseEnvironment
from pydantic import Field

from sandbox.mcp_session import McpSessionConfig


class McpAgentOptions(AgentOptions):
    """Options shared by the MCP agents: where the session runs and where the delivery goes."""

    mcp: McpSessionConfig = Field(default_factory=McpSessionConfig)
    delivery_path: str = Field("outputs/result.blend",
                               description="delivery .blend inside the sandbox, relative to mcp.workdir")


class SandboxedMcpAgent(BaseAgent):
    async def set_web_tools_disabled(self, disabled: bool, environment: BaseEnvironment) -> None:
        # Nothing to switch off: these agents have no web tools and the sandbox no network.
        # Harbor's default logs an error on every no-network trial for such agents.
        return None
