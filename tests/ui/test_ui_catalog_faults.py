"""The broker page's catalog under a lossy connection: a fresh-clone CI run under load 20 saw
`/ui/api/catalog` answer 500 because one per-tool describe lost its connection. The real
memini-core app and the real broker, with a relay between them that cuts every connection
carrying a describe (`GET /tools/<server>/<tool>`): the page still gets its catalog, and the
row says how many tools' schema sizes are unknown instead of pretending they cost nothing."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient
from ui_stack import Stack, free_port

DESCRIBE = b"GET /tools/time/"


class CuttingRelay:
    """Relays TCP to the broker; a connection that sends a describe request is closed."""

    def __init__(self, target: str) -> None:
        url = urlsplit(target)
        self.target = (url.hostname or "127.0.0.1", url.port or 80)
        self.port = free_port()
        self.cut = 0
        self._listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, from_client: bool) -> None:
        try:
            while data := src.recv(65536):
                if from_client and DESCRIBE in data:
                    self.cut += 1
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self._listener.close()


@pytest.fixture
def relay(stack: Stack) -> Iterator[CuttingRelay]:
    r = CuttingRelay(stack.broker)
    yield r
    r.close()


def test_a_lost_describe_costs_its_count_not_the_page(
    stack: Stack, relay: CuttingRelay, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from neuralgentics.app.core import create_app
    from neuralgentics.config import get_settings

    monkeypatch.setenv("NEURALGENTICS_TOKEN", stack.token)
    monkeypatch.setenv("NEURALGENTICS_HOME", str(tmp_path))
    monkeypatch.setenv("NEURALGENTICS_BROKER_URL", f"http://127.0.0.1:{relay.port}")
    get_settings.cache_clear()
    try:
        with TestClient(create_app()) as client:
            r = client.get("/ui/api/catalog", headers=stack.headers)
    finally:
        get_settings.cache_clear()
    assert r.status_code == 200, r.text
    body = r.json()
    time_row = next(row for row in body["servers"] if row["name"] == "time")
    assert {"get_current_time", "convert_time"} <= set(time_row["tools"])
    assert relay.cut >= 1  # the describes really were cut
    assert time_row["schema_tokens_unknown"] == len(time_row["tools"])
    assert time_row["schema_tokens"] == 0
    # the catalog itself (one server: its tools are the agent's own, named in the text)
    assert "time" in body["text"] and body["tokens"] > 0
