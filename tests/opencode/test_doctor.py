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


def test_healthy_install_passes_and_a_stale_plugin_is_flagged(
    tmp_path: Path,
    isolated_env: dict[str, str],
    service: tuple[str, str, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from neuralgentics.config import get_settings

    url, _, token_file = service
    monkeypatch.setenv("NEURALGENTICS_SERVICE_URL", url)
    # the running service's credential, as a user with NEURALGENTICS_TOKEN in the shell has it
    monkeypatch.setenv("NEURALGENTICS_TOKEN", token_file.read_text().strip())
    get_settings.cache_clear()
    project = tmp_path / "p"
    project.mkdir()
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

    plugin = project / ".opencode/plugin/neuralgentics.ts"
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
