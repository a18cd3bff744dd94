"""The local credential (issue 13): served processes always require it — with no
NEURALGENTICS_TOKEN, on loopback — and make it on first need, private, once; the CLI reads it;
`broker stdio` (spawned by OpenCode) needs none."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml
from support.cli import neuralgentics

from neuralgentics.config import Settings
from neuralgentics.credentials import CredentialError, client_token, ensure_token
from reliability import loopback
from reliability.broker_proc import NEURALGENTICS, serving, time_server, write_config
from reliability.memini_proc import clean_env, running


def _routes(app) -> list[tuple[str, str]]:
    out = []
    for path, methods in app.openapi()["paths"].items():
        url = path
        for name in [p.split("}")[0] for p in path.split("{")[1:]]:
            url = url.replace("{" + name + "}", "x")
        out += [(m.upper(), url) for m in methods]
    return out


def test_memini_core_served_without_any_setting_requires_the_token_it_made(tmp_path: Path) -> None:
    """`neuralgentics serve` with no NEURALGENTICS_TOKEN: the token file appears (0600 in a 0700
    dir), every documented route but GET /health answers 401 without it, and the CLI finds it."""
    from neuralgentics.app.core import create_app

    env = clean_env(tmp_path / "home")
    assert "NEURALGENTICS_TOKEN" not in env
    with running(env, tmp_path / "serve.log") as memini:
        token_file = Path(env["NEURALGENTICS_CONFIG_DIR"]) / "token"
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        assert stat.S_IMODE(token_file.parent.stat().st_mode) == 0o700
        token = token_file.read_text().strip()
        routes = _routes(create_app(Settings(home=tmp_path / "x")))
        refused = 0
        with loopback.client(base_url=memini.url, timeout=30) as c:
            assert c.get("/health").status_code == 200
            for method, url in routes:
                if url == "/health":
                    continue
                for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": token}):
                    assert c.request(method, url, headers=headers).status_code == 401, (
                        method,
                        url,
                        headers,
                    )
                refused += 1
            assert c.get("/memory", headers={"Authorization": f"Bearer {token}"}).status_code == 200
        assert refused >= 15
        # the CLI's HTTP client reads the same file
        done = neuralgentics(
            "memory",
            "add",
            "kept by the CLI",
            "--json",
            env={**env, "NEURALGENTICS_SERVICE_URL": memini.url},
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["memory"]["content"] == "kept by the CLI"
    print("memini routes refused without the token:", refused)


def test_broker_serve_requires_it_and_broker_cli_edits_reach_the_running_broker(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path / "broker.yaml", {"time": time_server()})
    with serving(config, tmp_path) as (base, _):
        token = (tmp_path / "config" / "token").read_text().strip()
        assert loopback.get(base + "/health").status_code == 200
        for method, path in [
            ("GET", "/tools"),
            ("GET", "/servers"),
            ("POST", "/call"),
            ("POST", "/reload"),
            ("POST", "/mcp"),
            ("GET", "/mcp"),
            ("POST", "/servers"),
            ("DELETE", "/servers/time"),
            ("POST", "/match"),
            ("GET", "/tools/time/get_current_time"),
            ("GET", "/docs"),
            ("GET", "/openapi.json"),
        ]:
            r = loopback.request(method, base + path)
            assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized", (
                method,
                path,
            )
            assert r.headers["www-authenticate"].startswith("Bearer")
        # `broker add` on this machine edits the file and reloads the running broker with the token
        env = clean_env(
            tmp_path / "home",
            NEURALGENTICS_CONFIG_DIR=str(tmp_path / "config"),
            NEURALGENTICS_BROKER_PORT=base.rsplit(":", 1)[1],
        )
        done = neuralgentics(
            "broker",
            "add",
            "extra",
            "--config",
            str(config),
            "--",
            sys.executable,
            "-m",
            "mcp_server_time",
            env=env,
        )
        assert done.returncode == 0 and "reloaded" in done.stdout, done.stdout + done.stderr
        names = {
            s["name"]
            for s in loopback.get(
                base + "/servers", headers={"Authorization": f"Bearer {token}"}
            ).json()
        }
        assert names == {"time", "extra"}
    audit = [
        json.loads(x)
        for x in (tmp_path / "home" / "broker" / "audit.jsonl").read_text().splitlines()
    ]
    reloads = [r for r in audit if r["kind"] == "admin" and r["tool"] == "reload"]
    assert reloads and reloads[-1]["credential"] == "owner" and reloads[-1]["outcome"] == "ok"
    assert reloads[-1]["args"]["changes"]["added"] == ["extra"]


def test_broker_stdio_needs_no_token(tmp_path: Path) -> None:
    """OpenCode spawns `broker stdio` itself: the pipe is the credential, the role is --role."""
    config = write_config(tmp_path / "broker.yaml", {"time": time_server()})
    env = clean_env(tmp_path / "home")
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "mcp_router_call",
                "arguments": {
                    "server": "time",
                    "tool": "get_current_time",
                    "arguments": {"timezone": "UTC"},
                },
            },
        },
    ]
    done = subprocess.run(
        [NEURALGENTICS, "broker", "stdio", "--config", str(config), "--role", "coder"],
        input="".join(json.dumps(r) + "\n" for r in requests),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    replies = {m["id"]: m for m in map(json.loads, done.stdout.splitlines())}
    assert "UTC" in replies[2]["result"]["content"][0]["text"], done.stdout
    assert not (Path(env["NEURALGENTICS_CONFIG_DIR"]) / "token").exists()


def test_the_token_file_is_made_once_under_concurrent_first_use(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "h", config_dir=tmp_path / "c")
    got: list[str] = []
    barrier = threading.Barrier(16)

    def first_use() -> None:
        barrier.wait()
        got.append(ensure_token(settings))

    threads = [threading.Thread(target=first_use) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(got)) == 1 and len(got[0]) >= 40
    assert client_token(settings) == got[0]
    assert [p.name for p in (tmp_path / "c").iterdir()] == ["token"]  # no temp file left


def test_a_token_file_other_users_can_read_is_refused(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "h", config_dir=tmp_path / "c")
    ensure_token(settings)
    os.chmod(tmp_path / "c" / "token", 0o644)
    with pytest.raises(CredentialError, match="readable by other users"):
        ensure_token(settings)


def test_serve_refuses_to_start_on_an_unsafe_token_file(tmp_path: Path) -> None:
    env = clean_env(tmp_path / "home")
    cfg = Path(env["NEURALGENTICS_CONFIG_DIR"])
    cfg.mkdir(parents=True)
    (cfg / "token").write_text("shared-with-everyone\n")
    os.chmod(cfg / "token", 0o644)
    (cfg / "broker.yaml").write_text(yaml.safe_dump({"servers": {}}))
    commands = (["serve", "--port", "1"], ["broker", "serve", "--port", "1"])
    procs = [  # both at once: each only has to refuse
        subprocess.Popen(
            [NEURALGENTICS, *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for args in commands
    ]
    for args, proc in zip(commands, procs, strict=True):
        out, err = proc.communicate(timeout=60)
        assert proc.returncode != 0 and "chmod 600" in out + err, args
