"""The dashboard's own HTTP routes, in-process: what is open, what is guarded, what is refused."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

TOKEN = "routes-token"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the socket goes


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    from neuralgentics.app.core import create_app
    from neuralgentics.config import get_settings

    monkeypatch.setenv("NEURALGENTICS_TOKEN", TOKEN)
    monkeypatch.setenv("NEURALGENTICS_BROKER_PORT", str(_closed_port()))
    get_settings.cache_clear()
    with TestClient(create_app()) as c:
        yield c


def auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}"}


def test_page_and_assets_are_open_but_data_needs_the_token(client: TestClient) -> None:
    page = client.get("/ui/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert '<script type="module" src="/ui/assets/js/app.js">' in page.text
    js = client.get("/ui/assets/js/app.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert client.get("/ui/assets/app.css").headers["content-type"].startswith("text/css")
    # only the dashboard's own scripts may run, and it may not be framed
    csp = page.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    # a wrong ?token= is dropped from the address and opens nothing
    moved = client.get("/ui?token=abc", follow_redirects=False)
    assert moved.status_code == 303 and moved.headers["location"] == "/ui/"
    assert "set-cookie" not in moved.headers
    client.cookies.clear()
    for path in ("/ui/api/info", "/ui/api/audit", "/ui/api/broker/servers", "/memory"):
        refused = client.get(path)
        assert refused.status_code == 401, path
        assert refused.json()["error"]["code"] == "unauthorized"
    assert client.get("/ui/api/info", headers=auth()).json()["token_required"] is True


def test_every_module_the_page_imports_is_served(client: TestClient) -> None:
    import re

    seen, todo = set(), ["js/app.js"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        r = client.get(f"/ui/assets/{name}")
        assert r.status_code == 200, name
        base = name.rsplit("/", 1)[0]
        for rel in re.findall(r"from '(\.{1,2}/[^']+)'", r.text):
            parts = base.split("/") if base else []
            for piece in rel.split("/"):
                if piece == "..":
                    parts.pop()
                elif piece != ".":
                    parts.append(piece)
            todo.append("/".join(parts))
    assert {"js/pages/overview.js", "js/pages/graph.js", "js/graphview.js", "js/charts.js"} <= seen


@pytest.mark.parametrize(
    "name", ["../routes.py", "..%2Froutes.py", "index.html", "nope.js", "js/../../assets.py"]
)
def test_no_file_outside_the_shipped_assets(client: TestClient, name: str) -> None:
    r = client.get(f"/ui/assets/{name}", headers=auth())
    assert r.status_code == 404
    assert "def " not in r.text
    assert client.get(f"/ui/assets/{name}").status_code in (401, 404)  # never the file


def test_only_read_routes_are_forwarded_to_the_broker(client: TestClient) -> None:
    r = client.post(
        "/ui/api/broker/call",
        headers=auth(),
        json={"server": "time", "tool": "get_current_time", "arguments": {}},
    )
    assert r.status_code == 404
    assert "not forwarded" in r.json()["error"]["message"]
    assert client.delete("/ui/api/broker/servers/time", headers=auth()).status_code == 405


def test_a_stopped_broker_is_a_clear_502(client: TestClient) -> None:
    r = client.get("/ui/api/broker/servers", headers=auth())
    assert r.status_code == 502
    err = r.json()["error"]
    assert err["code"] == "broker_unreachable"
    assert "http://127.0.0.1:" in err["message"] and "neuralgentics broker serve" in err["message"]
    assert client.get("/ui/api/catalog", headers=auth()).status_code == 502
    # the overview's probe is a state, not an error: the page logs no failed request for it
    status = client.get("/ui/api/broker-status", headers=auth())
    assert status.status_code == 200
    assert (
        status.json()["reachable"] is False
        and "not reachable at http://127.0.0.1:" in status.json()["error"]
    )


def test_info_says_what_is_mounted(client: TestClient) -> None:
    info = client.get("/ui/api/info", headers=auth()).json()
    assert info["indexer"] is True and info["orchestrator"] is True
    assert info["broker_url"].startswith("http://127.0.0.1:")


def test_audit_filters_and_histogram(client: TestClient) -> None:
    from neuralgentics.broker.audit import AuditRecord, JsonlAuditSink, default_audit_path
    from neuralgentics.config import Settings

    sink = JsonlAuditSink(default_audit_path(Settings()))
    for i, (outcome, ms) in enumerate(
        [("ok", 0.5), ("ok", 3.0), ("denied", 0.2), ("error", 7000.0)]
    ):
        sink.write_sync(
            AuditRecord.for_call(
                role="coder" if i % 2 else "reviewer",
                server="time",
                tool="get_current_time",
                arguments={"n": i, "api_key": "sk-secret"},
                outcome=outcome,
                latency_ms=ms,
            )
        )
    body = client.get("/ui/api/audit", headers=auth()).json()
    assert body["total"] == body["matched"] == 4
    assert [r["args"]["n"] for r in body["records"]] == [3, 2, 1, 0]  # newest first
    assert all(r["args"]["api_key"] == "[REDACTED]" for r in body["records"])
    counts = {(b["from_ms"], b["to_ms"]): b["count"] for b in body["histogram"]}
    assert counts[(0.0, 1)] == 2 and counts[(2, 5)] == 1 and counts[(5000, 10000)] == 1
    assert sum(counts.values()) == 4
    assert body["outcomes"] == {"ok": 2, "denied": 1, "error": 1}
    assert "reviewer" in body["facets"]["role"] and "time" in body["facets"]["server"]
    denied = client.get("/ui/api/audit", headers=auth(), params={"outcome": "denied"}).json()
    assert denied["matched"] == 1 and denied["total"] == 4
    assert denied["records"][0]["outcome"] == "denied"
    limited = client.get("/ui/api/audit", headers=auth(), params={"limit": 1}).json()
    assert len(limited["records"]) == 1 and limited["matched"] == 4


def test_project_details_only_for_indexed_projects(client: TestClient, tmp_path) -> None:
    r = client.get("/ui/api/project/skipped", headers=auth(), params={"root": str(tmp_path)})
    assert r.status_code == 404
    assert "is not an indexed project" in r.json()["error"]["message"]
    assert client.get("/ui/api/project/files", headers=auth()).status_code == 422


# --- issue 13, finding 6: the token leaves the address at once --------------------------------


def test_token_in_the_address_becomes_an_httponly_strict_cookie(client: TestClient) -> None:
    for start in ("/ui", "/ui/"):
        moved = client.get(start, params={"token": TOKEN, "x": "1"}, follow_redirects=False)
        assert moved.status_code == 303, start
        assert moved.headers["location"] == "/ui/?x=1"  # the token is gone, the rest kept
        assert moved.headers["cache-control"] == "no-store"
        cookie = moved.headers["set-cookie"]
        # per port (the test client's is 80); `__Host-` and Secure on a loopback name only
        assert cookie.startswith("neuralgentics_session_80=")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
        assert "Max-Age=86400" in cookie  # it expires
        assert TOKEN not in cookie and len(cookie.split(";")[0].split("=")[1]) >= 43
    first = client.cookies["neuralgentics_session_80"]
    # the cookie opens the dashboard's reads...
    assert client.get("/memory").status_code == 200
    assert client.get("/ui/api/info").status_code == 200
    assert client.post("/memory/query", json={"query": "anything"}).status_code == 200
    # ...not every memory at once, not indexing (a read-only session), and no write
    assert client.get("/memory/export").status_code == 401
    index = client.get("/project/index", params={"path": "/tmp"})
    assert index.status_code == 403 and "scope=write" in index.json()["error"]["message"]
    assert client.post("/memory/add", json={"content": "by cookie"}).status_code == 401
    assert client.post("/orchestrator/tasks", json={"task": "t", "session": "s"}).status_code == 401
    assert (
        client.post("/memory/add", json={"content": "by bearer"}, headers=auth()).status_code == 201
    )
    # logging in again rotates the session: the old id opens nothing
    client.get("/ui", params={"token": TOKEN}, follow_redirects=False)
    assert client.cookies["neuralgentics_session_80"] != first
    assert client.get("/memory").status_code == 200
    fresh = client.cookies["neuralgentics_session_80"]
    client.cookies.clear()
    client.cookies.set("neuralgentics_session_80", first)
    assert client.get("/memory").status_code == 401
    # a forged cookie opens nothing
    client.cookies.set("neuralgentics_session_80", "0" * 43)
    assert client.get("/memory").status_code == 401
    # a session asked for with scope=write may also start indexing
    client.cookies.clear()
    client.get("/ui", params={"token": TOKEN, "scope": "write"}, follow_redirects=False)
    assert client.cookies["neuralgentics_session_80"] != fresh
    assert client.get("/memory/export").status_code == 401  # still not the export
    assert client.post("/memory/add", json={"content": "by cookie"}).status_code == 401
    client.cookies.clear()


def test_the_banners_token_is_exchanged_for_the_cookie(client: TestClient) -> None:
    wrong = client.post("/ui/session", json={"token": "nope"})
    assert wrong.status_code == 401 and "set-cookie" not in wrong.headers
    assert client.get("/memory").status_code == 401
    right = client.post("/ui/session", json={"token": TOKEN})
    assert right.status_code == 204 and "HttpOnly" in right.headers["set-cookie"]
    assert client.get("/memory").status_code == 200
    held = client.cookies["neuralgentics_session_80"]
    gone = client.delete("/ui/session")
    assert gone.status_code == 204
    # logged out: the session is ended on the server, not only forgotten by the browser
    client.cookies.clear()
    client.cookies.set("neuralgentics_session_80", held)
    assert client.get("/memory").status_code == 401


def test_the_broker_page_opens_on_a_role_that_has_tools(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32 item 9: after `broker add` (which writes no default role) the page opened on
    role `default`, which sees nothing."""
    import shutil
    import sys
    from pathlib import Path

    from support.cli import neuralgentics

    from neuralgentics.app.core import create_app
    from neuralgentics.config import get_settings

    env = {"NEURALGENTICS_CONFIG_DIR": str(tmp_path / "c"), "NEURALGENTICS_HOME": str(tmp_path)}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("NEURALGENTICS_TOKEN", TOKEN)
    server = shutil.which("mcp-server-time") or str(Path(sys.executable).parent / "mcp-server-time")
    added = neuralgentics("broker", "add", "time", "--", server, env=env)
    assert added.returncode == 0, added.stderr
    get_settings.cache_clear()
    with TestClient(create_app()) as c:
        roles = c.get("/ui/api/roles", headers=auth()).json()
    assert roles["default_role"] is None and "build" in roles["with_tools"]
    assert roles["open_on"] == "build"

    cfg = Path(env["NEURALGENTICS_CONFIG_DIR"]) / "broker.yaml"
    cfg.write_text(cfg.read_text() + "default_role: coder\n")
    get_settings.cache_clear()
    with TestClient(create_app()) as c:
        roles = c.get("/ui/api/roles", headers=auth()).json()
    assert roles["default_role"] == "coder" and roles["open_on"] is None  # its own catalog


def test_a_login_code_needs_the_owner_token_and_opens_one_session_once(client: TestClient) -> None:
    client.cookies.clear()
    assert client.post("/ui/login-code", json={}).status_code == 401
    bad = client.post("/ui/login-code", json={"scope": "admin"}, headers=auth())
    assert bad.status_code == 422
    made = client.post("/ui/login-code", json={"scope": "read"}, headers=auth())
    assert made.status_code == 200 and made.headers["cache-control"] == "no-store"
    path = made.json()["path"]
    assert path.startswith("/ui/login?code=") and TOKEN not in path
    first = client.get(path, follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/ui/"
    assert "set-cookie" in first.headers
    client.cookies.clear()
    second = client.get(path, follow_redirects=False)
    assert second.status_code == 303 and "set-cookie" not in second.headers
    made_up = client.get("/ui/login?code=nope", follow_redirects=False)
    assert "set-cookie" not in made_up.headers
