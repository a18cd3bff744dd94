"""The dashboard's routes, all under /ui.

- ``GET /ui`` and ``GET /ui/assets/{name}``: the page and its static files. They hold no
  data, so they are open even when NEURALGENTICS_TOKEN is set (``PUBLIC_PATHS``).
  ``/ui?token=…`` trades the token for a server-side session (an HttpOnly cookie naming it)
  and redirects to the page without it (``session.py``); ``POST /ui/session`` does the same
  for a token typed into the page, ``DELETE /ui/session`` ends it. The browser then sends the
  cookie with every data request; it opens the pages' reads (``scope=write``: and indexing).
- ``/ui/api/...``: read-only JSON the pages need beyond memini-core's own routes, behind the
  same token as the rest of the API.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import JSONResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field

from neuralgentics import __version__, jsonsafe
from neuralgentics.config import Settings
from neuralgentics.http_errors import error as _error
from neuralgentics.memini import ChunkStore, chunk_store
from neuralgentics.provided import provided
from neuralgentics.ui import audit_view, project_view, session
from neuralgentics.ui.assets import ASSETS
from neuralgentics.ui.broker_client import BrokerClient, BrokerUnreachable, allowed, normalise

router = APIRouter(prefix="/ui", tags=["dashboard"], include_in_schema=False)

PUBLIC_PATHS: frozenset[str] = frozenset(
    {"/ui", "/ui/"} | {f"/ui/assets/{name}" for name in ASSETS}
)


async def ui_settings(request: Request) -> Settings:
    """The service's settings (its token, the broker's address); provided by the composition
    root. The project views use memini's `chunk_store` dependency, wired there too."""
    return provided(request, ui_settings)


async def ui_sessions(request: Request) -> session.DashboardSessions:
    """The process's dashboard sessions (HTTPGuard asks them too); wired by the composition
    root."""
    return provided(request, ui_sessions)


UISettings = Annotated[Settings, Depends(ui_settings)]
Sessions = Annotated[session.DashboardSessions, Depends(ui_sessions)]
Chunks = Annotated[Callable[[], ChunkStore], Depends(chunk_store)]


def _unreachable(exc: BrokerUnreachable) -> JSONResponse:
    return _error(
        502,
        "broker_unreachable",
        f"the broker is not reachable at {exc.url} ({exc.reason}); start it with "
        "`neuralgentics broker serve` or `neuralgentics up`",
    )


# -- page and static files -------------------------------------------------------------------


def _scope_of(value: str | None) -> session.SessionScope | None:
    return value if value in session.SCOPES else None


