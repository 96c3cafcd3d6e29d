"""Slot users take uid_base + N when a uid range is set (ARKEVO_SANDBOX_UID_BASE): slot cleanup
kills every process of a slot's uid it can see, so the worker image's sandboxes and the host's
must not share uids (the deploy test runs one beside the other). Creates and removes real users."""

from __future__ import annotations

import os
import pwd
import random
import shutil
import signal
import subprocess

import pytest

from sandbox.isolation.settings import SandboxSettings
from sandbox.isolation.slots import SlotPool, SlotUnavailable

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("useradd") is None,
                                reason="creating slot users needs root and useradd")


@pytest.fixture
def pool(tmp_path):
    prefix = f"arkevo-uidt{random.randrange(10**4)}-"
    base = random.randrange(1_500_000, 1_900_000, 100)
    made = SlotPool(tmp_path / "base", 2, prefix, lock_dir=tmp_path / "locks", uid_base=base)
    (tmp_path / "locks").mkdir()
    yield made
    for index in range(3):
        subprocess.run(["userdel", made.user_name(index)], capture_output=True)
        subprocess.run(["groupdel", made.user_name(index)], capture_output=True)


def test_slot_users_take_the_uid_range(pool):
    assert pool.ensure_user(0) == (pool.uid_base, pool.uid_base)
    assert pool.ensure_user(1) == (pool.uid_base + 1, pool.uid_base + 1)
    assert pool.ensure_user(1) == (pool.uid_base + 1, pool.uid_base + 1)  # found, not made again
    assert pwd.getpwnam(pool.user_name(1)).pw_shell == "/usr/sbin/nologin"


def test_an_existing_user_outside_the_range_is_refused_by_name(pool):
    subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", pool.user_name(2)],
                   check=True, capture_output=True)
    with pytest.raises(SlotUnavailable, match=rf"{pool.user_name(2)} has uid \d+, not {pool.uid_base + 2}"):
        pool.ensure_user(2)


def test_the_range_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("ARKEVO_SANDBOX_UID_BASE", "900000")
    assert SandboxSettings().uid_base == 900000
    monkeypatch.delenv("ARKEVO_SANDBOX_UID_BASE")
    assert SandboxSettings().uid_base is None
    monkeypatch.setenv("ARKEVO_SANDBOX_UID_BASE", "lots")
    with pytest.raises(ValueError, match="ARKEVO_SANDBOX_UID_BASE='lots'"):
        SandboxSettings()


def test_user_pids_sees_a_uid_by_real_effective_or_saved_id_and_skips_zombies():
    """The /proc scan behind every slot wipe, on live processes: a child that dropped to a
    uid by each of its three ids is found; one that exited and was not reaped is not."""
    from sandbox.isolation.slots import user_pids

    uid = random.randrange(1_900_000, 1_990_000)
    children = {}
    for kind, ids in (("real", (uid, 0, 0)), ("effective", (0, uid, 0)), ("saved", (0, 0, uid))):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: take the ids, say so, wait to be killed
            os.close(read)
            os.setresuid(*ids)
            os.write(write, b"x")
            os.pause()
        os.close(write)
        assert os.read(read, 1) == b"x"
        os.close(read)
        children[kind] = pid
    zombie = os.fork()
    if zombie == 0:
        os.setresuid(uid, uid, uid)
        os._exit(0)
    try:
        os.waitid(os.P_PID, zombie, os.WEXITED | os.WNOWAIT)  # exited, left unreaped: a zombie
        assert sorted(user_pids(uid)) == sorted(children.values())
    finally:
        for pid in children.values():
            os.kill(pid, signal.SIGKILL)
        for pid in [*children.values(), zombie]:
            os.waitpid(pid, 0)
    assert user_pids(uid) == []
