"""Oversized requests are refused with 413 before being read whole; requests addressed to a
foreign Host (DNS rebinding) or from a foreign browser Origin are refused. Checked on a real
uvicorn server with memini-core's app behind neuralgentics.httpguard.HTTPGuard."""

from __future__ import annotations

import socket
import time
from urllib.parse import urlsplit

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from neuralgentics.app.core import create_app
from neuralgentics.config import Settings
from neuralgentics.credentials import Principal
from neuralgentics.httpguard import HTTPGuard
from reliability import loopback
from reliability.asgi_server import serving

LIMIT = 256 * 1024


@pytest.fixture
def guarded(tmp_path, embedder_once):
    app = create_app(Settings(home=tmp_path / "home"), embedder=embedder_once)
    app.add_middleware(HTTPGuard, bind_host="127.0.0.1", max_body_bytes=LIMIT)
    with serving(app) as url:
        yield url


@pytest.fixture(scope="module")
def embedder_once():
    from neuralgentics.app.process import shared_embedder

    return shared_embedder()


def _raw(url: str, head: bytes, chunks: list[bytes], wait: float = 15.0) -> tuple[bytes, int]:
    """Send a request by hand; returns (response bytes, how many body bytes were accepted)."""
    parts = urlsplit(url)
    sent = 0
    with socket.create_connection((parts.hostname, parts.port), timeout=wait) as s:
        s.sendall(head)
        for chunk in chunks:
            try:
                s.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(chunk)
        data = b""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:  # the refusal closes the connection
            try:
                got = s.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not got:
                break
            data += got
    return data, sent


def _count(url: str) -> int:
    return loopback.get(url + "/memory").json()["total"]


def test_a_huge_content_length_is_refused_before_any_body_is_sent(guarded) -> None:
    head = (
        b"POST /memory/add HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 104857600\r\n\r\n"
    )
    reply, _ = _raw(guarded, head, [])  # not one body byte: the answer cannot wait for them
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert b"request_too_large" in reply
    assert _count(guarded) == 0


def test_a_chunked_body_is_cut_off_at_the_limit(guarded) -> None:
    head = (
        b"POST /memory/add HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    piece = b'{"content": "' + b"x" * 65536
    chunk = b"%x\r\n" % len(piece) + piece + b"\r\n"
    reply, _ = _raw(guarded, head, [chunk] * 160)  # 10 MiB offered
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert _count(guarded) == 0


def test_a_body_under_the_limit_is_served(guarded) -> None:
    r = loopback.post(guarded + "/memory/add", json={"content": "fits: " + "y" * 20000})
    assert r.status_code == 201


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8900", "attacker.test:80", "10.0.0.5"]
)
def test_a_foreign_host_header_is_refused_and_changes_nothing(guarded, host) -> None:
    r = loopback.post(guarded + "/memory/add", json={"content": "rebound"}, headers={"host": host})
    assert r.status_code == 421 and "DNS rebinding" in r.json()["error"]["message"]
    assert loopback.get(guarded + "/health", headers={"host": host}).status_code == 421
    assert _count(guarded) == 0


def test_loopback_names_and_a_foreign_origin(guarded) -> None:
    port = urlsplit(guarded).port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"):
        assert loopback.get(guarded + "/memory", headers={"host": host}).status_code == 200
    r = loopback.post(
        guarded + "/memory/add",
        json={"content": "cross-site"},
        headers={"origin": "https://evil.example"},
    )
    assert r.status_code == 403
    ok = loopback.post(
        guarded + "/memory/add",
        json={"content": "same-site"},
        headers={"origin": f"http://localhost:{port}"},
    )
    assert ok.status_code == 201


def test_bound_beyond_loopback_the_token_is_the_gate_not_the_host(tmp_path, embedder_once) -> None:
    app = create_app(
        Settings(home=tmp_path / "home", token="t0k", host="0.0.0.0"), embedder=embedder_once
    )
    with TestClient(app) as c:
        assert c.get("/memory", headers={"host": "memini.team.lan"}).status_code == 401
        ok = c.get("/memory", headers={"host": "memini.team.lan", "authorization": "Bearer t0k"})
        assert ok.status_code == 200


