"""The 8-step Boomerang protocol as a state machine over a task record.

intake → recall → classify → route → context → delegate → verify → return (and remember).
Only the next step is accepted; anything else is refused with a message naming the step that
is missing. A failed verification sends the task back to `delegate`, a bounded number of times.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from neuralgentics.orchestrator.errors import InvalidInput, StepRefused

STEPS: tuple[str, ...] = (
    "intake",
    "recall",
    "classify",
    "route",
    "context",
    "delegate",
    "verify",
    "return",
)
STEP_LABELS = {
    "intake": "take in the task text and session",
    "recall": "query memory for what is already known",
    "classify": "decide the task type",
    "route": "pick the agent from the routing matrix",
    "context": "build the token-budgeted context package",
    "delegate": "hand the task to the agent",
    "verify": "check the result (reviewer/tester where the type asks)",
    "return": "return the result and remember it",
}
MAX_DELEGATIONS = 3


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass
class StepRecord:
    step: str
    number: int
    at: str
    data: dict = field(default_factory=dict)


@dataclass
class TaskRecord:
    id: str
    session: str
    task: str
    project: str | None
    created_at: str
    updated_at: str
    steps: list[StepRecord] = field(default_factory=list)
    status: str = "open"  # open | done
    task_type: str | None = None
    agent: str | None = None  # the agent the task was delegated to (or routed to, before step 6)
    context_memory_ids: list[str] = field(default_factory=list)
    result_summary: str | None = None
    result_memory_id: str | None = None
    # the project whose roster/routing/skills overrides apply (None: the service's own)
    project_dir: str | None = None
    version: int = 0

    @property
    def done_steps(self) -> list[str]:
        return [s.step for s in self.steps]

    def last(self, step: str) -> StepRecord | None:
        for record in reversed(self.steps):
            if record.step == step:
                return record
        return None

    def to_json(self) -> dict:
        data = asdict(self)
        data["next_step"] = next_step(self)
        return data

    @classmethod
    def from_json(cls, data: dict) -> TaskRecord:
        data = {k: v for k, v in data.items() if k != "next_step"}
        data["steps"] = [StepRecord(**s) for s in data.get("steps", [])]
        return cls(**data)


def _verification_failed(record: TaskRecord) -> bool:
    last = record.steps[-1] if record.steps else None
    return bool(last and last.step == "verify" and not last.data.get("passed", True))


def next_step(record: TaskRecord) -> str | None:
    """The step the task may take now; None once complete."""
    if record.status == "done":
        return None
    if not record.steps:
        return "intake"
    if _verification_failed(record):
        return "delegate"
    last = STEPS.index(record.steps[-1].step)
    return STEPS[last + 1] if last + 1 < len(STEPS) else None


def waiting_for_verify(record: TaskRecord) -> bool:
    """Delegated and answered, its verification not done yet (the orchestrator's move)."""
    return record.status == "open" and next_step(record) == "verify"


def stalled(record: TaskRecord, after_seconds: float, at: datetime | None = None) -> bool:
    """Waiting for its verification for `after_seconds` or more: the model ignored the
    hint, and without a reminder or a command the result is never remembered."""
    if not waiting_for_verify(record):
        return False
    since = datetime.fromisoformat(record.updated_at)
    return ((at or datetime.now(UTC)) - since).total_seconds() >= after_seconds


def allowed_steps(record: TaskRecord) -> list[str]:
    nxt = next_step(record)
    if nxt is None:
        return []
    # after a failed verification the task may also be returned as failed
    return [nxt, "return"] if _verification_failed(record) else [nxt]


def check_step(record: TaskRecord, step: str) -> None:
    """Raise StepRefused unless `step` may run now."""
    if step not in STEPS:
        raise InvalidInput(
            f"unknown step {step!r}; the steps are: {', '.join(STEPS)}", field="step"
        )
    number = STEPS.index(step) + 1
    if record.status == "done":
        raise StepRefused(f"task {record.id} is complete; no step follows 'return'", field="step")
    allowed = allowed_steps(record)
    if step in allowed:
        if (
            step == "delegate"
            and sum(1 for s in record.steps if s.step == "delegate") >= MAX_DELEGATIONS
        ):
            raise StepRefused(
                f"step 'delegate' refused: the task was delegated {MAX_DELEGATIONS} times and failed "
                "verification each time; return it with outcome 'failed'",
                field="step",
            )
        return
    expected = allowed[0]
    expected_no = STEPS.index(expected) + 1
    if number > expected_no:
        raise StepRefused(
            f"step {number} '{step}' refused: step {expected_no} '{expected}' "
            f"({STEP_LABELS[expected]}) has not been done yet",
            missing_step=expected,
            field="step",
        )
    done = record.last(step)
    when = f" at {done.at}" if done else ""
    reason = (
        "verification failed, so the task goes back to 'delegate'"
        if _verification_failed(record)
        else ""
    )
    raise StepRefused(
        f"step {number} '{step}' refused: it was already done{when}; the next step is "
        f"{expected_no} '{expected}'{' — ' + reason if reason else ''}",
        missing_step=expected,
        field="step",
    )


def record_step(record: TaskRecord, step: str, data: dict) -> StepRecord:
    entry = StepRecord(step=step, number=STEPS.index(step) + 1, at=now(), data=data)
    record.steps.append(entry)
    record.updated_at = entry.at
    return entry
