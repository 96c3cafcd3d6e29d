"""Every entry point answers `--help` with its usage and exit codes, and an unknown option with
exit 2, and does nothing else: no file written anywhere in the project or under ARKEVO_VAR or
HOME, no process left behind, no server started (the demo would start the Temporal dev server
on ARKEVO_TEMPORAL_PORT, in a session of its own: found by the environment it inherits).

Each runs as a subprocess, as a user runs it, in a copy of the checkout without var/: anything
written (a var/ folder, a summary, bytecode) shows as a changed tree."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contracts.entry_points import EXIT_NOT_A_COMMAND, has_main_guard
from workers.settings import PROJECT_ROOT
from workers.stack import free_port

# name -> (the command after the interpreter, arguments that would pass the parser: an unknown
# option next to them is the only mistake)
ENTRY_POINTS = {
    "workers": (["-m", "workers"], ["control"]),
    "cli.demo": (["-m", "cli.demo"], []),
    "workers.stack": (["-m", "workers.stack"], ["status"]),
    "workers.promote": (["-m", "workers.promote"], []),
    "verifiers.score_delivery": (["-m", "verifiers.score_delivery"], ["--blend", "x.blend", "--task-dir", "t"]),
    "verifiers.calibration": (["-m", "verifiers.calibration"], ["--task-dir", "t", "--out", "o"]),
    "verifiers.start_scene": (["-m", "verifiers.start_scene"], ["--task-dir", "t"]),
    "arkevo": (["-m", "cli"], ["dataset", "verify", "--namespace", "n", "--revision", "r"]),
    "deploy.deploy_test": (["-m", "deploy.deploy_test"], []),
    "tests.orchestration.test_replay": (["-m", "tests.orchestration.test_replay"], ["--record"]),
    "bench/grader_cost.py": (["bench/grader_cost.py"], []),
    "bench/load.py": (["bench/load.py"], []),
    "bench/probe_throughput.py": (["bench/probe_throughput.py"], []),
    "bench/render_time.py": (["bench/render_time.py"], []),
    "bench/sandbox_overhead.py": (["bench/sandbox_overhead.py"], []),
    "bench/site_build.py": (["bench/site_build.py"], ["--dataset", "demo/r1"]),
    "bench/trial_breakdown.py": (["bench/trial_breakdown.py"], []),
    "bench/campaign_vs_harbor.py": (["bench/campaign_vs_harbor.py"], []),
}
# Modules with a __main__ guard that are no user's command: scripts the pipeline runs (in
# Blender, in the sandbox, in the deploy test). Each still answers --help with its usage.
INTERNAL = ("blender.apply_script", "blender.build_workspace", "contracts.json_schemas", "deploy.harbor_docker",
            "deploy.object_store_setup", "deploy.stack_probe", "privacy.blend_text", "sandbox.isolation.launcher",
            "sandbox.isolation.fork_python", "sandbox.isolation.forkserver_process", "sandbox.isolation.trialns", "sandbox.runtime.blender_mcp_host", "verifiers.packaged_grade",
            "verifiers.probe_and_render", "verifiers.probe_server", "verifiers.render_evidence", "verifiers.rule_probe",
            "verifiers.scene_snapshot")
# Run through another name: `python -m cli` / `python -m workers`.
ALIASED = ("cli.__main__", "cli.arkevo", "workers.__main__")
# The `arkevo` command's subcommands: each has its own --help with its own exit codes.
ARKEVO_COMMANDS = [["dataset", c] for c in ("start", "status", "freeze-check", "freeze", "verify")] + \
    [["campaign", c] for c in ("start", "status", "report", "recover", "resume")] + \
    [["site", "build"], ["export", "task"], ["export", "split"], ["verifier", "drift"]] + \
    [["seed", c] for c in ("new", "check", "measure", "calibrate", "submit")]
SECONDS = 20  # a --help imports the modules and prints; the demo's stack start alone takes longer


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """{path: (mtime, size)} of everything under `root`, one stat each (taken twice per run)."""
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            st = os.lstat(os.path.join(folder, name))
            found[os.path.relpath(os.path.join(folder, name), root)] = (st.st_mtime_ns, st.st_size)
    return found


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """The project's code without var/, .venv, bytecode or the linters' caches (mypy's alone is
    two thirds of the files once `make test` has run it)."""
    dest = tmp_path_factory.mktemp("checkout") / "arkevo"
    shutil.copytree(PROJECT_ROOT, dest, symlinks=True, ignore=shutil.ignore_patterns(
        ".venv", "var", ".git", "__pycache__", "*.pyc", ".pytest_cache", ".mypy_cache", ".ruff_cache"))
    return dest


def _started_by(var: Path) -> list[int]:
    """Live processes whose environment holds ARKEVO_VAR=<var> (this run's own folder)."""
    mark = b"\0" + f"ARKEVO_VAR={var}".encode() + b"\0"
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError):
                if mark in b"\0" + (proc / "environ").read_bytes() + b"\0":
                    found.append(int(proc.name))
    return found


