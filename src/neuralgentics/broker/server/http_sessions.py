"""Streamable HTTP sessions on ``/mcp``: bound to the credential that opened them, and limited
per credential (issue 29, items 2 and 5).

The SDK's session manager keeps up to 10,000 sessions for everyone together and lets any
request that names a session id use it. Its ids are not secret here (the audit and the
dashboard show them as ``connection``), so:

- a request naming a session is served only for the credential whose ``initialize`` opened
  it (``Principal.label``: the owner, or ``token:<label>``); any other credential gets the
  same 404 as for an unknown session, and the session is untouched (calls and ``DELETE``);
- each credential may hold ``sessions.per_token`` sessions (the owner ``sessions.owner``);
  at the limit its next ``initialize`` ends its own least recently used idle session (no
  request in flight, no open stream), and is refused with 503 only when all of them are busy;
- role tokens together never take the owner's room: they may hold at most the SDK's limit
  minus ``sessions.owner``; past that a role token's ``initialize`` ends the least recently
  used idle role-token session, or is refused.

Every loop here is bounded by the sessions one credential may hold, or (only when role
tokens together are at their cap) by the sessions open.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.responses import Response
from starlette.types import Message, Send

from neuralgentics.broker import mcp_sdk
from neuralgentics.broker.config import SessionsConfig
from neuralgentics.credentials import Principal


@dataclass
class _Session:
    sid: str
    credential: str
    owner: bool
    last_used: float  # time.monotonic()
    busy: int = 0  # requests (or a GET stream) of this session being served


def _jsonrpc_error(message: str, status: int, code: int) -> Response:
    """The SDK's own error shape for session refusals (a JSON-RPC error with no id)."""
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    return Response(json.dumps(body), status_code=status, media_type="application/json")


# Exactly what the SDK answers for an unknown or expired session: a session another
# credential opened must look the same.
SESSION_NOT_FOUND = ("Session not found", 404, -32600)


