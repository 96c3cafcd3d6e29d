"""The chaos stack's dev server keeps a port of its own. In `make test` several dev servers
start at once and each binds random ports for its internal services; one of them took the port
free_port() had just picked for the chaos stack, whose server then could not bind it, and the
client spoke gRPC to someone else's HTTP/1 listener ("h2 protocol error"). free_port() now
picks below the kernel's ephemeral range, and a first start that loses its port takes another.
While our server is still alive, any failed connect is "not ours yet": the foreign listener
answers the HTTP/2 preface as the race goes ("protocol error", a 505 and "connection closed",
"broken pipe"); CI once failed on the second."""

from __future__ import annotations

import http.server
import socket
import threading

import pytest

from tests.chaos.helpers import ChaosStack
from workers.stack import _ephemeral_low, free_port

pytestmark = [pytest.mark.temporal, pytest.mark.timeout(120)]


def test_free_port_is_outside_the_ephemeral_range_and_bindable():
    low = _ephemeral_low()
    ports = {free_port() for _ in range(20)}
    assert all(1024 <= p < low for p in ports), ports
    assert len(ports) > 1  # random picks, not one port for everybody
    with socket.socket() as s:
        s.bind(("127.0.0.1", ports.pop()))


async def test_a_first_start_on_a_port_someone_else_holds_moves_to_a_free_one(tmp_path):
    # Someone else's HTTP/1 server on the port the stack was given.
    other = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    taken = other.server_address[1]
    stack = ChaosStack(tmp_path, tmp_path / "var", port=taken)
    try:
        await stack.start_server()
        assert stack.port != taken
        assert await stack._answers()
        # A restart keeps its port by design: with that port taken it fails, naming why.
        stack.kill9_server()
        stack.port = taken
        with pytest.raises(AssertionError, match=f"port {taken} exited while starting"):
            await stack.start_server(deadline_sec=30)
    finally:
        stack.close()
        other.shutdown()
        other.server_close()
