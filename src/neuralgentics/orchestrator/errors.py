"""Errors the orchestrator raises: the shared kinds of `neuralgentics.errors`, marked as the
orchestrator's; the HTTP routes answer each with its status, the CLI exits 2."""

from __future__ import annotations

from typing import Any

from neuralgentics import errors


class OrchestratorError(errors.NeuralgenticsError):
    """Any error of the orchestrator."""


class InvalidInput(OrchestratorError, errors.InvalidInput):
    pass


class NotFound(OrchestratorError, errors.NotFound):
    pass


class ConfigError(OrchestratorError):
    """A roster/routing file the user wrote is wrong; names the file and the field."""

    status = 500
    code = "config_error"


class StepRefused(OrchestratorError, errors.Conflict):
    """A Boomerang step asked for out of order, twice, or with what its rules forbid."""

    code = "step_refused"

    def __init__(
        self, message: str, *, missing_step: str | None = None, field: str | None = None
    ) -> None:
        super().__init__(message, field=field)
        self.missing_step = missing_step

    def detail(self) -> dict[str, Any]:
        return {**super().detail(), "missing_step": self.missing_step}


class MemoryUnavailable(OrchestratorError, errors.Unavailable):
    code = "memory_unavailable"
