"""workers.client: Temporal client settings from an envconfig TOML profile and the TEMPORAL_*
variables, under the project's ARKEVO_* variables and a command's arguments; Temporal Cloud
(API key -> TLS); clear errors naming the file; and one real connection to the session's dev
server through a profile file."""

from __future__ import annotations

import uuid

import pytest
from temporalio.api.workflowservice.v1 import GetSystemInfoRequest
from temporalio.service import TLSConfig

from workers.client import (ClientConfigError, ClientConnectError, connect, connect_config,
                            describe, is_cloud_address)

CLOUD = '''
[profile.default]
address = "localhost:7233"
namespace = "default"

[profile.cloud]
address = "arkevo-prod.a1b2c.tmprl.cloud:7233"
namespace = "arkevo-prod.a1b2c"
api_key = "secret-key"

[profile.mtls]
address = "temporal.internal:7233"
namespace = "arkevo"

[profile.mtls.tls]
server_name = "temporal.internal"
server_ca_cert_path = "{ca}"
client_cert_path = "{cert}"
client_key_path = "{key}"

[profile.mtls.grpc_meta]
team = "arkevo"
'''


@pytest.fixture
def profile_file(tmp_path):
    pems = {}
    for name in ("ca", "cert", "key"):
        pems[name] = tmp_path / f"{name}.pem"
        pems[name].write_text(f"-----BEGIN {name.upper()}-----\nAAAA\n-----END {name.upper()}-----\n")
    path = tmp_path / "temporal.toml"
    path.write_text(CLOUD.format(**{k: str(v) for k, v in pems.items()}))
    return path


def env(path=None, **more) -> dict[str, str]:
    """A stand-in environment: HOME in nowhere (no default profile file), no ARKEVO_*."""
    base = {"HOME": "/nonexistent-home"}
    if path is not None:
        base["TEMPORAL_CONFIG_FILE"] = str(path)
    return {**base, **more}


def test_a_cloud_profile_gives_address_namespace_api_key_and_tls(profile_file):
    config = connect_config(environ=env(profile_file, TEMPORAL_PROFILE="cloud"))
    assert config == {"target_host": "arkevo-prod.a1b2c.tmprl.cloud:7233",
                      "namespace": "arkevo-prod.a1b2c", "api_key": "secret-key", "tls": True}
    assert describe(config) == ("arkevo-prod.a1b2c.tmprl.cloud:7233 namespace arkevo-prod.a1b2c "
                                "(TLS, API key)")  # never the key itself


def test_a_tls_profile_reads_its_certificates_and_metadata(profile_file, tmp_path):
    config = connect_config(profile="mtls", config_file=profile_file, environ=env())
    tls = config["tls"]
    assert isinstance(tls, TLSConfig) and tls.domain == "temporal.internal"
    assert tls.server_root_ca_cert == (tmp_path / "ca.pem").read_bytes()
    assert tls.client_cert == (tmp_path / "cert.pem").read_bytes()
    assert tls.client_private_key == (tmp_path / "key.pem").read_bytes()
    assert config["rpc_metadata"] == {"team": "arkevo"}
    assert (config["target_host"], config["namespace"]) == ("temporal.internal:7233", "arkevo")
    assert "api_key" not in config


def test_temporal_variables_override_the_profile_file(profile_file):
    config = connect_config(environ=env(profile_file, TEMPORAL_PROFILE="cloud",
                                        TEMPORAL_NAMESPACE="arkevo-staging.a1b2c",
                                        TEMPORAL_API_KEY="other-key"))
    assert config["namespace"] == "arkevo-staging.a1b2c" and config["api_key"] == "other-key"
    # No file at all: the variables alone, and an API key turns TLS on.
    config = connect_config(environ=env(TEMPORAL_ADDRESS="ns.acct.tmprl.cloud:7233",
                                        TEMPORAL_NAMESPACE="ns.acct", TEMPORAL_API_KEY="k"))
    assert config == {"target_host": "ns.acct.tmprl.cloud:7233", "namespace": "ns.acct",
                      "api_key": "k", "tls": True}
    assert connect_config(environ=env(TEMPORAL_API_KEY="k", TEMPORAL_TLS="false"))["tls"] is False


