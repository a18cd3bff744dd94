"""The dashboard's session cookie: `/ui?token=…` is exchanged for it once, so the token is not
kept in the address bar, the history, the page's storage or (see neuralgentics.logredact) the
access log.

The cookie is HttpOnly (no script can read it), SameSite=Strict (a browser sends it only on
requests that start on this origin) and Path=/. Its value is not the token itself but an HMAC
of it, so a leaked cookie opens the dashboard's reads and nothing else: it is accepted on
GET/HEAD and on the few POST routes that only read (`COOKIE_POSTS`); every write still needs
`Authorization: Bearer <token>`. Changing the token invalidates every cookie.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from urllib.parse import parse_qsl, urlencode

from starlette.requests import cookie_parser
from starlette.responses import Response

COOKIE = "neuralgentics_session"
# Open without the bearer (HTTPGuard open paths): the banner's token → cookie swap checks the
# token in its body itself; clearing the cookie changes no state.
SESSION_ROUTES = frozenset({("POST", "/ui/session"), ("DELETE", "/ui/session")})
# Routes the dashboard POSTs to that only read.
COOKIE_POSTS = frozenset({"/memory/query", "/project/search", "/ui/api/broker/match"})
# The user's verdict buttons (issue 28): a person at the dashboard confirms or rejects a memory.
# SameSite=Strict and the Origin/Fetch-Metadata checks keep other sites' pages from pressing them.
COOKIE_VERDICTS = re.compile(
    r"/memory/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/(confirm|reject)"
)
_CONTEXT = b"neuralgentics dashboard session v1"


def session_value(token: str) -> str:
    return hmac.new(token.encode(), _CONTEXT, hashlib.sha256).hexdigest()


def cookie_grants(method: str, path: str, cookie_header: str | None, token: str) -> bool:
    """True when a request (method, path, its raw `Cookie` header) carries a valid session
    cookie and is one the cookie may make: GET/HEAD, or a POST that only reads. HTTPGuard's
    `cookie_check`: it asks after the bearer token was missing or wrong."""
    if method not in ("GET", "HEAD") and not (
        method == "POST" and (path in COOKIE_POSTS or COOKIE_VERDICTS.fullmatch(path))
    ):
        return False
    given = cookie_parser(cookie_header or "").get(COOKIE)
    if not given:
        return False
    return hmac.compare_digest(given.encode(), session_value(token).encode())


def set_cookie(response: Response, token: str) -> None:
    response.set_cookie(COOKIE, session_value(token), httponly=True, samesite="strict", path="/")


def clear_cookie(response: Response) -> None:
    response.delete_cookie(COOKIE, httponly=True, samesite="strict", path="/")


def token_matches(given: str | None, token: str | None) -> bool:
    return bool(given and token) and hmac.compare_digest(given.encode(), token.encode())  # type: ignore[union-attr]


def without_token(query: str) -> str:
    """The query string without its `token` parameter(s), the rest kept in order."""
    kept = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != "token"]
    return urlencode(kept)
