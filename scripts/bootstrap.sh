#!/usr/bin/env bash
# Creates or refreshes .venv from uv.lock. Idempotent: a stamp holding the lock's sha256 makes a
# second run a no-op. Finds Python 3.13 the way DEVELOPERS.md describes (pyenv or Debian 13).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv
STAMP=$VENV/.arkevo-lock-sha256

is_py313() { "$1" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 13) else 1)' >/dev/null 2>&1; }

find_python() {
    local candidates=()
    [ -n "${ARKEVO_PYTHON:-}" ] && candidates+=("$ARKEVO_PYTHON")
    if command -v pyenv >/dev/null 2>&1; then
        candidates+=($(ls -d "$(pyenv root)"/versions/3.13.*/bin/python3.13 2>/dev/null | sort -V -r))
    fi
    candidates+=($(ls -d "$HOME"/.pyenv/versions/3.13.*/bin/python3.13 2>/dev/null | sort -V -r))
    candidates+=(/usr/bin/python3.13 /usr/local/bin/python3.13)
    command -v python3.13 >/dev/null 2>&1 && candidates+=("$(command -v python3.13)")
    for c in "${candidates[@]}"; do
        if [ -x "$c" ] && is_py313 "$c"; then echo "$c"; return 0; fi
    done
    return 1
}

# The `arkevo` console script. The project runs from its root and is not installed as a
# package (pyproject: [tool.uv] package = false), so the script is a small launcher of
# `python -m cli` with the root on PYTHONPATH; written on every run, it follows a moved checkout.
install_cli() {
    local root
    root=$(pwd)
    cat > "$VENV/bin/arkevo" <<SH
#!/bin/sh
# arkevo command line, written by scripts/bootstrap.sh for the checkout at $root
PYTHONPATH="$root\${PYTHONPATH:+:\$PYTHONPATH}" exec "$root/$VENV/bin/python" -m cli "\$@"
SH
    chmod +x "$VENV/bin/arkevo"
}

# ARKEVO_BOOTSTRAP_BYTECODE=later: install without compiling bytecode and leave the stamp
# unwritten, so that the next run compiles it (make test runs that one beside ruff and mypy).
later=${ARKEVO_BOOTSTRAP_BYTECODE:-}
lock_sha=$(sha256sum uv.lock | cut -d' ' -f1)
if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$lock_sha" ]; then
    install_cli
    exit 0
fi

if [ ! -x "$VENV/bin/python" ] || ! is_py313 "$VENV/bin/python"; then
    if ! PY=$(find_python); then
        echo "bootstrap: Python 3.13 not found (bpy 5.2 needs exactly 3.13)." >&2
        echo "  Looked in \$ARKEVO_PYTHON, \$(pyenv root)/versions/3.13.*/bin/python3.13," >&2
        echo "  /usr/bin/python3.13 and python3.13 on PATH." >&2
        echo "  Install it (Debian 13: apt-get install python3.13 python3.13-venv;" >&2
        echo "  pyenv: pyenv install 3.13) or set ARKEVO_PYTHON=/path/to/python3.13." >&2
        exit 1
    fi
    echo "bootstrap: creating $VENV with $PY"
    rm -rf "$VENV"
    "$PY" -m venv "$VENV"
fi

echo "bootstrap: installing locked dependencies (first run takes a few minutes)"
UV_VERSION=0.13.9
# make test's second run (the bytecode) finds it there: no pip start (0.7 s) for nothing.
if [ "$("$VENV/bin/uv" --version 2>/dev/null | cut -d' ' -f2)" != "$UV_VERSION" ]; then
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "uv==$UV_VERSION"
fi
# --inexact keeps uv itself, which the lock does not list. --compile-bytecode: sandboxed
# processes see the venv read-only and Blender never writes bytecode, so without .pyc every
# sandboxed Python and every Blender start compiles its imports again (docs/performance.md).
compile=(--compile-bytecode)
[ "$later" = later ] && compile=()
UV_PROJECT_ENVIRONMENT="$VENV" UV_PYTHON_DOWNLOADS=never \
    "$VENV/bin/uv" sync --frozen --inexact "${compile[@]}" --python "$VENV/bin/python"
if [ "$later" = later ]; then
    install_cli
    echo "bootstrap: installed; bytecode next"
    exit 0
fi
"$VENV/bin/python" -c 'import bpy, temporalio, harbor' \
    || { echo "bootstrap: installed packages do not import" >&2; exit 1; }
# The project's own modules too (sandboxed hosts and probes import them from the checkout).
"$VENV/bin/python" -m compileall -q -j 0 -x '(^|/)(\.venv|var|seeds|\.git)(/|$)' . >/dev/null || true
install_cli
echo "$lock_sha" > "$STAMP"
echo "bootstrap: ready ($("$VENV/bin/python" --version), $("$VENV/bin/temporal" --version | head -1))"
