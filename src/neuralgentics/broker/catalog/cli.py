"""``neuralgentics broker catalog | refresh | match``: thin commands over the catalog and matcher.

Registered on the broker's sub-app: ``register(broker_app)`` from ``broker/cli.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from neuralgentics.broker.cli import ConfigOpt
from neuralgentics.broker.config import DEFAULT_BUDGET_TOKENS
from neuralgentics.exits import fail
from neuralgentics.text import plural

if TYPE_CHECKING:
    from neuralgentics.broker.catalog.sources import CatalogSource

ToolsFileOpt = typer.Option(
    None,
    "--tools-file",
    help="static catalog: JSON/YAML mapping server -> tools/list tools (or {summary, tools})",
)


def _source(tools_file: Path | None, config: Path | None, role: str | None) -> CatalogSource:
    from neuralgentics.broker.catalog.sources import load_source
    from neuralgentics.broker.catalog.toolsfile import ToolsFileError
    from neuralgentics.broker.config import ConfigError
    from neuralgentics.config import get_settings

    try:
        return load_source(
            settings=get_settings(), tools_file=tools_file, config_path=config, role=role
        )
    except (ToolsFileError, ConfigError) as exc:
        fail(exc)


def catalog_cmd(
    role: str | None = typer.Option(
        None, "--role", help="the view of this role (default: every server)"
    ),
    as_json: bool = typer.Option(False, "--json", help="the view as JSON, with its token counts"),
    budget: int = typer.Option(
        DEFAULT_BUDGET_TOKENS, "--budget", min=1, help="token budget of the catalog"
    ),
    config: Path | None = ConfigOpt,
    tools_file: Path | None = ToolsFileOpt,
) -> None:
    """Print the catalog get_tool_list returns, its token count and that of the full schemas."""
    from neuralgentics.app.broker import skill_source
    from neuralgentics.broker.catalog.render import render_catalog
    from neuralgentics.broker.skillcatalog import skills_for_role
    from neuralgentics.config import get_settings

    src = _source(tools_file, config, role)
    skills = skills_for_role(skill_source(get_settings())(), src.role)
    view = render_catalog(src.visible(), src.summaries, budget_tokens=budget, skills=skills)
    if as_json:
        data = view.to_dict()
        data["role"] = src.role
        typer.echo(json.dumps(data, indent=1, ensure_ascii=False))
        return
    typer.echo(view.text)
    typer.echo("")
    saved = f" ({view.saved_ratio:.1%} fewer)" if view.full_schema_tokens else ""
    typer.echo(
        f"-- catalog: {plural(view.tokens, 'token')} ({view.level}, budget {view.budget_tokens}) vs "
        f"{plural(view.full_schema_tokens, 'token')} of full tools/list schemas for "
        f"{plural(view.tool_count, 'tool')}"
        f"{saved}; counted with {view.encoding}"
    )
    unlisted = [s.name for s in view.servers if s.tools is None]
    if unlisted:
        typer.echo(f"-- not listed yet: {', '.join(unlisted)} (run `neuralgentics broker refresh`)")
    if view.over_budget:
        typer.echo(
            f"-- over budget: even server names alone take {plural(view.tokens, 'token')}", err=True
        )


def refresh_cmd(
    servers: list[str] | None = typer.Argument(None, help="servers to list (default: all)"),
    config: Path | None = ConfigOpt,
    timeout: float = typer.Option(60.0, "--timeout", min=1, help="seconds per server"),
) -> None:
    """Start each server, list its tools into the on-disk cache, stop it."""
    from neuralgentics.broker.catalog.cache import ToolListCache
    from neuralgentics.broker.catalog.content_cache import ContentCache
    from neuralgentics.broker.catalog.fetch import refresh_one
    from neuralgentics.broker.config import ConfigError, default_config_path, load_config
    from neuralgentics.config import get_settings

    settings = get_settings()
    try:
        cfg = (
            load_config(config)
            if config is not None
            else load_config(default_config_path(settings), missing_ok=True)
        )
    except ConfigError as exc:
        fail(exc)
    brokered = cfg.brokered()
    names = list(servers) if servers else sorted(brokered)
    unknown = [n for n in names if n not in brokered]
    if unknown:
        known = ", ".join(sorted(brokered)) or "none"
        fail(f"no brokered server named {', '.join(map(repr, unknown))} (servers: {known})")
    cache = ToolListCache(settings.home / "broker" / "tools")
    # resources and prompts too: whether the broker declares them is known at its start
    contents = ContentCache(settings.home / "broker" / "content")
    failed = 0
    for name in names:
        listed = refresh_one(
            name, brokered[name], cache, timeout, settings.egress_gateway_url, contents
        )
        if listed.error is not None:
            failed += 1
            typer.echo(f"{name}: failed: {listed.error}", err=True)
            for line in listed.stderr_tail:
                typer.echo(f"  {name} stderr: {line}", err=True)
            continue
        typer.echo(f"{name}: {plural(listed.tools or 0, 'tool')}")
    if failed:
        raise typer.Exit(1)


def match_cmd(
    intent: str | None = typer.Argument(None, help="what you want done, in a sentence"),
    tools_file: Path | None = ToolsFileOpt,
    role: str | None = typer.Option(
        None, "--role", help="only tools this role may call (roles from --config)"
    ),
    top: int = typer.Option(5, "--top", min=1, max=50, help="candidates to return"),
    as_json: bool = typer.Option(False, "--json", help="Print JSON (one object per intent)"),
    queries_file: Path | None = typer.Option(
        None, "--queries-file", help="one intent a line ('-' for stdin) -> one JSON line each"
    ),
    mode: str = typer.Option("hybrid", "--mode", help="hybrid | bm25 | embedding"),
    config: Path | None = ConfigOpt,
) -> None:
    """Rank the tools (and skills) that fit an intent."""
    from neuralgentics.app.broker import intent_cache, query_embedder, skill_source
    from neuralgentics.app.process import shared_embedder
    from neuralgentics.broker.intent.matcher import IntentMatcher
    from neuralgentics.broker.skillcatalog import skills_for_role
    from neuralgentics.config import get_settings

    if mode not in ("hybrid", "bm25", "embedding"):
        fail(f"--mode must be hybrid, bm25 or embedding (got {mode!r})")
    if (intent is None) == (queries_file is None):
        fail("give either an INTENT or --queries-file FILE")
    src = _source(tools_file, config, role)
    unlisted = sorted(name for name, tools in src.tools_by_server.items() if tools is None)
    if unlisted:
        # their tools are not known until a broker or `refresh` lists them: say why they are
        # missing from the ranking instead of answering "0 tools considered" with no reason
        typer.echo(
            f"not listed yet (their tools are not ranked): {', '.join(unlisted)}; run "
            "`neuralgentics broker refresh` or start the broker",
            err=True,
        )
    settings = get_settings()
    skills = skills_for_role(skill_source(settings)(), src.role)
    embedder = shared_embedder()
    try:
        intents_through = query_embedder(settings, embedder)
    except ValueError as exc:
        fail(str(exc))  # a bad setting: bad input (2)
    # as the broker's find_tool ranks: its vectors file (a tool text already embedded by the
    # broker or an earlier `match` is not embedded again) and its query backend
    matcher = IntentMatcher(
        src.known(),
        src.summaries,
        skills,
        embedder=embedder,
        cache=intent_cache(settings),
        query_embedder=intents_through,
    )

    def answer(text: str) -> dict:
        data = matcher.match(text, allowed=src.allowed, top_k=top, mode=mode).to_dict()  # type: ignore[arg-type]
        data["role"] = src.role
        return data

    if queries_file is not None:
        try:
            lines = (
                (sys.stdin if str(queries_file) == "-" else queries_file.open(encoding="utf-8"))
                .read()
                .splitlines()
            )
        except OSError as exc:
            fail(f"{queries_file}: cannot read queries file ({exc.strerror or exc})")
        for line in lines:
            if line.strip():
                typer.echo(json.dumps(answer(line.strip()), ensure_ascii=False))
        return
    assert intent is not None
    if not intent.strip():
        fail("the intent is empty: describe the task in a sentence")
    data = answer(intent)
    if as_json:
        typer.echo(json.dumps(data, indent=1, ensure_ascii=False))
        return
    flag = "confident" if data["confident"] else "not confident: choose among these"
    typer.echo(
        f"confidence {data['confidence']:.2f} ({flag}); {plural(data['considered'], 'tool')} considered"
    )
    for i, c in enumerate(data["candidates"], 1):
        typer.echo(f"{i}. {c['server']}/{c['tool']}  {c['score']:.3f}  {c['why']}")
    for s in data["skills"]:
        typer.echo(f"skill: {s['id']} ({s['name']})  {s['score']:.3f}")


def register(broker_app: typer.Typer) -> None:
    """Add ``catalog``, ``refresh`` and ``match`` to the ``neuralgentics broker`` sub-app."""
    broker_app.command("catalog")(catalog_cmd)
    broker_app.command("refresh")(refresh_cmd)
    broker_app.command("match")(match_cmd)
