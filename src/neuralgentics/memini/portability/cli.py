"""`neuralgentics memory export` and `memory import`: the HTTP routes of portability/routes.py,
called on the running service or, with --local, on the same app in-process (memini/cli.py)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import IO, Any

import httpx
import typer

from neuralgentics.config import get_settings
from neuralgentics.credentials import CredentialError
from neuralgentics.exits import UNAVAILABLE, exit_code, status_exit_code
from neuralgentics.memini.cli import JsonOpt, LocalOpt, _client, _print_json, err, memory_app, out

NDJSON = "application/x-ndjson"


def _unreachable(exc: Exception) -> typer.Exit:
    err.print(
        f"[red]memini-core is not reachable at {get_settings().url} ({exc.__class__.__name__});"
        " start it with `neuralgentics serve`, or pass --local[/red]"
    )
    return typer.Exit(UNAVAILABLE)


def _fail(response: httpx.Response) -> typer.Exit:
    try:
        problem = response.json()["error"]
    except Exception:
        problem = {"message": response.text}
    err.print(f"error {response.status_code}: {problem.get('message')}", markup=False)
    for p in problem.get("problems", [])[1:] + problem.get("conflicts", []):
        err.print(f"  line {p['line']}: {p['message']}", markup=False, soft_wrap=True)
    return typer.Exit(status_exit_code(response.status_code))


@memory_app.command("export")
def export(
    project: str | None = typer.Option(None, "--project", "-p", help="Only this project"),
    scope: list[str] | None = typer.Option(
        None,
        "--scope",
        help="Only these scopes: user, project, agent, session (repeatable; as the query's"
        " --scope: project needs --project, agent --agent, session --session)",
    ),
    agent: str | None = typer.Option(None, "--agent", help="The agent (its agent memories)"),
    session: str | None = typer.Option(None, "--session", help="The session (its memories)"),
    no_embeddings: bool = typer.Option(
        False, "--no-embeddings", help="Leave vectors out (smaller; import re-embeds)"
    ),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write here (default: standard output)"
    ),
    local: bool = LocalOpt,
) -> None:
    """Write memories (ids, content, embeddings, trust history, relationships) as JSON Lines."""
    params: dict[str, Any] = {"embeddings": str(not no_embeddings).lower()}
    if project is not None:
        params["project"] = project
    if agent is not None:
        params["agent"] = agent
    if session is not None:
        params["session"] = session
    if scope:
        params["scope"] = scope
    # a file is written beside its name and renamed when complete: no half file under the name
    partial = output.with_name(output.name + ".partial") if output is not None else None
    sink: IO[bytes] = open(partial, "wb") if partial is not None else sys.stdout.buffer  # noqa: SIM115
    tail = b""
    done = False
    try:
        with _client(local) as client, client.stream("GET", "/memory/export", params=params) as r:
            if r.status_code >= 400:
                r.read()
                raise _fail(r)
            for chunk in r.iter_bytes():
                sink.write(chunk)
                tail = (tail + chunk)[-4096:]
        sink.flush()
        last = tail.rstrip(b"\n").rsplit(b"\n", 1)[-1]
        try:
            done = json.loads(last).get("type") == "end"
        except ValueError:
            done = False
        if not done:
            err.print("[red]the export stopped before its end (the service failed mid-way)[/red]")
            raise typer.Exit(1)
    except httpx.TransportError as exc:
        raise _unreachable(exc) from None
    except CredentialError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(exit_code(exc)) from None
    finally:
        if partial is not None:
            sink.close()
            if not done:
                partial.unlink(missing_ok=True)  # no half file left behind
    if partial is not None and output is not None:
        os.replace(partial, output)
        end = json.loads(last)
        err.print(
            f"exported {end['memories']} memories, {end['relationships']} relationships,"
            f" {end['trust_events']} trust events to {output}"
        )


@memory_app.command("import")
def import_(
    file: Path = typer.Argument(..., help="An export file ('-' reads standard input)"),
    on_conflict: str = typer.Option(
        "fail",
        "--on-conflict",
        help="fail: import nothing when a record conflicts with the store; skip: import the"
        " rest and keep the stored versions (conflicts are listed either way)",
    ),
    local: bool = LocalOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Import an export file in one transaction: a bad line or a conflict imports nothing;
    records already stored unchanged are left alone (importing twice changes nothing)."""
    source: IO[bytes] = sys.stdin.buffer if str(file) == "-" else open(file, "rb")  # noqa: SIM115
    try:
        # a big file may take long to store; the in-process client takes no timeout at all
        no_timeout: dict[str, Any] = {} if local else {"timeout": None}
        with _client(local) as client:
            r = client.post(
                "/memory/import",
                params={"on_conflict": on_conflict},
                content=source.read() if local else source,
                headers={"content-type": NDJSON},
                **no_timeout,
            )
    except httpx.TransportError as exc:
        raise _unreachable(exc) from None
    except CredentialError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(exit_code(exc)) from None
    except OSError as exc:
        err.print(f"[red]cannot read {file}: {exc.strerror}[/red]")
        raise typer.Exit(2) from None
    finally:
        if source is not sys.stdin.buffer:
            source.close()
    if r.status_code >= 400:
        raise _fail(r)
    report = r.json()
    if as_json:
        return _print_json(report)
    mem, rel = report["memories"], report["relationships"]
    out.print(
        f"memories: {mem['added']} added, {mem['unchanged']} unchanged, {mem['conflicts']}"
        f" conflicts; relationships: {rel['added']} added, {rel['unchanged']} unchanged,"
        f" {rel['conflicts']} conflicts; {report['trust_events']} trust events (kept as"
        f" `imported` history); {report['reembedded']} embedded from their text"
    )
    if report["vectors_replaced"]:
        out.print(
            f"  {report['vectors_replaced']} vectors in the file did not match their text:"
            " replaced by the text's own"
        )
    for p in report["conflicts"]:
        out.print(f"  conflict, line {p['line']}: {p['message']}", markup=False, soft_wrap=True)
    for p in report["linked_existing"]:
        out.print(f"  linked, line {p['line']}: {p['message']}", markup=False, soft_wrap=True)
