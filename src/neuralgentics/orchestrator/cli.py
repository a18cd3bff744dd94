"""`neuralgentics route | skills | context | agents-md | task`: thin over `Orchestrator`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from neuralgentics.errors import NeuralgenticsError
from neuralgentics.exits import fail
from neuralgentics.orchestrator.context import DEFAULT_BUDGET
from neuralgentics.text import plural

if TYPE_CHECKING:
    from neuralgentics.orchestrator.service import Orchestrator

skills_app = typer.Typer(
    help="Markdown skills: project skills/ > user config dir > built-ins.", no_args_is_help=True
)
task_app = typer.Typer(help="Task records of the 8-step Boomerang protocol.", no_args_is_help=True)

ProjectOpt = typer.Option(None, "--project", help="Project directory (default: current directory).")
JsonOpt = typer.Option(False, "--json", help="Machine-readable output.")
TaskIdHelp = "The task's id, or a unique start of it (at least 4 digits)."


def _orchestrator(project: Path | None, *, tasks: bool = False) -> Orchestrator:
    """The orchestrator a command works with: the project directory (default: the current
    one), memory over HTTP at the configured service, the process's embedder."""
    from neuralgentics.app.process import shared_embedder
    from neuralgentics.config import get_settings
    from neuralgentics.orchestrator.memory_client import HttpMemoryClient
    from neuralgentics.orchestrator.service import Orchestrator
    from neuralgentics.service_client import service_client

    settings = get_settings()
    return Orchestrator(
        embedder=shared_embedder(),
        project_dir=(project or Path.cwd()).resolve(),
        config_dir=settings.config_dir,
        memory=HttpMemoryClient(
            settings.url, http=service_client(settings, "memini-core", timeout=5.0)
        ),
        # only the task commands touch the task file: `route` must not create files
        store_path=settings.home / "orchestrator.db" if tasks else None,
        stall_after=settings.task_stall_seconds,
    )


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def route(
    task: str = typer.Argument(..., help="The task text."),
    agent: str | None = typer.Option(
        None, "--agent", "-a", help="Check whether this agent may take the task."
    ),
    project: Path | None = ProjectOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Classify a task and show its agent, forbidden agents, and whether --agent may take it.

    Exit code 1 when --agent is given and not allowed; 2 on bad input.
    """
    try:
        decision = _orchestrator(project).route(task, agent)
    except NeuralgenticsError as exc:
        fail(exc)
    if as_json:
        _print_json(decision.to_json())
    else:
        amb = "  (ambiguous)" if decision.ambiguous else ""
        typer.echo(
            f"type:       {decision.task_type} — {decision.label}  confidence {decision.confidence:.2f}{amb}"
        )
        if decision.ambiguous:
            for c in decision.candidates:
                typer.echo(
                    f"  candidate: {c.task_type} ({c.probability:.2f}) → {c.primary}, never {', '.join(c.forbidden)}"
                )
        typer.echo(f"primary:    {decision.primary_agent}")
        typer.echo(f"forbidden:  {', '.join(decision.forbidden_agents) or '—'}")
        typer.echo(f"verify by:  {', '.join(decision.verify_with) or '—'}")
        if agent is not None:
            verdict = "allowed" if decision.allowed else "NOT allowed"
            typer.echo(f"{agent}: {verdict} — {decision.allowed_reason}")
        typer.echo("why:")
        for reason in decision.reasons:
            typer.echo(f"  - {reason}")
    if agent is not None and not decision.allowed:
        raise typer.Exit(1)


@skills_app.command("list")
def skills_list(project: Path | None = ProjectOpt, as_json: bool = JsonOpt) -> None:
    """List loaded skills and any skill file that could not be loaded."""
    try:
        registry = _orchestrator(project).skills
        skills, problems = registry.skills(), registry.problems()
    except NeuralgenticsError as exc:
        fail(exc)
    if as_json:
        _print_json(
            {
                "skills": [s.to_json(with_body=False) for s in skills],
                "problems": [p.__dict__ for p in problems],
            }
        )
        return
    for s in skills:
        applies = ", ".join(s.agents) or "all agents"
        types = f"; {', '.join(s.task_types)}" if s.task_types else ""
        typer.echo(f"{s.id:<12} {s.origin:<8} {s.name} — {s.description}  [{applies}{types}]")
    for p in problems:
        typer.echo(f"skipped: {p}", err=True)


@skills_app.command("show")
def skills_show(
    skill_id: str = typer.Argument(..., metavar="ID", help="The skill's id (see `skills list`)."),
    project: Path | None = ProjectOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Print one skill: its header fields and body."""
    try:
        skill = _orchestrator(project).skills.get(skill_id)
    except NeuralgenticsError as exc:
        fail(exc)
    if as_json:
        _print_json(skill.to_json())
        return
    typer.echo(f"# {skill.name} ({skill.id})")
    typer.echo(f"description: {skill.description}")
    typer.echo(
        f"model: {skill.model or '—'}   agents: {', '.join(skill.agents) or 'all'}   task types: {', '.join(skill.task_types) or 'all'}"
    )
    typer.echo(f"source: {skill.path} ({skill.origin}, {skill.form} header)")
    for hidden in skill.shadows:
        typer.echo(f"overrides: {hidden}")
    typer.echo("")
    typer.echo(skill.body.rstrip())


def context(
    task: str = typer.Argument(..., help="The task text."),
    agent: str = typer.Option(..., "--agent", "-a", help="The agent the package is for."),
    budget: int = typer.Option(DEFAULT_BUDGET, "--budget", help="Token budget (cl100k tokens)."),
    project: Path | None = ProjectOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Build the context package for AGENT on TASK within the token budget."""
    try:
        package = _orchestrator(project).context(task, agent, budget)
    except NeuralgenticsError as exc:
        fail(exc)
    for warning in package.warnings:
        typer.echo(f"warning: {warning}", err=True)
    if as_json:
        _print_json(package.to_json())
        return
    typer.echo(package.markdown)
    typer.echo(
        f"\n<!-- {package.tokens}/{plural(package.budget_tokens, 'token')}, "
        f"{plural(len(package.items), 'item')}, {len(package.dropped)} left out -->"
    )


def agents_md(
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write to this file instead of stdout."
    ),
    check: Path | None = typer.Option(
        None, "--check", help="Exit 1 if this file differs from the generated text."
    ),
    project: Path | None = ProjectOpt,
) -> None:
    """Generate AGENTS.md (capabilities, agents, routing, skills) from the configuration."""
    from neuralgentics.token_counts import count_tokens

    try:
        text = _orchestrator(project).agents_md()
    except NeuralgenticsError as exc:
        fail(exc)
    if check is not None:
        current = check.read_text("utf-8") if check.is_file() else ""
        if current != text:
            typer.echo(
                f"{check} is out of date: run `neuralgentics agents-md -o {check}`", err=True
            )
            raise typer.Exit(1)
        typer.echo(f"{check} is current ({plural(count_tokens(text), 'token')})")
        return
    if output is not None:
        output.write_text(text, "utf-8")
        typer.echo(f"wrote {output} ({plural(count_tokens(text), 'token')})", err=True)
    else:
        typer.echo(text, nl=False)


@task_app.command("start")
def task_start(
    task: str = typer.Argument(..., help="The task text."),
    session: str = typer.Option(..., "--session", help="The agent session it belongs to."),
    project: Path | None = ProjectOpt,
) -> None:
    """Step 1 (intake): create a task record and print it."""
    try:
        _print_json(_orchestrator(project, tasks=True).start_task(task, session).to_json())
    except NeuralgenticsError as exc:
        fail(exc)


@task_app.command("step")
def task_step(
    task_id: str = typer.Argument(..., help=TaskIdHelp),
    step: str = typer.Argument(
        ..., help="recall | classify | route | context | delegate | verify | return"
    ),
    data: str = typer.Option("{}", "--data", help="The step's input as a JSON object."),
    project: Path | None = ProjectOpt,
) -> None:
    """Run the next step of a task; a step out of order is refused (exit 2)."""
    try:
        payload = json.loads(data)
    except json.JSONDecodeError as exc:
        fail(f"--data is not valid JSON: {exc}")
    if not isinstance(payload, dict):
        fail("--data must be a JSON object")
    try:
        orch = _orchestrator(project, tasks=True)
        record, output = orch.step(orch.resolve_task_id(task_id), step, payload)
    except NeuralgenticsError as exc:
        fail(exc)
    _print_json({"task": record.to_json(), "output": output})


@task_app.command("list")
def task_list(
    session: str | None = typer.Option(None, "--session", help="Only this session's tasks."),
    limit: int = typer.Option(20, "--limit", help="How many tasks at most."),
    project: Path | None = ProjectOpt,
) -> None:
    """Recent tasks (newest first): id, session, next step, agent, task. A task waiting too
    long for its verification is marked STALLED, with the commands that end or resume it."""
    try:
        orch = _orchestrator(project, tasks=True)
        tasks = [orch.task_view(t) for t in orch.list_tasks(session=session, limit=limit)]
    except NeuralgenticsError as exc:
        fail(exc)
    if not tasks:
        typer.echo(f"no task in session {session!r}" if session else "no task recorded yet")
    for t in tasks:
        mark = "  STALLED" if t["stalled"] else ""
        typer.echo(
            f"{t['id']}  {t['session']:<12} {t['next_step'] or 'done':<9} {t['agent'] or '-':<10} "
            f"{t['task'][:60]}{mark}"
        )
    stalled = [t for t in tasks if t["stalled"]]
    if stalled:
        typer.echo(
            f"{plural(len(stalled), 'task')} stalled at verify (its result is not remembered): "
            "neuralgentics task resume ID (remind the orchestrator on its next turn) or "
            "neuralgentics task close ID [--succeeded] [--summary TEXT]"
        )


@task_app.command("close")
def task_close(
    task_id: str = typer.Argument(..., help=TaskIdHelp),
    succeeded: bool = typer.Option(
        False, "--succeeded", help="It worked (default: closed as failed; no trust is given)."
    ),
    summary: str | None = typer.Option(
        None, "--summary", help="The result to remember (default: the agent's answer, kept)."
    ),
    project: Path | None = ProjectOpt,
) -> None:
    """End a task stalled at verify: verify is recorded as closed by you, return remembers it."""
    try:
        orch = _orchestrator(project, tasks=True)
        record, output = orch.close_task(
            orch.resolve_task_id(task_id), "succeeded" if succeeded else "failed", summary
        )
    except NeuralgenticsError as exc:
        fail(exc)
    typer.echo(f"closed {record.id} ({output['outcome']}); remembered as {output['memory_id']}")


@task_app.command("resume")
def task_resume(
    task_id: str = typer.Argument(..., help=TaskIdHelp), project: Path | None = ProjectOpt
) -> None:
    """Put a task stalled at verify back in play: its session's next turn reminds the
    orchestrator to have it verified."""
    try:
        orch = _orchestrator(project, tasks=True)
        record = orch.resume_task(orch.resolve_task_id(task_id))
    except NeuralgenticsError as exc:
        fail(exc)
    who = " or ".join(orch.verifiers(record)) or "its verifier"
    typer.echo(
        f"{record.id} waits for verification by {who}; the next turn of session "
        f"{record.session} reminds the orchestrator: opencode --session {record.session}"
    )


@task_app.command("show")
def task_show(
    task_id: str = typer.Argument(..., help=TaskIdHelp), project: Path | None = ProjectOpt
) -> None:
    """Print a task record with its steps and timestamps."""
    try:
        orch = _orchestrator(project, tasks=True)
        _print_json(orch.task_view(orch.get_task(orch.resolve_task_id(task_id))))
    except NeuralgenticsError as exc:
        fail(exc)


def register(app: typer.Typer) -> None:
    """Add this area's commands to the main `neuralgentics` app."""
    app.command("route")(route)
    app.command("context")(context)
    app.command("agents-md")(agents_md)
    app.add_typer(skills_app, name="skills")
    app.add_typer(task_app, name="task")
