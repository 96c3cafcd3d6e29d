"""The headless Blender MCP host (sandbox/runtime/blender_mcp_host.py) in real bpy, driven by
the stock mcp-for-blender MCP server over stdio and by its own TCP protocol.

No sandbox here: the host and server run as plain subprocesses on loopback with a free port;
the sandboxed path is covered by tests/integration/test_agents.py."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_asyncio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from sandbox.mcp_session import READY_MARKER, save_code, tool_result_text

pytestmark = [pytest.mark.blender, pytest.mark.timeout(120)]

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "sandbox" / "runtime" / "blender_mcp_host.py"
TELEMETRY_OFF = {"DISABLE_TELEMETRY": "1", "BLENDER_MCP_DISABLE_TELEMETRY": "1"}


def bpy_run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    ws = tmp_path_factory.mktemp("host-ws")
    (ws / "inputs").mkdir()
    bpy_run("import bpy\nbpy.ops.wm.read_factory_settings(use_empty=True)\n"
            "bpy.ops.mesh.primitive_plane_add()\n"
            f"bpy.ops.wm.save_as_mainfile(filepath={str(ws / 'inputs' / 'start.blend')!r})\n")
    return ws


@pytest_asyncio.fixture(scope="module")
async def host(workspace, tmp_path_factory):
    """The host on a free port; yields (process, port).  Stopped by closing its stdin."""
    state = tmp_path_factory.mktemp("host-state")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(HOST), "--blend", "inputs/start.blend", "--port", "0", "--exit-on-stdin-eof",
        cwd=workspace, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, env={"PATH": "/usr/bin:/bin", "HOME": str(state), **TELEMETRY_OFF},
    )
    port = None
    async with asyncio.timeout(60):
        while line := (await proc.stdout.readline()).decode():
            if READY_MARKER in line:
                port = json.loads(line.split(READY_MARKER, 1)[1])["port"]
                break
    assert port, "host never printed its readiness line"
    drain = asyncio.create_task(proc.stdout.read())  # keeps the pipe from filling up
    yield proc, port
    if proc.returncode is None:
        proc.stdin.close()
        await asyncio.wait_for(proc.wait(), 20)
    await drain


def command(port: int, cmd_type: str, **params) -> dict:
    """One command over the add-on protocol: a JSON object each way on a fresh connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(json.dumps({"type": cmd_type, "params": params}).encode())
        data = b""
        while True:
            data += sock.recv(65536)
            try:
                return json.loads(data)
            except ValueError:
                continue


async def test_stock_mcp_server_drives_the_host(host, workspace, tmp_path):
    _, port = host
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "blender_mcp.server"], cwd=str(workspace),
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "BLENDER_HOST": "127.0.0.1",
             "BLENDER_PORT": str(port), **TELEMETRY_OFF},
    )
    with open(tmp_path / "server.log", "w") as errlog:
        async with stdio_client(server, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                names = {t.name for t in (await session.list_tools()).tools}
                assert {"execute_blender_code", "get_scene_info"} <= names

                made = await session.call_tool("execute_blender_code", {"code": (
                    "import bpy\nbpy.ops.mesh.primitive_cube_add(location=(1, 2, 3))\n"
                    "bpy.context.object.name = 'HostCube'\nprint(len(bpy.data.objects))")})
                assert not made.isError
                assert tool_result_text(made).strip().endswith("2"), tool_result_text(made)

                scene = tool_result_text(await session.call_tool("get_scene_info", {}))
                assert "HostCube" in scene and "Plane" in scene

                failed = tool_result_text(await session.call_tool(
                    "execute_blender_code", {"code": "raise ValueError('deliberate')"}))
                assert "ValueError" in failed and "deliberate" in failed

                saved = tool_result_text(await session.call_tool(
                    "execute_blender_code", {"code": save_code("outputs/via_mcp.blend")}))
                assert "ARKEVO_SAVED" in saved, saved

    out = bpy_run("import bpy\n"
                  f"bpy.ops.wm.open_mainfile(filepath={str(workspace / 'outputs' / 'via_mcp.blend')!r})\n"
                  "ob = bpy.data.objects['HostCube']\nprint(sorted(o.name for o in bpy.data.objects), tuple(ob.location))")
    assert "['HostCube', 'Plane'] (1.0, 2.0, 3.0)" in out


async def test_addon_protocol_commands(host, workspace):
    _, port = host
    info = command(port, "get_object_info", name="Plane")
    assert info["status"] == "success" and info["result"]["type"] == "MESH"
    assert command(port, "get_scene_info")["result"]["object_count"] >= 1
    assert command(port, "get_addon_info")["result"]["protocol_version"] >= 15

    # telemetry stays off, and the network integrations cannot be switched on
    assert command(port, "get_telemetry_consent")["result"] == {"consent": False}
    assert command(port, "set_telemetry_consent", consent=True)["result"]["consent"] is False
    assert command(port, "get_polyhaven_status")["result"]["enabled"] is False
    assert command(port, "execute_code",
                   code="import bpy\nbpy.context.scene.blendermcp_use_polyhaven = True")["status"] == "error"
    assert command(port, "search_polyhaven_assets")["status"] == "error"

    # agent code cannot end the host by raising SystemExit
    exited = command(port, "execute_code", code="import sys\nsys.exit(1)")
    assert exited["status"] == "error" and "SystemExit" in exited["message"]
    assert command(port, "ping")["result"] == {"pong": True}

    saved = command(port, "save_blend", filepath="outputs/direct.blend")
    assert saved["status"] == "success", saved
    assert (workspace / "outputs" / "direct.blend").stat().st_size == saved["result"]["bytes"]


async def test_shutdown_command_stops_the_host(workspace):
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(HOST), "--blend", "inputs/start.blend", "--port", "0", cwd=workspace,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        env={"PATH": "/usr/bin:/bin", "HOME": str(workspace), **TELEMETRY_OFF})
    async with asyncio.timeout(60):
        while READY_MARKER not in (line := (await proc.stdout.readline()).decode()):
            assert line, "host exited before it was ready"
    port = json.loads(line.split(READY_MARKER, 1)[1])["port"]
    assert (await asyncio.to_thread(command, port, "shutdown"))["result"] == {"stopping": True}
    rest = await asyncio.wait_for(proc.stdout.read(), 20)
    assert await proc.wait() == 0
    assert b"blender_mcp_host: stopped" in rest


def test_refuses_non_loopback_address(workspace):
    done = subprocess.run([sys.executable, str(HOST), "--blend", "inputs/start.blend", "--host", "0.0.0.0"],
                          cwd=workspace, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "loopback" in done.stderr
