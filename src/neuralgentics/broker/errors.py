"""Errors the broker reports to callers; each maps to a JSON-RPC code and an HTTP status."""

from __future__ import annotations

# JSON-RPC codes: the spec's INVALID_PARAMS for bad input, server-defined codes otherwise.
INVALID_PARAMS = -32602
ACCESS_DENIED = -32003
NOT_FOUND = -32004
UNAVAILABLE = -32005
TIMEOUT = -32001


class BrokerError(Exception):
    code: int = -32603
    status: int = 500
    # The HTTP fronts' error code ({"error": {"code": <name>, ...}}); `code` is JSON-RPC's.
    name: str = "internal_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidRequest(BrokerError):
    code = INVALID_PARAMS
    status = 400
    name = "invalid_request"


class AccessDenied(BrokerError):
    code = ACCESS_DENIED
    status = 403
    name = "forbidden"

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


class NotFound(BrokerError):
    code = NOT_FOUND
    status = 404
    name = "not_found"


class ServerUnavailable(BrokerError):
    code = UNAVAILABLE
    status = 503
    name = "server_unavailable"


class CallTimeout(BrokerError):
    code = TIMEOUT
    status = 504
    name = "timeout"
