"""The dashboard's session cookie opens one service's dashboard reads and nothing else (issue
29, item 3), in the real headless Chromium.

Browsers scope cookies by host, not by port: after `/ui?token=…` on one memini-core, Chromium
sends the cookie to every service on 127.0.0.1. It used to be a fixed HMAC of the owner token,
so a second memini-core with the same token accepted it, and on the first it opened
`GET /memory/export` (every memory) and `GET /project/index` (starts indexing) as well as the
broker status proxy. Now it names a random session of the process (and port) that made it,
scoped to the pages' reads.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from ui_stack import TOKEN, Stack, start_stack

# the statuses of the replayed routes, fetched by the page itself (the browser adds its cookies)
STATUSES = (
    "(async () => { const st = async (u) => (await fetch(u)).status; return {"
    "memory: await st('/memory'), broker_status: await st('/ui/api/broker-status'), "
    "export: await st('/memory/export'), index: await st('/project/index?path=/nonexistent'), "
    "cookie: document.cookie}; })()"
)


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, Stack]]:
    """Two memini-cores with the same token on two ports (the first with a broker)."""
    a = start_stack(tmp_path_factory.mktemp("port-a"))
    try:
        b = start_stack(tmp_path_factory.mktemp("port-b"), with_broker=False)
    except BaseException:
        a.stop()
        raise
    try:
        yield a, b
    finally:
        b.stop()
        a.stop()


def test_a_cookie_from_one_port_grants_nothing_on_another(two: tuple[Stack, Stack]) -> None:
    a, b = two
    steps = [
        {"name": "login", "goto": f"/ui?token={TOKEN}#/overview", "wait": "main[data-ready]"},
        {"name": "on-a", "eval": STATUSES},
        {"name": "on-b", "goto": f"{b.base}/ui/", "wait": "main", "eval": STATUSES},
    ]
    result = a.browse(steps, name="session-ports", login=False)
    on_a, on_b = result["on-a"]["value"], result["on-b"]["value"]
    # where it was made: the pages' reads, not every memory at once, not indexing
    assert on_a == {"memory": 200, "broker_status": 200, "export": 401, "index": 403, "cookie": ""}
    # another service on another port, same token: the browser sent the cookie, it opens nothing
    assert on_b == {"memory": 401, "broker_status": 401, "export": 401, "index": 401, "cookie": ""}


def _session_cookie(base: str, **params: str) -> tuple[str, str]:
    """(name, value) of the session cookie a login on `base` sets."""
    r = httpx.get(f"{base}/ui", params={"token": TOKEN, **params}, follow_redirects=False)
    assert r.status_code == 303
    header = r.headers["set-cookie"]
    assert "Secure" in header and "HttpOnly" in header and "Max-Age=" in header
    name, _, rest = header.partition("=")
    return name, rest.split(";", 1)[0]


def test_a_replayed_cookie_opens_no_export_no_index_and_nothing_elsewhere(
    two: tuple[Stack, Stack],
) -> None:
    a, b = two
    name, value = _session_cookie(a.base)
    port_a, port_b = a.base.rsplit(":", 1)[1], b.base.rsplit(":", 1)[1]
    assert name == f"__Host-neuralgentics_session_{port_a}"
    routes = ("/memory/export", "/ui/api/broker-status", "/project/index?path=/nonexistent")
    on_a = [
        httpx.get(a.base + r, headers={"Cookie": f"{name}={value}"}).status_code for r in routes
    ]
    assert on_a == [401, 200, 403]
    # replayed on the other port, as sent and under that port's cookie name
    for cookie in (f"{name}={value}", f"__Host-neuralgentics_session_{port_b}={value}"):
        on_b = [httpx.get(b.base + r, headers={"Cookie": cookie}).status_code for r in routes]
        assert on_b == [401, 401, 401], cookie
    # logging out ends the session on the server: the value opens nothing any more
    httpx.delete(a.base + "/ui/session", headers={"Cookie": f"{name}={value}"})
    replay = httpx.get(a.base + "/memory", headers={"Cookie": f"{name}={value}"})
    assert replay.status_code == 401


def test_a_write_session_is_asked_for_and_still_not_the_export(two: tuple[Stack, Stack]) -> None:
    a, _ = two
    name, value = _session_cookie(a.base, scope="write")
    cookie = {"Cookie": f"{name}={value}"}
    job = httpx.get(a.base + "/project/index", params={"path": str(Path(a.home))}, headers=cookie)
    assert job.status_code == 202, job.text
    assert httpx.get(a.base + "/memory/export", headers=cookie).status_code == 401