def _exchange_token(
    request: Request, settings: Settings, sessions: session.DashboardSessions
) -> Response | None:
    """`?token=…` in the address: answer with a new session's cookie (when the token is
    right) and a redirect to the same page without it, so the token leaves the address bar,
    the history and the page at once. A wrong token just goes: the page then asks for it.
    `&scope=write` asks for a session that may also do what the pages change."""
    if "token" not in request.query_params:
        return None
    rest = session.without_token(request.url.query)
    response = RedirectResponse("/ui/" + (f"?{rest}" if rest else ""), status_code=303)
    response.headers.update({"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})
    token = settings.token
    if token and session.token_matches(request.query_params.get("token"), token):
        wanted = _scope_of(request.query_params.get("scope")) or "read"
        _login(request, sessions, response, wanted)
    return response


def _login(
    request: Request,
    sessions: session.DashboardSessions,
    response: Response,
    wanted: session.SessionScope,
) -> None:
    """A new session (the one the browser held, if any, ends: rotated on every login)."""
    held = sessions.held(request.scope, request.headers.get("cookie"))
    sid = sessions.open(request.scope, wanted, replacing=held)
    sessions.set_cookie(response, request.scope, sid)


@router.get("")
def index_redirect(request: Request, settings: UISettings, sessions: Sessions) -> Response:
    exchanged = _exchange_token(request, settings, sessions)
    if exchanged is not None:
        return exchanged
    query = request.url.query
    return RedirectResponse(f"/ui/?{query}" if query else "/ui/", status_code=307)


class SessionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: str = Field(min_length=1, max_length=4096)
    # "write": the session may also do what the pages change (start indexing)
    scope: session.SessionScope = "read"


@router.post("/session", status_code=204)
def open_session(
    request: Request, settings: UISettings, sessions: Sessions, body: SessionRequest
) -> Response:
    """The token typed into the page's banner, exchanged for a new session's cookie."""
    token = settings.token
    if token and not session.token_matches(body.token, token):
        return _error(401, "unauthorized", "missing or wrong bearer token", "token")
    response = Response(status_code=204)
    if token:
        _login(request, sessions, response, body.scope)
    return response


class LoginCodeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    scope: session.SessionScope = "read"


@router.post("/login-code")
def make_login_code(request: Request, sessions: Sessions, body: LoginCodeRequest) -> Response:
    """For `neuralgentics ui` (the owner's token): a one-time address that opens the
    dashboard signed in, so the token never sits in a URL the browser keeps."""
    if not request.state.principal.owner:
        return _error(403, "forbidden", "only the owner's token may open a dashboard session")
    code = sessions.login_code(body.scope)
    return JSONResponse(
        {
            "path": f"/ui/login?code={code}",
            "scope": body.scope,
            "expires_in": session.LOGIN_CODE_SECONDS,
        },
        headers={"Cache-Control": "no-store"},
    )


@router.get("/login")
def login_with_code(request: Request, sessions: Sessions, code: str | None = None) -> Response:
    """A code from `POST /ui/login-code`, traded once for a session; then the page, without
    the code in the address. A used, expired or made-up code opens nothing."""
    response = RedirectResponse("/ui/", status_code=303)
    response.headers.update({"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})
    wanted = sessions.redeem(code)
    if wanted is not None:
        _login(request, sessions, response, wanted)
    return response


@router.delete("/session", status_code=204)
def close_session(request: Request, sessions: Sessions) -> Response:
    """Log out: the session ends on the server, and its cookie in the browser."""
    sessions.end(sessions.held(request.scope, request.headers.get("cookie")))
    response = Response(status_code=204)
    sessions.clear_cookie(response, request.scope)
    return response


# Only the dashboard's own files may run or load; no framing (clickjacking), no plug-ins.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@router.get("/", name="ui_index")
def index(request: Request, settings: UISettings, sessions: Sessions) -> Response:
    exchanged = _exchange_token(request, settings, sessions)
    if exchanged is not None:
        return exchanged
    page = ASSETS["index.html"]
    return Response(
        page.body,
        media_type=page.media_type,
        headers={"Cache-Control": "no-store", **SECURITY_HEADERS},
    )


@router.get("/assets/{name:path}")
def asset(name: str) -> Response:
    found = ASSETS.get(name)
    if found is None or name == "index.html":
        return _error(404, "not_found", f"no dashboard file {name!r}")
    return Response(
        found.body,
        media_type=found.media_type,
        headers={"Cache-Control": "no-cache", **SECURITY_HEADERS},
    )


# -- JSON for the pages ----------------------------------------------------------------------


@router.get("/api/info")
def info(request: Request, settings: UISettings) -> dict[str, Any]:
    """What the page needs to know about where it runs."""
    # Included routers are not flat in app.routes (FastAPI wraps them); the schema lists all.
    paths = set(request.app.openapi().get("paths", {}))
    return {
        "version": __version__,
        "token_required": bool(settings.token),
        "broker_url": BrokerClient(settings).base,
        "indexer": "/project/list" in paths,
        "orchestrator": any(p.startswith("/orchestrator") for p in paths),
    }


@router.get("/api/audit")
def audit(
    settings: UISettings,
    role: str | None = None,
    server: str | None = None,
    outcome: str | None = None,
    tool: str | None = None,
    limit: int = Query(200, ge=1, le=5000),
) -> dict[str, Any]:
    """The broker's audit records, newest first, filtered; facets and a latency histogram."""
    flt = audit_view.AuditFilter(role or None, server or None, outcome or None, tool or None)
    try:
        view = audit_view.read_audit(flt, settings, limit=limit)
    except Exception as exc:  # noqa: BLE001 - a bad broker config is shown, not a 500
        return {
            "source": None,
            "total": 0,
            "matched": 0,
            "records": [],
            "facets": {},
            "histogram": audit_view.histogram([]),
            "outcomes": {},
            "error": f"cannot read the audit log: {exc}",
        }
    return view.__dict__


@router.get("/api/broker-status")
async def broker_status(settings: UISettings) -> dict[str, Any]:
    """Whether the broker answers, and its servers. Always 200: a stopped broker is a state
    the overview shows, not an error of this request."""
    client = BrokerClient(settings)
    out: dict[str, Any] = {
        "url": client.base,
        "reachable": False,
        "error": None,
        "health": None,
        "servers": [],
    }
    try:
        health = await client.request("GET", "health")
        servers = await client.request("GET", "servers")
    except BrokerUnreachable as exc:
        out["error"] = (
            f"not reachable at {exc.url} ({exc.reason}); start it with "
            "`neuralgentics broker serve` or `neuralgentics up`"
        )
        return out
    out["reachable"] = True
    if health.status_code != 200 or servers.status_code != 200:
        bad = servers if servers.status_code != 200 else health
        message = (
            bad.json().get("error", {}).get("message")
            if bad.headers.get("content-type", "").startswith("application/json")
            else bad.text[:300]
        )
        out["error"] = f"the broker answered {bad.status_code}: {message}"
        return out
    out["health"], out["servers"] = health.json(), servers.json()
    return out


@router.get("/api/roles")
def roles(settings: UISettings) -> dict[str, Any]:
    """Roles from the broker config memini-core sees (the catalog's role menu)."""
    from neuralgentics.broker import AccessPolicy, ConfigError, load_config

    try:
        cfg = load_config(audit_view.broker_config_path(settings), missing_ok=True)
    except ConfigError as exc:
        return {"roles": [], "default_role": None, "with_tools": [], "error": str(exc)}
    policy = AccessPolicy(cfg.roles)
    servers = list(cfg.brokered())
    with_tools = sorted(
        r for r in cfg.roles if any(policy.may_see_server(r, srv) for srv in servers)
    )
    return {
        "roles": sorted(cfg.roles),
        "default_role": cfg.default_role,
        "with_tools": with_tools,
        "open_on": _first_role_shown(cfg.default_role, with_tools),
    }


def _first_role_shown(default_role: str | None, with_tools: list[str]) -> str | None:
    """The catalog the Broker page opens on: the default role's, unless it sees no server (a
    fresh `broker add` writes no default role, and an unknown role sees nothing); then
    OpenCode's default agent `build`, else the first role that sees one."""
    if default_role in with_tools or not with_tools:
        return None  # the default role itself
    return "build" if "build" in with_tools else with_tools[0]


@router.get("/api/catalog")
async def catalog(settings: UISettings, role: str | None = None) -> Response:
    try:
        result = await BrokerClient(settings).catalog(role or None)
    except BrokerUnreachable as exc:
        return _unreachable(exc)
    return JSONResponse(result["body"], status_code=result["status"])


@router.api_route("/api/broker/{path:path}", methods=["GET", "POST"])
async def broker_proxy(request: Request, settings: UISettings, path: str) -> Response:
    """Forward one of the broker's read routes (and POST /match): normalised first, then
    checked against the allow-list, then sent segment by segment as checked."""
    clean = normalise(path)
    if clean is None or not allowed(request.method, clean):
        return _error(
            404,
            "not_found",
            f"{request.method} /{jsonsafe.shown(path, 200)} is not forwarded to the broker",
        )
    path = clean
    body = None
    if request.method == "POST":
        try:
            body = await request.json()
        except ValueError:
            return _error(422, "invalid_input", "the request body is not JSON")
    headers = {k: v for k, v in request.headers.items() if k.lower() == "x-neuralgentics-role"}
    try:
        resp = await BrokerClient(settings).request(
            request.method,
            path,
            params=list(request.query_params.multi_items()),
            json=body,
            headers=headers,
        )
    except BrokerUnreachable as exc:
        return _unreachable(exc)
    return Response(
        resp.content,
        status_code=resp.status_code,
        media_type=resp.headers.get("content-type", "application/json"),
    )


@router.get("/api/project/files")
def project_files(
    store: Chunks,
    root: str = Query(..., min_length=1),
    limit: int = Query(project_view.MAX_LISTED, ge=1, le=50_000),
) -> dict[str, Any]:
    return project_view.project_files(store(), root, limit)


@router.get("/api/project/skipped")
def project_skipped(
    store: Chunks,
    root: str = Query(..., min_length=1),
    limit: int = Query(project_view.MAX_LISTED, ge=1, le=50_000),
) -> dict[str, Any]:
    return project_view.skipped_files(store(), root, limit)
