"""Checks every HTTP front needs before a route runs: a request-size limit (413, decided
before the body is read whole), Host/Origin checks against DNS rebinding (421 / 403), a
refusal of requests that another site's page made (Fetch Metadata, 403), and the bearer
token (401) — the one token check of memini-core and the broker.

A browser page on an attacker's domain can re-point that domain at 127.0.0.1 and then talk
to a loopback service as "same origin"; the Host header still carries the attacker's name,
so a service bound to loopback answers only requests addressed to a loopback name. This is
the rule the MCP SDK applies to /mcp (``TransportSecuritySettings``), here for every route.

Mount on a FastAPI/Starlette app::

    app.add_middleware(HTTPGuard, bind_host=settings.host, token=token, open_paths={"/health"})

The token is required on every route but ``GET``/``HEAD`` of ``open_paths``: loopback is not
a trust boundary (other users and processes of the machine reach it too). Served processes
always pass one (``credentials.ensure_token``); an app built in-process without a token
(tests, ``--local``) runs open. The caller it authenticated is put in
``scope["state"]["principal"]`` (``request.state.principal``): the owner, or a role-bound
token from ``authenticate``; the request's headers, lower-cased, in ``scope["state"]["headers"]``.

Pure ASGI (no BaseHTTPMiddleware), so streaming responses and /mcp pass through untouched.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from neuralgentics.credentials import OWNER, Principal, same_token
from neuralgentics.errors import error_body
from neuralgentics.netguard import is_loopback

# A bearer token other than the owner's -> the principal it stands for, or None.
Authenticate = Callable[[str], Principal | None]
# (the request's scope, its raw Cookie header) -> True when a cookie grants this request; a
# message (answered 403) when it names a live session whose scope does not cover it; False
# (memini-core's dashboard sessions: ui/session.DashboardSessions.grants).
CookieCheck = Callable[[Scope, str | None], bool | str]

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
# "testserver" is the Host of Starlette's TestClient; it never resolves through public DNS.
LOOPBACK_HOSTS = (
    "127.0.0.1",
    "127.0.0.1:*",
    "localhost",
    "localhost:*",
    "[::1]",
    "[::1]:*",
    "testserver",
)
LOOPBACK_ORIGINS = (
    "http://127.0.0.1",
    "http://127.0.0.1:*",
    "http://localhost",
    "http://localhost:*",
    "http://[::1]",
    "http://[::1]:*",
)


async def _refuse(
    send: Send,
    status: int,
    code: str,
    message: str,
    extra_headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    body = json.dumps(error_body(code, message)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                *(extra_headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def bearer(headers: dict[str, str]) -> str | None:
    """The token of an ``Authorization: Bearer …`` header (scheme case-insensitive), or None."""
    scheme, _, value = headers.get("authorization", "").strip().partition(" ")
    value = value.strip()
    return value if scheme.lower() == "bearer" and value else None


def _matches(value: str, patterns: Iterable[str]) -> bool:
    """Exact names, or `name:*` for the name with any port (brackets of IPv6 are literal)."""
    value = value.lower()
    for p in patterns:
        p = p.lower()
        if p.endswith(":*"):
            base = p[:-2]
            if value == base or (value.startswith(base + ":") and value[len(base) + 1 :].isdigit()):
                return True
        elif value == p:
            return True
    return False


class HTTPGuard:
    """`bind_host`: the address the service listens on. On loopback, only loopback Host names
    (and loopback Origins, when a browser sends one) are served; elsewhere `allowed_hosts`
    (None = any) may narrow the names. `token`: the owner's bearer token (None: no token
    check, for apps run in-process); `authenticate` maps any other token to a principal."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        bind_host: str = "127.0.0.1",
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        allowed_hosts: Iterable[str] | None = None,
        allowed_origins: Iterable[str] | None = None,
        token: str | None = None,
        authenticate: Authenticate | None = None,
        open_paths: Iterable[str | tuple[str, str]] = ("/health",),
        cookie_check: CookieCheck | None = None,
        body_limits: Mapping[tuple[str, str], int] | None = None,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        # (METHOD, path) -> a larger (or smaller) limit for that one route, e.g. an import
        self.body_limits = dict(body_limits or {})
        self.token = token
        self.authenticate = authenticate
        self.cookie_check = cookie_check
        # "/path": open to GET and HEAD; ("POST", "/path"): open to that method too (a route
        # that checks a credential in its own body, e.g. the dashboard's token → cookie swap).
        self.open: frozenset[tuple[str, str]] = frozenset(
            pair
            for p in open_paths
            for pair in (
                [(p[0].upper(), p[1])] if isinstance(p, tuple) else [("GET", p), ("HEAD", p)]
            )
        )
        loopback = is_loopback(bind_host)
        self.hosts = (
            tuple(allowed_hosts)
            if allowed_hosts is not None
            else (LOOPBACK_HOSTS if loopback else None)
        )
        self.origins = (
            tuple(allowed_origins)
            if allowed_origins is not None
            else (LOOPBACK_ORIGINS if loopback else None)
        )
        # Host values already judged against `hosts` (a client sends the same one every time)
        self._host_ok: dict[str, bool] = {}

    def _host_allowed(self, host: str) -> bool:
        assert self.hosts is not None
        ok = self._host_ok.get(host)
        if ok is None:
            ok = _matches(host, self.hosts)
            if len(self._host_ok) < 64:
                self._host_ok[host] = ok
        return ok

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {
            k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []
        }
        host = headers.get("host", "")
        if self.hosts is not None and not _matches(host, self.hosts):
            await _refuse(
                send,
                421,
                "misdirected_request",
                f"Host {host[:100]!r} is not a name this service answers to (DNS rebinding protection)",
            )
            return
        # Fetch Metadata: a browser marks a request another site's page made (an <img>, a form,
        # a script). Such a request carries no Origin when it is a simple GET, so the Origin
        # rule alone would let any web page start work here, e.g. an indexing job.
        site = headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none") and self.origins is not None:
            await _refuse(
                send,
                403,
                "cross_site_request",
                f"a request made by another site's page ({site}) may not call this service",
            )
            return
        origin = headers.get("origin")
        if origin is not None and self.origins is not None and not _matches(origin, self.origins):
            await _refuse(
                send, 403, "forbidden_origin", f"Origin {origin[:100]!r} may not call this service"
            )
            return
        principal = self._principal(scope, headers)
        if isinstance(principal, str):
            await _refuse(send, 403, "dashboard_scope", principal)
            return
        if principal is None:
            await _refuse(
                send,
                401,
                "unauthorized",
                "missing or wrong bearer token: send 'Authorization: Bearer <token>' "
                "(NEURALGENTICS_TOKEN, or the 'token' file in the neuralgentics config dir)",
                [(b"www-authenticate", b'Bearer realm="neuralgentics"')],
            )
            return
        state = scope.setdefault("state", {})
        state["principal"] = principal
        # The lower-cased headers, for an app that wants them without decoding them again.
        state["headers"] = headers
        limit = self.body_limits.get(
            (scope.get("method", ""), scope.get("path", "")), self.max_body_bytes
        )
        length = headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                await _refuse(send, 400, "bad_request", "Content-Length is not a number")
                return
            if int(length) > limit:
                await _refuse(
                    send,
                    413,
                    "request_too_large",
                    f"request body of {length} bytes is over the limit of {limit}",
                )
                return

        # A chunked body has no length up front: count while it streams in, and at the limit
        # answer 413 ourselves and tell the app the client left (so it stops reading).
        seen = 0
        started = refused = False

        async def counted_receive() -> Message:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit and not started:
                    refused = True
                    await _refuse(
                        send,
                        413,
                        "request_too_large",
                        f"request body is over the limit of {limit} bytes",
                    )
                    return {"type": "http.disconnect"}
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 is already out; whatever the app says now is moot
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except Exception:
            if not refused:
                raise

    def admits(self, method: str, path: str, headers: dict[str, str]) -> Principal | None:
        """The principal of a request with a stated length that passes every check above
        (Host, Fetch Metadata, Origin, the bearer token, the body limit) with nothing to
        refuse; None for anything else, which ``__call__`` then answers. For a front that
        answers some requests before an ASGI scope exists (``broker/server/http_protocol``)."""
        if self.cookie_check is not None or "transfer-encoding" in headers:
            return None
        if self.hosts is not None and not self._host_allowed(headers.get("host", "")):
            return None
        site = headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none") and self.origins is not None:
            return None
        origin = headers.get("origin")
        if origin is not None and self.origins is not None and not _matches(origin, self.origins):
            return None
        length = headers.get("content-length")
        limit = self.body_limits.get((method, path), self.max_body_bytes)
        if length is None or not length.isdigit() or int(length) > limit:
            return None
        principal = self._principal({"type": "http", "method": method, "path": path}, headers)
        return principal if isinstance(principal, Principal) else None

    def _principal(self, scope: Scope, headers: dict[str, str]) -> Principal | str | None:
        """Who is calling; None when a token is required and the request has no valid one; a
        message when a dashboard session may not make this request."""
        if self.token is None:
            return OWNER  # in-process app: whoever holds the object is its owner
        given = bearer(headers)
        known: Principal | None = None
        if given is not None:
            if same_token(given, self.token):
                known = OWNER
            elif self.authenticate is not None:
                known = self.authenticate(given)
        method, path = scope.get("method", ""), scope.get("path", "")
        if known is None and self.cookie_check is not None:
            verdict = self.cookie_check(scope, headers.get("cookie"))
            if verdict is True:
                return DASHBOARD_SESSION
            if isinstance(verdict, str) and (method, path) not in self.open:
                return verdict
        if known is None and (method, path) in self.open:
            return ANONYMOUS
        return known


# Who reads an open path (GET /health, the dashboard's page shell) without the owner token.
ANONYMOUS = Principal(owner=False, role=None, label="anonymous")
# A request a cookie_check granted: the owner's browser, for the reads the cookie allows.
DASHBOARD_SESSION = Principal(owner=True, role=None, label="dashboard session")
