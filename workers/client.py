"""One way to connect a Temporal client: `connect()`. Workers, the `arkevo` command, the demo and
the tests all go through it (docs/operations.md, "Client configuration").

Each setting is taken from the first of these that has it:

1. the arguments (a command's `--address` / `--namespace`);
2. `ARKEVO_TEMPORAL_ADDRESS`, `ARKEVO_TEMPORAL_NAMESPACE` (this project's own variables);
3. Temporal's environment configuration (`temporalio.envconfig`), which is itself the
   `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS*` and
   `TEMPORAL_GRPC_META_*` variables over the profile `TEMPORAL_PROFILE` (default `default`) of
   the TOML file `TEMPORAL_CONFIG_FILE` (default `~/.config/temporalio/temporal.toml`);
4. `localhost:7233`, namespace `default`.

TLS is what the profile says; an API key turns it on unless the profile disables it
(envconfig's rule), and so does a Temporal Cloud address (`*.tmprl.cloud`), which never answers
in plain text. The profile file is read strictly: a file that is not TOML, a misspelt key (a
`client_cert` where envconfig reads `client_cert_path` would otherwise connect without the
certificate), a named file or profile that does not exist all raise `ClientConfigError` naming
the file.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from temporalio.client import Client
from temporalio.envconfig import ClientConfigProfile
from temporalio.runtime import Runtime

DEFAULT_ADDRESS = "localhost:7233"
DEFAULT_NAMESPACE = "default"
CLOUD_SUFFIX = ".tmprl.cloud"


class ClientConfigError(RuntimeError):
    """The Temporal client settings cannot be read (names the file or the variable). A
    RuntimeError, as the SDK's own connection failure, so callers handle both alike."""


class ClientConnectError(RuntimeError):
    """The server named by the settings did not answer (the message names where it looked)."""


def default_config_file(environ: Mapping[str, str] | None = None) -> Path:
    """Where envconfig looks for the profile file when `TEMPORAL_CONFIG_FILE` is unset: the
    platform's configuration folder (Rust `dirs::config_dir`) + `temporalio/temporal.toml`."""
    environ = os.environ if environ is None else environ
    home = Path(environ.get("HOME") or Path.home())
    if sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    elif sys.platform == "win32":
        base = Path(environ.get("APPDATA") or home / "AppData" / "Roaming")
    else:
        base = Path(environ.get("XDG_CONFIG_HOME") or home / ".config")
    return base / "temporalio" / "temporal.toml"


def profile_file(config_file: str | Path | None = None,
                 environ: Mapping[str, str] | None = None) -> tuple[Path, bool]:
    """The profile file to read and whether it was named (an argument or
    `TEMPORAL_CONFIG_FILE`): a named file must exist, the default one may be absent."""
    environ = os.environ if environ is None else environ
    named = config_file or environ.get("TEMPORAL_CONFIG_FILE")
    if named:
        return Path(named).expanduser(), True
    return default_config_file(environ), False


def load_profile(profile: str | None = None, *, config_file: str | Path | None = None,
                 environ: Mapping[str, str] | None = None) -> tuple[ClientConfigProfile, Path | None]:
    """The envconfig profile (file + `TEMPORAL_*` overrides) and the file it came from (None:
    no file). `environ` stands in for os.environ (tests)."""
    environ = dict(os.environ if environ is None else environ)
    path, named = profile_file(config_file, environ)
    name = profile or environ.get("TEMPORAL_PROFILE") or None
    if named and not path.is_file():
        source = "TEMPORAL_CONFIG_FILE" if not config_file else "the client profile file"
        raise ClientConfigError(f"{source} {path} does not exist")
    exists = path.is_file()
    try:
        loaded = ClientConfigProfile.load(
            name, config_source=path if exists else None, disable_file=not exists,
            config_file_strict=True, override_env_vars=environ)
    except Exception as exc:  # the bridge's ConfigError: TOML syntax, unknown key, no profile
        where = f"Temporal client profile file {path}" if exists else \
            f"Temporal client settings (no profile file at {path})"
        detail = str(exc).strip()
        if name:
            detail = f"profile {name!r}: {detail}"
        raise ClientConfigError(f"{where}: {detail}") from exc
    return loaded, path if exists else None


