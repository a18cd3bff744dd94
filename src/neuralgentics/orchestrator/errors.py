"""Errors the orchestrator raises; the HTTP layer maps each to one status code, the CLI to exit 2."""

from __future__ import annotations

from neuralgentics.errors import NeuralgenticsError


class OrchestratorError(NeuralgenticsError):
    pass


class InvalidInput(OrchestratorError):
    status = 422
    code = "invalid_input"


class NotFound(OrchestratorError):
    status = 404
    code = "not_found"


class ConfigError(OrchestratorError):
    """A roster/routing file the user wrote is wrong; names the file and the field."""

    status = 500
    code = "config_error"


class StepRefused(OrchestratorError):
    """A Boomerang step asked for out of order, twice, or with what its rules forbid."""

    status = 409
    code = "step_refused"

    def __init__(self, message: str, *, missing_step: str | None = None, field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.missing_step = missing_step

    def detail(self) -> dict:
        return {**super().detail(), "missing_step": self.missing_step}


class MemoryUnavailable(OrchestratorError):
    status = 503
    code = "memory_unavailable"
