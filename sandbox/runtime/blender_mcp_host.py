"""Headless Blender MCP host: serves the mcp-for-blender add-on protocol from Blender-as-a-module.

    python3 -m blender_mcp_host --blend inputs/start.blend --port 9876 [--host 127.0.0.1]
    python3 /opt/arkevo/runtime/blender_mcp_host.py --blend inputs/start.blend --port 0

Inside a GUI Blender the bundled add-on (``blender_mcp.bundled.addon``) listens on a TCP port and
runs each JSON command on Blender's main thread from a ``bpy.app.timers`` callback.  ``bpy`` as a
module has no event loop and runs in background mode, where the add-on refuses to start, so this
host keeps the add-on's own socket threads, framing and command handlers (``BlenderMCPServer``)
and replaces only the timer with a main-thread loop here (bpy is not thread-safe).  The stock MCP
server (``python -m blender_mcp.server`` with ``BLENDER_HOST``/``BLENDER_PORT``) talks to it
unchanged.

Runs inside the solver sandbox (stdlib + bpy + blender_mcp only).  Differences from the add-on:

* loopback only; ``--port 0`` picks a free port.  When listening, one line
  ``ARKEVO_MCP_HOST_READY {"host": ..., "port": ...}`` is printed to stdout (flushed): the
  readiness signal the worker waits for.
* no telemetry and no network: consent always reads "no" and cannot be set, the asset-library
  and generator integrations (Poly Haven, Sketchfab, Hyper3D, ...) are forced off whatever the
  .blend says, the add-on's update check and auto-start are never registered, and BLENDERMCP_*
  keys are dropped from the environment.
* two extra commands for direct protocol clients: ``save_blend {"filepath"}`` (uncompressed copy,
  parent folders created; a relative path is relative to the working directory) and
  ``shutdown``.  The worker saves through the stock ``execute_blender_code`` tool instead, so
  only MCP tool calls cross the sandbox boundary.
* stops cleanly on SIGTERM/SIGINT, on ``shutdown``, and with ``--exit-on-stdin-eof`` when its
  stdin closes (how the worker ends it without signalling into the sandbox).  A main thread
  stuck in agent code (``while True: pass``) never gets back to the loop: ``STOP_GRACE_SEC``
  after stdin closed, the process exits anyway (signals to the sandbox's bwrap do not reach it).
* with ``--answer-pings``, every read from stdin is the worker's liveness ping: a thread of its
  own answers it at once with one line ``ARKEVO_MCP_HOST_ALIVE <last number read>`` on stdout,
  from before the .blend is opened, whatever the main thread is doing.  The answer says only
  that the process is scheduled (a stopped or frozen host gives none); the worker's use of it
  is in ``sandbox/mcp_session.py`` (``HostLiveness``).
"""

from __future__ import annotations

import argparse
import importlib.util
import ipaddress
import json
import os
import queue
import signal
import socket
import sys
import threading
from pathlib import Path

# Before blender_mcp is imported: every telemetry switch off (the sandbox has no network anyway).
for _name in ("DISABLE_TELEMETRY", "BLENDER_MCP_DISABLE_TELEMETRY", "MCP_DISABLE_TELEMETRY"):
    os.environ[_name] = "1"
for _name in [n for n in os.environ if n.startswith("BLENDERMCP_")]:
    del os.environ[_name]  # premium licence / provider keys would switch network handlers on

import bpy  # noqa: E402, F401 (the add-on needs it imported first)


def _load_addon():
    """The bundled add-on, loaded from its file. `import blender_mcp.bundled.addon` would first run
    the package's __init__, which imports the MCP *server* (mcp, pydantic, httpx): about a CPU-second
    per trial that this process never uses. The add-on imports no sibling module."""
    package = importlib.util.find_spec("blender_mcp")  # locates the package without running it
    if package is None or not package.submodule_search_locations:
        raise SystemExit("blender_mcp_host: the blender_mcp package is not installed")
    path = Path(package.submodule_search_locations[0]) / "bundled" / "addon.py"
    name = "blender_mcp.bundled.addon"  # its own name: it looks its preferences up by __name__
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


addon = _load_addon()

