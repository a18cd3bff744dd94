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

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidRequest(BrokerError):
    code = INVALID_PARAMS
    status = 400


class AccessDenied(BrokerError):
    code = ACCESS_DENIED
    status = 403

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


class NotFound(BrokerError):
    code = NOT_FOUND
    status = 404


class ServerUnavailable(BrokerError):
    code = UNAVAILABLE
    status = 503


class CallTimeout(BrokerError):
    code = TIMEOUT
    status = 504
