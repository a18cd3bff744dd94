"""Errors the broker reports to callers: the shared kinds of `neuralgentics.errors`, marked as
the broker's, each with the JSON-RPC code its MCP fronts send (`rpc_code`); the REST front
answers `status` and `code` like every other HTTP front."""

from __future__ import annotations

from typing import Any

from neuralgentics import errors

# JSON-RPC codes: the spec's INVALID_PARAMS for bad input, server-defined codes otherwise.
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
ACCESS_DENIED = -32003
NOT_FOUND = -32004
UNAVAILABLE = -32005
TIMEOUT = -32001


class BrokerError(errors.NeuralgenticsError):
    """Any error of the broker."""

    rpc_code: int = INTERNAL_ERROR


class InvalidRequest(BrokerError, errors.InvalidInput):
    rpc_code = INVALID_PARAMS
    status = 400
    code = "invalid_request"


class AccessDenied(BrokerError, errors.Forbidden):
    rpc_code = ACCESS_DENIED

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule

    def detail(self) -> dict[str, Any]:
        return {**super().detail(), "rule": self.rule}


class NotFound(BrokerError, errors.NotFound):
    rpc_code = NOT_FOUND


class Conflict(BrokerError, errors.Conflict):
    rpc_code = INVALID_PARAMS


class ServerUnavailable(BrokerError, errors.Unavailable):
    rpc_code = UNAVAILABLE
    code = "server_unavailable"


class CallTimeout(BrokerError, errors.Unavailable):
    rpc_code = TIMEOUT
    status = 504
    code = "timeout"