READY_MARKER = "ARKEVO_MCP_HOST_READY"
ALIVE_MARKER = "ARKEVO_MCP_HOST_ALIVE"  # the answer to a liveness ping (--answer-pings)
STOP_GRACE_SEC = 2.0

# Scene flags the add-on's dispatcher reads to enable network integrations.  Registered as
# getter-only properties: always False, cannot be switched on by a command or by a stored value
# in the opened .blend, and never written into the saved file.
INTEGRATION_FLAGS = (
    "blendermcp_use_polyhaven", "blendermcp_use_hyper3d", "blendermcp_use_sketchfab",
    "blendermcp_use_polypizza", "blendermcp_use_hunyuan3d", "blendermcp_use_meshy",
    "blendermcp_use_tripo",
)


def register_disabled_integrations() -> None:
    for name in INTEGRATION_FLAGS:
        setattr(bpy.types.Scene, name, bpy.props.BoolProperty(name=name, get=lambda _self: False))


class _WakingQueue(queue.Queue):
    """The add-on's command queue, plus an event so the main loop sleeps until work arrives."""

    def __init__(self) -> None:
        super().__init__()
        self.wake = threading.Event()

    def put(self, item, block=True, timeout=None):
        super().put(item, block, timeout)
        self.wake.set()


class HeadlessMCPServer(addon.BlenderMCPServer):
    """``BlenderMCPServer`` minus the GUI timer: ``serve_forever`` drains its queue instead."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(host=host, port=port)
        self.command_queue = _WakingQueue()
        self.stop_requested = threading.Event()
        self.stopped = threading.Event()  # serve_forever returned

    def listen(self) -> None:
        # The add-on's start() refuses background mode and registers a bpy timer; the socket
        # set-up is the same.  Connections made from here on wait in the backlog.
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((self.host, self.port))
        self.socket.listen(5)
        self.port = self.socket.getsockname()[1]

    def start(self) -> None:
        """Start the add-on's own accept loop and client handler threads."""
        self.running = True
        self.server_thread = threading.Thread(target=self._server_loop, daemon=True)
        self.server_thread.start()

    def serve_forever(self) -> None:
        """Run queued commands on this (main) thread until a stop is requested."""
        wake = self.command_queue.wake
        while not self.stop_requested.is_set():
            wake.wait(0.5)
            wake.clear()  # cleared before draining, so a command queued meanwhile re-sets it
            self._drain_command_queue()
        self.stopped.set()

    def request_stop(self) -> None:
        self.stop_requested.set()
        self.command_queue.wake.set()

    def stop(self) -> None:
        # The add-on's accept loop polls with a 1 s timeout (and sleeps 0.5 s after the error a
        # closed socket gives it): joining it held every trial's stop for up to a second. It is
        # a daemon thread, and this process exits next.
        self.running = False
        self.server_thread = None
        super().stop()

    def _execute_command_internal(self, command):
        cmd_type = command.get("type")
        params = command.get("params") or {}
        if cmd_type == "save_blend":
            return {"status": "success", "result": save_blend(params["filepath"])}
        if cmd_type == "shutdown":
            self.request_stop()  # the reply is still sent: the queue is drained before the check
            return {"status": "success", "result": {"stopping": True}}
        return super()._execute_command_internal(command)

    def execute_command(self, command):
        try:
            return super().execute_command(command)
        except SystemExit as exc:  # sys.exit() in agent code must not end the host
            return {"status": "error", "message": f"SystemExit({exc.code!r}) is not allowed here"}

    def get_telemetry_consent(self):
        return {"consent": False}

    def set_telemetry_consent(self, consent=False):
        return {"error": "telemetry is disabled in this host", "consent": False}


def save_blend(filepath: str) -> dict:
    path = Path(filepath).resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    bpy.ops.wm.save_as_mainfile(filepath=str(path), compress=False, copy=True)
    return {"saved": str(path), "bytes": path.stat().st_size}


