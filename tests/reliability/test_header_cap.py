"""One huge request head is refused before it is parsed, on real `neuralgentics serve` and
`neuralgentics broker serve` processes (issue 29, item 4).

A 96 MiB header (no token: the refusal comes before any check) used to be joined piece by
piece on the event loop, stalling `/health` and every other request for 22-32 s. Now the
server answers 431 once the head passes its cap and closes the connection, having read a small
part of what the client tried to send; `/health` answers while that client keeps sending. A
head just over the cap, sent whole, gets the 431 with its JSON error body.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from neuralgentics.httphead import MAX_HEAD_BYTES
from reliability import loopback
from reliability.broker_proc import serving, time_server, write_config
from reliability.memini_proc import clean_env, running

HUGE = 96 * 1024 * 1024
CHUNK = 1024 * 1024


@pytest.fixture(params=["memini-core", "broker"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "memini-core":
        with running(clean_env(tmp_path / "m"), tmp_path / "m.log") as m:
            yield m.url
        return
    config = write_config(tmp_path / "broker.yaml", {"time": time_server()})
    with serving(config, tmp_path) as (base, _):
        yield base


def _send_huge_header(url: str, outcome: dict[str, object]) -> None:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=60) as s:
        sent = 0
        try:
            s.sendall(f"GET /health HTTP/1.1\r\nHost: {host}:{port}\r\nX-Big: ".encode())
            block = b"a" * CHUNK
            while sent < HUGE:
                s.sendall(block)
                sent += CHUNK
        except OSError:
            pass  # the server closed the connection: the rest is never read
        outcome["sent"] = sent
        answer = b""
        try:
            while chunk := s.recv(65536):
                answer += chunk
        except OSError:
            pass
        outcome["answer"] = answer


def test_a_huge_header_is_refused_fast_and_health_stays_responsive(served: str) -> None:
    outcome: dict[str, object] = {}
    sender = threading.Thread(target=_send_huge_header, args=(served, outcome))
    sender.start()
    try:
        # While the huge head is on its way, the service answers others.
        for _ in range(5):
            assert loopback.get(served + "/health", timeout=60).status_code == 200
    finally:
        sender.join(120)
    assert not sender.is_alive()
    answer = outcome["answer"]
    assert isinstance(answer, bytes)
    # 431, or (when the server's close reset the connection before the client read it)
    # nothing: never a response to the request the head belonged to
    assert answer == b"" or answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    # It stopped reading soon after the cap: the client could not push the 96 MiB through
    # (what it sent beyond the cap sat in socket buffers).
    sent = outcome["sent"]
    assert isinstance(sent, int) and sent < HUGE
    assert MAX_HEAD_BYTES < HUGE


def test_a_head_just_under_the_cap_is_served(served: str) -> None:
    filler = "b" * (MAX_HEAD_BYTES - 2048)
    r = loopback.get(served + "/health", headers={"X-Filler": filler}, timeout=30)
    assert r.status_code == 200
    big = loopback.get(served + "/health", headers={"X-Filler": filler * 2}, timeout=30)
    assert big.status_code == 431 and big.json()["error"]["code"] == "header_too_large"
