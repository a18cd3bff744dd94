"""The intent evaluation set: a static catalog of >= 300 tools and natural-language intents.

- ``data/real_servers.json``: tools/list of the real servers (written by
  ``bench/catalog.py --snapshot``), as an agent would get them today;
- ``data/services.txt``: tool lists written for common services (GitHub, Slack, Postgres,
  Docker, Kubernetes, Playwright, ...), in the shape of their public MCP servers;
- ``data/intents.tsv``: ``intent<TAB>server/tool`` written the way a developer asks: the
  tuning set (weights, synonyms and features were chosen looking at it);
- ``data/intents_heldout.tsv``: the same format, written fresh before a tuning round and never
  looked at for tuning: the figure that says how the matcher does on intents it was not shaped to;
- ``data/intents_heldout_b.tsv``: a second held-out set, written after the last matcher change;
- ``data/intents_heldout_c.tsv``: a third, written from the tool lists alone before the
  re-ranking round, aimed at sibling tools that differ in a word;
- ``data/intents_heldout_d.tsv``: a fourth, written before the fourth pass on the candidates
  shown to the agent, without running the matcher on it (indirect needs, typos, abbreviations).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mcp.types import Tool

DATA = Path(__file__).resolve().parent / "data"
_SERVER = re.compile(r"^##\s*(\S+)\s*\|\s*(.+)$")
_TOOL = re.compile(r"^(\w[\w.-]*)\((.*?)\)\s+(.+)$")


def services() -> tuple[dict[str, list[Tool]], dict[str, str]]:
    tools: dict[str, list[Tool]] = {}
    summaries: dict[str, str] = {}
    server = None
    for n, line in enumerate((DATA / "services.txt").read_text().splitlines(), 1):
        line = line.strip()
        if not line or (line.startswith("#") and not line.startswith("##")):
            continue
        if m := _SERVER.match(line):
            server = m.group(1)
            summaries[server] = m.group(2)
            tools[server] = []
            continue
        m = _TOOL.match(line)
        if not m or server is None:
            raise ValueError(f"services.txt:{n}: cannot parse {line!r}")
        name, params, description = m.groups()
        props: dict[str, dict[str, str]] = {}
        required: list[str] = []
        for p in (p.strip() for p in params.split(",") if p.strip()):
            optional = p.endswith("?")
            p = p.rstrip("?")
            props[p] = {"type": "string"}
            if not optional:
                required.append(p)
        schema: dict = {"type": "object", "properties": props}
        if required:
            schema["required"] = required
        tools[server].append(Tool(name=name, description=description, input_schema=schema))
    return tools, summaries


def real_servers() -> dict[str, list[Tool]]:
    data = json.loads((DATA / "real_servers.json").read_text())
    return {s: [Tool.model_validate(t) for t in ts] for s, ts in data.items()}


# One-line summaries a user would put in the broker config for the real servers (the config's
# `summary` key); the servers' own tool lists are used as they come.
REAL_SUMMARIES = {
    "time": "Current time in any time zone and conversion between zones",
    "git": "Local git repository: status, diffs, staging, commits, branches, log",
    "fetch": "Fetch a web page by URL and return it as markdown",
    "everything": "MCP test server exercising protocol features (echo, sums, images, progress)",
    "filesystem": "Read, write, edit, move and search files and directories on this machine",
    "memory": "Persistent knowledge-graph memory: entities, relations and observations",
    "sequential-thinking": "Structured step-by-step reasoning for hard problems",
}


def catalog(with_summaries: bool = True) -> tuple[dict[str, list[Tool]], dict[str, str]]:
    tools, summaries = services()
    for server, listed in real_servers().items():
        assert server not in tools, f"{server} is both a real server and a written one"
        tools[server] = listed
        if with_summaries:
            summaries[server] = REAL_SUMMARIES[server]
    return tools, summaries


TUNING = "intents.tsv"
HELD_OUT = "intents_heldout.tsv"
# Written after the tuning round's last change: clean even of the author's memory of set A.
HELD_OUT_B = "intents_heldout_b.tsv"
# Written before the re-ranking round changed anything, from the tool lists alone.
HELD_OUT_C = "intents_heldout_c.tsv"
# Written 2026-12-01 before the fourth pass on issue 18 item 8 changed anything, without running
# the matcher on it; indirect needs, typos, abbreviations.
HELD_OUT_D = "intents_heldout_d.tsv"
HELD_OUT_SETS = (HELD_OUT, HELD_OUT_B, HELD_OUT_C, HELD_OUT_D)
# More training intents for the re-ranker's weights (never a measure of accuracy).
TRAIN_2 = "intents_train2.tsv"


def intents(name: str = TUNING) -> list[tuple[str, str, str]]:
    """(intent, server, tool) triples of ``data/<name>``."""
    out = []
    for n, line in enumerate((DATA / name).read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            intent, target = line.split("\t")
            server, tool = target.strip().split("/", 1)
        except ValueError:
            raise ValueError(
                f"{name}:{n}: expected 'intent<TAB>server/tool', got {line!r}"
            ) from None
        out.append((intent.strip(), server, tool))
    return out