def connect_config(namespace: str | None = None, address: str | None = None, *,
                   profile: str | None = None, config_file: str | Path | None = None,
                   environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Keyword arguments for `Client.connect` (`target_host`, `namespace`, and when set
    `api_key`, `tls`, `rpc_metadata`), resolved in the order of the module's docstring.
    `environ` stands in for os.environ, `config_file` for TEMPORAL_CONFIG_FILE, `profile` for
    TEMPORAL_PROFILE."""
    environ = os.environ if environ is None else environ
    loaded, path = load_profile(profile, config_file=config_file, environ=environ)
    try:  # reads the certificate files the profile names
        config: dict[str, Any] = dict(loaded.to_client_connect_config())
    except OSError as exc:
        raise ClientConfigError(f"Temporal client profile{f' file {path}' if path else ''}: "
                                f"TLS file {exc.filename}: {exc.strerror}") from exc
    if value := environ.get("ARKEVO_TEMPORAL_ADDRESS"):
        config["target_host"] = value
    if value := environ.get("ARKEVO_TEMPORAL_NAMESPACE"):
        config["namespace"] = value
    if address:
        config["target_host"] = address
    if namespace:
        config["namespace"] = namespace
    config.setdefault("target_host", DEFAULT_ADDRESS)
    config.setdefault("namespace", DEFAULT_NAMESPACE)
    if "tls" not in config and is_cloud_address(config["target_host"]):
        config["tls"] = True
    return config


def is_cloud_address(address: str) -> bool:
    """A Temporal Cloud namespace endpoint, `<namespace>.<account>.tmprl.cloud:7233`."""
    host = address.rsplit(":", 1)[0] if address.count(":") == 1 else address
    return host.lower().rstrip(".").endswith(CLOUD_SUFFIX)


def describe(config: Mapping[str, Any]) -> str:
    """Where a config connects, for logs: never the API key or certificate bytes."""
    tls = config.get("tls")
    tls_text = "TLS off" if not tls else "TLS" if tls is True else \
        "TLS (client certificate)" if getattr(tls, "client_cert", None) else "TLS"
    key = "API key" if config.get("api_key") else "no API key"
    return f"{config.get('target_host')} namespace {config.get('namespace')} ({tls_text}, {key})"


async def connect(namespace: str | None = None, address: str | None = None, *,
                  runtime: Runtime | None = None, profile: str | None = None,
                  config_file: str | Path | None = None, environ: Mapping[str, str] | None = None,
                  **kwargs: Any) -> Client:
    """A connected client (see the module docstring for where its settings come from).

    `runtime`: the SDK runtime the client (and every worker built on it) uses; the workers'
    carries the Prometheus exporter (observability.telemetry.worker_runtime). Other keyword
    arguments go to `Client.connect` as they are (data_converter, interceptors, identity...)
    and win over the resolved settings."""
    config = connect_config(namespace, address, profile=profile, config_file=config_file,
                            environ=environ)
    config.update(kwargs)
    if runtime is not None:
        config["runtime"] = runtime
    target = config.pop("target_host")
    try:
        return await Client.connect(target, **config)
    except RuntimeError as exc:  # the SDK's "Failed client connect: ..."
        raise ClientConnectError(f"{exc} ({describe({**config, 'target_host': target})})") from exc


def exit_process(code: int):
    """End a process that used a Temporal client with `code`, skipping interpreter teardown:
    the SDK runtime's threads can crash CPython's finalization (SIGSEGV or SIGABRT at exit,
    temporalio/sdk-python#300), which would turn any status into 139 or 134. Logs and output
    are flushed first."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
