"""Where the commands reach our own services (issue 33, item 2): one URL per service in
`Settings` (NEURALGENTICS_SERVICE_URL / NEURALGENTICS_BROKER_URL, else host and ports), honoured
by every command that reaches the broker, and a service that is not there answered with the
unavailable message and exit code."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import neuralgentics

from neuralgentics.config import Settings
from neuralgentics.opencode import installer, tui
from reliability.broker_proc import serving, time_server, write_config
from reliability.memini_proc import free_port


def _env(home: Path, **extra: str) -> dict[str, str | None]:
    env: dict[str, str | None] = {
        "NEURALGENTICS_HOME": str(home / "home"),
        "NEURALGENTICS_CONFIG_DIR": str(home / "config"),
        "NEURALGENTICS_TOKEN": None,
        "NEURALGENTICS_HOST": None,
        "NEURALGENTICS_SERVICE_URL": None,
        "NEURALGENTICS_BROKER_URL": None,
    }
    return env | extra


def test_the_broker_url_is_the_setting_else_the_host_on_the_broker_port() -> None:
    assert Settings(broker_url="http://10.1.2.3:9999/").broker_base_url == "http://10.1.2.3:9999"
    assert Settings(broker_port=18901).broker_base_url == "http://127.0.0.1:18901"
    # `neuralgentics up` serves the broker on memini-core's host; a wildcard is reached on loopback
    assert Settings(host="0.0.0.0", broker_port=18901).broker_base_url == "http://127.0.0.1:18901"
    assert Settings(host="::1", broker_port=18901).broker_base_url == "http://[::1]:18901"
    assert Settings(host="10.0.0.5", broker_port=18901).broker_base_url == "http://10.0.0.5:18901"


def test_both_plugins_are_told_the_broker_url_the_settings_name(tmp_path: Path) -> None:
    """The TUI's options took 127.0.0.1 and the broker port whatever NEURALGENTICS_BROKER_URL
    said; the server plugin's options and the remote MCP entry honoured it."""
    s = Settings(home=tmp_path, config_dir=tmp_path / "c", broker_url="http://10.1.2.3:9999/")
    assert installer.plugin_options(s, "http")["broker_url"] == "http://10.1.2.3:9999"
    assert installer.broker_entry(s, "http")["url"] == "http://10.1.2.3:9999/mcp"
    assert tui.plugin_options(s, "http")["broker_url"] == "http://10.1.2.3:9999"


def test_broker_commands_reload_the_broker_at_NEURALGENTICS_BROKER_URL(tmp_path: Path) -> None:
    """`broker add` / `broker remove` nudge the running broker at the configured URL — not at
    127.0.0.1 on the broker port, which here has nothing listening."""
    config = write_config(tmp_path / "broker.yaml", {"time": time_server()})
    with serving(config, tmp_path) as (base, _):
        env = _env(
            tmp_path,
            NEURALGENTICS_BROKER_URL=base + "/",
            NEURALGENTICS_BROKER_PORT=str(free_port()),
        )
        added = neuralgentics(
            "broker", "add", "extra", "--config", str(config), "--url", "http://127.0.0.1:9/mcp",
            env=env,
        )  # fmt: skip
        assert added.returncode == 0, added.stdout + added.stderr
        assert f"running broker at {base} reloaded" in added.stdout
        removed = neuralgentics("broker", "remove", "extra", "--config", str(config), env=env)
        assert removed.returncode == 0, removed.stdout + removed.stderr
        assert f"running broker at {base} reloaded" in removed.stdout


def test_doctor_checks_the_broker_at_NEURALGENTICS_BROKER_URL(tmp_path: Path) -> None:
    config = write_config(tmp_path / "broker.yaml", {"time": time_server()})
    with serving(config, tmp_path) as (base, _):
        env = _env(
            tmp_path,
            NEURALGENTICS_PORT=str(free_port()),
            NEURALGENTICS_BROKER_PORT=str(free_port()),
            NEURALGENTICS_BROKER_URL=base,
        )
        done = neuralgentics(
            "doctor", "--json", "--no-model", "--no-servers", "--project", str(tmp_path), env=env
        )
    checks = {c["name"]: c for c in json.loads(done.stdout)}
    broker = checks["broker (http)"]
    assert broker["status"] == "ok" and base in broker["detail"], broker


def test_the_dashboard_forwards_to_the_broker_at_NEURALGENTICS_BROKER_URL(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from neuralgentics.app.core import create_app

    token = "service-urls-token"
    config = write_config(tmp_path / "broker.yaml", {"time": time_server()})
    with serving(config, tmp_path, {"NEURALGENTICS_TOKEN": token}) as (base, _):
        s = Settings(
            home=tmp_path / "memini",
            config_dir=tmp_path / "memini-config",
            token=token,
            broker_port=free_port(),  # nothing there: only the URL reaches the broker
            broker_url=base,
        )
        with TestClient(create_app(s)) as client:
            auth = {"Authorization": f"Bearer {token}"}
            assert client.get("/ui/api/info", headers=auth).json()["broker_url"] == base
            servers = client.get("/ui/api/broker/servers", headers=auth)
            assert servers.status_code == 200, servers.text
            assert [row["name"] for row in servers.json()] == ["time"]


def test_a_broker_that_is_not_running_leaves_the_edit_made_and_says_nothing(
    tmp_path: Path,
) -> None:
    """The reload nudge is best effort: with nothing at NEURALGENTICS_BROKER_URL the command
    still edits the file and exits 0."""
    config = write_config(tmp_path / "broker.yaml", {"time": time_server()})
    env = _env(tmp_path, NEURALGENTICS_BROKER_URL=f"http://127.0.0.1:{free_port()}")
    added = neuralgentics(
        "broker", "add", "extra", "--config", str(config), "--url", "http://127.0.0.1:9/mcp",
        env=env,
    )  # fmt: skip
    assert added.returncode == 0 and "reloaded" not in added.stdout, added.stdout + added.stderr
    assert "extra" in config.read_text()


def test_commands_pointed_at_a_stopped_memini_core_say_so_and_exit_3(tmp_path: Path) -> None:
    stopped = f"http://127.0.0.1:{free_port()}"
    env = _env(tmp_path, NEURALGENTICS_SERVICE_URL=stopped)
    for args in (("ui", "--print"), ("memory", "list"), ("memory", "export")):
        done = neuralgentics(*args, env=env)
        assert done.returncode == 3, (args, done.stdout, done.stderr)
        assert f"not reachable at {stopped}" in done.stderr, (args, done.stderr)
