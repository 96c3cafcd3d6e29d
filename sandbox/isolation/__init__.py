"""Isolation layers of the trial sandbox, one per module:

- settings.py  the environment's kwargs (pydantic)
- host.py      can this host run it (root, Landlock, bwrap, cgroups, user namespaces)
- slots.py     per-slot users arkevo-slot-N and folders, locked and wiped per trial
- cgroups.py   per-trial memory/pids (cpu) limits; kill everything at the end
- trialns.py   the trial's shared namespaces: network (only `lo`) and pid (with a reaper init)
- bwrap.py     the mount view, as bwrap arguments and the matching Landlock rules
- layout.py    container paths (/workspace, /tests, /logs...) -> slot folders
- landlock.py  Landlock via ctypes syscalls (standalone: runs inside the sandbox)
- launcher.py  runs inside bwrap: cgroup, netns, rlimits, no_new_privs, uid drop, userns,
               Landlock, exec (standalone); or hands the launch to the fork server
- forkserver.py          the worker's side of the fork server: start it, give launches a channel
- forkserver_process.py  the fork server: bpy imported once, forks it into a launch's sandbox
- fork_python.py         a verifier exec's `python3`: has `python3 script.py` forked (standalone)
- trial.py     one trial's sandbox: open, launch processes, close
- taskimage.py what of a task's environment/ (Dockerfile COPY/ENV/WORKDIR) the sandbox honours
- execlog.py   the per-trial JSONL record of every exec on the host side
"""
