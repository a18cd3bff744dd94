"""The orchestrator as one object: configuration, skills, classifier, memory, task records.

The CLI and the HTTP routes both call these methods; nothing else holds logic.
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

from neuralgentics.db import ids
from neuralgentics.embeddings import Embedder
from neuralgentics.orchestrator import protocol
from neuralgentics.orchestrator.agents_md import render_agents_md
from neuralgentics.orchestrator.classify import TaskClassifier, validate_task_text
from neuralgentics.orchestrator.config import (
    PROJECT_CONFIG_DIR,
    ROSTER_FILE,
    ROUTING_FILE,
    OrchestratorConfig,
    layer_paths,
    load_config,
)
from neuralgentics.orchestrator.context import DEFAULT_BUDGET, ContextPackage, build_context
from neuralgentics.orchestrator.errors import InvalidInput, MemoryUnavailable, StepRefused
from neuralgentics.orchestrator.memory_client import ChunkSearch, MemoryClient, MemoryHit
from neuralgentics.orchestrator.protocol import TaskRecord
from neuralgentics.orchestrator.routing import Allowed, RouteDecision, Router, TypeRoute
from neuralgentics.orchestrator.skills import SkillRegistry, SkillSource, builtin_skills_dir
from neuralgentics.orchestrator.task_store import TaskStore

MAX_SUMMARY_CHARS = 20_000
MAX_SESSION_CHARS = 200
MAX_SIBLINGS = 16
STALL_AFTER_SECONDS = 300.0
# how many of a session's newest tasks the reminder in its context looks at
REMIND_SCAN = 20


class Orchestrator:
    def __init__(
        self,
        *,
        embedder: Embedder,
        project_dir: Path | None = None,
        config_dir: Path | None = None,
        memory: MemoryClient | None = None,
        chunks: ChunkSearch | None = None,
        store: TaskStore | None = None,
        store_path: Path | None = None,
        project: str | None = None,
        stall_after: float = STALL_AFTER_SECONDS,
    ) -> None:
        self.project_dir = project_dir
        # seconds a task may wait for its verification before it counts as stalled
        self.stall_after = stall_after
        self.config_dir = config_dir
        self.memory = memory
        # explicit chunk search, else the memory client's project search for this project dir
        self._chunks = chunks
        self.store = store
        # opened on the first task call, so routing alone never creates a file
        self.store_path = store_path
        self.embedder = embedder
        self.project = project
        self._lock = threading.Lock()
        self._config_sig: tuple | None = None
        self._config: OrchestratorConfig | None = None
        self._router: Router | None = None
        self._skills: SkillRegistry | None = None
        self._siblings: dict[Path, Orchestrator] = {}

    # -- configuration, reloaded when an override file changes ------------------------------
    def _config_signature(self) -> tuple:
        sig = []
        for directory in layer_paths(self.project_dir, self.config_dir):
            for name in (ROSTER_FILE, ROUTING_FILE):
                path = directory / name
                try:
                    st = path.stat()
                    sig.append((str(path), st.st_mtime_ns, st.st_size))
                except OSError:
                    pass
        return tuple(sig)

    def _ensure(self) -> None:
        with self._lock:
            sig = self._config_signature()
            if self._config is not None and sig == self._config_sig:
                return
            config = load_config(self.project_dir, self.config_dir)
            self._config, self._config_sig = config, sig
            self._router = Router(config, TaskClassifier(config, embedder=self.embedder))
            sources = []
            if self.project_dir is not None:
                sources.append(SkillSource("project", self.project_dir / "skills"))
            if self.config_dir is not None:
                sources.append(SkillSource("user", self.config_dir / "skills"))
            sources.append(SkillSource("builtin", builtin_skills_dir()))
            self._skills = SkillRegistry(
                sources, known_agents=config.agents, known_task_types=config.task_types
            )

    @property
    def chunks(self) -> ChunkSearch | None:
        if self._chunks is not None:
            return self._chunks
        search = getattr(self.memory, "search_project", None)
        if search is None or self.project_dir is None:
            return None
        project_dir = str(self.project_dir)
        return lambda text, k: search(text, k, project_dir)

    @chunks.setter
    def chunks(self, value: ChunkSearch | None) -> None:
        self._chunks = value

    @property
    def config(self) -> OrchestratorConfig:
        self._ensure()
        assert self._config is not None
        return self._config

    @property
    def router(self) -> Router:
        self._ensure()
        assert self._router is not None
        return self._router

    @property
    def skills(self) -> SkillRegistry:
        self._ensure()
        assert self._skills is not None
        return self._skills

    # -- routing ---------------------------------------------------------------------------
    def route(self, task: str, agent: str | None = None) -> RouteDecision:
        text = validate_task_text(task)
        if agent is not None and (not isinstance(agent, str) or not agent.strip()):
            raise InvalidInput("agent must be a non-empty name", field="agent")
        return self.router.route(text, agent.strip() if agent else None)

    def select_agent(self, task: str) -> RouteDecision:
        return self.route(task)

    def is_allowed(self, task: str, agent: str) -> Allowed:
        return self.router.is_allowed(validate_task_text(task), agent)

    # -- context ---------------------------------------------------------------------------
    def context(
        self,
        task: str,
        agent: str,
        budget_tokens: int = DEFAULT_BUDGET,
        *,
        task_type: str | None = None,
        recalled: list[MemoryHit] | None = None,
        project: str | None = None,
        session: str | None = None,
    ) -> ContextPackage:
        """`task_type` given (a delegated task, step 5): the package for doing it. Not given:
        classified here, and a text that is not delegable (a question, or one no task type
        recognises) gets memories and code but no routing advice or skills."""
        text = validate_task_text(task)
        confidence = None
        delegable = True
        if task_type is None:
            decision = self.router.decide(text)
            task_type, confidence = decision.task_type, decision.confidence
            delegable = decision.delegable
        elif task_type not in self.config.task_types:
            raise InvalidInput(
                f"unknown task type '{task_type}'; known: {', '.join(self.config.task_types)}",
                field="task_type",
            )
        return build_context(
            text,
            agent,
            budget_tokens,
            config=self.config,
            skills=self.skills,
            task_type=task_type,
            confidence=confidence,
            memory=self.memory,
            recalled=recalled,
            chunks=self.chunks,
            embedder=self.embedder,
            project=project if project is not None else self.project,
            delegable=delegable,
            session=session,
            reminders=self.reminders(session) if session else [],
        )

    def reminders(self, session: str) -> list[tuple[str, str]]:
        """(task id, text) for each task of `session` waiting for its verification: the
        orchestrator is reminded on its next turn (a model may ignore the hint it got)."""
        if self.store is None and self.store_path is None:
            return []
        out: list[tuple[str, str]] = []
        for record in self._store().list(session=session, limit=REMIND_SCAN):
            if not protocol.waiting_for_verify(record):
                continue
            verifiers = self.verifiers(record)
            who = " or ".join(verifiers) or "its verifier"
            first = verifiers[0] if verifiers else "reviewer"
            out.append(
                (
                    record.id,
                    f"Task {record.id[:8]} ({record.task_type}, done by {record.agent}) waits for "
                    f"verification by {who}: delegate the check (task tool, subagent_type "
                    f'"{first}"), asking for "VERDICT: pass" or "VERDICT: fail: why". Until then '
                    f"its result is not remembered. Task: {record.task[:200]}",
                )
            )
        return out

    def verifiers(self, record: TaskRecord) -> list[str]:
        spec = self.config.task_types.get(record.task_type or "")
        return list(spec.verify_with) if spec else []

    def task_view(self, record: TaskRecord) -> dict:
        """A task record as the routes and commands show it: plus whether it is stalled and,
        while it waits for its verification, who may verify it."""
        data = record.to_json()
        waiting = protocol.waiting_for_verify(record)
        data["stalled"] = protocol.stalled(record, self.stall_after)
        data["waiting_for"] = self.verifiers(record) if waiting else []
        return data

    def stalled_tasks(self, limit: int = 500) -> list[TaskRecord]:
        return [t for t in self._store().list(limit=limit) if protocol.stalled(t, self.stall_after)]

    def _waiting_task(self, task_id: str, why: str = "") -> TaskRecord:
        """The task, which must be waiting for its verification (else StepRefused)."""
        record = self._store().get(task_id)
        if not protocol.waiting_for_verify(record):
            raise StepRefused(
                f"task {record.id} is not waiting for its verification{why} "
                f"(next step: {protocol.next_step(record) or 'none, it is complete'})",
                field="task_id",
            )
        return record

    def record_result(self, task_id: str, summary: str) -> TaskRecord:
        """The delegated agent's answer, kept while the task waits for its verification, so a
        later turn, `task close` or `task resume` can remember it (not remembered yet)."""
        record = self._waiting_task(task_id)
        record.result_summary = _summary(summary)
        record.updated_at = protocol.now()
        self._store().save(record)
        return record

    def close_task(
        self, task_id: str, outcome: str = "failed", summary: str | None = None
    ) -> tuple[TaskRecord, dict]:
        """End a task that waits for its verification, by the user's word: verify is recorded
        as closed without a verifier (passed = outcome succeeded), then return remembers the
        result kept for it (or `summary`) with that outcome."""
        if outcome not in ("succeeded", "failed"):
            raise InvalidInput("outcome must be 'succeeded' or 'failed'", field="outcome")
        record = self._waiting_task(task_id, ", so there is nothing to close")
        text = _summary(summary) if summary is not None else record.result_summary
        if not text:
            raise InvalidInput(
                "no result was kept for this task: give the result to remember (--summary)",
                field="summary",
            )
        updated_at = record.updated_at
        protocol.record_step(
            record,
            "verify",
            {
                "verified_by": None,
                "passed": outcome == "succeeded",
                "notes": f"closed by the user ({outcome}) without its verification",
                "required": bool(self.verifiers(record)),
                "closed_by": "user",
            },
        )
        try:
            out = self._step_return(record, {"summary": text, "outcome": outcome})
        except Exception:
            # return claims the record before it writes the memory: take the verify back out
            # (a failing close leaves the task as it was)
            record.steps.pop()
            record.updated_at = updated_at
            self._store().save(record)
            raise
        self._store().save(record)
        return record, out

    def resume_task(self, task_id: str) -> TaskRecord:
        """A stalled task back in play: its clock starts again (so it is not reported stalled
        meanwhile) and its session's next turn reminds the orchestrator to verify it."""
        record = self._waiting_task(task_id)
        record.updated_at = protocol.now()
        self._store().save(record)
        return record

    def agents_md(self) -> str:
        return render_agents_md(self.config, self.skills.skills())

    # -- the Boomerang protocol --------------------------------------------------------------
    def _store(self) -> TaskStore:
        if self.store is None and self.store_path is not None:
            with self._lock:
                if self.store is None:
                    self.store = TaskStore(self.store_path)
        if self.store is None:
            raise InvalidInput("no task store configured")
        return self.store

    def for_project(self, project_dir: str | Path | None) -> Orchestrator:
        """The orchestrator for another project directory: its own overrides and skills, the
        same memory, task store and embedder. Cached; the directory must exist."""
        if project_dir is None:
            return self
        path = Path(project_dir)
        if not path.is_absolute() or not path.is_dir():
            raise InvalidInput(
                f"project_dir must be an existing absolute directory, not {str(project_dir)!r}",
                field="project_dir",
            )
        resolved = path.resolve()
        if self.project_dir is not None and self.project_dir.resolve() == resolved:
            return self
        with self._lock:
            found = self._siblings.get(resolved)
            if found is None:
                if len(self._siblings) >= MAX_SIBLINGS:
                    self._siblings.pop(next(iter(self._siblings)))
                found = Orchestrator(
                    project_dir=resolved,
                    config_dir=self.config_dir,
                    memory=self.memory,
                    chunks=self._chunks,
                    store=self.store,
                    store_path=self.store_path,
                    embedder=self.embedder,
                    project=self.project,
                    stall_after=self.stall_after,
                )
                self._siblings[resolved] = found
            return found

    def for_task(self, task_id: str) -> Orchestrator:
        return self.for_project(self._store().get(task_id).project_dir)

    def start_task(self, task: str, session: str, project: str | None = None) -> TaskRecord:
        """Step 1, intake: a new task record. `project`: the memory scope its recall reads and
        its result is stored in (default: the orchestrator's)."""
        text = validate_task_text(task)
        if not isinstance(session, str) or not session.strip() or len(session) > MAX_SESSION_CHARS:
            raise InvalidInput(
                f"session must be a non-empty id of at most {MAX_SESSION_CHARS} characters",
                field="session",
            )
        stamp = protocol.now()
        record = TaskRecord(
            id=str(uuid.uuid4()),
            session=session.strip(),
            task=text,
            project=project if project is not None else self.project,
            created_at=stamp,
            updated_at=stamp,
            project_dir=str(self.project_dir) if self.project_dir else None,
        )
        protocol.record_step(record, "intake", {"chars": len(text)})
        self._store().insert(record)
        return record

    def get_task(self, task_id: str) -> TaskRecord:
        return self._store().get(task_id)

    def resolve_task_id(self, ref: str) -> str:
        """The whole id of a task from the id or a unique start of it (like git's short
        hashes): NotFound when none starts so, AmbiguousId naming the candidates."""
        return ids.resolve(ref, self._store().ids_between, what="id", noun="task id")

    def list_tasks(self, *, session: str | None = None, limit: int = 50) -> list[TaskRecord]:
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 500:
            raise InvalidInput("limit must be an integer from 1 to 500", field="limit")
        return self._store().list(session=session, limit=limit)

    def step(self, task_id: str, step: str, data: dict | None = None) -> tuple[TaskRecord, dict]:
        """Run one step of a task. Returns the updated record and the step's output."""
        data = dict(data or {})
        record = self._store().get(task_id)
        protocol.check_step(record, step)
        handler = getattr(self, f"_step_{step}")
        out = handler(record, data)
        self._store().save(record)
        return record, out

    def _step_recall(self, record: TaskRecord, data: dict) -> dict:
        top_k = data.get("top_k", 10)
        if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= 100:
            raise InvalidInput("top_k must be an integer from 1 to 100", field="top_k")
        hits: list[MemoryHit] = []
        entry: dict = {"memory_available": self.memory is not None}
        if self.memory is not None:
            try:
                hits = self._query_scopes(record, top_k)
            except MemoryUnavailable as exc:
                # Recall degrades: the task goes on without memories, and the record says so.
                entry = {"memory_available": False, "warning": exc.message}
        entry["memories"] = [
            {
                "id": h.id,
                "content": h.content,
                "score": h.score,
                "trust_score": h.trust_score,
                "source_type": h.source_type,
                "superseded_by": h.superseded_by,
                "tags": h.tags,
            }
            for h in hits
        ]
        protocol.record_step(record, "recall", entry)
        return {"memories": entry["memories"], "warning": entry.get("warning")}

    def _query_scopes(self, record: TaskRecord, top_k: int) -> list[MemoryHit]:
        """The task's question over the project's memories, with its session's and (once
        routed) its agent's joining (memini's scopes)."""
        assert self.memory is not None
        return self.memory.query(
            record.task,
            top_k=top_k,
            project=record.project,
            agent=record.agent,
            session=record.session,
        )

    def _step_classify(self, record: TaskRecord, data: dict) -> dict:
        override = data.get("task_type")
        if override is not None:
            if override not in self.config.task_types:
                raise InvalidInput(
                    f"unknown task type '{override}'; known: {', '.join(self.config.task_types)}",
                    field="task_type",
                )
            entry = {
                "task_type": override,
                "confidence": 1.0,
                "ambiguous": False,
                "reasons": ["set by the caller"],
            }
        else:
            c = self.router.classifier.classify(record.task)
            entry = {
                "task_type": c.task_type,
                "confidence": c.confidence,
                "ambiguous": c.ambiguous,
                "candidates": c.top_types,
                "reasons": c.reasons,
            }
        record.task_type = entry["task_type"]
        protocol.record_step(record, "classify", entry)
        return entry

    def _decision(self, record: TaskRecord) -> RouteDecision:
        classified = record.last("classify")
        assert classified is not None and record.task_type is not None
        decision = self.router.decide(record.task)
        if decision.task_type != record.task_type or classified.data.get("reasons") == [
            "set by the caller"
        ]:
            # the classification on record wins (it may have been set by the caller)
            spec = self.config.task_types[record.task_type]
            route = TypeRoute(
                spec.id, spec.label, 1.0, spec.primary, list(spec.forbidden), list(spec.verify_with)
            )
            decision.task_type, decision.label, decision.primary_agent = (
                spec.id,
                spec.label,
                spec.primary,
            )
            decision.forbidden_agents, decision.verify_with, decision.candidates = (
                route.forbidden,
                route.verify_with,
                [route],
            )
            decision.ambiguous = False
            decision.recognised = decision.delegable = True
        return decision

    def _require_allowed(self, record: TaskRecord, agent: object) -> str:
        if not isinstance(agent, str) or not agent.strip():
            raise InvalidInput("agent must be a non-empty name", field="agent")
        verdict = self.router.check(self._decision(record), agent)
        if not verdict.allowed:
            raise StepRefused(
                f"agent '{agent}' refused: {verdict.reason}",
                field="agent",
                suggested_agents=verdict.suggested_agents,
            )
        return agent

    def _step_route(self, record: TaskRecord, data: dict) -> dict:
        decision = self._decision(record)
        agent = self._require_allowed(record, data.get("agent") or decision.primary_agent)
        entry = {
            "task_type": decision.task_type,
            "label": decision.label,
            "primary_agent": decision.primary_agent,
            "agent": agent,
            "forbidden_agents": decision.forbidden_agents,
            "verify_with": decision.verify_with,
        }
        record.agent = agent
        protocol.record_step(record, "route", entry)
        return entry

    def _step_context(self, record: TaskRecord, data: dict) -> dict:
        budget = data.get("budget_tokens", DEFAULT_BUDGET)
        recall = record.last("recall")
        recalled = [MemoryHit(**m) for m in recall.data.get("memories", [])] if recall else []
        assert record.agent is not None and record.task_type is not None
        recalled += self._agent_recall(record, recalled, len(recalled) or 10)
        package = self.context(
            record.task,
            record.agent,
            budget,
            task_type=record.task_type,
            recalled=recalled,
            project=record.project,
        )
        record.context_memory_ids = package.memory_ids
        protocol.record_step(
            record,
            "context",
            {
                "agent": record.agent,
                "budget_tokens": package.budget_tokens,
                "tokens": package.tokens,
                "memory_ids": package.memory_ids,
                "items": [f"{i.kind}:{i.id}" for i in package.items],
                "warnings": package.warnings,
            },
        )
        return package.to_json()

    def _agent_recall(
        self, record: TaskRecord, recalled: list[MemoryHit], top_k: int
    ) -> list[MemoryHit]:
        """Recall ran before routing, without the agent: now that it is known, the same
        question with the agent's own memories joining (memini's scopes), for the hits recall
        did not have. Nothing when memory is down (recall already says so) or without a project
        (recall read the whole store)."""
        if self.memory is None or not record.project or record.agent is None:
            return []
        try:
            hits = self._query_scopes(record, top_k)
        except MemoryUnavailable:
            return []
        have = {h.id for h in recalled}
        return [h for h in hits if h.id not in have]

    def _step_delegate(self, record: TaskRecord, data: dict) -> dict:
        agent = self._require_allowed(record, data.get("agent") or record.agent)
        record.agent = agent
        attempt = 1 + sum(1 for s in record.steps if s.step == "delegate")
        entry = {"agent": agent, "attempt": attempt}
        protocol.record_step(record, "delegate", entry)
        return entry

    def _step_verify(self, record: TaskRecord, data: dict) -> dict:
        assert record.task_type is not None
        verifiers = self.config.task_types[record.task_type].verify_with
        verified_by = data.get("verified_by")
        passed = data.get("passed")
        if passed is not None and not isinstance(passed, bool):
            raise InvalidInput("passed must be true or false", field="passed")
        if verifiers:
            if verified_by not in verifiers:
                raise StepRefused(
                    f"step 7 'verify' refused: {record.task_type} tasks are verified by "
                    f"{' or '.join(verifiers)}; give verified_by as one of them",
                    field="verified_by",
                )
            if passed is None:
                raise InvalidInput(
                    "passed (true or false) is required: what did the verifier find?",
                    field="passed",
                )
        elif verified_by is not None and verified_by not in self.config.agents:
            raise InvalidInput(f"unknown agent '{verified_by}'", field="verified_by")
        notes = data.get("notes")
        if notes is not None and (not isinstance(notes, str) or len(notes) > MAX_SUMMARY_CHARS):
            raise InvalidInput(
                f"notes must be text of at most {MAX_SUMMARY_CHARS} characters", field="notes"
            )
        entry = {
            "verified_by": verified_by,
            "passed": True if passed is None else passed,
            "notes": notes,
            "required": bool(verifiers),
        }
        if not verifiers:
            entry["notes"] = notes or f"verification not required for {record.task_type}"
        protocol.record_step(record, "verify", entry)
        return entry

    def _step_return(self, record: TaskRecord, data: dict) -> dict:
        summary = data.get("summary")
        if not isinstance(summary, str) or not summary.strip():
            raise InvalidInput("summary (the result to remember) is required", field="summary")
        if len(summary) > MAX_SUMMARY_CHARS:
            raise InvalidInput(
                f"summary is {len(summary)} characters; the limit is {MAX_SUMMARY_CHARS}",
                field="summary",
            )
        verification = record.last("verify")
        failed = bool(verification and not verification.data.get("passed", True))
        outcome = data.get("outcome", "succeeded")
        if outcome not in ("succeeded", "failed"):
            raise InvalidInput("outcome must be 'succeeded' or 'failed'", field="outcome")
        if failed and outcome != "failed":
            raise StepRefused(
                "step 8 'return' refused: verification failed; delegate again or return with outcome 'failed'",
                missing_step="delegate",
                field="outcome",
            )
        if self.memory is None:
            raise MemoryUnavailable("no memory service configured: the result cannot be remembered")
        content = f"Task ({record.task_type}, {outcome}, by {record.agent}): {record.task}\nResult: {summary.strip()}"
        metadata = {
            "task_id": record.id,
            "session": record.session,
            "agent": record.agent,
            "task_type": record.task_type,
            "outcome": outcome,
            "verified_by": verification.data.get("verified_by") if verification else None,
        }
        # Claim the step before writing memories: of two concurrent returns, the second is
        # refused here (409) instead of after its writes landed (a failing request must leave
        # nothing behind). Only the version moves; the next save writes the result.
        self._store().save(record)
        memory_id = self.memory.add(
            content,
            source_type="task_result",
            project=record.project,
            tags=[t for t in ("task_result", record.task_type, record.agent) if t],
            metadata=metadata,
        )
        # Trust from use (docs/orchestrator.md): the result is always linked to the memories
        # its context carried; only a task that finished well (verified, or not needing it)
        # raises their trust: a failed one says nothing about whether they were right.
        for used in record.context_memory_ids:
            if used == memory_id:
                continue
            self.memory.relate(memory_id, used, "DERIVED_FROM", 1.0)
            if outcome == "succeeded":
                self.memory.trust(
                    used,
                    "agent_used",
                    actor=record.agent,
                    note=f"used by task {record.id}",
                    session=record.session,
                )
        record.result_summary = summary.strip()
        record.result_memory_id = memory_id
        record.status = "done"
        protocol.record_step(
            record,
            "return",
            {
                "memory_id": memory_id,
                "outcome": outcome,
                "derived_from": list(record.context_memory_ids),
            },
        )
        return {
            "memory_id": memory_id,
            "outcome": outcome,
            "derived_from": list(record.context_memory_ids),
        }


def _summary(text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("summary (the result to remember) is required", field="summary")
    if len(text) > MAX_SUMMARY_CHARS:
        raise InvalidInput(
            f"summary is {len(text)} characters; the limit is {MAX_SUMMARY_CHARS}",
            field="summary",
        )
    return text.strip()


__all__ = ["Orchestrator", "PROJECT_CONFIG_DIR", "STALL_AFTER_SECONDS"]
