"""The routing matrix applied to a task: which agent takes it and whether a given agent may.

`select_agent(task)` and `is_allowed(task, agent)` are the calls behind `neuralgentics route`,
POST /orchestrator/route and the plugin's `tool.execute.before` check.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from neuralgentics.orchestrator.classify import Classification, TaskClassifier
from neuralgentics.orchestrator.config import OrchestratorConfig

# OpenCode's `general` subagent: the matrix forbids it for every task type it recognises, and
# it takes what no type recognises ("no rule names a better one", the roster says).
FALLBACK_AGENT = "general"


@dataclass
class TypeRoute:
    task_type: str
    label: str
    probability: float
    primary: str
    forbidden: list[str]
    verify_with: list[str]


@dataclass
class RouteDecision:
    task: str
    task_type: str
    label: str
    confidence: float
    ambiguous: bool
    primary_agent: str
    forbidden_agents: list[str]
    verify_with: list[str]
    # one entry, or two when the text is ambiguous between types
    candidates: list[TypeRoute]
    reasons: list[str]
    # a piece of work of a recognised type (not a question): worth delegating
    delegable: bool = True
    # some keyword rule or example of the matrix names the text
    recognised: bool = True
    agent: str | None = None
    allowed: bool | None = None
    allowed_reason: str | None = None
    suggested_agents: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class Allowed:
    allowed: bool
    reason: str
    suggested_agents: list[str]

    def __bool__(self) -> bool:
        return self.allowed


class Router:
    def __init__(self, config: OrchestratorConfig, classifier: TaskClassifier) -> None:
        self.config = config
        self.classifier = classifier

    def _type_route(self, task_type: str, probability: float) -> TypeRoute:
        spec = self.config.task_types[task_type]
        return TypeRoute(
            task_type,
            spec.label,
            round(probability, 4),
            spec.primary,
            list(spec.forbidden),
            list(spec.verify_with),
        )

    def decide(self, task: str, classification: Classification | None = None) -> RouteDecision:
        c = classification or self.classifier.classify(task)
        candidates = [self._type_route(s.task_type, s.probability) for s in c.candidates]
        best = candidates[0]
        return RouteDecision(
            task=task,
            task_type=c.task_type,
            label=best.label,
            confidence=c.confidence,
            ambiguous=c.ambiguous,
            primary_agent=best.primary,
            forbidden_agents=best.forbidden,
            verify_with=best.verify_with,
            candidates=candidates,
            reasons=c.reasons,
            delegable=c.delegable,
            recognised=c.recognised,
        )

    def select_agent(self, task: str) -> RouteDecision:
        return self.decide(task)

    def check(self, decision: RouteDecision, agent: str) -> Allowed:
        """Whether `agent` may take the task decided on.

        An agent the roster does not know is refused: the plugin would otherwise let any
        typo or unconfigured subagent through. When the text is ambiguous between two types
        the agent is allowed if either type allows it, so an honest delegation is not blocked
        by a classifier that could not tell.
        """
        primaries = list(dict.fromkeys(c.primary for c in decision.candidates))
        if agent not in self.config.agents:
            return Allowed(
                False,
                f"unknown agent '{agent}'; the roster has: {', '.join(self.config.agents)} "
                f"(add it to .neuralgentics/roster.yaml to use it)",
                primaries,
            )
        if agent == FALLBACK_AGENT and not decision.recognised:
            return Allowed(
                True,
                f"{agent} is the fallback: no task type recognises this text "
                f"(closest: {decision.label})",
                [],
            )
        refusals: list[str] = []
        for c in decision.candidates:
            if agent in c.forbidden:
                refusals.append(f"{c.label} ({c.task_type}) forbids {agent}")
            else:
                how = "is the primary agent" if agent == c.primary else "is not forbidden"
                return Allowed(True, f"{agent} {how} for {c.label} ({c.task_type})", [])
        return Allowed(
            False,
            f"{'; '.join(refusals)}: delegate to {' or '.join(primaries)} instead",
            primaries,
        )

    def is_allowed(self, task: str, agent: str) -> Allowed:
        return self.check(self.decide(task), agent)

    def route(self, task: str, agent: str | None = None) -> RouteDecision:
        decision = self.decide(task)
        if agent is not None:
            verdict = self.check(decision, agent)
            decision.agent = agent
            decision.allowed = verdict.allowed
            decision.allowed_reason = verdict.reason
            decision.suggested_agents = verdict.suggested_agents
        return decision
