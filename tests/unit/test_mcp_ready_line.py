"""The worker reads the Blender host's port from its readiness line, also when a liveness
answer landed on the same line (CI once saw the JSON followed by ``ARKEVO_MCP_HOST_ALIVE 1``:
the host's print wrote the text and the newline separately and a ping answer came between)."""

from __future__ import annotations

import json

import pytest

from sandbox.mcp_session import ALIVE_MARKER, READY_MARKER, ready_port


def test_the_port_is_read_from_a_clean_line():
    assert ready_port(f"{READY_MARKER} {json.dumps({'host': '127.0.0.1', 'port': 41234})}") == 41234


def test_a_liveness_answer_appended_to_the_line_does_not_lose_the_port():
    line = f"{READY_MARKER} {json.dumps({'host': '127.0.0.1', 'port': 41234})}{ALIVE_MARKER} 1"
    with pytest.raises(json.JSONDecodeError, match="Extra data"):
        json.loads(line.split(READY_MARKER, 1)[1])  # what the worker did before
    assert ready_port(line) == 41234


def test_a_line_without_a_port_is_an_error():
    with pytest.raises((ValueError, KeyError)):
        ready_port(f"{READY_MARKER} garbage")
