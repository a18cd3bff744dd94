"""Token economy of the broker's catalog on real MCP servers.

Starts the real servers (npm: server-everything, server-filesystem, server-memory,
server-sequential-thinking; PyPI: mcp-server-time, mcp-server-git, mcp-server-fetch) with the
MCP SDK's own client, takes their tools/list, and compares, in one run:

- baseline: every tool's full schema as an agent receives it (OpenCode's function definitions);
- ours: the broker's meta-tool schemas + the catalog text ``get_tool_list`` returns.

    .venv/bin/python bench/catalog.py [--budget 600] [--json] [--snapshot FILE]

``--snapshot`` also writes the tools/list results to FILE (the intent benchmark's real servers).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from mcp.types import Tool  # noqa: E402

from neuralgentics.broker.catalog import count_json_tokens, render_catalog  # noqa: E402
from neuralgentics.broker.catalog.fetch import fetch_tools  # noqa: E402
from neuralgentics.broker.catalog.schemas import function_definition  # noqa: E402
from neuralgentics.broker.catalog.toolsfile import dump_tools  # noqa: E402
from neuralgentics.broker.config import ServerConfig  # noqa: E402


def real_servers(workdir: Path) -> dict[str, ServerConfig]:
    """The servers of the issue, launched the way a user's config would launch them."""
    bin_dir = ROOT / "node_modules" / ".bin"
    repo = workdir / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    files = workdir / "files"
    files.mkdir()
    py = sys.executable
    servers = {
        "time": ServerConfig(command=py, args=["-m", "mcp_server_time"]),
        "git": ServerConfig(command=py, args=["-m", "mcp_server_git", "--repository", str(repo)]),
        "fetch": ServerConfig(command=py, args=["-m", "mcp_server_fetch"]),
    }
    npm = {
        "everything": ("mcp-server-everything", [], {}),
        "filesystem": ("mcp-server-filesystem", [str(files)], {}),
        "memory": ("mcp-server-memory", [], {"MEMORY_FILE_PATH": str(workdir / "memory.jsonl")}),
        "sequential-thinking": ("mcp-server-sequential-thinking", [], {}),
    }
    for name, (binary, args, env) in npm.items():
        path = bin_dir / binary
        if not path.exists():
            sys.exit(f"{path} is missing: run `npm install` in {ROOT}")
        servers[name] = ServerConfig(command=str(path), args=args, env=env)
    return servers


async def list_all(servers: dict[str, ServerConfig]) -> dict[str, list[Tool]]:
    out: dict[str, list[Tool]] = {}
    with open(os.devnull, "w") as devnull:
        for name, cfg in servers.items():
            out[name] = await fetch_tools(cfg, timeout=90, errlog=devnull)
    return out


def meta_tools() -> list[Tool]:
    """The broker's meta-tools as the agent sees them: the MCP front's, with find_tool and
    mcp_router_call's intent argument added (intent/tools.py)."""
    from neuralgentics.broker.intent.tools import with_intent_tools
    from neuralgentics.broker.server.handlers import META_TOOLS

    return with_intent_tools(META_TOOLS)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=600)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--snapshot", type=Path)
    args = ap.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="ng-bench-catalog-"))
    try:
        t0 = time.perf_counter()
        tools_by_server = anyio.run(list_all, real_servers(workdir))
        listed_s = time.perf_counter() - t0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    view = render_catalog(tools_by_server, {}, budget_tokens=args.budget)
    meta = meta_tools()
    meta_tokens = sum(count_json_tokens(function_definition("neuralgentics", t)) for t in meta)
    ours = meta_tokens + view.tokens
    per_server = [
        {"server": s.name, "tools": len(s.tools or ()), "schema_tokens": s.schema_tokens}
        for s in view.servers
    ]
    report = {
        "servers": per_server,
        "tool_count": view.tool_count,
        "full_schema_tokens": view.full_schema_tokens,
        "catalog_tokens": view.tokens,
        "catalog_level": view.level,
        "meta_tools": [t.name for t in meta],
        "meta_tool_schema_tokens": meta_tokens,
        "ours_tokens": ours,
        "ratio_ours_over_full": round(ours / view.full_schema_tokens, 4),
        "reduction": round(1 - ours / view.full_schema_tokens, 4),
        "budget": args.budget,
        "encoding": view.encoding,
        "listing_seconds": round(listed_s, 2),
    }
    if args.snapshot:
        args.snapshot.parent.mkdir(parents=True, exist_ok=True)
        args.snapshot.write_text(json.dumps(dump_tools(tools_by_server), indent=1) + "\n")
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{'server':<22}{'tools':>6}{'schema tokens':>15}")
    for row in per_server:
        print(f"{row['server']:<22}{row['tools']:>6}{row['schema_tokens']:>15}")
    print(f"{'all (baseline)':<22}{view.tool_count:>6}{view.full_schema_tokens:>15}")
    print()
    print(f"catalog ({view.level}, budget {args.budget}): {view.tokens} tokens")
    print(f"meta-tool schemas ({', '.join(report['meta_tools'])}): {meta_tokens} tokens")
    print(
        f"ours = {ours} tokens = {report['ratio_ours_over_full']:.3f}x baseline "
        f"({report['reduction']:.1%} fewer); tokens counted with {view.encoding}"
    )
    print()
    print(view.text)


if __name__ == "__main__":
    main()