def test_arkevo_variables_win_over_the_profile_and_arguments_over_both(profile_file):
    environ = env(profile_file, TEMPORAL_PROFILE="cloud", TEMPORAL_ADDRESS="from-temporal:7233",
                  ARKEVO_TEMPORAL_ADDRESS="arkevo-dev.a1b2c.tmprl.cloud:7233",
                  ARKEVO_TEMPORAL_NAMESPACE="arkevo-dev.a1b2c")
    config = connect_config(environ=environ)
    assert (config["target_host"], config["namespace"]) == (
        "arkevo-dev.a1b2c.tmprl.cloud:7233", "arkevo-dev.a1b2c")
    assert config["api_key"] == "secret-key" and config["tls"] is True  # still the profile's
    config = connect_config("other-ns", "127.0.0.1:7999", environ=environ)
    assert (config["target_host"], config["namespace"]) == ("127.0.0.1:7999", "other-ns")


def test_defaults_and_cloud_addresses():
    assert connect_config(environ=env()) == {"target_host": "localhost:7233", "namespace": "default"}
    # A Cloud endpoint never answers in plain text: TLS on even with no key configured here.
    assert connect_config(environ=env(ARKEVO_TEMPORAL_ADDRESS="ns.acct.tmprl.cloud:7233"))["tls"] is True
    assert is_cloud_address("NS.ACCT.TMPRL.CLOUD:7233") and not is_cloud_address("localhost:7233")
    assert describe(connect_config(environ=env())) == "localhost:7233 namespace default (TLS off, no API key)"


@pytest.mark.parametrize("text, words", [
    ('[profile.default\naddress = "x:1"\n', "TOML parse error"),
    ('[profile.default]\nadress = "x:1"\n', "unknown field `adress`"),
    ('[profile.default.tls]\nclient_cert = "/c.pem"\n', "unknown field `client_cert`"),
])
def test_a_bad_profile_file_is_an_error_naming_the_file(tmp_path, text, words):
    path = tmp_path / "broken.toml"
    path.write_text(text)
    with pytest.raises(ClientConfigError) as e:
        connect_config(environ=env(path))
    assert f"Temporal client profile file {path}" in str(e.value) and words in str(e.value)


def test_missing_files_and_profiles_are_errors(tmp_path, profile_file):
    missing = tmp_path / "nope.toml"
    with pytest.raises(ClientConfigError, match=f"TEMPORAL_CONFIG_FILE {missing} does not exist"):
        connect_config(environ=env(missing))
    with pytest.raises(ClientConfigError, match=f"the client profile file {missing} does not exist"):
        connect_config(config_file=missing, environ=env())
    with pytest.raises(ClientConfigError, match=f"{profile_file}: profile 'prod'"):
        connect_config(environ=env(profile_file, TEMPORAL_PROFILE="prod"))
    (tmp_path / "key.pem").unlink()
    with pytest.raises(ClientConfigError, match=f"file {profile_file}: TLS file {tmp_path / 'key.pem'}"):
        connect_config(profile="mtls", environ=env(profile_file))


@pytest.mark.temporal
async def test_a_real_connection_through_a_profile_file(temporal_env, tmp_path):
    path = tmp_path / "temporal.toml"
    path.write_text(f'[profile.local]\naddress = "127.0.0.1:{temporal_env.port}"\n'
                    'namespace = "default"\n[profile.local.tls]\ndisabled = true\n')
    client = await connect(environ=env(path, TEMPORAL_PROFILE="local"),
                           identity=f"test-{uuid.uuid4().hex[:6]}")
    assert client.namespace == "default"
    assert client.service_client.config.target_host == f"127.0.0.1:{temporal_env.port}"
    info = await client.workflow_service.get_system_info(GetSystemInfoRequest())
    assert info.server_version
    # The ARKEVO_ override sends the same profile elsewhere: nothing listens there.
    with pytest.raises(ClientConnectError, match=r"127\.0\.0\.1:1 namespace default \(TLS off"):
        await connect(environ=env(path, TEMPORAL_PROFILE="local", ARKEVO_TEMPORAL_ADDRESS="127.0.0.1:1"))


def test_the_default_profile_file_is_found_and_named_in_errors(tmp_path):
    default = tmp_path / "xdg" / "temporalio" / "temporal.toml"
    default.parent.mkdir(parents=True)
    default.write_text('[profile.default]\naddress = "temporal.lan:7233"\nnamespace = "arkevo"\n')
    environ = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert connect_config(environ=environ) == {"target_host": "temporal.lan:7233", "namespace": "arkevo"}
    default.write_text('[profile.default]\naddress = \n')
    with pytest.raises(ClientConfigError, match=f"Temporal client profile file {default}: "):
        connect_config(environ=environ)
