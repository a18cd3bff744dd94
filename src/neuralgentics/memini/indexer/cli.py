"""`neuralgentics index` and `neuralgentics search`: thin over index_project / search_project.

Both run in-process on the configured store (the model loads here only when some text is new
or a query needs a vector), so they work whether or not memini-core is running.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from neuralgentics.errors import NeuralgenticsError
from neuralgentics.exits import fail

out = Console(soft_wrap=True)
# soft_wrap: a long path in a message stays on one line, for people and for grep
err = Console(stderr=True, soft_wrap=True)
log = logging.getLogger("neuralgentics.indexer")


def default_root(start: Path | None = None) -> Path:
    """The repository the working directory is in (its top, holding .git), else the directory."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "estimating"
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min left"
    if seconds >= 60:
        return f"{seconds // 60} min {seconds % 60:02d} s left"
    return f"{seconds} s left"


def progress_line(status) -> str:
    """What the run is doing, in the unit that moves: files while reading, chunks (with the
    rate and the time left) while embedding."""
    if status.phase == "embedding":
        rate = f"{status.rate:.1f} chunks/s" if status.rate else "starting the model"
        return (
            f"embedding {status.embedded}/{status.to_embed} chunks · {rate} · {_eta(status.eta_s)}"
            " · keyword search is ready"
        )
    if status.phase == "indexing":
        return f"reading {status.files_done}/{status.files_total} files · {status.chunks} chunks"
    return status.phase


