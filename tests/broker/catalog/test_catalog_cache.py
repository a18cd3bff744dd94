"""The on-disk tool-list cache: keyed by each server's config, atomic, never holds secrets."""

from __future__ import annotations

import json
import os

import anyio
from catalog_support import time_server
from mcp.types import Tool

from neuralgentics.broker.catalog import ToolListCache, config_hash
from neuralgentics.broker.catalog.fetch import fetch_tools
from neuralgentics.broker.config import BrokerConfig, ServerConfig
from neuralgentics.broker.service import Broker
from neuralgentics.config import Settings


def _real_time_tools() -> list[Tool]:
    async def main() -> list[Tool]:
        with open(os.devnull, "w") as devnull:
            return await fetch_tools(ServerConfig(**time_server()), timeout=60, errlog=devnull)

    return anyio.run(main)


def test_round_trip_of_a_real_tools_list(tmp_path) -> None:
    tools = _real_time_tools()
    cfg = ServerConfig(**time_server())
    cache = ToolListCache(tmp_path)
    assert cache.load("time", cfg) is None
    cache.save("time", cfg, tools)
    loaded = cache.load("time", cfg)
    assert loaded == tools
    assert cache.saved_at("time") is not None
    # The broker keeps it under NEURALGENTICS_HOME.
    broker = Broker(BrokerConfig(), settings=Settings())
    assert str(broker.launcher.tool_cache.directory).startswith(os.environ["NEURALGENTICS_HOME"])


def test_a_changed_launch_config_misses_but_a_new_summary_does_not(tmp_path) -> None:
    cfg = ServerConfig(**time_server())
    cache = ToolListCache(tmp_path)
    tools = [Tool(name="get_current_time", input_schema={"type": "object"})]
    cache.save("time", cfg, tools)
    assert (
        cache.load("time", cfg.model_copy(update={"summary": "new words", "idle_timeout": 5}))
        == tools
    )
    assert cache.load("time", cfg.model_copy(update={"args": ["-m", "mcp_server_time"]})) is None
    assert cache.load("time", cfg.model_copy(update={"env": {"TZ": "UTC"}})) is None
    assert config_hash(cfg) == config_hash(cfg.model_dump())


def test_invalidate_one_or_all(tmp_path) -> None:
    cfg = ServerConfig(**time_server())
    cache = ToolListCache(tmp_path)
    tools = [Tool(name="t", input_schema={"type": "object"})]
    cache.save("a", cfg, tools)
    cache.save("b", cfg, tools)
    cache.invalidate("a")
    assert cache.load("a", cfg) is None and cache.load("b", cfg) == tools
    cache.invalidate()
    assert cache.load("b", cfg) is None
    cache.invalidate("never-saved")  # no error


def test_a_corrupt_or_foreign_file_is_a_miss_not_a_crash(tmp_path) -> None:
    cfg = ServerConfig(**time_server())
    cache = ToolListCache(tmp_path)
    cache.save("time", cfg, [Tool(name="t", input_schema={"type": "object"})])
    path = tmp_path / "time.json"
    path.write_text("{not json")
    assert cache.load("time", cfg) is None
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "server": "time",
                "config_hash": config_hash(cfg),
                "tools": [{"nope": 1}],
            }
        )
    )
    assert cache.load("time", cfg) is None
    path.write_text(
        json.dumps({"version": 99, "server": "time", "config_hash": config_hash(cfg), "tools": []})
    )
    assert cache.load("time", cfg) is None


def test_secrets_in_env_and_headers_never_reach_the_disk(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("API_KEY", "s3cr3t-value")
    cfg = ServerConfig(command="x", env={"API_KEY": "${API_KEY}", "LITERAL": "inline-secret"})
    cache = ToolListCache(tmp_path)
    cache.save("srv", cfg, [Tool(name="t", input_schema={"type": "object"})])
    stored = (tmp_path / "srv.json").read_text()
    assert (
        "s3cr3t-value" not in stored and "inline-secret" not in stored and "API_KEY" not in stored
    )
    # No temp files left behind by the atomic write.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["srv.json"]
