"""`python3` first on the PATH of an exec offered forks (launcher.offer_forks): runs
`python3 script.py args` as a process the worker's fork server forks, already imported, into
this exec's sandbox; anything else execs the real python3, unchanged.

Installed by the worker as /opt/arkevo/launcher/forkpy/python3 with this interpreter's own
path in its `#!` line (`-I -S`: stdlib only, nothing of the project). Stdlib only.

The forked process is this exec's in every way a cold one would be: the same confinement (the
launcher's confine(), before it reads the request), stdio (these fds), environment, cwd and
argv. Exit status and the signals a shell or `timeout` sends (TERM, INT, HUP, QUIT) pass
through; if this process is killed, so is the forked one. A request the fork server does not
take (gone, busy failing) runs the real python3: the same command, once.

It has no usage of its own: as `python3` it must answer everything, `--help` included, as the
real python3 does (exit codes are the real python3's, or the forked script's).
"""

import array
import json
import os
import signal
import socket
import sys

FORK_FD_VAR = "ARKEVO_FORK_FD"
HERE = os.path.dirname(os.path.abspath(__file__))


def real_python() -> str:
    """The next python3 on PATH after this folder."""
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if folder and os.path.abspath(folder) != HERE:
            candidate = os.path.join(folder, "python3")
            if os.access(candidate, os.X_OK):
                return candidate
    return "/usr/bin/python3"


def clean_environment() -> dict[str, str]:
    """The exec's environment as it was before the launcher offered forks."""
    env = {k: v for k, v in os.environ.items() if k != FORK_FD_VAR}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and os.path.abspath(p) != HERE)
    return env


def forked(agent_fd: int, argv: list[str], env: dict[str, str]) -> int | None:
    """The exit status of argv forked by the fork server, or None when it was not taken."""
    try:
        agent = socket.socket(fileno=os.dup(agent_fd))
    except OSError:
        return None
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        request = json.dumps({"argv": argv, "env": env, "cwd": os.getcwd()}).encode()
        agent.sendmsg([request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                   array.array("i", [theirs.fileno(), 0, 1, 2]))])
        if ours.recv(64) != b"started":
            return None
    except OSError:
        return None
    finally:
        theirs.close()
        agent.close()

    def forward(number, _frame) -> None:
        try:
            ours.send(b"signal %d" % number)
        except OSError:
            pass

    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(number, forward)
    while True:
        try:
            said = ours.recv(64).split()
        except InterruptedError:
            continue
        if len(said) == 2 and said[0] == b"exit" and said[1].isdigit():
            return int(said[1])
        print("arkevo-sandbox: the forked python3 ended without an exit status", file=sys.stderr)
        return 125


def main() -> None:
    argv = sys.argv[:]
    env = clean_environment()
    fd = os.environ.get(FORK_FD_VAR, "")
    script = argv[1] if len(argv) > 1 else ""
    if fd.isdigit() and script.endswith(".py") and not script.startswith("-") \
            and os.path.isfile(script):
        code = forked(int(fd), ["python3", *argv[1:]], env)
        if code is not None:
            sys.stdout.flush()
            os._exit(code)
    python = real_python()
    os.execve(python, [python, *argv[1:]], env)


if __name__ == "__main__":
    main()
