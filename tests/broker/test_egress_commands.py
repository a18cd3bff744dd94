"""Every command that reaches a downstream HTTP server goes through EGRESS_GATEWAY_URL (issue 29,
item 13): `broker refresh` and `broker import --apply` listed tools with the SDK's own HTTP
client, straight to the server, with the expanded secret headers."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.broker.conftest import base_config, cli, needs_node
from tests.broker.gateway import RecordingGateway

SECRET = "gw-test-secret-value-0123456789"


@pytest.fixture
def gateway(monkeypatch: pytest.MonkeyPatch) -> Iterator[RecordingGateway]:
    """The recording gateway on a loop of its own thread (the commands run their own loops)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    gw = RecordingGateway()
    asyncio.run_coroutine_threadsafe(gw.start(), loop).result(10)
    monkeypatch.setenv("EGRESS_GATEWAY_URL", gw.url)
    try:
        yield gw
    finally:
        asyncio.run_coroutine_threadsafe(gw.stop(), loop).result(10)
        asyncio.run_coroutine_threadsafe(_finish_handlers(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


async def _finish_handlers() -> None:
    """End the proxy's open connection handlers (an SSE stream stays open) before the loop."""
    me = asyncio.current_task()
    tasks = [t for t in asyncio.all_tasks() if t is not me]
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(0.05)  # the transports' close callbacks


def _through(gw: RecordingGateway, url: str) -> list[str]:
    return [s.target for s in gw.seen if s.target.startswith(url.rsplit("/", 1)[0])]


@needs_node
@pytest.mark.parametrize("transport", ["streamable_http", "sse"])
def test_broker_refresh_goes_through_the_gateway(
    home: Path,
    write_config,
    gateway: RecordingGateway,
    transport: str,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = request.getfixturevalue(
        "everything_http" if transport == "streamable_http" else "everything_sse"
    )
    monkeypatch.setenv("GW_SECRET", SECRET)
    server = {"transport": transport, "url": url, "headers": {"X-Api-Key": "${GW_SECRET}"}}
    path = write_config(base_config(http=server))
    r = cli("broker", "refresh", "http", "--config", str(path), "--timeout", "60")
    assert r.returncode == 0, r.stderr
    assert "http:" in r.stdout and "tools" in r.stdout
    assert url in _through(gateway, url)
    # the gateway saw the expanded header: it is the route, not a bypass
    assert any(s.headers.get("x-api-key") == SECRET for s in gateway.seen)


@needs_node
def test_broker_import_apply_lists_through_the_gateway(
    home: Path, tmp_path: Path, gateway: RecordingGateway, everything_http: str
) -> None:
    proj = tmp_path / "proj"
    (proj / ".vscode").mkdir(parents=True)
    (proj / ".vscode" / "mcp.json").write_text(
        json.dumps({"servers": {"remote": {"type": "http", "url": everything_http}}})
    )
    r = cli("broker", "import", "--project", str(proj), "--apply", "--timeout", "60")
    assert r.returncode == 0, r.stderr
    assert "remote:" in r.stdout and "tools" in r.stdout, r.stdout + r.stderr
    assert everything_http in _through(gateway, everything_http)


def test_nothing_reaches_the_server_when_the_gateway_refuses(
    home: Path, write_config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A gateway that is down stops the request: no fallback to a direct connection."""
    import socket

    with socket.socket() as listener:  # a server that records whether anyone connected
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        listener.settimeout(0.2)
        port = listener.getsockname()[1]
        with socket.socket() as closed:
            closed.bind(("127.0.0.1", 0))
            dead = closed.getsockname()[1]
        monkeypatch.setenv("EGRESS_GATEWAY_URL", f"http://127.0.0.1:{dead}")
        server = {"transport": "streamable_http", "url": f"http://127.0.0.1:{port}/mcp"}
        path = write_config(base_config(http=server))
        r = cli("broker", "refresh", "http", "--config", str(path), "--timeout", "10")
        assert r.returncode == 1
        with pytest.raises(TimeoutError):
            listener.accept()
