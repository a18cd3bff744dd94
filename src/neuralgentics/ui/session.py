"""The dashboard's session: `/ui?token=…` (or the token typed into the page's banner) is
exchanged once for a session cookie, so the token is not kept in the address bar, the
history, the page's storage or (see neuralgentics.logredact) the access log.

The session is the server's (issue 29, item 3): a random id (256 bits) that names an entry in
this process's ``DashboardSessions``; it expires (8 h idle, 24 h at most), a new login makes a
new one and ends the one the browser held (rotation), logging out ends it, and a restart —
the way the token is rotated — ends them all. It used to be a fixed HMAC of the owner token
that never expired, and browsers scope cookies by host, not by port: Chromium sent it to every
service on 127.0.0.1, and another memini-core with the same token accepted it.

Scoping: Chromium (checked with 156 on http://127.0.0.1) accepts ``Secure`` cookies and the
``__Host-`` prefix on loopback over plain HTTP, and still sends them to every port of the host.
So the cookie is ``__Host-neuralgentics_session_<port>`` (host-only, ``Path=/``, ``Secure``,
``HttpOnly``, ``SameSite=Strict``): one per port, so two dashboards do not overwrite each
other's, and the session is bound to the port it was made on; another service on another
port knows no such session. Where the host is not a loopback name or HTTPS (an in-process
test client) the cookie drops ``Secure`` and the prefix, which a browser would refuse.

Scope: ``read`` unless the user asks for more (``/ui?token=…&scope=write``, or ``scope`` in
``POST /ui/session``). A read session opens the routes the dashboard's pages read
(``READ_GETS``, ``READ_POSTS``) and nothing else — not ``GET /memory/export`` (every memory)
nor ``/project/index`` (starts indexing). ``write`` adds what the dashboard's pages change
(``WRITES``). Everything else still needs ``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import hmac
import re
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qsl, urlencode

from starlette.requests import cookie_parser
from starlette.responses import Response
from starlette.types import Scope

SessionScope = Literal["read", "write"]
SCOPES: tuple[SessionScope, ...] = ("read", "write")

# `neuralgentics ui`: a one-time code in the address opens a session, so the token itself never
# reaches a URL the browser keeps; the code works once, for a minute.
LOGIN_CODE_SECONDS = 60
MAX_LOGIN_CODES = 16
LOGIN_ROUTE = ("GET", "/ui/login")

COOKIE_PREFIX = "neuralgentics_session_"
# Open without the bearer (HTTPGuard open paths): the banner's token → cookie swap checks the
# token in its body itself; ending a session needs nothing but the cookie.
SESSION_ROUTES = frozenset({("POST", "/ui/session"), ("DELETE", "/ui/session"), LOGIN_ROUTE})
# What the pages read: GET routes by prefix (exact path, or the path and what is below it) …
READ_GETS = ("/ui", "/health", "/memory", "/project/list", "/project/index/")
# … but never these: every memory at once; starting an indexing job.
NOT_READS = frozenset({"/memory/export", "/project/index"})
# Routes the dashboard POSTs to that only read.
READ_POSTS = frozenset({"/memory/query", "/project/search", "/ui/api/broker/match"})
# What the pages change, for a session opened with scope=write: (method, path prefix).
WRITES = (("GET", "/project/index"), ("POST", "/project/index"))
# … and the user's verdict buttons on a memory (issue 28): a person at the dashboard confirms
# or rejects it. SameSite=Strict and the Origin/Fetch-Metadata checks keep other sites' pages
# from pressing them; a read session cannot.
VERDICTS = re.compile(
    r"/memory/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/(confirm|reject)"
)

IDLE_SECONDS = 8 * 3600
MAX_SECONDS = 24 * 3600
MAX_SESSIONS = 64  # the oldest ends when a new one would be the 65th


@dataclass
class _Session:
    scope: SessionScope
    port: int
    created: float  # time.monotonic()
    seen: float


def _port(scope: Scope) -> int:
    server = scope.get("server") or ("", 0)
    return int(server[1] or 0)


def _secure_context(scope: Scope) -> bool:
    """True where a browser keeps a ``Secure`` cookie: HTTPS, or a loopback name."""
    if scope.get("scheme") == "https":
        return True
    host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1").lower()
    name = host.rsplit(":", 1)[0] if not host.startswith("[") else host.split("]")[0] + "]"
    return name in ("127.0.0.1", "localhost", "[::1]")


def cookie_name(scope: Scope) -> str:
    name = f"{COOKIE_PREFIX}{_port(scope)}"
    return f"__Host-{name}" if _secure_context(scope) else name


def _reads(method: str, path: str) -> bool:
    if method in ("GET", "HEAD"):
        if path in NOT_READS:
            return False
        return any(path == p or path.startswith(p.rstrip("/") + "/") for p in READ_GETS)
    return method == "POST" and path in READ_POSTS


def _writes(method: str, path: str) -> bool:
    if method == "POST" and VERDICTS.fullmatch(path):
        return True
    return any(method == m and (path == p or path.startswith(p + "/")) for m, p in WRITES)


class DashboardSessions:
    """This process's dashboard sessions (memory only: a restart ends them)."""

    def __init__(self) -> None:
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._codes: OrderedDict[str, tuple[SessionScope, float]] = OrderedDict()

    def login_code(self, wanted: SessionScope = "read") -> str:
        """A code that `redeem` trades once, within LOGIN_CODE_SECONDS, for a session."""
        while len(self._codes) >= MAX_LOGIN_CODES:
            self._codes.popitem(last=False)
        code = secrets.token_urlsafe(32)
        self._codes[code] = (wanted, time.monotonic())
        return code

    def redeem(self, code: str | None) -> SessionScope | None:
        """The scope a live code was made for (the code is gone after this), or None."""
        entry = self._codes.pop(code, None) if code else None
        if entry is None or time.monotonic() - entry[1] > LOGIN_CODE_SECONDS:
            return None
        return entry[0]

    def open(
        self, scope: Scope, wanted: SessionScope = "read", replacing: str | None = None
    ) -> str:
        """A new session for the request ``scope``; ``replacing``: the one the browser held."""
        if replacing:
            self._sessions.pop(replacing, None)
        while len(self._sessions) >= MAX_SESSIONS:
            self._sessions.popitem(last=False)
        sid = secrets.token_urlsafe(32)
        now = time.monotonic()
        self._sessions[sid] = _Session(wanted, _port(scope), now, now)
        return sid

    def end(self, sid: str | None) -> None:
        if sid:
            self._sessions.pop(sid, None)

    def end_all(self) -> None:
        self._sessions.clear()

    def _live(self, sid: str, scope: Scope) -> _Session | None:
        s = self._sessions.get(sid)
        if s is None:
            return None
        now = time.monotonic()
        if now - s.seen > IDLE_SECONDS or now - s.created > MAX_SECONDS:
            del self._sessions[sid]
            return None
        if s.port != _port(scope):
            return None
        s.seen = now
        return s

    def held(self, scope: Scope, cookie_header: str | None) -> str | None:
        """The session id the request's cookie names (valid or not)."""
        return cookie_parser(cookie_header or "").get(cookie_name(scope)) or None

    def grants(self, scope: Scope, cookie_header: str | None) -> bool | str:
        """HTTPGuard's ``cookie_check``: True when the request's session may make it; a
        message when it is a live session whose scope does not cover it; False otherwise."""
        sid = self.held(scope, cookie_header)
        s = self._live(sid, scope) if sid else None
        if s is None:
            return False
        method, path = scope.get("method", ""), scope.get("path", "")
        if _reads(method, path) or (s.scope == "write" and _writes(method, path)):
            return True
        if _writes(method, path):
            return (
                "this dashboard session is read-only; to index or confirm memories from the "
                "dashboard, open it with `neuralgentics ui --write` (or /ui?token=<token>&scope=write)"
            )
        return False

    def set_cookie(self, response: Response, scope: Scope, sid: str) -> None:
        response.set_cookie(
            cookie_name(scope),
            sid,
            max_age=MAX_SECONDS,
            httponly=True,
            samesite="strict",
            path="/",
            secure=_secure_context(scope),
        )

    def clear_cookie(self, response: Response, scope: Scope) -> None:
        response.delete_cookie(
            cookie_name(scope),
            httponly=True,
            samesite="strict",
            path="/",
            secure=_secure_context(scope),
        )


def token_matches(given: str | None, token: str | None) -> bool:
    return bool(given and token) and hmac.compare_digest(given.encode(), token.encode())  # type: ignore[union-attr]


def without_token(query: str) -> str:
    """The query string without its `token` and `scope` parameters, the rest kept in order."""
    kept = [
        (k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k not in ("token", "scope")
    ]
    return urlencode(kept)
