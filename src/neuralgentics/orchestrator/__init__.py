"""The orchestrator: routing matrix, skills, context packages and the 8-step Boomerang protocol."""

from neuralgentics.orchestrator.service import Orchestrator, default_orchestrator, is_allowed, select_agent

__all__ = ["Orchestrator", "default_orchestrator", "is_allowed", "select_agent"]
