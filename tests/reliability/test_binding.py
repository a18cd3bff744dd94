"""Loopback by default; beyond loopback only with NEURALGENTICS_TOKEN, and then every route but
/health needs it. memini-core's side is tested in tests/memini/test_cli_and_service.py; this is
the broker's, on its CLI and its app."""

from __future__ import annotations

import subprocess

import pytest
from fastapi.testclient import TestClient

from neuralgentics.config import Settings
from reliability.broker_proc import NEURALGENTICS, time_server, write_config
from reliability.memini_proc import clean_env


@pytest.mark.parametrize("host", ["0.0.0.0"])
def test_broker_refuses_a_public_address_without_a_token(tmp_path, host) -> None:
    config = write_config(tmp_path / "broker.yaml", {"time": time_server()})
    done = subprocess.run(
        [NEURALGENTICS, "broker", "serve", "--config", str(config), "--host", host, "--port", "1"],
        env=clean_env(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "NEURALGENTICS_TOKEN" in done.stderr + done.stdout


def test_broker_token_guards_every_route_but_health(tmp_path) -> None:
    from neuralgentics.broker.server.http import create_app

    config = write_config(tmp_path / "broker.yaml", {"time": time_server()})
    with TestClient(create_app(config, token="br0ker-t0ken", settings=Settings())) as c:
        assert c.get("/health").status_code == 200
        for method, path in [
            ("GET", "/tools"),
            ("GET", "/servers"),
            ("POST", "/call"),
            ("POST", "/reload"),
            ("POST", "/mcp"),
            ("DELETE", "/servers/time"),
            ("POST", "/match"),
        ]:
            assert c.request(method, path).status_code == 401, path
            assert (
                c.request(method, path, headers={"authorization": "Bearer wrong"}).status_code
                == 401
            ), path
        ok = c.get("/servers", headers={"authorization": "Bearer br0ker-t0ken"})
        assert ok.status_code == 200 and [s["name"] for s in ok.json()] == ["time"]


def test_memini_core_token_guards_every_documented_route_but_health(tmp_path) -> None:
    """Every path and method in memini-core's OpenAPI (memory, graph, trust, project index,
    orchestrator) answers 401 without the token or with a wrong one; /health stays open."""
    from neuralgentics.app.core import create_app
    from neuralgentics.app.process import shared_embedder
    from neuralgentics.config import Settings

    app = create_app(
        Settings(home=tmp_path / "home", token="m3mini-t0ken"), embedder=shared_embedder()
    )
    checked = 0
    with TestClient(app) as c:
        paths = app.openapi()["paths"]
        for path, methods in paths.items():
            url = path
            for name in [p.split("}")[0] for p in path.split("{")[1:]]:
                url = url.replace("{" + name + "}", "00000000-0000-0000-0000-000000000001")
            for method in methods:
                if path == "/health":
                    assert c.request(method, url).status_code == 200
                    continue
                for headers in (
                    {},
                    {"authorization": "Bearer wrong"},
                    {"authorization": "Bearer m3mini-t0ken-"},
                ):
                    r = c.request(method.upper(), url, headers=headers)
                    assert r.status_code == 401, (method, path, headers, r.status_code)
                checked += 1
        assert c.get("/memory", headers={"authorization": "Bearer m3mini-t0ken"}).status_code == 200
    assert checked >= 15
