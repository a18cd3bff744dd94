"""The brand in the stock OpenCode TUI: `opencode install` lists the TUI plugin in tui.json, and
the real `opencode` (node_modules/.bin), started in a pseudo-terminal, shows "Neuralgentics
powered by OpenCode <version>" with live status read from the running services, then "offline"
once they stop. The screen is read through a terminal emulator, as a user would see it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import yaml
from fake_llm import FakeLLM, Reply, opencode_config
from oc_support import free_port, opencode_install, start_up, stop
from support.token import bearer
from tui_screen import Tui, columns, precreate_plugin_lock

pytestmark = pytest.mark.slow

BRAND = "Neuralgentics powered by OpenCode 1.18.33"


def user_config(llm: FakeLLM) -> str:
    return json.dumps(opencode_config(llm.base_url), indent=2)


def test_the_tui_shows_the_brand_with_live_status_and_offline_when_the_services_stop(
    tmp_path: Path, isolated_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg_dir = Path(isolated_env["NEURALGENTICS_CONFIG_DIR"])
    (cfg_dir / "broker.yaml").write_text(
        yaml.safe_dump(
            {
                "servers": {
                    "time": {
                        "command": str(Path(sys.executable).parent / "mcp-server-time"),
                        "args": ["--local-timezone", "UTC"],
                        "summary": "current time",
                    }
                },
                "roles": {"orchestrator": {"allow": ["time/*"]}},
            }
        )
    )
    port, broker_port = free_port(), free_port()
    env = {
        **isolated_env,
        "NEURALGENTICS_PORT": str(port),
        "NEURALGENTICS_BROKER_PORT": str(broker_port),
        # the plugin asks every 5 s by default; a test need not wait that long for a change
        "NEURALGENTICS_TUI_POLL_MS": "500",
        # a task waiting for its verification is stalled at once
        "NEURALGENTICS_TASK_STALL_SECONDS": "0",
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    from neuralgentics.config import get_settings

    get_settings.cache_clear()
    memini = f"http://127.0.0.1:{port}"
    tui: Tui | None = None
    up_proc: subprocess.Popen[str] | None = None
    with FakeLLM(lambda req: Reply(text="Hello from the fake model.")) as llm:
        project = tmp_path / "proj"
        project.mkdir()
        (project / "opencode.json").write_text(user_config(llm))
        # installed first: it makes the credential `up` then serves with
        opencode_install(project, {**os.environ, **env}, "--broker", "http")
        tui_json = json.loads((project / ".opencode" / "tui.json").read_text())
        assert tui_json["plugin"][0][0] == "./neuralgentics-tui/neuralgentics-brand.tsx"
        # memories are counted under the repository's key, shown under its folder name
        key = tui_json["plugin"][0][1]["project"]
        for d in (Path(env["XDG_CONFIG_HOME"]) / "opencode", project / ".opencode"):
            precreate_plugin_lock(d)

        # `up` and the TUI start side by side (each takes seconds): the plugin asks the
        # services on every poll, so what it shows follows them once they answer
        with ThreadPoolExecutor(max_workers=1) as pool:
            starting = pool.submit(start_up, env, port, broker_port)
            try:
                tui = Tui(project, env)
                up_proc, _ = starting.result()
                auth = bearer(cfg_dir)
                for text in ("the export writes a header row", "dates are stored in UTC"):
                    httpx.post(
                        memini + "/memory/add",
                        headers=auth,
                        timeout=60,
                        json={"content": text, "project": key, "source_type": "note"},
                    ).raise_for_status()
                httpx.post(
                    memini + "/memory/add",
                    headers=auth,
                    timeout=60,  # another project's: not counted
                    json={"content": "unrelated", "project": "other", "source_type": "note"},
                ).raise_for_status()
                # a brokered call starts the server: the broker then reports it warm
                httpx.post(
                    f"http://127.0.0.1:{broker_port}/call",
                    timeout=60,
                    headers={**auth, "X-Neuralgentics-Role": "orchestrator"},
                    json={
                        "server": "time",
                        "tool": "get_current_time",
                        "arguments": {"timezone": "UTC"},
                    },
                ).raise_for_status()

                # a delegated task whose verification was skipped (issue 30 item 4)
                task = httpx.post(
                    memini + "/orchestrator/tasks",
                    headers=auth,
                    timeout=60,
                    json={"task": "Implement the CSV export.", "session": "s1", "project": "proj"},
                ).json()["id"]
                for step in ("recall", "classify", "route", "context", "delegate"):
                    httpx.post(
                        f"{memini}/orchestrator/tasks/{task}/step",
                        headers=auth,
                        timeout=60,
                        json={"step": step, "data": {}},
                    ).raise_for_status()

                # home screen: the built-in footer is replaced by ours, with the live status
                screen = tui.wait_for(
                    lambda t: (
                        BRAND in t
                        and "2 memories in proj" in t
                        and "broker 1/1 warm" in t
                        and "1 stalled task" in t
                    ),
                    90,
                    f"{BRAND!r} with '2 memories in proj', 'broker 1/1 warm', '1 stalled task'",
                )
                assert "services up" in screen
                assert "• OpenCode" not in screen  # the stock footer's line is gone
                # the directory is still shown
                assert str(project).replace(env["HOME"], "~") in screen

                # live: a memory stored now shows up without a restart
                httpx.post(
                    memini + "/memory/add",
                    headers=auth,
                    timeout=60,
                    json={
                        "content": "the CLI takes --csv",
                        "project": key,
                        "source_type": "note",
                    },
                ).raise_for_status()
                tui.wait_for(lambda t: "3 memories in proj" in t, 30, "'3 memories in proj'")

                # a session: the sidebar's footer carries the brand and the status too
                tui.type("say hello")
                screen = tui.wait_for(
                    lambda t: (
                        "Hello from the fake model." in t and "Neuralgentics" in columns(t, 128)
                    ),
                    60,
                    "the session with the brand in the sidebar",
                )
                sidebar = " ".join(columns(screen, 128).split())
                assert "Neuralgentics powered by OpenCode 1.18.33" in sidebar, sidebar
                assert "3 memories in proj" in sidebar

                # the services stop: the TUI keeps running and says so
                stop(up_proc)
                screen = tui.wait_for(lambda t: "services offline" in t, 30, "'services offline'")
                assert "Neuralgentics powered by OpenCode" in " ".join(columns(screen, 128).split())
                assert tui.child.isalive()
            finally:
                if tui is not None:
                    tui.close()
                if up_proc is None and starting.exception() is None:
                    up_proc = starting.result()[0]
                if up_proc is not None:
                    stop(up_proc)
                get_settings.cache_clear()


def test_the_tui_says_offline_when_the_services_were_never_started(
    tmp_path: Path, isolated_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {
        **isolated_env,
        "NEURALGENTICS_PORT": str(free_port()),
        "NEURALGENTICS_BROKER_PORT": str(free_port()),
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    from neuralgentics.config import get_settings

    get_settings.cache_clear()
    project = tmp_path / "proj"
    project.mkdir()
    with FakeLLM(lambda req: Reply(text="hi")) as llm:
        (project / "opencode.json").write_text(user_config(llm))
        opencode_install(project, {**os.environ, **env})
        for d in (Path(env["XDG_CONFIG_HOME"]) / "opencode", project / ".opencode"):
            precreate_plugin_lock(d)
        tui = Tui(project, env)
        try:
            screen = tui.wait_for(
                lambda t: BRAND in t and "services offline" in t,
                90,
                f"{BRAND!r} with 'services offline'",
            )
            assert "memories" not in screen
        finally:
            tui.close()
    get_settings.cache_clear()
