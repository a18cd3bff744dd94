"""`neuralgentics memory ...`.

Every memory command sends the same HTTP request either to the running service or, with
`--local`, to the same FastAPI app run in-process over the store directly (`asgi_client`): one
code path, so both modes validate, answer and fail identically.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import httpx
import typer
from rich.console import Console
from rich.table import Table

from neuralgentics.config import get_settings
from neuralgentics.credentials import CredentialError
from neuralgentics.exits import UNAVAILABLE, exit_code, status_exit_code
from neuralgentics.service_client import service_client
from neuralgentics.text import plural

if TYPE_CHECKING:
    from neuralgentics.asgi_client import AsgiClient

memory_app = typer.Typer(help="Add, search and link memories.", no_args_is_help=True)
err = Console(stderr=True)
out = Console()

LocalOpt = typer.Option(
    False, "--local", help="Use the store directly instead of the running service"
)
JsonOpt = typer.Option(False, "--json", help="Print JSON")
IdHelp = "The memory's id, or its start as the tables print it (at least 4 digits)"
ProjectFilterHelp = "Only memories of this project"
SourceFilterHelp = "Only memories of this kind (fact, decision, …)"
TagFilterHelp = "Only memories with this tag (repeatable: all of them)"
MinTrustHelp = "Only memories trusted at least this much (0 to 1)"
IncludeSupersededHelp = "Also memories a newer one superseded"


class CallFailed(Exception):
    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


@contextmanager
def _client(local: bool) -> Iterator[httpx.Client | AsgiClient]:
    settings = get_settings()
    if local:
        from neuralgentics.app.core import create_app
        from neuralgentics.asgi_client import asgi_client

        app = create_app(settings)
        try:
            with asgi_client(app) as local_client:
                yield local_client  # the same calls, answered in-process
        finally:
            app.state.service.close()  # what the served app's shutdown does
        return
    with service_client(settings, "memini-core", timeout=60) as client:
        yield client


def call(local: bool, method: str, path: str, **kwargs: Any) -> Any:
    try:
        with _client(local) as client:
            response = client.request(method, path, **kwargs)
    except httpx.TransportError as exc:
        url = get_settings().url
        raise CallFailed(
            f"memini-core is not reachable at {url} ({exc.__class__.__name__}); "
            "start it with `neuralgentics serve`, or pass --local",
            UNAVAILABLE,
        ) from exc
    except CredentialError as exc:
        raise CallFailed(str(exc), exit_code(exc)) from None
    if response.status_code >= 400:
        try:
            problem = response.json()["error"]["message"]
        except Exception:
            problem = response.text
        raise CallFailed(
            f"error {response.status_code}: {problem}", status_exit_code(response.status_code)
        )
    return response.json() if response.content else None


def _run(local: bool, method: str, path: str, **kwargs: Any) -> Any:
    try:
        return call(local, method, path, **kwargs)
    except CallFailed as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(exc.code) from None


def _resolve(local: bool, ref: str, kind: str = "memory") -> str:
    """The whole id `ref` names: itself, or the one id that starts with it (as tables print
    them, like git's short hashes); an ambiguous start fails naming the candidates."""
    from urllib.parse import quote

    from neuralgentics.db.ids import full_id

    whole = full_id(ref)
    if whole is not None:
        return whole
    return _run(local, "GET", f"/memory/resolve/{quote(ref, safe='')}", params={"kind": kind})["id"]


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


def _short(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _memory_table(rows: list[dict], extra: dict[str, Any] | None = None) -> None:
    # A column whose every cell is "-" says nothing and, in an 80-column terminal, squeezes the
    # content (the one column a reader came for) down to a word per line.
    extra = {name: col for name, col in (extra or {}).items() if any(c != "-" for c in col)}
    table = Table(show_lines=False)
    table.add_column("id", no_wrap=True)
    table.add_column("trust", justify="right", no_wrap=True)
    table.add_column("project")
    table.add_column("scope", no_wrap=True)
    table.add_column("content", min_width=24)
    for name in extra:
        table.add_column(name, justify="right", no_wrap=True)
    for i, row in enumerate(rows):
        cells = [
            row["id"][:8],
            f"{row['trust_score']:.2f}",
            row["project"] or "-",
            _scope(row) + (" unconfirmed" if row.get("quarantined") else ""),
            _short(row["content"]),
        ]
        cells += [str(col[i]) for col in extra.values()]
        table.add_row(*cells)
    out.print(table)


def _scope(row: dict) -> str:
    """project, user, agent:NAME or session:ID (memini/scopes.py)."""
    scope = row.get("scope", "project")
    who = row.get("agent") if scope == "agent" else row.get("session") if scope == "session" else ""
    return f"{scope}:{who}" if who else scope


def _origin(row: dict) -> str:
    """Who wrote a memory, and whether it waits for the user's confirmation."""
    origin = row.get("origin", "user")
    where = f" in project {row['origin_project']}" if row.get("origin_project") else ""
    wait = " — unconfirmed (neuralgentics memory confirm ID)" if row.get("quarantined") else ""
    return f"{origin}{where}{wait}"


def _metadata(pairs: list[str]) -> dict:
    meta: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            err.print(f"[red]--meta {pair!r}: expected key=value[/red]")
            raise typer.Exit(2)
        meta[key] = value
    return meta


@memory_app.command("add")
def add(
    content: str = typer.Argument(..., help="Text to remember ('-' reads standard input)"),
    source_type: str | None = typer.Option(
        None, "--source-type", "-s", help="Kind of memory (fact, decision, task_result, …)"
    ),
    project: str = typer.Option("", "--project", "-p", help="Project it belongs to"),
    tag: list[str] = typer.Option([], "--tag", "-t", help="Tag (repeatable)"),
    meta: list[str] = typer.Option([], "--meta", help="key=value, repeatable"),
    actor: str | None = typer.Option(None, "--actor", help="Who adds it (kept in the history)"),
    supersede_similar: bool = typer.Option(
        False, "--supersede-similar", help="Replace a near-identical memory of the project"
    ),
    supersedes: list[str] = typer.Option(
        [], "--supersedes", help="Id of a memory this one replaces (repeatable)"
    ),
    detection: str | None = typer.Option(
        None,
        "--detection",
        help="Update detection: auto (supersede when sure, report when unsure), report, off",
    ),
    scope: str = typer.Option(
        "project",
        "--scope",
        help="Whose memory: project (default), user (all projects), agent (--agent), session"
        " (--session)",
    ),
    agent: str | None = typer.Option(None, "--agent", help="The agent (with --scope agent)"),
    session: str | None = typer.Option(
        None, "--session", help="The session id (with --scope session)"
    ),
    local: bool = LocalOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Store a memory. Says which older memories it superseded or contradicts, and which it
    probably replaces (confirm with `memory supersede NEW_ID OLD_ID`)."""
    if content == "-":
        content = sys.stdin.read()
    body = {
        "content": content,
        "source_type": source_type,
        "project": project,
        "tags": tag,
        "metadata": _metadata(meta),
        "actor": actor,
        "supersede_similar": supersede_similar,
        "supersedes": [_resolve(local, old) for old in supersedes],
        "detection": detection,
        "scope": scope,
        "agent": agent,
        "session": session,
    }
    result = _run(local, "POST", "/memory/add", json=body)
    if as_json:
        return _print_json(result)
    new_id = result["memory"]["id"]
    verb = "added" if result["created"] else "already known"
    out.print(f"{verb}: {new_id} (trust {result['memory']['trust_score']:.2f})")
    for near in result["similar"]:
        out.print(
            f"  similar: {near['memory']['id']} ({near['similarity']:.3f}) {_short(near['memory']['content'], 60)}"
        )
    _print_findings(result, new_id)


def _print_findings(result: dict, new_id: str) -> None:
    def line(text: str) -> None:
        # soft_wrap: ids and the confirm command stay whole on one line, to be copied
        out.print(text, markup=False, soft_wrap=True)

    for label, key in (("supersedes", "superseded"), ("contradicts", "contradicts")):
        for f in result.get(key, []):
            line(f"  {label}: {f['id']} ({f['score']:.2f}) {_short(f['content'], 60)}")
            line(f"    why: {f['reason']}")
            if key == "superseded":
                line(f"    undo: neuralgentics memory restore {f['id']}")
    likely = result.get("likely_updates", [])
    for f in likely:
        line(f"  likely update of: {f['id']} ({f['score']:.2f}) {_short(f['content'], 60)}")
        line(f"    why: {f['reason']}")
    if likely:
        ids = " ".join(f["id"] for f in likely)
        line(f"  confirm: neuralgentics memory supersede {new_id} {ids}")


@memory_app.command("supersede")
def supersede(
    memory_id: str = typer.Argument(..., help="The newer memory: " + IdHelp),
    old_ids: list[str] = typer.Argument(..., help="Memories it replaces (ids or their starts)"),
    actor: str | None = typer.Option(None, "--actor", help="Who confirms it (kept in the history)"),
    local: bool = LocalOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Mark older memories as replaced by a newer one (hidden from queries, kept with history)."""
    result = _run(
        local,
        "POST",
        f"/memory/{_resolve(local, memory_id)}/supersede",
        json={"ids": [_resolve(local, old) for old in old_ids], "actor": actor},
    )
    if as_json:
        return _print_json(result)
    for f in result["superseded"]:
        out.print(f"superseded: {f['id']} {_short(f['content'], 60)}", markup=False, soft_wrap=True)


@memory_app.command("query")
def query(
    text: str = typer.Argument(..., help="What to look for (a question or keywords)"),
    top_k: int = typer.Option(10, "--top-k", "-k", help="How many memories at most"),
    project: str | None = typer.Option(None, "--project", "-p", help=ProjectFilterHelp),
    source_type: str | None = typer.Option(None, "--source-type", "-s", help=SourceFilterHelp),
    tag: list[str] = typer.Option([], "--tag", "-t", help=TagFilterHelp),
    min_trust: float | None = typer.Option(None, "--min-trust", help=MinTrustHelp),
    include_superseded: bool = typer.Option(
        False, "--include-superseded", help=IncludeSupersededHelp
    ),
    min_score: float | None = typer.Option(
        None,
        "--min-score",
        help="Leave out memories less relevant than this (default 0.1; -1 returns everything)",
    ),
    agent: str | None = typer.Option(
        None, "--agent", help="The asking agent: its agent memories join the search"
    ),
    session: str | None = typer.Option(
        None, "--session", help="The current session: its memories join the search"
    ),
    scope: list[str] = typer.Option(
        [],
        "--scope",
        help="Search only this scope: user, project, agent, session (repeatable; default with"
        " --agent or --session: all four)",
    ),
    local: bool = LocalOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Search memories by meaning and by keyword. With --agent, --session or --scope it
    searches the session's, the project's, the agent's and the user's memories together."""
    body = {
        "query": text,
        "top_k": top_k,
        "min_score": min_score,
        "project": project,
        "source_type": source_type,
        "tags": tag,
        "min_trust": min_trust,
        "include_superseded": include_superseded,
        "agent": agent,
        "session": session,
        "scopes": scope or None,
    }
    result = _run(local, "POST", "/memory/query", json=body)
    if as_json:
        return _print_json(result)
    hits = result["hits"]
    if not hits:
        out.print(
            f"no memory matches {text!r}: none is relevant enough (--min-score lowers the floor)",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        return
    _memory_table(
        [h["memory"] for h in hits],
        {
            # the score's parts (similarity, exact match, recency…) are in --json's "why"
            "score": [f"{h['score']:.3f}" for h in hits],
            "contradicted by": [", ".join(i[:8] for i in h["contradicts"]) or "-" for h in hits],
        },
    )


@memory_app.command("get")
def get(
    memory_id: str = typer.Argument(..., help=IdHelp),
    local: bool = LocalOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Show one memory: its fields, tags and metadata, trust history and relationships."""
    result = _run(local, "GET", f"/memory/{_resolve(local, memory_id)}")
    if as_json:
        return _print_json(result)
    mem = result["memory"]

    def line(text: str) -> None:  # stored text as it is: no markup, no highlighting
        out.print(text, markup=False, highlight=False, soft_wrap=True)

    out.print(f"[bold]{mem['id']}[/bold]  trust {mem['trust_score']:.2f}", highlight=False)
    line(f"project:    {mem['project'] or '-'}")
    line(f"scope:      {_scope(mem)}")
    line(f"written by: {_origin(mem)}")
    line(f"source:     {mem['source_type'] or '-'}")
    line(f"tags:       {', '.join(mem['tags']) or '-'}")
    meta = mem["metadata"]
    line(f"metadata:   {json.dumps(meta, ensure_ascii=False) if meta else '-'}")
    line(f"created:    {mem['created_at']}   updated: {mem['updated_at']}")
    if mem["superseded_by"]:
        line(f"superseded by: {mem['superseded_by']}")
    line("")
    line(mem["content"])
    if result["trust_history"]:
        line("")
        line("trust history:")
    for event in result["trust_history"]:
        line(
            f"  {event['event']} {event['delta']:+.2f} -> {event['score_after']:.2f} by {event.get('origin', 'user')}"
            f" {event['actor'] or '-'}{' (session ' + event['session'] + ')' if event.get('session') else ''} at {event['created_at']}"
        )
    if result["decisions"]:
        line("")
        line("decisions (what hid, contradicted or probably updates it, or what it did):")
    for d in result["decisions"]:
        line("  " + _decision(d))
        if d["reason"]:
            line(f"    why: {d['reason']}")
        if d["undo"]:
            line(f"    undo: {d['undo']}")
    if result["relationships"]:
        line("")
        line("relationships (id, source, type, target, confidence):")
    for rel in result["relationships"]:
        line(
            f"  {rel['id'][:8]}  {rel['source_id'][:8]} {rel['relationship_type']} {rel['target_id'][:8]} ({rel['confidence']:.2f})"
        )


# how `memory get` words a decision, by (relation, direction)
_DECISION_WORDS = {
    ("SUPERSEDES", "by"): "hidden by",
    ("SUPERSEDES", "of"): "hid",
    ("CONTRADICTS", "by"): "contradicted by",
    ("CONTRADICTS", "of"): "contradicts",
    ("RELATED_TO", "by"): "probably updated by",
    ("RELATED_TO", "of"): "probably updates",
}


def _decision(d: dict) -> str:
    words = _DECISION_WORDS.get((d["relation"], d["direction"]), d["relation"])
    score = f", {d['score']:.2f}" if d["score"] is not None else ""
    other = _short(d["other_content"], 60) if d["other_content"] is not None else "(deleted)"
    return f"{words} {d['other_id']} ({d['how']}{score}, {str(d['at'])[:10]}) {other}"


@memory_app.command("restore")
def restore(
    memory_id: str = typer.Argument(..., help="The hidden memory: " + IdHelp),
    actor: str | None = typer.Option(None, "--actor", help="Who restores it (kept in the history)"),
    local: bool = LocalOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Undo a supersession: the memory comes back in queries and lists (the SUPERSEDES edges
    hiding it are removed, what they cost it given back, the history says what was undone)."""
    result = _run(
        local, "POST", f"/memory/{_resolve(local, memory_id)}/restore", json={"actor": actor}
    )
    if as_json:
        return _print_json(result)
    mem = result["memory"]
    out.print(f"restored: {mem['id']} (trust {mem['trust_score']:.2f})", highlight=False)
    for d in result["restored"]:
        out.print("  was " + _decision(d), markup=False, highlight=False, soft_wrap=True)
        if d["reason"]:
            out.print(f"    why: {d['reason']}", markup=False, highlight=False, soft_wrap=True)


@memory_app.command("list")
def list_(
    project: str | None = typer.Option(None, "--project", "-p", help=ProjectFilterHelp),
    source_type: str | None = typer.Option(None, "--source-type", "-s", help=SourceFilterHelp),
    tag: list[str] = typer.Option([], "--tag", "-t", help=TagFilterHelp),
    min_trust: float | None = typer.Option(None, "--min-trust", help=MinTrustHelp),
    include_superseded: bool = typer.Option(
        False, "--include-superseded", help=IncludeSupersededHelp
    ),
    limit: int = typer.Option(50, "--limit", help="How many memories at most"),
    offset: int = typer.Option(0, "--offset", help="Skip this many first (for paging)"),
    scope: str | None = typer.Option(
        None,
        "--scope",
        help="Only this scope: user, project, agent, session (--project, --agent, --session"
        " name whose)",
    ),
    agent: str | None = typer.Option(None, "--agent", help="With --scope agent: this agent's"),
    session: str | None = typer.Option(
        None, "--session", help="With --scope session: this session's"
    ),
    local: bool = LocalOpt,
    as_json: bool = JsonOpt,
) -> None:
    """List memories, newest first."""
    params: dict[str, Any] = {
        "limit": limit,
        "offset": offset,
        "include_superseded": include_superseded,
    }
    for key, value in (
        ("project", project),
        ("source_type", source_type),
        ("min_trust", min_trust),
        ("scope", scope),
        ("agent", agent),
        ("session", session),
    ):
        if value is not None:
            params[key] = value
    if tag:
        params["tag"] = tag
    result = _run(local, "GET", "/memory", params=params)
    if as_json:
        return _print_json(result)
    if not result["items"]:
        filtered = any(v is not None for v in (project, source_type, min_trust, scope)) or tag
        if result["total"]:
            out.print(f"no memory past the first {result['total']} (--offset {offset})")
        else:
            out.print("no memory matches these filters" if filtered else "no memory stored yet")
        return
    # a hidden row names the memory that hides it (its short id, as the id column prints it)
    hidden = [m["superseded_by"][:8] if m["superseded_by"] else "-" for m in result["items"]]
    _memory_table(result["items"], {"hidden by": hidden} if include_superseded else None)
    out.print(f"{len(result['items'])} of {result['total']}")
    if include_superseded and any(h != "-" for h in hidden):
        out.print(
            "hidden rows: `memory get ID` says why, `memory restore ID` brings one back",
            highlight=False,
        )


@memory_app.command("trust")
def trust(
    memory_id: str = typer.Argument(..., help=IdHelp),
    event: str = typer.Argument(
        ...,
        help="user_confirmed | user_rejected | agent_used | agent_confirmed | agent_rejected"
        " | contradicted",
    ),
    actor: str | None = typer.Option(None, "--actor", help="Who records it"),
    note: str | None = typer.Option(None, "--note", help="Why (kept with the event)"),
    local: bool = LocalOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Record a trust event."""
    result = _run(
        local,
        "POST",
        f"/memory/{_resolve(local, memory_id)}/trust",
        json={"event": event, "actor": actor, "note": note},
    )
    if as_json:
        return _print_json(result)
    out.print(
        f"{event} {result['event']['delta']:+.2f}: trust now {result['memory']['trust_score']:.2f}"
    )


def _verdict(what: str, memory_id: str, note: str | None, local: bool, as_json: bool) -> None:
    result = _run(
        local, "POST", f"/memory/{_resolve(local, memory_id)}/{what}", json={"note": note}
    )
    if as_json:
        return _print_json(result)
    mem = result["memory"]
    out.print(
        f"{result['event']['event']} {result['event']['delta']:+.2f}: trust of {mem['id'][:8]} "
        f"now {mem['trust_score']:.2f}"
        + (
            " (other projects may see it now)"
            if what == "confirm" and mem["origin"] == "agent"
            else ""
        ),
        highlight=False,
    )


@memory_app.command("confirm")
def confirm(
    memory_id: str = typer.Argument(..., help=IdHelp),
    note: str | None = typer.Option(None, "--note", help="Why (kept with the event)"),
    local: bool = LocalOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Confirm a memory as the user: +0.10, and an agent's memory may reach other projects."""
    _verdict("confirm", memory_id, note, local, as_json)


@memory_app.command("reject")
def reject(
    memory_id: str = typer.Argument(..., help=IdHelp),
    note: str | None = typer.Option(None, "--note", help="Why (kept with the event)"),
    local: bool = LocalOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Reject a memory as the user: -0.15."""
    _verdict("reject", memory_id, note, local, as_json)


@memory_app.command("relate")
def relate(
    source_id: str = typer.Argument(..., help="The source memory: " + IdHelp),
    relationship_type: str = typer.Argument(
        ..., help="SUPERSEDES | RELATED_TO | CONTRADICTS | DERIVED_FROM"
    ),
    target_id: str = typer.Argument(..., help="The target memory: " + IdHelp),
    confidence: float = typer.Option(1.0, "--confidence", help="How sure, 0 to 1"),
    actor: str | None = typer.Option(None, "--actor", help="Who links them"),
    local: bool = LocalOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Link two memories: SOURCE TYPE TARGET."""
    body = {
        "source_id": _resolve(local, source_id),
        "target_id": _resolve(local, target_id),
        "relationship_type": relationship_type,
        "confidence": confidence,
        "actor": actor,
    }
    result = _run(local, "POST", "/memory/relationship", json=body)
    if as_json:
        return _print_json(result)
    out.print(f"linked: {result['id']}")


@memory_app.command("related")
def related(
    memory_id: str = typer.Argument(..., help=IdHelp),
    depth: int = typer.Option(1, "--depth", "-d", help="How many links away (1 to 5)"),
    type_: list[str] = typer.Option(
        [], "--type", help="Follow only this relationship type (repeatable)"
    ),
    local: bool = LocalOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Memories linked to one memory, breadth-first."""
    memory_id = _resolve(local, memory_id)
    result = _run(
        local, "GET", f"/memory/related/{memory_id}", params={"depth": depth, "types": type_}
    )
    if as_json:
        return _print_json(result)
    if not result["nodes"]:
        out.print(f"no memory is linked to {memory_id[:8]} within {plural(depth, 'link')}")
        return
    for node in result["nodes"]:
        via = " -> ".join(
            f"{s['relationship']['relationship_type']}({s['direction']})" for s in node["path"]
        )
        out.print(
            f"{node['distance']}  {node['memory']['id'][:8]}  {via}  {_short(node['memory']['content'], 60)}"
        )


@memory_app.command("update")
def update(
    memory_id: str = typer.Argument(..., help=IdHelp),
    content: str | None = typer.Option(None, "--content", help="New text (re-embedded)"),
    source_type: str | None = typer.Option(None, "--source-type", help="New kind of memory"),
    tag: list[str] | None = typer.Option(
        None, "--tag", help="New tags, replacing the old ones (repeatable)"
    ),
    local: bool = LocalOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Change a memory's content (re-embedded), tags or source type."""
    body = {
        k: v
        for k, v in (("content", content), ("source_type", source_type), ("tags", tag))
        if v is not None
    }
    result = _run(local, "PATCH", f"/memory/{_resolve(local, memory_id)}", json=body)
    if as_json:
        return _print_json(result)
    out.print(f"updated: {result['id']}")


@memory_app.command("delete")
def delete(memory_id: str = typer.Argument(..., help=IdHelp), local: bool = LocalOpt) -> None:
    """Delete a memory with its relationships and trust history."""
    memory_id = _resolve(local, memory_id)
    _run(local, "DELETE", f"/memory/{memory_id}")
    out.print(f"deleted: {memory_id}")


@memory_app.command("unrelate")
def unrelate(
    relationship_id: str = typer.Argument(
        ..., help="The relationship's id, or its start as `memory get` prints it"
    ),
    local: bool = LocalOpt,
) -> None:
    """Remove one relationship between two memories (the memories stay)."""
    relationship_id = _resolve(local, relationship_id, "relationship")
    _run(local, "DELETE", f"/memory/relationship/{relationship_id}")
    out.print(f"unrelated: {relationship_id}")


def register(app: typer.Typer) -> None:
    # `memory export` / `memory import` live with the rest of portability; importing the
    # module adds them to memory_app
    from neuralgentics.memini.portability import cli as _portability  # noqa: F401

    app.add_typer(memory_app, name="memory")