# memini-core as `create_app` builds it (first pass's finding 1, closed: docs/reliability.md).


def test_memini_core_as_built_refuses_a_foreign_host(tmp_path, embedder_once) -> None:
    with TestClient(create_app(Settings(home=tmp_path / "home"), embedder=embedder_once)) as c:
        assert c.get("/memory", headers={"host": "evil.example"}).status_code == 421


def test_memini_core_as_built_refuses_an_oversized_body(tmp_path, embedder_once) -> None:
    with TestClient(create_app(Settings(home=tmp_path / "home"), embedder=embedder_once)) as c:
        r = c.post(
            "/memory/add",
            content=b"{" + b" " * (8 * 1024 * 1024) + b"}",
            headers={"content-type": "application/json"},
        )
        assert r.status_code == 413


def test_requests_made_by_another_sites_page_are_refused(tmp_path, embedder_once) -> None:
    # An <img src="http://127.0.0.1:8900/project/index?path=/"> on any web page is a simple GET
    # with no Origin; the browser still marks it cross-site, and that is refused before any work.
    with TestClient(create_app(Settings(home=tmp_path / "home"), embedder=embedder_once)) as c:
        for site in ("cross-site", "same-site"):
            r = c.get(
                "/project/index", params={"path": str(tmp_path)}, headers={"sec-fetch-site": site}
            )
            assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site_request"
        assert c.get("/project/list").json() == []
        assert c.get("/memory", headers={"sec-fetch-site": "same-origin"}).status_code == 200
        assert c.get("/memory", headers={"sec-fetch-site": "none"}).status_code == 200


def test_one_token_check_for_every_app_with_its_open_paths_and_an_optional_cookie() -> None:
    """HTTPGuard's token check on its own (the check memini-core and the broker share): 401
    without the owner token but on open paths (GET/HEAD, or a method named for a path); a
    role token through `authenticate`; a cookie through `cookie_check`, only where it grants."""
    app = FastAPI()

    @app.api_route("/{path:path}", methods=["GET", "POST", "DELETE"])
    def who(request: Request) -> dict:
        p = request.state.principal
        return {"owner": p.owner, "role": p.role, "label": p.label}

    app.add_middleware(
        HTTPGuard,
        token="own3r",
        open_paths={"/health", ("POST", "/swap")},
        authenticate=lambda t: (
            Principal(owner=False, role="coder", label="token:ci") if t == "r0le" else None
        ),
        cookie_check=lambda scope, c: (
            c == "s=r3nwo"
            and (
                (scope["method"] == "GET" and scope["path"] == "/read")
                or ("a read-only session" if scope["path"] == "/write" else False)
            )
        ),
    )
    with TestClient(app) as c:
        assert c.get("/x").status_code == 401 and c.get("/x").headers[
            "www-authenticate"
        ].startswith("Bearer")
        r = c.get("/x", headers={"Authorization": "bearer own3r"})
        assert r.json().get("owner") is True, r.text  # the scheme in any case
        assert c.get("/x", headers={"Authorization": "Basic own3r"}).status_code == 401
        assert c.get("/x", headers={"Authorization": "Bearer r0le"}).json() == {
            "owner": False,
            "role": "coder",
            "label": "token:ci",
        }
        assert c.get("/health").json()["label"] == "anonymous"
        assert c.post("/health").status_code == 401  # open to reads only
        assert c.post("/swap").status_code == 200 and c.delete("/swap").status_code == 401
        assert c.get("/read", headers={"Cookie": "s=r3nwo"}).json()["label"] == "dashboard session"
        assert c.post("/read", headers={"Cookie": "s=r3nwo"}).status_code == 401
        assert c.get("/read", headers={"Cookie": "s=wrong"}).status_code == 401
        # a live session outside its scope: 403 with the check's message
        scoped = c.post("/write", headers={"Cookie": "s=r3nwo"})
        assert scoped.status_code == 403
        error = scoped.json()["error"]
        assert (error["code"], error["message"]) == ("dashboard_scope", "a read-only session")
