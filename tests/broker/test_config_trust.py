"""A config dir, token or broker.yaml that another user owns or can write is refused, with the
fix (issue 29, item 14): in a 0777 config dir a token and a broker.yaml planted by another user
were accepted, and the planted server command ran as the service's user. Run as root (CI and
these machines are), so the test can chown to another uid."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
import yaml

from neuralgentics.broker.config import ConfigError, load_config
from neuralgentics.broker.service import Broker
from neuralgentics.config import Settings, get_settings
from neuralgentics.credentials import CredentialError, client_token, ensure_token
from tests.broker.conftest import PY, cli

OTHER = 4242  # a uid that is not ours


@pytest.fixture
def as_root() -> None:
    if os.geteuid() != 0:
        pytest.fail("this test chowns files to another user: it runs as root (as CI does)")


def _plant(home: Path, marker: Path) -> Path:
    """What another user leaves in a shared config dir: a token and a broker.yaml whose server
    command writes ``marker`` when it runs."""
    config = home / "config"
    config.mkdir(exist_ok=True)
    (config / "token").write_text("planted-token-0123456789\n")
    os.chmod(config / "token", 0o600)
    script = f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')"
    (config / "broker.yaml").write_text(
        yaml.safe_dump(
            {
                "servers": {"evil": {"command": PY, "args": ["-c", script]}},
                "roles": {"r": {"allow": ["evil/*"]}},
            }
        )
    )
    return config


def test_a_world_writable_config_dir_is_refused_and_nothing_runs(home: Path, as_root) -> None:
    marker = home / "ran"
    config = _plant(home, marker)
    os.chmod(config, 0o777)
    r = cli("broker", "refresh")
    assert r.returncode == 2
    assert f"the directory {config} of the broker config is writable by other users" in r.stderr
    assert f"chmod go-w {config}" in r.stderr
    assert not marker.exists()
    with pytest.raises(CredentialError, match="writable by other users .mode 777"):
        client_token(get_settings())
    with pytest.raises(CredentialError, match="chmod go-w"):
        ensure_token(get_settings())

    os.chmod(config, 0o700)  # the fix the message names
    assert client_token(get_settings()) == "planted-token-0123456789"


def test_files_another_user_owns_or_can_write_are_refused(home: Path, as_root) -> None:
    marker = home / "ran"
    config = _plant(home, marker)
    os.chmod(config, 0o700)
    os.chown(config / "broker.yaml", OTHER, OTHER)
    os.chown(config / "token", OTHER, OTHER)
    with pytest.raises(ConfigError, match=f"is owned by another user .uid {OTHER}, you are 0"):
        load_config(config / "broker.yaml")
    with pytest.raises(CredentialError, match=f"chown 0 {config / 'token'}"):
        client_token(get_settings())

    async def start() -> None:
        async with Broker.open(config / "broker.yaml", settings=Settings()):
            pass

    with pytest.raises(ConfigError, match="owned by another user"):
        anyio.run(start)
    assert not marker.exists()

    os.chown(config / "broker.yaml", 0, 0)
    os.chmod(config / "broker.yaml", 0o666)
    r = cli("broker", "check")
    assert r.returncode == 2 and "is writable by other users (mode 666)" in r.stderr
    os.chmod(config / "broker.yaml", 0o644)
    assert "evil" in load_config(config / "broker.yaml").servers


def test_a_config_dir_another_user_owns_is_refused(home: Path, as_root) -> None:
    config = _plant(home, home / "ran")
    os.chmod(config, 0o755)
    os.chown(config, OTHER, OTHER)
    with pytest.raises(ConfigError, match=f"the directory {config} of the broker config is owned"):
        load_config(config / "broker.yaml")
    with pytest.raises(CredentialError, match="owned by another user"):
        ensure_token(get_settings())


def test_a_sticky_shared_dir_like_tmp_is_fine_for_a_file_of_ours(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    (shared / "broker.yaml").write_text("servers: {}\nroles: {}\n")
    assert load_config(shared / "broker.yaml").servers == {}


def test_the_config_dir_broker_add_creates_is_private(home: Path) -> None:
    r = cli("broker", "add", "time", "--", PY, "-m", "mcp_server_time")
    assert r.returncode == 0, r.stderr
    assert (home / "config").stat().st_mode & 0o077 == 0
