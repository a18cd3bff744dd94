"""`neuralgentics doctor` against real services and a real install."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import typer
from oc_support import free_port, opencode_json
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


def serve_credentials_of(isolated_config: str, service_config: Path) -> None:
    """The project credentials `install` made (in this test's config dir), known to the one
    memini-core of the run (its own config dir): on a machine both are one directory."""
    from neuralgentics.project_credentials import FILE

    shutil.copy(Path(isolated_config) / FILE, service_config / FILE)


def test_healthy_install_passes_and_a_stale_plugin_is_flagged(
    project: Path, service: tuple[str, str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from neuralgentics.config import get_settings

    _, _, token_file = service
    install(Settings(), project)
    serve_credentials_of(os.environ["NEURALGENTICS_CONFIG_DIR"], token_file.parent)
    code, checks = doctor("--project", str(project))
    assert code == 0, checks
    assert checks["memini-core"]["status"] == "ok" and "sqlite" in checks["memini-core"]["detail"]
    assert checks["plugin"]["status"] == "ok" and checks["opencode.json"]["status"] == "ok"
    assert (
        checks["embedding model"]["status"] == "ok"
        and "384 dims" in checks["embedding model"]["detail"]
    )
    assert checks["routing matrix"]["status"] == "ok"
    # the repository's key (no git: its path), and the plugin's project credential accepted
    assert checks["project key"]["status"] == "ok"
    assert checks["project key"]["detail"].startswith(f"path:{project.resolve()}")
    assert "project credential accepted" in checks["plugin settings"]["detail"]
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

    url, _, service_token = service
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
    serve_credentials_of(isolated_env["NEURALGENTICS_CONFIG_DIR"], service_token.parent)
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

    # back on the right port, but the plugin's project credential is not the one the service
    # knows (issue 28: the plugin sends its project credential, never the owner token)
    monkeypatch.setenv("NEURALGENTICS_SERVICE_URL", url)
    get_settings.cache_clear()
    options = next(p[1] for p in opencode_json(project)["plugin"] if isinstance(p, list))
    credential = Path(options["credential_file"].replace("~", str(Path.home()), 1))
    credential.write_text("not-the-token-of-this-service\n")
    code, checks = doctor("--project", str(project), "--no-model", "--no-servers")
    assert code == 1 and checks["plugin settings"]["status"] == "fail"
    assert "refuses the plugin's project credential" in checks["plugin settings"]["detail"]
    assert "not-the-token-of-this-service" not in json.dumps(checks)  # never echoed


@pytest.fixture
def no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    from neuralgentics.opencode.providers import PROVIDER_ENV

    for names in PROVIDER_ENV.values():
        for name in names:
            monkeypatch.delenv(name, raising=False)


def test_doctor_warns_when_opencode_has_no_model_provider_and_says_how_to_add_one(
    tmp_path: Path, isolated_env: dict[str, str], no_provider_keys: None
) -> None:
    """Issue 32 item 2: offline and without a key, a prompt loops on 'Cannot connect to API'
    while doctor said 'all good'."""
    project = tmp_path / "p"
    project.mkdir()
    code, checks = doctor("--project", str(project), "--no-model", "--no-servers")
    llm = checks["llm provider"]
    assert llm["status"] == "warn" and "hosted free models" in llm["detail"]
    assert "opencode auth login" in llm["fix"] and "provider" in llm["fix"]
    res = CliRunner().invoke(_doctor_app(), ["doctor", "--project", str(project), "--no-model"])
    assert "all good" not in res.stdout


def _doctor_app() -> typer.Typer:
    app = typer.Typer()
    app.command("noop")(lambda: None)
    opencode_cli.register(app)
    return app


def test_a_tier_model_without_access_to_its_provider_fails_and_a_key_or_endpoint_fixes_it(
    tmp_path: Path,
    isolated_env: dict[str, str],
    no_provider_keys: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    cfg = Path(isolated_env["NEURALGENTICS_CONFIG_DIR"])
    (cfg / "models.yaml").write_text(
        "models:\n  primary: anthropic/claude-sonnet-4\n  secondary: local/qwen-coder\n"
    )
    code, checks = doctor("--project", str(project), "--no-model", "--no-servers")
    llm = checks["llm provider"]
    assert code == 1 and llm["status"] == "fail"
    assert "primary tier runs on anthropic/claude-sonnet-4" in llm["detail"]
    assert "'local'" in llm["detail"]

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    (project / "opencode.json").write_text(
        json.dumps(
            {
                "provider": {
                    "local": {
                        "npm": "@ai-sdk/openai-compatible",
                        "options": {"baseURL": "http://127.0.0.1:11434/v1"},
                        "models": {"qwen-coder": {}},
                    }
                }
            }
        )
    )
    code, checks = doctor("--project", str(project), "--no-model", "--no-servers")
    llm = checks["llm provider"]
    assert llm["status"] == "ok", llm
    assert "anthropic (ANTHROPIC_API_KEY)" in llm["detail"]
    assert "http://127.0.0.1:11434/v1" in llm["detail"]
    assert "sk-test" not in json.dumps(checks)  # the key's name, never its value


def test_credentials_saved_by_opencode_auth_login_count(
    tmp_path: Path, isolated_env: dict[str, str], no_provider_keys: None
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    auth = Path(isolated_env["XDG_DATA_HOME"]) / "opencode" / "auth.json"
    auth.parent.mkdir(parents=True)
    auth.write_text(json.dumps({"openai": {"type": "api", "key": "sk-secret"}}))
    _, checks = doctor("--project", str(project), "--no-model", "--no-servers")
    llm = checks["llm provider"]
    assert llm["status"] == "ok" and "openai (opencode auth login)" in llm["detail"]
    assert "sk-secret" not in json.dumps(checks)
