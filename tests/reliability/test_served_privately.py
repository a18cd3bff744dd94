"""Issue 13, findings 6 and 11 on a real `neuralgentics serve`: the token given in the
dashboard's address never reaches the access log (or any other line the process writes), and
everything the process keeps on disk is its owner's alone, even when started under the usual
0022 umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from reliability import loopback
from reliability.memini_proc import clean_env, start, stop

TOKEN = "tok-" + "Zq8rW3" * 6
OTHER_SECRET = "k3y-" + "9f" * 12


def test_the_token_never_reaches_the_access_log_and_the_files_are_private(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = clean_env(home, NEURALGENTICS_TOKEN=TOKEN)
    errors, access = tmp_path / "stderr.log", tmp_path / "access.log"
    old = os.umask(0o022)
    try:
        memini = start(env, errors, access_log=access)
    finally:
        os.umask(old)
    try:
        with loopback.client(base_url=memini.url, timeout=60) as c:
            first = c.get("/ui", params={"token": TOKEN}, follow_redirects=False)
            assert first.status_code == 303 and TOKEN not in first.headers["location"]
            cookie = first.headers["set-cookie"]
            assert "HttpOnly" in cookie and "Secure" in cookie
            # a Secure cookie, which httpx keeps for https only (Chromium sends it to loopback)
            session = {"Cookie": cookie.split(";", 1)[0]}
            assert (
                c.get(
                    "/ui/", params={"token": TOKEN, "page": "2"}, follow_redirects=False
                ).status_code
                == 303
            )
            # the cookie from the exchange opens the dashboard's reads on the real server
            assert c.get("/memory", headers=session).status_code == 200
            c.cookies.clear()
            # a credential in the query of any route is kept out of the log too
            assert c.get("/memory", params={"token": TOKEN}).status_code == 401
            c.get("/health", params={"api_key": OTHER_SECRET, "Access_Token": OTHER_SECRET})
            auth = {"Authorization": f"Bearer {TOKEN}"}
            added = c.post("/memory/add", json={"content": "kept on disk, privately"}, headers=auth)
            assert added.status_code == 201, added.text
            assert c.get("/memory", headers=auth).json()["total"] == 1
    finally:
        stop(memini.proc)
    log_text = access.read_text() + errors.read_text()
    assert "GET /ui?token=[redacted] HTTP/1.1" in log_text  # the line is there, the value is not
    assert "page=2" in log_text  # other parameters are kept
    assert TOKEN not in log_text and OTHER_SECRET not in log_text
    # finding 11: the data dir and every file in it
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    files = {p.name: stat.S_IMODE(p.stat().st_mode) for p in home.rglob("*") if p.is_file()}
    assert "memini.db" in files and "memini.db.memories.usearch" in files
    loose = {name: oct(mode) for name, mode in files.items() if mode & 0o077}
    assert not loose, loose
