"""Errors the orchestrator raises: the shared kinds of `neuralgentics.errors`, marked as the
orchestrator's; the HTTP routes answer each with its status, the CLI exits as `neuralgentics.exits` maps it."""

from __future__ import annotations

from typing import Any

from neuralgentics import errors


class OrchestratorError(errors.NeuralgenticsError):
    """Any error of the orchestrator."""


class InvalidInput(OrchestratorError, errors.InvalidInput):
    pass


class NotFound(OrchestratorError, errors.NotFound):
    pass


class RosterError(OrchestratorError, errors.InvalidConfig):
    """A roster/routing file the user wrote is wrong; names the file and the field. (Named
    apart from `broker.config.ConfigError`, which is about broker.yaml.)"""


class StepRefused(OrchestratorError, errors.Conflict):
    """A Boomerang step asked for out of order, twice, or with what its rules forbid."""

    code = "step_refused"

    def __init__(
        self,
        message: str,
        *,
        missing_step: str | None = None,
        field: str | None = None,
        suggested_agents: list[str] | None = None,
    ) -> None:
        super().__init__(message, field=field)
        self.missing_step = missing_step
        # an agent refused by the routing matrix: whom to delegate to instead
        self.suggested_agents = list(suggested_agents or [])

    def detail(self) -> dict[str, Any]:
        out = {**super().detail(), "missing_step": self.missing_step}
        if self.suggested_agents:
            out["suggested_agents"] = self.suggested_agents
        return out


class MemoryUnavailable(OrchestratorError, errors.Unavailable):
    code = "memory_unavailable"