class StdinWatch:
    """The worker's pipe into the host, read by a thread of its own from the start: each read
    is answered (`answer_pings`) with one ALIVE_MARKER line on stdout; end of file stops the
    server (`exit_on_eof`), also when it comes before the server exists."""

    def __init__(self, *, answer_pings: bool, exit_on_eof: bool) -> None:
        self.answer_pings = answer_pings
        self.exit_on_eof = exit_on_eof
        self._lock = threading.Lock()
        self._server: HeadlessMCPServer | None = None
        self._eof = False

    def start(self) -> None:
        threading.Thread(target=self._run, name="arkevo-stdin", daemon=True).start()

    def attach(self, server: HeadlessMCPServer) -> None:
        """The server exists: an end of file already read stops it as soon as it serves."""
        with self._lock:
            self._server, eof = server, self._eof
        if eof and self.exit_on_eof:
            server.request_stop()

    def _run(self) -> None:
        try:
            while data := os.read(sys.stdin.fileno(), 4096):
                if self.answer_pings:
                    self._answer(data)
        except (OSError, ValueError, AttributeError):  # no stdin, or closed under us
            pass
        with self._lock:
            self._eof, server = True, self._server
        if server is not None and self.exit_on_eof:
            _stop_after_eof(server)

    @staticmethod
    def _answer(data: bytes) -> None:
        # The worker writes a sequence number per ping; echoing the last one read tells it
        # which ping this answers (several may arrive in one read after a stall).
        words = data.split()
        number = words[-1] if words and words[-1].isdigit() else b""
        try:
            os.write(1, ALIVE_MARKER.encode() + b" " + number[:20] + b"\n")  # one write: one line
        except OSError:
            pass


def _stop_after_eof(server: HeadlessMCPServer) -> None:
    server.request_stop()
    # Pure-Python agent code still lets this thread run; a hang holding the GIL in C does not,
    # and then only the sandbox's teardown ends the process.
    if not server.stopped.wait(STOP_GRACE_SEC):
        print(f"blender_mcp_host: main thread still busy {STOP_GRACE_SEC:g}s after stdin closed; "
              "exiting", file=sys.stderr, flush=True)
        os._exit(1)


def _check_loopback(host: str) -> str:
    if host == "localhost":
        return "127.0.0.1"
    try:
        if ipaddress.ip_address(host).is_loopback:
            return host
    except ValueError:
        pass
    raise SystemExit(f"blender_mcp_host: --host must be a loopback address, got {host!r}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blend", required=True, type=Path, help=".blend to open")
    ap.add_argument("--host", default="127.0.0.1", help="loopback address to listen on")
    ap.add_argument("--port", type=int, default=9876, help="TCP port; 0 picks a free one")
    ap.add_argument("--exit-on-stdin-eof", action="store_true",
                    help="stop when stdin reaches end of file (the parent closed it)")
    ap.add_argument("--answer-pings", action="store_true",
                    help=f"answer each read from stdin with a line '{ALIVE_MARKER} <n>' on stdout")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    host = _check_loopback(args.host)
    if not args.blend.is_file():
        print(f"blender_mcp_host: .blend not found: {args.blend}", file=sys.stderr)
        return 2
    stdin = StdinWatch(answer_pings=args.answer_pings, exit_on_eof=args.exit_on_stdin_eof)
    if args.answer_pings or args.exit_on_stdin_eof:
        stdin.start()  # before the .blend opens: a long load still answers pings
    # use_scripts=False: Python stored in the .blend must not run in the host.
    bpy.ops.wm.open_mainfile(filepath=str(args.blend.resolve()), load_ui=False, use_scripts=False)
    register_disabled_integrations()

    server = HeadlessMCPServer(host, args.port)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: server.request_stop())
    stdin.attach(server)
    try:
        server.listen()
    except OSError as exc:
        print(f"blender_mcp_host: cannot listen on {host}:{args.port}: {exc}", file=sys.stderr)
        return 3
    # One write(2), printed before the add-on's threads start: the stdin thread answers pings
    # with its own os.write, and print() under PYTHONUNBUFFERED writes the text and the newline
    # separately -- a ping answered between them split this line once in CI.
    sys.stdout.flush()
    os.write(1, f"{READY_MARKER} {json.dumps({'host': host, 'port': server.port})}\n".encode())
    try:
        server.start()
        server.serve_forever()
    finally:
        server.stop()
    print("blender_mcp_host: stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