def run_isolated(argv: list[str], checkout: Path, tmp_path: Path,
                 home_may_hold: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """Runs `argv` in the copy with a fresh ARKEVO_VAR, HOME and Temporal ports, and asserts
    that it left nothing behind: the tree, the var and home folders as they were (but for
    `home_may_hold`), no process of its group alive, no process it started (in any session)
    still running."""
    var, home = tmp_path / "var", tmp_path / "home"
    var.mkdir()
    home.mkdir()
    port, ui_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARKEVO_", "TEMPORAL_"))
           and k != "PYTHONPATH"}
    env.update(ARKEVO_VAR=str(var), HOME=str(home), PYTHONDONTWRITEBYTECODE="1",
               ARKEVO_TEMPORAL_PORT=str(port), ARKEVO_TEMPORAL_UI_PORT=str(ui_port),
               ARKEVO_TEMPORAL_ADDRESS=f"127.0.0.1:{port}", COLUMNS="100")
    before = _snapshot(checkout)
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=checkout, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, stdin=subprocess.DEVNULL)
    try:
        out, err = proc.communicate(timeout=SECONDS)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):  # it may be gone, its detached child not
            os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail(f"{' '.join(argv[1:])}: still running after {SECONDS}s, or it left a process "
                    "that holds its output")
    seconds = time.monotonic() - started
    done = subprocess.CompletedProcess(argv, proc.returncode, out, err)
    what = f"{' '.join(argv[1:])}: exit {done.returncode} in {seconds:.1f}s\n{out[-2000:]}{err[-2000:]}"
    with pytest.raises(ProcessLookupError):  # its process group: nothing it started still runs
        os.killpg(proc.pid, 0)
    # a server it started in a session of its own carries its environment (another lane's
    # server may well listen on a port picked here: a port alone proves nothing)
    assert not _started_by(var), f"a process it started still runs: {what}"
    assert list(var.iterdir()) == [], f"wrote under ARKEVO_VAR: {what}"
    assert [p for p in home.iterdir() if p.name not in home_may_hold] == [], f"wrote under HOME: {what}"
    changed = {k for k in _snapshot(checkout).items() ^ before.items()}
    assert not changed, f"changed the checkout ({sorted(changed)[:5]}): {what}"
    return done


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_help_prints_usage_and_exit_codes_and_does_nothing_else(name, checkout, tmp_path):
    command, _ = ENTRY_POINTS[name]
    done = run_isolated([sys.executable, *command, "--help"], checkout, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:"), done.stdout[:500]
    assert "exit codes:" in done.stdout and "  0  " in done.stdout and "  2  " in done.stdout, done.stdout
    assert done.stderr == ""


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_an_unknown_option_exits_2_naming_it(name, checkout, tmp_path):
    command, valid = ENTRY_POINTS[name]
    done = run_isolated([sys.executable, *command, *valid, "--no-such-option"], checkout, tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "usage:" in done.stderr and "unrecognized arguments: --no-such-option" in done.stderr, done.stderr


def _package_modules() -> dict[str, bool]:
    """{module: has a `__main__` guard} of every project module (tests, benchmarks and seeds
    aside; a package's `__init__` is no module of its own to run)."""
    out = {}
    for path in PROJECT_ROOT.glob("*/**/*.py"):
        rel = path.relative_to(PROJECT_ROOT)
        if rel.parts[0] in ("tests", "bench", "seeds", "var", "scripts", "node_modules") or rel.parts[0].startswith("."):
            continue
        if rel.name != "__init__.py":
            out[".".join(rel.with_suffix("").parts)] = has_main_guard(path.read_text(encoding="utf-8", errors="replace"))
    return out


def _guarded_modules() -> set[str]:
    return {module for module, guarded in _package_modules().items() if guarded}


def test_every_module_that_can_be_run_is_an_entry_point_or_an_internal_script():
    """A module that can be run is tested here: with its usage and exit codes (ENTRY_POINTS) or,
    for the pipeline's own scripts, with its usage (INTERNAL)."""
    packages = {"cli", "workers"}  # their __main__ modules are ALIASED
    listed = {c[1] for c, _ in ENTRY_POINTS.values() if c[0] == "-m" and not c[1].startswith("tests.")}
    assert _guarded_modules() == (listed - packages) | set(INTERNAL) | set(ALIASED)


def test_every_other_module_says_it_is_not_a_command(checkout):
    """`python -m X` of a module without a guard would import it and exit 0 in silence, which
    reads as a pass. Every top-level package's __init__ refuses it (contracts/entry_points.py):
    checked for each package, then run for one module of each package and of each subpackage
    (the refusal is the package's, so one run shows it for all its modules): it says it is not
    a command, names the commands, exits 2, writes nothing."""
    modules = sorted(m for m, guarded in _package_modules().items() if not guarded)
    assert len(modules) > 100 and "verifiers.seed_check" in modules  # the walk found the tree
    packages = {m.split(".")[0] for m in modules}
    for package in packages:
        init = (PROJECT_ROOT / package / "__init__.py").read_text(encoding="utf-8")
        assert "refuse_non_command(__name__, __path__)" in init, f"{package}/__init__.py does not refuse"
    one_each = {m.rsplit(".", 1)[0]: m for m in modules}  # the last module of each (sub)package
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONDONTWRITEBYTECODE": "1"}
    before = _snapshot(checkout)
    wrong = []
    for module in sorted(one_each.values()):
        done = subprocess.run([sys.executable, "-m", module, "--help"], cwd=checkout, env=env,
                              capture_output=True, text=True, timeout=SECONDS, stdin=subprocess.DEVNULL)
        if (done.returncode, done.stdout) != (EXIT_NOT_A_COMMAND, "") or \
                f"python -m {module}: not a command" not in done.stderr or "arkevo" not in done.stderr:
            wrong.append(f"{module}: exit {done.returncode} {done.stdout[-300:]}{done.stderr[-300:]}")
    assert not wrong, "\n".join(wrong)
    assert len(one_each) >= len(packages) and _snapshot(checkout) == before


def test_the_module_a_user_tried_for_a_seed_check_names_the_command(checkout):
    done = subprocess.run([sys.executable, "-m", "verifiers.seed_check", "seeds/table-model"], cwd=checkout,
                          capture_output=True, text=True, timeout=SECONDS)
    assert done.returncode == EXIT_NOT_A_COMMAND and "arkevo seed check DIR" in done.stderr, done.stderr


@pytest.mark.parametrize("module", INTERNAL)
def test_an_internal_script_answers_help_and_does_nothing_else(module, checkout, tmp_path):
    # a script that runs in Blender imports bpy first, and Blender makes ~/.cache/thumbnails
    done = run_isolated([sys.executable, "-m", module, "--help"], checkout, tmp_path, home_may_hold=(".cache",))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("usage:"), done.stdout[:500]


@pytest.mark.parametrize("command", ARKEVO_COMMANDS, ids=" ".join)
def test_each_arkevo_command_lists_its_exit_codes(command, capsys):
    """In process (the parser writes nothing; the subprocess tests above prove it for one)."""
    from cli.arkevo import main

    with pytest.raises(SystemExit) as e:
        main([*command, "--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0
    assert out.startswith(f"usage: arkevo {' '.join(command)}") and "exit codes:\n  0  " in out, out


def test_the_arkevo_launcher_runs_the_cli():
    """`arkevo` as the set-up installs it: a launcher of `python -m cli` in .venv/bin
    (scripts/bootstrap.sh; the project is not installed as a package)."""
    launcher = Path(sys.prefix) / "bin" / "arkevo"
    if not launcher.is_file():
        pytest.skip(f"no {launcher}: scripts/bootstrap.sh (make venv) writes it")
    done = subprocess.run([str(launcher), "--help"], capture_output=True, text=True, timeout=SECONDS,
                          env={**os.environ, "ARKEVO_VAR": "/nonexistent/arkevo-var"})
    assert done.returncode == 0 and done.stdout.startswith("usage: arkevo "), done.stdout + done.stderr
