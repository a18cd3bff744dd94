"""`neuralgentics doctor` against real services and a real install."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from oc_support import free_port
from typer.testing import CliRunner

from neuralgentics.config import Settings
from neuralgentics.opencode import cli as opencode_cli
from neuralgentics.opencode.installer import install


def doctor(*args: str) -> tuple[int, dict[str, dict]]:
    app = typer.Typer()
    app.command("noop")(lambda: None)
    opencode_cli.register(app)
    res = CliRunner().invoke(app, ["doctor", "--json", *args])
    checks = {c["name"]: c for c in json.loads(res.stdout)}
    return res.exit_code, checks


def test_nothing_running_nothing_installed_names_each_fix(
    tmp_path: Path, isolated_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from neuralgentics.config import get_settings

    monkeypatch.setenv("NEURALGENTICS_PORT", str(free_port()))
    get_settings.cache_clear()
    project = tmp_path / "p"
    project.mkdir()
    code, checks = doctor("--project", str(project), "--no-model")
    assert code == 1
    assert (
        checks["memini-core"]["status"] == "fail"
        and checks["memini-core"]["fix"] == "start it: neuralgentics up"
    )
    assert checks["plugin"]["status"] == "fail"
    assert (
        checks["plugin"]["fix"] == f"neuralgentics opencode install --project {project.resolve()}"
    )
    assert checks["opencode"]["status"] == "ok"  # npm opencode-ai 1.18.x
    assert checks["broker (http)"]["status"] == "warn"  # not needed by a stdio install
    # nothing was ever served from this config dir: no credential yet, and the fix says how
    assert (
        checks["credential"]["status"] == "fail"
        and "neuralgentics up" in checks["credential"]["fix"]
    )


@pytest.fixture
def project(
    tmp_path: Path,
    isolated_env: dict[str, str],
    service: tuple[str, str, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    """An empty project, with doctor pointed at the running service and holding its
    credential, as a user with NEURALGENTICS_TOKEN in the shell has it."""
    from neuralgentics.config import get_settings

    url, _, token_file = service
    monkeypatch.setenv("NEURALGENTICS_SERVICE_URL", url)
    monkeypatch.setenv("NEURALGENTICS_TOKEN", token_file.read_text().strip())
    get_settings.cache_clear()
    project = tmp_path / "p"
    project.mkdir()
    return project


def test_healthy_install_passes_and_a_stale_plugin_is_flagged(
    project: Path, service: tuple[str, str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from neuralgentics.config import get_settings

    _, _, token_file = service
    install(Settings(), project)
    code, checks = doctor("--project", str(project))
    assert code == 0, checks
    assert checks["memini-core"]["status"] == "ok" and "sqlite" in checks["memini-core"]["detail"]
    assert checks["plugin"]["status"] == "ok" and checks["opencode.json"]["status"] == "ok"
    assert (
        checks["embedding model"]["status"] == "ok"
        and "384 dims" in checks["embedding model"]["detail"]
    )
    assert checks["routing matrix"]["status"] == "ok"
    assert (
        checks["credential"]["status"] == "ok"
        and "accepted by memini-core" in checks["credential"]["detail"]
    )
    monkeypatch.setenv("NEURALGENTICS_TOKEN", "not-the-service-token")
    get_settings.cache_clear()
    code, checks = doctor("--project", str(project), "--no-model")
    assert (
        code == 1
        and checks["credential"]["status"] == "fail"
        and "refuses the token" in checks["credential"]["detail"]
    )
    monkeypatch.setenv("NEURALGENTICS_TOKEN", token_file.read_text().strip())
    get_settings.cache_clear()

    from neuralgentics.opencode.doctor import installed_plugin

    plugin = installed_plugin(json.loads((project / "opencode.json").read_text()))[0]
    plugin.write_text(plugin.read_text() + "\n// edited\n")
    code, checks = doctor("--project", str(project), "--no-model")
    assert (
        code == 0
        and checks["plugin"]["status"] == "warn"
        and "differs" in checks["plugin"]["detail"]
    )

    install(
        Settings(), project, broker="http"
    )  # re-install: remote broker that is not running is now a failure
    code, checks = doctor("--project", str(project), "--no-model")
    assert code == 1 and checks["broker (http)"]["status"] == "fail"


def test_doctor_fails_when_the_plugin_or_an_agent_or_a_server_would_not_work(
    project: Path,
    isolated_env: dict[str, str],
    service: tuple[str, str, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 16 item 5: the three ways a session silently had no Neuralgentics."""
    import sys

    import yaml

    from neuralgentics.config import get_settings

    url, _, _ = service
    broker_yaml = Path(isolated_env["NEURALGENTICS_CONFIG_DIR"]) / "broker.yaml"
    broker_yaml.write_text(
        yaml.safe_dump(
            {
                "servers": {
                    "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]},
                    # the README's old example on a Python without the package
                    "broken": {"command": sys.executable, "args": ["-m", "no_such_mcp_server"]},
                }
            }
        )
    )
    install(Settings(), project)
    code, checks = doctor("--project", str(project), "--no-model")
    assert checks["plugin settings"]["status"] == "ok", checks["plugin settings"]
    assert checks["agent tools"]["status"] == "ok", checks["agent tools"]
    assert checks["start-up"]["status"] == "ok", checks["start-up"]
    assert checks["server time"]["status"] == "ok" and "tools" in checks["server time"]["detail"]
    assert checks["server broken"]["status"] == "fail" and code == 1
    assert "does not start" in checks["server broken"]["detail"]

    # an agent without a role sees nothing: doctor fails naming it
    cfg = yaml.safe_load(broker_yaml.read_text())
    del cfg["roles"]["build"], cfg["servers"]["broken"]
    broker_yaml.write_text(yaml.safe_dump(cfg))
    code, checks = doctor("--project", str(project), "--no-model")
    assert code == 1 and checks["agent tools"]["status"] == "fail"
    assert "build" in checks["agent tools"]["detail"]

    # services moved to another port since install: the plugin would talk to nothing
    monkeypatch.setenv("NEURALGENTICS_SERVICE_URL", f"http://127.0.0.1:{free_port()}")
    get_settings.cache_clear()
    code, checks = doctor("--project", str(project), "--no-model", "--no-servers")
    assert checks["plugin settings"]["status"] == "fail"
    assert "the plugin talks to " + url in checks["plugin settings"]["detail"]
    assert "server time" not in checks

    # back on the right port, but with a token the running service does not accept
    monkeypatch.setenv("NEURALGENTICS_SERVICE_URL", url)
    monkeypatch.setenv("NEURALGENTICS_TOKEN", "not-the-token-of-this-service")
    get_settings.cache_clear()
    code, checks = doctor("--project", str(project), "--no-model", "--no-servers")
    assert code == 1 and checks["plugin settings"]["status"] == "fail"
    assert "refuses the token the plugin sends" in checks["plugin settings"]["detail"]
    assert "not-the-token-of-this-service" not in json.dumps(checks)  # never echoed