class _Bar:
    """A rich progress bar on a terminal; plain log lines otherwise (at each phase change and,
    while embedding, every few seconds)."""

    LOG_EVERY_S = 10.0

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.progress: Progress | None = None
        self.task: TaskID | None = None
        self.phase = ""
        self.logged = 0.0

    def __enter__(self) -> _Bar:
        if self.enabled:
            self.progress = Progress(
                BarColumn(),
                TextColumn("{task.fields[line]}"),
                TimeElapsedColumn(),
                console=err,
                transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task("index", total=None, line="scanning")
        return self

    def __call__(self, status) -> None:
        import time

        embedding = status.phase == "embedding"
        if self.progress is not None and self.task is not None:
            total = status.to_embed if embedding else status.files_total
            done = status.embedded if embedding else status.files_done
            self.progress.update(
                self.task, total=total or None, completed=done, line=progress_line(status)
            )
        elif status.phase != self.phase or (
            embedding and time.monotonic() - self.logged >= self.LOG_EVERY_S
        ):
            log.info("index %s", progress_line(status))
            self.logged = time.monotonic()
        self.phase = status.phase

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()


def index(
    path: Path = typer.Argument(None, help="Project root (default: the current repository)"),
    watch: bool = typer.Option(False, "--watch", help="Keep the index fresh while files change"),
    explain: bool = typer.Option(False, "--explain", help="List every skipped file and why"),
    list_: bool = typer.Option(False, "--list", help="List indexed projects"),
    forget: Path = typer.Option(None, "--forget", help="Remove a project's index"),
    rehash: bool = typer.Option(False, "--rehash", help="Read every file, trusting no timestamp"),
    max_file_bytes: int = typer.Option(
        1_000_000, "--max-file-bytes", min=1, help="Skip files larger than this"
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON"),
) -> None:
    """Index a project's files for search (incremental: only changes are re-embedded)."""
    from neuralgentics.app.process import shared_embedder
    from neuralgentics.config import get_settings
    from neuralgentics.memini.indexer import index_project, open_chunk_store

    try:
        store = open_chunk_store(get_settings())
    except NeuralgenticsError as exc:
        fail(exc)
    try:
        if list_:
            _print_projects(store, as_json)
            return
        if forget is not None:
            root = str(forget.expanduser().resolve())
            if not store.forget(root):
                err.print(
                    f"[red]error:[/red] {escape(root)} is not indexed (see `neuralgentics index --list`)"
                )
                raise typer.Exit(1)
            out.print(f"forgot {root}", markup=False, highlight=False)
            return
        root_path = path if path is not None else default_root()
        if watch:
            from neuralgentics.memini.indexer.watch import watch_project

            def report(rep) -> None:
                out.print(rep.summary(), markup=False, highlight=False)

            try:
                watch_project(
                    root_path,
                    store,
                    embedder=shared_embedder(),
                    on_report=report,
                    max_file_bytes=max_file_bytes,
                )
            except KeyboardInterrupt:
                err.print("stopped watching")
            return
        with _Bar(err.is_terminal and not as_json) as bar:
            rep = index_project(
                root_path,
                store,
                embedder=shared_embedder(),
                progress=bar,
                max_file_bytes=max_file_bytes,
                rehash=rehash,
            )
        if as_json:
            data = rep.as_dict()
            if explain:
                data["skipped_files"] = [{"path": s.path, "reason": s.reason} for s in rep.skipped]
            out.print_json(json.dumps(data))
            return
        if explain:
            _print_skipped(rep.skipped)
        out.print(rep.summary(), markup=False, highlight=False)
    except NeuralgenticsError as exc:
        fail(exc)
    except KeyboardInterrupt:
        err.print("interrupted: what was written is kept; the next run finishes the job")
        raise typer.Exit(130) from None
    finally:
        store.close()


def _print_skipped(skipped) -> None:
    if not out.is_terminal:
        for item in skipped:  # tab-separated, for scripts
            typer.echo(f"skipped\t{item.path}\t{item.reason}")
        return
    table = Table("skipped", "why", title=f"{len(skipped)} skipped")
    for item in skipped:
        table.add_row(escape(item.path), escape(item.reason))
    out.print(table)


def _print_projects(store, as_json: bool) -> None:
    projects = store.projects()
    if as_json:
        out.print_json(
            json.dumps(
                [
                    {
                        "root": p.root,
                        "status": p.status,
                        "files": p.files,
                        "chunks": p.chunks,
                        "embedded": p.embedded,
                        "indexed_at": p.indexed_at,
                    }
                    for p in projects
                ]
            )
        )
        return
    if not projects:
        out.print("no project is indexed yet; run `neuralgentics index PATH`")
        return
    table = Table("project", "status", "files", "chunks", "embedded", "indexed at")
    for p in projects:
        share = f"{p.embedded / p.chunks:.0%}" if p.chunks else "-"
        table.add_row(p.root, p.status, str(p.files), str(p.chunks), share, p.indexed_at or "-")
    out.print(table)


def search(
    query: str = typer.Argument(None, help="What to look for (words or a description)"),
    project: Path = typer.Option(None, "--project", help="A path inside an indexed project"),
    top: int = typer.Option(10, "--top", min=1, max=100, help="How many hits"),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per query"),
    queries_file: Path = typer.Option(
        None, "--queries-file", help="Answer every line of FILE as a query (JSON lines)"
    ),
    mode: str = typer.Option("hybrid", "--mode", help="hybrid, keyword or vector"),
) -> None:
    """Search an indexed project by meaning and keyword."""
    from neuralgentics.app.process import shared_embedder
    from neuralgentics.config import get_settings
    from neuralgentics.memini.indexer import find_project, open_chunk_store
    from neuralgentics.memini.indexer.search import answer

    if queries_file is None and not query:
        err.print("[red]error:[/red] give a query, or --queries-file FILE")
        raise typer.Exit(2)
    queries: list[str] = [query] if query else []
    if queries_file is not None:
        try:
            text = queries_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            err.print(
                f"[red]error:[/red] cannot read {escape(str(queries_file))}: {escape(str(exc))}"
            )
            raise typer.Exit(2) from None
        queries += [line.strip() for line in text.splitlines() if line.strip()]
        as_json = True
    try:
        store = open_chunk_store(get_settings())
    except NeuralgenticsError as exc:
        fail(exc)
    try:
        root = find_project(store, project if project is not None else default_root())
        for q in queries:
            found = answer(
                store,
                root,
                q,
                top_k=top,
                mode=mode,  # type: ignore[arg-type]
                embedder=shared_embedder(),
            )
            if as_json:
                sys.stdout.write(json.dumps(found.as_dict()) + "\n")
                sys.stdout.flush()
            else:
                _print_answer(found)
    except NeuralgenticsError as exc:
        fail(exc)
    finally:
        store.close()


def _print_answer(found) -> None:
    if found.hits:
        _print_hits(found.hits)
    elif found.closest:
        out.print(
            f"nothing matches {found.query!r} well; the closest, for what they are worth:",
            markup=False,
            highlight=False,
        )
        _print_hits(found.closest, dim=True)
    else:
        out.print(f"no match for {found.query!r}", markup=False, highlight=False)
    if found.embedded < found.chunks:
        err.print(
            f"[yellow]note:[/yellow] search by meaning covers {found.embedded:,} of"
            f" {found.chunks:,} chunks ({found.coverage:.0%}) while the index is embedded;"
            " keyword search covers every file"
        )


def _print_hits(hits, dim: bool = False) -> None:
    for i, h in enumerate(hits, 1):
        where = escape(f"{h.file_path}:{h.start_line}-{h.end_line}")
        symbol = escape(f"  {h.kind} {h.symbol}") if h.symbol else ""
        style = "dim" if dim else "bold"
        out.print(
            f"[{style}]{i}. {where}[/{style}]{symbol}  [dim]({h.language}, score {h.score:.4f})[/dim]",
            highlight=False,
            soft_wrap=True,
        )
        out.print(f"   [dim]{escape(h.why)}[/dim]", highlight=False, soft_wrap=True)
        if dim:
            continue
        body = h.content.split("\n")[1:7]
        for line in body:
            out.print("   │ " + line, highlight=False, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("index")(index)
    app.command("search")(search)