class SessionBook:
    """Which credential opened each ``/mcp`` session, and the per-credential limits."""

    def __init__(
        self,
        manager: Callable[[], StreamableHTTPSessionManager],
        limits: Callable[[], SessionsConfig],
        on_evict: Callable[[str], None],
    ) -> None:
        self._manager = manager
        self._limits = limits
        self._on_evict = on_evict
        self._by_credential: dict[str, dict[str, _Session]] = {}
        self._sessions: dict[str, _Session] = {}
        self._opening: Counter[str] = Counter()  # initialize requests being answered

    # -- binding -----------------------------------------------------------------------

    def foreign(self, sid: str, principal: Principal) -> bool:
        """True when ``sid`` must be answered as not found for ``principal``: another
        credential opened it (or no ``initialize`` through this front did)."""
        s = self._sessions.get(sid)
        return s is None or s.credential != principal.label

    @staticmethod
    def not_found() -> Response:
        return _jsonrpc_error(*SESSION_NOT_FOUND)

    @contextlib.contextmanager
    def using(self, sid: str) -> Iterator[None]:
        """Around one request of session ``sid``: it is busy (not evicted) while served."""
        s = self._sessions.get(sid)
        if s is None:
            yield
            return
        s.busy += 1
        try:
            yield
        finally:
            s.busy -= 1
            s.last_used = time.monotonic()

    # -- opening -----------------------------------------------------------------------

    async def admit(self, principal: Principal) -> Response | None:
        """Before an ``initialize`` of ``principal``: make room (ending its least recently
        used idle session if it is at its limit) or say why not (a 503 to answer)."""
        limits = self._limits()
        cred = principal.label
        cap = limits.owner if principal.owner else limits.per_token
        mine = self._live(cred)
        for _ in range(len(mine) + self._opening[cred] - cap + 1):
            victim = _oldest_idle(mine.values())
            if victim is None:
                return _jsonrpc_error(
                    f"the credential {cred!r} has {len(mine)} MCP sessions open, the most it "
                    f"may (sessions.{'owner' if principal.owner else 'per_token'} = {cap}), "
                    "and each has a request in flight; end one (DELETE /mcp) or retry later",
                    503,
                    -32603,
                )
            await self._evict(victim)
            mine = self._live(cred)
        if not principal.owner:
            refusal = await self._room_for_tokens(limits)
            if refusal is not None:
                return refusal
        self._opening[cred] += 1
        return None

    async def _room_for_tokens(self, limits: SessionsConfig) -> Response | None:
        """Role tokens together stay below the SDK's limit minus the owner's room."""
        sdk_max = self._manager().max_sessions
        if sdk_max is None:
            return None
        room = max(sdk_max - limits.owner, 0)
        opening = sum(n for c, n in self._opening.items() if c != "owner")
        tokens = [s for s in self._sessions.values() if not s.owner]
        if len(tokens) + opening < room:
            return None
        self._prune_all()
        tokens = [s for s in self._sessions.values() if not s.owner]
        for _ in range(len(tokens) + opening - room + 1):
            victim = _oldest_idle(tokens)
            if victim is None:
                return _jsonrpc_error(
                    f"role tokens hold {len(tokens)} MCP sessions, all they may together "
                    f"(the rest is kept for the owner: sessions.owner = {limits.owner}); "
                    "retry once one ends",
                    503,
                    -32603,
                )
            await self._evict(victim)
            tokens = [s for s in self._sessions.values() if not s.owner]
        return None

    def opening(self, principal: Principal, send: Send) -> Send:
        """``send`` for an admitted ``initialize``: notes the session the SDK opens for it
        (its ``mcp-session-id`` answer header) as ``principal``'s."""

        async def noting(message: Message) -> None:
            if message["type"] == "http.response.start" and message.get("status", 500) < 400:
                for k, v in message.get("headers") or ():
                    if k.lower() == b"mcp-session-id":
                        self._add(v.decode("latin-1"), principal)
            await send(message)

        return noting

    def opened(self, principal: Principal) -> None:
        """The ``initialize`` that ``admit`` let through has been answered (or failed)."""
        cred = principal.label
        self._opening[cred] -= 1
        if self._opening[cred] <= 0:
            del self._opening[cred]

    # -- the book ----------------------------------------------------------------------

    def _add(self, sid: str, principal: Principal) -> None:
        s = _Session(sid, principal.label, principal.owner, time.monotonic())
        self._sessions[sid] = s
        self._by_credential.setdefault(principal.label, {})[sid] = s

    def _drop(self, sid: str) -> None:
        s = self._sessions.pop(sid, None)
        if s is None:
            return
        mine = self._by_credential.get(s.credential)
        if mine is not None:
            mine.pop(sid, None)
            if not mine:
                del self._by_credential[s.credential]

    def _live(self, cred: str) -> dict[str, _Session]:
        """``cred``'s sessions the SDK still serves (those it ended are forgotten here)."""
        alive = mcp_sdk.session_ids(self._manager())
        mine = self._by_credential.get(cred, {})
        for sid in [sid for sid in mine if sid not in alive]:
            self._drop(sid)
        return {sid: s for sid, s in self._by_credential.get(cred, {}).items()}

    def _prune_all(self) -> None:
        alive = mcp_sdk.session_ids(self._manager())
        for sid in [sid for sid in self._sessions if sid not in alive]:
            self._drop(sid)

    async def _evict(self, victim: _Session) -> None:
        sid = victim.sid
        self._drop(sid)
        manager = self._manager()
        transport = mcp_sdk.session_transport(manager, sid)
        if transport is not None:
            await mcp_sdk.discard_session(manager, sid, transport)
        self._on_evict(sid)


def _oldest_idle(sessions: Iterable[_Session]) -> _Session | None:
    idle = [s for s in sessions if s.busy == 0]
    return min(idle, key=lambda s: s.last_used) if idle else None
